"""The model providers: the local model's own speed, and what conv adds on top
of each provider's model call.

1. The local provider (SmolLM2-135M-Instruct on llama.cpp from the xllamacpp
   wheel, in conv's host process: providers/local/), with the defaults of a
   config file that does not exist, on "Explain what git rebase does." with
   temperature 0 and at most 128 tokens:
   - host load: conv's own ``hosting.start()`` with no host running (spawn,
     import, model load), the host stopped before each run;
   - with the host loaded, seen by ``curl --unix-socket`` on its socket (the
     key conv wrote): time to the first token and ms per token after it, a
     different question each run (llama.cpp reuses the chat template's
     cached prefix, as it does for conv);
   - a cold ``conv ask -a bench -m local QUESTION`` (a new conversation each
     run, a different question each time): wall time and first byte on its
     stdout, with the host loaded (the usual case within local.keep_alive;
     budget 300 ms) and with no host running (the first question after it).
     Agent ``bench`` gives temperature 0, and ``local.max_answer`` is 128 in
     that store's config.

2. conv's overhead per provider: a cold ``conv ask -c QUESTION`` (a follow-up;
   the ``conv`` console script, stdin empty, stdout a pipe) against a baseline
   doing the same model call without conv, also a cold process, and also
   from a pipe. Overhead = median(conv) - median(baseline); its p90 is
   p90(conv) - median(baseline) (each conv run minus the baseline's median,
   as bench_ask subtracts the server's round trip). conv and baseline runs
   alternate, after one unmeasured run of each; the store is restored from a
   snapshot before every conv run, so each one sends exactly the same request.
   - openai: tests/fakeserver.py as its own process (``OPENAI_BASE_URL``), a
     follow-up of the latest of the 10 generated conversations, as in
     bench_ask; baseline ``curl -sSN`` POSTing the very body conv sent (read
     back from the fake) with the same headers;
   - anthropic: tests/anthropic_fake.py run as its own process by a small
     ``python -c`` wrapper that also saves each request's body;
     ``ANTHROPIC_BASE_URL``, a dummy ``ANTHROPIC_API_KEY``,
     ``-m anthropic:claude-haiku-4-5``; baseline curl, same body and headers;
   - ollama: ``OLLAMA_HOST`` at the OpenAI fake (it answers /api/tags and
     /v1/chat/completions), no OPENAI_* set, ``-m ollama:qwen2.5:0.5b``
     (a follow-up otherwise goes on with its conversation's openai model);
     baseline curl;
   - cmd: ``-m cmd:cat`` (the answer is the whole transcript, stored) and
     ``-m 'cmd:wc -w'`` (a short answer); baseline ``cat`` / ``wc -w`` fed the
     same transcript on stdin (conv's own ``command.transcript`` of the
     messages ``--dry-run --json`` lists);
   - local: a follow-up ("And how do I undo it?") of a conversation of agent
     ``bench`` (temperature 0) that the local model started, ``-m local``,
     128 tokens at most, its host loaded; baseline ``curl --unix-socket``
     POSTing the body LocalProvider sends (the ``--dry-run --json``
     messages after its empty system prompt, temperature 0, max_tokens 128,
     its repeat penalty) to the same host: greedy, so the same tokens
     (checked);
   - llama.cpp's server: tests/llama_server.py (the wheel's server on a
     loopback port), the same follow-up with ``OPENAI_BASE_URL`` there and
     ``-m openai:smollm2``, agent ``bench`` putting temperature 0 in the
     body; the server caps answers at 96 tokens. Baseline curl with conv's
     body (captured once from the OpenAI fake); the answers must match.
     From the curl runs' streams: the server's time to first token and ms
     per token. Consecutive identical prompts let llama.cpp reuse the
     cached prompt, for conv and curl alike.
   For local and llama.cpp's server, whose seconds of model time jitter far
   more than 120 ms, the overhead is also split where it happens: to the
   first token (conv's first byte on stdout minus the baseline's median first
   token: imports, reading the store, the request) and after the last
   (conv's time from its last byte to its exit minus the baseline's: the
   commit, the index), and their sum per conv run is the overhead with the
   model's generation time left out.
   Every child has its own CONV_HOME (a copy of the generated 10-conversation
   store under tests/bench/out/providers/), no OPENAI_* / ANTHROPIC_* /
   OLLAMA_HOST / CONV_* from the caller's shell, no PYTHONDONTWRITEBYTECODE.

Mind the load average (printed per part): on a busy machine a local run can
take several times its idle time.

Budget: conv's overhead <= 120 ms median per provider (the follow-up budget),
judged on each "conv overhead" row, and for local and llama.cpp's server also on
the "model time left out" row (the wall-time one rides on the model's jitter).

    python tests/bench/bench_providers.py [--runs 10] [--local-runs 5]
        [--only local,openai,anthropic,ollama,cmd,server]
"""

import argparse
import dataclasses
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
import common  # noqa: E402
import llama_server  # noqa: E402

from conv.home.config import Config  # noqa: E402
from conv.providers import Message, local  # noqa: E402
from conv.providers.command import transcript  # noqa: E402
from conv.providers.local import hosting  # noqa: E402
from conv.providers.local.model import SMOLLM2, runtime_installed  # noqa: E402

BUDGET_MS = 120
SECTIONS = ("local", "openai", "anthropic", "ollama", "cmd", "server")
WORK = common.OUT / "providers"
MODELS = common.ROOT / "tests" / ".models-home" / "models"  # conftest's pulled_model
TESTS = common.ROOT / "tests"
QUESTION = "q"
LOCAL_PROMPT = "Explain what git rebase does."
LOCAL_QUESTIONS = ["Explain what git rebase does.", "What does git stash do?", "How do I undo a commit?",
                   "What is a detached HEAD?", "Explain git bisect.", "What does git cherry-pick do?"]
FIRST_BYTE_BUDGET_MS = 300
LOCAL_FOLLOW_UP = "And how do I undo it?"
LOCAL_MAX_TOKENS = 128
# what LocalProvider puts in a request besides the messages, with the agent's temperature 0
SAMPLING = {"max_tokens": LOCAL_MAX_TOKENS, "repeat_penalty": local.REPEAT_PENALTY, "temperature": 0.0}
AGENT = "bench"
ANTHROPIC_MODEL = "claude-haiku-4-5"
ANTHROPIC_VERSION = "2023-06-01"
OLLAMA_MODEL = "qwen2.5:0.5b"
SERVER_MODEL = "smollm2"

# The Anthropic fake as a process of its own: prints "PORT n", saves each body to argv[2].
ANTHROPIC_FAKE = """
import json, sys, threading
sys.path.insert(0, sys.argv[1])
from anthropic_fake import AnthropicFake
with AnthropicFake() as fake:
    record = fake._record
    def keep(body, headers):
        with open(sys.argv[2], "w") as f:
            json.dump(body, f)
        return record(body, headers)
    fake._record = keep
    print("PORT", fake.url.rsplit(":", 1)[1], flush=True)
    threading.Event().wait()
"""

@dataclasses.dataclass
class Run:
    wall: float  # seconds, process start to exit
    first: float | None  # seconds to the first byte on stdout
    out: bytes
    reads: list[tuple[float, bytes]]  # (seconds since start, bytes) for each read of stdout


def timed(cmd: list[str], env: dict, data: bytes | None = None) -> Run:
    """One cold process, stdout a pipe read as it arrives, stdin ``data`` (or empty)."""
    with tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL if data is None else subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=err)
        if data is not None:
            def feed():
                try:
                    proc.stdin.write(data)
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
            threading.Thread(target=feed, daemon=True).start()
        reads = []
        fd = proc.stdout.fileno()
        while chunk := os.read(fd, 65536):
            reads.append((time.perf_counter() - t, chunk))
        code = proc.wait()
        wall = time.perf_counter() - t
        proc.stdout.close()
        if code:
            err.seek(0)
            sys.exit(f"{' '.join(cmd)} failed ({code}): {err.read().decode(errors='replace')[-2000:]}")
    return Run(wall, reads[0][0] if reads else None, b"".join(b for _, b in reads), reads)


def env_for(home: Path, **extra: str) -> dict:
    """common.child_env, minus any provider settings of the caller's shell, plus ``extra``."""
    env = {k: v for k, v in common.child_env(home).items()
           if not k.startswith("ANTHROPIC_") and k != "OLLAMA_HOST"}
    return env | extra


class Home:
    """A CONV_HOME copied from the generated store, frozen once set up and
    restored from that snapshot before each conv run."""

    def __init__(self, name: str, source: Path):
        self.path, self.snapshot = WORK / name, WORK / f"{name}.snapshot"
        shutil.rmtree(self.path, ignore_errors=True)
        shutil.copytree(source, self.path, symlinks=True)
        (self.path / "models").symlink_to(MODELS)  # the pulled model, as in a user's data folder

    def freeze(self) -> "Home":
        shutil.rmtree(self.snapshot, ignore_errors=True)
        shutil.copytree(self.path, self.snapshot, symlinks=True)
        return self

    def restore(self) -> None:
        shutil.rmtree(self.path)
        shutil.copytree(self.snapshot, self.path, symlinks=True)


def sse_texts(reads: list[tuple[float, bytes]]) -> list[tuple[float, str]]:
    """(seconds since start, text) of each OpenAI-style content delta in a streamed body."""
    found, buffer = [], b""
    for at, chunk in reads:
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            if not line.startswith(b"data:") or line[5:].strip() == b"[DONE]":
                continue
            for choice in json.loads(line[5:]).get("choices") or []:
                text = (choice.get("delta") or {}).get("content")
                if text:
                    found.append((at, text))
    return found


def per_token(times: list[float]) -> float:
    """Seconds per token after the first, from each token's arrival time."""
    return (times[-1] - times[0]) / (len(times) - 1) if len(times) > 1 else float("nan")


def tokens_per_s(st: dict) -> None:
    print(f"  {'':<56} = {1000 / st['median']:.1f} tokens/s (median), {1000 / st['p90']:.1f} (p90)", flush=True)


def dry_run_messages(home: Home, env: dict, args: list[str]) -> list[dict]:
    """The messages that ``conv ask ARGS`` would send, as ``--dry-run --json`` lists them."""
    home.restore()
    done = subprocess.run(common.conv("ask", "--dry-run", "--json", *args), env=env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"conv ask --dry-run failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)["messages"]


def fake_requests(base_url: str) -> list[dict]:
    """The bodies tests/fakeserver.py has recorded (base_url: its /v1 URL)."""
    with urllib.request.urlopen(base_url.removesuffix("/v1") + "/_fake/requests", timeout=10) as r:
        return json.load(r)


def curl(url: str, body: dict, name: str, headers: dict[str, str]) -> list[str]:
    """``curl -sSN`` POSTing ``body`` (saved to a file) with conv's headers."""
    path = WORK / f"{name}-body.json"
    path.write_text(json.dumps(body))
    cmd = ["curl", "-sSN", "--fail", url, "--data-binary", f"@{path}"]
    headers = {"Content-Type": "application/json", "Accept": "text/event-stream, application/json", **headers}
    for k, v in headers.items():
        cmd += ["-H", f"{k}: {v}"]
    return cmd


def compare(label: str, home: Home, conv_cmd: list[str], env: dict, base_cmd: list[str], base_what: str,
            runs: int, data: bytes | None = None, check=None, answer=None) -> tuple[list[dict], list[Run], list[Run]]:
    """conv's runs against the baseline's, alternating (conv's warm-up is the caller's);
    rows for both walls and for the overhead. ``check(conv_run, base_run)`` vets the outputs.
    ``answer(base_run)``: when the baseline's answer arrived, (first token, last token) in
    seconds; then the overhead is also split into before the first token and after the last,
    conv's being its first and last bytes on stdout (the model's time in between left out)."""
    print(f"  ({label}: load average {os.getloadavg()[0]:.2f})", flush=True)
    base = timed(base_cmd, env, data)  # warm-up
    convs, bases = [], []
    for _ in range(runs):
        home.restore()
        convs.append(timed(conv_cmd, env))
        bases.append(timed(base_cmd, env, data))
    if check:
        check(convs[-1], bases[-1] if bases else base)
    conv_st = common.stats([r.wall for r in convs])
    base_st = common.stats([r.wall for r in bases])
    rows = [common.row(f"{label}: conv ask -c (wall)", conv_st),
            common.row(f"{label}: baseline {base_what} (wall)", base_st)]
    overhead = [r.wall - base_st["median"] / 1000 for r in convs]
    rows.append(common.row(f"{label}: conv overhead (conv - baseline)", common.stats(overhead), BUDGET_MS))
    if answer:
        spans = [answer(r) for r in bases]
        first = statistics.median(f for f, _ in spans)
        tail = statistics.median(r.wall - last for r, (_, last) in zip(bases, spans))
        before = [r.first - first for r in convs]
        after = [r.wall - r.reads[-1][0] - tail for r in convs]
        rows.append(common.row(f"{label}: overhead to the 1st token", common.stats(before)))
        rows.append(common.row(f"{label}: overhead after the last token", common.stats(after)))
        rows.append(common.row(f"{label}: overhead, model time left out", common.stats(
            [b + a for b, a in zip(before, after)]), BUDGET_MS))
    return rows, convs, bases


def contains(text: bytes):
    def check(conv_run: Run, base_run: Run) -> None:
        if text not in base_run.out:
            sys.exit(f"the baseline's output lacks {text!r}: {base_run.out[-500:]!r}")
        if not conv_run.out.strip():
            sys.exit("conv printed no answer")
    return check


def same_answer(extract):
    """Both outputs must hold the same text (greedy decoding: the same tokens)."""
    def check(conv_run: Run, base_run: Run) -> None:
        mine, theirs = conv_run.out.decode().strip(), extract(base_run).strip()
        if not mine or mine != theirs:
            print(f"  NOTE: the answers differ ({len(mine)} vs {len(theirs)} characters):\n"
                  f"    conv:     {mine[:200]!r}\n    baseline: {theirs[:200]!r}", flush=True)
        else:
            print(f"  (conv and the baseline gave the same {len(mine)}-character answer)", flush=True)
    return check


# -- 1. the local provider -----------------------------------------------------------------------

def pulled() -> Path:
    """The local model's file, as the tests have it: fetched by conv models pull into MODELS (once)."""
    gguf = MODELS / SMOLLM2.file_name
    if not gguf.is_file():
        subprocess.run(common.conv("models", "pull"), check=True, env=env_for(MODELS.parent))
    return gguf


def host_curl(host: hosting.Host, body: dict, name: str) -> list[str]:
    """curl POSTing ``body`` to the host's socket with its key, as conv does."""
    cmd = curl("http://localhost/v1/chat/completions", body, name, {"Authorization": f"Bearer {host.key()}"})
    return cmd[:1] + ["--unix-socket", host.socket] + cmd[1:]


def local_body(messages: list[dict]) -> dict:
    """What LocalProvider sends for these messages (the shipped model: an empty system prompt first)."""
    sent = messages if any(m["role"] == "system" for m in messages) else [{"role": "system", "content": ""}, *messages]
    return {"model": "smollm2", "messages": sent, **SAMPLING, "stream": True, "stream_options": {"include_usage": True}}


def local_host(runs: int, gguf: Path) -> list[dict]:
    config = Config(WORK / "no-config" / "config.yaml")  # conv's defaults, whatever the caller's config
    runtime = Path(os.environ["XDG_RUNTIME_DIR"])
    settings = hosting.settings_for(gguf, config)
    print(f"  local model {gguf.name}: window {settings['context']}, {settings['prompt_threads']} thread(s) for the "
          f"prompt, {settings['threads']} for the answer, {json.dumps(SAMPLING)}", flush=True)
    loads = []
    for n in range(runs + 1):
        common.stop_hosts(runtime)
        t = time.perf_counter()
        host = hosting.start(gguf, config)
        if n:
            loads.append(time.perf_counter() - t)
    rows = [common.row("local host: start and load (no host running)", common.stats(loads))]
    env = env_for(WORK / "unused")
    firsts, steps, counts = [], [], []
    for n in range(runs + 1):
        question = LOCAL_QUESTIONS[n % len(LOCAL_QUESTIONS)]
        done = timed(host_curl(host, local_body([{"role": "user", "content": question}]), "local-host"), env)
        stamps = [at for at, _ in sse_texts(done.reads)]
        if n:
            firsts.append(stamps[0])
            steps.append(per_token(stamps))
            counts.append(len(stamps))
    rows.append(common.row("local host loaded, via curl: 1st token (prompt)", common.stats(firsts)))
    st = common.stats(steps)
    rows.append(common.row("local host loaded, via curl: generation, ms per token", st))
    tokens_per_s(st)
    print(f"  {'':<56} ({min(counts)}-{max(counts)} tokens an answer)", flush=True)
    return rows


def local_cold(home: Home, runs: int) -> list[dict]:
    env = env_for(home.path)
    runtime = Path(env["XDG_RUNTIME_DIR"])
    rows = []
    for loaded in (True, False):
        done = []
        for n in range(runs + 1):
            if not loaded:
                common.stop_hosts(runtime)
            home.restore()
            run = timed(common.conv("ask", "-a", AGENT, "-m", "local", LOCAL_QUESTIONS[n % len(LOCAL_QUESTIONS)]), env)
            if n:
                done.append(run)
        what = "host loaded" if loaded else "no host running"
        rows += [common.row(f"local: cold conv ask -m local, {what}, wall", common.stats([r.wall for r in done])),
                 common.row(f"local: cold conv ask -m local, {what}, 1st byte", common.stats([r.first for r in done]),
                            FIRST_BYTE_BUDGET_MS if loaded else None)]
    return rows


def agent_home(gguf: Path) -> Home:
    """The generated store, agent ``bench`` (temperature 0), answers of 128 tokens at most,
    and one conversation of that agent which the local model started."""
    home = Home("agent", common.store_home(10))
    env = env_for(home.path)
    for key, value in ((f"agents.{AGENT}.temperature", "0"), ("local.max_answer", str(LOCAL_MAX_TOKENS))):
        subprocess.run(common.conv("config", "set", key, value), env=env, check=True, capture_output=True)
    timed(common.conv("ask", "-a", AGENT, "-m", "local", LOCAL_PROMPT), env)
    return home.freeze()


# -- 2. conv's overhead per provider ------------------------------------------------------------

def openai_rows(home: Home, runs: int) -> list[dict]:
    with common.fake_server() as url:
        env = env_for(home.path, OPENAI_BASE_URL=url)
        cmd = common.conv("ask", "-c", QUESTION)  # the conversation's model: openai:gpt-4o-mini
        home.restore()
        timed(cmd, env)  # warm-up, and the body to replay
        base = curl(url + "/chat/completions", fake_requests(url)[-1], "openai", {})
        return compare("openai", home, cmd, env, base, "curl", runs, check=contains(b"[DONE]"))[0]


def anthropic_rows(home: Home, runs: int) -> list[dict]:
    body_file = WORK / "anthropic-last.json"
    proc = subprocess.Popen([common.PYTHON, "-c", ANTHROPIC_FAKE, str(TESTS), str(body_file)],
                            stdout=subprocess.PIPE, text=True, env=env_for(WORK / "unused"))
    try:
        line = proc.stdout.readline()
        if not line.startswith("PORT "):
            sys.exit(f"the Anthropic fake did not start: {line!r}")
        url, key = f"http://127.0.0.1:{int(line.split()[1])}", "sk-ant-bench-dummy"
        env = env_for(home.path, ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY=key)
        cmd = common.conv("ask", "-c", "-m", f"anthropic:{ANTHROPIC_MODEL}", QUESTION)
        home.restore()
        timed(cmd, env)
        base = curl(url + "/v1/messages", json.loads(body_file.read_text()), "anthropic",
                    {"anthropic-version": ANTHROPIC_VERSION, "x-api-key": key})
        return compare("anthropic", home, cmd, env, base, "curl", runs, check=contains(b"message_stop"))[0]
    finally:
        proc.terminate()
        proc.wait(5)


def ollama_rows(home: Home, runs: int) -> list[dict]:
    with common.fake_server() as url:
        host = url.removeprefix("http://").removesuffix("/v1")
        env = env_for(home.path, OLLAMA_HOST=host)
        cmd = common.conv("ask", "-c", "-m", f"ollama:{OLLAMA_MODEL}", QUESTION)
        home.restore()
        timed(cmd, env)
        body = fake_requests(url)[-1]
        if body.get("model") != OLLAMA_MODEL:
            sys.exit(f"the ollama follow-up did not reach the fake: {body.get('model')!r}")
        base = curl(url + "/chat/completions", body, "ollama", {})
        return compare("ollama", home, cmd, env, base, "curl", runs, check=contains(b"[DONE]"))[0]


def cmd_rows(home: Home, runs: int) -> list[dict]:
    env = env_for(home.path)
    rows = []
    for command in ("cat", "wc -w"):
        args = ["-c", "-m", f"cmd:{command}", QUESTION]
        messages = dry_run_messages(home, env, args)
        stdin = transcript([Message(m["role"], m["content"]) for m in messages]).encode()
        cmd = common.conv("ask", *args)
        home.restore()
        timed(cmd, env)

        def check(conv_run: Run, base_run: Run) -> None:
            if conv_run.out.strip() != base_run.out.strip():
                print(f"  NOTE: cmd:{command} answered {conv_run.out[:80]!r}, {command} alone {base_run.out[:80]!r}")
        print(f"  (cmd:{command}: a transcript of {len(messages)} messages, {len(stdin)} bytes on stdin)", flush=True)
        rows += compare(f"cmd:{command}", home, cmd, env, command.split(), command, runs, stdin, check)[0]
    return rows


def local_rows(home: Home, runs: int, gguf: Path) -> list[dict]:
    env = env_for(home.path)
    args = ["-c", "-m", "local", LOCAL_FOLLOW_UP]
    messages = dry_run_messages(home, env, args)
    cmd = common.conv("ask", *args)
    home.restore()
    timed(cmd, env)  # the host loads
    host = hosting.host_of(hosting.settings_for(gguf, Config(home.path / "config" / "config.yaml")))
    base = host_curl(host, local_body(messages), "local")
    print(f"  (a follow-up of {len(messages)} messages; baseline curl on the host's socket, {json.dumps(SAMPLING)})",
          flush=True)
    text = lambda r: "".join(t for _, t in sse_texts(r.reads))  # noqa: E731
    return compare("local", home, cmd, env, base, "curl --unix-socket", runs, check=same_answer(text),
                   answer=lambda r: (sse_texts(r.reads)[0][0], sse_texts(r.reads)[-1][0]))[0]


def server_rows(home: Home, runs: int, gguf: Path) -> list[dict]:
    args = ["-c", "-m", f"openai:{SERVER_MODEL}", LOCAL_FOLLOW_UP]
    with common.fake_server() as fake:  # conv's body for the server, captured once
        home.restore()
        timed(common.conv("ask", *args), env_for(home.path, OPENAI_BASE_URL=fake))
        body = fake_requests(fake)[-1]
    if body.get("temperature") != 0 or not body.get("stream"):
        sys.exit(f"unexpected body for the server: temperature {body.get('temperature')!r}, "
                 f"stream {body.get('stream')!r}")
    t = time.perf_counter()
    server, port = llama_server.start(gguf)
    url = f"http://127.0.0.1:{port}/v1"
    print(f"  (llama.cpp's server up in {time.perf_counter() - t:.1f} s at {url}; "
          f"a follow-up of {len(body['messages'])} messages, temperature 0)", flush=True)
    try:
        env = env_for(home.path, OPENAI_BASE_URL=url)
        cmd = common.conv("ask", *args)
        home.restore()
        timed(cmd, env)
        base = curl(url + "/chat/completions", body, "server", {})
        rows, convs, bases = compare("llama.cpp server", home, cmd, env, base, "curl", runs,
                                     check=same_answer(lambda r: "".join(t for _, t in sse_texts(r.reads))),
                                     answer=lambda r: (sse_texts(r.reads)[0][0], sse_texts(r.reads)[-1][0]))
    finally:
        server.terminate()
        server.wait(10)
    tokens = [[at for at, _ in sse_texts(r.reads)] for r in bases]
    rows.append(common.row("llama.cpp server via curl: 1st token", common.stats([ts[0] for ts in tokens])))
    st = common.stats([per_token(ts) for ts in tokens])
    rows.append(common.row("llama.cpp server via curl: generation, ms per token", st))
    tokens_per_s(st)
    print(f"  {'':<56} ({min(map(len, tokens))}-{max(map(len, tokens))} tokens an answer)", flush=True)
    rows.append(common.row("llama.cpp server: conv ask -c, 1st byte on stdout", common.stats([r.first for r in convs])))
    return rows


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=10, help="runs of each measure against the fakes and cmd")
    p.add_argument("--local-runs", type=int, default=None,
                   help="runs of each measure on the local model and llama.cpp's server "
                        "(default: 5, or --runs if less)")
    p.add_argument("--only", default=",".join(SECTIONS), help=f"comma-separated parts among {','.join(SECTIONS)}")
    a = p.parse_args(argv)
    only = [s.strip() for s in a.only.split(",") if s.strip()]
    if unknown := set(only) - set(SECTIONS):
        p.error(f"unknown part(s) {', '.join(sorted(unknown))}; known: {', '.join(SECTIONS)}")
    local_runs = a.local_runs or min(5, a.runs)
    print(f"bench_providers: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    os.environ["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="conv-rt-")  # its hosts: stopped at the end
    gguf = pulled() if {"local", "server"} & set(only) and runtime_installed() else None
    if gguf is None and {"local", "server"} & set(only):
        print("  (skipping local and server: xllamacpp is not installed)", flush=True)
        only = [s for s in only if s not in ("local", "server")]
    if shutil.which("curl") is None and {"openai", "anthropic", "ollama", "server"} & set(only):
        print("  (skipping openai, anthropic, ollama and server: no curl for the baselines)", flush=True)
        only = [s for s in only if s not in ("openai", "anthropic", "ollama", "server")]

    rows = []
    agent = agent_home(gguf) if {"local", "server"} & set(only) else None
    if "local" in only:
        print(f"\n  -- 1. the local provider (load average {os.getloadavg()[0]:.2f})", flush=True)
        rows += local_host(local_runs, gguf)
        rows += local_cold(agent, local_runs)
    print("\n  -- 2. conv's overhead per provider (a cold conv ask -c against the same call without conv)", flush=True)
    fakes = {"openai", "anthropic", "ollama", "cmd"} & set(only)
    generated = Home("generated", common.store_home(10)).freeze() if fakes else None
    for name, part in (("openai", openai_rows), ("anthropic", anthropic_rows), ("ollama", ollama_rows),
                       ("cmd", cmd_rows)):
        if name in only:
            rows += part(generated, a.runs)
    if "local" in only:
        rows += local_rows(agent, local_runs, gguf)
    if "server" in only:
        rows += server_rows(agent, local_runs, gguf)
    common.stop_hosts(Path(os.environ["XDG_RUNTIME_DIR"]))
    return rows


if __name__ == "__main__":
    started, load = time.perf_counter(), os.getloadavg()[0]
    results = main()
    common.summary(results, "prov", started, load)
