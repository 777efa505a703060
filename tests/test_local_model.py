"""End to end on a real model: SmolLM2-135M-Instruct (the GGUF ``conv
models pull`` fetches), run by llama.cpp from the xllamacpp wheel in conv's
local-model host process (the ``local`` provider, conv's offline default),
and by llama.cpp's own server on a loopback port, which conv's OpenAI and
Anthropic providers speak to as to any third-party server. Each test holds
a conversation, checks that the follow-ups carry the earlier turns, and
reads the result back with the git CLI."""

import json
import socket
import threading

import llama_server
import pytest
from conftest import fails, git, ok

QUESTIONS = ["Name a primary colour.", "Name another one.", "And a third?"]


def read_in(usage: dict) -> int:
    """Every prompt token the model read: afresh, and from llama.cpp's prompt cache (format/usage.py's classes)."""
    return usage["prompt_tokens"] + usage.get("cache_read_tokens", 0)


@pytest.fixture(autouse=True)
def short_answers(conv_home):
    """Answers of at most 24 tokens: what is tested is the conversation
    around them, and a 135M model may otherwise write its 512 at 60 a second."""
    ok("config", "set", "local.max_answer", "24")


def asked_three_times(*options: str, **env) -> list[dict]:
    """Ask the three questions as one conversation (each with ``options``);
    return it as conv show --json has it."""
    ok("ask", *options, QUESTIONS[0], env=env, timeout=300)
    for question in QUESTIONS[1:]:
        ok("ask", *options, "-c", question, env=env, timeout=300)
    return json.loads(ok("show", "--json").stdout)


def check_store(store_path, conv: dict, provider: str) -> None:
    roles = [t["role"] for t in conv["turns"]]
    assert roles == ["user", "assistant"] * 3
    answers = [t for t in conv["turns"] if t["role"] == "assistant"]
    assert all(a["content"].strip() and a["finish"] in ("stop", "length") for a in answers)
    assert all(a["provider"] == provider for a in answers)
    prompts = [read_in(a["usage"]) for a in answers]
    assert prompts[0] < prompts[1] < prompts[2]  # each request held more of the conversation
    git(store_path, "fsck", "--strict")
    files = git(store_path, "ls-tree", "-r", "--name-only", "HEAD").splitlines()
    for turn in conv["turns"]:
        path = next(f for f in files if f.endswith(f"/{turn['name']}.md"))
        assert turn["content"] in git(store_path, "show", f"HEAD:{path}")
    assert len(git(store_path, "log", "--format=%H").splitlines()) >= 7  # root + 6 turns


def test_the_local_provider_is_the_offline_default(local_model, store_path):
    chain = json.loads(ok("models", "--json").stdout)["chain"]
    assert [s["step"] for s in chain if s["chosen"]] == ["local model"]
    # what the third question would send: the two earlier exchanges, whole
    ok("ask", QUESTIONS[0], timeout=300)
    ok("ask", "-c", QUESTIONS[1], timeout=300)
    preview = json.loads(ok("ask", "-c", "--dry-run", "--json", QUESTIONS[2]).stdout)
    assert preview["provider"] == "local" and preview["chosen_by"] == "the conversation's model"
    sent = [m["content"] for m in preview["messages"]]
    assert sent[0] == QUESTIONS[0] and sent[2] == QUESTIONS[1] and sent[-1] == QUESTIONS[2] and len(sent) == 5
    ok("ask", "-c", QUESTIONS[2], timeout=300)
    conv = json.loads(ok("show", "--json").stdout)
    assert conv["turns"][1]["content"] == sent[1] and conv["turns"][3]["content"] == sent[3]
    check_store(store_path, conv, "local")


def test_a_gguf_path_runs_as_a_local_model(local_model, tmp_path):
    elsewhere = tmp_path / "my model.gguf"  # any GGUF file, by its path
    elsewhere.symlink_to(local_model.resolve())
    done = ok("ask", "-m", f"local:{elsewhere}", "Say hello.", timeout=300)
    assert done.stdout.strip()
    assert json.loads(ok("show", "--json").stdout)["turns"][-1]["model"] == str(elsewhere)


# -- behind llama-cpp-python's own server -------------------------------------

class RecordingProxy:
    """A loopback TCP relay that keeps every request conv sends (the server
    does not log bodies), so the test can see what the follow-ups carried."""

    def __init__(self, target_port: int):
        self.target = target_port
        self.requests: list[bytes] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            record = bytearray()
            self.requests.append(record)  # filled as it arrives
            threading.Thread(target=self._pipe, args=(client, upstream, record), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, client, None), daemon=True).start()

    @staticmethod
    def _pipe(source, sink, record):
        try:
            while data := source.recv(65536):
                if record is not None:
                    record.extend(data)
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, sink):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def bodies(self, path: bytes) -> list[dict]:
        return [json.loads(bytes(r).split(b"\r\n\r\n", 1)[1]) for r in self.requests if path in r[:200]]


@pytest.fixture(scope="module")
def llama_cpp_server(pulled_model):
    """llama.cpp's own server on the pulled model, for the whole module."""
    server, port = llama_server.start(pulled_model)
    yield port
    server.terminate()
    server.wait(10)


def test_three_turns_against_llama_cpp_server(llama_cpp_server, store_path):
    proxy = RecordingProxy(llama_cpp_server)
    conv = asked_three_times(OPENAI_BASE_URL=f"http://127.0.0.1:{proxy.port}/v1", CONV_MODEL="smollm2")
    check_store(store_path, conv, "openai")
    bodies = proxy.bodies(b"/v1/chat/completions")
    assert [len(b["messages"]) for b in bodies] == [1, 3, 5]
    answers = [t["content"] for t in conv["turns"] if t["role"] == "assistant"]
    assert ([m["content"] for m in bodies[2]["messages"]]
            == [QUESTIONS[0], answers[0], QUESTIONS[1], answers[1], QUESTIONS[2]])
    assert all(b["stream"] is True and b["model"] == "smollm2" for b in bodies)


def test_three_turns_in_anthropics_api_against_llama_cpp_server(llama_cpp_server, store_path):
    """The same server answers Anthropic's Messages API: conv's Anthropic
    provider holds the conversation with it as with Claude. Anthropic's API
    requires max_tokens, and a request's own outranks the server's cap: asked
    with conv's default, a 135M model wrote 3,600 tokens (2.5 minutes) and
    the third question no longer fit the server's window. So -o max_tokens."""
    proxy = RecordingProxy(llama_cpp_server)
    conv = asked_three_times("-o", "max_tokens", str(llama_server.ANSWER_MOST),
                             ANTHROPIC_BASE_URL=f"http://127.0.0.1:{proxy.port}", ANTHROPIC_API_KEY="unused",
                             CONV_MODEL="anthropic:smollm2")
    check_store(store_path, conv, "anthropic")
    bodies = proxy.bodies(b"/v1/messages")
    answers = [t["content"] for t in conv["turns"] if t["role"] == "assistant"]
    assert [[m["content"] for m in b["messages"]] for b in bodies] == [
        [QUESTIONS[0]], [QUESTIONS[0], answers[0], QUESTIONS[1]],
        [QUESTIONS[0], answers[0], QUESTIONS[1], answers[1], QUESTIONS[2]]]
    assert all(b["stream"] is True and b["model"] == "smollm2" and b["max_tokens"] == llama_server.ANSWER_MOST
               for b in bodies)


def test_a_long_conversation_keeps_answering_on_the_local_model(local_model, fake, store_path):
    """Its window (local.context) is the budget without a context setting:
    25 exchanges of ~100 tokens each (five windows' worth) go to the local
    model as a summary and the latest turns, not as one prompt it cannot
    take. (A 512-token window here: on one core this model reads about 80
    tokens a second.)"""
    ok("config", "set", "local.context", "512")
    fake.set(reply="ECHO")
    topics = ["rebase", "merge", "cherry-pick", "bisect", "stash", "reflog", "worktree", "submodule"]
    for n in range(25):
        topic = topics[n % len(topics)]
        ok("ask", *(["-c"] if n else []), f"Question {n}: explain what git {topic} does, when a team should use "
           f"it, and what can go wrong with {topic} on a shared branch in a busy repository.")
    assert json.loads(ok("show", "--json").stdout)["turn_count"] == 50
    done = ok("ask", "-m", "local", "-c", "Name one git command.", timeout=600)
    assert done.stdout.strip()
    conv = json.loads(ok("show", "--json").stdout)
    answer = conv["turns"][-1]
    assert answer["role"] == "assistant" and answer["provider"] == "local" and answer["content"].strip()
    assert answer["finish"] in ("stop", "length") and 100 < read_in(answer["usage"]) < 512


def test_a_retry_on_the_local_model_samples_anew(local_model, store_path):
    """Issue 13, defect 8: llama.cpp's fixed seed gave a retry the very same answer."""
    question = "Write one sentence about the sea."
    ok("ask", "-m", "local", question, timeout=300)
    first = json.loads(ok("show", "--json").stdout)["turns"][-1]["content"]
    again = [first]
    for _ in range(2):
        ok("retry", timeout=300)
        again.append(json.loads(ok("show", "--json").stdout)["turns"][-1]["content"])
    assert len(set(again)) == 3, again  # each retry a different answer
    assert "+" in git(store_path, "log", "-p", "-1", "--format=")  # and conv diff has something to show


def test_per_ask_options_reach_llama_cpp(local_model):
    """-o seed and temperature make llama.cpp's server answer alike twice; -o max_tokens cuts the answer."""
    answers = []
    for _ in range(2):
        ok("ask", "-m", "local", "-o", "seed", "11", "-o", "temperature", "0.9", "-o", "max_tokens", "6",
           "Write a long poem about the sea.", timeout=300)
        answers.append(json.loads(ok("show", "--json").stdout)["turns"][-1])
    assert answers[0]["content"] == answers[1]["content"] and answers[0]["content"].strip()
    assert [a["finish"] for a in answers] == ["length", "length"] and answers[0]["usage"]["completion_tokens"] == 6
    assert answers[0]["options"] == {"seed": 11, "temperature": 0.9, "max_tokens": 6}
    assert "takes no reasoning_effort" in fails("ask", "-m", "local", "-o", "reasoning_effort", "low", "hi", code=2)


def test_a_long_multibyte_question_fits_and_is_answered(local_model, store_path):
    """Characters of three bytes (CJK) take more tokens than a count by
    characters would say: the question still fits the local model's window."""
    question = "给我讲讲这个仓库的历史。" * 12 + " Answer in one word."
    done = ok("ask", "-m", "local", question, timeout=300)
    assert done.stdout.strip()
    answer = json.loads(ok("show", "--json").stdout)["turns"][-1]
    assert answer["finish"] in ("stop", "length") and read_in(answer["usage"]) > len(question)


def test_the_shipped_model_is_asked_without_its_stock_persona(local_model, store_path):
    """SmolLM2's chat template puts "You are a helpful AI assistant named
    SmolLM, trained by Hugging Face" before a conversation with no system
    prompt: 16 tokens a one-line question pays for in its first byte (issue
    15). conv sends the shipped model an empty system prompt instead: the
    question below is 37 prompt tokens with the persona, 21 without; an
    agent's own prompt is sent as it is."""
    ok("ask", "-m", "local", "Explain what git rebase does.", timeout=300)
    answer = json.loads(ok("show", "--json").stdout)["turns"][-1]
    assert answer["content"].strip() and read_in(answer["usage"]) == 21

    ok("ask", "-m", "local", "-s", "Answer in French.", "Bonjour", timeout=300)
    answer = json.loads(ok("show", "--json").stdout)["turns"][-1]
    assert read_in(answer["usage"]) == 20  # that prompt alone: no empty one besides it, no persona
