"""The project the user stands in: the git work tree around the current
folder, read from its files (no git process, no dulwich: this runs when a
conversation starts): its root, its first remote's URL without any
credentials in it, the branch checked out and its commit. A new
conversation records it; ``--here`` finds the conversations of it."""

import os
import re

_REMOTE_URL = re.compile(r'^\[remote\s+"([^"]+)"\]\s*$|^\s*url\s*=\s*(.+?)\s*$')
_USERINFO = re.compile(r"^([a-z][a-z0-9+.-]*://)[^/]*@", re.I)  # to the last @ before the path: a password may hold one


def root(start: str | None = None) -> str | None:
    """The work tree holding ``start`` (the current folder): the nearest folder with a .git."""
    try:
        here = os.path.realpath(start or os.getcwd())
    except OSError:  # the current folder was removed
        return None
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def here(start: str | None = None) -> dict | None:
    """{root, remote, branch, commit} of the work tree around ``start``, each
    key only when known; None outside a work tree."""
    top = root(start)
    if top is None:
        return None
    git_dir = _git_dir(top)
    head = _read(os.path.join(git_dir, "HEAD")).strip() if git_dir else ""
    branch = head[len("ref: refs/heads/"):] if head.startswith("ref: refs/heads/") else None
    commit = _resolve(git_dir, head[5:].strip()) if head.startswith("ref: ") else head or None
    common = _common_dir(git_dir) if git_dir else None
    found = {"root": top, "remote": _remote(common) if common else None, "branch": branch, "commit": commit}
    return {k: v for k, v in found.items() if v}


def excludes(top: str) -> str | None:
    """The work tree's own ignore file, never shared (info/exclude of its git
    folder; a linked worktree's is its main repository's); None when unknown."""
    git_dir = _git_dir(top)
    return os.path.join(_common_dir(git_dir), "info", "exclude") if git_dir else None


def _git_dir(top: str) -> str | None:
    dot = os.path.join(top, ".git")
    if os.path.isdir(dot):
        return dot
    text = _read(dot).strip()  # a worktree or submodule: "gitdir: PATH"
    return os.path.normpath(os.path.join(top, text[8:].strip())) if text.startswith("gitdir: ") else None


def _common_dir(git_dir: str) -> str:
    """Where refs and config live (a linked worktree's are its main repository's)."""
    shared = _read(os.path.join(git_dir, "commondir")).strip()
    return os.path.normpath(os.path.join(git_dir, shared)) if shared else git_dir


def _resolve(git_dir: str, ref: str) -> str | None:
    common = _common_dir(git_dir)
    for where in (git_dir, common):
        sha = _read(os.path.join(where, ref)).strip()
        if re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", sha):
            return sha
    for line in _read(os.path.join(common, "packed-refs")).splitlines():
        sha, _, name = line.partition(" ")
        if name.strip() == ref and not line.startswith(("#", "^")):
            return sha
    return None  # a branch with no commit yet


def _remote(common: str) -> str | None:
    """The URL of ``origin``, else of the first remote, its user and password left out."""
    urls, section = {}, None
    for line in _read(os.path.join(common, "config")).splitlines():
        match = _REMOTE_URL.match(line)
        if match and match[1]:
            section = match[1]
        elif line.lstrip().startswith("["):
            section = None
        elif match and section and section not in urls:
            urls[section] = _value(match[2])
    url = urls.get("origin") or next(iter(urls.values()), None)
    return _USERINFO.sub(r"\1", url) if url else None


def _value(raw: str) -> str:
    """A git config value as git reads it: quoted parts unquoted, ``\\"`` and
    ``\\\\`` unescaped, a ``#`` or ``;`` outside quotes the start of a comment
    (git quotes a URL holding them: a password with a # is written so)."""
    out, quoted, escaped = [], False, False
    for char in raw:
        if escaped:
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(char, char))
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""
