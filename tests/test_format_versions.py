"""The on-disk format's version is read (issue 24, part 4). A store written
by the landed conv of format 1 (tests/data/store-format-1.bundle: made by
conv at 7e9dcb9 against the loopback fake: a conversation asked, followed
up, titled, tagged, marked done, summarized, retried with a hint and forked
at turn 2; one with a system prompt; one in Chinese; one deleted) reads and
grows as it did; a conversation written by a newer conv is refused with a
clear message and left as it is, and the rest of the store still works."""

import json
import os
import subprocess
from pathlib import Path

from conftest import fails, git, ok

from conv.format.model import FORMAT_VERSION

BUNDLE = Path(__file__).parent / "data" / "store-format-1.bundle"
REBASE, FORK = "n3md3v8ma20m", "0k1va7hta2ax"


def landed_store(store_path: Path) -> None:
    subprocess.run(["git", "clone", "-q", "--bare", str(BUNDLE), str(store_path)], check=True)


def test_a_store_of_format_1_written_by_the_landed_conv_reads_and_grows(fake, store_path):
    landed_store(store_path)
    listed = {c["id"]: c for c in json.loads(ok("list", "--json").stdout)}
    assert set(listed) >= {REBASE, FORK} and len(listed) == 4
    rebase = json.loads(ok("show", REBASE, "--json").stdout)
    assert rebase["title"] == "rebase notes" and rebase["tags"] == ["git", "notes"] and rebase["status"] == "done"
    assert rebase["turns"][-1]["content"] == "A second answer about rebase." and rebase["turns"][-1]["hint"]
    assert json.loads(ok("show", FORK, "--json").stdout)["forked_from"]["conversation"] == REBASE
    assert "print hello" in ok("search", "hello").stdout.decode()
    assert [c["id"] for c in json.loads(ok("list", "--deleted", "--json").stdout)] == ["h8wyeg0vy720"]
    ok("ask", "--cid", REBASE, "and with autosquash?")  # it grows, in the same format
    assert json.loads(ok("show", REBASE, "--json").stdout)["turn_count"] == 6
    git(store_path, "fsck", "--strict")


def test_a_conversation_written_by_a_newer_conv_is_refused_clearly_and_the_rest_works(fake, store_path):
    landed_store(store_path)
    meta_path = next(p for p in git(store_path, "ls-tree", "-r", "--name-only", "HEAD").split()
                     if REBASE in p and p.endswith("/conversation.md"))
    newer = git(store_path, "show", f"HEAD:{meta_path}").replace("format: 1", f"format: {FORMAT_VERSION + 1}")
    blob = subprocess.run(["git", "-C", str(store_path), "hash-object", "-w", "--stdin"], input=newer,
                          capture_output=True, text=True, check=True).stdout.strip()
    index = store_path.parent / "scratch-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(index)}
    for args in (["read-tree", "HEAD"], ["update-index", "--cacheinfo", f"100644,{blob},{meta_path}"]):
        subprocess.run(["git", "-C", str(store_path), *args], env=env, check=True)
    tree = subprocess.run(["git", "-C", str(store_path), "write-tree"], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()
    head = git(store_path, "rev-parse", "HEAD").strip()
    commit = git(store_path, "commit-tree", tree, "-p", head, "-m", "a newer conv wrote this").strip()
    git(store_path, "update-ref", "refs/heads/main", commit, head)
    line = fails("show", REBASE, code=1)
    assert (f"was written by a newer conv (format {FORMAT_VERSION + 1}; this one reads up to {FORMAT_VERSION})"
            in line and "Upgrade conv" in line)
    assert "was written by a newer conv" in fails("ask", "--cid", REBASE, "more", code=1)
    assert git(store_path, "show", f"HEAD:{meta_path}") == newer  # left as it is
    ok("ask", "--cid", FORK, "the fork still answers")
    listed = ok("list").stdout.decode()
    assert FORK[:6] in listed and f"written by a newer conv (format {FORMAT_VERSION + 1}" in listed  # named, not hidden


IMPORTS = Path(__file__).parent / "data" / "store-format-1-imports.bundle"  # made by conv at 2c8b16a (format 1)


def test_a_format_1_import_reads_as_summed_until_its_session_is_read_again_in_classes(tmp_path, store_path):
    """tests/data/store-format-1-imports.bundle holds the Claude Code sample of tests/sources/samples and its
    other session, imported by the landed conv of format 1 (the cache's tokens summed into prompt_tokens).
    Read, such an answer says so (summed); the next import of a session still on disk writes it again in its
    classes (the tool's session is the authority over its turns), and one whose file is gone stays said."""
    import sys

    sys.path.insert(0, str(Path(__file__).parent / "sources"))
    from samples.claude_code import SAMPLE

    subprocess.run(["git", "clone", "-q", "--bare", str(IMPORTS), str(store_path)], check=True)
    before = [json.loads(ok("show", c["id"], "--json").stdout) for c in json.loads(ok("list", "--json").stdout)]
    answers = [t for c in before for t in c["turns"] if t["role"] == "assistant" and t.get("usage")]
    assert len(answers) == 2 and all(t["usage"].get("summed") for t in answers)
    assert all("cache_read_tokens" not in t["usage"] for t in answers)
    SAMPLE.write(tmp_path / "claude", other=False)  # the main session's file is still there; the other's is gone
    done = json.loads(ok("import", "--from", "claude-code", str(tmp_path / "claude" / "projects"), "--json").stdout)
    assert (done["added"], done["turns_updated"]) == (0, 1), done
    listed = json.loads(ok("list", "--json").stdout)
    after = {c["title"]: json.loads(ok("show", c["id"], "--json").stdout) for c in listed}
    main = after["Retry in fetch.py"]["turns"][1]["usage"]
    assert (main["cache_read_tokens"], main["cache_write_tokens"]) == (SAMPLE.expect.usage["cache_read_tokens"],
                                                                       SAMPLE.expect.usage["cache_write_tokens"])
    assert "summed" not in main and after["Retry in fetch.py"]["turns"][1]["edits"]
    other = next(c for title, c in after.items() if title != "Retry in fetch.py")["turns"][1]["usage"]
    assert other.get("summed") is True
    git(store_path, "fsck", "--strict")
