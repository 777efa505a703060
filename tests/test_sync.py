"""conv remote / push / pull / sync and the store's hooks, through the real CLI.

Each machine is its own CONV_HOME; remotes are a real ``git daemon`` (git://)
and bare repositories on disk; every check on a store or a remote is the real
git CLI. The random test's size and seed come from CONV_SYNC_STEPS (default
150) and CONV_SYNC_SEED.
"""

import json
import os
import random
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from conftest import conv_env, found_nothing, fsck_clean, git, ok, run_conv

STEPS = int(os.environ.get("CONV_SYNC_STEPS", "150"))
SEED = int(os.environ.get("CONV_SYNC_SEED", "20261121"))


# -- helpers ---------------------------------------------------------------------------


class Machine:
    """One computer: its own CONV_HOME (store, config, sessions), optionally one
    terminal (CONV_SESSION)."""

    def __init__(self, root: Path, name: str, session: str | None = None, extra: dict | None = None):
        self.name = name
        self.home = root / name
        self.env = {"CONV_HOME": str(self.home), **({"CONV_SESSION": session} if session else {}), **(extra or {})}

    @property
    def store(self) -> Path:
        return self.home / "store.git"

    def run(self, *args, input=None, env=None, timeout=60):
        return run_conv(*args, input=input, env={**self.env, **(env or {})}, timeout=timeout)

    def ok(self, *args, **kw):
        done = self.run(*args, **kw)
        assert done.returncode == 0 or found_nothing(args, done), (
            f"machine {self.name}: conv {' '.join(args)} exited {done.returncode}:\n{done.stderr.decode()}")
        return done

    def ask(self, *args, **kw) -> dict:
        return json.loads(self.ok("ask", "--json", *args, **kw).stdout)

    def sync(self, *args) -> dict:
        return json.loads(self.ok("sync", "--json", *args).stdout)

    def popen(self, *args, env=None):
        return subprocess.Popen([sys.executable, "-m", "conv", *args], stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env=conv_env({**self.env, **(env or {})}))

    def head(self) -> str | None:
        return rev(self.store, "HEAD")

    def tree(self) -> str:
        return git(self.store, "rev-parse", "HEAD^{tree}").strip()

    def live(self) -> list[str]:
        return conversation_ids(self.store, "conversations")

    def list_json(self, *extra) -> list[dict]:
        return json.loads(self.ok("list", "--json", "-n", "100000", *extra).stdout)


def bare(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return path


def rev(repo: Path, name: str) -> str | None:
    return git(repo, "rev-parse", "--verify", "-q", name, check=False).strip() or None


def conversation_ids(repo: Path, root: str, commit: str = "HEAD") -> list[str]:
    """Conversation folders under ``root`` (conversations/ or trash/) at ``commit``."""
    if rev(repo, commit) is None:
        return []
    names = git(repo, "ls-tree", "-r", "--name-only", commit, "--", root).splitlines()
    return sorted({n.split("/")[3] for n in names if n.count("/") >= 4})


def by_recent_turn(repo: Path) -> list[str]:
    """Live conversations, the one with the newest turn first (turn files are named by time)."""
    if rev(repo, "HEAD") is None:
        return []
    newest: dict[str, str] = {}
    for path in git(repo, "ls-tree", "-r", "--name-only", "HEAD", "--", "conversations").splitlines():
        parts = path.split("/")
        if len(parts) == 5:
            newest[parts[3]] = max(newest.get(parts[3], ""), parts[4] if parts[4] != "conversation.md" else "")
    return sorted(newest, key=lambda c: (newest[c], c), reverse=True)


def _blobs(repo: Path, shas: list[str]) -> list[bytes]:
    if not shas:
        return []
    out = subprocess.run(["git", "-C", str(repo), "cat-file", "--batch"],
                         input="".join(f"{s}\n" for s in shas).encode(),
                         capture_output=True, check=True).stdout
    bodies = []
    for _ in shas:
        header, _, out = out.partition(b"\n")
        size = int(header.split()[2])
        bodies.append(out[:size])
        out = out[size + 1:]
    return bodies


def _body(text: bytes) -> str:
    """A turn file's Markdown after its YAML frontmatter."""
    decoded = text.decode()
    assert decoded.startswith("---\n"), decoded[:80]
    return decoded[4:].split("\n---\n", 1)[1].strip()


def user_texts(repo: Path, commit: str = "HEAD") -> Counter:
    """The text of every user turn in both roots (live and trash) at ``commit``."""
    listing = git(repo, "ls-tree", "-r", commit, "--", "conversations", "trash").splitlines()
    shas = [line.split()[2] for line in listing if line.endswith("-user.md")]
    return Counter(_body(b) for b in _blobs(repo, shas))


def questions_of(repo: Path, conv_id: str, commit: str = "HEAD") -> list[str]:
    """A conversation's user turns, oldest first (turn files are named by time)."""
    listing = git(repo, "ls-tree", "-r", commit, "--", "conversations", "trash").splitlines()
    mine = sorted((line.split("\t")[1], line.split()[2]) for line in listing
                  if f"/{conv_id}/" in line and line.endswith("-user.md"))
    return [_body(b) for b in _blobs(repo, [sha for _, sha in mine])]


def one_error_line(done, *needles: str) -> str:
    """stderr is conv's one error line (no traceback), holding every needle."""
    err = done.stderr.decode()
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("conv: error: "), err
    for needle in needles:
        assert needle.lower() in lines[0].lower(), f"{needle!r} not in {lines[0]!r}"
    return lines[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class GitDaemon:
    """``git daemon`` serving the bare repositories in ``base`` over git:// with push enabled."""

    def __init__(self, base: Path):
        self.base = base
        self.proc = None
        self.port = None

    def start(self):
        for _ in range(5):
            port = free_port()
            proc = subprocess.Popen(
                ["git", "daemon", "--enable=receive-pack", "--export-all", f"--base-path={self.base}", "--reuseaddr",
                 "--listen=127.0.0.1", f"--port={port}"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and proc.poll() is None:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    self.proc, self.port = proc, port
                    return self
                except OSError:
                    time.sleep(0.05)
            self._end(proc)  # the port was taken meanwhile, or it never came up: another port
        raise RuntimeError("git daemon did not start")

    def url(self, name: str) -> str:
        return f"git://127.0.0.1:{self.port}/{name}"

    def stop(self):
        if self.proc is not None:
            self._end(self.proc)
            self.proc = None

    @staticmethod
    def _end(proc):
        import signal

        try:
            os.killpg(proc.pid, signal.SIGTERM)  # the daemon and its per-connection children (its own group)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)
        proc.stderr.close()


@pytest.fixture
def daemon(tmp_path):
    base = tmp_path / "served"
    base.mkdir()
    bare(base / "remote.git")
    server = GitDaemon(base).start()
    yield server
    server.stop()


# -- 1. three machines, random steps ----------------------------------------------------


def test_three_machines_random_steps_lose_nothing_and_converge(fake, tmp_path, daemon):
    fake.set(reply="ECHO")
    usb = bare(tmp_path / "usb.git")
    origin = daemon.base / "remote.git"
    machines = [Machine(tmp_path, name) for name in "ABC"]
    for m in machines:
        m.ok("remote", "add", "origin", daemon.url("remote.git"))
        m.ok("remote", "add", "usb", str(usb))
    rng = random.Random(SEED)
    asked: list[str] = []
    offline_until = {m.name: 0 for m in machines}
    done = Counter()
    forks_from_sync = 0
    started = time.monotonic()

    for step in range(STEPS):
        # every draw is made at every step, so a seed replays the same actions
        m = machines[int(rng.random() * 3)]
        goes_offline, offline_for = rng.random() < 0.06, rng.randint(10, 35)
        action = rng.choices(["ask", "follow", "fork", "title", "tag", "delete", "sync"],
                             weights=[12, 30, 5, 5, 5, 3, 25])[0]
        pick, at_two, use_usb, tags = rng.random(), rng.random() < 0.5, rng.random() < 1 / 3, rng.sample(range(5), 2)
        text = f"q{step:03d} from {m.name} #{rng.getrandbits(32):08x}"
        if goes_offline:
            offline_until[m.name] = step + offline_for  # a laptop on a plane
        live = by_recent_turn(m.store)
        if action == "sync" and step < offline_until[m.name]:
            action = "follow"
        if action not in ("ask", "sync") and not live:
            action = "ask"
        target = live[int(pick ** 3 * len(live))] if live else None  # mostly the latest: lines diverge
        if action in ("ask", "follow"):
            asked.append(text)
        if action == "ask":
            m.ask(text)
        elif action == "follow":
            got = m.ask("--cid", target, text)
            assert got["conversation"] == target
        elif action == "fork":
            forked = json.loads(m.ok("fork", target, "--json", *(["--at", "2"] if at_two else [])).stdout)
            assert forked["forked_from"] == target
        elif action == "title":
            m.ok("title", target, f"title {step} by {m.name}")
        elif action == "tag":
            m.ok("tag", target, f"+t{tags[0]}", f"-t{tags[1]}")
        elif action == "delete":
            m.ok("delete", target)
        else:
            forks_from_sync += m.sync("usb" if use_usb else "origin")["forks"]
        done[action] += 1
    steps_took = time.monotonic() - started

    remotes = {"origin": origin, "usb": usb}

    def state():
        return tuple(m.head() for m in machines) + tuple(rev(r, "refs/heads/main") for r in remotes.values())

    # Settle: rounds of A, B, C on origin until a round changes nothing, then each
    # machine once on usb, then origin rounds again. (Alternating both remotes in
    # every round need not settle: see test_three_machines_syncing_two_remotes_in_turn_settle.)
    rounds = 0
    for phase in ("origin", "usb", "origin"):
        for _ in range(6):
            before = state()
            for m in machines:
                forks_from_sync += m.sync(phase)["forks"]
            rounds += 1
            if phase == "usb" or state() == before:
                break
        else:
            pytest.fail(f"syncing with {phase} alone did not settle in 6 rounds: {state()}")
    for m in machines:
        assert m.sync("usb")["pulled"] == "up to date"
    took = time.monotonic() - started
    print(f"\n{STEPS} random steps {dict(done)} in {steps_took:.1f} s; settled after {rounds} round(s); "
          f"{forks_from_sync} diverged line(s) kept as forks; {took:.1f} s in all")

    heads = {m.name: m.head() for m in machines}
    assert len(set(heads.values())) == 1, heads
    assert rev(origin, "refs/heads/main") == rev(usb, "refs/heads/main") == heads["A"]
    assert len({m.tree() for m in machines}) == 1
    assert len(set(asked)) == len(asked)
    for repo in [m.store for m in machines] + list(remotes.values()):
        have = user_texts(repo)
        missing = [q for q in asked if q not in have]
        assert not missing, f"{len(missing)} question(s) missing from {repo}: {missing[:5]}"
        fsck_clean(repo)
    for m in machines:
        listed = m.list_json()  # conv reads every conversation the merges wrote
        assert sorted(c["id"] for c in listed) == m.live()
        assert not [c for c in listed if c["broken"]]
        assert sorted(c["id"] for c in m.list_json("--deleted")) == conversation_ids(m.store, "trash")
    print(f"checks done at {time.monotonic() - started:.1f} s")


def test_three_machines_syncing_two_remotes_in_turn_settle(fake, tmp_path):
    """Three machines that each sync origin then usb, in turn, must settle on one
    commit. From a criss-cross start (origin and usb each hold what the other
    lacks), every merge conv makes is a new commit the other remote lacks: with
    identical trees, sync keeps making empty merges for ever."""
    one, two = bare(tmp_path / "origin.git"), bare(tmp_path / "usb.git")
    machines = [Machine(tmp_path, name) for name in "ABC"]
    for m in machines:
        m.ok("remote", "add", "origin", str(one))
        m.ok("remote", "add", "usb", str(two))
        m.ask(f"started on {m.name}")
    a, b, c = machines
    a.sync("origin")
    b.sync("usb")
    heads = []
    for _ in range(5):
        for m in machines:
            m.sync("origin")
            m.sync("usb")
        heads.append({m.head() for m in machines} | {rev(one, "refs/heads/main"), rev(two, "refs/heads/main")})
        if len(heads) >= 2 and heads[-1] == heads[-2] and len(heads[-1]) == 1:
            break
    assert len({m.tree() for m in machines}) == 1
    merges = git(a.store, "rev-list", "--merges", "--count", "HEAD").strip()
    assert len(heads[-1]) == 1 and heads[-1] == heads[-2], (
        f"still moving after {len(heads)} rounds of A, B, C × (origin, usb): {merges} merge commits, "
        f"every tree the same")


# -- 2. divergence ----------------------------------------------------------------------


def two_terminals_one_remote(fake, tmp_path) -> tuple[Machine, Machine, Path]:
    """Machines A and B, a terminal each, both with the remote origin; the fake echoes."""
    fake.set(reply="ECHO")
    remote = bare(tmp_path / "origin.git")
    a, b = Machine(tmp_path, "A", session="termA"), Machine(tmp_path, "B", session="termB")
    for m in (a, b):
        m.ok("remote", "add", "origin", str(remote))
    return a, b, remote


def test_a_conversation_extended_on_two_machines_keeps_both_lines(fake, tmp_path):
    a, b, remote = two_terminals_one_remote(fake, tmp_path)
    x = a.ask("shared start")["conversation"]
    y = a.ask("another topic")["conversation"]
    a.ok("sync")
    b.ok("sync")
    a.ok("use", x)
    b.ok("use", x)
    # both offline: each extends x, and each changes a different field of x and of y
    a.ask("-c", "A line one")
    b.ask("-c", "B line one")
    a.ask("-c", "A line two")
    a.ok("title", x, "x titled on A")
    b.ok("tag", x, "+tagged-on-b")
    a.ok("title", y, "y titled on A")
    b.ok("tag", y, "+b")

    assert a.sync()["pushed"]
    merged = b.sync()  # the remote has A's line: B merges
    a.sync()
    assert merged["pulled"] == "merged" and merged["pushed"] and merged["forks"] == 1
    assert list(merged["moved"]) == [x]
    f = merged["moved"][x]
    assert a.head() == b.head() == rev(remote, "refs/heads/main")
    assert a.tree() == b.tree()

    for m in (a, b):
        assert questions_of(m.store, x) == ["shared start", "A line one", "A line two"]  # the older line stays
        assert questions_of(m.store, f) == ["shared start", "B line one"]  # the other is a fork of it
        by_id = {c["id"]: c for c in m.list_json()}
        assert set(by_id) == {x, y, f}
        assert by_id[f]["forked_from"] == x and by_id[x]["forked_from"] is None
        assert by_id[x]["title"] == "x titled on A" and by_id[x]["tags"] == ["tagged-on-b"]
        assert by_id[y]["title"] == "y titled on A" and by_id[y]["tags"] == ["b"]
        tree = [line for line in m.ok("list", "--tree").stdout.decode().splitlines()]
        row_x = next(i for i, line in enumerate(tree) if x[:6] in line)
        row_f = next(i for i, line in enumerate(tree) if f[:6] in line)
        assert row_f > row_x and "└" in tree[row_f], "\n".join(tree)

    # each terminal keeps following its own line
    assert b.ask("-c", "B line two")["conversation"] == f
    assert a.ask("-c", "A line three")["conversation"] == x
    a.sync()
    assert b.sync()["forks"] == 0
    a.sync()
    assert a.tree() == b.tree()
    assert questions_of(b.store, x) == ["shared start", "A line one", "A line two", "A line three"]
    assert questions_of(a.store, f) == ["shared start", "B line one", "B line two"]
    for repo in (a.store, b.store, remote):
        fsck_clean(repo)
    assert git(b.store, "for-each-ref", "--format=%(refname)", "refs/conv/backup/").strip()  # the head before the merge


def test_two_machines_merging_the_same_heads_write_the_same_tree(fake, tmp_path):
    """merge.py: every choice depends only on the three commits, never on which machine merges."""
    fake.set(reply="ECHO")
    one, two = bare(tmp_path / "one.git"), bare(tmp_path / "two.git")
    a, b = Machine(tmp_path, "A"), Machine(tmp_path, "B")
    for m in (a, b):
        m.ok("remote", "add", "one", str(one))
        m.ok("remote", "add", "two", str(two))
    x = a.ask("grows on both")["conversation"]
    y = a.ask("metadata on both")["conversation"]
    z = a.ask("deleted on A, extended on B")["conversation"]
    a.ok("push", "one")
    b.ok("pull", "one")
    a.ask("--cid", x, "from A")
    a.ok("title", y, "A's title")
    a.ok("delete", z)
    time.sleep(1.1)  # commit times have 1 s resolution: B's edits and head are later, unambiguously
    b.ask("--cid", x, "from B")
    b.ok("title", y, "B's title")  # both changed the title: the later one wins
    b.ok("tag", y, "+b")
    b.ask("--cid", z, "B kept going")
    b.ask("new on B")
    a.ok("push", "one")
    b.ok("push", "two")
    assert a.sync("two")["pulled"] == "merged"
    assert b.sync("one")["pulled"] == "merged"
    assert a.tree() == b.tree(), "the same two heads merged into different trees"
    titles = {c["id"]: (c["title"], c["tags"]) for c in a.list_json()}
    assert titles[y] == ("B's title", ["b"])
    assert z in titles  # extended on B: back from the trash with every turn
    assert questions_of(a.store, z) == ["deleted on A, extended on B", "B kept going"]


def test_the_later_edit_of_a_field_wins_not_the_later_head(fake, tmp_path):
    """README: "the later edit wins a field both changed". B retitles after A did;
    A then keeps working on something else, so A's head is the newer commit."""
    remote = bare(tmp_path / "origin.git")
    a, b = Machine(tmp_path, "A"), Machine(tmp_path, "B")
    for m in (a, b):
        m.ok("remote", "add", "origin", str(remote))
    y = a.ask("a conversation")["conversation"]
    a.ok("sync")
    b.ok("sync")
    a.ok("title", y, "older title from A")
    time.sleep(1.1)
    b.ok("title", y, "newer title from B")
    time.sleep(1.1)
    a.ask("A goes on with another topic")
    b.ok("sync")
    a.ok("sync")
    b.ok("sync")
    assert a.tree() == b.tree()
    titles = {c["id"]: c["title"] for c in a.list_json()}
    assert titles[y] == "newer title from B"


# -- 3. refusals, unreachable remotes, races ------------------------------------------------


def with_pre_receive(path: Path, script: str = 'echo "policy: this repository is read-only" >&2\nexit 1\n') -> Path:
    hook = path / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\n" + script)
    hook.chmod(0o755)
    return path


def test_a_push_the_remote_refuses_is_a_one_line_error_and_loses_nothing(fake, tmp_path):
    remote = with_pre_receive(bare(tmp_path / "ro.git"))
    a = Machine(tmp_path, "A")
    a.ask("kept locally")
    a.ok("remote", "add", "origin", str(remote))
    head = a.head()
    for verb in ("push", "sync"):
        done = a.run(verb)
        assert done.returncode == 4, done.stderr.decode()
        one_error_line(done, "refused", "pre-receive hook declined")
        assert a.head() == head
        assert git(remote, "for-each-ref").strip() == ""  # the remote is unchanged
    assert "kept locally" in user_texts(a.store)
    fsck_clean(a.store)


@pytest.mark.parametrize("where", ["closed port", "missing path"])
def test_an_unreachable_remote_is_a_clear_one_line_error(fake, tmp_path, where):
    a = Machine(tmp_path, "A")
    a.ask("something to send")
    url = f"git://127.0.0.1:{free_port()}/remote.git" if where == "closed port" else str(tmp_path / "no" / "such.git")
    a.ok("remote", "add", "origin", url)
    head = a.head()
    for verb in ("sync", "push", "pull"):
        done = a.run(verb)
        assert done.returncode == 4, done.stderr.decode()
        line = one_error_line(done, "origin", url)
        reason = "connection refused" if where == "closed port" else "does not appear to be a git repository"
        assert reason in line.lower(), f"the error does not say why: {line}"
    assert a.head() == head


def test_push_only_after_another_machine_pushed_says_to_pull_then_sync_merges(fake, tmp_path):
    fake.set(reply="ECHO")
    remote = bare(tmp_path / "origin.git")
    a, b = Machine(tmp_path, "A"), Machine(tmp_path, "B")
    for m in (a, b):
        m.ok("remote", "add", "origin", str(remote))
    a.ask("base")
    a.ok("sync")
    b.ok("sync")
    b.ask("pushed first by B")
    b.ok("push")
    a.ask("A was offline")
    theirs, mine = rev(remote, "refs/heads/main"), a.head()
    done = a.run("push")
    assert done.returncode == 4
    one_error_line(done, "conv pull origin")
    assert rev(remote, "refs/heads/main") == theirs and a.head() == mine
    synced = a.sync()
    assert synced["pulled"] == "merged" and synced["pushed"]
    b.ok("sync")
    for repo in (a.store, b.store, remote):
        assert {"base", "pushed first by B", "A was offline"} <= set(user_texts(repo))
    assert a.tree() == b.tree()
    git(a.store, "merge-base", "--is-ancestor", mine, "HEAD")  # A's own commit is in the merged history


def _concurrent_syncs(fake, tmp_path, daemon, rounds: int):
    fake.set(reply="ECHO")
    url = daemon.url("remote.git")
    remote = daemon.base / "remote.git"
    machines = [Machine(tmp_path, name) for name in "ABC"]
    asked = []
    for m in machines:
        m.ok("remote", "add", "origin", url)
        asked.append(f"base from {m.name}")
        m.ask(asked[-1])
        m.ok("sync")
    for m in machines:
        m.ok("sync")
    outcomes = Counter()
    errors = []
    for r in range(rounds):
        for m in machines:
            for n in range(2):
                asked.append(f"round {r} turn {n} on {m.name}")
                m.ask(asked[-1])
        procs = [(m, m.popen("sync", "origin")) for m in machines]
        for m, proc in procs:
            out, err = proc.communicate(timeout=60)
            outcomes[proc.returncode] += 1
            text = err.decode()
            assert "Traceback" not in text, text
            if proc.returncode:
                assert proc.returncode == 4, text
                lines = [line for line in text.splitlines() if line.strip()]
                assert len(lines) == 1 and lines[0].startswith("conv: error: "), text
                errors.append(lines[0])
    for _ in range(2):
        for m in machines:
            m.ok("sync")
    main = rev(remote, "refs/heads/main")
    assert all(m.head() == main for m in machines)
    for repo in [m.store for m in machines] + [remote]:
        have = user_texts(repo)
        assert [q for q in asked if q not in have] == []
        fsck_clean(repo)
    return outcomes, errors


def test_concurrent_syncs_against_a_git_daemon_all_land(fake, tmp_path, daemon):
    """Three machines run conv sync at once, three times: each one succeeds or says
    why in one line, and after a final round every turn is everywhere."""
    outcomes, errors = _concurrent_syncs(fake, tmp_path, daemon, rounds=3)
    print(f"\nconcurrent syncs: exit codes {dict(outcomes)}; errors: {errors}")


def test_concurrent_syncs_against_a_slow_remote_retry_instead_of_failing(fake, tmp_path, daemon):
    """README: "a remote that moved meanwhile is fetched and merged again, up to five
    rounds". A pre-receive hook that takes 0.5 s makes the pushes overlap for sure:
    the losers are refused with "failed to update ref" / "cannot lock ref", which is
    the remote having moved meanwhile, not a policy refusal."""
    with_pre_receive(daemon.base / "remote.git", "sleep 0.5\nexit 0\n")
    outcomes, errors = _concurrent_syncs(fake, tmp_path, daemon, rounds=2)
    assert outcomes[0] == 6, f"exit codes {dict(outcomes)}; errors: {errors}"


# -- 4. credentials -------------------------------------------------------------------------


def test_a_password_in_a_remote_url_is_never_shown_nor_committed(fake, tmp_path, conv_home, store_path):
    a = Machine(tmp_path, "home")  # the fixture's CONV_HOME
    assert a.home == conv_home
    a.ask("hello")
    a.ok("remote", "add", "origin", "https://user:s3cret@example.invalid/x.git")
    a.ok("remote", "add", "local", f"https://user:s3cret@127.0.0.1:{free_port()}/x.git")
    listed = a.ok("remote", "list").stdout.decode()
    assert "s3cret" not in listed and "https://***@example.invalid/x.git" in listed  # the whole userinfo
    as_json = json.loads(a.ok("remote", "list", "--json").stdout)
    assert {"name": "origin", "url": "https://***@example.invalid/x.git"} in as_json
    assert "s3cret" not in json.dumps(as_json)
    for args in (["sync", "origin"], ["push", "origin"], ["pull", "origin"], ["sync", "local"],
                 ["sync", "local", "--json"]):
        done = a.run(*args)
        assert done.returncode == 4
        assert b"s3cret" not in done.stderr + done.stdout
        one_error_line(done, "***")
    bad = a.run("remote", "add", "bad", "https://user:s3cret@example.invalid/x y")
    assert bad.returncode == 2 and b"s3cret" not in bad.stderr
    a.ask("-c", "after the remotes")
    history = subprocess.run(["git", "-C", str(store_path), "log", "-p", "--all"], capture_output=True).stdout
    assert b"after the remotes" in history and b"s3cret" not in history
    assert b"s3cret" not in subprocess.run(["git", "-C", str(store_path), "grep", "-a", "s3cret",
                                            *git(store_path, "rev-list", "--all").split()], capture_output=True).stdout


def test_a_token_given_as_the_user_name_is_masked_too(fake, tmp_path):
    """https://TOKEN@host/… is how GitHub and GitLab tokens are usually put in a URL."""
    a = Machine(tmp_path, "A")
    a.ok("remote", "add", "origin", "https://ghp_s3cretT0kenAAAAAAAAAAAAAAAAAAAAAAAAAAA@example.invalid/x.git")
    assert b"s3cret" not in a.ok("remote", "list").stdout
    assert b"s3cret" not in a.ok("remote", "list", "--json").stdout
    assert b"s3cret" not in a.run("sync").stderr


# -- 5. hooks ---------------------------------------------------------------------------------

KEYS = {
    "openai": "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z",
    "anthropic": "sk-ant-api03-" + "Zx9Cv8Bn7Mm6Ll5Kk4Jj3Hh2Gg1Ff0Dd",
    "aws": "AKIA" + "IOSFODNN7EXAMPLE",  # AKIA and 16 characters
    "github": "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "slack": "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
}
PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq3Xz0example0not0a0real0key0Q8Y+\n"
       "-----END RSA PRIVATE KEY-----\n")


@pytest.fixture
def hooked(fake, tmp_path):
    fake.set(reply="ECHO")
    m = Machine(tmp_path, "A")
    m.ok("hooks", "install")
    return m


@pytest.mark.parametrize("kind", [*KEYS, "pem"])
def test_pre_commit_refuses_a_turn_holding_a_key_and_sends_nothing(hooked, fake, kind):
    m = hooked
    conv_id = m.ask("an ordinary start")["conversation"]
    head, sent = m.head(), len(fake.requests)
    if kind == "pem":
        args, stdin = ["ask", "-c", "why does this not load?"], PEM
    else:
        args, stdin = ["ask", "-c", f"why is {KEYS[kind]} rejected?"], None
    done = m.run(*args, input=stdin)
    assert done.returncode == 1, done.stderr.decode()
    err = one_error_line(done, conv_id, "turn ", "CONV_ALLOW_SECRETS=1")
    assert KEYS.get(kind, "MIIEowIBAAKCAQEA") not in err  # the error does not repeat the key
    assert m.head() == head and len(fake.requests) == sent
    allowed = m.run(*args, input=stdin, env={"CONV_ALLOW_SECRETS": "1"})
    assert allowed.returncode == 0, allowed.stderr.decode()
    assert len(fake.requests) == sent + 1 and m.head() != head


def test_pre_commit_lets_ordinary_text_through(hooked, fake):
    m = hooked
    for text in ["what does sk- mean?", "AKIA alone, or AKIA1234", "ghp_ is GitHub's prefix", "xoxb- tokens",
                 "sk-ant- is Anthropic's", "a -----BEGIN PUBLIC KEY----- is fine", "plain question"]:
        got = m.ask(text)
        assert got["answer"] == text
    assert len(fake.requests) == 7
    assert len(m.live()) == 7


def test_pre_commit_refuses_a_key_in_a_title_and_names_it(hooked):
    m = hooked
    conv_id = m.ask("hello")["conversation"]
    head = m.head()
    done = m.run("title", conv_id, KEYS["openai"])
    assert done.returncode == 1
    one_error_line(done, conv_id, "title", "CONV_ALLOW_SECRETS=1")
    assert m.head() == head


def test_a_turn_allowed_on_one_machine_does_not_block_the_others_sync(fake, tmp_path):
    """A stores a key with CONV_ALLOW_SECRETS=1; B, hooks installed and with its own
    new turns, must still be able to sync (a merge commit adds no new text)."""
    fake.set(reply="ECHO")
    remote = bare(tmp_path / "origin.git")
    a, b = Machine(tmp_path, "A"), Machine(tmp_path, "B")
    for m in (a, b):
        m.ok("remote", "add", "origin", str(remote))
    a.ok("sync")
    b.ok("sync")
    b.ok("hooks", "install", "pre-commit")
    a.ask(f"store {KEYS['github']} anyway", env={"CONV_ALLOW_SECRETS": "1"})
    a.ok("sync")
    b.ask("B's own turn")
    done = b.run("sync")
    assert done.returncode == 0, done.stderr.decode()
    assert f"store {KEYS['github']} anyway" in user_texts(b.store)


def test_backup_hook_pushes_after_a_commit_and_hooks_list_names_both(fake, tmp_path):
    fake.set(reply="ECHO")
    backup = bare(tmp_path / "backup.git")
    m = Machine(tmp_path, "A")
    m.ok("hooks", "install")
    listed = m.ok("hooks", "list").stdout.decode()
    rows = {line.split()[0]: line for line in listed.splitlines()[1:] if line.strip()}
    assert "conv's" in rows["pre-commit"] and "conv's" in rows["post-commit"], listed
    m.ok("remote", "add", "backup", str(backup))
    before = m.head()
    m.ask("back me up")
    made = git(m.store, "rev-list", f"{before}..HEAD").split()
    assert len(made) >= 1
    deadline = time.monotonic() + 5
    while rev(backup, "refs/heads/main") is None and time.monotonic() < deadline:
        time.sleep(0.05)
    pushed = rev(backup, "refs/heads/main")
    assert pushed in made, f"backup has {pushed}, the ask made {made}"
    fsck_clean(backup)
    # at most once a minute: the next commit does not push again
    m.ask("-c", "not backed up yet")
    time.sleep(1.0)
    assert rev(backup, "refs/heads/main") == pushed


# -- 6. without git: dulwich ------------------------------------------------------------------------


@pytest.fixture
def no_git_path(tmp_path) -> str:
    bin_dir = tmp_path / "bin-without-git"
    bin_dir.mkdir()
    for name in ("python", "python3"):
        (bin_dir / name).symlink_to(sys.executable)
    return str(bin_dir)


def test_sync_without_git_installed_uses_dulwich(fake, tmp_path, no_git_path):
    fake.set(reply="ECHO")
    one, two = bare(tmp_path / "one.git"), bare(tmp_path / "two.git")
    a = Machine(tmp_path, "A", session="ta", extra={"PATH": no_git_path})
    b = Machine(tmp_path, "B", session="tb", extra={"PATH": no_git_path})
    for m in (a, b):
        m.ok("remote", "add", "one", str(one))
        m.ok("remote", "add", "two", str(two))
    x = a.ask("made without git")["conversation"]
    assert a.sync("one")["pushed"]
    assert b.sync("one")["pulled"] in ("fast-forward", "merged")
    b.ok("use", x)
    a.ask("-c", "A extends")
    b.ask("-c", "B extends")
    b.ask("new on B")
    assert a.sync("one")["pushed"]
    pushed_only = b.run("push", "one")
    assert pushed_only.returncode == 4
    one_error_line(pushed_only, "conv pull one")
    merged = b.sync("one")
    assert merged["pulled"] == "merged" and merged["forks"] == 1 and merged["pushed"]
    assert b.sync("two")["pushed"]
    assert a.sync("one")["pulled"] == "fast-forward"
    assert a.sync("two")["pulled"] == "up to date"
    assert a.head() == b.head() == rev(one, "refs/heads/main") == rev(two, "refs/heads/main")
    for repo in (a.store, b.store, one, two):
        assert {"made without git", "A extends", "B extends", "new on B"} <= set(user_texts(repo))
        fsck_clean(repo)
    assert len(a.list_json()) == 3  # x, B's line as a fork of x, and "new on B"
    missing = b.run("remote", "add", "gone", str(tmp_path / "no" / "such.git"))
    assert missing.returncode == 0
    done = b.run("sync", "gone")
    assert done.returncode == 4
    one_error_line(done, "gone")


def test_shipped_hooks_without_git_installed_do_not_break_every_ask(fake, tmp_path, no_git_path):
    """The shipped pre-commit hook reads blobs with ``git cat-file``: without git,
    installing it must be refused clearly, or the hook must still work."""
    m = Machine(tmp_path, "A", extra={"PATH": no_git_path})
    installed = m.run("hooks", "install")
    if installed.returncode:
        one_error_line(installed, "git")
        return
    done = m.run("ask", "plain question")
    assert done.returncode == 0, done.stderr.decode()
    assert b"Traceback" not in done.stderr


def test_a_line_another_machine_moved_into_a_fork_is_followed_after_a_fast_forward(fake, tmp_path):
    """Issue 23: B pushed, A merged (B's newer line kept as a fork), B synced and
    saw only "pulled (fast-forward)": its terminal followed A's line and its
    next -c went on from A's words, its own turns in a fork it was never told of."""
    a, b, remote = two_terminals_one_remote(fake, tmp_path)
    x = a.ask("shared start")["conversation"]
    a.sync()
    b.sync()
    b.ok("use", x)
    a.ask("-c", "A line one")  # older: A's line stays in x
    b.ask("-c", "B line one")
    assert b.sync()["pushed"]  # B's line reaches the remote first
    merged = a.sync()  # A merges: B's newer line goes to a fork
    assert merged["pulled"] == "merged" and merged["forks"] == 1 and not merged["moved"]  # A's own line stayed
    done = b.ok("sync")
    said = done.stderr.decode()
    assert "pulled (fast-forward)" in said and f"this machine's line of {x} continues in " in said
    fork = said.split(f"this machine's line of {x} continues in ")[1].split()[0].rstrip(";")
    assert questions_of(b.store, fork) == ["shared start", "B line one"]
    follow = b.ask("-c", "B line two")
    assert follow["conversation"] == fork  # B's terminal follows its own line
    assert [m["content"] for m in fake.requests[-1]["messages"]][:-1] == [
        "shared start", "shared start", "B line one", "B line one"]


def test_auto_sync_to_a_remote_that_is_not_there_or_fails_is_said_once_each(fake, tmp_path, conv_home):
    """Issue 23: sync.auto nosuchremote was accepted and every later ask said
    nothing: the backups silently never happened."""
    ok("config", "set", "sync.auto", "nosuchremote")
    said = [run_conv("ask", f"question {n}").stderr.decode() for n in range(3)]
    assert "sync.auto names 'nosuchremote', which is no remote of this store" in said[0]
    assert "sync.auto" not in said[1] + said[2]  # once
    ok("remote", "add", "nosuchremote", str(tmp_path / "not-a-repository.git"))
    ok("ask", "one more")  # starts the background sync, which fails
    deadline = time.monotonic() + 30
    while b"conv: error" not in (conv_home / "state" / "auto-sync.log").read_bytes() and time.monotonic() < deadline:
        time.sleep(0.1)
    stamp = conv_home / "state" / "auto-sync.stamp"
    os.utime(stamp, (0, 0))  # a minute later
    said = run_conv("ask", "and another").stderr.decode()
    assert "the background sync (sync.auto) failed: " in said and "not-a-repository" in said
    os.utime(stamp, (0, 0))
    assert "background sync" not in run_conv("ask", "and a last one").stderr.decode()  # the same failure: said once
