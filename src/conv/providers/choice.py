"""Which provider and model answer: the first step of the chain that names one.

  1. ``-m MODEL``                      5. ``model`` in config
  2. the agent's model                 6. API keys in the environment (OpenAI, then Anthropic)
  3. a follow-up: the model of the     7. an Ollama server answering on 127.0.0.1:11434
     conversation's last answer        8. the local model (``[local]`` + pull)
  4. ``CONV_MODEL``

So conv answers the moment it is installed, offline, and then with whatever
model a user already pays for or runs. ``conv models`` prints this chain.
"""

import json
import os

from ..errors import ProviderError, UsageError
from ..home.config import Config
from ..home.env import setting
from ..records import dataclass
from .registry import BY_NAME, RECORDS

OPENAI_PREFIXES = ("ft",)  # OpenAI's fine-tuned models: ft:gpt-4o-mini:org::id


@dataclass
class Choice:
    provider: str
    model: str
    source: str  # the step of the chain that chose it, e.g. "-m" or "ANTHROPIC_API_KEY"

    @property
    def spec(self) -> str:
        return f"{self.provider}:{self.model}"


@dataclass
class Step:
    source: str
    spec: str | None  # None: this step names nothing here
    detail: str = ""


def parse_spec(spec: str, config: Config | None = None) -> tuple[str, str]:
    """(provider, model) from ``MODEL``, ``PROVIDER:MODEL``, ``ENDPOINT:MODEL``
    or an alias (the last two from ``config``).

    A ``NAME:`` that is neither a provider nor an endpoint is refused (a
    model whose own name has a colon is written with its provider:
    ``ollama:llama3:8b``); a bare ``local`` is the embedded model, a
    ``.gguf`` path a local file, ``claude-…`` Anthropic's, and any other
    bare name goes to the OpenAI-compatible server (which may be Ollama,
    vLLM…, see OPENAI_BASE_URL).
    """
    spec = spec.strip()
    alias = spec if config is not None and spec in config.names("aliases") else None
    if alias:  # aliases.SHORT: ENDPOINT:MODEL
        spec = config.get(f"aliases.{spec}").strip()
    prefix, sep, rest = spec.partition(":")
    if sep and (prefix in BY_NAME or (config is not None and prefix in config.names("endpoints"))):
        if not rest.strip():
            raise UsageError(f"model {spec!r} names no model", f"Write it as {prefix}:MODEL")
        return prefix, rest.strip()
    if sep and prefix not in OPENAI_PREFIXES and not spec.endswith(".gguf"):
        raise unknown_prefix(prefix, spec, config, alias)
    if not sep and config is not None and spec in config.names("endpoints"):
        return spec, _endpoint_model(spec, config)
    if not sep and spec in BY_NAME and BY_NAME[spec].default_model:  # -m anthropic: its default model
        return spec, BY_NAME[spec].default_model
    if spec == "local":
        from .local.model import DEFAULT_MODEL

        return "local", DEFAULT_MODEL
    if spec.endswith(".gguf"):
        return "local", spec
    return next((r.name for r in RECORDS if r.prefixes and spec.startswith(r.prefixes)), "openai"), spec


def _endpoint_model(name: str, config: Config) -> str:
    """The model a bare endpoint name means: the first it lists; one it lists none of is asked for."""
    models = config.get(f"endpoints.{name}.models") or []
    if not models:
        raise UsageError(f"{name!r} is an endpoint of yours, and -m {name} names none of its models; "
                         "nothing was sent", f"Name one: -m {name}:MODEL (or list them: conv config set "
                         f"endpoints.{name}.models \"m1, m2\")")
    return models[0]


def unknown_prefix(prefix: str, spec: str, config: Config | None, alias: str | None) -> UsageError:
    """``NAME:`` before a model names neither a provider nor an endpoint: a
    typo (grqo:) would otherwise send the question, and OPENAI_API_KEY, to the
    default OpenAI-compatible server as a model named "grqo:…"."""
    from difflib import get_close_matches

    known = [*BY_NAME, *(config.names("endpoints") if config is not None else [])]
    meant = get_close_matches(prefix, known, n=1, cutoff=0.5)
    where = f"alias {alias!r} ({spec})" if alias else repr(spec)
    return UsageError(
        f"{prefix!r} in {where} is neither a provider nor an endpoint; nothing was sent",
        (f"Did you mean {meant[0]}:{spec.partition(':')[2]}? " if meant else "") + f"Known: {', '.join(known)}. "
        f"A model whose own name has a colon goes with its provider: -m ollama:{spec} or -m openai:{spec}",
    )


VENDOR_MODELS = {"openai": ("gpt-", "o1", "o3", "o4", "chatgpt-"), "anthropic": ("claude",)}  # their services' own


def going_on_with(provider: str | None, model: str | None, config: Config) -> str | None:
    """The spec a follow-up goes on with, from its conversation's last answer:
    its PROVIDER:MODEL; for an answer that came from another tool (conv
    import records the tool, e.g. llm or chatgpt, as its provider), the model
    alone when a provider conv has here serves it (a well-known model, its
    API key set); None when none does, so the chain goes on."""
    if not provider or not model:
        return None
    if provider in BY_NAME or provider in config.names("endpoints"):
        return f"{provider}:{model}"
    from .windows import UNKNOWN, window_of

    try:
        own, name = parse_spec(model)
    except UsageError:  # another tool's name for it (llama3:8b): not one conv can serve by itself
        return None
    record = BY_NAME[own]
    served = window_of(name) != UNKNOWN and any(os.environ.get(k) for k in _choosing(record))
    if own in VENDOR_MODELS and not (record.url_env and os.environ.get(record.url_env)) \
            and not config.get("base_url"):  # the vendor's own service serves its own models only
        served = served and name.startswith(VENDOR_MODELS[own])
    return f"{own}:{name}" if served else None


def chain(config: Config, flag: str | None = None, agent: tuple[str, str | None] | None = None,
          continuing: str | None = None) -> list[Step]:
    """The steps that need no probing, in order; each names a model spec or
    None. ``ollama_step`` and ``local_step`` follow, run only when these name
    nothing (a follow-up stops at the first step that answers)."""
    name, agent_model = agent or (None, None)
    return [
        Step("-m", flag, "per question: conv ask -m PROVIDER:MODEL"),
        Step(f"agent {name}" if name else "agent (-a)", agent_model, "agents.NAME.model in config"),
        Step("the conversation's model", continuing, "a follow-up goes on with the model of its last answer"),
        Step("CONV_MODEL", setting("CONV_MODEL"), "environment variable"),
        Step("config model", config.get("model"), "conv config set model PROVIDER:MODEL"),
        *(_key_step(record) for record in RECORDS if record.key_env and record.default_model),
    ]


USER_NAMED = ("-m", "CONV_MODEL", "config model")  # chain's steps where the user named the model


def _key_step(record) -> Step:
    """A provider chosen by its key in the environment (or its base URL, where that chooses it)."""
    names = _choosing(record)
    chosen = any(os.environ.get(name) for name in names)
    return Step(" / ".join(names), f"{record.name}:{record.default_model}" if chosen else None)


def _choosing(record) -> list[str]:
    """The environment variables whose being set chooses ``record``'s provider."""
    return [name for name in (record.key_env, record.url_env if record.url_chooses else None) if name]


def report(config: Config) -> tuple[list[Step], int | None]:
    """Every step, Ollama and the local model probed too, and which one wins."""
    steps = chain(config) + [ollama_step(), local_step(config)]
    chosen = next((n for n, step in enumerate(steps) if step.spec), None)
    return steps, chosen


def choose(config: Config, flag: str | None = None, agent: tuple[str, str | None] | None = None,
           continuing: str | None = None) -> Choice:
    for step in chain(config, flag, agent, continuing):
        if step.spec:
            return Choice(*parse_spec(step.spec, config), step.source)
    for probe in (ollama_step, lambda: local_step(config)):
        found = probe()
        if found.spec:
            return Choice(*parse_spec(found.spec, config), found.source)
    raise ProviderError(
        "no model is set up",
        f"The offline one: {found.detail}; or export OPENAI_API_KEY or ANTHROPIC_API_KEY; "
        "or start Ollama (see conv models)",
    )


def ollama_host() -> str:
    """``OLLAMA_HOST`` as Ollama reads it, as http://HOST:PORT."""
    host = setting("OLLAMA_HOST") or BY_NAME["ollama"].base_url
    if "://" not in host:
        host = "http://" + host
    return host.rstrip("/")


def ollama_models(timeout: float = 0.3) -> list[str] | None:
    """The models an Ollama server has pulled, newest first; None if none answers.
    A closed port answers at once, so this costs a follow-up ~0.1 ms then."""
    from .http import request

    try:
        response = request(ollama_host() + "/api/tags", None, {"Accept": "application/json"}, timeout, timeout)
    except OSError:
        return None
    try:
        if response.status != 200:
            return None
        models = json.loads(response.read(1 << 20)).get("models") or []
    except (OSError, ValueError, AttributeError):
        return None
    finally:
        response.close()
    models = [m for m in models if isinstance(m, dict) and isinstance(m.get("name"), str)]
    models.sort(key=lambda m: str(m.get("modified_at", "")), reverse=True)
    return [m["name"] for m in models]


def ollama_step() -> Step:
    source = f"Ollama at {ollama_host()}"  # whole, so any userinfo in it is masked where shown
    models = ollama_models()
    if models is None:
        return Step(source, None, "not answering")
    if not models:
        return Step(source, None, "answering, but no model pulled (ollama pull MODEL)")
    return Step(source, f"ollama:{models[0]}", f"{len(models)} model(s): " + ", ".join(models[:5]))


def local_step(config: Config) -> Step:
    from .local.model import availability

    path, why = availability(config)
    return Step("local model", "local" if path else None, why)
