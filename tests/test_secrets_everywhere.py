"""Secrets stop at the same line everywhere (issue 34, part 3): the store's
pre-commit scan reads every file conv writes (a file sent with -f, a tool's
whole output kept beside an imported turn), not only the Markdown turns;
conv share masks what its page shows, after the Markdown is parsed; and a
credential an endpoint sends is masked in every form a server may echo it."""

import json
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import fails, git, ok, run_conv

KEY = "sk-proj-" + "Zx9Qw8Er7Ty6" * 4
PEM = ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
       "QyNTUxOQAAACDrCx0YBVlpZnF4a8ITIh1lGVJLSaSnnDjHN6fFp0Pm7AAAAJh4uP7+eLj+\n-----END OPENSSH PRIVATE KEY-----\n")


def objects(store) -> set[str]:
    out = subprocess.run(["git", "-C", str(store), "cat-file", "--batch-all-objects", "--batch-check"],
                         capture_output=True, text=True).stdout
    return set(out.split("\n"))


@pytest.mark.parametrize("kind", ["env file", "linked private key"])
def test_a_key_in_a_file_sent_with_a_question_is_refused_before_it_is_sent(kind, fake, tmp_path, store_path):
    ok("ask", "a first question")
    ok("hooks", "install", "pre-commit")
    before, head = objects(store_path), git(store_path, "rev-parse", "HEAD")
    if kind == "env file":
        sent = tmp_path / ".env"
        sent.write_text(f"DEBUG=1\nOPENAI_API_KEY={KEY}\n")
    else:
        (tmp_path / "id_ed25519").write_text(PEM)
        sent = tmp_path / "key.txt"
        sent.symlink_to(tmp_path / "id_ed25519")
    asked = len(fake.requests)
    said = fails("ask", "-f", str(sent), "what is wrong here?", code=1)
    assert "pre-commit hook refused the commit" in said and "kept with conversation" in said
    assert KEY not in said and "b3BlbnNz" not in said
    assert len(fake.requests) == asked  # never sent to the model
    assert git(store_path, "rev-parse", "HEAD") == head and objects(store_path) == before


def session(folder, tool_output: str):
    folder.mkdir(parents=True, exist_ok=True)
    records = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-11-26T10:00:00.000Z",
         "sessionId": "s1", "cwd": str(folder), "message": {"role": "user", "content": "read the log"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": "2026-11-26T10:00:01.000Z",
         "message": {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Read",
                                                        "input": {"file_path": "build.log"}}]}},
        {"type": "user", "uuid": "r1", "parentUuid": "a1", "timestamp": "2026-11-26T10:00:02.000Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                                   "content": tool_output}]}},
    ]
    (folder / "s1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def test_a_key_at_the_end_of_a_long_tool_output_is_scanned_too(tmp_path, store_path):
    """The output is longer than what the turn keeps: its whole is a file
    beside the turn, which the scan reads as it reads the turn."""
    log = "".join(f"line {n}\n" for n in range(1000)) + f"export OPENAI_API_KEY={KEY}\n"
    session(tmp_path / "with-key", log)
    session(tmp_path / "clean", "all is well\n")
    ok("hooks", "install", "pre-commit")
    done = json.loads(ok("import", "--from", "claude-code", str(tmp_path / "with-key"), "--json").stdout)
    assert done["added"] == 1 and "turn 2 holds what looks like an OpenAI API key, so it stays" in done["skipped"][0]
    assert KEY not in subprocess.run(["git", "-C", str(store_path), "log", "-p", "--all"], capture_output=True,
                                     text=True).stdout
    clean = json.loads(ok("import", "--from", "claude-code", str(tmp_path / "clean"), "--json").stdout)
    assert clean["turns_added"] == 1  # (the same session id: its answer joins the question held before)
    hook = subprocess.run([str(store_path / "hooks" / "pre-commit")], input=f"{'0' * 40} x\n", text=True,
                          capture_output=True, env={"PATH": "/usr/bin:/bin"})
    assert hook.returncode == 0  # (a blob it cannot find is git's to report, not a secret)


def test_the_hook_reads_a_file_kept_beside_a_turn_as_it_reads_the_turn(fake, store_path):
    ok("ask", "a question")
    ok("hooks", "install", "pre-commit")
    log = "".join(f"line {n}\n" for n in range(1000)) + f"export OPENAI_API_KEY={KEY}\n"
    sha = subprocess.run(["git", "-C", str(store_path), "hash-object", "-w", "--stdin"], input=log, text=True,
                         capture_output=True, check=True).stdout.strip()
    kept = "conversations/k/3/k3f9x2ab7q4m/20261126-100001.000-aaaa-assistant.1.txt"
    hook = subprocess.run([str(store_path / "hooks" / "pre-commit")], input=f"{sha} {kept}\n", text=True,
                          capture_output=True, env={"GIT_DIR": str(store_path), "PATH": "/usr/bin:/bin"})
    assert hook.returncode == 1
    assert hook.stderr.startswith("the file 20261126-100001.000-aaaa-assistant.1.txt kept with conversation "
                                  "k3f9x2ab7q4m holds an OpenAI API key") and KEY not in hook.stderr


def page(tmp_path, conv) -> str:
    out = tmp_path / "page.html"
    ok("share", conv, "--force", "-o", str(out))
    return out.read_text()


def test_share_masks_what_the_page_shows(fake, tmp_path):
    hidden = "sk-proj-" + "Hh7Jj6Kk5Ll4" * 4
    fake.set(reply=(f"As entities: sk&#45;proj-{hidden[8:]}\n\n"
                    f"Split: sk-proj-{hidden[8:20]}*{hidden[20:30]}*{hidden[30:]}\n\n```\n{PEM}```\n"))
    conv = json.loads(ok("ask", "--json", "show me keys").stdout)["conversation"]
    text = page(tmp_path, conv)
    for secret in (hidden, hidden[8:20] + hidden[20:30], "b3BlbnNzaC1rZXktdjEAAAAA", "QyNTUxOQAAACDrCx0Y"):
        assert secret not in text, secret
    said = ok("share", conv, "--force", "-o", str(tmp_path / "p2.html")).stderr.decode()
    assert said.count("masked: turn 2 held what looks like an OpenAI API key") == 1
    assert "masked: turn 2 held what looks like a private key" in said


def test_a_key_in_a_command_models_line_is_masked_in_the_page(tmp_path):
    model = f"cmd:echo --api-key {KEY} fine"
    conv = json.loads(ok("ask", "-m", model, "--json", "hello").stdout)["conversation"]
    text = page(tmp_path, conv)
    assert KEY not in text and KEY[:20] not in text


class Echo(BaseHTTPRequestHandler):
    """A server that refuses every request, echoing the bare token it was sent, as OpenAI's does."""

    def do_POST(self):
        token = self.headers.get("Authorization", "").partition(" ")[2]
        body = json.dumps({"error": {"message": f"Incorrect API key provided: {token}.", "type": "invalid"}})
        self.send_response(401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


def test_a_bearer_token_in_an_endpoint_header_is_masked_when_a_server_echoes_it_bare(tmp_path, store_path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    token = "tok-" + "9sD8fG7hJ6kL" * 3
    try:
        ok("config", "set", "endpoints.corp.base_url", f"http://127.0.0.1:{server.server_address[1]}/v1")
        ok("config", "set", "endpoints.corp.headers", f"Authorization: Bearer {token}")
        done = run_conv("ask", "-m", "corp:m1", "hello")
    finally:
        server.shutdown()
    said = done.stderr.decode()
    assert done.returncode == 3 and "Incorrect API key provided" in said and token not in said
    stored = subprocess.run(["git", "-C", str(store_path), "log", "-p"], capture_output=True, text=True).stdout
    assert "Incorrect API key provided" in stored and token not in stored


def test_share_masks_a_key_in_alt_text_or_with_invisible_characters(fake, tmp_path):
    key = "sk-proj-" + "Ab3dEf6hIj9k" * 4
    fake.set(reply=(f"![{key}](x.png)\n\nzero width: {key[:30]}\u200b{key[30:]}\n\n"
                    f"soft hyphen: {key[:12]}&shy;{key[12:]}\n\nother dash: sk&#8209;proj-{key[8:]}\n\n"
                    "in code, an entity is text: `AKIAHLMEGW&#x200b;BCEHZQGMUA`\n"))
    conv = json.loads(ok("ask", "--json", "hide a key").stdout)["conversation"]
    text = page(tmp_path, conv)
    for tail in (key[8:], key[30:], key[12:], "BCEHZQGMUA"):
        assert tail not in text, tail
    said = ok("share", conv, "--force", "-o", "-").stdout.decode()  # - is stdout
    assert said.startswith("<!DOCTYPE html>") and key[8:] not in said


def test_a_key_with_an_invisible_character_inside_is_refused_by_the_hook(fake, store_path):
    ok("ask", "a first question")
    ok("hooks", "install", "pre-commit")
    said = fails("ask", f"my key: {KEY[:20]}\u200b{KEY[20:]}", code=1)
    assert "holds an OpenAI API key" in said
    for hidden in ("&#x200b;", "&#8203;", "&shy;", "&ZeroWidthSpace;"):  # as Markdown may write it
        assert "holds an OpenAI API key" in fails("ask", f"my key: {KEY[:20]}{hidden}{KEY[20:]}", code=1)
    assert "holds" not in ok("ask", "an entity of something else: a&amp;b, &lt;tag&gt; &#65;").stderr.decode()


def test_share_to_a_place_it_cannot_write_is_one_line(fake, tmp_path):
    conv = json.loads(ok("ask", "--json", "hello").stdout)["conversation"]
    (tmp_path / "afile").write_text("x")
    assert "afile is a file, not a folder" in fails("share", conv, "-o", str(tmp_path / "afile" / "x.html"), code=1)
    assert "File name too long" in fails("share", conv, "-o", str(tmp_path / ("x" * 300)), code=1)


@pytest.mark.parametrize("what, key", [
    ("a Stripe secret key", "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"),
    ("a Google API key", "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"),
    ("a Hugging Face token", "hf_" + "abcdefghijklmnopqrstuvwxyzABCDEFGH"),
    ("a GitLab token", "glpat-" + "xxxxxxxxxxxxxxxxxxxx"),
    ("an npm token", "npm_" + "a" * 36),
])
def test_the_tokens_of_the_usual_services_are_keys_too(what, key, tmp_path):
    """The scan every capture and import goes through, and the pre-commit hook's (one list)."""
    from conv.home.key_shapes import key_shaped

    assert key_shaped(f"here it is: {key} , thanks") == what
    assert key_shaped(f"not quite: {key[:-4]}") is None  # shorter than such a key


def test_a_search_matching_part_of_a_key_never_shows_the_key(fake):
    key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-AAAAAA"
    fake.reply = f"the key is {key} and it works"
    ok("ask", "which key do we use?", env={"CONV_ALLOW_SECRETS": "1"})  # kept, as a user may keep one
    for query in ("api03", "sk-ant-api03", "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "works"):
        said = ok("search", query).stdout.decode() + ok("search", query, "--json").stdout.decode()
        assert "AbCdEfGh" not in said, (query, said)


def test_a_key_in_a_title_or_a_summary_is_masked_in_listings_and_search_hits(fake):
    """conv list and conv search showed a key in a title (their JSON too) where their snippets and MCP mask it."""
    key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-AAAAAA"
    fake.reply = "noted"
    conv_id = json.loads(ok("ask", "--json", f"deploy with {key} please",
                            env={"CONV_ALLOW_SECRETS": "1"}).stdout)["conversation"]
    ok("summary", conv_id, f"used {key}", env={"CONV_ALLOW_SECRETS": "1"})
    for args in (("list",), ("list", "--json"), ("search", "deploy"), ("search", "deploy", "--json")):
        said = ok(*args).stdout.decode()
        assert "deploy with" in said and "AbCdEfGh" not in said, (args, said)
    assert key in ok("show", conv_id).stdout.decode()  # the conversation itself, asked for, as it is stored


def test_the_index_is_its_owners_alone(fake, conv_home):
    ok("ask", "what is in the index?")
    index = conv_home / "cache" / "index.sqlite"
    assert index.stat().st_mode & 0o077 == 0  # and SQLite gives its journal the same
    index.chmod(0o644)  # an index an older conv made
    ok("list")
    assert index.stat().st_mode & 0o077 == 0
