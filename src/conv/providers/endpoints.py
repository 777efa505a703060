"""Named endpoints (``endpoints.NAME.*`` in config): any number of OpenAI- or
Anthropic-compatible services side by side, each with its own URL, key and
headers, asked as ``-m NAME:MODEL``; and aliases (``aliases.SHORT:
NAME:MODEL``), usable wherever a model is. A key comes from the variable
``key_env`` names or from the command ``key_cmd`` (``pass show groq``), run
only when that endpoint answers; its output is masked wherever conv prints
and never stored.
"""

import shlex
import subprocess

from ..errors import ProviderError
from ..home.config import Config
from ..home.env import setting
from .httpapi import Hints

KEY_CMD_SECONDS = 30


def names(config: Config) -> list[str]:
    return config.names("endpoints")


def model_names(config: Config) -> list[str]:
    """Every name ``-m`` takes from config: aliases, then ENDPOINT:MODEL for
    each endpoint's listed models (for conv models and completion)."""
    found = list(config.names("aliases"))
    for name in names(config):
        found += [f"{name}:{model}" for model in config.get(f"endpoints.{name}.models") or ()]
    return found


def provider(config: Config, name: str):
    """The provider that speaks to endpoint ``name``."""
    base_url = config.get(f"endpoints.{name}.base_url")
    if not base_url:
        raise ProviderError(f"endpoint {name} has no base_url",
                            f"Set it: conv config set endpoints.{name}.base_url URL")
    api = config.get(f"endpoints.{name}.api")
    key_env = config.get(f"endpoints.{name}.key_env")
    hints = Hints(key=key_env or f"endpoints.{name}.key_cmd", url=f"endpoints.{name}.base_url", example=base_url,
                  where=f"Check endpoints.{name} (conv config get)", api=f"an {api} API")
    if api == "anthropic":
        from .anthropic import AnthropicProvider as Speaker
    else:
        from .openai import OpenAIProvider as Speaker
    return Speaker(base_url, _key(config, name, key_env), config.get("timeout.connect"), config.get("timeout.read"),
                   name=name, ca_file=config.get("tls.ca_file"), headers=config.get(f"endpoints.{name}.headers") or {},
                   hints=hints)


def _key(config: Config, name: str, key_env: str | None) -> str | None:
    if key_env:
        value = setting(key_env)
        if not value:
            raise ProviderError(f"{key_env} is not set (endpoints.{name}.key_env)", f"Export it: export {key_env}=…")
        return value
    command = config.get(f"endpoints.{name}.key_cmd")
    return _run_key_command(name, command) if command else None


def _run_key_command(name: str, command: str) -> str:
    """The first line the command prints, remembered as a secret."""
    from ..home import secrets

    what = f"endpoints.{name}.key_cmd"
    try:
        done = subprocess.run(shlex.split(command), capture_output=True, timeout=KEY_CMD_SECONDS,
                              stdin=subprocess.DEVNULL)
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        raise ProviderError(f"{what} could not run: {exc}", "Check the command: conv config get") from None
    lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
    if done.returncode != 0 or not lines or not lines[0].strip():
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no key printed"]
        raise ProviderError(f"{what} failed (exit {done.returncode}): {said[0]}", "Run it yourself to see why")
    key = lines[0].strip()
    secrets.remember(key)
    return key


def probe(config: Config, name: str, timeout: float = 1.5) -> tuple[list[str] | None, str]:
    """(the models endpoint ``name`` lists at /models, or None; a word on it),
    for conv models. An endpoint whose key comes from a command is not asked:
    that command runs only when the endpoint answers a question."""
    import json

    from .http import request

    base_url = config.get(f"endpoints.{name}.base_url")
    if not base_url:
        return None, "no base_url"
    if config.get(f"endpoints.{name}.key_cmd") and not config.get(f"endpoints.{name}.key_env"):
        return None, "not asked (its key comes from key_cmd)"
    key_env = config.get(f"endpoints.{name}.key_env")
    key = setting(key_env) if key_env else None
    anthropic = config.get(f"endpoints.{name}.api") == "anthropic"
    headers = {"Accept": "application/json", **(config.get(f"endpoints.{name}.headers") or {})}
    if key and anthropic:
        from .anthropic import API_VERSION

        headers |= {"x-api-key": key, "anthropic-version": API_VERSION}
    elif key:
        headers["Authorization"] = f"Bearer {key}"
    url = base_url.rstrip("/") + ("/v1/models" if anthropic else "/models")
    try:
        response = request(url, None, headers, timeout, timeout, config.get("tls.ca_file"))
    except OSError as exc:
        return None, f"not answering ({type(exc).__name__})"
    try:
        if response.status != 200:
            return None, f"answers {response.status} at /models"
        listed = json.loads(response.read(1 << 20)).get("data") or []
    except (OSError, ValueError, AttributeError):
        return None, "answers, but lists no models"
    finally:
        response.close()
    found = [str(m["id"]) for m in listed if isinstance(m, dict) and m.get("id")]
    return found, f"answering, {len(found)} model(s)"
