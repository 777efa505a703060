"""conv export --all: every conversation (or those the filters keep) as
Markdown files, one JSON list (read back by conv import --from conv), or
JSONL in OpenAI's and ShareGPT's shapes, as fine-tuning tools read them."""

import json
import subprocess

from conftest import fails, ok
from test_sync import Machine


def three(fake) -> list[str]:
    fake.set(reply="ECHO")
    ids = [json.loads(ok("ask", "--json", "-s", "Be brief.", "first question").stdout)["conversation"]]
    ok("ask", "-c", "first follow-up")
    ids += [json.loads(ok("ask", "--json", "-n", f"question {n}").stdout)["conversation"] for n in (2, 3)]
    ok("tag", ids[0], "+work")
    ok("tag", ids[2], "+work")
    return ids


def test_markdown_files_one_a_conversation_and_the_filters(fake, tmp_path):
    ids = three(fake)
    assert "3 conversations written to" in ok("export", "--all", "-o", str(tmp_path / "all")).stderr.decode()
    assert sorted(p.stem for p in (tmp_path / "all").iterdir()) == sorted(ids)
    first = (tmp_path / "all" / f"{ids[0]}.md").read_text()
    assert "first question" in first and "first follow-up" in first
    ok("export", "--all", "--tag", "work", "-o", str(tmp_path / "work"))
    assert sorted(p.stem for p in (tmp_path / "work").iterdir()) == sorted([ids[0], ids[2]])


def test_jsonl_for_fine_tuning_and_a_json_list_another_store_imports(fake, tmp_path):
    ids = three(fake)
    lines = [json.loads(line) for line in ok("export", "--all", "--format", "openai").stdout.decode().splitlines()]
    assert len(lines) == 3 and all(set(line) == {"messages"} for line in lines)
    first = next(line["messages"] for line in lines if line["messages"][1]["content"] == "first question")
    assert [m["role"] for m in first] == ["system", "user", "assistant", "user", "assistant"]
    ok("export", "--all", "--format", "sharegpt", "-o", str(tmp_path / "share.jsonl"))
    shared = [json.loads(line) for line in (tmp_path / "share.jsonl").read_text().splitlines()]
    record = next(r for r in shared if r["id"] == ids[0])
    assert [t["from"] for t in record["conversations"]] == ["system", "human", "gpt", "human", "gpt"]
    assert record["conversations"][1]["value"] == "first question"

    ok("export", "--all", "--format", "json", "-o", str(tmp_path / "all.json"))
    other = Machine(tmp_path, "other")
    done = json.loads(other.ok("import", "--from", "conv", str(tmp_path / "all.json"), "--json").stdout)
    assert (done["found"], done["added"], done["turns_added"]) == (3, 3, 9)  # a system prompt, then 2+2, 2, 2


def test_what_goes_together_and_what_does_not(fake, tmp_path):
    three(fake)
    assert "-o DIR" in fails("export", "--all", code=2)
    assert "--tag, --since, --here and -o go with --all" in fails("export", "--tag", "work", code=2)
    assert "not both" in fails("export", "--all", "abc", "--format", "json", code=2)


def test_an_export_imported_into_another_store_loses_nothing(fake, tmp_path):
    """conv's own JSON export is how conversations move between stores: the
    other store holds them with the same ids, turn names and every field
    (tags, status, summary, agent, the fork's origin, where an import came
    from, so --here still finds it)."""
    from test_import_hostile import CLAUDE, write

    project = tmp_path / "proj"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    ok("config", "set", "agents.coder.system", "You write code.")
    asked = json.loads(ok("ask", "--json", "-a", "coder", "a question in the project", cwd=project).stdout)
    conv = asked["conversation"]
    ok("tag", conv, "+work", "+later")
    ok("status", conv, "paused")
    ok("summary", conv, "what it was about")
    fork = json.loads(ok("fork", conv, "--at", "1", "--json").stdout)["id"]
    session = CLAUDE[:1] + [{**CLAUDE[3], "parentUuid": "u1"}]
    session[0] = {**session[0], "cwd": str(project)}
    ok("import", "--from", "claude-code", str(write("claude-code", tmp_path / "cc", session)))
    ok("export", "--all", "--format", "json", "--no-redact", "-o", str(tmp_path / "all.json"))  # a backup
    before = {c["id"]: json.loads(ok("show", c["id"], "--json").stdout)
              for c in json.loads(ok("list", "--json").stdout)}

    other = Machine(tmp_path, "other")
    done = json.loads(other.ok("import", "--from", "conv", str(tmp_path / "all.json"), "--json").stdout)
    assert done["added"] == 3
    after = {c["id"]: json.loads(other.ok("show", c["id"], "--json").stdout)
             for c in json.loads(other.ok("list", "--json").stdout)}
    assert after == before  # ids, turn names, every field
    assert after[fork]["forked_from"]["conversation"] == conv and after[conv]["tags"] == ["work", "later"]
    here = {c["id"] for c in json.loads(ok("list", "--here", "--json", cwd=project, env=other.env).stdout)}
    assert here == {c["id"] for c in json.loads(ok("list", "--here", "--json", cwd=project).stdout)}
    assert {conv, next(i for i in before if i not in (conv, fork))} <= here  # asked there; a session there


def test_where_an_export_goes_said_in_one_line_and_nothing_left_beside_it(fake, tmp_path):
    three(fake)
    folder = tmp_path / "out"
    folder.mkdir()
    for fmt, name in (("json", "conversations.json"), ("openai", "conversations.jsonl"),
                      ("sharegpt", "conversations.jsonl")):
        said = ok("export", "--all", "--format", fmt, "-o", str(folder)).stderr.decode()
        assert f"3 conversations written to {folder / name}" in said and (folder / name).is_file()
    made = tmp_path / "made"
    ok("export", "--all", "--format", "json", "-o", f"{made}/")  # a trailing slash: a folder, made
    assert (made / "conversations.json").is_file()
    existing = tmp_path / "a-file.md"
    existing.write_text("mine")
    assert "is a file" in fails("export", "--all", "-o", str(existing), code=1)
    assert existing.read_text() == "mine"
    said = fails("export", "--all", "--format", "json", "-o", "/proc/nope/x", code=1)
    assert "cannot write /proc/nope/x" in said or "/proc/nope" in said
    conv = json.loads(ok("list", "--json").stdout)[0]["id"]
    page = ok("share", conv, "-o", str(folder)).stdout.decode().strip()
    assert page.startswith(str(folder)) and page.endswith(".html")
    left = [p.name for p in tmp_path.rglob(".*.tmp")]
    assert left == []  # no hidden copy of every conversation beside a target
