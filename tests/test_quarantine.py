"""A commit's new objects wait in a quarantine inside the store until the
pre-commit hook has let them through: a refused secret, Ctrl-C or a killed
writer leaves no object behind, which the real git CLI confirms
(``git cat-file --batch-all-objects``, ``git fsck --strict``)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import conv_env, fails, fsck_clean, git, ok

KEY = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"


def object_ids(store: Path) -> set[str]:
    listed = git(store, "cat-file", "--batch-all-objects", "--batch-check")
    return {line.split()[0] for line in listed.splitlines()}


def every_object(store: Path) -> bytes:
    """The content of every object in the store, loose or packed, as git reads it."""
    return subprocess.run(["git", "-C", str(store), "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout


def files_in(store: Path) -> set[str]:
    return {str(p.relative_to(store)) for p in store.rglob("*") if p.is_file()}


def waiting(store: Path) -> list[Path]:
    """The objects waiting in the store's quarantine."""
    return [p for p in (store / "quarantine").rglob("*") if p.is_file()]


@pytest.mark.parametrize("where", ["question", "title"])
def test_a_refused_secret_leaves_no_object(fake, store_path, where):
    fake.set(reply="ECHO")
    ok("hooks", "install", "pre-commit")
    cid = json.loads(ok("ask", "--json", "an ordinary start").stdout)["conversation"]
    head, objects = git(store_path, "rev-parse", "HEAD"), object_ids(store_path)
    files, sent = files_in(store_path), len(fake.requests)

    if where == "question":
        line = fails("ask", "--cid", cid, f"why is {KEY} rejected?", code=1)
    else:
        line = fails("title", cid, f"key {KEY}", code=1)
    assert "so it was not stored" in line and KEY not in line

    assert git(store_path, "rev-parse", "HEAD") == head and len(fake.requests) == sent
    assert object_ids(store_path) == objects  # not one new object, loose or packed
    assert KEY.encode() not in every_object(store_path)
    assert files_in(store_path) - files == set()  # nothing waiting in the quarantine, no lock, nothing
    fsck_clean(store_path)


def hook_that_waits(store: Path, marker: Path) -> None:
    """A pre-commit hook that says it started, then takes its time."""
    hook = store / "hooks" / "pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text(f"#!/bin/sh\ntouch '{marker}'\nsleep 30\n")
    hook.chmod(0o755)


def start_ask(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "conv", "ask", "--json", *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=conv_env(), start_new_session=True)


def wait_for(path: Path, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while not path.exists():
        assert process.poll() is None, process.communicate()[1].decode()
        assert time.monotonic() < deadline, "the hook never ran"
        time.sleep(0.02)


def test_a_writer_killed_while_its_objects_wait_leaves_nothing_the_next_writer_keeps(fake, store_path, tmp_path):
    """SIGKILL while the hook judges: the quarantine stays behind (nothing can
    clean up after SIGKILL), none of it is in the object store, and the next
    writer removes it."""
    fake.set(reply="ECHO")
    cid = json.loads(ok("ask", "--json", "start").stdout)["conversation"]
    objects = object_ids(store_path)
    marker = tmp_path / "hook-started"
    hook_that_waits(store_path, marker)
    victim = start_ask("--cid", cid, "killed while judged")
    wait_for(marker, victim)
    os.killpg(victim.pid, signal.SIGKILL)  # conv and its hook
    victim.communicate(timeout=10)
    left = waiting(store_path)
    assert len(left) >= 3  # the question's blob, its trees and the commit waited there
    assert object_ids(store_path) == objects
    assert b"killed while judged" not in every_object(store_path)

    (store_path / "hooks" / "pre-commit").unlink()
    assert json.loads(ok("ask", "--json", "--cid", cid, "after").stdout)["answer"] == "after"
    assert waiting(store_path) == []
    assert b"killed while judged" not in every_object(store_path)
    fsck_clean(store_path)


def test_ctrl_c_while_the_hook_judges_removes_the_quarantine(fake, store_path, tmp_path):
    fake.set(reply="ECHO")
    cid = json.loads(ok("ask", "--json", "start").stdout)["conversation"]
    objects, head = object_ids(store_path), git(store_path, "rev-parse", "HEAD")
    marker = tmp_path / "hook-started"
    hook_that_waits(store_path, marker)
    victim = start_ask("--cid", cid, "interrupted while judged")
    wait_for(marker, victim)
    victim.send_signal(signal.SIGINT)
    _, err = victim.communicate(timeout=20)
    assert victim.returncode == 130, err.decode()
    assert b"Traceback" not in err
    assert waiting(store_path) == []
    assert object_ids(store_path) == objects and git(store_path, "rev-parse", "HEAD") == head
    fsck_clean(store_path)


# -- many objects: one pack ------------------------------------------------------------------------

def many_conversations(path: Path, count: int, secret_in: int | None = None) -> Path:
    """A ChatGPT export of COUNT two-turn conversations (the key in one of them)."""
    out = []
    for c in range(count):
        words = f"question {c} about packs" + (f" and {KEY}" if c == secret_in else "")
        mapping = {"root": {"id": "root", "parent": None, "children": ["q"], "message": None},
                   "q": {"id": "q", "parent": "root", "children": ["a"], "message": {
                       "id": "q", "author": {"role": "user"}, "create_time": 1_700_000_000 + c,
                       "content": {"content_type": "text", "parts": [words]}}},
                   "a": {"id": "a", "parent": "q", "children": [], "message": {
                       "id": "a", "author": {"role": "assistant"}, "create_time": 1_700_000_001 + c,
                       "content": {"content_type": "text", "parts": [f"answer {c}"]}}}}
        out.append({"conversation_id": f"c-{c}", "title": f"packs {c}", "create_time": 1_700_000_000 + c,
                    "current_node": "a", "mapping": mapping})
    path.write_text(json.dumps(out))
    return path


def test_a_big_commit_goes_in_as_one_pack(store_path, tmp_path):
    """Issue 15: an import's thousands of objects were written as loose files one by
    one (3.4 s of a 6.4 s import); a commit of many objects is one pack now."""
    ok("import", "--from", "chatgpt", str(many_conversations(tmp_path / "c.json", 120)))
    packs = list((store_path / "objects" / "pack").glob("*.pack"))
    loose = [p for p in (store_path / "objects").glob("??/*")]
    assert len(packs) == 1 and len(loose) < 20, (packs, len(loose))
    assert int(git(store_path, "count-objects", "-v").split("in-pack: ")[1].split()[0]) > 300
    fsck_clean(store_path)
    assert waiting(store_path) == []
    shown = json.loads(ok("list", "--json", "-n", "200").stdout)
    assert len(shown) == 120
    one = json.loads(ok("show", shown[0]["id"], "--json").stdout)
    assert [t["content"] for t in one["turns"]][-1].startswith("answer ")


def test_a_refused_secret_in_a_big_commit_leaves_no_pack(store_path, tmp_path):
    ok("import", "--from", "chatgpt", str(many_conversations(tmp_path / "first.json", 1)))
    hook = store_path / "hooks" / "pre-commit"  # a hook of the user's that refuses the whole import, as it may
    hook.write_text('#!/bin/sh\ncase "$CONV_COMMIT_MESSAGE" in import*) echo "no imports today" >&2; exit 1;; esac\n')
    hook.chmod(0o755)
    objects, files = object_ids(store_path), files_in(store_path)
    line = fails("import", "--from", "chatgpt", str(many_conversations(tmp_path / "c.json", 120, secret_in=77)), code=1)
    assert "refused the commit: no imports today" in line and KEY not in line
    assert object_ids(store_path) == objects and waiting(store_path) == []
    assert files_in(store_path) - files <= {"quarantine"}, files_in(store_path) - files
    assert KEY.encode() not in every_object(store_path)
    fsck_clean(store_path)
