"""Named endpoints and aliases (issue 14, part 2): two loopback servers, an
OpenAI-compatible one and an Anthropic one, configured side by side, asked
with -m ENDPOINT:MODEL and -m ALIAS through the CLI; the store read with git."""

import json
import subprocess
import sys

import pytest
from anthropic_fake import AnthropicFake
from conftest import fails, git, ok, run_conv
from fakeserver import FakeServer

ROUTER_KEY = "sk-router-0123456789abcdef"
CMD_KEY = "sk-from-a-command-fedcba9876543210"


@pytest.fixture
def two(conv_home, tmp_path):
    """groq (OpenAI-compatible, key from a variable, a header) and claude
    (Anthropic, key from a command that also leaves a trace it ran)."""
    with FakeServer() as groq, AnthropicFake() as claude:
        ran = tmp_path / "key-command-ran"
        script = tmp_path / "print-key.py"
        script.write_text(f"import pathlib; pathlib.Path({str(ran)!r}).touch(); print({CMD_KEY!r})\n")
        for key, value in {
            "endpoints.groq.base_url": groq.url, "endpoints.groq.key_env": "ROUTER_KEY",
            "endpoints.groq.headers": "X-Title: conv tests", "endpoints.groq.models": "llama-3.3-70b, mixtral",
            "endpoints.claude.base_url": claude.url, "endpoints.claude.api": "anthropic",
            "endpoints.claude.key_cmd": f"{sys.executable} {script}",
            "aliases.fast": "groq:llama-3.3-70b", "aliases.smart": "claude:claude-sonnet-4-5",
        }.items():
            ok("config", "set", key, value)
        yield groq, claude, ran


def test_endpoint_model_and_aliases_reach_the_right_server_with_its_key(two, store_path):
    groq, claude, ran = two
    env = {"ROUTER_KEY": ROUTER_KEY}
    first = json.loads(ok("ask", "-m", "groq:mixtral", "--json", "hello groq", env=env).stdout)
    assert groq.requests[-1]["model"] == "mixtral"
    assert groq.headers[-1]["Authorization"] == f"Bearer {ROUTER_KEY}" and groq.headers[-1]["X-Title"] == "conv tests"
    assert not ran.exists()  # claude's key command runs only when claude answers
    ok("ask", "--cid", first["conversation"], "and again", env=env)  # a follow-up stays on its endpoint
    assert len(groq.requests) == 2 and groq.requests[-1]["model"] == "mixtral"
    answer = json.loads(ok("show", first["conversation"], "--json").stdout)["turns"][-1]
    assert (answer["provider"], answer["model"]) == ("groq", "mixtral")

    ok("ask", "-m", "fast", "--new", "quick one", env=env)
    assert groq.requests[-1]["model"] == "llama-3.3-70b"
    done = ok("ask", "-m", "smart", "--new", "--json", "a hard one", env=env)
    assert claude.requests[-1]["model"] == "claude-sonnet-4-5" and ran.exists()
    assert claude.headers[-1]["x-api-key"] == CMD_KEY
    assert CMD_KEY not in done.stdout.decode() + done.stderr.decode()
    everything = subprocess.run(["git", "-C", str(store_path), "cat-file", "--batch-all-objects", "--batch"],
                                capture_output=True, check=True).stdout
    assert CMD_KEY.encode() not in everything and ROUTER_KEY.encode() not in everything
    assert git(store_path, "fsck", "--strict") is not None


def test_conv_models_lists_endpoints_and_aliases(two):
    groq, claude, _ = two
    shown = json.loads(ok("models", "--json", env={"ROUTER_KEY": ROUTER_KEY}).stdout)
    assert shown["aliases"] == {"fast": "groq:llama-3.3-70b", "smart": "claude:claude-sonnet-4-5"}
    assert shown["endpoints"]["groq"]["status"].startswith("answering") and shown["endpoints"]["groq"]["models"]
    assert shown["endpoints"]["claude"]["status"] == "not asked (its key comes from key_cmd)"
    text = ok("models", env={"ROUTER_KEY": ROUTER_KEY}).stdout.decode()
    assert "endpoint groq (-m groq:MODEL, openai)" in text and "fast = groq:llama-3.3-70b" in text


def test_bad_endpoint_settings_and_missing_keys_are_one_line(two):
    groq, claude, _ = two
    assert "use openai" in fails("config", "set", "endpoints.x.api", "soap", code=2)
    assert "is a provider of conv's own" in fails("config", "set", "endpoints.openai.base_url", "http://x", code=2)
    assert "use ENDPOINT:MODEL" in fails("config", "set", "aliases.quick", "nothing", code=2)
    assert "use the name of an environment variable" in fails("config", "set", "endpoints.groq.key_env", "not a name",
                                                              code=2)
    line = fails("ask", "-m", "groq:mixtral", "no key in the environment", code=3)
    assert "ROUTER_KEY is not set (endpoints.groq.key_env)" in line
    ok("config", "set", "endpoints.claude.key_cmd", f"{sys.executable} -c 'import sys; sys.exit(4)'")
    assert "endpoints.claude.key_cmd failed (exit 4)" in fails("ask", "-m", "smart", "hi", code=3)


# ---- issue 23: a name conv does not know is refused, never guessed ----

def test_a_prefix_that_names_no_endpoint_is_refused_with_did_you_mean_and_nothing_is_sent(two, fake, store_path):
    """-m grqo:llama-3.1-8b (a typo of groq) went, with OPENAI_API_KEY, to the
    default OpenAI-compatible server as a model named 'grqo:llama-3.1-8b'."""
    groq, claude, _ = two
    env = {"ROUTER_KEY": ROUTER_KEY, "OPENAI_API_KEY": "sk-openai-must-stay-home-0123"}
    line = fails("ask", "-m", "grqo:llama-3.1-8b", "hello", code=2, env=env)
    assert "'grqo' in 'grqo:llama-3.1-8b' is neither a provider nor an endpoint; nothing was sent" in line
    assert ("Did you mean groq:llama-3.1-8b?" in line
            and "Known: openai, ollama, anthropic, local, cmd, groq, claude" in line)
    line = fails("ask", "-m", "nosuch:xyz", "hello", code=2, env=env)
    assert "'nosuch'" in line and "Did you mean" not in line and "-m ollama:nosuch:xyz" in line
    assert not fake.requests and not groq.requests and not claude.requests
    assert not store_path.exists() or "hello" not in git(store_path, "log", "--format=%B")
    # a model whose own name has a colon goes with its provider; OpenAI's fine-tunes (ft:) as they are
    ok("ask", "-m", "openai:llama3:8b", "named with its provider", env=env)
    assert fake.requests[-1]["model"] == "llama3:8b"
    ok("ask", "-m", "ft:gpt-4o-mini:org::abc123", "a fine-tune", env=env)
    assert fake.requests[-1]["model"] == "ft:gpt-4o-mini:org::abc123"


def test_aliases_that_lead_nowhere_are_refused_when_set_and_when_used(two, fake, conv_home):
    groq, claude, _ = two
    line = fails("config", "set", "aliases.loop", "loop:x", code=2)  # an alias to itself
    assert "'loop' is neither a provider nor an endpoint" in line and "is unchanged" in line
    assert "'nowhere'" in fails("config", "set", "aliases.lost", "nowhere:model", code=2)
    # written by hand, or its endpoint removed later: refused at use, nothing sent
    path = conv_home / "config" / "config.yaml"
    path.write_text(path.read_text() + "  dangling: gone:model\n")
    assert "aliases:" in path.read_text()
    line = fails("ask", "-m", "dangling", "hello", code=2)
    assert "'gone' in alias 'dangling' (gone:model) is neither a provider nor an endpoint" in line
    assert not fake.requests and not groq.requests


def test_a_key_with_a_character_http_cannot_carry_is_one_line(two):
    line = fails("ask", "-m", "groq:mixtral", "hello", code=3, env={"ROUTER_KEY": "sk-router-ключ-0123"})
    assert "the Authorization header would hold a character HTTP cannot carry (at position 17)" in line
    assert "Check ROUTER_KEY" in line and "ключ" not in line


class EchoingGateway:
    """A gateway that answers 401 with the credentials it received in its
    error body (some do): its Authorization and X-Gateway-Token headers."""

    def __init__(self):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                said = (f"invalid credentials: got {self.headers.get('Authorization')} "
                        f"and token {self.headers.get('X-Gateway-Token')}")
                body = json.dumps({"error": {"message": said}}).encode()
                self.send_response(401)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1"


def test_credentials_a_server_echoes_are_masked_in_what_conv_prints_and_stores(conv_home, store_path):
    """The key of a key_env not named *_API_KEY and an endpoint's header
    values were printed and committed into the answer's error: field."""
    gateway = EchoingGateway()
    key, token = "gw-live-2b7e151628aed2a6abf71588", "hdr-9f86d081884c7d659a2feaa0c55ad015"
    for setting, value in {"endpoints.gw.base_url": gateway.url, "endpoints.gw.key_env": "GATEWAY_CREDENTIAL",
                           "endpoints.gw.headers": f"X-Gateway-Token: {token}"}.items():
        ok("config", "set", setting, value)
    env = {"GATEWAY_CREDENTIAL": key}
    for args in (["ask", "-m", "gw:m", "hello"], ["ask", "-m", "gw:m", "--json", "again"]):
        done = run_conv(*args, env=env)
        said = done.stdout.decode() + done.stderr.decode()
        assert done.returncode == 3 and "invalid credentials: got Bearer ***" in said and "token ***" in said
        assert key not in said and token not in said
    for args in (["show", "--json"], ["log"], ["list", "--json"]):
        shown = ok(*args, env=env).stdout.decode()
        assert key not in shown and token not in shown
    everything = subprocess.run(["git", "-C", str(store_path), "cat-file", "--batch-all-objects", "--batch"],
                                capture_output=True, check=True).stdout
    assert key.encode() not in everything and token.encode() not in everything
    assert b"invalid credentials: got Bearer ***" in everything  # what happened is still said
    gateway.server.shutdown()
