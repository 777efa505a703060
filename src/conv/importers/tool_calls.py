"""What a coding agent's tool calls did, as data: the files they wrote or
changed and the shell commands they ran, read from the call's arguments by
a table each reader declares (``Tools``: a tool's name -> what its calls
do), so a turn keeps them as ``edits`` and ``commands`` (format/edits.py)
beside the fenced block the call is shown as.

The shapes the agents use (read from their sessions): a file written whole
(``write``: Claude Code's Write, Gemini CLI's write_file…), a span replaced
(``replace``: Edit, replace…; ``replace_each`` for a list of them, as
MultiEdit), a patch in Codex's own format (``patch``: apply_patch, which
Cline and Cursor use too), SEARCH/REPLACE blocks (``blocks``: Cline's
replace_in_file, aider's edits), and a command line (``shell``: a text, or
a program and its arguments)."""

import re
import shlex

PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")
MOST = 5_000_000  # characters of an edit's texts kept (a write larger than this keeps its path and kind alone)


class Tools:
    """``edits``: a tool's name -> f(arguments) giving its edits; ``shell``: a tool's name -> f(arguments) giving
    the command line it runs, or the lines (None: none)."""

    def __init__(self, edits: dict | None = None, shell: dict | None = None):
        self._edits, self._shell = edits or {}, shell or {}

    def edits(self, name: str, arguments) -> list[dict]:
        made = self._edits.get(name)
        found = made(arguments) if made is not None and arguments is not None else []
        return [{**e, "tool": name} for e in found if isinstance(e.get("path"), str) and e["path"]]

    def commands(self, name: str, arguments) -> list[str]:
        """The command lines a call ran (a tool may run several: Cline's run_commands)."""
        made = self._shell.get(name)
        found = made(arguments) if made is not None and arguments is not None else None
        found = [found] if isinstance(found, str) else found if isinstance(found, list) else []
        return [c for c in found if isinstance(c, str) and c.strip()]


def _text(arguments, key: str):
    value = arguments.get(key) if isinstance(arguments, dict) else None
    return value if isinstance(value, str) else None


def _edit(kind: str, path, before=None, after=None) -> dict:
    out = {"kind": kind, "path": path}
    if isinstance(before, str) and len(before) <= MOST:
        out["before"] = before
    if isinstance(after, str) and len(after) <= MOST:
        out["after"] = after
    return out


def write(path_key: str, text_key: str):
    """A file written whole: its path and its new text under these keys."""
    return lambda args: [_edit("write", _text(args, path_key), after=_text(args, text_key))]


def appended(path_key: str, text_key: str):
    """Text added at a file's end (gptme's append): a span replaced where there was none."""
    return lambda args: [_edit("replace", _text(args, path_key), after=_text(args, text_key))]


def replace(path_key: str, old_key: str, new_key: str):
    """A span replaced: the file, the text it was and the text it became."""
    return lambda args: [_edit("replace", _text(args, path_key), _text(args, old_key), _text(args, new_key))]


def replace_each(path_key: str, list_key: str, old_key: str, new_key: str):
    """Several spans of one file replaced (Claude Code's MultiEdit): a list of them under ``list_key``."""
    def edits(args) -> list[dict]:
        path, spans = _text(args, path_key), args.get(list_key) if isinstance(args, dict) else None
        return [_edit("replace", path, _text(span, old_key), _text(span, new_key))
                for span in spans if isinstance(span, dict)] if isinstance(spans, list) else []
    return edits


def deleted(path_key: str):
    return lambda args: [_edit("delete", _text(args, path_key))]


def patch(text_key: str | None = None):
    """A patch in Codex's format (``*** Begin Patch`` … ``*** End Patch``), the
    call's whole input or under ``text_key``: each file's hunks as edits."""
    return lambda args: patched(args if text_key is None else _text(args, text_key))


def hunks(path, found) -> list[dict]:
    """A file's hunks as a tool reported them (Claude Code's ``structuredPatch``: ``{lines: [" kept", "-out",
    "+in"]}`` each), each a ``patch`` edit as ``patched`` makes them; [] when they are not that."""
    out = []
    for hunk in found if isinstance(path, str) and isinstance(found, list) else ():
        lines = hunk.get("lines") if isinstance(hunk, dict) else None
        if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
            return []
        before = [line[1:] for line in lines if line[:1] in (" ", "-", "")]
        after = [line[1:] for line in lines if line[:1] in (" ", "+", "")]
        out.append(_edit("patch", path, "\n".join(before) + "\n", "\n".join(after) + "\n"))
    return out


def patched(text) -> list[dict]:
    """Codex's patch format: ``*** Add File: P`` (its ``+`` lines, the file),
    ``*** Delete File: P``, ``*** Update File: P`` (an optional ``*** Move to:
    Q``) and hunks after ``@@`` lines, their lines `` `` (kept), ``-`` (taken
    out) and ``+`` (put in): each hunk a ``patch`` edit, its ``before`` and
    ``after`` the hunk's lines on each side."""
    if not isinstance(text, str) or "*** Begin Patch" not in text[:1000]:
        return []
    out, path, kind, before, after = [], None, None, [], []

    def flush():
        if path is not None and (before or after or kind in ("write", "delete")):
            out.append(_edit(kind, path, "\n".join(before) + "\n" if kind == "patch" else None,
                             "\n".join(after) + "\n" if kind in ("patch", "write") else None))

    for line in text.splitlines():
        header = PATCH_FILE.match(line)
        if header or line.startswith(("*** End Patch", "*** Move to: ")):
            if line.startswith("*** Move to: ") and path is not None:
                flush()
                before, after, path = [], [], line[len("*** Move to: "):].strip()
                continue
            flush()
            before, after = [], []
            path = header[2].strip() if header else None
            kind = {"Add": "write", "Update": "patch", "Delete": "delete"}[header[1]] if header else None
        elif path is None:
            continue
        elif line.startswith("@@"):
            if kind == "patch":
                flush()
                before, after = [], []
        elif kind == "write" and line.startswith("+"):
            after.append(line[1:])
        elif kind == "patch" and line[:1] in (" ", "-", "+", ""):
            said = line[1:]
            if line[:1] != "+":
                before.append(said)
            if line[:1] != "-":
                after.append(said)
    flush()
    return out


BLOCK = re.compile(r"^(?:<{7}|-{7}) (?:SEARCH|ORIGINAL)\n(.*?)^={7}\n(.*?)^(?:>{7}|\+{7}) (?:REPLACE|UPDATED)$",
                   re.S | re.M)


def search_replace(text: str) -> list[tuple[str, str]]:
    """The (search, replace) texts of SEARCH/REPLACE blocks (Cline's ``------- SEARCH`` / ``=======`` /
    ``+++++++ REPLACE``, aider's ``<<<<<<< SEARCH`` / ``=======`` / ``>>>>>>> REPLACE``, gptme's ``ORIGINAL`` /
    ``UPDATED``)."""
    return [(m[1], m[2]) for m in BLOCK.finditer(text)]


def blocks(path_key: str, text_key: str):
    """A file changed by SEARCH/REPLACE blocks under ``text_key`` (Cline's replace_in_file)."""
    def edits(args) -> list[dict]:
        path, text = _text(args, path_key), _text(args, text_key)
        return [_edit("replace", path, old, new) for old, new in search_replace(text or "")]
    return edits


def shell(key: str):
    """The command line under ``key``: a text, or a program and its arguments (Codex's ``["bash", "-lc", …]``)."""
    def command(args):
        value = args.get(key) if isinstance(args, dict) else None
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            if len(value) == 3 and value[1] in ("-lc", "-c") and value[0].rsplit("/", 1)[-1] in ("bash", "sh", "zsh"):
                return value[2]
            return shlex.join(value)
        return value.strip("\n") if isinstance(value, str) else None  # (a fenced block's last newline)
    return command


def codex_shell(key: str):
    """Codex's shell: a command line, unless it is ``apply_patch`` run as a program (an older Codex's way)."""
    line = shell(key)

    def edits(args) -> list[dict]:
        value = args.get(key) if isinstance(args, dict) else None
        if isinstance(value, list) and len(value) >= 2 and value[0] == "apply_patch":
            return patched(value[1])
        said = line(args)
        return patched(said[said.index("*** Begin Patch"):]) if said and "apply_patch" in said[:200] \
            and "*** Begin Patch" in said else []
    return edits, line
