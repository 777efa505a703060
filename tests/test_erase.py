"""Erase means erased, also after a sync (issue 11, section 1).

A purge removes a conversation from every ref conv keeps, from the object
database, the index and the files beside the store, and travels to the other
machines as a tombstone (``purged.txt``: ids, never text). ``conv remote
purge`` rewrites a remote with a lease. Machines are separate CONV_HOMEs,
remotes are bare repositories on disk and a real ``git daemon``; every check
is the real git CLI.
"""

import json
import subprocess

import pytest
from test_sync import Machine, bare, daemon, fsck_clean, git, no_git_path, one_error_line, rev, user_texts  # noqa: F401

SECRET = "zanzibarquokka"  # the purged conversation's text: found nowhere afterwards


# -- helpers ---------------------------------------------------------------------------


def all_objects(repo) -> bytes:
    """Every object in a repository, reachable or not, loose or packed."""
    return subprocess.run(["git", "-C", str(repo), "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout


def reachable_text(repo) -> str:
    """Every commit, message and file change reachable from any ref, reflogs included."""
    return git(repo, "log", "--all", "--reflog", "-p", "--format=%H %B", check=False)


def assert_erased(repo, *, also_objects: bool = True) -> None:
    assert SECRET not in reachable_text(repo), f"{repo}: a ref still reaches the purged text"
    if also_objects:
        assert SECRET.encode() not in all_objects(repo), f"{repo}: an object still holds the purged text"
    fsck_clean(repo)


def ids_listed(m: Machine, *extra) -> list[str]:
    return sorted(c["id"] for c in m.list_json(*extra))


# -- 1. the reproduction -----------------------------------------------------------


def test_purged_text_does_not_come_back_with_the_next_sync(fake, tmp_path):
    """conv ask --new SECRET; remote add; sync; delete; clean --purge; sync; list
    listed SECRET again: the remote-tracking ref still reached it and the sync
    fast-forwarded it back."""
    fake.set(reply="ECHO")
    remote = bare(tmp_path / "origin.git")
    a = Machine(tmp_path, "A")
    gone = a.ask("--new", f"the code word is {SECRET}")["conversation"]
    kept = a.ask("--new", "an ordinary question")["conversation"]
    a.ok("remote", "add", "origin", str(remote))
    a.ok("sync")
    a.ok("delete", gone)
    purged = a.ok("clean", "--purge", "--yes")
    said = purged.stderr.decode()
    assert f"erased: {gone}" in said
    assert "origin" in said and "conv remote purge origin" in said  # the remote still holds it
    assert_erased(a.store)

    done = a.run("sync")
    assert done.returncode == 4, done.stderr.decode()
    one_error_line(done, "origin", "conv remote purge origin")
    assert ids_listed(a) == [kept]
    assert SECRET not in a.ok("list").stdout.decode()
    assert a.run("search", SECRET).stdout.decode().strip() in ("", "[]")
    assert_erased(a.store)
    assert SECRET in reachable_text(remote)  # sync never forces: the remote keeps it until asked
    one_error_line(a.run("push"), "origin still holds purged conversations", "conv remote purge origin")
    pulled = a.ok("pull").stderr.decode()  # a pull succeeds, filtered, and says so
    assert "origin still holds purged conversations: conv remote purge origin erases them there" in pulled
    assert ids_listed(a) == [kept]
    assert_erased(a.store)

    rewritten = json.loads(a.ok("remote", "purge", "origin", "--json").stdout)
    assert rewritten["rewritten"] and rewritten["remote_pruned"]
    assert rev(remote, "refs/heads/main") == a.head()
    assert_erased(remote)
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(remote), str(clone)], check=True)
    assert SECRET.encode() not in subprocess.run(["git", "-C", str(clone), "grep", "-a", "-I", "-e", SECRET,
                                                  *git(clone, "rev-list", "--all").split()],
                                                 capture_output=True).stdout
    assert_erased(clone)
    assert git(remote, "show", "HEAD:purged.txt") == f"{gone}\n"  # ids only, sorted

    synced = a.sync()
    assert synced["pulled"] == "up to date" and not synced["pushed"]
    assert ids_listed(a) == [kept] and "an ordinary question" in user_texts(a.store)
    assert_erased(a.store)
    assert a.run("push").returncode == 0  # nothing held back any more


# -- 2. the filter: deterministic, composable ---------------------------------------------


def _filter(repo, purged, head: str) -> str:
    """The store's own filter, run in-process on the repository at ``repo``."""
    from dulwich.object_store import DiskObjectStore

    from conv.store.filter import Filter

    cut = Filter(repo, DiskObjectStore(str(repo / "objects")), purged)
    new = cut(head)
    cut.save()
    return new


def _copy(repo, to):
    subprocess.run(["git", "clone", "-q", "--mirror", str(repo), str(to)], check=True)
    return to


def _commits(repo, head: str, *paths) -> list[str]:
    """Author, committer, their times and the message of each commit from ``head`` (touching ``paths``)."""
    return git(repo, "log", "--format=%an %ae %at %cn %ce %ct %B%x00", head, "--", *paths).split("\0")[:-1]


def test_the_filter_is_deterministic_and_filtering_twice_equals_filtering_once(fake, tmp_path):
    """The same commit filtered on two machines gives the same new commit;
    filtering {X} then {Z} gives what filtering {X, Z} at once gives, for
    every pair of three conversations, over a history with merges and forks."""
    from conv.format.ids import conversation_path

    fake.set(reply="ECHO")
    remote = bare(tmp_path / "origin.git")
    a, b = Machine(tmp_path, "A"), Machine(tmp_path, "B")
    for m in (a, b):
        m.ok("remote", "add", "origin", str(remote))
    x = a.ask("--new", "x starts")["conversation"]
    y = a.ask("--new", "y starts")["conversation"]
    z = a.ask("--new", "z starts")["conversation"]
    a.sync()
    b.sync()
    for m in (a, b):  # x grows on both: a merge, and one line of x becomes a fork
        m.ask("--cid", x, f"x on {m.name}")
    a.ask("--cid", y, f"y on A {SECRET}")
    a.ok("tag", y, "+on-a")
    b.ask("--cid", z, "z on B")
    b.ok("title", z, "z by B")
    a.sync()
    b.sync()
    a.sync()
    assert a.head() == b.head()
    assert git(a.store, "rev-list", "--merges", "--count", "HEAD").strip() != "0"
    head = a.head()

    ids = {"x": x, "y": y, "z": z}
    once = {}
    for pair in ("xy", "xz", "yz"):
        first, second = pair
        here = _copy(a.store, tmp_path / f"once-{pair}.git")
        once[pair] = _filter(here, {ids[first], ids[second]}, head)
        stepwise = _copy(a.store, tmp_path / f"twice-{pair}.git")
        step = _filter(stepwise, {ids[first]}, head)
        assert _filter(stepwise, {ids[second]}, step) == once[pair], f"filtering {first} then {second}"
        assert _filter(stepwise, {ids[first], ids[second]}, head) == once[pair]  # the cache agrees
        fsck_clean(here)
        fsck_clean(stepwise)
    # determinism: B's copy of the same history, filtered apart, gives the same commits
    assert _filter(_copy(b.store, tmp_path / "b-xy.git"), {x, y}, head) == once["xy"]

    filtered = tmp_path / "once-xy.git"
    kept = conversation_path(z)
    assert _commits(filtered, once["xy"], kept) == _commits(a.store, head, kept)  # authors, times, messages
    assert git(filtered, "ls-tree", "-r", "--name-only", once["xy"], "--", "conversations", "trash").count(z) > 0
    text = git(filtered, "log", "-p", "--format=%B", once["xy"])
    assert SECRET not in text and "y starts" not in text and "z on B" in text
    messages = git(filtered, "log", "--format=%s", once["xy"]).splitlines()
    assert not [msg for msg in messages if msg.startswith((f"{x}:", f"{y}:"))]  # their commits went
    assert _filter(filtered, {x, y}, once["xy"]) == once["xy"]  # filtered history is left as it is
    assert (filtered / "conv-filter").read_text().startswith("conv-filter 1 ")


def test_machines_that_purge_apart_share_history_again(fake, tmp_path):
    """A and B purge the same conversation without syncing in between: the
    history under their purge commits is the same commit, so after A rewrites
    the remote, B's sync is a plain fast-forward with nothing duplicated."""
    fake.set(reply="ECHO")
    remote = bare(tmp_path / "origin.git")
    a, b = Machine(tmp_path, "A"), Machine(tmp_path, "B")
    for m in (a, b):
        m.ok("remote", "add", "origin", str(remote))
    gone = a.ask("--new", f"shared {SECRET}")["conversation"]
    a.ask("--new", "stays")
    a.sync()
    b.sync()
    for m in (a, b):
        m.ok("delete", gone)
        m.ok("clean", "--purge", "--yes")
    assert rev(a.store, "HEAD~1") == rev(b.store, "HEAD~1")
    a.ok("remote", "purge", "origin")
    synced = b.sync()
    # the same purge commit when both purged within one second: then there is nothing to pull
    assert synced["pulled"] in ("fast-forward", "up to date") and synced["erased"] == []
    assert a.head() == b.head() == rev(remote, "refs/heads/main")
    for repo in (a.store, b.store, remote):
        assert_erased(repo)


# -- 3. the purge travels; nothing else is lost ---------------------------------------------


def files_holding(root, text: str, skip=("store.git",)) -> list[str]:
    """Files under ``root`` (a CONV_HOME, the store left out) whose bytes hold ``text``."""
    return [str(p) for p in root.rglob("*") if p.is_file() and not set(p.relative_to(root).parts) & set(skip)
            and text.encode() in p.read_bytes()]


def test_a_purge_travels_to_a_machine_with_unsynced_turns_and_loses_nothing_else(fake, tmp_path, daemon):  # noqa: F811
    """A purges x and rewrites origin (a git daemon); B, meanwhile offline,
    added turns to y, to x and a new conversation w. B's next sync erases x
    there too, B's turns in x with it (said in the output), and keeps
    everything else; usb, a second remote A never rewrote, cannot bring x
    back to either machine."""
    fake.set(reply="ECHO")
    usb = bare(tmp_path / "usb.git")
    served = daemon.base / "remote.git"
    a, b = Machine(tmp_path, "A", session="ta"), Machine(tmp_path, "B", session="tb")
    for m in (a, b):
        m.ok("remote", "add", "origin", daemon.url("remote.git"))
        m.ok("remote", "add", "usb", str(usb))
    x = a.ask("--new", f"the plan is {SECRET}")["conversation"]
    a.ask("--cid", x, f"tell me more about {SECRET}")
    y = a.ask("--new", "y: an ordinary topic")["conversation"]
    a.sync("origin")
    a.sync("usb")
    b.sync("origin")
    b.ask("--cid", y, "B's unsynced turn in y")
    b.ask("--cid", x, f"B's unsynced turn in x, {SECRET} again")
    w = b.ask("--new", "B's unsynced new conversation")["conversation"]
    b.ok("use", x)  # B's terminal is in x
    kept_edit = b.run("edit", x, env={"EDITOR": "false"})  # the text stays in B's cache/edit/
    assert kept_edit.returncode == 2 and files_holding(b.home, SECRET)
    v = a.ask("--new", "A's new conversation")["conversation"]  # (a turn in y too would make a fork of y)

    a.ok("delete", x)
    said = a.ok("clean", "--purge", "--yes").stderr.decode()
    assert "conv remote purge origin" in said and "conv remote purge usb" in said
    rewritten = json.loads(a.ok("remote", "purge", "origin", "--json").stdout)
    assert rewritten["rewritten"] and not rewritten["remote_pruned"]  # a server: its own gc drops them

    said = b.ok("sync", "origin").stderr.decode()  # B learns the purge
    assert "origin: pulled (merged); pushed" in said, said
    assert f"purged on another machine, erased here too (with any turns added here): {x}" in said, said
    a.sync("origin")
    assert a.head() == b.head() == rev(served, "refs/heads/main")
    for m in (a, b):
        assert ids_listed(m) == sorted([y, w, v]) and ids_listed(m, "--deleted") == []
        questions = user_texts(m.store)
        for q in ("y: an ordinary topic", "B's unsynced turn in y", "A's new conversation",
                  "B's unsynced new conversation"):
            assert questions[q] == 1, (m.name, q)
        assert json.loads(m.ok("search", "--json", SECRET).stdout) == []
        assert_erased(m.store)
        assert files_holding(m.home, SECRET) == [], m.name  # index, sessions, edit files
    assert (b.home / "state" / "sessions" / "tb").exists() is False

    # usb still holds x: syncing it never brings x back, on either machine
    for m in (b, a):
        done = m.run("sync", "usb")
        assert done.returncode == 4
        one_error_line(done, "usb", "conv remote purge usb")
        assert ids_listed(m) == sorted([y, w, v])
        assert_erased(m.store)
    assert json.loads(b.ok("remote", "purge", "usb", "--json").stdout)["remote_pruned"]
    a.sync("usb")
    b.sync("origin")
    assert a.head() == b.head() == rev(usb, "refs/heads/main") == rev(served, "refs/heads/main")

    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", daemon.url("remote.git"), str(clone)], check=True)
    for repo in (a.store, b.store, usb, clone):
        assert_erased(repo)
    assert SECRET in all_objects(served).decode("latin-1")  # as said: until the server's own gc …
    subprocess.run(["git", "-C", str(served), "gc", "-q", "--prune=now"], check=True)
    assert_erased(served)  # … after which nothing on it reaches or holds the text
    for m in (a, b):
        assert m.sync("origin")["pulled"] == "up to date" and ids_listed(m) == sorted([y, w, v])


@pytest.mark.conv_process("four writers run at once, from threads")
def test_writers_running_during_the_purge_lose_nothing(fake, tmp_path):
    """Four streams of conv ask processes, each answer streamed word by word,
    keep writing to four other conversations while the purge rewrites
    history and prunes: every question and answer lands, the purged text is
    gone, and the store is sound."""
    import threading
    import time

    fake.set(reply="ECHO", chunk_delay=0.05)
    a = Machine(tmp_path, "A")
    gone = a.ask("--new", f"secret {SECRET} one")["conversation"]
    for n in range(5):
        a.ask("--cid", gone, f"secret {SECRET} turn {n}")
    keep = [a.ask("--new", f"keeper {k}")["conversation"] for k in range(4)]
    for n in range(10):  # some history for the purge to rewrite after the secret
        a.ask("--cid", keep[n % 4], f"keeper history {n}")
    a.ok("delete", gone)

    purge_done = threading.Event()
    spans, asked, failures = [], [], []

    def writer(k: int) -> None:
        n = extra = 0
        while extra < 2:  # until two asks after the purge ended
            extra += purge_done.is_set()
            question = f"writer {k} question {n} words to stream"
            started = time.monotonic()
            done = a.run("ask", "--cid", keep[k], question)
            spans.append((started, time.monotonic()))
            (asked if done.returncode == 0 else failures).append((question, done.stderr.decode()))
            n += 1

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    began = time.monotonic()
    purged = a.run("clean", "--purge", "--yes")
    ended = time.monotonic()
    purge_done.set()
    for t in threads:
        t.join(timeout=120)
    assert purged.returncode == 0, purged.stderr.decode()
    assert not failures, failures[:3]
    overlapping = [s for s in spans if s[0] < ended and s[1] > began]
    assert len(overlapping) >= 4, f"only {len(overlapping)} asks ran during the {ended - began:.2f} s purge"
    questions = user_texts(a.store)
    assert [q for q, _ in asked if questions[q] != 1] == []
    answers = git(a.store, "log", "--format=%s").count(": answer (")
    assert answers == 4 + 10 + len(asked)  # every answer made it too (the purged ones went)
    listed = {c["id"]: c["turns"] for c in a.list_json()}
    assert sorted(listed) == sorted(keep)
    assert sum(listed.values()) == 2 * (4 + 10 + len(asked))
    assert_erased(a.store)
    print(f"\n{len(asked)} asks by 4 writers, {len(overlapping)} of them during the {ended - began:.2f} s purge")


# -- 4. rewriting a remote: a lease, never a blind force ----------------------------------------

PROTECTED_HOOK = """#!/bin/sh
# a protected branch: no history rewrite
while read old new ref; do
    if [ "$old" != 0000000000000000000000000000000000000000 ] && ! git merge-base --is-ancestor "$old" "$new"; then
        echo "protected branch: $ref cannot be force-pushed" >&2
        exit 1
    fi
done
"""


def purged_with_a_remote(tmp_path, remote):
    """Machine A, synced with ``remote``, then its secret conversation purged."""
    a = Machine(tmp_path, "A")
    gone = a.ask("--new", f"the code word is {SECRET}")["conversation"]
    kept = a.ask("--new", "an ordinary question")["conversation"]
    a.ok("remote", "add", "origin", str(remote))
    a.sync()
    a.ok("delete", gone)
    a.ok("clean", "--purge", "--yes")
    return a, gone, kept


def test_remote_purge_refused_by_a_protected_branch_is_one_line_and_erasure_stands(fake, tmp_path, protection):
    fake.set(reply="ECHO")
    remote = bare(tmp_path / "origin.git")
    a, gone, kept = purged_with_a_remote(tmp_path, remote)
    if protection == "pre-receive hook":
        (remote / "hooks" / "pre-receive").write_text(PROTECTED_HOOK)
        (remote / "hooks" / "pre-receive").chmod(0o755)
    else:
        git(remote, "config", "receive.denyNonFastForwards", "true")
    before = rev(remote, "refs/heads/main")
    done = a.run("remote", "purge", "origin")
    assert done.returncode == 4, done.stderr.decode()
    line = one_error_line(done, "origin refused the rewrite", "erased on this machine only",
                          "conv remote purge origin")
    if protection == "pre-receive hook":
        assert "pre-receive hook declined" in line
    assert rev(remote, "refs/heads/main") == before and SECRET in reachable_text(remote)
    assert_erased(a.store)  # local erasure stands
    assert ids_listed(a) == [kept]
    assert a.run("sync").returncode == 4  # and sync still will not push there


def pytest_generate_tests(metafunc):
    if "protection" in metafunc.fixturenames:
        metafunc.parametrize("protection", ["receive.denyNonFastForwards", "pre-receive hook"])


def test_pruning_a_remote_on_a_path_spares_objects_another_push_is_writing(fake, tmp_path):
    """Another machine's push writes its objects (loose, for a small push)
    before it moves the remote's ref; conv remote purge prunes that remote
    meanwhile without a lock it could share. Only what the replaced head
    reached goes: a loose object no ref reaches yet stays."""
    fake.set(reply="ECHO")
    remote = bare(tmp_path / "origin.git")
    a, gone, kept = purged_with_a_remote(tmp_path, remote)
    arriving = subprocess.run(["git", "-C", str(remote), "hash-object", "-w", "--stdin"], check=True,
                              input=b"a turn another machine is pushing right now\n", capture_output=True)
    sha = arriving.stdout.decode().strip()
    assert json.loads(a.ok("remote", "purge", "origin", "--json").stdout)["remote_pruned"]
    assert git(remote, "cat-file", "-p", sha) == "a turn another machine is pushing right now\n"
    assert SECRET.encode() not in all_objects(remote)


def test_remote_purge_leases_the_head_it_fetched_so_a_push_meanwhile_is_kept(fake, tmp_path):
    """Between conv remote purge's fetch and its push, machine B pushes a turn
    (a git wrapper on A's PATH runs B's push right after A's first look at
    the remote). The lease refuses A's first push; A fetches again, merges
    B's turn, and only then replaces the remote's history: B's turn is kept,
    which a blind force would have lost."""
    fake.set(reply="ECHO")
    remote = bare(tmp_path / "origin.git")
    b = Machine(tmp_path, "B")
    a, gone, kept = purged_with_a_remote(tmp_path, remote)
    b.ok("remote", "add", "origin", str(remote))
    b.sync()
    b.ask("--cid", kept, "B's turn, pushed during A's rewrite")
    real = subprocess.run(["sh", "-c", "command -v git"], capture_output=True, text=True, check=True).stdout.strip()
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(f"""#!/bin/sh
"{real}" "$@"; code=$?
case " $* " in *" ls-remote "*|*" fetch "*)
    if mkdir "{tmp_path}/raced" 2>/dev/null; then "{real}" --git-dir "{b.store}" push -q "{remote}" main:main; fi;;
esac
exit $code
""")
    wrapper.chmod(0o755)
    import os

    done = json.loads(a.ok("remote", "purge", "origin", "--json",
                           env={"PATH": f"{wrapper.parent}:{os.environ['PATH']}"}).stdout)
    assert (tmp_path / "raced").is_dir()
    assert done["rewritten"] and done["rounds"] == 2 and done["pulled"] == "merged"
    assert rev(remote, "refs/heads/main") == a.head()
    assert "B's turn, pushed during A's rewrite" in user_texts(remote)
    assert_erased(remote)
    synced = b.sync()
    assert synced["erased"] == [gone] and "B's turn, pushed during A's rewrite" in user_texts(b.store)
    assert_erased(b.store)


# -- 5. beside the store: index, sessions, edit files, chat history -------------------------------


def test_a_purge_leaves_no_trace_beside_the_store(fake, tmp_path, conv_home):
    """The index is rebuilt into a new file, the session that pointed at the
    conversation is gone, so is the text conv edit kept, and so are the chat
    history's lines that were its questions; other lines stay, and the
    history stays private."""
    from test_chat import Chat

    fake.set(reply="ECHO")
    chat = Chat()
    chat.say(f"what rhymes with {SECRET}?")
    chat.say("and a second question of that chat")
    chat.leave()
    chat = Chat()
    chat.say("an unrelated chat")
    chat.leave()
    a = Machine(tmp_path, "home", session="t1")
    assert a.home == conv_home
    gone = next(c["id"] for c in a.list_json() if SECRET in c["title"])
    a.ok("use", gone)
    assert a.run("edit", gone, env={"EDITOR": "false"}).returncode == 2
    a.ok("search", SECRET)
    history = conv_home / "state" / "chat_history"
    assert SECRET in history.read_text() and files_holding(conv_home, SECRET)

    a.ok("delete", gone)
    a.ok("clean", "--purge", "--yes")
    assert files_holding(conv_home, SECRET) == []  # index, its journal, edit files, sessions, chat history
    assert history.read_text().splitlines() == ["an unrelated chat"]
    assert history.stat().st_mode & 0o777 == 0o600
    assert not (conv_home / "state" / "sessions" / "t1").exists()
    assert not (conv_home / "cache" / "edit" / f"{gone}.md").exists()
    assert_erased(a.store)
    assert a.ok("ask", "-c", "a new start after the purge").returncode == 0  # the terminal starts afresh


def test_a_purged_conversation_is_not_imported_again(fake, tmp_path, conv_home):
    """Imports name conversations by their source ids: importing the same export
    again must not bring a purged conversation back."""
    from test_importers import node

    export = tmp_path / "conversations.json"
    export.write_text(json.dumps([
        {"conversation_id": "c-secret", "title": "secret", "create_time": 1000.0, "current_node": "b", "mapping": {
            "r": node("r", None, ["a"]), "a": node("a", "r", ["b"], "user", f"what about {SECRET}?", 1000.0),
            "b": node("b", "a", [], "assistant", "nothing", 1001.0)}},
        {"conversation_id": "c-plain", "title": "plain", "create_time": 2000.0, "current_node": "b", "mapping": {
            "r": node("r", None, ["a"]), "a": node("a", "r", ["b"], "user", "2+2?", 2000.0),
            "b": node("b", "a", [], "assistant", "4", 2001.0)}},
    ]))
    a = Machine(tmp_path, "home")
    a.ok("import", "--from", "chatgpt", str(export))
    gone = next(c["id"] for c in a.list_json() if c["title"] == "secret")
    a.ok("delete", gone)
    a.ok("clean", "--purge", "--yes")
    again = json.loads(a.ok("import", "--from", "chatgpt", str(export), "--json").stdout)
    assert again["added"] == 0 and again["turns_added"] == 0
    assert [c["title"] for c in a.list_json()] == ["plain"]
    assert_erased(a.store)


def test_without_git_installed_the_purge_still_travels(fake, tmp_path, no_git_path):  # noqa: F811
    """dulwich does it all: the purge, the lease (the old value in the push
    protocol), pruning a remote on a path, and the other machine's sync."""
    fake.set(reply="ECHO")
    remote = bare(tmp_path / "origin.git")
    a = Machine(tmp_path, "A", extra={"PATH": no_git_path})
    b = Machine(tmp_path, "B", extra={"PATH": no_git_path})
    for m in (a, b):
        m.ok("remote", "add", "origin", str(remote))
    gone = a.ask("--new", f"the code word is {SECRET}")["conversation"]
    kept = a.ask("--new", "an ordinary question")["conversation"]
    a.sync()
    b.sync()
    b.ask("--cid", kept, "B's turn")
    a.ok("delete", gone)
    a.ok("clean", "--purge", "--yes")
    assert_erased(a.store)
    assert a.run("sync").returncode == 4
    done = json.loads(a.ok("remote", "purge", "origin", "--json").stdout)
    assert done["rewritten"] and done["remote_pruned"]
    assert_erased(remote)
    assert b.sync()["erased"] == [gone]
    a.sync()
    assert a.head() == b.head() == rev(remote, "refs/heads/main")
    for repo in (a.store, b.store, remote):
        assert_erased(repo)
    assert "B's turn" in user_texts(a.store)
