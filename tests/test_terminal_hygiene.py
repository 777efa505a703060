"""Terminal and pipe hygiene (issue 11, section 5).

- C1 controls (U+0080–U+009F: U+009B is a one-character CSI, U+009D an OSC),
  bidi overrides, isolates and marks, and ESC sequences, held by every field
  conv prints (an answer, a question, a title, a tag, a summary, a search
  snippet, a remote name, a commit message, a model name, a turn's file name,
  an error), never reach stdout or stderr: not in text, not in --json. JSON
  escapes them and parses back to the exact stored text.
- A reader that goes away (| head) is not an error: conv stops writing, keeps
  the whole answer with its true finish, and exits 141 with nothing on stderr.
"""

import json
import os
import pty
import re
import select
import stat
import subprocess
import sys

from conftest import conv_env, git, ok, run_conv
from fakeserver import SLOW_REPLY

HOSTILE = ("A\x1b]0;pwned\x07b\x1b[2Jc\x9b2Jd\x9d0;pwned\x9ce\x85f\x90q\x9cg"
           "\u202eh\u2066i\u2069j\u061ck\u200el\u200fm\u202an\x1b[31mo")
UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
QUESTION = f"question {HOSTILE} zebra"
REPLY = f"answer {HOSTILE} zebra"
MODEL = f"m{HOSTILE}"
TITLE = f"title {HOSTILE}"
TAG = "t\x9b2Jd\x9d0;pwned\x9ce\x90q\x9cg\u202eh\u2066i\u2069j\u061ck\u200el\u200fm\u202an"  # one word, no brackets
SUMMARY = f"summary {HOSTILE}"
NOTE = f"note{HOSTILE}"  # a turn file's name and a commit message, written with git


CLEANED = "Abcdefghijklmno"  # HOSTILE on a terminal: every sequence gone whole, payload and all


def unsafe(output: bytes) -> list[str]:
    """What in ``output`` could drive a terminal or reorder a line."""
    return [f"U+{ord(c):04X}" for c in UNSAFE.findall(output.decode("utf-8", "surrogateescape"))]


def add_turn_with_git(store, conv_id: str) -> str:
    """A turn file whose name holds HOSTILE, committed with the real git CLI under
    a message holding it too (conv's own writes could never name a file so)."""
    head = git(store, "rev-parse", "HEAD").strip()
    folder = next(p for p in git(store, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
                  if p.endswith("/conversation.md") and f"/{conv_id}/" in p).rsplit("/", 1)[0]
    user_turn = next(p for p in git(store, "ls-tree", "--name-only", "HEAD", folder + "/").splitlines()
                     if p.endswith("-user.md"))
    blob = git(store, "rev-parse", f"HEAD:{user_turn}").strip()
    name = f"20991231-235959.999-zzzz-{NOTE}"
    env = {**os.environ, "GIT_INDEX_FILE": str(store / "hygiene.index")}
    for args in (["read-tree", head], ["update-index", "--add", "--cacheinfo", f"100644,{blob},{folder}/{name}.md"]):
        subprocess.run(["git", "--git-dir", str(store), *args], env=env, check=True)
    tree = subprocess.run(["git", "--git-dir", str(store), "write-tree"], env=env, check=True,
                          capture_output=True, text=True).stdout.strip()
    commit = git(store, "commit-tree", tree, "-p", head, "-m", f"{conv_id}: {NOTE}").strip()
    git(store, "update-ref", "refs/heads/main", commit, head)
    (store / "hygiene.index").unlink()
    return name


def test_control_and_bidi_characters_reach_no_output(fake, store_path, tmp_path):
    outputs: list[tuple[tuple, bytes]] = []

    def conv(*args, code=0):
        done = run_conv(*args)
        assert done.returncode == code, (args, done.returncode, done.stderr.decode())
        outputs.append((args, done.stdout + done.stderr))
        return done

    fake.set(reply=REPLY)
    streamed = conv("ask", "-m", f"openai:{MODEL}", QUESTION).stdout.decode()
    assert streamed == f"answer {CLEANED} zebra\n"
    conv_id = json.loads(conv("ask", "-c", "--json", QUESTION).stdout)["conversation"]
    conv("ask", "-c", "--no-stream", QUESTION)
    conv("title", conv_id, TITLE)
    conv("tag", conv_id, "+" + TAG)
    conv("summary", conv_id, SUMMARY)
    script = tmp_path / "failing-model"
    script.write_text(f"#!/bin/sh\nprintf 'went wrong: %s\\n' '{HOSTILE}' >&2\nexit 2\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    conv("ask", "-c", "-m", f"cmd:{script}", QUESTION, code=3)
    turn_name = add_turn_with_git(store_path, conv_id)
    fork = json.loads(conv("fork", conv_id, "--at", "2", "--json").stdout)["id"]
    conv("fork", conv_id, "--at", "2")
    conv("remote", "add", f"o{HOSTILE}", str(tmp_path / "remote.git"), code=2)
    conv("remote", "remove", f"o{HOSTILE}", code=2)
    text = {" ".join(args): conv(*args).stdout.decode() for args in (
        ["show", conv_id], ["show", conv_id, "--raw"], ["list"], ["search", "zebra"], ["log", conv_id],
        ["export", conv_id], ["tag", conv_id], ["diff", conv_id, fork])}
    as_json = {" ".join(args): json.loads(conv(*args).stdout) for args in (
        ["show", conv_id, "--json"], ["list", "--json"], ["search", "zebra", "--json"], ["log", conv_id, "--json"],
        ["export", conv_id, "-f", "json"], ["export", conv_id, "-f", "openai"], ["diff", conv_id, fork, "--json"])}

    assert len(outputs) == 26
    bad = [(args, found) for args, output in outputs if (found := unsafe(output))]
    assert not bad, bad
    assert f"answer {CLEANED} zebra" in text[f"show {conv_id}"] and f"m{CLEANED}" in text[f"show {conv_id}"]
    broken = f"{CLEANED[:5]} {CLEANED[5:]}"  # U+0085 is a line break: a space in a title, a new line in stderr
    assert f"status 2: {CLEANED[5:]}" in text[f"show {conv_id}"]  # the stored error: stderr's last line
    assert f"title {broken}" in text["list"]
    assert text[f"tag {conv_id}"] == "tdeghijklmn\n"
    assert f"-{NOTE[:4]}{CLEANED}.md <==" in text[f"show {conv_id} --raw"]
    assert f"{conv_id}: note{CLEANED[:5]}\n" in text[f"log {conv_id}"]  # a message's first line

    # JSON parses back to exactly what the store holds
    shown = as_json[f"show {conv_id} --json"]
    assert shown["title"] == " ".join(TITLE.split()) and shown["tags"] == [TAG] and shown["summary"] == SUMMARY
    contents = [t["content"] for t in shown["turns"]]
    assert contents.count(QUESTION) == 5 and contents.count(REPLY) == 3  # 4 asks and the copy made with git
    assert [t.get("model") for t in shown["turns"] if t["content"] == REPLY] == [MODEL] * 3
    assert turn_name in [t["name"] for t in shown["turns"]]
    assert any((t.get("error") or "").endswith(HOSTILE.split("\x85")[1]) for t in shown["turns"])
    assert as_json["list --json"][0]["title"] == shown["title"]
    assert "zebra" in as_json["search zebra --json"][0]["snippet"]
    messages = git(store_path, "log", "--format=%B%x00", "--", f"*/{conv_id}/*").split("\x00")
    logged = [c["message"] for c in as_json[f"log {conv_id} --json"]["commits"]]
    assert logged and logged == [m.strip() for m in messages if m.strip()]
    assert f"{conv_id}: {NOTE}" in logged and any(TAG in m for m in logged)
    assert REPLY in [m["content"] for m in as_json[f"export {conv_id} -f openai"]]
    assert as_json[f"export {conv_id} -f json"]["title"] == shown["title"]


def test_on_a_terminal_the_rich_output_is_clean_too(fake):
    """On a pseudo-terminal conv styles its own output (rich Markdown for show):
    only its own colours, none of the text's sequences, C1 or bidi characters."""
    fake.set(reply=REPLY)
    conv_id = json.loads(ok("ask", "--json", QUESTION).stdout)["conversation"]
    ok("title", conv_id, TITLE)
    for args in (["ask", "-c", QUESTION], ["show"], ["list"], ["search", "zebra"], ["log"]):
        shown = on_a_terminal(*args)
        assert ("zebra" in shown) == (args[0] in ("ask", "show", "search")), (args, shown)
        # conv's own: colours (SGR), and for an answer rendered as it streams, taking the
        # line being written back (streamed_markdown.py): up N rows, to its start, erase below
        own = re.sub(r"(\x1b\[[0-9]+A)?\r\x1b\[J", "", shown) if args[0] == "ask" else shown
        assert not re.findall("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]|\x1b[^\\[]|"
                              "\x1b\\[[0-9;]*[^0-9;m]", own), (args, shown)
    assert f"answer {CLEANED} zebra" in on_a_terminal("show")


def test_character_references_in_an_answer_do_not_become_bidi_controls_on_a_terminal(fake):
    """Issue 23: the Markdown renderer decoded &#x202E;, &rlm; and &#x2066; after
    conv's cleaning, so bidi controls reached the terminal (ask, show)."""
    fake.set(reply="safe &#x202E;txt.exe &rlm;x &#x2066;y &#8238;z &amp; &lt;b&gt; done")
    ok("ask", "entities")
    for args in (["ask", "-c", "again"], ["show"]):
        shown = on_a_terminal(*args)
        assert "done" in shown and not re.findall("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", shown), args
        assert "&#x202E;txt.exe" in shown and "& <b>" in shown  # shown as typed; harmless ones decoded


def test_on_80_columns_nothing_is_cut_and_no_word_is_split(conv_home):
    """Issue 23: conv models cut the install command with "…", conv config get
    wrapped mid-word."""
    missing = conv_home / "a-folder-with-a-long-name" / "and-another-one-below-it" / "the-model-file-itself.gguf"
    ok("config", "set", "local.model", str(missing))
    shown = re.sub(r"\x1b\[[0-9;]*m", "", on_a_terminal("models", columns=80))
    table = shown.split("conv: no model is set up")[0]  # the notice after it is one line, as notices are
    assert "…" not in table and f"{missing} does not exist (local.model)" in " ".join(table.split())
    assert all(len(line) <= 80 for line in table.splitlines() if str(missing) not in line)  # but a path: not cut
    listed = re.sub(r"\x1b\[[0-9;]*m", "", on_a_terminal("config", "get", columns=80))
    assert all(len(line) <= 80 for line in listed.splitlines() if str(missing) not in line)
    assert "idle time after which a terminal's follow-up starts a new conversation" in " ".join(listed.split())


def on_a_terminal(*args, columns: int = 200) -> str:
    import fcntl
    import struct
    import termios

    main, side = pty.openpty()
    fcntl.ioctl(side, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    proc = subprocess.Popen([sys.executable, "-m", "conv", *args], stdin=subprocess.DEVNULL, stdout=side, stderr=side,
                            env=conv_env({"COLUMNS": str(columns), "TERM": "xterm-256color"}))
    os.close(side)
    out = b""
    while True:
        ready, _, _ = select.select([main], [], [], 30)
        try:
            chunk = os.read(main, 65536) if ready else b""
        except OSError:  # EIO: the terminal's other side is closed
            chunk = b""
        if not chunk:
            break
        out += chunk
    os.close(main)
    assert proc.wait(10) == 0, out
    return out.decode("utf-8", "surrogateescape")


# -- a reader that goes away ---------------------------------------------------------------


def test_a_reader_that_goes_away_mid_answer_keeps_the_whole_answer(fake, store_path):
    """conv ask … | head -c 20, against an answer streamed slowly: head leaves
    after 20 bytes; the answer still arrives whole and is stored as finished."""
    fake.set(mode="slow", chunk_delay=0.02)  # 100 words, 2 s in all
    code, err, shown = pipeline(["ask", "tell me a long story"], ["head", "-c", "20"])
    assert (code, err) == (141, b"")
    assert shown == SLOW_REPLY.encode()[:20]
    answer = stored_answer(store_path)
    assert "finish: stop" in answer and "error:" not in answer
    assert answer.split("\n---\n", 1)[1].strip() == SLOW_REPLY
    assert len(fake.requests) == 1


def pipeline(args: list[str], reader: list[str]) -> tuple[int, bytes, bytes]:
    """``conv ARGS | READER`` as a shell runs it: conv's exit code and stderr,
    and what the reader printed."""
    conv = subprocess.Popen([sys.executable, "-m", "conv", *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=conv_env())
    head = subprocess.Popen(reader, stdin=conv.stdout, stdout=subprocess.PIPE)
    conv.stdout.close()  # the reader holds the pipe's reading end alone
    shown = head.communicate(timeout=60)[0]
    err = conv.stderr.read()
    return conv.wait(60), err, shown


def stored_answer(store) -> str:
    names = git(store, "ls-tree", "-r", "--name-only", "HEAD").split()
    (path,) = [n for n in names if n.endswith("-assistant.md")]
    return git(store, "show", f"HEAD:{path}")


def test_list_show_and_export_into_head_exit_quietly(fake, store_path):
    """Outputs far larger than a pipe holds (five 100 kB titles, a 1 MB answer),
    read by head, which leaves after a line or 10 bytes."""
    fake.set(reply=("x" * 999 + " ") * 1000)
    for n in range(5):
        conv_id = json.loads(ok("ask", "--json", f"question {n}").stdout)["conversation"]
        ok("title", conv_id, "t" * 100_000)
    for args, reader in ((["list"], ["head", "-1"]), (["show"], ["head", "-1"]), (["export"], ["head", "-c", "10"]),
                         (["show", "--json"], ["head", "-1"]), (["show", "--raw"], ["head", "-1"]),
                         (["list", "--json"], ["head", "-c", "10"]),
                         (["ask", "-c", "--no-stream", "more"], ["head", "-c", "10"])):
        code, err, shown = pipeline(args, reader)
        if args[0] == "ask":  # a 1 MB answer outgrows the window: the summary that takes its place is said
            err = b"".join(line for line in err.splitlines(True) if b"go as a summary" not in line)
        assert (code, err) == (141, b""), args
        assert shown and len(shown) <= 100_100, args
