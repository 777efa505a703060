"""What the HTTP providers (OpenAI-compatible, Anthropic) share, so they keep
only their wire formats: what they are made of and how the settings make
them (``HTTPProvider``), one JSON POST through http.py, one retry on 429 and
5xx after the server's Retry-After, and every way the exchange can fail as a
one-line ``ProviderError`` naming the setting to check.
"""

import json
import time
from collections import namedtuple
from collections.abc import Callable
from urllib.parse import urlsplit

from ..errors import ProviderError
from ..home.config import Config
from ..home.env import setting
from ..records import dataclass, field
from . import Reply
from .registry import BY_NAME

MAX_RETRY_WAIT = 30.0  # longer Retry-After values are reported, not waited out


# The settings an API's error messages point at (a named tuple, not a dataclass:
# that is 0.3 ms more import on every ask): the API key's variable (OPENAI_API_KEY),
# the base URL's variable (OPENAI_BASE_URL), a base URL to show when the set one is
# not http(s), what to check when the server cannot be reached, and what the base URL
# should be ("an OpenAI-compatible API").
Hints = namedtuple("Hints", "key url example where api")


@dataclass
class HTTPProvider:
    """A provider that speaks an HTTP API: where, with which key, its timeouts
    and private CA, an endpoint's own headers, what its errors point at, and
    more of the request body. A subclass names its record (registry.py) and
    its wire format (``complete``)."""

    base_url: str
    api_key: str | None
    connect_timeout: float
    read_timeout: float
    name: str = ""
    ca_file: str | None = None  # tls.ca_file: a private CA, trusted too
    headers: dict = field(default_factory=dict)  # an endpoint's own headers (endpoints.NAME.headers)
    hints: Hints | None = None  # what its errors point at
    options: dict = field(default_factory=dict)  # more of the request body (the local model's max_tokens…)

    RECORD = ""  # its name in registry.py (class attributes, not fields: no annotation)
    CONFIGURED = (None, None)  # config keys standing in for its base URL and key variables
    NO_KEY = ("", "")  # what is said when its own service is asked without a key

    @classmethod
    def from_config(cls, config: Config) -> "HTTPProvider":
        """The provider its variables (or config) set up; its own service needs a key."""
        record = BY_NAME[cls.RECORD]
        url_key, key_key = cls.CONFIGURED
        base_url = setting(record.url_env) or (url_key and config.get(url_key)) or record.base_url
        api_key = setting(record.key_env) or (key_key and config.get(key_key)) or None
        if base_url.rstrip("/") == record.base_url.rstrip("/") and not api_key:
            raise ProviderError(*cls.NO_KEY)
        return cls(base_url, api_key, config.get("timeout.connect"), config.get("timeout.read"), record.name,
                   ca_file=config.get("tls.ca_file"))


def call(
    base_url: str, path: str, body: dict, headers: dict[str, str], timeouts: tuple[float, float], hints: Hints,
    read: Callable[..., Reply], ca_file: str | None = None,
) -> Reply:
    """POST ``body`` to ``base_url + path`` and ``read`` the 200 response into a
    Reply; ``ca_file`` is tls.ca_file, a private CA trusted too."""
    for attempt in (1, 2):
        response = _post(base_url, path, body, headers, timeouts, hints, ca_file)
        try:
            if response.status == 200:
                return read(response)
            wait = retry_wait(response) if attempt == 1 else None
            if wait is None:
                raise status_error(response, base_url, hints)
        except TimeoutError:
            raise ProviderError(
                f"no answer from {base_url} within {timeouts[1]:g} s (read timeout)",
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


def _post(base_url: str, path: str, body: dict, headers: dict[str, str], timeouts: tuple[float, float], hints: Hints,
          ca_file: str | None):
    from .http import Failure, request

    url = base_url.rstrip("/") + path
    parts = urlsplit(url)
    if (parts.scheme not in ("http", "https", "http+unix")
            or not (parts.netloc if parts.scheme == "http+unix" else parts.hostname)):
        raise ProviderError(f"base URL {base_url!r} is not an http(s) URL", f"Set {hints.url}, e.g. {hints.example}")
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream, application/json", **headers}
    for name, value in headers.items():  # a key with a character HTTP cannot carry; its value is never shown
        if not value.isascii() or not value.isprintable():
            where = next(n for n, c in enumerate(value) if not c.isascii() or not c.isprintable())
            raise ProviderError(f"the {name} header would hold a character HTTP cannot carry (at position {where}); "
                                "nothing was sent", f"Check {hints.key}: a key is ASCII letters, digits and marks")
    try:
        return request(url, json.dumps(body).encode(), headers, *timeouts, ca_file)
    except Failure as exc:  # the proxy, the certificate or a redirect, explained
        raise ProviderError(str(exc), exc.hint) from None
    except ConnectionRefusedError:
        raise ProviderError(f"cannot reach {base_url}: connection refused", hints.where) from None
    except TimeoutError:
        raise ProviderError(f"{base_url} did not answer in time", hints.where) from None
    except OSError as exc:
        raise ProviderError(f"cannot reach {base_url}: {exc}", hints.where) from None


def json_object(text: str, hints: Hints) -> dict:
    """One JSON object from the server: an event's data or a whole response."""
    try:
        value = json.loads(text)
    except ValueError:
        raise ProviderError(f"malformed event from the server: {text[:60]!r}",
                            f"Is the base URL {hints.api}?") from None
    if not isinstance(value, dict):
        raise ProviderError("malformed event from the server (not an object)", f"Is the base URL {hints.api}?")
    return value


def cut_short() -> ProviderError:
    return ProviderError("the connection closed before the answer was complete",
                         "The partial answer is kept; try again")


def retry_wait(response) -> float | None:
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


def status_error(response, base_url: str, hints: Hints) -> ProviderError:
    text = response.read(65536).decode("utf-8", "replace")
    try:
        detail = error_message(json.loads(text))
    except ValueError:
        detail = " ".join(text.split())[:120]
    status = response.status
    detail = f": {detail}" if detail else ""
    if status in (401, 403):
        return ProviderError(f"the server refused the request ({status}){detail}", f"Check {hints.key}")
    if status == 404:
        return ProviderError(f"not found at {base_url} ({status}){detail}",
                             f"Check the model name (-m) and {hints.url}")
    if 300 <= status < 400:
        where = response.getheader("Location")
        return ProviderError(f"{base_url} redirected the request ({status}{f' to {where}' if where else ''})",
                             f"Set {hints.url} to where it leads (conv follows only 307 and 308 for a POST)")
    if status == 429:
        after = response.getheader("Retry-After")
        return ProviderError(f"rate limited ({status}){detail}",
                             f"Try again in {after} s" if after else "Try again later")
    return ProviderError(f"the server failed ({status}){detail}", "Try again later")


def error_message(payload) -> str:
    """The message of an ``{"error": {"message": …}}`` body, the shape both APIs use."""
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict):
        return " ".join(str(error.get("message") or "").split())[:200]
    if isinstance(error, str):
        return error[:200]
    return ""
