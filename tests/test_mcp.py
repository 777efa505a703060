"""conv mcp: the store as an MCP server on stdio, tried by real clients (the
MCP Inspector's --cli mode, Claude Code, Codex, each against a loopback fake
scripted to call the tools) and by hand, message by message, as a careless
or hostile client would talk to it."""

import json
import subprocess
import sys

import pytest
from anthropic_fake import AnthropicFake
from conftest import conv_env, ok
from responses_fake import ResponsesFake, message

DECIDED = "We decided on three retries with exponential backoff, capped at 30 seconds."
KEY = "sk-test-a1b2c3d4e5f6g7h8"  # a secret conv knows (an *_API_KEY of the environment): masked


@pytest.fixture
def store(fake):
    """Two conversations: one about the retry policy (holding a known key), one about something else."""
    fake.reply = DECIDED + f" The key was {KEY}."
    ok("ask", "what retry policy did we settle on for the uploader?", env={"UPLOADER_API_KEY": KEY})
    conv_id = json.loads(ok("list", "--json").stdout)[0]["id"]
    fake.reply = "Use git rebase -i to squash them."
    ok("ask", "-n", "how do I squash commits?")
    return conv_id


class Server:
    """conv mcp as a process, spoken to a line at a time (initialized as a client does, unless not ``ready``)."""

    def __init__(self, env: dict | None = None, ready: bool = True):
        self.process = subprocess.Popen([sys.executable, "-m", "conv", "mcp"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=conv_env(env))
        if ready:
            self.ask(request(0, "initialize", protocolVersion="2025-11-25", capabilities={}, clientInfo={}))
            self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, line) -> None:
        self.process.stdin.write((line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n")
        self.process.stdin.flush()

    def ask(self, line) -> dict:
        self.send(line)
        return json.loads(self.process.stdout.readline())

    def close(self) -> tuple[int, bytes]:
        self.process.stdin.close()
        rest = self.process.stdout.read()
        return self.process.wait(10), rest


def request(ident, method, **params) -> dict:
    return {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}


def called(server: Server, ident: int, name: str, **arguments):
    """A tool's answer: its error's text, or what it found (search's hits, list's conversations, show's
    conversation), given as an object in text and as structured content alike."""
    answer = server.ask(request(ident, "tools/call", name=name, arguments=arguments))["result"]
    text = answer["content"][0]["text"]
    if answer.get("isError"):
        return text, True
    found = json.loads(text)
    assert isinstance(found, dict) and answer["structuredContent"] == found
    return found.get({"search": "hits", "list": "conversations"}.get(name), found), False


@pytest.mark.parametrize("asked, given", [("2025-11-25", "2025-11-25"), ("2025-06-18", "2025-06-18"),
                                          ("2024-11-05", "2024-11-05"), ("2099-01-01", "2025-11-25"),
                                          (None, "2025-11-25")])
def test_the_protocol_version_is_negotiated_as_the_specification_says(asked, given):
    server = Server(ready=False)
    answer = server.ask(request(1, "initialize", protocolVersion=asked, capabilities={},
                                clientInfo={"name": "t", "version": "1"}))
    assert answer["result"]["protocolVersion"] == given
    assert answer["result"]["capabilities"] == {"tools": {"listChanged": False},
                                                "resources": {"listChanged": True, "subscribe": False}}
    assert server.close() == (0, b"")


def test_a_client_that_speaks_badly_gets_errors_never_a_crash(store):
    server = Server(ready=False)
    before = server.ask(request(0, "tools/call", name="list", arguments={}))  # before initialize: refused
    assert before["error"] == {"code": -32600, "message": "invalid request: tools/call before initialize"}
    server.ask(request(1, "initialize", protocolVersion="2025-11-25", capabilities={}, clientInfo={}))
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})  # never answered
    assert server.ask(b"{not json")["error"]["code"] == -32700
    assert server.ask(b'{"jsonrpc": "2.0", "id": 2}')["error"]["code"] == -32600
    assert server.ask(request(3, "prompts/list"))["error"]["code"] == -32601
    assert server.ask(b"[" * 100_000)["error"]["code"] == -32700
    assert server.ask(b'"a' + b"x" * (5 * 1024 * 1024) + b'"')["error"]["message"] == "request too large"
    assert server.ask([request(4, "ping")])["error"]["message"] == "invalid request: no batch in this protocol " \
                                                                   "version"  # 2025-06-18 removed batches
    assert server.ask({"jsonrpc": "2.0", "id": None, "method": "ping"})["error"]["code"] == -32600  # never null
    answer = server.ask({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "list",
                                                                                       "arguments": []}})
    assert answer["error"]["code"] == -32602
    again = server.ask(request(5, "initialize", protocolVersion="2024-11-05", capabilities={}, clientInfo={}))
    assert again["error"]["message"] == "invalid request: already initialized"  # the version agreed on stays
    assert server.ask([request(6, "ping")])["error"]["code"] == -32600
    for arguments, said in [({}, "query is required"), ({"query": "x", "limit": "5"}, "limit must be a whole"),
                            ({"query": "x", "limit": 0}, "limit must be from 1 to 50"),
                            ({"query": "x", "nope": 1}, "unknown argument 'nope'"),
                            ({"query": "x", "here": "nowhere/at/all"}, "here: 'nowhere/at/all' is no folder"),
                            ({"query": "x", "source": "windsurf"}, "conv imports from no such tool")]:
        text, failed = called(server, 5, "search", **arguments)
        assert failed and said in text, (arguments, text)
    assert called(server, 6, "show", id="zzzzzz") == (
        "no conversation matches 'zzzzzz'. the search and list tools give the ids", True)
    assert called(server, 6, "show", id="x" * 3_000_000) == ("id is longer than 100 characters", True)
    assert called(server, 6, "show", id=store, before=2) == ("it has 2 turns: before must be fewer than that", True)
    assert len(called(server, 6, "list", limit=1.0)[0]) == 1  # JSON has one kind of number
    assert called(server, 7, "drop_everything")[1]
    assert len(called(server, 7, "x" * 3_000_000)[0]) < 300  # a name is not echoed whole
    for arguments, said in [({"query": "a\u0000b"}, "query holds a NUL or a lone surrogate"),
                            ({"query": "\ud800"}, "query holds a NUL or a lone surrogate"),
                            ({"query": "x " * 600}, "query is longer than 1,000 characters"),
                            ({"query": "x", "since": "yesterday-ish"}, "since 'yesterday-ish' is neither"),
                            ({"query": "x", "since": "2025"}, ""), ({"query": "x", "since": "20251124"}, ""),
                            ({"query": "x", "since": "1700000000"}, "since '1700000000' is neither"),
                            ({"query": "x", "since": ""}, "since '' is neither"),
                            ({"query": "x", "here": "/"}, "here: '/' holds every project"),
                            ({"query": "x", "limit": 0}, "limit must be from 1 to 50")]:
        text, failed = called(server, 8, "search", **arguments)
        assert (failed and said in text and "--" not in text) if said else not failed, (arguments, text)
    text, failed = called(server, 8, "search", query="x", since="--since 3d")  # the value as it was given
    assert failed and "since '--since 3d' is neither" in text
    assert called(server, 9, "show", id=store, last=0) == ("last must be 1 or more", True)
    assert server.ask(b"[]")["error"]["code"] == -32600
    assert server.ask({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}) == \
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "invalid request: an id is a string or "
                                                                            "a number"}}
    server.send({"jsonrpc": "2.0", "id": 27, "result": {}})  # a response: passed over, never answered
    assert server.ask({"jsonrpc": "2.0", "id": "\ud800", "method": "ping"})["id"] == "\ud800"
    assert server.ask(request(10, "tools/call"))["error"]["code"] == -32602
    assert server.close() == (0, b"")


def test_search_show_and_list_answer_with_the_stored_words_masked_and_capped(store):
    server = Server({"UPLOADER_API_KEY": KEY})
    hits, _ = called(server, 1, "search", query="retry policy")
    assert [h["id"] for h in hits] == [store]
    assert hits[0]["source"] == "conv" and hits[0]["turn"].endswith("-user") and "retry" in hits[0]["snippet"]
    assert called(server, 2, "search", query='"policy retry"')[0] == []  # a phrase: side by side, in order
    shown, _ = called(server, 3, "show", id=store[:6])
    assert shown["turns"][1]["content"].startswith(DECIDED) and KEY not in json.dumps(shown) and "***" in \
        shown["turns"][1]["content"]
    assert called(server, 4, "show", id=store, last=1)[0]["left_out"] == \
        "turns 2 to 2 of 2 are shown; ask with before=1 for the earlier ones"
    earlier, _ = called(server, 7, "show", id=store, before=1)
    assert [t["role"] for t in earlier["turns"]] == ["user"] and earlier["left_out"] == "turns 1 to 1 of 2 are shown"
    listed, _ = called(server, 5, "list", limit=1)
    assert len(listed) == 1 and listed[0]["title"] == "how do I squash commits?"
    assert called(server, 6, "list", source="claude-code")[0] == []
    server.close()


def test_what_an_agent_is_handed_is_masked_before_it_is_cut_and_acts_on_no_terminal(fake):
    secret = "https://bob:hunter2pass@example.com/x"
    fake.reply = f"zanzibar {' '.join(f'w{n}' for n in range(12))} {secret} and \x1b]52;c;aGk=\x07 done"
    ok("ask", "where is it?")
    hits, _ = called(server := Server(), 1, "search", query="zanzibar")
    cut = hits[0]["snippet"]
    assert "hunter2" not in cut and "bob" not in cut, cut
    shown, _ = called(server, 2, "show", id=hits[0]["id"])
    assert "\x1b" not in json.dumps(shown) and "***@example.com" in shown["turns"][1]["content"]
    server.close()
    assert "hunter2" not in ok("search", "zanzibar").stdout.decode()


def test_an_older_client_may_send_a_batch():
    server = Server(ready=False)
    server.ask(request(1, "initialize", protocolVersion="2025-03-26", capabilities={}, clientInfo={}))
    assert server.ask([request(4, "ping"), {"jsonrpc": "2.0", "method": "notifications/cancelled"}]) == \
        [{"jsonrpc": "2.0", "id": 4, "result": {}}]
    assert server.close() == (0, b"")


def test_conversations_are_resources_listed_read_and_said_to_change(store, fake, tmp_path):
    server = Server(env={"CONV_SESSION": "term-1"}, ready=False)
    server.ask(request(1, "initialize", protocolVersion="2025-11-25", capabilities={}, clientInfo={}))
    server.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    listed = server.ask(request(2, "resources/list"))["result"]["resources"]
    assert [r["uri"] for r in listed][-2:] == [f"conv://{c['id']}" for c in json.loads(ok("list", "--json").stdout)]
    assert all(r["mimeType"] == "text/markdown" and " turns" in r["description"] for r in listed)
    templates = server.ask(request(3, "resources/templates/list"))["result"]["resourceTemplates"]
    assert templates[0]["uriTemplate"] == "conv://{id}"
    (read,) = server.ask(request(4, "resources/read", uri=f"conv://{store[:6]}"))["result"]["contents"]
    assert DECIDED in read["text"] and KEY not in read["text"] and read["text"].startswith("# ")
    missing = server.ask(request(5, "resources/read", uri="conv://zzzzzz"))["error"]
    assert missing["code"] == -32002 and missing["data"] == {"uri": "conv://zzzzzz"}
    assert server.ask(request(6, "resources/read", uri="conv://current"))["error"]["code"] == -32002
    import select

    assert select.select([server.process.stdout], [], [], 2.5)[0] == []  # nothing changed: nothing said
    fake.reply = "It is the webhook retry policy."
    ok("ask", "which policy is this?", env={"CONV_SESSION": "term-1"})  # this terminal's, while it is open
    assert json.loads(server.process.stdout.readline()) == {"jsonrpc": "2.0",
                                                            "method": "notifications/resources/list_changed"}
    listed = server.ask(request(7, "resources/list"))["result"]["resources"]
    assert listed[0]["uri"] == "conv://current" and listed[0]["description"].startswith("this terminal's")
    (current,) = server.ask(request(8, "resources/read", uri="conv://current"))["result"]["contents"]
    assert "It is the webhook retry policy." in current["text"]
    assert server.close()[0] == 0


@pytest.fixture
def personal(fake, tmp_path, monkeypatch):
    """A conversation whose answer names the user's home, another's e-mail and an address; the home."""
    home = tmp_path / "home" / "analima"
    home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    fake.reply = f"Your notes are in {home}/notes.md; ask bob.smith@contoso.com or 10.20.30.40."
    ok("ask", "where did I put them?")
    return home


def test_a_resource_gives_nothing_of_the_user_away(personal):
    home = personal
    server = Server(ready=False)
    server.ask(request(1, "initialize", protocolVersion="2025-11-25", capabilities={}, clientInfo={}))
    current, listed = server.ask(request(2, "resources/list"))["result"]["resources"]  # this terminal's: the last
    assert current["uri"] == "conv://current" and listed["uri"] != current["uri"]   # one asked (no conv shell)
    (read,) = server.ask(request(3, "resources/read", uri=listed["uri"]))["result"]["contents"]
    assert "~/notes.md" in read["text"] and "<email-1>" in read["text"] and "<ip-1>" in read["text"]
    assert str(home) not in read["text"] and "contoso" not in read["text"]
    server.close()


def test_the_tools_give_nothing_of_the_user_away(personal):
    home = personal
    server = Server()
    (hit,), _ = called(server, 1, "search", query="notes")
    (listed,), _ = called(server, 2, "list")
    shown, _ = called(server, 3, "show", id=listed["id"])
    for said in (hit, listed, shown):
        text = json.dumps(said)
        assert str(home) not in text and "analima" not in text and "contoso" not in text and "10.20" not in text
    assert "~/notes.md" in hit["snippet"] and "<email-1>" in shown["turns"][-1]["content"]
    for guess in ("contoso", "10.20.30", "analima"):  # found, it would say what the masked value holds
        assert called(server, 4, "search", query=guess) == ([], False), guess
    server.close()


def test_the_mcp_inspector_lists_and_calls_each_tool(mcp_inspector, store, conv_home):
    def inspect(*args: str) -> dict:
        done = subprocess.run([str(mcp_inspector), "--cli", "-e", f"CONV_HOME={conv_home}", sys.executable, "-m",
                               "conv", "mcp", *args], capture_output=True, text=True, timeout=120, env=conv_env())
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout)

    assert [t["name"] for t in inspect("--method", "tools/list")["tools"]] == ["search", "show", "list", "origin"]
    found = inspect("--method", "tools/call", "--tool-name", "search", "--tool-arg", "query=backoff")
    assert json.loads(found["content"][0]["text"])["hits"][0]["id"] == store
    shown = inspect("--method", "tools/call", "--tool-name", "show", "--tool-arg", f"id={store}")
    assert DECIDED in shown["content"][0]["text"]
    listed = inspect("--method", "tools/call", "--tool-name", "list")
    assert len(json.loads(listed["content"][0]["text"])["conversations"]) == 2
    resources = inspect("--method", "resources/list")["resources"]
    assert f"conv://{store}" in [r["uri"] for r in resources]
    read = inspect("--method", "resources/read", "--uri", f"conv://{store}")
    assert DECIDED in read["contents"][0]["text"]
    assert inspect("--method", "resources/templates/list")["resourceTemplates"][0]["uriTemplate"] == "conv://{id}"


def tool_results(requests: list) -> list[str]:
    """The text of every tool result Claude Code sent back to the model."""
    out = []
    for body in requests:
        for msg in body.get("messages", []):
            for block in msg.get("content", []) if isinstance(msg.get("content"), list) else []:
                if block.get("type") == "tool_result":
                    content = block.get("content")
                    out.append(content if isinstance(content, str) else json.dumps(content))
    return out


def test_claude_code_calls_search_then_show_and_gets_the_stored_words(claude_code, store, conv_home, tmp_path):
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"conv": {"command": sys.executable, "args": ["-m", "conv", "mcp"],
                                                           "env": {"CONV_HOME": str(conv_home)}}}}))
    with AnthropicFake() as server:
        server.script = [
            [{"type": "tool_use", "id": "toolu_1", "name": "mcp__conv__search", "input": {"query": "retry policy"}}],
            [{"type": "tool_use", "id": "toolu_2", "name": "mcp__conv__show", "input": {"id": store}}],
            [{"type": "text", "text": "You settled on three retries."}]]
        env = conv_env({"HOME": str(tmp_path / "user"), "ANTHROPIC_BASE_URL": server.url,
                        "ANTHROPIC_API_KEY": "sk-ant-test", "DISABLE_AUTOUPDATER": "1",
                        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"})
        done = subprocess.run([str(claude_code), "-p", "what retry policy did we decide on?", "--mcp-config",
                               str(config), "--allowedTools", "mcp__conv__search,mcp__conv__show"],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180,
                              stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr[-2000:]
        results = tool_results(server.requests[-1:])
    assert len(results) == 2, results
    assert store in results[0] and "retry" in results[0]
    assert DECIDED in results[1].replace("\\", "")


def test_codex_calls_search_then_show_and_gets_the_stored_words(codex, store, conv_home, tmp_path):
    home = tmp_path / "codex-home"
    with ResponsesFake() as server:
        home.mkdir()
        (home / "config.toml").write_text(
            'model = "gpt-test"\nmodel_provider = "fake"\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "{server.url}/v1"\nwire_api = "responses"\nenv_key = "FAKE_KEY"\n'
            f'[mcp_servers.conv]\ncommand = "{sys.executable}"\nargs = ["-m", "conv", "mcp"]\n'
            f'env = {{ CONV_HOME = "{conv_home}" }}\n')
        server.script = [
            # Codex offers an MCP server's tools as one namespace tool, mcp__conv, called by name in it
            [{"type": "function_call", "id": "fc_1", "call_id": "call_1", "namespace": "mcp__conv", "name": "search",
              "arguments": json.dumps({"query": "retry policy"})}],
            [{"type": "function_call", "id": "fc_2", "call_id": "call_2", "namespace": "mcp__conv", "name": "show",
              "arguments": json.dumps({"id": store})}],
            [message("You settled on three retries.")]]
        done = subprocess.run([str(codex), "exec", "--skip-git-repo-check", "-s", "read-only",
                               "what retry policy did we decide on?"], cwd=tmp_path,
                              env=conv_env({"CODEX_HOME": str(home), "FAKE_KEY": "sk-test"}), capture_output=True,
                              text=True, timeout=180, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stderr[-2000:]
        offered = next(t for t in server.requests[0]["tools"] if t.get("name") == "mcp__conv")
        outputs = [i.get("output") for body in server.requests for i in body.get("input", [])
                   if i.get("type") == "function_call_output"]
    assert sorted(t["name"] for t in offered["tools"]) == ["list", "origin", "search", "show"]
    text = json.dumps(outputs)
    assert store in text and "three retries with exponential backoff" in text, outputs[:2]
