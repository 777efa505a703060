"""The lines a diff added (with their numbers in the new file) and took
out, file by file, read from ``git diff``/``git log -p`` as git writes them
(a name with a space ended by a tab, one with a quote C-quoted)."""

import re

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def changed_lines(diff: str) -> tuple[dict, dict]:
    """file -> [(line number, text)] of what ``diff`` added, and file -> [text] of what it took out."""
    added: dict[str, list[tuple[int, str]]] = {}
    removed: dict[str, list[str]] = {}
    path, old, number = None, None, 0
    for line in diff.split("\n"):
        if line.startswith("--- "):
            old = _path(line[4:])
        elif line.startswith("+++ "):
            path = _path(line[4:])
            if path is not None:
                added.setdefault(path, [])
        elif line.startswith("@@"):
            found = _HUNK.match(line)
            number = int(found[1]) if found else 0
        elif line.startswith("+") and path is not None:
            added[path].append((number, line[1:]))
            number += 1
        elif line.startswith("-") and (path or old) is not None:
            removed.setdefault(path or old, []).append(line[1:])
        elif line.startswith(" "):
            number += 1
    return added, removed


def _path(said: str) -> str | None:
    """A file's name on a ``---``/``+++`` line: git ends one with a space in it with a tab, and quotes one with
    a quote, a backslash or a control character in it as C does (None: /dev/null, no file)."""
    said = said.rstrip("\t")
    if said == "/dev/null":
        return None
    if len(said) > 1 and said[0] == said[-1] == '"':
        import codecs

        said = codecs.escape_decode(said[1:-1].encode("utf-8"))[0].decode("utf-8", "replace")
    return said[2:] if said[:2] in ("a/", "b/") else said
