"""The store's git hooks: the ones conv ships (the repository's hooks/), which
of them a store has, and running pre-commit and post-commit around conv's
own commits."""

import os
from collections.abc import Callable
from pathlib import Path

from ...errors import StoreError, UsageError

SHIPPED = Path(__file__).resolve().parents[2] / "hooks"  # conv/hooks: the repository's hooks/ (a symlink)
DEFAULT_TIMEOUT = 10.0  # seconds a store hook may take before the commit is refused


def shipped() -> dict[str, str]:
    """The hooks conv ships: name -> the first sentence of their description
    (the comment or docstring at their top, however many lines it takes)."""
    out = {}
    for path in sorted(SHIPPED.iterdir()):
        if path.is_file() and not path.name.startswith("."):  # an installed wheel may drop the x bit
            words = []
            for line in path.read_text().splitlines()[1:]:
                line = line.strip().strip("#").strip('"').strip()
                if not line:
                    if words:
                        break
                    continue
                words.append(line)
            text = " ".join(words).removeprefix("conv store hook: ")
            out[path.name] = text.split(". ", 1)[0].rstrip(".") + "."
    return out


class Hooks:
    """The hooks of the store at ``path``. ``timeout`` is asked for only when a
    hook runs (most stores have none, and every ask commits twice)."""

    def __init__(self, path: Path, timeout: Callable[[], float] | None = None):
        self.folder = path / "hooks"
        self.git_dir = path
        self._timeout = timeout or (lambda: DEFAULT_TIMEOUT)

    @staticmethod
    def shipped() -> dict[str, str]:
        """The hooks conv ships: name -> what each does."""
        return shipped()

    def installed(self) -> dict[str, str]:
        """name -> "conv's", "changed" or "yours" (and "off" when not executable)."""
        if not self.folder.is_dir():
            return {}
        ours = {p.name: p.read_text() for p in SHIPPED.iterdir() if p.is_file()}
        out = {}
        for path in sorted(self.folder.iterdir()):
            if not path.is_file() or path.name.endswith(".sample"):
                continue
            text = path.read_text(errors="replace")
            kind = "conv's" if ours.get(path.name) == text else ("changed" if path.name in ours else "yours")
            out[path.name] = kind if os.access(path, os.X_OK) else f"{kind}, off (not executable)"
        return out

    def scanning(self) -> bool:
        """Whether commits are scanned for secrets now: a pre-commit hook is
        installed and on, and CONV_ALLOW_SECRETS=1 does not let this one through."""
        return os.access(self.folder / "pre-commit", os.X_OK) and os.environ.get("CONV_ALLOW_SECRETS") != "1"

    def install(self, names: list[str]) -> list[str]:
        """Install the shipped hooks ``names`` (all of them when empty)."""
        import shutil

        from ...home.files import write_atomic

        if shutil.which("git") is None:
            raise UsageError("the hooks conv ships run git", "Install git first (e.g. apt install git)")
        available = shipped()
        unknown = [n for n in names if n not in available]
        if unknown:
            raise UsageError(f"conv ships no hook {unknown[0]!r}", "Shipped: " + ", ".join(available))
        for name in names or available:
            path = self.folder / name
            write_atomic(path, (SHIPPED / name).read_text())
            path.chmod(0o755)
        return names or list(available)

    def run(self, name: str, message: str, stdin: str = "", args: list[str] = (), env: dict | None = None) -> None:
        """Run the store's hook NAME if it is installed (conv hooks install).
        pre-commit gets ``<blob id> <path>`` lines of what the commit adds on
        stdin, and in ``env`` the quarantine holding them (git finds them
        there); a non-zero exit refuses the commit, with the hook's own words.
        post-commit gets the new commit's id; its failures change nothing."""
        hook = self.folder / name
        if not os.access(hook, os.X_OK):
            return
        import subprocess

        timeout = self._timeout()
        env = {**os.environ, **(env or {}), "GIT_DIR": str(self.git_dir), "CONV_COMMIT_MESSAGE": message}
        try:
            done = subprocess.run([str(hook), *args], input=stdin, capture_output=True, text=True, env=env,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            if name == "pre-commit":
                raise StoreError(f"the store's {name} hook took more than {timeout:g} s; nothing was written",
                                 f"Fix or remove {hook}") from None
            return
        if name == "pre-commit" and done.returncode:
            said = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
            why = said[0] if said else f"exit {done.returncode}"
            raise StoreError(f"the store's {name} hook refused the commit: {why}",
                             said[1] if len(said) > 1 else f"See {hook}")
