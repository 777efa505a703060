"""``conv import --from claude-code`` of generated sessions (1,000 of 50
messages by default, as issue 25 asks) into an empty store, as a cold
process; then the same import again, with nothing new (its budget: 1 s).
The sessions have the shape the real Claude Code writes (see
tests/test_import_claude_code.py): typed lines, the agent's thinking, text and
tool calls as records of their own, tool results as user records, and the
context records (attachment, api-request…) between them.

    python tests/bench/bench_import_claude_code.py [--sessions 1000] [--messages 50] [--runs 3]
"""

import argparse
import json
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

IMPORT_BUDGET, AGAIN_BUDGET = 5000, 1000  # ms
WORDS = "git rebase merge branch commit tree index stash remote push pull fetch conflict history log".split()


def sessions(root: Path, count: int, messages: int) -> None:
    rng = random.Random(7)
    for s in range(count):
        project = root / f"-home-dev-project{s % 20}"
        project.mkdir(parents=True, exist_ok=True)
        sid = f"{s:08d}-0000-4000-8000-000000000000"
        base = {"sessionId": sid, "cwd": f"/home/dev/project{s % 20}", "gitBranch": "main", "version": "2.1.328",
                "isSidechain": False, "userType": "external"}
        lines, parent = [{"type": "queue-operation", "operation": "enqueue", "sessionId": sid}], None
        for m in range(messages):
            uuid, time = f"{sid[:8]}-{m:04d}", f"2026-11-{1 + s % 28:02d}T10:{m // 60:02d}:{m % 60:02d}.000Z"
            text = " ".join(rng.choices(WORDS, k=rng.randint(10, 80)))
            kind = m % 4
            if kind == 0:
                record = {"type": "user", "message": {"role": "user", "content": text}}
            elif kind == 1:
                record = {"type": "assistant", "message": {"role": "assistant", "model": "claude-opus-5-5", "content": [
                    {"type": "tool_use", "id": f"toolu_{uuid}", "name": "Bash", "input": {"command": "git log -3"}}]}}
            elif kind == 2:
                record = {"type": "user", "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": f"toolu_{sid[:8]}-{m - 1:04d}", "content": text * 3}]}}
            else:
                record = {"type": "assistant", "message": {"role": "assistant", "model": "claude-opus-5-5", "content": [
                    {"type": "text", "text": text}]}}
            lines.append({**base, **record, "uuid": uuid, "parentUuid": parent, "timestamp": time})
            lines.append({**base, "type": "attachment", "uuid": f"{uuid}-a", "parentUuid": uuid, "timestamp": time,
                          "attachment": {"type": "date", "date": "2026-11-25"}})
            parent = f"{uuid}-a"
        (project / f"{sid}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sessions", type=int, default=1000)
    p.add_argument("--messages", type=int, default=50)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "projects"
        sessions(source, a.sessions, a.messages)
        size = sum(f.stat().st_size for f in source.rglob("*.jsonl"))
        print(f"bench_import_claude_code: {a.sessions} sessions x {a.messages} messages, {size / 1e6:.1f} MB of JSONL")
        first, again = [], []
        for run in range(a.runs):
            env = common.child_env(Path(tmp) / f"home{run}")
            first.append(common.run(common.conv("import", "--from", "claude-code", str(source)), env))
            again.append(common.run(common.conv("import", "--from", "claude-code", str(source)), env))
        return [common.row(f"import --from claude-code, {a.sessions} sessions", common.stats(first), IMPORT_BUDGET),
                common.row("  the same again, nothing new", common.stats(again), AGAIN_BUDGET)]


if __name__ == "__main__":
    common.summary(main())
