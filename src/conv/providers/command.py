"""Any command line as the model: ``-m 'cmd:ollama run llama3'``, ``cmd:llm``,
``cmd:claude -p`` — so every CLI a user already has set up can answer.

The command line is split as a shell would split it (shlex) but run without a
shell; write ``cmd:sh -c '…'`` for pipes. It gets the conversation on stdin,
then end of file; its stdout is the answer, passed on as it arrives; its
stderr is read only for the error message should it fail.

On stdin, a lone question (no earlier turns, no system prompt) goes as it is,
for one-shot CLIs. Anything more goes as a plain transcript that any chat
model reads: one block a message, headed by its role, blocks separated by a
blank line, the system prompt first and the question last (no trailing
newline, no ``Assistant:`` cue)::

    System: Be terse.

    User: What is a rebase?

    Assistant: Replaying commits onto another base.

    User: And a merge?

Whitespace at the very end of the output is dropped: a CLI's closing newline
is for the terminal, not part of the answer. ``timeout.read`` is how long the
command may go without printing; then it is stopped. It runs in a process
group of its own (so Ctrl-C reaches conv, not it), and whenever conv stops
it (timeout, Ctrl-C, SIGTERM) the whole group gets SIGTERM, then SIGKILL.
"""

import codecs
import os
import selectors
import shlex
import signal
import subprocess
import time

from ..errors import Interrupted, ProviderError
from ..home.config import Config
from ..records import dataclass
from . import Message, OnText, Reply

CHUNK = 65536
MAX_STDERR = 65536  # the tail kept for the error message
TERM_GRACE = 2.0  # seconds between SIGTERM and SIGKILL


@dataclass
class CommandProvider:
    read_timeout: float
    name: str = "cmd"

    @classmethod
    def from_config(cls, config: Config) -> "CommandProvider":
        return cls(config.get("timeout.read"))

    OPTIONS = ()  # a command line has no such knobs
    IMAGES = False  # it reads text on stdin

    def complete(
        self, messages: list[Message], model: str, on_text: OnText, stream: bool = True, options: dict | None = None,
    ) -> Reply:
        argv = _split(model)
        answer = _Answer(on_text, stream)
        proc = _start(argv)
        try:
            stderr = self._pump(proc, transcript(messages).encode(), answer, argv[0])
            status = proc.wait(self.read_timeout)
        except subprocess.TimeoutExpired:
            raise self._timeout(argv[0]) from None
        finally:
            if proc.returncode is None:
                _stop(proc)
            for pipe in (proc.stdin, proc.stdout, proc.stderr):
                pipe.close()
            answer.close()
        if status:
            raise _failed(argv[0], status, stderr)
        return Reply(model=model, finish="stop")

    def _pump(self, proc: subprocess.Popen, data: bytes, answer: "_Answer", name: str) -> bytearray:
        """Feed stdin and drain stdout and stderr in one loop, so a command that
        writes before it has read everything never deadlocks with conv.
        Returns the tail of stderr."""
        stderr = bytearray()
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        with selectors.DefaultSelector() as sel:
            os.set_blocking(proc.stdin.fileno(), False)
            sel.register(proc.stdin, selectors.EVENT_WRITE)
            sel.register(proc.stdout, selectors.EVENT_READ)
            sel.register(proc.stderr, selectors.EVENT_READ)
            deadline = time.monotonic() + self.read_timeout
            while sel.get_map():
                events = sel.select(max(0.0, deadline - time.monotonic()))
                if not events and time.monotonic() >= deadline:
                    raise self._timeout(name)
                for key, _ in events:
                    pipe = key.fileobj
                    if pipe is proc.stdin:
                        data = _feed(pipe, data)
                        if not data:
                            sel.unregister(pipe)
                            pipe.close()
                        continue
                    chunk = os.read(pipe.fileno(), CHUNK)
                    if not chunk:
                        sel.unregister(pipe)
                    elif pipe is proc.stdout:
                        answer.add(decoder.decode(chunk))
                        deadline = time.monotonic() + self.read_timeout
                    else:
                        stderr += chunk
                        del stderr[:-MAX_STDERR]
        answer.add(decoder.decode(b"", final=True))
        return stderr

    def _timeout(self, name: str) -> ProviderError:
        return ProviderError(
            f"no output from {name} for {self.read_timeout:g} s (read timeout); it was stopped",
            "If it is only slow (loading a model?), raise the limit: conv config set timeout.read SECONDS",
        )


def transcript(messages: list[Message]) -> str:
    """What the command reads on stdin (see the module docstring)."""
    if len(messages) == 1 and messages[0].role == "user":
        return messages[0].content
    return "\n\n".join(f"{m.role.title()}: {m.content}" for m in messages)


class _Answer:
    """Passes the output on: each piece as it comes (or all of it once, at the
    end, when not streaming), holding back trailing whitespace until more text
    follows it, so the output's closing newlines never reach the answer."""

    def __init__(self, on_text: OnText, stream: bool):
        self.on_text, self.stream = on_text, stream
        self.held = ""  # trailing whitespace, or everything when not streaming

    def add(self, text: str) -> None:
        text = self.held + text
        if not self.stream:
            self.held = text
            return
        body = text.rstrip()
        self.held = text[len(body):]
        if body:
            self.on_text(body)

    def close(self) -> None:
        """Pass on what is held back, but for the trailing whitespace."""
        body, self.held = self.held.rstrip(), ""
        if body:
            self.on_text(body)


def _split(line: str) -> list[str]:
    try:
        argv = shlex.split(line)
    except ValueError as exc:
        raise ProviderError(f"cannot split the command line {line!r}: {exc}", "Check its quotes") from None
    if not argv or not argv[0]:
        raise ProviderError("the cmd: model names no command",
                            "Write it as -m 'cmd:TOOL ARGS', e.g. cmd:ollama run llama3")
    return argv


def _start(argv: list[str]) -> subprocess.Popen:
    name = argv[0]
    try:
        return subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        )
    except FileNotFoundError:
        raise ProviderError(f"command not found: {name}",
                            "Install it or give a full path: -m 'cmd:/path/to/tool ARGS'") from None
    except PermissionError:
        raise ProviderError(f"command not executable: {name}", "Check the path, and its mode (chmod +x)") from None
    except OSError as exc:
        raise ProviderError(f"cannot run {name}: {exc.strerror or exc}") from None


def _feed(pipe, data: bytes) -> bytes:
    """Write what the pipe takes now; what is left. A command that exits (or
    closes stdin) without reading it all is left to say so by its status."""
    try:
        return data[os.write(pipe.fileno(), data[:CHUNK]):]
    except BlockingIOError:
        return data
    except BrokenPipeError:
        return b""


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM the command's process group, SIGKILL it after TERM_GRACE (or at
    a second Ctrl-C), and reap it: no orphan, no zombie."""
    try:
        _signal_group(proc, signal.SIGTERM)
        proc.wait(TERM_GRACE)
    except (subprocess.TimeoutExpired, KeyboardInterrupt, Interrupted):
        pass  # the grace ran out, or a second Ctrl-C: no more waiting
    _signal_group(proc, signal.SIGKILL)  # what the leader left behind, too
    proc.wait()


def _signal_group(proc: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(proc.pid, signum)
    except ProcessLookupError:
        pass


def _failed(name: str, status: int, stderr: bytearray) -> ProviderError:
    how = f"was killed by signal {-status}" if status < 0 else f"exited with status {status}"
    lines = (line.strip() for line in stderr.decode("utf-8", "replace").splitlines())  # cleaned where printed
    last = next((line for line in reversed(list(lines)) if line), "")
    detail = f": {' '.join(last.split())[:200]}" if last else ""
    return ProviderError(f"{name} {how}{detail}",
                         "" if last else f"It printed no error; run {name} yourself to see why")
