"""A Codex session: a rollout, ``$CODEX_HOME/sessions/YYYY/MM/DD/
rollout-<local time>-<thread id>.jsonl`` (~/.codex by default), its
``session_meta`` first and then the messages as ``response_item`` records,
resumed by ``codex resume ID`` (``codex exec resume ID PROMPT``), which
appends to the same file."""

import time
import uuid

from ..contract import Handoff
from ..written import Written, write_lines
from . import home, sessions


def _provider() -> str:
    """The model provider Codex is set to use (config.toml's model_provider, else its default, openai): a rollout
    naming none is one Codex refuses to resume with another provider configured."""
    import tomllib

    try:
        found = tomllib.loads((home() / "config.toml").read_text()).get("model_provider")
    except (OSError, ValueError, UnicodeDecodeError):
        found = None
    return found if isinstance(found, str) and found else "openai"


class CodexRollout(Handoff):
    def write(self, turns: list, cwd: str, title: str) -> Written:
        """(A rollout holds no title: Codex names a session by its first question.)"""
        thread = str(uuid.uuid4())
        now = time.time()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"
        day = time.strftime("%Y/%m/%d", time.localtime(now))
        path = sessions() / day / f"rollout-{time.strftime('%Y-%m-%dT%H-%M-%S', time.localtime(now))}-{thread}.jsonl"
        records = [{"timestamp": stamp, "type": "session_meta",
                    "payload": {"id": thread, "timestamp": stamp, "cwd": cwd, "originator": "conv", "source": "cli",
                                "cli_version": "0.169.0", "model_provider": _provider()}}]
        for turn in turns:
            kind = "input_text" if turn.role == "user" else "output_text"
            records.append({"timestamp": turn.created, "type": "response_item",
                            "payload": {"type": "message", "role": turn.role,
                                        "content": [{"type": kind, "text": turn.content}]}})
        write_lines(path, records)
        return Written(thread, str(path), self.resume(thread))

    def resume(self, session: str) -> list[str]:
        return ["codex", "resume", session]


HANDOFF = CodexRollout()
