"""The store's behaviour, run twice: on a bare repository on disk (checked
after each test by the real git's fsck) and on the in-memory storage of
memory_storage.py (its every object handed to the real git afterwards,
which must find the same ids and a sound repository). One suite, two
storages behind the interface conv.store.repo.disk describes: what the
conversation store does cannot depend on where the objects live.

Sync, purge, side refs pushed to a project and upkeep need the disk (the
git CLI, dulwich): test_sync.py, test_erase.py and test_project_refs.py."""

import subprocess
import threading
from pathlib import Path

import pytest
from conftest import fsck_clean, git
from memory_storage import MemoryStorage

from conv.errors import RefError, StoreError
from conv.format.model import Conversation, Turn
from conv.store import Incoming, Store
from conv.store.layout import STORE_README
from conv.store.repo.git import GitStore

DAY = "20261126"


class Storages:
    """Opening a store on either storage, and checking it afterwards with git."""

    def __init__(self, kind: str, tmp: Path):
        self.kind, self.tmp = kind, tmp

    def open(self, name: str = "store") -> Store:
        if self.kind == "disk":
            return Store(self.tmp / f"{name}.git")
        repo = GitStore(MemoryStorage())
        repo.plant(STORE_README)
        return Store(self.tmp / f"{name}-never-written", repo=repo)

    def object_count(self, store: Store) -> int:
        if self.kind == "memory":
            return len(store._repo.storage.objects.kept)
        return len(git(store.path, "cat-file", "--batch-all-objects", "--batch-check").splitlines())

    def check(self, store: Store) -> None:
        """git finds the repository sound (the memory one copied into git first, id for id)."""
        if self.kind == "disk":
            fsck_clean(store.path)
            return
        assert not store.path.exists()
        fsck_clean(into_git(store._repo.storage, self.tmp / "copy.git"))


def into_git(storage: MemoryStorage, path: Path) -> Path:
    """A bare repository holding every object and ref of ``storage``, each
    object hashed by git itself, which must agree on its id."""
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    for kind in (b"blob", b"tree", b"commit"):
        objects = {sha: content for sha, (k, content) in storage.objects.kept.items() if k == kind}
        files = []
        for n, (sha, content) in enumerate(objects.items()):
            files.append(path / f"{kind.decode()}-{n}")
            files[-1].write_bytes(content)
        written = subprocess.run(["git", "--git-dir", str(path), "hash-object", "-w", "-t", kind.decode(),
                                  "--stdin-paths"], input="".join(f"{f}\n" for f in files),
                                 capture_output=True, text=True, check=True).stdout.split()
        assert written == list(objects), f"git hashes these {kind.decode()}s otherwise"
        for f in files:
            f.unlink()
    for ref, sha in storage.refs.items():
        git(path, "update-ref", ref, sha)
    return path


@pytest.fixture(params=["disk", "memory"])
def storages(request, tmp_path):
    return Storages(request.param, tmp_path)


@pytest.fixture
def store(storages):
    opened = storages.open()
    yield opened
    storages.check(opened)


def conversation(conv_id: str = "c1a2b3c4d5e6", title: str = "rebase") -> Conversation:
    return Conversation(id=conv_id, created="2026-11-26T10:00:00Z", title=title)


def turn(n: int, role: str, text: str, parent: str | None = None, **attached: bytes) -> Turn:
    name = f"{DAY}-10{n:04d}.000-ab{n:02d}-{role}"
    files = [{"name": f, "file": f"{name}.{i}.txt", "type": "text/plain", "bytes": len(data)}
             for i, (f, data) in enumerate(attached.items(), 1)]
    return Turn(name, role, text, created=f"2026-11-26T10:{n // 60:02d}:{n % 60:02d}Z", parent=parent,
                files=files or None, attached={f["file"]: data for f, data in zip(files, attached.values())})


def ask(store: Store, conv_id: str, n: int, question: str, new: Conversation | None = None):
    """A question and its answer appended in one commit, as conv ask does."""
    return store.add_turns(conv_id, lambda parent: [turn(n, "user", question, parent),
                                                    turn(n + 1, "assistant", f"answer to {question}")],
                           f"{conv_id}: ask", new)


def test_a_conversation_reads_back_as_written(store):
    ask(store, "c1a2b3c4d5e6", 0, "what is a rebase?", conversation())
    written = ask(store, "c1a2b3c4d5e6", 2, "and a merge?")
    conv = store.read("c1a2b3c4d5e6")
    assert conv.title == "rebase"
    assert [(t.role, t.content) for t in conv.turns] == [
        ("user", "what is a rebase?"), ("assistant", "answer to what is a rebase?"),
        ("user", "and a merge?"), ("assistant", "answer to and a merge?")]
    assert conv.turns[2].parent == conv.turns[1].name  # a follow-up's parent is the newest turn
    assert written.names == sorted(t.name for t in conv.turns)
    assert store.head() == written.new and written.old != written.new
    assert list(store.conversation_ids()) == ["c1a2b3c4d5e6"]


def test_a_conversation_is_created_once_and_a_missing_one_is_not_appended_to(store, storages):
    ask(store, "c1a2b3c4d5e6", 0, "first", conversation())
    head, count = store.head(), storages.object_count(store)
    with pytest.raises(StoreError, match="already exists"):
        ask(store, "c1a2b3c4d5e6", 2, "again", conversation())
    with pytest.raises(RefError, match="not in the store"):
        ask(store, "zzzzzzzzzzzz", 2, "nowhere")
    assert store.head() == head  # a refused write leaves no commit
    assert storages.object_count(store) == count  # and no object


def test_a_change_keeps_what_a_person_added_to_the_yaml(store):
    ask(store, "c1a2b3c4d5e6", 0, "first", conversation())
    store.change("c1a2b3c4d5e6", lambda draft: (draft.conv.meta.update({"reviewed_by": "ana"}),
                                                draft.save_meta(), "hand-edited")[-1])

    def retitle(draft):
        draft.conv.title = "git rebase"
        draft.save_meta()
        return "c1a2b3c4d5e6: rename"

    written = store.change("c1a2b3c4d5e6", retitle)
    conv = store.read("c1a2b3c4d5e6")
    assert conv.title == "git rebase" and conv.meta["reviewed_by"] == "ana"
    assert written.names == [t.name for t in conv.turns]


def test_a_turn_removed_takes_its_files_with_it(store):
    store.add_turns("c1a2b3c4d5e6", lambda parent: [turn(0, "user", "see this", **{"notes.txt": b"hello"})],
                    "ask", conversation())
    name = store.read("c1a2b3c4d5e6").turns[0].name
    assert store.attachment("c1a2b3c4d5e6", f"{name}.1.txt") == b"hello"
    assert [path.rsplit("/", 1)[1] for path, _ in store.raw_files("c1a2b3c4d5e6")] == ["conversation.md", f"{name}.md"]
    store.change("c1a2b3c4d5e6", lambda draft: (draft.remove(name), "delete")[-1])
    assert store.read("c1a2b3c4d5e6").turns == []
    with pytest.raises(StoreError, match="has no file"):
        store.attachment("c1a2b3c4d5e6", f"{name}.1.txt")


def test_a_fork_shares_the_very_blobs_and_can_start_from_an_older_commit(store):
    ask(store, "c1a2b3c4d5e6", 0, "first", conversation())
    then = store.head()
    ask(store, "c1a2b3c4d5e6", 2, "second")
    names = [t.name for t in store.read("c1a2b3c4d5e6", then).turns]
    store.fork("c1a2b3c4d5e6", conversation("f0f1f2f3f4f5", "fork"), names, "fork", at=then,
               turns=[turn(9, "user", "elsewhere", names[-1])])
    source, fork = store.files("c1a2b3c4d5e6"), store.files("f0f1f2f3f4f5")
    assert all(fork[f"{n}.md"] == source[f"{n}.md"] for n in names)  # the same blob ids: nothing copied
    assert [t.content for t in store.read("f0f1f2f3f4f5").turns] == ["first", "answer to first", "elsewhere"]
    with pytest.raises(StoreError, match="no turn"):
        store.fork("c1a2b3c4d5e6", conversation("e0e1e2e3e4e5"), ["20990101-000000.000-zzzz-user"], "fork")


def test_an_import_adds_only_what_is_missing(store):
    first = [(conversation(f"i{n}a2b3c4d5e6"), [turn(0, "user", f"q{n}"), turn(1, "assistant", f"a{n}")])
             for n in range(3)]

    def ingest(items, message):
        return store.ingest([Incoming.of(conv, turns) for conv, turns in items], lambda done: message, True)

    done = ingest(first, "import")
    assert done.new is not None and sorted(done.added) == sorted(c.id for c, _ in first) and done.turns == 6
    again = ingest(first, "import again")
    assert (again.new, again.added, again.turns) == (None, [], 0)  # nothing new: no commit
    grown = [(first[0][0], [*first[0][1], turn(2, "user", "q0 again")])]
    done = ingest(grown, "import grown")
    assert done.added == [] and done.turns == 1
    assert [t.content for t in store.read("i0a2b3c4d5e6").turns][-1] == "q0 again"


def test_trash_and_back_move_the_folder_whole(store):
    ask(store, "c1a2b3c4d5e6", 0, "first", conversation())
    files = store.files("c1a2b3c4d5e6")
    store.move(["c1a2b3c4d5e6"], True, "delete")
    assert list(store.conversation_ids()) == [] and list(store.conversation_ids(trashed=True)) == ["c1a2b3c4d5e6"]
    assert store.files("c1a2b3c4d5e6", trashed=True) == files
    with pytest.raises(RefError):
        store.move(["c1a2b3c4d5e6"], True, "delete again")
    store.move(["c1a2b3c4d5e6"], False, "restore")
    assert store.files("c1a2b3c4d5e6") == files and store.has("c1a2b3c4d5e6")


def test_history_names_what_each_commit_touched(store):
    ask(store, "c1a2b3c4d5e6", 0, "first", conversation())
    ask(store, "d1a2b3c4d5e6", 0, "other", conversation("d1a2b3c4d5e6"))
    base = store.head()
    store.move(["c1a2b3c4d5e6", "d1a2b3c4d5e6"], True, "delete both")
    seen = [(info.message.strip(), touched) for info, touched in store.history(lambda sha: False)]
    assert seen == [("delete both", {"c1a2b3c4d5e6", "d1a2b3c4d5e6"}), ("d1a2b3c4d5e6: ask", {"d1a2b3c4d5e6"}),
                    ("c1a2b3c4d5e6: ask", {"c1a2b3c4d5e6"}), ("conv: create store", set())]
    assert store.changed_conversations(base, store.head()) == {"c1a2b3c4d5e6", "d1a2b3c4d5e6"}
    assert [info for info, _ in store.history(lambda sha: sha == base)][0].message.strip() == "delete both"


def test_ancestry_fast_forward_and_backups(store):
    repo = store._repo
    root = repo.head()
    a = ask(store, "c1a2b3c4d5e6", 0, "first", conversation()).new
    b = ask(store, "c1a2b3c4d5e6", 2, "second").new
    assert repo.is_ancestor(a, b) and not repo.is_ancestor(b, a)
    assert repo.merge_base(a, b) == a and repo.merge_base(root, b) == root
    backup = repo.keep_backup(b)
    repo.fast_forward(b, a)  # any compare-and-swap: the branch was at b
    assert repo.head() == a and store.head() == a
    assert repo.storage.ref(backup) == b
    with pytest.raises(StoreError, match="changed during the pull"):
        repo.fast_forward(b, a)  # the branch is not at b any more
    meta = next(path for path, _ in store.raw_files("c1a2b3c4d5e6"))
    assert repo.last_change(b, root, meta)[1] == a  # made by the first ask, untouched by the second


def test_a_side_commit_is_made_once_per_tree(store):
    ask(store, "c1a2b3c4d5e6", 0, "first", conversation())
    repo = store._repo
    folder = "conversations/" + store.raw_files("c1a2b3c4d5e6")[0][0].split("/", 1)[1].rsplit("/", 1)[0]
    placed = {folder: repo.snapshot().entry(folder)}
    first = repo.side_commit("refs/conv-published/ana", placed, "publish")
    assert repo.side_commit("refs/conv-published/ana", placed, "publish again") == first
    assert repo.storage.ref("refs/conv-published/ana") == first and repo.head() != first
    assert repo.snapshot(first).files(folder) == repo.snapshot().files(folder)


def test_writers_on_many_threads_lose_nothing(store):
    ask(store, "c1a2b3c4d5e6", 0, "first", conversation())
    failures = []

    def asker(worker: int):
        try:
            for n in range(5):
                ask(store_for_thread(store), "c1a2b3c4d5e6", 100 * (worker + 1) + 2 * n, f"w{worker}-{n}")
        except Exception as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=asker, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    asked = [t.content for t in store.read("c1a2b3c4d5e6").turns if t.role == "user"]
    assert sorted(asked) == sorted(["first", *(f"w{w}-{n}" for w in range(4) for n in range(5))])
    assert len(list(store._repo.walk(store.head()))) == 1 + 1 + 20


def store_for_thread(store: Store) -> Store:
    """A Store of its own for each thread, on the same repository (as each conv process has)."""
    return Store(store.location) if store._repo.storage.git_dir else Store(store.location, repo=store._repo)


def test_both_storages_build_the_same_objects(tmp_path):
    """The same writes give the same root commit and the same trees, object for object."""
    trees = {}
    for kind in ("disk", "memory"):
        storages = Storages(kind, tmp_path / kind)
        (tmp_path / kind).mkdir()
        store = storages.open()
        root = store._repo.head()  # (on disk, opening the repository creates it)
        ask(store, "c1a2b3c4d5e6", 0, "first", conversation())
        store.move(["c1a2b3c4d5e6"], True, "delete")
        trees[kind] = (root, store._repo.snapshot().tree, storages.object_count(store))
        storages.check(store)
    assert trees["disk"] == trees["memory"]
