"""One suite every source passes (issue 45), as git-bug runs one repository
suite over each implementation: each source's sample (samples/<tool>.py), a
session in its real shape, is imported once and a second import adds
nothing; what its answers did and spent is kept as data; each folder
declares whole parts (sources/contract.py). test_hostile_files.py feeds
every source's shape hostile values; test_every_hook.py connects every tool
with hooks and captures through them."""

import json

import pytest
from conftest import fsck_clean, ok
from samples import SAMPLES

from conv import sources
from conv.sources.contract import check


def imported(name: str, path, **kw) -> dict:
    return json.loads(ok("import", "--from", name, str(path), "--json", **kw).stdout)


def holding(word: str) -> dict:
    """The stored conversation one of whose turns says ``word``."""
    for listed in json.loads(ok("list", "--json").stdout):
        shown = json.loads(ok("show", listed["id"], "--json").stdout)
        if any(word in turn["content"] for turn in shown["turns"]):
            return shown
    raise AssertionError(f"no conversation says {word!r}")


def test_every_source_of_the_registry_has_a_sample_and_a_whole_folder():
    assert sources.problems() == []
    assert sorted(SAMPLES) == sorted(sources.NAMES)


def test_a_part_missing_a_function_is_named_when_its_folder_is_checked(tmp_path, monkeypatch):
    tool = tmp_path / "half_a_tool"
    tool.mkdir()
    (tool / "__init__.py").write_text("from conv.sources.contract import Source\n"
                                      "SOURCE = Source('half', 'Half', __name__, ('reader', 'hook'))\n")
    (tool / "reader.py").write_text("from conv.importers.boundary import Reader\nfrom . import SOURCE\n"
                                    "READER = Reader(SOURCE)\n")
    (tool / "hook.py").write_text("from conv.sources.contract import Hook\n"
                                  "class Half(Hook):\n"
                                  "    def handed(self, args, stdin):\n        return None\n"
                                  "    def session_file(self, job):\n        return None\n"
                                  "HOOK = Half()\n")  # no job(): what the capture calls first
    monkeypatch.syspath_prepend(str(tmp_path))
    import half_a_tool

    (lacking,) = check(half_a_tool.SOURCE)
    assert lacking.startswith("half: its hook cannot be loaded") and "job" in lacking


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_a_session_in_its_real_shape_is_imported_once(name, tmp_path, store_path):
    sample = SAMPLES[name]
    path = sample.write(tmp_path / "tool")
    done = imported(name, path)
    assert done["skipped"] == [] and done["added"] == sample.expect.conversations + (sample.other is not None), done
    conv = holding(sample.expect.words[0])
    assert [t["role"] for t in conv["turns"]] == sample.expect.roles, conv["turns"]
    said = "\n".join(t["content"] for t in conv["turns"])
    assert all(word in said for word in sample.expect.words), said
    assert conv.get("imported_from", {"source": "conv"})["source"] == name  # (conv's export keeps its own fields)
    again = imported(name, path)
    assert (again["added"], again["turns_added"], again["turns_updated"], again["forks"]) == (0, 0, 0, []), again
    fsck_clean(store_path)


@pytest.mark.parametrize("name", sorted(n for n, s in SAMPLES.items() if s.expect.usage or s.expect.edits
                                        or s.expect.commands))
def test_what_each_answer_did_and_spent_is_kept_as_data(name, tmp_path):
    sample = SAMPLES[name]
    imported(name, sample.write(tmp_path / "tool", other=False))
    answers = [t for t in holding(sample.expect.words[0])["turns"] if t["role"] == "assistant"]
    if sample.expect.usage:
        spent = {key: sum(t.get("usage", {}).get(key, 0) for t in answers) for key in sample.expect.usage}
        assert spent == pytest.approx(sample.expect.usage), [t.get("usage") for t in answers]
    assert [(e["path"], e["kind"]) for t in answers for e in t.get("edits", [])] == sample.expect.edits
    assert [c["command"] for t in answers for c in t.get("commands", [])] == sample.expect.commands
    for edit in (e for t in answers for e in t.get("edits", [])):
        assert edit.get("before") is not None or edit.get("after") is not None or edit["kind"] == "delete", edit


def test_every_list_of_tools_a_person_or_an_agent_sees_is_the_registrys(capsys):
    """Help texts, completion, the MCP schema and the docs name the tools the registry has (a new tool is a folder
    and a line of NAMES: nothing else to keep in step)."""
    from pathlib import Path

    from conv.cli.run import complete, mcp

    readers = [s.name for s in sources.every("reader")]
    connected = [s.name for s in sources.every("settings")]
    handed = [s.name for s in sources.every("handoff")]
    for command, names in ((["import"], readers), (["connect"], connected), (["handoff"], handed)):
        said = " ".join(ok(*command, "--help", env={"COLUMNS": "400"}).stdout.decode().split())
        assert all(name in said for name in names), (command, said)
    assert [n for n, _ in complete.candidates(["import", "--from", ""])] == [*readers, "project"]
    assert [n for n, _ in complete.candidates(["connect", ""])] == [*connected, "all"]
    assert [n for n, _ in complete.candidates(["handoff", "--to", ""])] == handed
    described = mcp.FILTERS["source"]["description"]
    assert all(name in described for name in readers), described
    docs = (Path(__file__).parents[2] / "docs" / "usage.md").read_text()
    assert all(f"conv import --from {name}" in docs for name in readers), "docs/usage.md names each"
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith("| `conv export"))
    assert all(name in row for name in readers), row
    connect_row = next(line for line in readme.splitlines() if line.startswith("| `conv connect"))
    assert all(name in connect_row for name in connected), connect_row
