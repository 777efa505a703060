"""A coding agent's session as conv's turns, for the importers of agents
(Claude Code, Codex CLI): what the user typed is a question; everything the
agent did until the next typed line is one answer: its text, each tool call
and its result as a fenced block (a result longer than CLIP cut in the turn,
and kept whole beside it, never sent again), and its thinking, kept with the
turn and never sent."""

import json
from pathlib import Path

from ..format.fence import fenced
from . import ImportedTurn, parsed_file

CLIP = 2000  # characters of a tool's result kept in the turn; the whole is kept beside it


class AgentTurns:
    def __init__(self):
        self.turns: list[ImportedTurn] = []
        self._calls: dict[str, str] = {}  # a call's id -> the tool's name, for its result's heading

    def typed(self, text: str, time: str, source_id: str) -> None:
        self.turns.append(ImportedTurn("user", text, time, source_id=source_id))

    def said(self, text: str, time: str, source_id: str) -> None:
        if text:
            self._append(self._answer(time, source_id), text)

    def answered_by(self, model: str, time: str, source_id: str) -> None:
        """The model of the answer under way (the agent may name it on any of its records)."""
        self._answer(time, source_id).model = model

    def thought(self, text: str, time: str, source_id: str) -> None:
        if text:
            turn = self._answer(time, source_id)
            turn.thinking = "\n\n".join(t for t in (turn.thinking, text) if t)

    def called(self, call_id: str, name: str, arguments, time: str, source_id: str) -> None:
        """A tool call: ``arguments`` as the agent gave them (a JSON string is shown parsed, on one line)."""
        self._calls[call_id] = name = name or "tool"
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except ValueError:
                pass
        shown = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
        self._append(self._answer(time, source_id), fenced(shown, f"tool call: {name}"))

    def result(self, call_id: str, text: str, error: bool, time: str, source_id: str) -> None:
        name = self._calls.get(call_id, "tool")
        self.noted(text, f"tool result: {name}" + (" (error)" if error else ""), f"{name}-result", time, source_id)

    def noted(self, text: str, heading: str, kept_as: str, time: str, source_id: str) -> None:
        """A block the agent's side added to the answer under way (a tool's
        result, the agent's own notice), cut past CLIP and kept whole beside it."""
        turn = self._answer(time, source_id)
        if len(text) > CLIP:
            kept = f"{kept_as}-{len(turn.kept) + 1}.txt"
            turn.kept.append((kept, text.encode()))
            text = text[:CLIP] + f"\n[… {len(text) - CLIP:,} more characters, kept whole beside this turn as {kept}]"
        self._append(turn, fenced(text, heading))

    def done(self) -> list[ImportedTurn]:
        return [t for t in self.turns if t.content.strip() or t.thinking]

    def _answer(self, time: str, source_id: str) -> ImportedTurn:
        if not self.turns or self.turns[-1].role != "assistant":
            self.turns.append(ImportedTurn("assistant", "", time, source_id=source_id))
        return self.turns[-1]

    @staticmethod
    def _append(turn: ImportedTurn, text: str) -> None:
        turn.content = f"{turn.content}\n\n{text}" if turn.content else text


def records(file: Path, hint: str) -> tuple[list[dict], list[str]]:
    """A session file's JSON records; lines that are no JSON object are named and
    passed over (the last one may be half-written: the session is still going)."""
    found, skipped = [], []
    raw = parsed_file(file, lambda data: data.decode("utf-8", "replace"), hint)
    decode = json.JSONDecoder().decode
    for number, line in enumerate(raw.split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = decode(line)
        except ValueError:
            record = None
        if not isinstance(record, dict):
            skipped.append(f"{file} line {number}: not a JSON record (half-written?), left out")
            continue
        found.append(record)
    return found, skipped
