"""``conv stats`` (issue 47, part 1): every tool's answers in their token
classes and their cost, grouped; each tool's own cost where it kept one,
else the config's prices or conv's table; a model with no price said; an
answer a fork holds counted once; and the same Claude Code and Codex
session files counted as the real ccusage (npm, the tool people use for
this) counts them, within 1% a day."""

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
import real_tools
from conftest import fails, ok

sys.path.insert(0, str(Path(__file__).parent / "sources"))
from samples import SAMPLES  # noqa: E402

CLASSES = ("prompt_tokens", "cache_write_tokens", "cache_read_tokens", "completion_tokens")


def stats(*args: str) -> dict:
    return json.loads(ok("stats", "--since", "2000-01-01", *args, "--json").stdout)


def test_each_tools_answers_are_counted_in_their_classes_with_its_own_cost(tmp_path):
    for name in ("claude-code", "codex", "opencode", "pi", "cline"):
        ok("import", "--from", name, str(SAMPLES[name].write(tmp_path / name, other=False)))
    found = {g["source"]: g for g in stats("--by", "source")["groups"]}
    for name in ("claude-code", "codex", "opencode", "pi", "cline"):
        expected = SAMPLES[name].expect.usage
        assert {k: found[name][k] for k in CLASSES} == {k: expected.get(k, 0) for k in CLASSES}, name
    for name in ("opencode", "pi", "cline"):  # the tool's own figure, as it recorded it
        assert found[name]["cost"] == pytest.approx(SAMPLES[name].expect.usage["cost"]), name
    total = stats()["total"]
    assert total["answers"] == sum(g["answers"] for g in found.values())


def test_a_model_with_no_price_is_said_and_a_price_of_yours_counts(fake, tmp_path):
    ok("ask", "-m", "openai:house-model", "hello")
    said = stats("--by", "model")
    assert said["unpriced_models"] == ["house-model"] and said["total"]["cost"] is None
    assert "no price for house-model" in ok("stats").stderr.decode()
    ok("config", "set", "prices.house-model.input", "1000000")
    ok("config", "set", "prices.house-model.output", "1000000")
    priced = stats("--by", "model")
    group = priced["groups"][0]
    assert priced["unpriced_models"] == [] and group["cost"] == pytest.approx(
        group["prompt_tokens"] + group["completion_tokens"])
    ok("config", "unset", "prices.house-model.input")  # output alone: input has no price, so neither has it
    assert stats("--by", "model")["unpriced_models"] == ["house-model"]


def test_a_price_of_yours_for_one_class_keeps_the_tables_for_the_others(tmp_path):
    ok("import", "--from", "claude-code", str(SAMPLES["claude-code"].write(tmp_path / "c", other=False)))
    table = stats()["total"]["cost"]
    ok("config", "set", "prices.claude-sonnet-4-5.output", "30")  # twice the table's output price
    usage = SAMPLES["claude-code"].expect.usage
    assert stats()["total"]["cost"] == pytest.approx(table + 15 * usage["completion_tokens"] / 1e6)


def test_an_answer_a_fork_holds_too_is_counted_once_and_the_span_and_groups_are_kept(tmp_path):
    ok("import", "--from", "claude-code", str(SAMPLES["claude-code"].write(tmp_path / "c", other=False)))
    before = stats()["total"]
    (listed,) = json.loads(ok("list", "--json").stdout)
    ok("fork", listed["id"], "--at", "2")
    assert stats()["total"] == before
    assert [g["source"] for g in stats("--by", "source")["groups"]] == ["claude-code"]  # the tool's, in the fork too
    ok("delete", listed["id"])  # the fork still holds the answers: still counted, once
    assert stats()["total"] == before
    fork = next(c for c in json.loads(ok("list", "--json").stdout) if c["id"] != listed["id"])
    ok("delete", fork["id"])  # in the trash: not counted
    assert stats()["total"]["answers"] == 0
    ok("restore", listed["id"])
    assert stats()["total"] == before
    (group,) = stats("--by", "day", "--by", "week", "--by", "month")["groups"]
    assert (group["day"], group["week"], group["month"]) == ("2026-11-26", "2026-W48", "2026-11")
    assert json.loads(ok("stats", "--since", "2026-11-27", "--json").stdout)["groups"] == []
    assert json.loads(ok("stats", "--since", "2026-11-26", "--until", "2026-11-27", "--json").stdout)["total"] == before
    assert "no answer with usage since" in ok("stats", "--since", "2026-11-27").stderr.decode()
    assert "--by 'colour': conv groups by none such" in fails("stats", "--by", "colour", code=2)
    assert stats("--by", "model", "--by", "model")["by"] == ["model"]
    assert "is not before --until" in fails("stats", "--since", "1d", "--until", "2d", code=2)
    assert "neither an age" in fails("stats", "--since", "yesterday-ish", code=2)


# -- the same files as ccusage counts them ------------------------------------------------------------------


def claude_sessions(root: Path, rng: random.Random) -> None:
    """Claude Code 2.x sessions over five days, as it writes them: a record a content block (one message id and
    request id, the output growing), cache_creation's parts, a sub-agent's file under the session's folder."""
    for day in range(5):
        session = f"0000000{day}-aaaa-4bbb-8ccc-00000000000{day}"
        base = {"isSidechain": False, "userType": "external", "cwd": "/work/p", "sessionId": session,
                "version": "2.1.328", "gitBranch": "main"}
        lines, parent = [], None
        for n in range(6):
            at = f"2026-11-{20 + day:02d}T{10 + n:02d}:00:00.000Z"
            lines.append({**base, "type": "user", "uuid": f"u{day}{n}", "parentUuid": parent, "timestamp": at,
                          "message": {"role": "user", "content": f"question {n} of day {day}"}})
            parent = f"u{day}{n}"
            usage = {"input_tokens": rng.randint(1, 50), "cache_creation_input_tokens": 0,
                     "cache_read_input_tokens": rng.randint(0, 40_000),
                     "cache_creation": {"ephemeral_5m_input_tokens": rng.randint(0, 3000),
                                        "ephemeral_1h_input_tokens": rng.randint(0, 500)}}
            usage["cache_creation_input_tokens"] = sum(usage["cache_creation"].values())
            output = rng.randint(20, 900)
            for block, out in ((0, rng.randint(1, 12)), (1, output)):  # the earlier block's line: part of the output
                lines.append({**base, "type": "assistant", "uuid": f"a{day}{n}{block}", "parentUuid": parent,
                              "timestamp": at.replace(":00.000Z", f":{block + 1:02d}.000Z"),
                              "requestId": f"req_{day}_{n}", "message": {
                                  "id": f"msg_{day}_{n}", "type": "message", "role": "assistant",
                                  "model": "claude-sonnet-4-5", "content": [
                                      {"type": "text", "text": f"answer part {block}"}],
                                  "usage": {**usage, "output_tokens": out}}})
                parent = f"a{day}{n}{block}"
        folder = root / "projects" / "-work-p"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{session}.jsonl").write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in lines))
        agent = {**base, "isSidechain": True, "agentId": "ag", "type": "assistant", "uuid": f"s{day}",
                 "parentUuid": None, "timestamp": f"2026-11-{20 + day:02d}T12:30:00.000Z", "requestId": f"req_s{day}",
                 "message": {"id": f"msg_s{day}", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                             "content": [{"type": "text", "text": "looked"}],
                             "usage": {"input_tokens": 100, "cache_creation_input_tokens": 0,
                                       "cache_read_input_tokens": 5000, "output_tokens": 70}}}
        (folder / session / "subagents").mkdir(parents=True)
        (folder / session / "subagents" / "agent-ag.jsonl").write_text(json.dumps(agent, separators=(",", ":")) + "\n")


def codex_rollouts(root: Path, rng: random.Random) -> None:
    """Codex 0.169 rollouts over three days, as it writes them: each response's usage as a token_usage_record
    and a token_count event (its last_token_usage), the input holding the cached."""
    for day in range(3):
        thread = f"01a234a4-a970-7810-b91e-25270869{day:04d}"
        at = f"2026-11-{20 + day:02d}T10:00:00.000Z"
        lines = [{"timestamp": at, "type": "session_meta", "payload": {"id": thread, "cwd": "/work/p"}},
                 {"timestamp": at, "type": "turn_context", "payload": {"model": "gpt-5.5"}}]
        for n in range(4):
            at = f"2026-11-{20 + day:02d}T1{n}:00:00.000Z"
            lines.append({"timestamp": at, "type": "response_item", "payload": {
                "type": "message", "role": "user", "content": [{"type": "input_text", "text": f"q{n}"}]}})
            inp = rng.randint(2000, 30_000)
            used = {"input_tokens": inp, "cached_input_tokens": rng.randint(0, inp), "cache_write_input_tokens": 0,
                    "output_tokens": rng.randint(10, 800), "reasoning_output_tokens": rng.randint(0, 5)}
            used["total_tokens"] = used["input_tokens"] + used["output_tokens"]
            lines.append({"timestamp": at, "type": "response_item", "payload": {
                "type": "message", "role": "assistant", "content": [{"type": "output_text", "text": f"a{n}"}]}})
            lines.append({"timestamp": at, "type": "token_usage_record", "payload": {
                "thread_id": thread, "response_id": f"resp_{day}_{n}", "usage": used}})
            lines.append({"timestamp": at, "type": "event_msg", "payload": {
                "type": "token_count", "info": {"last_token_usage": used, "total_token_usage": used}}})
        folder = root / "sessions" / "2026" / "11" / f"{20 + day:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"rollout-2026-11-{20 + day:02d}T10-00-00-{thread}.jsonl").write_text(
            "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in lines))


@pytest.fixture(scope="module")
def ccusage() -> Path:
    return real_tools.agent("ccusage")


def by_day(ccusage: Path, tool: str, env: dict) -> dict:
    done = subprocess.run([str(ccusage), tool, "daily", "-z", "UTC", "--json", "--offline"], capture_output=True,
                          text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return {day["date"]: day for day in json.loads(done.stdout)["daily"]}


@pytest.mark.parametrize("tool", ["claude", "codex"])
def test_conv_counts_the_tokens_ccusage_counts_in_the_same_files(tool, ccusage, tmp_path):
    import os

    rng = random.Random(45)
    home = tmp_path / tool
    (claude_sessions if tool == "claude" else codex_rollouts)(home, rng)
    variable = "CLAUDE_CONFIG_DIR" if tool == "claude" else "CODEX_HOME"
    theirs = by_day(ccusage, tool, {**os.environ, variable: str(home)})
    source = "claude-code" if tool == "claude" else "codex"
    ok("import", "--from", source, str(home / ("projects" if tool == "claude" else "sessions")))
    mine = {g["day"]: g for g in stats("--by", "day", "--source", source)["groups"]}
    assert set(mine) == set(theirs) and len(mine) == (5 if tool == "claude" else 3)
    pairs = {"prompt_tokens": "inputTokens", "cache_write_tokens": "cacheCreationTokens",
             "cache_read_tokens": "cacheReadTokens", "completion_tokens": "outputTokens"}
    for day, counted in theirs.items():
        for mine_key, their_key in pairs.items():
            if tool == "codex" and mine_key == "cache_write_tokens":
                continue  # ccusage keeps none for Codex (its input holds them; conv's the same sum, apart)
            want = counted.get(their_key, 0)
            assert abs(mine[day][mine_key] - want) <= max(1, 0.01 * want), (day, mine_key, mine[day], counted)
