"""OpenAI-compatible chat completions (OpenAI, Ollama, llama.cpp, vLLM, LM Studio…).

A small HTTP client of conv's own (http.py) on purpose: the openai SDK costs a
second of import on every follow-up, httpx 60 ms, http.client 15–20 ms.
Streaming is Server-Sent Events (sse.py). One retry on 429 and 5xx,
after the server's Retry-After.
"""

import json
import os
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..config import Config
from ..errors import ProviderError
from . import Message, OnText, Reply
from .sse import events

DEFAULT_BASE_URL = "https://api.openai.com/v1"
MAX_RETRY_WAIT = 30.0  # longer Retry-After values are reported, not waited out


@dataclass
class OpenAIProvider:
    base_url: str
    api_key: str | None
    connect_timeout: float
    read_timeout: float
    name: str = "openai"

    @classmethod
    def from_config(cls, config: Config) -> "OpenAIProvider":
        base_url = os.environ.get("OPENAI_BASE_URL") or config.get("base_url") or DEFAULT_BASE_URL
        api_key = os.environ.get("OPENAI_API_KEY") or None
        if base_url == DEFAULT_BASE_URL and not api_key:
            raise ProviderError(
                "no model is set up: OpenAI needs OPENAI_API_KEY",
                "Export it, or point conv at another server with OPENAI_BASE_URL (e.g. Ollama: http://127.0.0.1:11434/v1)",
            )
        return cls(base_url, api_key, config.get("timeout.connect"), config.get("timeout.read"))

    def complete(
        self, messages: list[Message], model: str, on_text: OnText, stream: bool = True,
        temperature: float | None = None,
    ) -> Reply:
        body = {"model": model, "messages": [{"role": m.role, "content": m.content} for m in messages]}
        if temperature is not None:
            body["temperature"] = temperature
        if stream:
            body |= {"stream": True, "stream_options": {"include_usage": True}}
        for attempt in (1, 2):
            response = self._post("/chat/completions", body)
            try:
                if response.status == 200:
                    read = _read_stream if stream else _read_whole
                    return read(response, model, on_text)
                wait = _retry_wait(response) if attempt == 1 else None
                if wait is None:
                    raise _status_error(response, self.base_url)
            except TimeoutError:
                raise ProviderError(
                    f"no answer from {self.base_url} within {self.read_timeout:g} s (read timeout)",
                    "The server may be overloaded; raise it with conv config set timeout.read SECONDS",
                ) from None
            except OSError as exc:  # cut, reset, garbled framing
                raise ProviderError(
                    f"the connection failed while the answer was arriving ({exc})",
                    "Anything received is kept; try again",
                ) from None
            finally:
                response.close()
            time.sleep(wait)
        raise AssertionError("unreachable")

    def _post(self, path: str, body: dict):
        from .http import request

        url = self.base_url.rstrip("/") + path
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ProviderError(f"base URL {self.base_url!r} is not an http(s) URL", "Set OPENAI_BASE_URL, e.g. http://127.0.0.1:11434/v1")
        headers = {"Content-Type": "application/json", "Accept": "text/event-stream, application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        try:
            return request(url, json.dumps(body).encode(), headers, self.connect_timeout, self.read_timeout)
        except ConnectionRefusedError:
            raise ProviderError(f"cannot reach {self.base_url}: connection refused", _WHERE_HINT) from None
        except TimeoutError:
            raise ProviderError(f"{self.base_url} did not answer in time", _WHERE_HINT) from None
        except OSError as exc:
            raise ProviderError(f"cannot reach {self.base_url}: {exc}", _WHERE_HINT) from None


class OllamaProvider(OpenAIProvider):
    """Ollama through its OpenAI-compatible API, at OLLAMA_HOST or 127.0.0.1:11434."""

    @classmethod
    def from_config(cls, config: Config) -> "OllamaProvider":
        from .choice import ollama_host

        return cls(ollama_host() + "/v1", None, config.get("timeout.connect"), config.get("timeout.read"), "ollama")


_WHERE_HINT = "Is the server running? Point conv at it with OPENAI_BASE_URL or conv config set base_url URL"


def _read_stream(response, model: str, on_text: OnText) -> Reply:
    """Apply events until ``[DONE]``; a stream that stops short is an error."""
    reply = Reply(model=model, finish="")
    try:
        for _, event in events(response):
            if event.strip() == "[DONE]":
                return _finished(reply)
            _apply(json_event(event), reply, on_text)
    except ConnectionError as exc:
        raise _cut(reply) from exc
    if reply.finish:  # finish_reason seen, only [DONE] missing: the answer is whole
        return reply
    raise _cut(reply)


def _finished(reply: Reply) -> Reply:
    reply.finish = reply.finish or "stop"
    return reply


def _cut(reply: Reply) -> ProviderError:
    return ProviderError("the connection closed before the answer was complete", "The partial answer is kept; try again")


def json_event(text: str) -> dict:
    try:
        event = json.loads(text)
    except ValueError:
        raise ProviderError(f"malformed event from the server: {text[:60]!r}", "Is the base URL an OpenAI-compatible API?") from None
    if not isinstance(event, dict):
        raise ProviderError("malformed event from the server (not an object)", "Is the base URL an OpenAI-compatible API?")
    if "error" in event:
        raise ProviderError(f"the server reported an error: {_message(event)}")
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
    return {k: int(usage[k]) for k in ("prompt_tokens", "completion_tokens") if isinstance(usage.get(k), int)}


def _retry_wait(response) -> float | None:
    """Seconds to wait before the one retry, or None when not to retry."""
    if response.status != 429 and response.status < 500:
        return None
    header = response.getheader("Retry-After")
    if not header:
        return 1.0
    try:
        wait = float(header)
    except ValueError:
        import email.utils  # only here: it costs 10 ms of import on every ask

        try:
            wait = email.utils.parsedate_to_datetime(header).timestamp() - time.time()
        except (TypeError, ValueError):
            return 1.0
    wait = max(0.0, wait)
    return wait if wait <= MAX_RETRY_WAIT else None


def _status_error(response, base_url: str) -> ProviderError:
    text = response.read(65536).decode("utf-8", "replace")
    try:
        detail = _message(json.loads(text))
    except ValueError:
        detail = " ".join(text.split())[:120]
    status = response.status
    detail = f": {detail}" if detail else ""
    if status in (401, 403):
        return ProviderError(f"the server refused the request ({status}){detail}", "Check OPENAI_API_KEY")
    if status == 404:
        return ProviderError(f"not found at {base_url} ({status}){detail}", "Check the model name (-m) and OPENAI_BASE_URL")
    if status == 429:
        after = response.getheader("Retry-After")
        return ProviderError(f"rate limited ({status}){detail}", f"Try again in {after} s" if after else "Try again later")
    return ProviderError(f"the server failed ({status}){detail}", "Try again later")


def _message(payload) -> str:
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict):
        return " ".join(str(error.get("message") or "").split())[:200]
    if isinstance(error, str):
        return error[:200]
    return ""
