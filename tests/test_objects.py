"""store/repo/objects.py reads git's formats itself (the follow-up's path no longer
imports dulwich): every object of real stores, loose and packed the ways git
packs them, must read back exactly as `git cat-file` shows it."""

import subprocess
from pathlib import Path

import pytest
from conftest import git, ok

from conv.store.repo.objects import Objects, commit_content, object_id, parse_commit, parse_tree, tree_content


def every_object(store: Path) -> dict[str, tuple[bytes, bytes]]:
    """Every object of the store as git reads it: id -> (type, content)."""
    out = subprocess.run(["git", "--git-dir", str(store), "cat-file", "--batch-all-objects", "--batch"],
                         capture_output=True, check=True).stdout
    found, at = {}, 0
    while at < len(out):
        end = out.index(b"\n", at)
        sha, kind, size = out[at:end].split()
        at = end + 1
        found[sha.decode()] = (kind, out[at : at + int(size)])
        at += int(size) + 1
    return found


def assert_reads_like_git(store: Path) -> int:
    expected = every_object(store)
    objects = Objects(str(store / "objects"))
    try:
        for sha, want in expected.items():
            assert objects.read(sha) == want, sha
    finally:
        objects.close()
    return len(expected)


@pytest.fixture
def store(fake, store_path):
    """A store with some history: turns of several conversations, answers of many
    sizes, so a repack finds deltas between trees and between blobs."""
    for n in range(12):
        fake.set(reply=("word %d " % n) * (40 * n + 1))
        ok("ask", "--new" if n % 3 == 0 else "-c", f"question {n} " + "about packing " * n)
    return store_path


PACKINGS = {
    "loose": [],
    "gc": [["gc", "--quiet"]],
    "deep deltas": [["-c", "pack.window=250", "repack", "-adf", "--depth=250", "--quiet"]],
    # REF_DELTA entries (a base named by its id) instead of offsets into the pack
    "ref deltas": [["-c", "repack.useDeltaBaseOffset=false", "repack", "-adf", "--quiet"]],
}


@pytest.mark.parametrize("packing", list(PACKINGS))
def test_every_object_reads_as_git_reads_it(store, packing):
    for args in PACKINGS[packing]:
        git(store, *args)
    packs = list((store / "objects" / "pack").glob("*.pack"))
    assert bool(packs) == (packing != "loose")
    assert assert_reads_like_git(store) > 50


def test_large_offsets_in_the_index(store):
    """Past 2 GiB a pack index holds 8-byte offsets in a table of their own;
    git index-pack can be told to use it for every object past a small offset."""
    git(store, "gc", "--quiet")
    [pack] = (store / "objects" / "pack").glob("*.pack")
    idx = pack.with_suffix(".idx")
    idx.chmod(0o644)
    idx.unlink()
    subprocess.run(["git", "index-pack", "--index-version=2,1024", str(pack)], check=True, capture_output=True)
    assert assert_reads_like_git(store) > 50


def test_a_missing_object_is_a_key_error_and_new_packs_are_found(store, tmp_path):
    objects = Objects(str(store / "objects"))
    with pytest.raises(KeyError):
        objects.read("0" * 40)
    sha = git(store, "rev-parse", "main").strip()
    assert objects.read(sha)[0] == b"commit"  # loose: no pack looked at yet
    git(store, "gc", "--quiet")  # now packed, the loose file gone
    assert objects.read(sha)[0] == b"commit" and objects.packed(sha)


def test_written_objects_are_what_git_would_write(store, tmp_path):
    """Trees in git's order and commits as dulwich wrote them (a store made by an
    earlier conv and one made now share their first commit's id)."""
    from dulwich.objects import Commit, Tree

    sha = git(store, "rev-parse", "main^{tree}").strip()
    objects = Objects(str(store / "objects"))
    kind, content = objects.read(sha)
    assert tree_content(parse_tree(content)) == content
    entries = {b"a.md": (0o100644, "1" * 40), b"a": (0o40000, "2" * 40), b"a-b": (0o100644, "3" * 40)}
    tree = Tree()
    for name, (mode, hexsha) in entries.items():
        tree.add(name, mode, hexsha.encode())
    assert tree_content(entries) == tree.as_raw_string()

    commit = Commit()
    commit.tree, commit.parents = b"4" * 40, [b"5" * 40, b"6" * 40]
    commit.author = commit.committer = b"conv <conv@localhost>"
    commit.author_time = commit.commit_time = 1767225600
    commit.author_timezone = commit.commit_timezone = 0
    commit.message = b"conv: a message\n\nwith a body\n"
    mine = commit_content("4" * 40, ["5" * 40, "6" * 40], b"conv <conv@localhost>", 1767225600, commit.message)
    assert mine == commit.as_raw_string()
    assert object_id(b"commit", mine) == commit.id.decode()


def test_commits_parse_as_git_logs_them(store):
    """Parents, committer time and message of every commit, against git log."""
    git(store, "gc", "--quiet")
    log = git(store, "log", "--format=%H %ct %P%x00%B%x00", "main").split("\0\n")
    objects = Objects(str(store / "objects"))
    checked = 0
    for record in filter(None, log):
        head, message = record.split("\0", 1)
        sha, when, *parents = head.split()
        assert parse_commit(objects.read(sha)[1]) == (parents, int(when), message.rstrip("\0").encode()), sha
        checked += 1
    assert checked > 12


def test_a_written_pack_is_one_git_verifies_and_reads(store):
    """packs.py's pack and index (what a big commit or a purge writes) pass
    git verify-pack, and git and Objects read every object back."""
    from conv.store.repo.packs import write_pack

    made = [(b"blob", f"blob {n} ".encode() * n) for n in range(300)] + [(b"blob", b"blob 1 ")]  # one twice
    made.append((b"tree", tree_content({b"a": (0o100644, object_id(*made[0])),
                                        b"d": (0o40000, object_id(b"tree", b""))})))
    made.append((b"tree", b""))
    pack, index = write_pack(str(store / "objects"), {object_id(*m): m for m in made})
    assert pack.endswith(".pack") and index.endswith(".idx")
    done = subprocess.run(["git", "verify-pack", "-v", index], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    objects = Objects(str(store / "objects"))
    for kind, content in made:
        sha = object_id(kind, content)
        assert objects.packed(sha) and objects.read(sha) == (kind, content)
        assert git(store, "cat-file", "-t", sha).strip() == kind.decode()
