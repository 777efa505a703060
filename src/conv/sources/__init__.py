"""Every foreign tool conv reads, connects to or hands off to, one folder
each (``sources/<tool>/``: where the tool keeps things, its reader, its
settings for ``conv connect``, its hook, its hand-off writer; contract.py
declares what each part is), and ``NAMES``, the one list of them that
``conv import``, ``conv connect``, the capture, the catch-up, ``conv
handoff``, ``--source``, and through services/tools.py the help texts,
completion and the MCP schema all read. A new
tool is a folder, a line here, its samples and its tests (docs/architecture.md
counts the files)."""

import importlib

from ..errors import UsageError
from .contract import Source, check

NAMES = (
    "llm",
    "chatgpt",
    "conv",  # conv's own JSON export
    "claude-code",
    "codex",
    "gemini",
    "qwen",
    "copilot",
    "pi",
    "opencode",
    "aider",
    "cline",
    "cursor",
    "shell-gpt",
    "gptme",
    "aichat",
)


LACKING = {  # what a tool without the part lacks, as said when it is asked for
    "settings": "runs no command conv could hand each exchange to (conv import --from takes its sessions in; "
                "import.auto catches up on them)",
    "hook": "runs no hook of conv's",
    "handoff": "takes in no session conv could write (conv import --from brings its sessions here, not back)",
}


def source(name: str) -> Source:
    """The source called ``name``; a name not in NAMES is a usage error."""
    if name not in NAMES:
        return named(name, "reader", "conv knows no tool called {name!r}")
    return importlib.import_module(f"{__name__}.{name.replace('-', '_')}").SOURCE


def problems() -> list[str]:
    """What any source's folder lacks (contract.check of each): [] when every part declared is whole."""
    return [line for name in NAMES for line in check(source(name))]


def every(part: str = "reader") -> list[Source]:
    """The sources that offer ``part`` (every source has a reader)."""
    return [found for name in NAMES if (found := source(name)).offers(part)]


_CALLED = {"shell-gpt": ("sgpt",), "claude-code": ("claude",), "gemini": ("gemini-cli",), "qwen": ("qwen-code",),
           "copilot": ("copilot-cli", "gh-copilot")}  # what people call a tool besides conv's name for it


def named(name: str, part: str, refusal: str, more: tuple = ()) -> Source:
    """The source ``name`` when it offers ``part``; else a usage error,
    ``refusal`` (say "… called {name!r}") with the nearest name that does and
    the list (``more``: other words the command takes besides). Only a name
    refused reads every source (a hook's start names one: it imports one)."""
    if name in NAMES and (found := source(name)).offers(part):
        return found
    able = [found.name for found in every(part)]
    if name in NAMES:  # a tool conv knows that has no such part: said as the tool's, not as a typo
        raise UsageError(f"{source(name).title} {LACKING[part]}", f"conv does that with: {', '.join(able)}")
    from difflib import get_close_matches

    words = [*able, *more]
    asked = name.lower()
    near = [w for w in words if w == asked or w.replace("-", "") == asked.replace("-", "")
            or w.split("-")[0] == asked or asked in _CALLED.get(w, ())] or \
        get_close_matches(asked, words, n=1, cutoff=0.6)
    raise UsageError(refusal.format(name=name) + (f" (did you mean {near[0]}?)" if near else ""),
                     f"Use one of: {', '.join(words)}")
