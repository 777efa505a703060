"""conv export --all: every conversation (or those the filters keep) as
Markdown files, one JSON list (read back by conv import --from conv), or
JSONL in OpenAI's and ShareGPT's shapes, as fine-tuning tools read them."""

import json

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
