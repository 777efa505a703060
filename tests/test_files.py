"""Files in a question (``conv ask -f``) through the real ``conv`` process:
real PNG bytes to the loopback fakes of OpenAI's and Anthropic's APIs,
checked in the request; stored once beside the question (checked with git);
sent again by follow-ups, kept by forks, exports and --dry-run; refused,
with nothing stored or sent, where they cannot go."""

import base64
import json
import os
import struct
import subprocess
import sys
import threading
import time
import zlib

import pytest
from conftest import conv_env, fails, git, ok

QUESTION = "what is in these?"


def png(width: int, height: int) -> bytes:
    """A real PNG (red pixels), as any image viewer reads it."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\0" + b"\xff\0\0" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


@pytest.fixture
def files(tmp_path):
    (tmp_path / "red.png").write_bytes(png(8, 8))
    (tmp_path / "main.py").write_text('print("hi")\n# a fence inside: ```\n')
    return tmp_path



def data_uri(data: bytes, kind: str = "image/png") -> str:
    return f"data:{kind};base64,{base64.b64encode(data).decode()}"


def stored_blobs(store) -> dict[str, str]:
    """path -> blob id of every file at HEAD."""
    lines = git(store, "ls-tree", "-r", "HEAD").splitlines()
    return {line.split("\t")[1]: line.split()[2] for line in lines}


def test_a_text_file_and_an_image_go_to_openai_and_are_stored_once(fake, files, store_path):
    ok("ask", "-f", str(files / "main.py"), "--file", str(files / "red.png"), QUESTION)
    content = fake.requests[-1]["messages"][-1]["content"]
    text, image = content
    assert text["type"] == "text" and text["text"].startswith(QUESTION + "\n\n" + f"{files / 'main.py'}:\n````\n")
    assert 'print("hi")\n# a fence inside: ```\n````' in text["text"]  # a fence longer than any inside
    assert f"[image: {files / 'red.png'}]" in text["text"]
    assert image == {"type": "image_url", "image_url": {"url": data_uri(png(8, 8))}}

    blobs = stored_blobs(store_path)
    png_blob = git(store_path, "hash-object", str(files / "red.png")).strip()
    kept = [path for path, sha in blobs.items() if sha == png_blob]
    assert len(kept) == 1 and kept[0].endswith("-user.2.png")
    question = json.loads(ok("show", "--json").stdout)["turns"][0]
    assert question["files"] == [
        {"name": str(files / "main.py"), "file": kept[0].rsplit("/", 1)[1].replace(".2.png", ".1.py"),
         "type": "text/plain", "bytes": len((files / "main.py").read_bytes())},
        {"name": str(files / "red.png"), "file": kept[0].rsplit("/", 1)[1], "type": "image/png",
         "bytes": len(png(8, 8))}]
    assert question["content"] == QUESTION  # the files are beside the turn, not in it
    shown = ok("show").stdout.decode()
    assert f"[file: {files / 'red.png'}, image/png," in shown and f"[file: {files / 'main.py'}, text/plain," in shown

    ok("ask", "-c", "and now?")
    earlier = fake.requests[-1]["messages"][0]["content"]
    assert earlier[1] == image  # a follow-up sends the image again
    assert [sha for sha in stored_blobs(store_path).values() if sha == png_blob] == [png_blob]  # still one copy
    git(store_path, "fsck", "--strict")


def test_anthropic_gets_image_blocks(claude, files):
    ok("ask", "-m", "anthropic:claude-haiku-4-5", "-f", str(files / "red.png"), QUESTION)
    image, text = claude.requests[-1]["messages"][-1]["content"]
    assert image == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                 "data": base64.b64encode(png(8, 8)).decode()}}
    assert text == {"type": "text", "text": f"{QUESTION}\n\n[image: {files / 'red.png'}]"}


def test_stdin_as_a_file(fake):
    ok("ask", "-f", "-", "describe it", input=png(2, 2))
    _, image = fake.requests[-1]["messages"][-1]["content"]
    assert image["image_url"]["url"] == data_uri(png(2, 2))
    assert json.loads(ok("show", "--json").stdout)["turns"][0]["files"][0]["name"] == "stdin"


def test_a_fork_and_a_retry_keep_the_files(fake, files, store_path):
    first = json.loads(ok("ask", "--json", "-f", str(files / "red.png"), QUESTION).stdout)["conversation"]
    ok("retry")
    assert fake.requests[-1]["messages"][-1]["content"][1]["image_url"]["url"] == data_uri(png(8, 8))
    fork = json.loads(ok("fork", first, "--at", "1", "--json").stdout)["id"]
    ok("ask", "--cid", fork, "and in the fork?")
    assert fake.requests[-1]["messages"][0]["content"][1]["image_url"]["url"] == data_uri(png(8, 8))
    png_blob = git(store_path, "hash-object", str(files / "red.png")).strip()
    assert len([p for p, sha in stored_blobs(store_path).items() if sha == png_blob]) == 2  # one a folder, one blob
    ok("delete", first)
    ok("restore", first)
    assert len([p for p, sha in stored_blobs(store_path).items() if sha == png_blob]) == 2
    git(store_path, "fsck", "--strict")


def test_exports_and_dry_run_hold_the_files(fake, files):
    ok("ask", "-f", str(files / "main.py"), "-f", str(files / "red.png"), QUESTION)
    exported = json.loads(ok("export", "--format", "json").stdout)
    assert [base64.b64decode(f["data_base64"]) for f in exported["turns"][0]["files"]] == [
        (files / "main.py").read_bytes(), png(8, 8)]
    messages = json.loads(ok("export", "--format", "openai").stdout)
    assert messages[0]["content"][1]["image_url"]["url"] == data_uri(png(8, 8))
    md = ok("export").stdout.decode()
    assert 'print("hi")' in md and f"[image: {files / 'red.png'}]" in md
    preview = ok("ask", "-c", "--dry-run", "-f", str(files / "main.py"), "again").stdout.decode()
    assert preview.count('print("hi")') == 2  # the earlier question's file, and this one's


@pytest.mark.parametrize("make, args, said", [
    (None, ["-f", "nowhere.txt"], "no such file: nowhere.txt"),
    (None, ["-f", "."], ". is a directory"),
    (lambda d: (d / "x.bin").write_bytes(b"\x00\x01\x02ELF"), ["-f", "x.bin"], "x.bin is binary: neither text nor"),
    (lambda d: (d / "big.txt").write_text("x" * 101), ["-f", "big.txt"],
     "big.txt is 101 bytes, more than files.max_bytes (100)"),
    (lambda d: (d / "red.png").write_bytes(png(1, 1)), ["-m", "cmd:cat", "-f", "red.png"],
     "cmd:cat takes no images (red.png)"),
    (None, ["-f", "-"], "-f - reads stdin, but nothing was piped"),
    (lambda d: (d / "zero").symlink_to("/dev/zero"), ["-f", "zero"], "zero is neither a file nor a pipe"),
])
def test_files_that_cannot_go_are_refused_before_anything_is_stored_or_sent(fake, tmp_path, monkeypatch, store_path,
                                                                            make, args, said):
    monkeypatch.chdir(tmp_path)
    ok("config", "set", "files.max_bytes", "100")
    ok("ask", "before")
    head, sent = git(store_path, "rev-parse", "HEAD"), len(fake.requests)
    if make:
        make(tmp_path)
    line = fails("ask", *args, "a question", code=2)
    assert said in line and "Traceback" not in line
    assert git(store_path, "rev-parse", "HEAD") == head and len(fake.requests) == sent


def test_the_local_model_refuses_an_image_clearly(local_model, files, store_path):
    """SmolLM2 sees no images: said before the model is even started."""
    line = fails("ask", "-m", "local", "-f", str(files / "red.png"), QUESTION, code=2)
    assert "local:" in line and "takes no images" in line and "-m gpt-4o" in line
    assert fails("ask", "-m", "local", "-f", str(files / "red.png"), QUESTION, code=2) == line


def test_files_travel_by_sync_and_survive_a_merge_that_forks(fake, files, tmp_path):
    from test_sync import fsck_clean, two_terminals_one_remote

    a, b, remote = two_terminals_one_remote(fake, tmp_path)
    x = a.ask("-f", str(files / "red.png"), QUESTION)["conversation"]
    a.ok("sync")
    b.ok("sync")
    b.ok("use", x)
    a.ask("-c", "A goes on")
    b.ask("-c", "-f", str(files / "main.py"), "B goes on")
    a.ok("sync")
    fork = b.sync()["moved"][x]  # both lines grew: B's goes to a fork
    a.ok("sync")
    assert a.tree() == b.tree()
    for m, conv, last in ((a, x, "A goes on"), (b, fork, "B goes on")):
        m.ok("ask", "--cid", conv, "and then?")
        sent = fake.requests[-1]["messages"]
        assert sent[0]["content"][1]["image_url"]["url"] == data_uri(png(8, 8))  # the shared question's image
        texts = [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"] for m in sent]
        assert any(t.startswith(last) for t in texts)
    assert any('print("hi")' in (m["content"] if isinstance(m["content"], str) else "")
               for m in fake.requests[-1]["messages"])
    for repo in (a.store, b.store, remote):
        fsck_clean(repo)


def test_a_retry_of_an_image_question_by_a_model_that_sees_none_is_refused(fake, files, store_path):
    ok("ask", "-f", str(files / "red.png"), QUESTION)
    head, sent = git(store_path, "rev-parse", "HEAD"), len(fake.requests)
    assert "cmd:cat takes no images" in fails("retry", "-m", "cmd:cat", code=2)
    assert git(store_path, "rev-parse", "HEAD") == head and len(fake.requests) == sent


def test_an_export_imported_into_another_store_keeps_its_files(fake, files, tmp_path):
    from test_sync import Machine

    ok("ask", "-f", str(files / "main.py"), "-f", str(files / "red.png"), QUESTION)
    exported = tmp_path / "one.json"
    exported.write_bytes(ok("export", "--format", "json").stdout)
    other = Machine(tmp_path, "other")
    done = json.loads(other.ok("import", "--from", "conv", str(exported), "--json").stdout)
    assert (done["added"], done["turns_added"]) == (1, 2)
    assert json.loads(other.ok("import", "--from", "conv", str(exported), "--json").stdout)["turns_added"] == 0
    other.ok("ask", "-c", "go on")
    sent = fake.requests[-1]["messages"][0]["content"]
    assert 'print("hi")' in sent[0]["text"] and sent[1]["image_url"]["url"] == data_uri(png(8, 8))
    git(other.store, "fsck", "--strict")
    bad = tmp_path / "bad.json"
    bad.write_text('{"id": "x", "turns": [{"role": "user", "content": "q", "created": "2026-01-01T00:00:00Z", '
                   '"files": [{"name": "a.png"}]}]}')
    said = fails("import", "--from", "conv", str(bad), code=1)  # nothing in it could be read: said, not "0 new"
    assert "turns[0].files[0].data_base64: missing" in said


def test_a_pipe_or_a_fifo_is_read_to_its_end_as_stdin_is(fake, tmp_path, monkeypatch):
    """conv ask -f <(git diff) "review": bash hands conv /dev/fd/63, a pipe; a named FIFO too."""
    done = subprocess.run(["bash", "-c", f'{sys.executable} -m conv ask -f <(printf "diff --git a/x b/x\\n") '
                                         '--json "review this"'], capture_output=True, env=conv_env(), timeout=60)
    assert done.returncode == 0, done.stderr
    assert "diff --git a/x b/x" in json.dumps(fake.requests[-1]["messages"])
    fifo = tmp_path / "later"
    os.mkfifo(fifo)

    def write_later():
        time.sleep(1)
        with open(fifo, "w") as out:
            out.write("written a second later\n")

    threading.Thread(target=write_later).start()
    ok("ask", "-n", "-f", str(fifo), "and this?")
    assert "written a second later" in json.dumps(fake.requests[-1]["messages"])


def test_a_pipe_that_never_ends_is_refused_with_nothing_stored(fake, tmp_path, monkeypatch, store_path):
    from conv.services.ask import attachments

    monkeypatch.setattr(attachments, "PIPE_SECONDS", 1)
    fifo = tmp_path / "silent"
    os.mkfifo(fifo)  # no writer ever comes
    said = fails("ask", "-f", str(fifo), "anything?", code=2)
    assert "is a pipe that did not end within 1 s; nothing was stored or sent" in said
    assert not store_path.exists() and fake.requests == []
