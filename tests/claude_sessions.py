"""Claude Code sessions written as Claude Code 2.x writes them (a user's
ask, the answer's tool call, its result, the answer's words: a record each,
under ~/.claude/projects/<the folder, dashed>/), for tests and benchmarks
that need a session's edits in a project without running the agent."""

import json
from pathlib import Path


def write_session(home: Path, project: Path, sid: str, when: str, edits: list[dict]) -> Path:
    """A session in ``project`` whose answers made ``edits`` at ``when`` (``YYYY-MM-DDTHH:MM``), one an ask:
    each a Write ({"file", "content"}) or an Edit ({"file", "old", "new"}, and "patch": the hunks Claude Code
    says it made, its result's structuredPatch), files relative to the project."""
    base = {"cwd": str(project), "sessionId": sid, "version": "2.1.328", "userType": "external", "isSidechain": False}
    records, parent = [], None
    for n, edit in enumerate(edits):
        call, path = f"toolu_{sid[:4]}{n}", str(project / edit["file"])
        tool = ({"name": "Write", "input": {"file_path": path, "content": edit["content"]}} if "content" in edit
                else {"name": "Edit", "input": {"file_path": path, "old_string": edit["old"],
                                                "new_string": edit["new"], "replace_all": False}})
        done = {"toolUseResult": {"filePath": path, "oldString": edit["old"], "newString": edit["new"],
                                  "structuredPatch": edit["patch"]}} if "patch" in edit else {}
        said = [{"role": "user", "content": f"change {edit['file']}"},
                {"id": f"msg_{sid[:4]}{n}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                 "content": [{"type": "tool_use", "id": call, **tool}], "usage": {"input_tokens": 1,
                                                                                "output_tokens": 1}},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": "ok"}]},
                {"id": f"msg_{sid[:4]}{n}e", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                 "content": [{"type": "text", "text": f"changed {edit['file']}"}],
                 "usage": {"input_tokens": 1, "output_tokens": 1}}]
        for m, message in enumerate(said):
            uuid = f"{sid[:4]}-{n}-{m}"
            records.append({**base, "parentUuid": parent, "uuid": uuid, "type": message["role"], "message": message,
                            "timestamp": f"{when}:{n % 60:02d}.{m}00Z", **(done if m == 2 else {})})
            parent = uuid
    folder = home / ".claude" / "projects" / str(project).replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    written = folder / f"{sid}.jsonl"
    written.write_text("".join(json.dumps(r) + "\n" for r in records))
    return written
