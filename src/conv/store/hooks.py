"""The store's git hooks, run around conv's own commits. Mixed into GitStore."""

import os
from pathlib import Path

from ..errors import StoreError


class Hooks:
    hook_timeout = 10.0  # seconds a store hook may take before the commit is refused

    def hooks(self) -> dict[str, bool]:
        """Installed hooks: name -> whether it is executable (and so run)."""
        folder = self.path / "hooks"
        return {p.name: os.access(p, os.X_OK) for p in sorted(folder.iterdir())
                if p.is_file() and not p.name.endswith(".sample")} if folder.is_dir() else {}

    def install_hook(self, name: str, text: str) -> Path:
        from ..home.files import write_atomic

        path = self.path / "hooks" / name
        write_atomic(path, text)
        path.chmod(0o755)
        return path

    def _run_hook(self, name: str, message: str, stdin: str = "", args: list[str] = ()) -> None:
        """Run the store's hook NAME if it is installed (conv hooks install).
        pre-commit gets ``<blob id> <path>`` lines of what the commit adds on
        stdin; a non-zero exit refuses the commit, with the hook's own words.
        post-commit gets the new commit's id; its failures change nothing."""
        hook = self.path / "hooks" / name
        if not os.access(hook, os.X_OK):
            return
        import subprocess  # only now: most stores have no hooks, and every ask commits twice

        env = {**os.environ, "GIT_DIR": str(self.path), "CONV_COMMIT_MESSAGE": message}
        try:
            done = subprocess.run([str(hook), *args], input=stdin, capture_output=True, text=True, env=env,
                                  timeout=self.hook_timeout)
        except subprocess.TimeoutExpired:
            if name == "pre-commit":
                raise StoreError(f"the store's {name} hook took more than {self.hook_timeout:g} s; nothing was written",
                                 f"Fix or remove {hook}") from None
            return
        if name == "pre-commit" and done.returncode:
            said = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
            raise StoreError(f"the store's {name} hook refused the commit: " + (said[0] if said else f"exit {done.returncode}"),
                             said[1] if len(said) > 1 else f"See {hook}")
