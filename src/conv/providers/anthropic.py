"""Anthropic's Messages API (Claude models), without the anthropic SDK: its
import alone would cost more than a whole follow-up.

Only the wire format is here: the system prompt as a top-level field, turns
that must alternate, a ``max_tokens`` the API requires, and typed SSE events
(message_start … message_stop). The POST, its one retry (429, 5xx, 529
overloaded) and the errors are httpapi.py's, shared with the OpenAI provider.
"""

from ..errors import ProviderError
from ..records import dataclass
from . import Message, OnText, Reply
from .httpapi import Hints, HTTPProvider, call, cut_short, error_message, json_object
from .sse import events

API_VERSION = "2023-06-01"
MAX_TOKENS = 4096  # the API requires a cap on the answer; 4096 fits every Claude model
FINISH = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length"}  # stop_reason -> conv's finish
HINTS = Hints(
    key="ANTHROPIC_API_KEY",
    url="ANTHROPIC_BASE_URL",
    example="https://api.anthropic.com",
    where="Check the network, and ANTHROPIC_BASE_URL if it is set",
    api="an Anthropic Messages API",
)


@dataclass
class AnthropicProvider(HTTPProvider):
    hints: Hints = HINTS
    name: str = "anthropic"
    RECORD = "anthropic"
    NO_KEY = ("no model is set up: Anthropic needs ANTHROPIC_API_KEY",
              "Export it (keys are at console.anthropic.com), or point conv at another server with ANTHROPIC_BASE_URL")

    OPTIONS = ("temperature", "top_p", "max_tokens", "stop")  # no seed: it samples anew each time
    IMAGES = True  # as base64 image blocks

    def complete(
        self, messages: list[Message], model: str, on_text: OnText, stream: bool = True, options: dict | None = None,
    ) -> Reply:
        options = dict(options or {})
        if "stop" in options:
            options["stop_sequences"] = options.pop("stop")
        body = {"model": model, "max_tokens": MAX_TOKENS, **_conversation(messages), **options}
        if stream:
            body["stream"] = True
        headers = ({"anthropic-version": API_VERSION} | ({"x-api-key": self.api_key} if self.api_key else {})
                   | self.headers)
        read = _read_stream if stream else _read_whole
        return call(
            self.base_url, "/v1/messages", body, headers, (self.connect_timeout, self.read_timeout), self.hints,
            lambda response: read(response, model, on_text), self.ca_file,
        )


def _conversation(messages: list[Message]) -> dict:
    """``system`` and ``messages`` as the API takes them: system prompts joined
    into one field, consecutive turns of one role merged (roles must alternate)."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    turns: list[dict] = []
    for m in messages:
        if m.role == "system":
            continue
        content = _content(m)
        if turns and turns[-1]["role"] == m.role:
            before = turns[-1]["content"]
            if isinstance(before, str) and isinstance(content, str):
                turns[-1]["content"] = before + "\n\n" + content
            else:
                turns[-1]["content"] = _blocks(before) + _blocks(content)
        else:
            turns.append({"role": m.role, "content": content})
    return {"system": system, "messages": turns} if system else {"messages": turns}


def _content(m: Message) -> str | list:
    """A message's text, or with images its blocks: the images first, as the API advises."""
    if not m.images:
        return m.content
    from base64 import b64encode

    return [*({"type": "image", "source": {"type": "base64", "media_type": kind, "data": b64encode(data).decode()}}
              for kind, data in m.images), {"type": "text", "text": m.content}]


def _blocks(content: str | list) -> list:
    return content if isinstance(content, list) else [{"type": "text", "text": content}]


def _read_stream(response, model: str, on_text: OnText) -> Reply:
    """Apply events until ``message_stop``; a stream that stops short is an error."""
    reply = Reply(model=model, finish="")
    counts: dict = {}  # the usage fields seen so far: message_delta's are cumulative
    try:
        for kind, data in events(response):
            event = _checked(data)
            kind = event.get("type") or kind
            if kind == "message_start":
                message = event.get("message") or {}
                reply.model = message.get("model") or reply.model
                reply.usage = _usage(counts, message.get("usage"))
            elif kind == "content_block_delta":
                delta = event.get("delta") or {}
                if delta.get("type") == "text_delta" and delta.get("text"):
                    on_text(delta["text"])
            elif kind == "message_delta":
                reply.finish = _finish((event.get("delta") or {}).get("stop_reason")) or reply.finish
                reply.usage = _usage(counts, event.get("usage"))
            elif kind == "message_stop":
                reply.finish = reply.finish or "stop"
                return reply
    except ConnectionError as exc:
        raise cut_short() from exc
    raise cut_short()


def _read_whole(response, model: str, on_text: OnText) -> Reply:
    message = _checked(response.read().decode("utf-8", "replace"))
    blocks = message.get("content") or []
    text = "".join(b.get("text") or "" for b in blocks if isinstance(b, dict) and b.get("type") == "text")
    if text:
        on_text(text)
    finish = _finish(message.get("stop_reason")) or "stop"
    return Reply(message.get("model") or model, finish, _usage({}, message.get("usage")))


def _checked(text: str) -> dict:
    """An event's data or a whole response; the server's error as a ProviderError."""
    event = json_object(text, HINTS)
    if event.get("type") == "error":
        raise ProviderError(f"the server reported an error: {error_message(event)}",
                            "Anything received is kept; try again")
    return event


def _finish(stop_reason) -> str:
    return FINISH.get(stop_reason, stop_reason) if isinstance(stop_reason, str) else ""


def _usage(counts: dict, usage) -> dict:
    """conv's classes of tokens (format/usage.py) after adding ``usage``'s fields to ``counts``: Anthropic's
    are disjoint already (input, cache writes, cache reads, output)."""
    if isinstance(usage, dict):
        counts |= {k: v for k, v in usage.items() if isinstance(v, int) and not isinstance(v, bool)}
    out = {}
    if "input_tokens" in counts:
        out["prompt_tokens"] = counts["input_tokens"]
        out["cache_write_tokens"] = counts.get("cache_creation_input_tokens", 0)
        out["cache_read_tokens"] = counts.get("cache_read_input_tokens", 0)
    if "output_tokens" in counts:
        out["completion_tokens"] = counts["output_tokens"]
    return out
