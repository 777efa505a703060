"""opencode, the real one (installed from npm by the suite), against the
loopback OpenAI fake: after conv connect opencode its sessions, continued
and with a file written by its tool, are captured by conv's plugin and read
from its SQLite database (read-only, its write-ahead log too) as it wrote
them, once; the catch-up sees what it wrote since; deleting its files
changes nothing. A database that is not opencode's, or rows that are not
what it writes, are left out and said, never a traceback."""

import json
import shutil
import sqlite3

from conftest import FakeServer, conv_env, fails, git, ok
from real_tools import Headless
from test_capture_agents import stored

from conv import importers, sources


class Opencode(Headless):
    """The real opencode in ``project``, with its own HOME, asking ``server`` (offline: nothing sent anywhere else)."""

    def __init__(self, binary, project, home, server):
        self.binary, self.project = binary, project
        config = home / ".config" / "opencode"
        config.mkdir(parents=True, exist_ok=True)
        (config / "opencode.json").write_text(json.dumps({
            "provider": {"fake": {"npm": "@ai-sdk/openai-compatible", "name": "Fake",
                                  "options": {"baseURL": server.url, "apiKey": "sk-fake"},
                                  "models": {"fake-model": {"name": "Fake Model"}}}},
            "model": "fake/fake-model", "autoupdate": False, "share": "disabled"}))
        self.env = conv_env({"HOME": str(home), "OPENCODE_DISABLE_MODELS_FETCH": "1",
                             "OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
                             "OPENCODE_DISABLE_SHARE": "1", "PWD": str(project)})  # its folder, as a shell says it


def test_opencode_sessions_a_continue_and_a_tool_call_are_captured_and_imported_once(opencode, tmp_path, store_path,
                                                                                     monkeypatch):
    """After conv connect opencode, conv's plugin hands each session gone idle to conv as opencode runs: no conv
    command typed, once; the file opencode's write tool made is the answer's edit; a conv import afterwards adds
    nothing; --remove takes the plugin out. (One run of the real opencode for all of it: its start is seconds.)"""
    project, home = tmp_path / "proj", tmp_path / "user"
    project.mkdir()
    git(project, "init", "-q")
    monkeypatch.setenv("HOME", str(home))
    ok("connect", "opencode")
    plugin = home / ".config" / "opencode" / "plugin" / "conv-capture.js"
    assert plugin.is_file()
    with FakeServer(reply="It is 4.") as server:
        agent = Opencode(opencode, project, home, server)
        agent("run", "what", "is", "2+2?")  # words apart: opencode quotes an argument holding a space
        server.set(reply="And 3+3 is 6.")
        agent("run", "--continue", "and", "3+3?")
        first = stored(4, within=60)
        server.set(tool_call=("write", json.dumps({"filePath": str(project / "hi.txt"), "content": "hi\n"})),
                   reply="Wrote it.")
        agent("run", "write", "hi.txt")
        every = stored(2, within=60, conversations=2)

    assert len(every) == 2 and {c["source"] for c in every} == {"opencode"}, every
    assert [t["content"] for t in first["turns"]] == ["what is 2+2?", "It is 4.", "and 3+3?", "And 3+3 is 6."]
    assert first["turns"][1]["model"] == "fake-model" and first["turns"][1]["usage"]["prompt_tokens"] > 0
    assert first["imported_from"]["source"] == "opencode" and first["imported_from"]["cwd"] == str(project)
    assert first["project"]["root"] == str(project)  # the session tied to its git project
    wrote = json.loads(ok("show", every[0]["id"], "--json").stdout)["turns"][1]
    assert (project / "hi.txt").read_text() == "hi\n" and wrote["content"].endswith("Wrote it.")
    assert [(e["path"], e["kind"], e.get("file")) for e in wrote["edits"]] == [(str(project / "hi.txt"), "write",
                                                                               "hi.txt")]
    again = json.loads(ok("import", "--from", "opencode", "--json").stdout)
    assert (again["added"], again["turns_added"]) == (0, 0), again
    ok("connect", "opencode", "--remove")
    assert not plugin.exists()
    head = git(store_path, "rev-parse", "HEAD")
    shutil.rmtree(home / ".local" / "share" / "opencode")
    assert git(store_path, "rev-parse", "HEAD") == head and len(json.loads(ok("list", "--json").stdout)) == 2
    git(store_path, "fsck", "--strict")


def database(path, sessions=(), messages=(), parts=()):
    """A database with opencode's three tables, holding these rows (``data`` as given: JSON text or not)."""
    db = sqlite3.connect(path)
    db.executescript("""
        PRAGMA journal_mode = wal;
        CREATE TABLE session (id text PRIMARY KEY, parent_id text, directory text, title text, time_created integer);
        CREATE TABLE message (id text PRIMARY KEY, session_id text, time_created integer, data text);
        CREATE TABLE part (id text PRIMARY KEY, message_id text, session_id text, time_created integer, data text);
    """)
    db.executemany("insert into session values (?, ?, ?, ?, ?)", sessions)
    db.executemany("insert into message values (?, ?, ?, ?)", messages)
    db.executemany("insert into part values (?, ?, 's1', ?, ?)", parts)
    db.commit()
    return db  # left open: what it wrote stays in its write-ahead log, as while opencode runs


T = 1795894841307


def test_what_opencode_wrote_itself_is_no_question_and_rows_that_are_not_its_are_left_out(tmp_path):
    user = json.dumps({"role": "user"})
    db = database(tmp_path / "opencode.db", sessions=[("s1", None, "/w", "New session - 2026", T),
                                                      ("sub", "s1", "/w", "task (@general subagent)", T)],
                  messages=[("m1", "s1", T, user),
                            ("m2", "s1", T + 1, json.dumps({"role": "assistant", "modelID": "m", "tokens": {
                                "input": 5, "output": 2, "reasoning": 1, "cache": {"read": 3}}})),
                            ("m3", "s1", T + 2, "no json {"), ("m4", "s1", T + 3, "[" * 100_000),
                            ("m5", "sub", T + 4, user)],
                  parts=[("p1", "m1", T, json.dumps({"type": "text", "text": "hi"})),
                         ("p2", "m1", T, json.dumps({"type": "text", "text": "<file notes>", "synthetic": True})),
                         ("p3", "m2", T, json.dumps({"type": "reasoning", "text": "hmm"})),
                         ("p4", "m2", T, json.dumps({"type": "text", "text": "hello"})),
                         ("p5", "m2", T, json.dumps({"type": "tool", "tool": 5, "state": "x"})),
                         ("p6", "m5", T, json.dumps({"type": "text", "text": "the sub-agent's task"}))])
    read = importers.read(sources.source("opencode").reader(), tmp_path / "opencode.db")
    db.close()
    (conv,) = read.conversations
    assert conv.title == "hi" and conv.origin == {"cwd": "/w"}  # not opencode's "New session - …"
    assert [(t.role, t.content) for t in conv.turns] == [("user", "hi"), ("assistant", "hello")]
    assert conv.turns[0].injected == [{"kind": "opencode", "text": "<file notes>"}]
    assert conv.turns[1].thinking == "hmm" and conv.turns[1].usage == {
        "prompt_tokens": 5, "cache_write_tokens": 0, "cache_read_tokens": 3, "completion_tokens": 3,
        "reasoning_tokens": 1}  # opencode's classes apart: the cache's no longer in the input
    assert any("3 records" in line for line in read.said), read.said  # the two messages and the part not its


def test_a_file_that_is_no_opencode_database_is_said_in_one_line(tmp_path):
    (tmp_path / "opencode.db").write_bytes(b"SQLite format 3\0" + b"\xff" * 5000)
    assert "not read" in fails("import", "--from", "opencode", str(tmp_path / "opencode.db"), code=1)
    sqlite3.connect(tmp_path / "other.db").execute("create table t (x)").connection.close()
    assert "not opencode's database" in fails("import", "--from", "opencode", str(tmp_path / "other.db"), code=1)
    assert "no opencode database" in fails("import", "--from", "opencode", str(tmp_path / "none"), code=2)


def test_the_catch_up_sees_what_opencode_wrote_to_its_write_ahead_log_alone(tmp_path, monkeypatch, conv_home):
    from conv.services.catch_up import catch_up

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    (tmp_path / "data" / "opencode").mkdir(parents=True)
    db = database(tmp_path / "data" / "opencode" / "opencode.db", sessions=[("s1", None, "/w", "t", T)])
    db.execute("pragma wal_autocheckpoint = 0")  # as between opencode's checkpoints: the file itself stays as it is
    ok("connect", "opencode")  # a tool with a hook is caught up on once it is connected
    asked = []
    catch_up(lambda source: asked.append(source) or True)
    db.execute("insert into message values ('m1', 's1', ?, ?)", (T, json.dumps({"role": "user"})))
    db.commit()
    catch_up(lambda source: asked.append(source) or True)
    catch_up(lambda source: asked.append(source) or True)
    db.close()
    assert asked == ["opencode", "opencode"]  # at first, after the write, and not again for nothing new


def test_a_database_locked_by_another_program_is_said_to_be_busy(tmp_path):
    db = database(tmp_path / "opencode.db", sessions=[("s1", None, "/w", "t", T)])
    db.execute("pragma locking_mode = exclusive")
    db.execute("begin exclusive")
    said = fails("import", "--from", "opencode", str(tmp_path / "opencode.db"), code=1, timeout=60)
    db.rollback()
    db.close()
    assert "busy (another program holds it locked): run the import again" in said, said
