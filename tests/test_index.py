"""The index is a cache: deleted, corrupted or stale, it answers as git says."""

import json
import shutil

import pytest
from conftest import git, run_conv


def listing():
    done = run_conv("list", "--json")
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def test_rebuilt_index_answers_as_the_incremental_one(fake, conv_home):
    for n in range(5):
        run_conv("ask", f"topic {n}")
        run_conv("ask", "-c", f"more {n}")
    before = listing()
    index = conv_home / "cache" / "index.sqlite"
    index.unlink()
    assert listing() == before
    index.write_bytes(b"this is not a database" * 100)
    assert listing() == before
    data = bytearray(index.read_bytes())
    assert len(data) > 4096
    data[4096:] = b"\xff" * (len(data) - 4096)  # a valid header, every table page garbage
    index.write_bytes(bytes(data))
    assert listing() == before


def test_changes_made_with_git_show_up(fake, store_path, tmp_path):
    conv_id = json.loads(run_conv("ask", "--json", "original title").stdout)["conversation"]
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(store_path), str(work))
    meta = next(work.glob(f"conversations/*/*/{conv_id}/conversation.md"))
    meta.write_text(meta.read_text().replace("title: original title", "title: edited with git"))
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "retitle")
    git(work, "push", "-q", "origin", "HEAD:main")
    assert [c["title"] for c in listing()] == ["edited with git"]
    git(work, "rm", "-rq", meta.parent.relative_to(work).as_posix())
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "remove")
    git(work, "push", "-q", "origin", "HEAD:main")
    assert listing() == []


@pytest.mark.parametrize("damage", ["index is a directory", "cache is a file"])
def test_an_index_that_cannot_be_used_never_stops_conv(fake, conv_home, store_path, damage):
    """The index is a cache: where it cannot be, conv works from the store
    (an index in memory for that run) and says once, in one line, what to do."""
    fake.set(reply="ECHO")
    cid = json.loads(run_conv("ask", "--json", "how does rebase work?").stdout)["conversation"]
    before = listing()
    cache = conv_home / "cache"
    index = cache / "index.sqlite"
    if damage == "index is a directory":
        shutil.rmtree(cache)
        index.mkdir(parents=True)
        (index / "notes.txt").write_text("someone's file")
        expected = (f"conv: the index {index} cannot be used (it is a directory); ", f"Remove it: rm -r {index}")
    else:
        shutil.rmtree(cache)
        cache.write_text("someone's file")
        expected = (f"conv: the index {index} cannot be used ({cache} is a file, not a folder); ",
                    f"Move that file away: mv {cache} {cache}.old")

    def said_once(done) -> None:
        assert done.returncode == 0, done.stderr.decode()
        lines = done.stderr.decode().splitlines()
        assert len(lines) == 1 and lines[0].startswith(expected[0]) and lines[0].endswith(expected[1]), lines

    done = run_conv("list", "--json")
    said_once(done)
    assert json.loads(done.stdout) == before
    done = run_conv("ask", "--json", "--cid", cid, "and interactive mode?")
    said_once(done)
    assert json.loads(done.stdout)["answer"] == "and interactive mode?"
    assert "and interactive mode?" in git(store_path, "log", "-p", "-1", "HEAD~1")
    done = run_conv("search", "--json", "interactive")
    said_once(done)
    assert cid in done.stdout.decode()
    done = run_conv("show", cid)
    said_once(done)
    assert "and interactive mode?" in done.stdout.decode()
    # what was there is left as it was: conv does not remove what it did not make
    if damage == "index is a directory":
        assert (index / "notes.txt").read_text() == "someone's file"
    else:
        assert cache.read_text() == "someone's file"
