"""Finding the local model's host process (host.py), starting it when none
runs, and saying what happened when it died.

One host per model file and settings, its files named by a hash of them in
a private runtime folder ($XDG_RUNTIME_DIR/conv, else $TMPDIR/conv-UID,
mode 0700; short, as a Unix socket's path must be):
  KEY.sock   llama.cpp's server: OpenAI's and Anthropic's APIs, no TCP port
  KEY.key    the API key it asks for (0600), so a socket reached anyway is refused
  KEY.lock   flock-ed by the host as long as it lives: free means no host, and
             the conv that takes it starts one (no stale pid files, no races)
  KEY.ready  there once the model is loaded
  KEY.log    the host's stderr: a fatal signal is named there by faulthandler
conv itself never loads llama.cpp, so a crash in it never takes conv down.
"""

import errno
import fcntl
import json
import os
import re
import select
import sys
import time
import zlib
from pathlib import Path

from ...errors import ProviderError
from ...home.config import Config
from ...records import dataclass
from .model import RUNTIME

LOAD_TIMEOUT = 120.0  # seconds a model may take to load (SmolLM2: 0.3-0.5 s; a 7B file: 10 s or more)
POLL = 0.02  # seconds between looks while another conv's host loads
SOCKET_PATH_MOST = 100  # bytes: sun_path holds 104 (macOS) to 108 (Linux)
SCRIPT = str(Path(__file__).with_name("host.py"))

# what faulthandler names, and what to do about it
FATAL_HINTS = {
    "Illegal instruction": (f"This CPU lacks an instruction the {RUNTIME} wheel uses: build it for this machine "
                            f"(CMAKE_ARGS=-DGGML_NATIVE=OFF pip install --no-binary {RUNTIME} {RUNTIME}), "
                            "or answer with another model (conv models)"),
    "Bus error": ("The model file may have changed or become unreadable while it was read: "
                  "conv models pull, then conv retry"),
}


@dataclass(frozen=True)
class Host:
    """The files of one host; the process may or may not be running."""

    base: str  # the folder and the key: every file is BASE.SUFFIX

    @property
    def socket(self) -> str:
        return self.base + ".sock"

    @property
    def lock(self) -> str:
        return self.base + ".lock"

    @property
    def ready(self) -> str:
        return self.base + ".ready"

    @property
    def log(self) -> str:
        return self.base + ".log"

    @property
    def key_file(self) -> str:
        return self.base + ".key"

    @property
    def url(self) -> str:
        from urllib.parse import quote

        return f"http+unix://{quote(self.socket, safe='')}/v1"

    def key(self) -> str:
        with open(self.key_file, encoding="ascii") as file:
            return file.read().strip()

    def alive(self) -> bool:
        """Whether a host process holds the lock (running or still loading)."""
        try:
            fd = os.open(self.lock, os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False

    def gone(self, wait: float = 0.5) -> bool:
        """Whether the host has ended, waiting up to ``wait`` s for the kernel to
        finish closing a process that just died (its socket may close first)."""
        deadline = time.monotonic() + wait
        while self.alive():
            if time.monotonic() >= deadline:
                return False
            time.sleep(POLL)
        return True

    def died(self, model: str, when: str) -> ProviderError:
        """What to tell the user about a host that ended ``when`` it should not have."""
        kept = "What came is kept" if when == "while answering" else "The question is kept"
        fatal = self.fatal_signal()
        if fatal:
            return ProviderError(
                f"the local model crashed {when}: {fatal} in llama.cpp ({model})",
                FATAL_HINTS.get(fatal, f"{kept}; conv retry asks again (if it crashes again, see {self.log})"),
            )
        return ProviderError(
            f"the local model's process ended {when} without a word: killed, perhaps for memory ({model})",
            f"{kept}; conv retry asks again (a smaller local.context needs less memory)",
        )

    def fatal_signal(self) -> str | None:
        """The fatal error faulthandler wrote to the log, e.g. "Segmentation fault"."""
        try:
            with open(self.log, "rb") as file:
                file.seek(max(0, os.fstat(file.fileno()).st_size - 16384))
                tail = file.read().decode("utf-8", "replace")
        except OSError:
            return None
        found = re.findall(r"Fatal Python error: ([^\n]+)", tail)
        return found[-1].strip() if found else None


def settings_for(model: Path, config: Config) -> dict:
    """What the host is started with: local.threads for both the prompt and the
    answer when set; else the prompt on every core (its threads sleep while
    they wait, so a busy machine slows it by a sixth, where spinning ones took
    3 s on two busy cores) and the answer on half of them."""
    cores, chosen = os.cpu_count() or 2, config.get("local.threads")
    return {
        "model": str(model),
        "context": config.get("local.context"),
        "threads": chosen or max(1, cores // 2),
        "prompt_threads": chosen or cores,
        "keep_alive": config.get("local.keep_alive"),
    }


def host_of(settings: dict) -> Host:
    """The host for these settings: the same file (by path, size and time) and window share one."""
    model = Path(settings["model"]).resolve()
    stat = model.stat()
    identity = json.dumps([str(model), stat.st_size, stat.st_mtime_ns, settings["context"], settings["threads"],
                           settings["prompt_threads"]]).encode()
    key = f"{zlib.crc32(identity):08x}{zlib.adler32(identity):08x}"  # not hashlib: its import is 5 ms of every ask
    host = Host(os.path.join(runtime_dir(), key))
    if len(host.socket.encode()) > SOCKET_PATH_MOST:
        raise ProviderError(f"the local model's socket path would be too long ({host.socket})",
                            "Set XDG_RUNTIME_DIR (or TMPDIR) to a shorter folder")
    return host


def runtime_dir() -> str:
    """conv's private folder for sockets, made 0700, refused if another user owns it."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    folder = os.path.join(runtime, "conv") if runtime else os.path.join(os.environ.get("TMPDIR") or "/tmp",
                                                                        f"conv-{os.getuid()}")
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.stat(folder)
    except OSError as exc:
        raise ProviderError(f"cannot make {folder} for the local model: {exc.strerror}",
                            "Set XDG_RUNTIME_DIR to a folder of yours") from None
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise ProviderError(f"{folder} is not private to you (owner uid {info.st_uid}, mode {info.st_mode & 0o777:o})",
                            "Remove it (conv makes it again, mode 0700), or set XDG_RUNTIME_DIR to a folder of yours")
    return folder


def start(model: Path, config: Config) -> Host:
    """The host serving ``model``, started when none runs; returns once it has loaded."""
    settings = settings_for(model, config)
    host = host_of(settings)
    deadline = time.monotonic() + LOAD_TIMEOUT
    while True:
        lock = os.open(host.lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(lock)  # a host runs, or another conv is starting one
            if os.path.exists(host.ready):
                return host
            if time.monotonic() > deadline:
                raise _slow(model) from None
            time.sleep(POLL)
            continue
        try:
            _spawn(host, settings, lock, deadline)
        finally:
            os.close(lock)  # the host holds the same lock on for as long as it lives
        return host


def _spawn(host: Host, settings: dict, lock: int, deadline: float) -> None:
    """Start host.py on ``settings`` with the lock, and wait until it has loaded the model."""
    import secrets
    import subprocess

    for stale in (host.ready, host.socket):  # a host that died left them
        try:
            os.unlink(stale)
        except FileNotFoundError:
            pass
    key = secrets.token_urlsafe(24)
    fd = os.open(host.key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    with open(fd, "w", encoding="ascii") as file:
        file.write(key)
    log = os.open(host.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    try:
        process = subprocess.Popen([sys.executable, SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=log, pass_fds=(lock,), start_new_session=True)
    finally:
        os.close(log)
    with process.stdout as said:
        try:
            with process.stdin as ask:
                ask.write(json.dumps({**settings, "socket": host.socket, "key": key,
                                      "ready": host.ready}).encode() + b"\n")
        except BrokenPipeError:
            pass  # it died at once: its log says why
        process.wait()  # the script forks at once: its child is the host, on its own
        line = _read_line(said, deadline)
    if line == "ready":
        return
    if line is None:
        raise _slow(Path(settings["model"]))
    if line.startswith("error: "):
        raise ProviderError(f"the local model could not load {settings['model']}: {line[7:]}",
                            "Is it a GGUF model file? conv models pull fetches the default one again")
    raise host.died(settings["model"], "while loading")


def _read_line(pipe, deadline: float) -> str | None:
    """The host's one line ("" when it died first), or None when the deadline passed.
    poll, not select: select refuses a descriptor past 1023, which a process
    that opened many files (conv's tests run it in theirs) hands it."""
    line, waiting = b"", select.poll()
    waiting.register(pipe, select.POLLIN)
    while not line.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not waiting.poll(left * 1000):
            return None
        try:
            chunk = os.read(pipe.fileno(), 4096)
        except OSError as exc:
            if exc.errno == errno.EINTR:
                continue
            raise
        if not chunk:
            break
        line += chunk
    return line.decode("utf-8", "replace").strip()


def _slow(model: Path) -> ProviderError:
    return ProviderError(f"the local model did not load {model} within {LOAD_TIMEOUT:g} s",
                         "It goes on loading: try again in a moment, or use a smaller model file")
