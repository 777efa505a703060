"""Every source's shape fed hostile values (issue 45, part 2): a lone
surrogate or bytes that are no UTF-8 in its ids, folders, branches, titles
and text, values of the wrong type, nesting without end, a 30 MB message,
times out of range in any time zone, parents that loop. Whatever a file
holds, the import gives no traceback, commits nothing the store cannot read
back, and loses no other session of the same file, database or folder (the
sample's ``other``)."""

import json
import os
import time

import pytest
from conftest import fsck_clean, ok, run_conv
from sample import BAD_UTF8, Deep
from samples import SAMPLES

TEXTS = ("id", "cwd", "branch", "title", "text")
KINDS_OF_WRONG = {"a lone surrogate": ["a\ud800b"], "bytes that are no UTF-8": [BAD_UTF8],
                  "a value of another type": [42, {"a": [1]}, [None], True]}  # (in turn, place by place)
TIMES = {"a year past 9999": "99999-01-01T00:00:00Z", "seconds past any year": 1e20, "before year 1": -1e18,
         "the first moment east of UTC": "0001-01-01T00:00:00+14:00",
         "the last moment west of UTC": "9999-12-31T23:59:59-12:00"}
WEST, EAST = "America/Los_Angeles", "Pacific/Kiritimati"  # where the end of 9999 and the start of 1 overflow
MESSAGE_MB = 30


def cases():
    """(source, what, hostile records) for every sample: each kind of wrong value in every place of a kind."""
    for name, sample in sorted(SAMPLES.items()):
        for kind in TEXTS:
            paths = sample.fields.get(kind, ())
            for what, values in KINDS_OF_WRONG.items() if paths else ():
                records = sample.records
                for n, path in enumerate(paths):
                    records = _with(records, path, values[n % len(values)])
                yield name, f"{what} in every {kind}", records
        texts = sample.fields.get("text", ())
        if texts:
            yield name, "text nested 5,000 deep", sample.with_value(texts[0], Deep(5000))
            yield name, f"a {MESSAGE_MB} MB message", sample.with_value(texts[-1], "x" * (MESSAGE_MB << 20))
        for path in sample.fields.get("input", ()):
            yield name, "a tool call's input nested past any sense", sample.with_value(path, Deep(500))
            yield name, "a tool call's input of the wrong type", sample.with_value(path, [1, {"2": None}])
        for what, value in [*TIMES.items(), *((f"{t!r} in its own form", t) for t in sample.times)]:
            records = sample.records
            for path in sample.fields.get("time", ()):
                records = _with(records, path, value)
            zone = EAST if "0001" in str(value) or "east" in what or "before" in what else WEST
            if sample.fields.get("time"):
                yield name, f"{what} in every time, in {zone}", records
        for path, value in sample.fields.get("cycle", ()):
            yield name, "parents that loop", sample.with_value(path, value)


def _with(records, path, value):
    import copy

    records = copy.deepcopy(records)
    where = records
    for step in path[:-1]:
        where = where[step]
    where[path[-1]] = value
    return records


CASES = list(cases())


@pytest.mark.parametrize("name,what,records", CASES, ids=[f"{n}: {w}" for n, w, _ in CASES])
def test_a_hostile_session_costs_itself_at_most_never_a_traceback_or_another_session(name, what, records, tmp_path,
                                                                                      store_path, monkeypatch,
                                                                                      request):
    sample = SAMPLES[name]
    path = sample.write(tmp_path / "tool", records)
    if "in every time" in what:  # the machine's zone, as a process started in it reads it
        monkeypatch.setenv("TZ", next(z for z in (WEST, EAST) if what.endswith(z)))
        time.tzset()
        request.addfinalizer(time.tzset)  # (after monkeypatch gives TZ back)
    done = run_conv("import", "--from", name, str(path), "--json", timeout=120)
    said = done.stderr.decode(errors="replace")
    assert "Traceback" not in said and done.returncode in (0, 1), said[-3000:]
    assert len(said.splitlines()) <= 1 or done.returncode == 0, said[-3000:]
    if sample.other is not None:  # the other session of the same file or folder came in all the same
        assert done.returncode == 0, said[-3000:]
        titles = [c["title"] for c in json.loads(ok("list", "--json").stdout)]
        assert any("the other question" in title for title in titles), (titles, json.loads(done.stdout))
    if what == "parents that loop":  # a loop is cut, never the session's question lost
        asked = [t["content"] for c in json.loads(ok("list", "--json").stdout)
                 for t in json.loads(ok("show", c["id"], "--json").stdout)["turns"] if t["role"] == "user"]
        assert any(sample.expect.words[0] in text for text in asked), (asked, json.loads(done.stdout))
    for listed in json.loads(ok("list", "--json").stdout):  # what came in reads back whole, and asks something
        turns = json.loads(ok("show", listed["id"], "--json").stdout)["turns"]
        assert len(turns) == listed["turns"] and any(t["role"] == "user" for t in turns), (listed, what)
    fsck_clean(store_path)


def test_the_cases_reach_every_source_and_every_place():
    reached = {name for name, _, _ in CASES}
    assert reached == set(SAMPLES)
    assert all(SAMPLES[n].fields.get("text") for n in SAMPLES), "every sample says where its text is"
    assert os.environ.get("CONV_HOME")  # (the autouse fixture's)


def test_a_gemini_log_of_thousands_of_messages_listed_again_is_read_in_time(tmp_path):
    """A long Gemini CLI session, then a $set listing as many messages that say other things (Gemini CLI's own,
    as a compression writes them): each was looked for in the whole line, 8,000 of them in 40 s (quadratic)."""
    n = 8000
    messages = [{"id": f"m{i}", "timestamp": f"2026-11-26T10:{i // 60 % 60:02d}:{i % 60:02d}.000Z",
                 "type": "user" if i % 2 == 0 else "gemini", "content": f"message {i}",
                 **({"model": "gemini-2.5-pro"} if i % 2 else {})} for i in range(n)]
    relisted = [{**m, "id": f"again-{m['id']}", "content": f"summed up: {m['content']}"} for m in messages]
    file = tmp_path / "tmp" / "proj" / "chats" / "session-2026-11-26T10-00-aaaa0001.jsonl"
    file.parent.mkdir(parents=True)
    lines = [{"sessionId": "long", "startTime": "2026-11-26T10:00:00.000Z"}, *messages,
             {"$set": {"messages": relisted}}]
    file.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = json.loads(ok("import", "--from", "gemini", str(tmp_path / "tmp"), "--json", timeout=30).stdout)
    assert (done["added"], done["turns_added"]) == (1, n)
