"""A conversation as ``conv show`` and chat's /show print it: Markdown on a
terminal, plain Markdown when piped."""

from ..format.model import Conversation
from ..format.usage import tokens, usage_totals
from ..format.words import folder, plural
from .render import ago, count, dollars, transcript


def print_conversation(conv: Conversation, last: int | None = None, turn: int | None = None) -> None:
    """A conversation as ``conv show`` prints it (``conv chat``'s /show too), from turn ``turn`` when given."""
    first = max(len(conv.turns) - last, 0) if last else (turn - 1 if turn else 0)
    used = usage_totals(conv.turns)
    spent = tokens(used)
    usage = f" · {count(spent)} tokens" + (f" · {dollars(used['cost'])}" if used["cost"] is not None else "")
    info = (f"{conv.id} · {plural(len(conv.turns), 'turn')} · {conv.going_on_with or '-'}{usage if spent else ''}"
            f" · updated {ago(conv.updated)}{_project(conv)}")
    sections = [("summary", conv.summary)] if conv.summary else []
    for n, turn in enumerate(conv.turns[first:], first + 1):
        meta = [turn.role, turn.created[:16].replace("T", " "), turn.model, _options(turn.options), _finish(turn),
                turn.feedback == "negative" and "asked again: the answer before was marked wrong"]
        sections.append((f"{n}. " + " · ".join(x for x in meta if x), turn.content + _files(turn.files)))
    sections += [(f"unreadable, left out: {path}", reason) for path, reason in conv.unreadable.items()]
    transcript(conv.title or "(untitled)", info, sections)


def _project(conv: Conversation) -> str:
    """Where it was started: the project, its branch and commit (an import's: the folder and branch)."""
    p = conv.project or {}
    where = p.get("root") or (conv.imported_from or {}).get("cwd")
    if not where:
        return ""
    branch = p.get("branch") or (conv.imported_from or {}).get("git_branch")
    commit = (p.get("commit") or "")[:10]
    return f"\nin {folder(where)}" + (f" on {branch}" if branch else "") + (f" at {commit}" if commit else "")


def _options(options: dict | None) -> str:
    """``-o temperature 0.2 -o stop '###'`` as it was asked with."""
    return " ".join(f"-o {key} {value!r}" if isinstance(value, str) else f"-o {key} {value}"
                    for key, values in (options or {}).items()
                    for value in (values if isinstance(values, list) else [values]))


def _files(files: list[dict] | None) -> str:
    """The files sent with a turn, under its text: name, type and size."""
    return "".join(f"\n\n[file: {' '.join(str(f.get('name')).split())}, {f.get('type')}, "
                   f"{plural(f['bytes'] if isinstance(f.get('bytes'), int) else 0, 'byte')}]"
                   for f in files or ())


def _finish(turn) -> str:
    if turn.finish in (None, "stop") and not turn.error:
        return ""
    return f"{turn.finish or 'pending'}" + (f": {turn.error}" if turn.error else "")
