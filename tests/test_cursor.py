"""Cursor (an app: not run here): its three stores written by the test in
their real schemas, as the public readers of other projects read them (cass,
agentsview, cursor-history, vibe-replay): the CLI's store.db (meta as hex
JSON, blobs a content-addressed tree walked from latestRootBlobId), the
editor's state.vscdb (composerData and bubbleId rows of cursorDiskKV), and
the agent transcripts (JSON lines and the older text). Each chat is read
once across the three, from a database before its transcript; what its
tool calls changed is kept; a store that is no Cursor's is one line."""

import hashlib
import json
import os
import sqlite3

from conftest import fails, ok

CWD = "/work/proj"
CLI_ID, IDE_ID, ONLY_TRANSCRIPT = ("93d7b323-695c-4b84-8b69-d48bb88ae780", "c0ffee00-1111-4222-8333-444455556666",
                                   "0b1e2f3a-0000-4000-8000-000000000001")


def store_db(folder, chat_id: str) -> None:
    """A CLI chat's store.db: its messages as JSON blobs, a subtree node and a root node listing them in order."""
    leaves = [{"role": "system", "content": "You are an AI coding assistant"},
              {"role": "user", "content": [{"type": "text", "text": "<user_info>OS linux</user_info>"}]},
              {"role": "user", "content": [{"type": "text", "text": "<user_query>\nrename f to fetch\n</user_query>"}]},
              {"id": "1", "role": "assistant", "content": [
                  {"type": "reasoning", "text": "a search and replace"},
                  {"type": "tool-call", "toolCallId": "toolu_1", "toolName": "StrReplace",
                   "args": {"path": f"{CWD}/a.py", "old_string": "def f(", "new_string": "def fetch("}}]},
              {"role": "tool", "id": "toolu_1", "content": [{"type": "tool-result", "toolName": "StrReplace",
                                                             "toolCallId": "toolu_1", "result": "ok"}]},
              {"id": "2", "role": "assistant", "content": [{"type": "text", "text": "Renamed it."}]}]
    blobs = {}
    for leaf in leaves:
        data = json.dumps(leaf).encode()
        blobs[hashlib.sha256(data).hexdigest()] = data
    ids = list(blobs)
    sub = b"".join(b"\x0a\x20" + bytes.fromhex(i) for i in ids[3:])  # the later messages in a subtree
    sub_id = hashlib.sha256(sub).hexdigest()
    blobs[sub_id] = sub
    root = b"".join(b"\x0a\x20" + bytes.fromhex(i) for i in ids[:3]) + b"\x12\x20" + bytes.fromhex(sub_id) + \
        b"\x4a\x05proj!"  # then a field the walk does not read
    root_id = hashlib.sha256(root).hexdigest()
    blobs[root_id] = root
    blobs["0" * 64] = json.dumps({"role": "user", "content": "an abandoned branch: not in the tree"}).encode()
    chat = folder / "chats" / hashlib.md5(CWD.encode()).hexdigest() / chat_id
    chat.mkdir(parents=True)
    (chat / "meta.json").write_text(json.dumps({"schemaVersion": 1, "cwd": CWD, "hasConversation": True}))
    with sqlite3.connect(chat / "store.db") as db:
        db.executescript("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB); "
                         "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);")
        db.executemany("insert into blobs values (?, ?)", blobs.items())
        meta = {"agentId": chat_id, "latestRootBlobId": root_id, "name": "Rename f", "mode": "auto-run",
                "createdAt": 1767396459642, "lastUsedModel": "claude-4.5-sonnet"}
        db.execute("insert into meta values ('0', ?)", (json.dumps(meta).encode().hex(),))
    db.close()


def state_vscdb(path, composer: str) -> None:
    """The editor's state: one chat's composerData and its bubbles (a tool call among them), in cursorDiskKV."""
    bubbles = {"b1": {"type": 1, "text": "add a docstring to fetch", "createdAt": "2026-11-26T10:00:00.000Z"},
               "b2": {"type": 2, "text": "", "thinking": {"text": "edit it"}, "toolFormerData": {
                   "name": "search_replace", "params": json.dumps({
                       "file_path": f"{CWD}/a.py", "old_string": "def fetch(",
                       "new_string": '"""Fetch."""\ndef fetch('}),
                   "result": json.dumps({"diff": "…"}), "toolCallId": "t1", "status": "completed"},
                   "createdAt": "2026-11-26T10:00:01.000Z"},
               "b3": {"type": 2, "text": "Added it.", "createdAt": "2026-11-26T10:00:02.000Z",
                      "tokenCount": {"inputTokens": 900, "outputTokens": 40},
                      "modelInfo": {"modelName": "claude-4.5-sonnet"}},
               "orphan": {"type": 1, "text": "not in the headers: not the chat"}}
    data = {"composerId": composer, "name": "Docstring", "createdAt": 1767396459000, "lastUpdatedAt": 1767396460000,
            "fullConversationHeadersOnly": [{"bubbleId": b, "type": bubbles[b]["type"]} for b in ("b1", "b2", "b3")],
            "modelConfig": {"modelName": "claude-4.5-sonnet"},
            "workspaceIdentifier": {"id": "w", "uri": {"fsPath": CWD}}}
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        db.execute("CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)")
        db.execute("insert into cursorDiskKV values (?, ?)", (f"composerData:{composer}", json.dumps(data)))
        db.executemany("insert into cursorDiskKV values (?, ?)",
                       [(f"bubbleId:{composer}:{b}", json.dumps(v).encode()) for b, v in bubbles.items()])
        db.execute("insert into cursorDiskKV values ('composerData:broken', 'not json')")
    db.close()


def transcript(folder, chat_id: str, text: str, suffix: str = ".jsonl") -> None:
    where = folder / "projects" / "work-proj" / "agent-transcripts"
    where.mkdir(parents=True, exist_ok=True)
    if suffix == ".txt":
        body = f"user:\n<user_query>\n{text}\n</user_query>\n\nassistant:\n[Thinking] **Looking**\n" \
               "[Tool call] Shell\n  command: ls -la\n  description: list\n\n[Tool result] Shell\n\n" \
               "assistant:\nAll listed.\n"
        (where / f"{chat_id}.txt").write_text(body)
        return
    asked = {"type": "text", "text": f"<user_query>\n{text}\n</user_query>"}
    lines = [{"role": "user", "message": {"content": [asked]}},
             {"role": "assistant", "message": {"content": [{"type": "text", "text": "from the transcript"}]}},
             {"type": "turn_ended", "status": "success"}]
    (where / f"{chat_id}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def shown_all() -> dict:
    listed = json.loads(ok("list", "--json").stdout)
    return {c["title"]: json.loads(ok("show", c["id"], "--json").stdout) for c in listed}


def test_each_chat_is_read_once_across_the_three_stores_from_a_database_first(tmp_path, monkeypatch):
    cursor, config = tmp_path / "cursor", tmp_path / "config"
    monkeypatch.setenv("CURSOR_CONFIG_DIR", str(cursor))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    store_db(cursor, CLI_ID)
    state_vscdb(config / "Cursor" / "User" / "globalStorage" / "state.vscdb", IDE_ID)
    transcript(cursor, CLI_ID, "rename f to fetch")  # the same chats again, as transcripts
    transcript(cursor, IDE_ID, "add a docstring to fetch")
    transcript(cursor, ONLY_TRANSCRIPT, "list the files", ".txt")
    done = json.loads(ok("import", "--from", "cursor", "--json").stdout)
    assert (done["found"], done["added"]) == (3, 3), done
    chats = shown_all()
    cli, ide = chats["Rename f"], chats["Docstring"]
    question, answer = cli["turns"]  # the tree's order, no abandoned branch, Cursor's own context aside
    assert question["content"] == "rename f to fetch" and answer["content"].endswith("Renamed it.")
    assert "```tool call: StrReplace" in answer["content"]
    assert answer["edits"] == [{"path": f"{CWD}/a.py", "file": "a.py", "kind": "replace", "before": "def f(",
                                "after": "def fetch(", "tool": "StrReplace"}]
    assert cli["imported_from"]["cwd"] == CWD and cli["turns"][1]["thinking"] == "a search and replace"
    assert [t["role"] for t in ide["turns"]] == ["user", "assistant"] and "orphan" not in json.dumps(ide)
    assert ide["turns"][1]["usage"]["prompt_tokens"] == 900 and ide["turns"][1]["model"] == "claude-4.5-sonnet"
    assert [(e["path"], e["kind"]) for e in ide["turns"][1]["edits"]] == [(f"{CWD}/a.py", "replace")]
    older = chats["list the files"]
    assert older["turns"][1]["commands"] == [{"command": "ls -la", "tool": "Shell"}]
    assert "from the transcript" not in json.dumps(chats)  # read from the databases, not again from the transcripts
    assert any("1 record of" in line and "state.vscdb" in line for line in done["skipped"])  # the row of no JSON
    again = json.loads(ok("import", "--from", "cursor", "--json").stdout)
    assert (again["added"], again["turns_added"]) == (0, 0)


def test_a_store_that_is_no_cursors_is_one_line(tmp_path):
    chat = tmp_path / "chats" / "h" / "x"
    chat.mkdir(parents=True)
    with sqlite3.connect(chat / "store.db") as db:
        db.execute("create table other (a)")
    db.close()
    said = fails("import", "--from", "cursor", str(tmp_path), code=1)
    assert "not a Cursor chat's store" in said


def test_a_chat_with_no_times_is_imported_once_however_its_files_are_touched_or_grow(tmp_path, monkeypatch):
    cursor = tmp_path / "cursor"
    monkeypatch.setenv("CURSOR_CONFIG_DIR", str(cursor))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    store_db(cursor, CLI_ID)
    transcript(cursor, ONLY_TRANSCRIPT, "list the files")  # no time anywhere in it: dated by its file
    ok("import", "--from", "cursor")
    chats = shown_all()
    assert chats["Rename f"]["created"].startswith("2026-01-02T23:27:39")  # the store's createdAt (ms)
    assert chats["Rename f"]["turns"][1]["model"] == "claude-4.5-sonnet"  # the model it last used
    first = chats["list the files"]
    for folder in cursor.rglob("*"):
        if folder.is_file():
            os.utime(folder, (folder.stat().st_atime + 3600, folder.stat().st_mtime + 3600))
    again = json.loads(ok("import", "--from", "cursor", "--json").stdout)
    assert (again["added"], again["turns_added"], again["forks"]) == (0, 0, []), again
    grown = cursor / "projects" / "work-proj" / "agent-transcripts" / f"{ONLY_TRANSCRIPT}.jsonl"
    with grown.open("a") as out:
        out.write(json.dumps({"role": "user", "message": {"content": [
            {"type": "text", "text": "<user_query>\nand the hidden ones\n</user_query>"}]}}) + "\n")
    os.utime(grown, (grown.stat().st_atime + 7200, grown.stat().st_mtime + 7200))
    more = json.loads(ok("import", "--from", "cursor", "--json").stdout)
    assert (more["added"], more["turns_added"], more["forks"]) == (0, 1, []), more
    after = shown_all()["list the files"]
    assert [t["name"] for t in after["turns"][:2]] == [t["name"] for t in first["turns"]]
    assert len(json.loads(ok("list", "--json").stdout)) == 2


def test_a_fifo_where_a_store_should_be_is_one_line_never_waited_on(tmp_path):
    chat = tmp_path / "chats" / "h" / "x"
    chat.mkdir(parents=True)
    os.mkfifo(chat / "store.db")
    said = fails("import", "--from", "cursor", str(tmp_path), code=1, timeout=30, process=True)
    assert "not a regular file (a FIFO, a device): never waited on" in said
