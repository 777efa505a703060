"""Recall on LoCoMo (Maharana et al., "Evaluating Very Long-Term Conversational
Memory of LLM Agents", ACL 2024; CC BY-NC 4.0; the file is read from where
it lies, never copied into the project), measured the way peers publish it
(deja-vu's scripts/locomo): each dialogue in a store of its own, each of its
sessions one conversation whose turns read "Speaker: text"; every question
whose evidence names a session is asked word for word, as an agent asks
through ``conv mcp``'s ``search`` tool, and again as a person types it to
``conv search``; a hit at rank k is the k-th conversation of the answer being
a session its evidence names. Prints hit@1, hit@5 and MRR for both ways in.

    python tests/bench/bench_recall.py [--file ../shared/recall/locomo-dev.json] [--dialogues N] [--no-cli]
"""

import argparse
import json
import re
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from bench_mcp import Server  # noqa: E402

DEFAULT = common.ROOT.parent / "shared" / "recall" / "locomo-dev.json"
WORK = common.OUT / "recall"


def sessions(dialogue: dict) -> dict[int, tuple[str, list]]:
    """Session number -> (its date as written, its turns)."""
    talk = dialogue["conversation"]
    return {int(m.group(1)): (talk.get(f"session_{m.group(1)}_date_time", ""), turns)
            for key, turns in talk.items() if (m := re.fullmatch(r"session_(\d+)", key)) and isinstance(turns, list)}


def when(text: str, n: int) -> datetime:
    """A session's date ("1:56 pm on 8 May, 2023"), else one a day after the epoch per session."""
    try:
        return datetime.strptime(text, "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)
    except ValueError:
        return datetime(2020, 1, 1, tzinfo=timezone.utc) + timedelta(days=n)


def store(dialogue: dict, home: Path) -> dict[str, int]:
    """A store of the dialogue's sessions, a conversation each (through conv import --from conv); id -> session."""
    from conv.format import ids

    speakers = dialogue["conversation"]["speaker_a"], dialogue["conversation"]["speaker_b"]
    exported, by_id = [], {}
    for n, (date, turns) in sorted(sessions(dialogue).items()):
        start, conv_id = when(date, n), ids.new_conversation_id()
        by_id[conv_id] = n
        exported.append({"id": conv_id, "title": f"session {n}", "created": start.isoformat(), "turns": [
            {"role": "user" if t["speaker"] == speakers[0] else "assistant",
             "content": f"{t['speaker']}: {t['text']}", "created": (start + timedelta(seconds=k)).isoformat()}
            for k, t in enumerate(turns)]})
    home.mkdir(parents=True, exist_ok=True)
    (home / "export.json").write_text(json.dumps(exported))
    env = common.child_env(home)
    subprocess.run(common.conv("import", "--from", "conv", str(home / "export.json")), env=env, check=True,
                   capture_output=True)
    subprocess.run(common.conv("list"), env=env, check=True, capture_output=True)  # the index, built
    return by_id


def questions(dialogue: dict) -> list[tuple[str, set[int]]]:
    out = []
    for qa in dialogue["qa"]:
        asked = {int(e.split(":")[0][1:]) for e in qa.get("evidence") or [] if re.match(r"D\d+:", str(e))}
        if asked and isinstance(qa.get("question"), str):
            out.append((qa["question"], asked))
    return out


def scored(ranks: list[int | None]) -> dict:
    n = len(ranks) or 1
    return {"questions": len(ranks), "hit@1": sum(r == 0 for r in ranks) / n,
            "hit@5": sum(r is not None and r < 5 for r in ranks) / n,
            "mrr": sum(1 / (r + 1) for r in ranks if r is not None) / n}


def rank(found: list[str], by_id: dict, wanted: set[int]) -> int | None:
    return next((k for k, conv_id in enumerate(found) if by_id.get(conv_id) in wanted), None)


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--file", type=Path, default=DEFAULT, help="LoCoMo's JSON (the development half by default)")
    p.add_argument("--dialogues", type=int, default=None, help="the first N dialogues only")
    p.add_argument("--no-cli", dest="cli", action="store_false", help="conv mcp only (conv search: a process each)")
    a = p.parse_args(argv)
    if not a.file.is_file():
        sys.exit(f"bench_recall: no LoCoMo file at {a.file} (give one with --file)")
    data = json.loads(a.file.read_text())[:a.dialogues]
    mcp, cli, took = [], [], []
    for d, dialogue in enumerate(data):
        home = WORK / f"dialogue-{d}"
        if home.exists():
            subprocess.run(["rm", "-rf", str(home)], check=True)
        by_id = store(dialogue, home)
        env = common.child_env(home)
        server = Server(env)
        server.call(0, "initialize", protocolVersion="2025-06-18", capabilities={},
                    clientInfo={"name": "bench_recall", "version": "1"})
        for n, (question, wanted) in enumerate(questions(dialogue), 1):
            t = time.perf_counter()
            found = server.call(n, "tools/call", name="search", arguments={"query": question, "limit": 10})
            took.append(time.perf_counter() - t)
            hits = json.loads(found["result"]["content"][0]["text"])["hits"]
            mcp.append(rank([h["id"] for h in hits], by_id, wanted))
            if a.cli:
                out = subprocess.run(common.conv("search", question, "-n", "10", "--json"), env=env,
                                     capture_output=True, text=True).stdout  # exit 1: nothing found, []
                cli.append(rank([h["id"] for h in json.loads(out)], by_id, wanted))
        server.close()
        print(f"recall: dialogue {d + 1} of {len(data)}: {len(by_id)} sessions", flush=True)
    results = {"mcp": scored(mcp), **({"cli": scored(cli)} if a.cli else {}),
               "search_ms": common.stats(took)}
    for way, found in (("conv mcp search", results["mcp"]), ("conv search", results.get("cli"))):
        if found:
            print(f"  {way:<16} {found['questions']} questions: hit@1 {found['hit@1']:.1%}  "
                  f"hit@5 {found['hit@5']:.1%}  MRR {found['mrr']:.3f}", flush=True)
    print(f"  a search through conv mcp: {common.fmt(results['search_ms'])}", flush=True)
    return results


if __name__ == "__main__":
    main()
