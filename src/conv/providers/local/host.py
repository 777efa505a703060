"""The process that holds the local model: llama.cpp's own server (the
xllamacpp wheel) on a Unix socket, loaded once and kept for
``local.keep_alive`` after its last answer, as Ollama keeps a model. Loading
costs 0.3-0.5 s; a follow-up to a loaded model waits only for its prompt,
and llama.cpp reuses what it computed for the conversation's earlier turns.

hosting.py starts it as a script (it imports nothing of conv's, so it starts
in the time Python takes) and talks to it so:
  - stdin: one JSON line of settings (the model file, the socket, the API key);
  - stdout: ``ready`` (and its pid in the ready file), or ``error: WHY``
    when the model does not load;
  - an inherited descriptor holding the flock on its lock file, released by
    the kernel however it ends: a free lock means no host;
  - stderr is its log, where faulthandler names a fatal signal (SIGSEGV,
    SIGILL, SIGABRT, SIGBUS, SIGFPE), for hosting.py to report.
It leaves its parent at once (fork), so no conv process waits for it or
leaves it a zombie.
"""

import faulthandler
import json
import os
import sys
import time

TICK = 0.5  # seconds between looks at whether it is still used
UNUSED_GRACE = 30.0  # a host no request ever reached (its conv was stopped) ends after this


def main() -> None:
    if os.fork():
        os._exit(0)  # the parent is reaped by the conv that started it; this child goes on alone
    faulthandler.enable()  # before xllamacpp is imported: a crash while loading is named too
    settings = json.loads(sys.stdin.readline())
    try:
        server = load(settings)
    except Exception as exc:  # noqa: BLE001 - whatever stops the load is said to the conv waiting for it
        tell(f"error: {' '.join(str(exc).split()) or type(exc).__name__}")
        os._exit(1)
    with open(settings["ready"], "w") as ready:
        ready.write(f"{os.getpid()}\n")
    tell("ready")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)  # the conv that started it stops reading here
    wait_until_unused(server, settings)
    for name in ("ready", "socket"):  # a conv arriving now starts a new host rather than knock here
        try:
            os.unlink(settings[name])
        except OSError:
            pass
    # xllamacpp's server can hang in its destructor as the interpreter ends: leave without it
    os._exit(0)


def load(settings: dict):
    try:
        import xllamacpp
    except ImportError as exc:
        raise RuntimeError(f"cannot import xllamacpp: {exc}") from None
    params = xllamacpp.CommonParams()
    params.model.path = settings["model"]
    params.n_ctx = settings["context"]
    params.n_parallel = 1
    # the answer on one thread of two cores: with two, a token took as long as anything else ran
    params.cpuparams.n_threads = settings["threads"]
    # the prompt on every core, its threads sleeping while they wait (poll 0): on two cores its
    # 28 tokens took 117-156 ms against 217-329 on one, and 0.3-0.7 s against 0.3-0.5 with both
    # cores busy, where spinning threads took 3 s
    params.cpuparams_batch.n_threads = settings["prompt_threads"]
    params.cpuparams_batch.poll = 0
    params.warmup = False  # a warm-up pass would delay the first answer, not speed it
    params.fit_params = False  # probing the memory for a fit nearly doubles the load (0.78 against 0.44 s)
    params.cache_ram_mib = 0  # no copies of past prompts: the slot's own cache serves a follow-up
    params.verbosity = -1
    params.endpoint_metrics = True  # wait_until_unused reads them
    if hasattr(params, "hostnames"):  # a path ending in .sock: a Unix socket, no TCP port
        params.hostnames = [settings["socket"]]
    else:
        params.hostname = settings["socket"]  # its name until 2026.10
    params.api_keys = [settings["key"]]
    return xllamacpp.Server(params)


def tell(line: str) -> None:
    try:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()
    except OSError:
        pass  # the conv that started it is gone; the next one finds the host by its files


def wait_until_unused(server, settings: dict) -> None:
    """Return once no request has come for ``keep_alive`` seconds (none ever:
    UNUSED_GRACE), or when the socket is gone or another host's."""
    keep_alive, socket_path = settings["keep_alive"], settings["socket"]
    try:
        inode = os.stat(socket_path).st_ino
    except FileNotFoundError:
        return  # its folder was removed while it loaded
    seen, since = activity(server), time.monotonic()
    first = seen
    while True:
        time.sleep(TICK)
        busy, counters = now_seen = activity(server)
        if now_seen != seen:
            seen, since = now_seen, time.monotonic()
        if busy:
            continue
        idle = time.monotonic() - since
        if idle >= (keep_alive if counters != first[1] else max(keep_alive, UNUSED_GRACE)):
            return
        try:
            if os.stat(socket_path).st_ino != inode:
                return
        except FileNotFoundError:
            return


def activity(server) -> tuple[bool, tuple[str, ...]]:
    """(a request is running or waiting, the counters of work done so far), from llama.cpp's metrics."""
    values = dict(line.split(" ", 1) for line in server.handle_metrics().splitlines()
                  if line.startswith("llamacpp:") and " " in line)
    busy = any(values.get(f"llamacpp:requests_{name}", "0").strip() not in ("0", "0.0")
               for name in ("processing", "deferred"))
    return busy, tuple(values.get(f"llamacpp:{name}", "") for name in ("n_decode_total", "prompt_tokens_total"))


if __name__ == "__main__":
    main()
