"""OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp, vLLM, LM Studio…).

A small HTTP client of conv's own (http.py) on purpose: the openai SDK costs a
second of import on every follow-up, httpx 60 ms, http.client 15–20 ms.
Streaming is Server-Sent Events (sse.py). The POST, its one retry and the
errors are httpapi.py's, shared with the Anthropic provider.
"""

from ..errors import ProviderError
from ..home.config import Config
from ..records import dataclass
from . import Message, OnText, Reply
from .httpapi import Hints, HTTPProvider, call, cut_short, error_message, json_object
from .sse import events

HINTS = Hints(
    key="OPENAI_API_KEY",
    url="OPENAI_BASE_URL",
    example="http://127.0.0.1:11434/v1",
    where="Is the server running? Point conv at it with OPENAI_BASE_URL or conv config set base_url URL",
    api="an OpenAI-compatible API",
)


@dataclass
class OpenAIProvider(HTTPProvider):
    hints: Hints = HINTS
    name: str = "openai"
    RECORD = "openai"
    CONFIGURED = ("base_url", "api_key")
    NO_KEY = ("no model is set up: OpenAI needs OPENAI_API_KEY",
              "Export it, or point conv at another server with OPENAI_BASE_URL (e.g. Ollama: http://127.0.0.1:11434/v1)")

    # options.py's names are its own
    OPTIONS = ("temperature", "top_p", "seed", "max_tokens", "stop", "reasoning_effort")
    IMAGES = True  # as image_url parts (data: URIs); a model that sees none says so itself

    def complete(
        self, messages: list[Message], model: str, on_text: OnText, stream: bool = True, options: dict | None = None,
    ) -> Reply:
        body = {"model": model, "messages": [wire_message(m) for m in messages], **self.options, **(options or {})}
        if stream:
            body |= {"stream": True, "stream_options": {"include_usage": True}}
        headers = ({"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}) | self.headers
        read = _read_stream if stream else _read_whole
        return call(
            self.base_url, "/chat/completions", body, headers, (self.connect_timeout, self.read_timeout), self.hints,
            lambda response: read(response, model, on_text), self.ca_file,
        )


def wire_message(m: Message) -> dict:
    """A message as chat completions take it: its text, or text and image parts."""
    if not m.images:
        return {"role": m.role, "content": m.content}
    from base64 import b64encode

    parts = [{"type": "image_url", "image_url": {"url": f"data:{kind};base64,{b64encode(data).decode()}"}}
             for kind, data in m.images]
    return {"role": m.role, "content": [{"type": "text", "text": m.content}, *parts]}


class OllamaProvider(OpenAIProvider):
    """Ollama through its OpenAI-compatible API, at OLLAMA_HOST or 127.0.0.1:11434."""

    @classmethod
    def from_config(cls, config: Config) -> "OllamaProvider":
        from .choice import ollama_host

        return cls(ollama_host() + "/v1", None, config.get("timeout.connect"), config.get("timeout.read"), "ollama",
                   config.get("tls.ca_file"))


def _read_stream(response, model: str, on_text: OnText) -> Reply:
    """Apply events until ``[DONE]``; a stream that stops short is an error."""
    reply = Reply(model=model, finish="")
    try:
        for _, event in events(response):
            if event.strip() == "[DONE]":
                return _finished(reply)
            _apply(json_event(event), reply, on_text)
    except ConnectionError as exc:
        raise cut_short() from exc
    if reply.finish:  # finish_reason seen, only [DONE] missing: the answer is whole
        return reply
    raise cut_short()


def _finished(reply: Reply) -> Reply:
    reply.finish = reply.finish or "stop"
    return reply


def json_event(text: str) -> dict:
    event = json_object(text, HINTS)
    if "error" in event:
        raise ProviderError(f"the server reported an error: {error_message(event)}")
    return event


def _apply(event: dict, reply: Reply, on_text: OnText) -> None:
    reply.model = event.get("model") or reply.model
    if isinstance(event.get("usage"), dict):
        reply.usage = _usage(event["usage"])
    for choice in event.get("choices") or []:
        delta = choice.get("delta") or choice.get("message") or {}
        text = delta.get("content")
        if isinstance(text, str) and text:
            on_text(text)
        if choice.get("finish_reason"):
            reply.finish = str(choice["finish_reason"])


def _read_whole(response, model: str, on_text: OnText) -> Reply:
    event = json_event(response.read().decode("utf-8", "replace"))
    reply = Reply(model=model)
    _apply(event, reply, on_text)
    return _finished(reply)


def _usage(usage: dict) -> dict:
    """The API's usage in conv's classes (format/usage.py): its prompt_tokens hold what was read from the cache
    (``prompt_tokens_details.cached_tokens``: counted apart), its completion_tokens the reasoning (said apart)."""
    out = {k: int(usage[k]) for k in ("prompt_tokens", "completion_tokens") if isinstance(usage.get(k), int)}
    cached = _detail(usage, "prompt_tokens_details", "cached_tokens")
    if cached is not None and "prompt_tokens" in out:
        out["cache_read_tokens"] = min(cached, out["prompt_tokens"])
        out["prompt_tokens"] -= out["cache_read_tokens"]
    reasoning = _detail(usage, "completion_tokens_details", "reasoning_tokens")
    if reasoning:
        out["reasoning_tokens"] = reasoning
    return out


def _detail(usage: dict, part: str, key: str) -> int | None:
    found = usage.get(part)
    value = found.get(key) if isinstance(found, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
