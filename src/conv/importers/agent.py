"""A coding agent's session as conv's turns, for the importers of agents
(Claude Code, Codex CLI…): what the user typed is a question; everything the
agent did until the next typed line is one answer: its text, each tool call
and its result as a fenced block (a result longer than CLIP cut in the turn,
and kept whole beside it, never sent again), its thinking, kept with the
turn and never sent, what its tool calls changed and ran as data (the
reader's ``Tools``: tool_calls.py), and its usage in classes, each model
call counted once (the record of it that says the most: Claude Code 2.x
writes one record a content block, the earlier ones with part of the
output)."""

import json

from ..format.fence import fenced
from ..format.usage import added, tokens
from . import ImportedTurn
from .tool_calls import Tools

CLIP = 2000  # characters of a tool's result kept in the turn; the whole is kept beside it
# conv mcp's tools as the agents name them (Claude Code, Codex, Qwen Code: mcp__conv__search; Gemini CLI:
# mcp_conv_search; Copilot CLI: conv-search): their results are conv's own words
OWN_TOOLS = ("mcp__conv__", "mcp_conv_", "conv-")


class AgentTurns:
    def __init__(self, tools: Tools | None = None):
        self.turns: list[ImportedTurn] = []
        self.tools = tools or Tools()
        self._before: list[dict] = []  # injected before the first turn: kept with it
        self._calls: dict[str, str] = {}  # a call's id -> the tool's name, for its result's heading
        self._did: dict[str, list[dict]] = {}  # a call's id -> the edits and commands it made, marked if it fails
        self._edited: dict[str, ImportedTurn] = {}  # a call's id -> the answer holding its edits
        self._usage: dict[str, tuple] = {}  # a model call's id -> (its answer, its usage), the fullest record's

    def typed(self, text: str, time, source_id: str) -> None:
        self.turns.append(ImportedTurn("user", text, time, source_id=source_id))
        self._held()

    def injected(self, kind: str, text: str) -> None:
        """What the tool put in the session that nobody typed and no model said
        (a local command, its output, a compaction's summary): never a question
        or an answer, kept with the turn before it (before any, the first)."""
        note = {"kind": kind, "text": text}
        if self.turns:
            self.turns[-1].injected.append(note)
        else:
            self._before.append(note)

    def said(self, text: str, time, source_id: str) -> None:
        if text:
            self._append(self._answer(time, source_id), text)

    def answered_by(self, model: str, time, source_id: str) -> None:
        """The model of the answer under way (the agent may name it on any of its records)."""
        self._answer(time, source_id).model = model

    def used(self, usage: dict, call: str, time, source_id: str) -> None:
        """Tokens one model call of the answer under way took, in their classes
        (format/usage.py; ``call``: its id, counted once, by its fullest record)."""
        counted = self._usage.get(call)
        if counted is None:
            self._usage[call] = (self._answer(time, source_id), usage)
        elif tokens(usage) > tokens(counted[1]):
            self._usage[call] = (counted[0], usage)

    def used_aside(self, usage: dict, call: str, time) -> None:
        """Tokens a sub-agent's model call took, counted with the answer under
        way when it ran (``time``: the first after whose start it came)."""
        answer = self.answer_at(time)
        if answer is not None and call not in self._usage:
            self._usage[call] = (answer, usage)

    def thought(self, text: str, time, source_id: str) -> None:
        if text:
            turn = self._answer(time, source_id)
            turn.thinking = "\n\n".join(t for t in (turn.thinking, text) if t)

    def called(self, call_id: str, name: str, arguments, time, source_id: str,
               turn: ImportedTurn | None = None) -> None:
        """A tool call: ``arguments`` as the agent gave them (a JSON string is
        shown parsed, on one line); what it changes or runs kept as data, in
        ``turn`` (a sub-agent's call: the answer it works for) or the answer under way."""
        self._calls[call_id] = name = " ".join(name.replace("`", "'").split())[:100] or "tool"  # a fence's label
        try:
            parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
            shown = parsed if isinstance(parsed, str) else json.dumps(parsed, ensure_ascii=False)
        except (ValueError, TypeError, RecursionError):  # shown as the agent gave it
            parsed, shown = arguments, arguments if isinstance(arguments, str) else repr(arguments)[:10_000]
        answer = turn if turn is not None else self._answer(time, source_id)
        self._did_by(call_id, answer, name, parsed)
        if turn is None:
            self._append(answer, fenced(shown, f"tool call: {name}"))

    def acted(self, name: str, arguments, time, source_id: str) -> None:
        """A tool call the answer's own text shows (gptme's fenced blocks): what it changes or runs kept as data."""
        self._did_by("", self._answer(time, source_id), name, arguments)

    def _did_by(self, call_id: str, answer: ImportedTurn, name: str, arguments) -> None:
        did = []
        for edit in self.tools.edits(name, arguments):
            answer.edits.append(edit)
            did.append(edit)
        for command in self.tools.commands(name, arguments):
            answer.commands.append({"command": command, "tool": name})
            did.append(answer.commands[-1])
        if did and call_id:
            self._did[call_id] = did
            self._edited[call_id] = answer

    def reported(self, call_id: str, edits: list[dict]) -> None:
        """What the tool itself said its call changed (Claude Code's Edit result: each hunk's lines whole), in
        place of what conv made of the call's arguments (a span of a line, a rename of every match)."""
        answer, did = self._edited.get(call_id), self._did.get(call_id, [])
        made = {id(d) for d in did if d in (answer.edits if answer else ())}
        if answer is None or not edits or not made:
            return
        at = next(n for n, e in enumerate(answer.edits) if id(e) in made)
        first = next(d for d in did if id(d) in made)
        new = [{**e, "tool": first.get("tool"), **({"failed": True} if first.get("failed") else {})} for e in edits]
        answer.edits = answer.edits[:at] + new + [e for e in answer.edits[at:] if id(e) not in made]
        self._did[call_id] = new + [d for d in did if id(d) not in made]

    def failed(self, call_id: str) -> None:
        """The call said it did not do what it was asked: its edits and commands marked so."""
        for did in self._did.get(call_id, ()):
            did["failed"] = True

    def result(self, call_id: str, text: str, error: bool, time, source_id: str) -> None:
        name = self._calls.get(call_id, "tool")
        if error:
            self.failed(call_id)
        self.noted(text, f"tool result: {name}" + (" (error)" if error else ""), f"{name}-result", time, source_id,
                   whole=not name.startswith(OWN_TOOLS))

    def noted(self, text: str, heading: str, kept_as: str, time, source_id: str, whole: bool = True) -> None:
        """A block the agent's side added to the answer under way (a tool's
        result, the agent's own notice), cut past CLIP and kept whole beside it;
        not ``whole``: kept beside it only (what conv mcp answered: conv's own
        search results, which would otherwise be found again as this session's)."""
        turn = self._answer(time, source_id)
        if not whole:
            kept = f"{kept_as}-{len(turn.kept) + 1}.txt"
            turn.kept.append((kept, text.encode()))
            self._append(turn, fenced(f"[conv's own answer, kept beside this turn as {kept}]", heading))
            return
        if len(text) > CLIP:
            kept = f"{kept_as}-{len(turn.kept) + 1}.txt"
            turn.kept.append((kept, text.encode()))
            text = text[:CLIP] + f"\n[… {len(text) - CLIP:,} more characters, kept whole beside this turn as {kept}]"
        self._append(turn, fenced(text, heading))

    def answer_at(self, time) -> ImportedTurn | None:
        """The answer under way at ``time`` (a sub-agent's record's): the last that began before it."""
        from .shape import moment

        when = moment(time)
        answers = [t for t in self.turns if t.role == "assistant"]
        if when is None:
            return answers[-1] if answers else None
        began = [t for t in answers if (m := moment(t.created)) is not None and m <= when]
        return began[-1] if began else (answers[0] if answers else None)

    def done(self) -> list[ImportedTurn]:
        """The turns with something in them (what was injected around an empty one goes with the one before),
        each answer's usage the sum of its model calls'."""
        for answer, usage in self._usage.values():
            answer.usage = added(answer.usage, usage)
        kept: list[ImportedTurn] = []
        for turn in self.turns:
            if turn.content.strip() or turn.thinking:
                kept.append(turn)
            elif kept:
                kept[-1].injected += turn.injected
        return kept

    def _answer(self, time, source_id: str) -> ImportedTurn:
        if not self.turns or self.turns[-1].role != "assistant":
            self.turns.append(ImportedTurn("assistant", "", time, source_id=source_id))
            self._held()
        return self.turns[-1]

    def _held(self) -> None:
        if self._before and len(self.turns) == 1:
            self.turns[0].injected[:0], self._before = self._before, []

    @staticmethod
    def _append(turn: ImportedTurn, text: str) -> None:
        turn.content = f"{turn.content}\n\n{text}" if turn.content else text
