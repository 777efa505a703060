"""The shell plugins (``conv init zsh|bash|fish``): prompt segment cost, shell
start-up, and Alt-F from keypress to request, in zsh, bash and fish.

1. Prompt segment, measured inside the shell itself: an interactive shell
   (``zsh -i``, ``bash -i``, ``fish -i``) loads the plugin, writes a valid
   state file for its own CONV_SESSION (``$CONV_HOME/state/sessions/$CONV_SESSION``:
   ``<id> <short> <turns> <last used> <expires>``), checks that the segment
   reads ``conv:SHORT·TURNS``, then times batches of N calls of the segment
   function with the shell's own clock ($EPOCHREALTIME in zsh and bash;
   ``date +%s%N`` around each batch in fish), each batch minus an empty loop
   of the same length. zsh and bash: ``_conv_prompt_update`` (what precmd /
   PROMPT_COMMAND run). fish: ``conv_prompt`` N times inside one command
   substitution, as it runs inside fish_prompt, whose output fish captures
   once per prompt (minus the same substitution around ``true``); also, for
   reference, ``set s (conv_prompt)``, a capture of its own per call.
   Reported: µs per render over the batches. Forks per render: the same loop
   run under ``strace -f -c -e trace=clone,clone3,fork,vfork``, minus a run of
   the empty loop (the shell's own start-up calls cancel out), divided by N;
   then every system call of a render, by name (printed, not a row).
   For reference, the same for a naive segment that runs ``$(conv prompt)``
   (a Python process per render) and one that runs ``$(cat FILE)``.
2. ``conv init SHELL`` as a cold process (the console script, stdout a pipe),
   and the shell's start-up with the plugin loaded the documented way
   (``eval "$(conv init zsh)"`` in .zshrc, the same in a --rcfile for bash,
   ``conv init fish | source`` in config.fish) against an empty rc file:
   ``zsh -i -c exit`` (ZDOTDIR), ``bash --rcfile RC -i -c exit``,
   ``fish -i -c exit`` (XDG_CONFIG_HOME); runs interleaved, plus the start-up
   with the plugin read from a file (the plugin's own cost, no conv process).
3. Alt-F: each shell runs in tmux (private socket, ``-f /dev/null``) with the
   plugin loaded, PATH holding this venv's conv, OPENAI_BASE_URL pointing at a
   small OpenAI-compatible server in a thread of this process that records
   time.time() when a request arrives and streams a short answer. A line is
   typed (``send-keys -l``), seen on screen, then time.time() is taken right
   before ``send-keys M-f``; the measure is the request's arrival minus that
   (the ``tmux send-keys`` client process is included; its own run time is
   shown for reference). Each keypress is a follow-up in the same terminal
   (one unmeasured Alt-F first starts the conversation); the next waits for the
   answer and the prompt. For comparison, typing ``conv ask -c 'TEXT'`` and
   Enter, measured the same way (time taken before ``send-keys Enter``).
   Every request's last user message is checked against the typed text.
   Alt-K (command mode): time.time() before ``send-keys M-k`` to the shell
   writing the server's answer into the line, seen in the pane's output as
   tmux passes it on (``pipe-pane`` into a file read every millisecond; a
   screen capture polled every 10 ms added 10-15 ms of its own), less the
   server's own time from the request's arrival to its answer written; the
   screen is then checked to show it as the line being edited. A refinement
   in this terminal's command conversation each time, as a second press is.

Budgets: segment <= 200 µs per render (median), 0 forks per render,
``conv init`` <= 60 ms (median), Alt-K <= 150 ms over the server's time
(median). Everything runs under tests/bench/out/shell/.

    python tests/bench/bench_shell.py [--shells zsh,bash,fish] [--quick]
        [--renders 2000] [--batches 10] [--runs 20] [--starts 10] [--keys 10]
"""

import argparse
import json
import os
import queue
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

SHELLS = ("zsh", "bash", "fish")
RENDER_BUDGET_US = 200
FORK_BUDGET = 0
INIT_BUDGET_MS = 60
COMMAND_KEY_BUDGET_MS = 150
WORK = common.OUT / "shell"
SHORT, TURNS = "abc123", 3  # what the state file says; the segment must show it
SEGMENT = f"conv:{SHORT}·{TURNS}"
PROMPT_MARK = "BENCH>"
STRACED = ("clone", "clone3", "fork", "vfork")


# -- results ------------------------------------------------------------------------------

def value(v: float, unit: str) -> str:
    if unit == "forks":
        return f"{v:.3f}"
    return f"{v:.1f} {unit}" if unit != "ms" else f"{v:.1f}"


def result(name: str, samples: list[float], unit: str = "ms", budget: float | None = None) -> dict:
    """A row like common.row's, for values already in ``unit`` (ms, µs or forks)."""
    s = sorted(samples)
    st = {"median": statistics.median(s), "p90": s[max(0, -(-9 * len(s) // 10) - 1)], "n": len(s)}
    return finish(name, st, unit, budget)


def finish(name: str, st: dict, unit: str, budget: float | None) -> dict:
    verdict = "" if budget is None else ("ok" if st["median"] <= budget + 1e-9 else "OVER")
    line = f"  {name:<56} median {value(st['median'], unit):>10}   p90 {value(st['p90'], unit):>10}   n {st['n']}"
    if budget is not None:
        line += f"   budget <= {budget:g} {unit}: {verdict}"
    print(line, flush=True)
    return {"name": name, **st, "unit": unit, "budget": budget, "verdict": verdict}


def table(results: list[dict]) -> None:
    print(f"\n{'shell':<6} {'measure':<50} {'median':>12} {'p90':>12} {'n':>5} {'budget':>12}  verdict")
    for r in results:
        unit = r.get("unit", "ms")
        budget = f"<= {r['budget']:g} {unit}" if r["budget"] is not None else ""
        print(f"{r['shell']:<6} {r['name']:<50} {value(r['median'], unit):>12} {value(r['p90'], unit):>12} "
              f"{r['n']:5} {budget:>12}  {r['verdict']}")


# -- the shells' environment -------------------------------------------------------------

def shell_env(base: Path, conv_home: Path, base_url: str | None = None) -> dict:
    """A clean environment: conv's own CONV_HOME, a private HOME and XDG dirs,
    this venv's conv first on PATH, a UTF-8 locale (the segment has a ·)."""
    env = common.child_env(conv_home, base_url)
    for k in ("ZDOTDIR", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PS1", "HISTFILE", "TMUX", "TMUX_PANE"):
        env.pop(k, None)
    home = base / "home"
    data = base / "xdg-data"
    (data / "fish" / "generated_completions").mkdir(parents=True, exist_ok=True)  # no first-run man page scan
    home.mkdir(parents=True, exist_ok=True)
    env.update(HOME=str(home), XDG_DATA_HOME=str(data), XDG_STATE_HOME=str(base / "xdg-state"),
               XDG_CACHE_HOME=str(base / "xdg-cache"), LC_ALL="C.UTF-8", LANG="C.UTF-8",
               PATH=f"{common.CONV.parent}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}")
    env.setdefault("TERM", "xterm-256color")
    return env


def rc(base: Path, shell: str, variant: str, extra: str = "", tag: str = "") -> tuple[list[str], dict]:
    """Files that make an interactive ``shell`` load the plugin (``variant``:
    "eval" as documented, "file" sourced from a saved copy, "none" nothing);
    returns the command-line arguments and environment changes that use them."""
    d = base / f"rc-{tag or variant}"
    d.mkdir(parents=True, exist_ok=True)
    saved = base / f"plugin.{shell}"
    load = {
        "eval": {"zsh": 'eval "$(conv init zsh)"', "bash": 'eval "$(conv init bash)"',
                 "fish": "conv init fish | source"},
        "file": {s: f"source '{saved}'" for s in SHELLS},
        "none": {s: "" for s in SHELLS},
    }[variant][shell]
    text = f"{load}\n{extra}"
    if shell == "zsh":
        (d / ".zshrc").write_text(text)
        return [], {"ZDOTDIR": str(d)}
    if shell == "bash":
        (d / "bashrc").write_text(text)
        return ["--rcfile", str(d / "bashrc")], {}
    (d / "fish").mkdir(exist_ok=True)
    (d / "fish" / "config.fish").write_text(text)
    return [], {"XDG_CONFIG_HOME": str(d)}


def interactive(shell: str, rc_args: list[str], *tail: str) -> list[str]:
    return [shell, *rc_args, "-i", *tail]


# -- 1. the prompt segment ---------------------------------------------------------------

def state_line() -> str:
    now = int(time.time())
    return f"abc123defg45 {SHORT} {TURNS} {now} {now + 86400}"


def loop_script(shell: str, loop: str, empty: str, batches: int, timed: bool) -> str:
    """Write the state file for this shell's CONV_SESSION, check the segment (the
    plugin's and ``conv prompt``'s), then ``batches`` x (``loop``, ``empty``),
    timed by the shell itself when ``timed``: BATCH t0 t1 t2 t3 per batch."""
    line = state_line()
    if shell == "fish":  # date +%s%N: nanoseconds (fish has no clock of its own)
        t = {k: f"set -l {k} (date +%s%N)" if timed else "" for k in ("t0", "t1", "t2", "t3")}
        return f"""
set -g bench_file $_conv_sessions/$CONV_SESSION
printf '%s\\n' '{line}' > $bench_file
echo "SEGMENT "(conv_prompt)
echo "NAIVE "(conv prompt)
for b in (seq {batches})
    {t["t0"]}
    {loop}
    {t["t1"]}
    {t["t2"]}
    {empty}
    {t["t3"]}
    {'echo "BATCH $t0 $t1 $t2 $t3"' if timed else ""}
end
"""
    # zsh and bash: $EPOCHREALTIME, seconds with a fraction
    t = {k: f"{k}=$EPOCHREALTIME" if timed else ":" for k in ("t0", "t1", "t2", "t3")}
    pre = "zmodload zsh/datetime\n" if shell == "zsh" else ""
    return f"""{pre}bench_file=$_conv_sessions/$CONV_SESSION
printf '%s\\n' '{line}' > "$bench_file"
_conv_prompt_update; echo "SEGMENT $CONV_PROMPT"
echo "NAIVE $(conv prompt)"
for ((b = 0; b < {batches}; b++)); do
  {t["t0"]}
  {loop}
  {t["t1"]}
  {t["t2"]}
  {empty}
  {t["t3"]}
  {'echo "BATCH $t0 $t1 $t2 $t3"' if timed else ":"}
done
"""


def variants(shell: str) -> list[tuple[str, str, str, str]]:
    """(label, kind, loop, empty loop) per way of rendering the segment, the
    plugin's first; the loops are templates with {n} renders. kind: "plugin",
    "process" (a costly one) or "cat"."""
    if shell == "fish":
        def each(body):
            return f"for i in (seq {{n}}); {body}; end"
        return [
            # fish captures fish_prompt's output once; conv_prompt writes into it
            ("plugin conv_prompt (in the prompt)", "plugin",
             "set -l o (for i in (seq {n}); conv_prompt; end)", "set -l o (for i in (seq {n}); true; end)"),
            ("plugin (conv_prompt) (own capture)", "plugin", each("set -l s (conv_prompt)"), each("set -l s ''")),
            ("naive (conv prompt)", "process", each("set -l s (conv prompt)"), each("set -l s ''")),
            ("naive (cat FILE)", "cat", each("set -l s (cat $bench_file)"), each("set -l s ''")),
        ]

    def each(body):
        return f"for ((i = 0; i < {{n}}; i++)); do {body}; done"
    return [
        ("plugin _conv_prompt_update", "plugin", each("_conv_prompt_update"), each(":")),
        ("naive $(conv prompt)", "process", each("CONV_PROMPT=$(conv prompt)"), each(":")),
        ("naive $(cat FILE)", "cat", each('CONV_PROMPT=$(cat "$bench_file")'), each(":")),
    ]


def run_script(shell: str, rc_args: list[str], env: dict, script: str, prefix: list[str] = ()) -> str:
    path = WORK / f"script.{shell}"
    path.write_text(script)
    cmd = [*prefix, *interactive(shell, rc_args, str(path))]
    done = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=900)
    if done.returncode:
        sys.exit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    out = done.stdout
    for tag in ("SEGMENT", "NAIVE"):
        m = re.search(rf"^{tag} (.*)$", out, re.M)
        if not m or m[1] != SEGMENT:
            sys.exit(f"{shell}: {tag.lower()} segment is {m[1] if m else None!r}, expected {SEGMENT!r}\n"
                     f"{out[-1000:]}\n{done.stderr[-1000:]}")
    return out


def syscalls(shell: str, rc_args: list[str], env: dict, loop: str, empty: str, n: int,
             only: tuple[str, ...] = ()) -> dict[str, float]:
    """System calls per render, by name (``only`` those, else all), from
    ``strace -f -c``: a run of ``loop`` minus a run of ``empty``, over ``n``."""
    counts = []
    for body in (loop, empty):
        trace = WORK / f"strace.{shell}"
        run_script(shell, rc_args, env, loop_script(shell, body.format(n=n), "", 1, False),
                   ["strace", "-f", "-c", "-o", str(trace)] + (["-e", "trace=" + ",".join(only)] if only else []))
        calls = {}
        for line in trace.read_text().splitlines():
            parts = line.split()
            if len(parts) >= 5 and parts[3].isdigit() and parts[-1] != "total" and re.match(r"[\d.]+$", parts[0]):
                calls[parts[-1]] = int(parts[3])
        counts.append(calls)
    return {k: (counts[0].get(k, 0) - counts[1].get(k, 0)) / n for k in counts[0].keys() | counts[1].keys()}


def prompt_segment(shell: str, renders: int, batches: int, strace: bool) -> list[dict]:
    base = WORK / shell
    env = shell_env(base, base / "conv-home")
    (base / "conv-home" / "state" / "sessions").mkdir(parents=True, exist_ok=True)
    rc_args, extra = rc(base, shell, "file")
    env.update(extra)
    sizes = {"plugin": renders, "cat": max(10, renders // 10), "process": 2}
    print(f"  (timed in {shell} itself: {batches} batches of {sizes['plugin']} renders for the plugin, "
          f"{sizes['cat']} for cat, {sizes['process']} for conv prompt; each minus an empty loop)")
    rows = []
    for i, (label, kind, loop, empty) in enumerate(variants(shell)):
        n = sizes[kind]
        out = run_script(shell, rc_args, env, loop_script(shell, loop.format(n=n), empty.format(n=n), batches, True))
        per = []
        for m in re.finditer(r"^BATCH ([\d.]+) ([\d.]+) ([\d.]+) ([\d.]+)$", out, re.M):
            if shell == "fish":  # nanoseconds
                t0, t1, t2, t3 = (int(x) / 1000 for x in m.groups())
            else:  # seconds
                t0, t1, t2, t3 = (float(x) * 1e6 for x in m.groups())
            per.append(((t1 - t0) - (t3 - t2)) / n)
        if len(per) != batches:
            sys.exit(f"{shell}: expected {batches} batches, got {len(per)}:\n{out[-1000:]}")
        rows.append(result(f"segment/render: {label}", per, "µs", RENDER_BUDGET_US if i == 0 else None))
        if strace:
            fn = min(n, 1000)
            f = sum(syscalls(shell, rc_args, env, loop, empty, fn, STRACED).values())
            rows.append(finish(f"forks/render: {label}", {"median": f, "p90": f, "n": fn},
                               "forks", FORK_BUDGET if kind == "plugin" else None))
    if strace:  # what a render costs in system calls: explains the µs
        label, _, loop, empty = variants(shell)[0]
        calls = syscalls(shell, rc_args, env, loop, empty, min(renders, 1000))
        top = sorted(((v, k) for k, v in calls.items() if v >= 0.5), reverse=True)
        print(f"  system calls/render, {label}: {sum(calls.values()):.1f} in all: "
              + ", ".join(f"{k} {v:.1f}" for v, k in top[:6]), flush=True)
    return rows


# -- 2. conv init and the shell's start-up -----------------------------------------------

def startup(shell: str, runs: int, starts: int) -> list[dict]:
    base = WORK / shell
    env = shell_env(base, base / "conv-home")
    rows = []
    common.run(common.conv("init", shell), env)  # warm-up
    inits = [common.run(common.conv("init", shell), env) for _ in range(runs)]
    rows.append(result(f"conv init {shell} (cold process)", [s * 1000 for s in inits], "ms", INIT_BUDGET_MS))
    variants = {}
    for variant in ("none", "eval", "file"):
        rc_args, extra = rc(base, shell, variant)
        variants[variant] = (interactive(shell, rc_args, "-c", "exit"), {**env, **extra})
        common.run(*variants[variant])  # warm-up
    times = {v: [] for v in variants}
    for _ in range(starts):  # interleaved, so drift hits all three alike
        for v, (cmd, e) in variants.items():
            times[v].append(common.run(cmd, e) * 1000)
    rows.append(result("shell start: no plugin", times["none"], "ms"))
    rows.append(result(f"shell start: plugin (conv init {shell} in rc)", times["eval"], "ms"))
    rows.append(result("shell start: plugin sourced from a file", times["file"], "ms"))
    rows.append(result("shell start: added by the plugin (eval - none)",
                       [a - b for a, b in zip(times["eval"], times["none"])], "ms"))
    return rows


# -- 3. Alt-F to the request --------------------------------------------------------------

class Arrivals(ThreadingHTTPServer):
    """OpenAI-compatible enough for conv ask: records (time.time(), body) on arrival."""
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), _ArrivalHandler)
        self.arrived: queue.Queue = queue.Queue()
        self.count = 0

    @classmethod
    def start(cls) -> "Arrivals":
        server = cls()
        server.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return server

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def handle_error(self, request, client_address):
        pass


class _ArrivalHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        t = time.time()
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = {}
        self.server.count += 1
        reply = f"echo bench answer {self.server.count}"  # an answer, and a command Alt-K puts in the line
        model = body.get("model") or "fake"
        usage = {"prompt_tokens": 1, "completion_tokens": 3, "total_tokens": 4}
        if not body.get("stream"):  # conv cmd waits for the whole answer (no "stream" is false)
            data = json.dumps({"id": f"chatcmpl-bench{self.server.count}", "object": "chat.completion",
                               "created": int(t), "model": model, "usage": usage, "choices": [
                                   {"index": 0, "message": {"role": "assistant", "content": reply},
                                    "finish_reason": "stop"}]}).encode()
            content_type = "application/json"
        else:
            base = {"id": f"chatcmpl-bench{self.server.count}", "object": "chat.completion.chunk",
                    "created": int(t), "model": model}
            events = [{**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": reply},
                                            "finish_reason": None}]},
                      {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                      {**base, "choices": [], "usage": usage}]
            data = b"".join(f"data: {json.dumps(e)}\n\n".encode() for e in events) + b"data: [DONE]\n\n"
            content_type = "text/event-stream; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()
        self.close_connection = True
        self.server.arrived.put((t, body, time.time()))  # arrival, and when the server was done


class Tmux:
    def __init__(self, sock: Path, name: str, env: dict):
        self.sock, self.name, self.env = sock, name, env
        self.target = f"={name}:"

    def __call__(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(["tmux", "-S", str(self.sock), "-f", "/dev/null", *args], env=self.env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if check and done.returncode:
            raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def screen(self) -> str:
        return self("capture-pane", "-p", "-J", "-t", self.target, "-S", "-60")

    def wait(self, ok, what: str, timeout: float = 30) -> str:
        end = time.time() + timeout
        while True:
            text = self.screen()
            if ok(text):
                return text
            if time.time() > end:
                raise RuntimeError(f"timed out waiting for {what}; screen:\n{text[-1500:]}")
            time.sleep(0.01)


def last_line(text: str) -> str:
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def prompt_back(answer: str):
    """The answer printed and a fresh prompt (empty command line) below it."""
    return lambda text: answer in text and last_line(text).endswith(PROMPT_MARK) \
        and text.rfind(answer) < text.rfind(PROMPT_MARK)


def keypress(shell: str, keys: int) -> list[dict]:
    base = WORK / shell
    server = Arrivals.start()
    env = shell_env(base, base / "tmux-conv-home", server.url)
    env["OPENAI_API_KEY"] = "sk-bench"
    prompt = {
        "zsh": f"setopt prompt_subst\nPROMPT='${{CONV_PROMPT}} {PROMPT_MARK} '\nRPROMPT=''",
        "bash": f"PS1='${{CONV_PROMPT}} {PROMPT_MARK} '",
        "fish": f"set -g fish_greeting ''\nfunction fish_prompt; conv_prompt; echo -n ' {PROMPT_MARK} '; end\n"
                "function fish_right_prompt; end",
    }[shell]
    rc_args, extra = rc(base, shell, "eval", prompt, tag="tmux")  # as documented, plus a prompt
    env.update(extra)
    sock = base / "tmux.sock"
    sock.unlink(missing_ok=True)
    tmux = Tmux(sock, f"bench-{shell}", env)
    tmux("new-session", "-d", "-s", tmux.name, "-x", "200", "-y", "50", "--", *interactive(shell, rc_args))
    send_times, rows, k = [], [], 0
    try:
        tmux.wait(lambda t: last_line(t).endswith(PROMPT_MARK), "the first prompt")

        def one(how: str) -> float:
            nonlocal k
            k += 1
            text = f"question {k} about shells"
            typed = text if how == "alt-f" else f"conv ask -c '{text}'"
            while not server.arrived.empty():
                server.arrived.get_nowait()
            tmux("send-keys", "-t", tmux.target, "-l", typed)
            tmux.wait(lambda t: last_line(t).endswith(typed) or typed in last_line(t), f"{typed!r} on screen")
            key = "M-f" if how == "alt-f" else "Enter"
            t0 = time.time()
            tmux("send-keys", "-t", tmux.target, key)
            send_times.append(time.time() - t0)
            try:
                arrived, body, _ = server.arrived.get(timeout=30)
            except queue.Empty:
                raise RuntimeError(f"{shell}: no request after {key}; screen:\n{tmux.screen()[-1500:]}") from None
            users = [m.get("content") for m in body.get("messages") or [] if m.get("role") == "user"]
            if not users or users[-1] != text:
                raise RuntimeError(f"{shell}: request asks {users[-1:]!r}, expected {text!r}")
            if k > 1 and len(users) < 2:
                raise RuntimeError(f"{shell}: request {k} is not a follow-up: {body.get('messages')!r}")
            tmux.wait(prompt_back(f"echo bench answer {server.count}"), "the answer and the prompt")
            return (arrived - t0) * 1000

        output = base / "pane-output"  # what the shell writes, as tmux reads it from the pane
        output.write_bytes(b"")
        tmux("pipe-pane", "-t", tmux.target, "-o", f"cat >> {shlex.quote(str(output))}")

        def command_key() -> float:
            """Alt-K: from the key to the command written into the line (seen in the
            pane's output stream, read every millisecond), less the server's own time."""
            nonlocal k
            k += 1
            text = f"list the files, take {k}"
            tmux("send-keys", "-t", tmux.target, "-l", text)
            tmux.wait(lambda t: last_line(t).endswith(text), f"{text!r} on screen")
            command = f"echo bench answer {server.count + 1}".encode()
            offset = output.stat().st_size
            t0 = time.time()
            tmux("send-keys", "-t", tmux.target, "M-k")
            with open(output, "rb") as stream:
                stream.seek(offset)
                written, end = b"", t0 + 30
                while command not in written:
                    if time.time() > end:
                        raise RuntimeError(f"{shell}: {command!r} never written; screen:\n{tmux.screen()[-1500:]}")
                    written += stream.read()
                    time.sleep(0.001)
            seen = time.time()
            tmux.wait(lambda t: last_line(t).endswith(f"{PROMPT_MARK} {command.decode()}"), f"{command!r} in the line")
            arrived, body, done = server.arrived.get(timeout=30)
            if body.get("messages", [{}])[-1].get("content") != text or body.get("stream"):
                raise RuntimeError(f"{shell}: Alt-K sent {body!r}")
            tmux("send-keys", "-t", tmux.target, "C-e", "C-u")
            tmux.wait(lambda t: last_line(t).endswith(PROMPT_MARK), "an empty line again")
            return (seen - t0 - (done - arrived)) * 1000

        one("alt-f")  # starts this terminal's conversation; not measured
        for how, label in (("alt-f", "Alt-F: keypress to request"),
                           ("enter", "typed conv ask -c: Enter to request")):
            one(how)  # warm-up
            rows.append(result(label, [one(how) for _ in range(keys)], "ms"))
        command_key()  # starts this terminal's command conversation; not measured
        rows.append(result("Alt-K: key to command in the line, less the server",
                           [command_key() for _ in range(keys)], "ms", COMMAND_KEY_BUDGET_MS))
        screen = tmux.screen()
        if "conv:" not in screen:
            raise RuntimeError(f"{shell}: the prompt never showed the segment:\n{screen[-1500:]}")
    finally:
        tmux("kill-server", check=False)
        server.stop()
    rows.append(result("tmux send-keys run (included above)", [s * 1000 for s in send_times], "ms"))
    return rows


def direct(keys: int) -> list[dict]:
    """For reference: ``conv ask -c TEXT`` started straight from this process (no
    shell, no tmux), its start to the request's arrival; the same server."""
    base = WORK / "direct"
    server = Arrivals.start()
    env = shell_env(base, base / "conv-home", server.url)
    env.update(OPENAI_API_KEY="sk-bench", CONV_SESSION="bench-direct")
    samples = []
    try:
        for k in range(keys + 2):  # the first starts the conversation, the second warms up
            text = f"question {k} about shells"
            t0 = time.time()
            proc = subprocess.Popen(common.conv("ask", "-c", text), env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            arrived, body, _ = server.arrived.get(timeout=30)
            out, err = proc.communicate(timeout=30)
            if proc.returncode or body["messages"][-1]["content"] != text:
                sys.exit(f"conv ask -c failed ({proc.returncode}): {err.decode()[-1000:]}")
            if k >= 2:
                samples.append((arrived - t0) * 1000)
    finally:
        server.stop()
    return [result("conv ask -c started from Python: start to request", samples, "ms")]


# -- main ---------------------------------------------------------------------------------

def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shells", default=",".join(SHELLS))
    p.add_argument("--renders", type=int, default=2000, help="segment calls per timed batch")
    p.add_argument("--batches", type=int, default=10, help="timed batches per segment")
    p.add_argument("--runs", type=int, default=20, help="conv init runs")
    p.add_argument("--starts", type=int, default=10, help="shell start-ups per variant")
    p.add_argument("--keys", type=int, default=10, help="measured keypresses per shell and method")
    p.add_argument("--quick", action="store_true", help="few repetitions: a smoke run")
    p.add_argument("--no-tmux", action="store_true", help="skip the keypress measure")
    a = p.parse_args(argv)
    if a.quick:
        a.renders, a.batches, a.runs, a.starts, a.keys = 500, 3, 5, 3, 3
    shutil.rmtree(WORK, ignore_errors=True)
    WORK.mkdir(parents=True)
    strace = shutil.which("strace") is not None
    if not strace:
        print("bench_shell: strace not installed (apt-get install strace): no fork counts")
    tmux_ok = shutil.which("tmux") is not None and not a.no_tmux
    print(f"bench_shell: load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    results = []
    for shell in a.shells.split(","):
        if not shutil.which(shell):
            print(f"bench_shell: {shell} not installed, skipped")
            continue
        print(f"\n-- {shell}", flush=True)
        base = WORK / shell
        base.mkdir(parents=True, exist_ok=True)
        (base / f"plugin.{shell}").write_text(subprocess.run(
            common.conv("init", shell), env=shell_env(base, base / "conv-home"),
            capture_output=True, text=True, check=True).stdout)
        rows = prompt_segment(shell, a.renders, a.batches, strace)
        rows += startup(shell, a.runs, a.starts)
        if tmux_ok:
            rows += keypress(shell, a.keys)
        results += [{"shell": shell, **r} for r in rows]
    if tmux_ok:
        print("\n-- no shell", flush=True)
        results += [{"shell": "-", **r} for r in direct(a.keys)]
    table(results)
    # run_all.py's table has one name column: the shell goes into it
    return [{**r, "name": f"{r['shell']}: {r['name']}" if r["shell"] != "-" else r["name"]} for r in results]


if __name__ == "__main__":
    main()
