"""The hot path, parsed without Typer.

``conv ask`` runs from a key binding, and importing Typer alone costs about
40 ms of the 120 ms a follow-up may take. For the plain forms of ``conv ask``
(the options cli/spec.py gives them, in any order, each spelled out on its own) this module
builds the same ``AskCommand`` Typer would, and ``conv cmd`` (the command
key) its ``CommandRequest``; anything else (help, bundled or unknown flags,
a missing value) returns None and Typer handles it, errors and all. sync,
pull and push (``[REMOTE] [--json]``) get the same treatment:
an incremental push must stay within 1.5 times git's own.
tests/test_fastpath.py holds these parsers to Typer's results.
"""

from ..spec import OPTIONS, PAIR, REPEATED


def parse_ask(args: list[str]):
    """``args`` after ``ask`` as an AskCommand, or None to let Typer parse them."""
    from .ask import ask_command  # here, not above: sync and push need none of it

    parsed = _parse(args, OPTIONS["ask"])
    if parsed is None:
        return None
    seen, words = parsed
    return ask_command({**seen, "words": words})


def parse_command(args: list[str]):
    """``args`` after ``cmd`` as a CommandRequest, or None to let Typer parse them."""
    from .command import CommandRequest

    parsed = _parse(args, OPTIONS["cmd"])
    if parsed is None:
        return None
    seen, words = parsed
    return CommandRequest(words, shell=seen.get("shell"), model=seen.get("model"),
                          json_out=seen.get("json_out", False), quiet=seen.get("quiet", False))


def parse_search(args: list[str]) -> dict | None:
    """``args`` after ``search`` as run/search.py takes them, or None to let Typer parse them."""
    parsed = _parse(args, OPTIONS["search"])
    if parsed is None or not parsed[1]:
        return None
    seen, words = parsed
    if "limit" in seen:
        if not seen["limit"].isdigit() or int(seen["limit"]) < 1:
            return None  # Typer says what a limit is
        seen["limit"] = int(seen["limit"])
    return {**seen, "text": words}


def parse_stats(args: list[str]) -> dict | None:
    """``args`` after ``stats`` as run/stats.py takes them, or None to let Typer parse them."""
    parsed = _parse(args, OPTIONS["stats"])
    return parsed[0] if parsed is not None and not parsed[1] else None


def _parse(args: list[str], flags: dict) -> tuple[dict, list[str]] | None:
    """The flags in ``args`` (field -> value, or True) and the other words;
    None for anything Typer must see (help, an unknown or bundled flag, a missing value)."""
    seen: dict = {}
    words: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            words.extend(rest)
            break
        if arg.startswith("-") and arg != "-":
            name, eq, inline = arg.partition("=")
            spec = flags.get(name)
            if spec is None or (eq and not name.startswith("--")):
                return None
            field, takes = spec
            if not takes:
                if eq:
                    return None
                seen[field] = True
                continue
            if takes == PAIR:  # -o KEY VALUE
                value = (next(rest, None), next(rest, None))
                if eq or None in value:
                    return None
            else:
                value = inline if eq else next(rest, None)
                if value is None:
                    return None  # let Typer say a value is missing
            if field in REPEATED:
                seen.setdefault(field, []).append(value)
            else:
                seen[field] = value
            continue
        words.append(arg)
    return seen, words


def parse_sync(args: list[str]) -> tuple[str | None, bool] | None:
    """``[REMOTE] [--json]`` after sync, pull or push, or None for Typer."""
    json_out = "--json" in args
    rest = [a for a in args if a != "--json"]
    if len(rest) > 1 or any(a.startswith("-") for a in rest):
        return None
    return (rest[0] if rest else None), json_out
