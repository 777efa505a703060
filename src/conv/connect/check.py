"""``conv connect --check``: each connected tool's hook run as the tool runs
it, the command line its settings hold, handed a payload of the tool's
shape that marks itself a check (``conv_check``: the hook notes it and
captures nothing), and held to the time the tool gives it in the strictest
reading any version makes (a Qwen Code before 0.2x read a timeout of 10 as
milliseconds: every exchange was lost, and ``conv connect`` had said
"connected"). What would be lost is said for each."""

from __future__ import annotations

import json
import secrets
import subprocess
import time
from pathlib import Path

from ..home.to_say import checks
from ..records import dataclass
from . import Unparsable, files, reason
from .commands import capture_parts, this_store

UNBOUNDED = 10.0  # seconds a hook is given when its tool sets no limit conv knows
ARGUMENT = ("codex",)  # tools that hand the hook its JSON as the last argument, not on stdin


@dataclass
class Checked:
    tool: str
    file: str
    ok: bool
    said: str  # one line: how it went, and what would be lost
    took: float | None = None  # seconds the hook ran
    limit: float | None = None  # seconds the tool gives it

    def to_dict(self) -> dict:
        return {"tool": self.tool, "file": self.file, "ok": self.ok, "said": self.said,
                "took_ms": None if self.took is None else round(self.took * 1000),
                "limit_ms": None if self.limit is None else round(self.limit * 1000)}


def checked(source, settings_files: list[str]) -> list[Checked]:
    """Each conv capture line for this store in ``settings_files`` (one tool's), run and judged."""
    module, name, out = source.settings(), source.name, []
    for file in settings_files:
        try:
            data = files.read(Path(file))
            text = data.decode("utf-8") if data is not None else None
            lines = [line for line in module.captures(text) if capture_parts(line, name)[0] == this_store()]
            limit = module.limit(text)
        except (Unparsable, UnicodeDecodeError) as exc:
            out.append(Checked(name, file, False, f"conv cannot read it ({reason(exc)}): nothing checked"))
            continue
        out += [_run(name, file, line, limit) for line in lines]
    return out


def _run(name: str, file: str, line: list[str], limit: float | None) -> Checked:
    nonce = secrets.token_hex(8)
    payload = json.dumps({"conv_check": nonce, "hook_event_name": "Stop", "session_id": f"conv-check-{nonce}"})
    given = limit if limit is not None else UNBOUNDED
    lost = "every exchange would be lost"
    start = time.monotonic()
    try:
        done = subprocess.run([*line, payload] if name in ARGUMENT else line, input=None if name in ARGUMENT else
                              payload.encode(), capture_output=True, timeout=given)
    except (FileNotFoundError, PermissionError) as exc:
        what = "not there" if isinstance(exc, FileNotFoundError) else "not runnable"
        return Checked(name, file, False, f"{line[0]} is {what}: {lost} (conv connect {name} writes this conv)")
    except subprocess.TimeoutExpired:
        return Checked(name, file, False, f"killed after {_seconds(given)}, the most the tool waits: {lost} "
                       f"(conv connect {name} writes a limit every version reads as meant)", given, limit)
    took = time.monotonic() - start
    noted = checks() / nonce
    reached = noted.exists()
    noted.unlink(missing_ok=True)
    program = next((word for word in line if "=" not in word and word != "env"), line[0])
    if done.returncode in (126, 127):  # env's (and a shell's) words for a program that is not there, or not runnable
        said = f"{program} is {'not there' if done.returncode == 127 else 'not runnable'}: {lost} " \
               f"(conv connect {name} writes this conv)"
    elif done.returncode:
        said = f"exits {done.returncode}: the tool reports a failing hook, and {lost}"
    elif done.stdout or done.stderr:
        said = f"printed {(done.stdout or done.stderr)[:60]!r}: the tool would show it after every answer"
    elif not reached:
        said = f"ran, but conv never got what it was handed: {lost}"
    else:
        room = f" (the tool waits {_seconds(limit)})" if limit is not None else " (the tool sets no limit)"
        return Checked(name, file, True, f"ok: conv took it in {round(took * 1000)} ms{room}", took, limit)
    return Checked(name, file, False, said, took, limit)


def _seconds(value: float | None) -> str:
    return "no time" if value is None else f"{value * 1000:g} ms" if value < 1 else f"{value:g} s"
