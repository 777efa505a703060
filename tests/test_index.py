"""The index is a cache: deleted, corrupted or stale, it answers as git says."""

import json

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
