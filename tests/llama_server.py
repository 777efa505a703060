"""llama.cpp's own server, the one the xllamacpp wheel embeds, on a loopback
TCP port: a third-party server for conv's HTTP providers, answering OpenAI's
``/v1/chat/completions`` and Anthropic's ``/v1/messages``.

Run as a script with the GGUF file: prints its port once the model has
loaded, then serves until it is killed. ``start(model)`` does that and
returns (process, port)."""

import os
import signal
import socket
import subprocess
import sys

# tokens, as the local tests ask, for a request that names no max_tokens: a 135M model may fill the window
ANSWER_MOST = 24


def start(model) -> tuple[subprocess.Popen, int]:
    server = subprocess.Popen([sys.executable, __file__, str(model)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    line = server.stdout.readline()
    if not line.strip().isdigit():
        server.kill()
        raise AssertionError(f"llama.cpp's server did not start: {line!r}")
    return server, int(line)


def main(model: str) -> None:
    import xllamacpp

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    params = xllamacpp.CommonParams()
    params.model.path = model
    params.n_ctx = 4096
    params.n_parallel = 1
    params.n_predict = ANSWER_MOST
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = 1
    params.fit_params = False
    params.warmup = False
    params.verbosity = -1
    params.model_alias = {"smollm2"}  # the name it answers to and reports, as a hosted model has
    if hasattr(params, "hostnames"):
        params.hostnames = ["127.0.0.1"]
    else:
        params.hostname = "127.0.0.1"  # its name until 2026.10
    params.port = port
    server = xllamacpp.Server(params)  # noqa: F841 - it serves while it is referenced
    print(port, flush=True)
    signal.sigwait({signal.SIGTERM, signal.SIGINT})
    os._exit(0)  # its destructor can hang as the interpreter ends


if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})  # before its threads start
    main(sys.argv[1])
