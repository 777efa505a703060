"""Named endpoints and aliases (issue 14, part 2): two loopback servers, an
OpenAI-compatible one and an Anthropic one, configured side by side, asked
with -m ENDPOINT:MODEL and -m ALIAS through the CLI; the store read with git."""

import json
import subprocess
import sys

import pytest
from anthropic_fake import AnthropicFake
from conftest import fails, git, ok
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
    assert "use the name of an environment variable" in fails("config", "set", "endpoints.groq.key_env", "not a name", code=2)
    line = fails("ask", "-m", "groq:mixtral", "no key in the environment", code=3)
    assert "ROUTER_KEY is not set (endpoints.groq.key_env)" in line
    ok("config", "set", "endpoints.claude.key_cmd", f"{sys.executable} -c 'import sys; sys.exit(4)'")
    assert "endpoints.claude.key_cmd failed (exit 4)" in fails("ask", "-m", "smart", "hi", code=3)
