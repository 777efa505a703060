"""Readers for `conv import`: ChatGPT exports built here, and llm's logs.db as
the real llm CLI writes it (installed once and kept between runs, pointed at
the fake server). llm has two generations of log tables, so two llm versions are
installed: the current one and the last that wrote the legacy tables, which
also lets the tests upgrade a database the way users do."""

import json
import os
import shutil
import sqlite3
import subprocess
import zipfile
from pathlib import Path

import pytest
from conftest import fails, git, ok, pip_tools
from real_tools import ToolRuns
from ruamel.yaml import YAML

from conv.errors import UsageError
from conv.format import ids
from conv.format.ids import conversation_path
from conv.importers import ImportedConversation, ImportedTurn, conversation_id, turn_name


def read(source: str, path):
    """The reader of ``source`` (the one registry) through the ingest boundary."""
    from conv import importers, sources

    return importers.read(sources.source(source).reader(), path)


def found_in(source: str, path) -> list[ImportedConversation]:
    """What the reader of ``source`` found at ``path``, through the ingest boundary."""
    return read(source, path).conversations


# -- shared helpers ---------------------------------------------------------------


def test_unknown_source_names_the_known_ones(tmp_path):
    with pytest.raises(UsageError) as err:
        found_in("claude", tmp_path)
    assert "chatgpt" in str(err.value) and "llm" in str(err.value)
    said = fails("import", "--from", "projekt", code=2)  # conv import --from project is a source too
    assert "project" in said.split("Use one of:")[1] and "did you mean project?" in said
    assert "did you mean claude-code?" in fails("import", "--from", "claud-code", code=2)
    assert "did you mean claude-code?" in fails("list", "--source", "claud-code", code=2)
    assert "did you mean claude-code?" in fails("search", "x", "--source", "claud-code", code=2)


def test_ids_and_names_are_deterministic_and_valid():
    conv = ImportedConversation("llm", "01abc", "t", "2026-11-21T17:55:20.123Z", None, [])
    assert conversation_id(conv) == conversation_id(
        ImportedConversation("llm", "01abc", "other", "", "m", []))
    assert ids.ID_RE.match(conversation_id(conv))
    assert conversation_id(conv) != conversation_id(
        ImportedConversation("chatgpt", "01abc", "t", "", None, []))
    turn = ImportedTurn("assistant", "x", "2026-11-21T17:55:20.123Z", source_id="m1")
    name = turn_name(turn, 3)
    assert ids.TURN_RE.match(name) and name.startswith("20261121-175520.123-")
    assert name.endswith("-assistant") and name == turn_name(turn, 3) != turn_name(turn, 4)


def check_importable(conversations: list[ImportedConversation]) -> None:
    """What the writer relies on: valid, distinct ids; turn names valid and in
    turn order (times strictly increase)."""
    cids = [conversation_id(c) for c in conversations]
    assert len(set(cids)) == len(cids) and all(ids.ID_RE.match(c) for c in cids)
    for conv in conversations:
        names = [turn_name(t, i) for i, t in enumerate(conv.turns)]
        assert all(ids.TURN_RE.match(n) for n in names)
        assert names == sorted(names) and len(set(n[:19] for n in names)) == len(names)
        assert conv.turns and conv.created <= conv.turns[0].created


def roles_and_texts(conv: ImportedConversation) -> list[tuple]:
    return [(t.role, t.content) for t in conv.turns]


# -- ChatGPT ----------------------------------------------------------------------


def node(nid, parent, children, role=None, text=None, t=None, **extra):
    message = None
    if role:
        parts = text if isinstance(text, list) else [text]
        message = {"id": nid, "author": {"role": role}, "create_time": t,
                   "content": {"content_type": "text", "parts": parts},
                   "metadata": extra.pop("metadata", {}), **extra}
    return {"id": nid, "parent": parent, "children": children, "message": message}


def chatgpt_export() -> list:
    """One conversation whose first answer was regenerated (n3, n4 under n2)
    and whose first question was edited (n8 beside n2); the current branch
    holds an image request with a tool call. A second, linear conversation."""
    gpt4o = {"model_slug": "gpt-4o"}
    mapping = {
        "n0": node("n0", None, ["n1"]),
        "n1": node("n1", "n0", ["n2", "n8"], "system", "", None,
                   metadata={"is_visually_hidden_from_conversation": True}),
        "n2": node("n2", "n1", ["n3", "n4"], "user", "Hi", 1000.0),
        "n3": node("n3", "n2", [], "assistant", "First answer", 1001.0, metadata=gpt4o),
        "n4": node("n4", "n2", ["n5"], "assistant", "Second answer", 1010.25, metadata=gpt4o),
        "n5": node("n5", "n4", ["n6"], "user",
                   ["Draw a cat", {"content_type": "image_asset_pointer"}, "in the snow"],
                   1020.0),
        "n6": node("n6", "n5", ["n6b"], "assistant", '{"prompt": "cat"}', 1021.0,
                   recipient="dalle.text2im", metadata=gpt4o),
        "n6b": node("n6b", "n6", ["n7"], "tool", "image made", 1030.0),
        "n7": node("n7", "n6b", [], "assistant", "Here it is.", 1040.0, metadata=gpt4o),
        "n8": node("n8", "n1", ["n9"], "user", "Hello (edited)", 1050.0),
        "n9": node("n9", "n8", [], "assistant", "Edited answer", None,
                   metadata={"model_slug": "gpt-4o-mini"}),
    }
    linear = {
        "r": node("r", None, ["a"]),
        "a": node("a", "r", ["b"], "system", "Be terse.", 2000.0),
        "b": node("b", "a", ["c"], "user", "2+2?", 2000.0),
        "c": node("c", "b", [], "assistant", "4", 2001.0, metadata={"model_slug": "o3"}),
    }
    return [
        {"conversation_id": "c-1", "title": "Greetings", "create_time": 999.5,
         "update_time": 1050.0, "current_node": "n7", "mapping": mapping},
        {"id": "c-2", "title": "", "create_time": 2000.0, "current_node": "c", "mapping": linear},
    ]


@pytest.fixture
def export(tmp_path) -> Path:
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(chatgpt_export()))
    return path


def test_chatgpt_main_branch_and_forks(export):
    found = found_in("chatgpt", export)
    main, regenerated, edited, linear = found
    # The first branch is the conversation, whichever the user saw last (a later
    # export with another current lands on the same conversations): the first answer.
    assert (main.source, main.source_id, main.title) == ("chatgpt", "c-1", "Greetings")
    assert main.created == "1970-01-01T00:16:39.500Z" and main.model == "gpt-4o"
    assert roles_and_texts(main) == [("user", "Hi"), ("assistant", "First answer")]
    assert [t.created for t in main.turns] == ["1970-01-01T00:16:40.000Z", "1970-01-01T00:16:41.000Z"]
    assert main.fork_of is None and main.fork_at is None

    # The answer regenerated and what followed it: a fork from the question, named where it branched off.
    assert regenerated.source_id == "c-1#n4" and regenerated.title == "Greetings"
    assert (regenerated.fork_of, regenerated.fork_at) == ("c-1", 1)
    assert roles_and_texts(regenerated) == [
        ("user", "Hi"), ("assistant", "Second answer"),
        ("user", "Draw a cat\n\nin the snow"), ("assistant", "Here it is.")]
    assert [t.created for t in regenerated.turns] == [
        "1970-01-01T00:16:40.000Z", "1970-01-01T00:16:50.250Z",
        "1970-01-01T00:17:00.000Z", "1970-01-01T00:17:20.000Z"]
    assert [t.model for t in regenerated.turns] == [None, "gpt-4o", None, "gpt-4o"]
    assert regenerated.turns[0] == main.turns[0]  # same time, same source id
    assert regenerated.created == main.created  # it began with the conversation

    # The edited question shares nothing visible (the hidden system prompt is left out);
    # the answer without a time comes 1 ms after its question.
    assert (edited.source_id, edited.fork_of, edited.fork_at) == ("c-1#n8", "c-1", 0)
    assert roles_and_texts(edited) == [("user", "Hello (edited)"), ("assistant", "Edited answer")]
    assert [t.created for t in edited.turns] == [
        "1970-01-01T00:17:30.000Z", "1970-01-01T00:17:30.001Z"]
    assert edited.model == "gpt-4o-mini"

    # "id" instead of "conversation_id"; no title: the first question; the system
    # prompt and the question at the same second stay in order.
    assert (linear.source_id, linear.title, linear.model) == ("c-2", "2+2?", "o3")
    assert roles_and_texts(linear) == [("system", "Be terse."), ("user", "2+2?"),
                                       ("assistant", "4")]
    assert linear.turns[1].created == "1970-01-01T00:33:20.001Z"
    check_importable(found)
    assert found_in("chatgpt", export) == found


def test_a_later_export_with_another_branch_current_and_grown_lands_on_the_same_conversations(export, conv_home):
    ok("import", "--from", "chatgpt", str(export))
    before = {c["id"]: c["turns"] for c in json.loads(ok("list", "--json").stdout)}
    later = chatgpt_export()
    mapping = later[0]["mapping"]  # the user went back to the first answer and went on there
    mapping["n3"]["children"] = ["n10"]
    mapping["n10"] = node("n10", "n3", [], "user", "and one more", 1100.0)
    later[0]["current_node"] = "n10"
    export.write_text(json.dumps(later))
    done = json.loads(ok("import", "--from", "chatgpt", str(export), "--json").stdout)
    assert (done["added"], done["turns_added"], done["forks"]) == (0, 1, [])
    after = {c["id"]: c["turns"] for c in json.loads(ok("list", "--json").stdout)}
    main = conversation_id(found_in("chatgpt", export)[0])
    assert after == {**before, main: before[main] + 1}


def test_chatgpt_reads_the_export_zip_and_folder(export, tmp_path):
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(export, "conversations.json")
        z.writestr("chat.html", "<html></html>")
    assert found_in("chatgpt", archive) == found_in("chatgpt", tmp_path) == found_in("chatgpt", export)


def test_chatgpt_reads_an_export_split_into_parts(export, tmp_path):
    """Newer exports: conversations-000.json, conversations-001.json… in the folder or the zip."""
    whole = json.loads(export.read_text())
    folder = tmp_path / "split"
    folder.mkdir()
    for n, part in enumerate((whole[:1], whole[1:])):
        (folder / f"conversations-{n:03d}.json").write_text(json.dumps(part))
    archive = tmp_path / "split.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for n in (1, 0):  # stored out of order: read in order all the same
            z.write(folder / f"conversations-{n:03d}.json", f"export/conversations-{n:03d}.json")
    assert found_in("chatgpt", folder) == found_in("chatgpt", archive) == found_in("chatgpt", export)
    assert len(whole) > 1


@pytest.mark.parametrize("content", [
    "{not json", '{"conversations": []}', '[{"title": "no mapping"}]', '[42]',
    '[{"title": "no id", "mapping": {}}]', "\x89PNG"])
def test_a_malformed_chatgpt_export_is_named_in_one_line(tmp_path, content):
    path = tmp_path / "conversations.json"
    path.write_text(content)
    found = read("chatgpt", path)
    assert found.conversations == [] and len(found.said) == 1 and str(path) in found.said[0]
    said = fails("import", "--from", "chatgpt", str(path), code=1)  # nothing could be read: not "0 new"
    assert f"nothing in {path} could be read as chatgpt's" in said and "ChatGPT data export" in said


def test_chatgpt_missing_file_is_a_usage_error(tmp_path):
    with pytest.raises(UsageError, match="no such file"):
        read("chatgpt", tmp_path / "nope.json")
    found = read("chatgpt", tmp_path)  # a folder without conversations.json
    assert found.conversations == [] and "holds no conversations.json" in found.said[0]


# -- llm: the real CLI ----------------------------------------------------------


@pytest.fixture(scope="session")
def llm_bins() -> dict[str, Path]:
    """The two llm versions, each in a virtualenv of its own (real_tools.PIP_TOOLS)."""
    tools = pip_tools("llm", "llm-old")
    return {"new": tools["llm"], "old": tools["llm-old"]}


@pytest.fixture
def llm_home(tmp_path, fake) -> Path:
    """llm's user directory, with a model `fake` served by the fake server."""
    home = tmp_path / "llm-home"
    home.mkdir()
    (home / "extra-openai-models.yaml").write_text(
        f"- model_id: fake\n  model_name: gpt-4o-mini\n  api_base: {fake.url}\n")
    fake.set(reply="ECHO")
    return home


def llm(binary: Path, home: Path, *args: str) -> str:
    """``llm ARGS`` run by that llm; its output."""
    return llm_runs(binary, home, args)[0]


def llm_runs(binary: Path, home: Path, *runs: tuple[str, ...]) -> list[str]:
    """Each of RUNS (argument lists) through that llm's command line, in turn,
    in one process (as llm's own tests run it); what each printed."""
    env = {**os.environ, "LLM_USER_PATH": str(home), "OPENAI_API_KEY": "x"}
    with ToolRuns(binary.parent / "python", "from llm.cli import cli as command", "llm", env,
                  home.parent / "llm.out") as llm:
        return [llm(*args) for args in runs]


def test_llm_reads_what_llm_writes(llm_bins, llm_home):
    new = llm_bins["new"]
    said = llm_runs(new, llm_home, ("-m", "fake", "q1"), ("-c", "q2"), ("-m", "fake", "-s", "Be brief.", "q3"))
    assert said == ["q1\n", "q2\n", "q3\n"]
    logs = llm_home / "logs.db"

    found = found_in("llm", logs)
    assert len(found) == 2
    first, second = found
    assert (first.source, first.title, first.model) == ("llm", "q1", "fake")
    assert roles_and_texts(first) == [("user", "q1"), ("assistant", "q1"),
                                      ("user", "q2"), ("assistant", "q2")]
    assert [t.model for t in first.turns] == [None, "fake", None, "fake"]
    # The fake counts words of everything sent: q1, its answer, q2.
    assert first.turns[3].usage == {"prompt_tokens": 3, "completion_tokens": 1}
    assert first.created == first.turns[0].created
    assert roles_and_texts(second) == [("system", "Be brief."), ("user", "q3"),
                                       ("assistant", "q3")]
    assert second.title == "q3" and second.turns[2].model == "fake"
    assert first.turns[-1].created < second.turns[0].created
    check_importable(found)

    again = found_in("llm", logs)
    assert again == found
    assert [conversation_id(c) for c in again] == [conversation_id(c) for c in found]


def test_llm_is_found_where_llm_keeps_it(llm_bins, llm_home):
    """No path: llm's own place (LLM_USER_PATH, as ``llm logs path`` says), for conv import and import.auto."""
    llm(llm_bins["new"], llm_home, "-m", "fake", "where am I kept?")
    done = json.loads(ok("import", "--from", "llm", "--json", env={"LLM_USER_PATH": str(llm_home)}).stdout)
    assert done["added"] == 1
    assert json.loads(ok("list", "--source", "llm", "--json").stdout)[0]["title"] == "where am I kept?"


def test_llm_fork_made_with_llms_own_api(llm_bins, llm_home):
    """llm 0.36 has no fork command; LogStore.fork is its API for one."""
    new = llm_bins["new"]
    llm_runs(new, llm_home, ("-m", "fake", "q1"), ("-c", "q2"))
    (first,) = found_in("llm", llm_home / "logs.db")
    script = """if 1:
        import sys, llm, sqlite_utils
        from llm.logs import LogStore
        store = LogStore(sqlite_utils.Database(sys.argv[1]))
        fork = store.fork(sys.argv[3], name="alt", forked_from=sys.argv[2])
        response = llm.get_model("fake").prompt("q2-alt", messages=store.thread_messages(fork))
        response.text()
        store.log(response, thread_id=fork)
    """
    env = {**os.environ, "LLM_USER_PATH": str(llm_home), "OPENAI_API_KEY": "x"}
    subprocess.run([str(new.parent / "python"), "-c", script, str(llm_home / "logs.db"),
                    first.source_id, first.turns[1].source_id], env=env, check=True)

    original, fork = found_in("llm", llm_home / "logs.db")
    assert original == first
    assert (fork.title, fork.fork_of, fork.fork_at) == ("alt", first.source_id, 2)
    assert roles_and_texts(fork) == [("user", "q1"), ("assistant", "q1"),
                                     ("user", "q2-alt"), ("assistant", "q2-alt")]
    assert fork.turns[:2] == first.turns[:2]  # the shared history keeps its times
    check_importable([original, fork])


def test_llm_legacy_tables_and_an_upgraded_database(llm_bins, llm_home):
    old, new = llm_bins["old"], llm_bins["new"]
    llm_runs(old, llm_home, ("-m", "fake", "-s", "sys1", "q1"), ("-c", "q2"), ("-c", "-s", "sys2", "q2b"),
             ("-m", "fake", "q3"))
    logs = llm_home / "logs.db"

    legacy = found_in("llm", logs)
    first, second = legacy
    assert roles_and_texts(first) == [
        ("system", "sys1"), ("user", "q1"), ("assistant", "q1"), ("user", "q2"),
        ("assistant", "q2"), ("system", "sys2"), ("user", "q2b"), ("assistant", "q2b")]
    assert (first.title, first.model, first.turns[2].model) == ("q1", "fake", "fake")
    assert first.turns[4].usage == {"prompt_tokens": 4, "completion_tokens": 1}
    assert roles_and_texts(second) == [("user", "q3"), ("assistant", "q3")]
    check_importable(legacy)

    # The new llm continues the legacy conversation in a thread with its id, whose
    # messages repeat the history: that history keeps its legacy turns and names.
    llm(new, llm_home, "-c", "q4")
    upgraded = found_in("llm", logs)
    assert upgraded[0] == first
    continued = upgraded[1]
    assert continued.source_id == second.source_id and continued.title == "q3"
    assert roles_and_texts(continued) == [("user", "q3"), ("assistant", "q3"),
                                          ("user", "q4"), ("assistant", "q4")]
    assert continued.turns[:2] == second.turns
    assert [turn_name(t, i) for i, t in enumerate(continued.turns[:2])] == [
        turn_name(t, i) for i, t in enumerate(second.turns)]
    check_importable(upgraded)


@pytest.mark.parametrize("version", ["old", "new"])
def test_llm_fragments_read_as_sent(llm_bins, llm_home, fake, version):
    """Both generations store fragments by reference; a turn holds the text the
    model was sent."""
    notes, rules = llm_home / "notes.txt", llm_home / "rules.txt"
    notes.write_text("The notes.\nLine two.\n")
    rules.write_text("Rule: be kind.")
    binary = llm_bins[version]
    llm_runs(binary, llm_home, ("-m", "fake", "-f", str(notes), "--sf", str(rules), "-s", "sys", "sum"),
             ("-c", "-f", str(notes), "again"))
    (conv,) = found_in("llm", llm_home / "logs.db")
    sent = fake.requests[-1]["messages"]
    assert [(t.role, t.content) for t in conv.turns[:4]] == [
        (m["role"], m["content"]) for m in sent]
    assert sent[0] == {"role": "system", "content": "Rule: be kind.\n\nsys"}
    assert conv.turns[4].content == sent[-1]["content"]  # the fake echoes the question


# -- llm: files that are not its logs ---------------------------------------------


def test_llm_bad_files_are_named(tmp_path):
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("create table notes (x)")
    text = tmp_path / "notes.txt"
    text.write_text("hello, this is not sqlite" * 100)
    for path in (tmp_path / "missing.db", tmp_path):
        with pytest.raises(UsageError, match="no llm log database") as err:
            read("llm", path)
        assert "llm logs path" in str(err.value) and "\n" not in str(err.value)
    for path, message in {other: "it is not llm's logs.db", text: "not llm's logs.db"}.items():
        said = fails("import", "--from", "llm", str(path), code=1)
        assert f"{path}: not read: {message}" in said and "llm logs path" in said


def test_llm_opens_read_only(tmp_path, llm_bins, llm_home):
    llm(llm_bins["new"], llm_home, "-m", "fake", "q1")
    copy = tmp_path / "ro" / "logs.db"
    copy.parent.mkdir()
    shutil.copy(llm_home / "logs.db", copy)
    before = copy.read_bytes()
    copy.chmod(0o444)
    assert len(found_in("llm", copy)) == 1
    assert copy.read_bytes() == before


# -- conv import, end to end: the CLI, the store, the git CLI ----------------------


def stored_files(store: Path) -> dict[str, str]:
    """path -> text of every file at HEAD, read with the git CLI."""
    return {path: git(store, "show", f"HEAD:{path}")
            for path in git(store, "ls-tree", "-r", "--name-only", "HEAD").splitlines()}


def turn_file(text: str) -> tuple[str, str]:
    """(role, body) of a turn file, read independently of conv."""
    assert text.startswith("---\n"), text[:80]
    head, sep, body = text[4:].partition("\n---\n")
    assert sep and body.endswith("\n"), text[:200]
    (role,) = [line.split(":", 1)[1].strip() for line in head.splitlines() if line.startswith("role:")]
    return role, body[:-1]


def test_conv_import_from_llm_and_chatgpt_into_the_store(llm_bins, llm_home, export, tmp_path, store_path):
    """``conv import --from llm`` and ``--from chatgpt`` through the CLI: every
    conversation lands in the store as files git accepts, one commit per
    import; list, show and search see them; importing again adds nothing,
    and after llm logs more, only what is new."""
    new = llm_bins["new"]
    llm_runs(new, llm_home, ("-m", "fake", "how do I squash with rebase"), ("-c", "and keep the messages?"),
             ("-m", "fake", "-s", "Be brief.", "a walrus fact"))
    logs = llm_home / "logs.db"
    from_llm, from_chatgpt = found_in("llm", logs), found_in("chatgpt", export)
    assert len(from_llm) == 2 and len(from_chatgpt) == 4
    everything = from_llm + from_chatgpt
    turns = sum(len(c.turns) for c in everything)

    first = json.loads(ok("import", "--from", "llm", str(logs), "--json").stdout)
    assert first == {"source": "llm", "found": 2, "added": 2, "turns_added": 7,
                     "commit": git(store_path, "rev-parse", "HEAD").strip(), "skipped": [], "unchanged_files": 0,
                     "turns_updated": 0, "forks": [], "in_trash": []}
    done = ok("import", "--from", "chatgpt", str(export))
    assert done.stdout == b""
    assert done.stderr.decode() == f"conv: 4 conversations in {export}: 4 new, 11 turns added\n"

    # the real git: a sound repository, one commit per import, every turn a file
    fsck = subprocess.run(["git", "-C", str(store_path), "fsck", "--strict"], capture_output=True, text=True,
                          check=False)
    assert fsck.returncode == 0 and "error" not in fsck.stdout + fsck.stderr, fsck.stdout + fsck.stderr
    assert git(store_path, "log", "--format=%s").splitlines() == [
        "import: 4 conversations from chatgpt", "import: 2 conversations from llm", "conv: create store"]
    files = stored_files(store_path)
    assert sum(path.startswith("conversations/") for path in files) == len(everything) + turns
    for conv in everything:
        where = conversation_path(conversation_id(conv))
        text = files[f"{where}/conversation.md"]
        assert text.startswith("---\n") and text.count("\n---\n") == 1, text
        meta = YAML(typ="safe").load(text[4:text.index("\n---\n")])
        assert (meta["id"], meta["title"]) == (conversation_id(conv), conv.title)
        assert meta["imported_from"] == {"source": conv.source, "id": conv.source_id}
        for i, turn in enumerate(conv.turns):
            assert turn_file(files[f"{where}/{turn_name(turn, i)}.md"]) == (turn.role, turn.content)

    # conv itself: list, show, search
    listed = {c["id"]: c for c in json.loads(ok("list", "--json").stdout)}
    assert set(listed) == {conversation_id(c) for c in everything}
    for conv in everything:
        row = listed[conversation_id(conv)]
        assert (row["title"], row["turns"]) == (conv.title, len(conv.turns)) and not row["broken"]
        shown = json.loads(ok("show", conversation_id(conv), "--json").stdout)
        assert [(t["role"], t["content"]) for t in shown["turns"]] == roles_and_texts(conv)
    main, regenerated, edited, _linear = from_chatgpt
    assert listed[conversation_id(regenerated)]["forked_from"] == conversation_id(main)
    assert listed[conversation_id(edited)]["forked_from"] is None  # it shares no turn to fork at
    assert {h["id"] for h in json.loads(ok("search", "squash", "--json").stdout)} == {conversation_id(from_llm[0])}
    assert {h["id"] for h in json.loads(ok("search", "snow", "--json").stdout)} == {conversation_id(regenerated)}
    assert {h["id"] for h in json.loads(ok("search", "walrus", "--json").stdout)} == {conversation_id(from_llm[1])}

    # again: nothing new, no commit; the export's zip and folder are the same conversations
    head, count = git(store_path, "rev-parse", "HEAD"), git(store_path, "rev-list", "--count", "HEAD")
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(export, "conversations.json")
    for source, path in (("llm", logs), ("chatgpt", export), ("chatgpt", archive), ("chatgpt", export.parent)):
        again = json.loads(ok("import", "--from", source, str(path), "--json").stdout)
        assert (again["added"], again["turns_added"], again["commit"]) == (0, 0, None), (source, path, again)
    assert "0 new, 0 turns added" in ok("import", "--from", "llm", str(logs)).stderr.decode()
    assert git(store_path, "rev-parse", "HEAD") == head
    assert git(store_path, "rev-list", "--count", "HEAD") == count
    assert stored_files(store_path) == files

    # llm goes on with the first conversation: the next import adds just that exchange
    llm(new, llm_home, "--cid", from_llm[0].source_id, "one more thing")
    more = json.loads(ok("import", "--from", "llm", str(logs), "--json").stdout)
    assert (more["found"], more["added"], more["turns_added"]) == (2, 0, 2)
    shown = json.loads(ok("show", conversation_id(from_llm[0]), "--json").stdout)
    assert [(t["role"], t["content"]) for t in shown["turns"]][-2:] == [
        ("user", "one more thing"), ("assistant", "one more thing")]
    assert [(t["role"], t["content"]) for t in shown["turns"]][:4] == roles_and_texts(from_llm[0])
    assert git(store_path, "log", "-1", "--format=%s").strip() == "import: 2 conversations from llm"
    git(store_path, "fsck", "--strict")


def exported(cid: str, slug: str) -> dict:
    """A ChatGPT conversation of one exchange whose answer ``slug`` gave."""
    return {"conversation_id": cid, "title": cid, "create_time": 1000.0, "update_time": 1001.0, "current_node": "b",
            "mapping": {"r": node("r", None, ["a"]), "a": node("a", "r", ["b"], "user", f"question {cid}", 1000.0),
                        "b": node("b", "a", [], "assistant", "answer", 1001.0, metadata={"model_slug": slug})}}


def test_follow_ups_of_imported_conversations_use_a_model_that_exists(fake, tmp_path, store_path):
    """Issue 13, defect 1: an imported answer's provider is the tool it came
    from (chatgpt, llm), not a provider: a well-known model a provider here
    serves is asked as that model; another goes to the next in line, said."""
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([exported("known", "gpt-4o"), exported("unknown", "text-davinci-002-render-sha")]))
    ok("import", "--from", "chatgpt", str(path))
    by_title = {c["title"]: c["id"] for c in json.loads(ok("list", "--json").stdout)}

    done = ok("ask", "--cid", by_title["known"], "more")
    assert fake.requests[-1]["model"] == "gpt-4o" and done.stderr.decode() == ""
    preview = json.loads(ok("ask", "--cid", by_title["unknown"], "--dry-run", "--json", "more").stdout)
    assert preview["chosen_by"] != "the conversation's model"
    done = ok("ask", "--cid", by_title["unknown"], "more")
    assert fake.requests[-1]["model"] == "gpt-4o-mini"
    assert ("model text-davinci-002-render-sha came with it from chatgpt, and no provider here serves it"
            in done.stderr.decode())
    turns = json.loads(ok("show", by_title["unknown"], "--json").stdout)["turns"]
    assert turns[1]["model"] == "text-davinci-002-render-sha" and turns[1]["provider"] == "chatgpt"  # the record stays
    ok("retry", by_title["known"])
    assert fake.requests[-1]["model"] == "gpt-4o"


def test_a_model_of_another_vendor_is_not_asked_of_openais_own_service(tmp_path, store_path):
    """Found by a new user: a Gemini CLI session followed up with only OPENAI_API_KEY set went to
    api.openai.com as openai:gemini-…; OpenAI's own service serves OpenAI's models, a server at
    OPENAI_BASE_URL may serve any."""
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([exported("theirs", "gemini-2.5-pro"), exported("ours", "gpt-4o")]))
    ok("import", "--from", "chatgpt", str(path))
    by_title = {c["title"]: c["id"] for c in json.loads(ok("list", "--json").stdout)}
    openai_only = {"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": ""}
    theirs = json.loads(ok("ask", "--cid", by_title["theirs"], "--dry-run", "--json", "more", env=openai_only).stdout)
    assert theirs["chosen_by"] != "the conversation's model", theirs
    ours = json.loads(ok("ask", "--cid", by_title["ours"], "--dry-run", "--json", "more", env=openai_only).stdout)
    assert ours["chosen_by"] == "the conversation's model" and ours["model"] == "gpt-4o", ours
    served = {"OPENAI_API_KEY": "sk-x", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    theirs = json.loads(ok("ask", "--cid", by_title["theirs"], "--dry-run", "--json", "more", env=served).stdout)
    assert theirs["chosen_by"] == "the conversation's model", theirs
