"""``conv chat``'s terminal side: readline, the prompt, Ctrl-C and Ctrl-D
around a Chat (services/chat.py, which says what a typed line means)."""

import os
import signal
import sys

from ...format.words import plural

HISTORY_LINES = 1000  # kept in the history file, which is trimmed to this after each line
HELP = """\
Type a message and press Enter: the answer streams below, and every turn is saved.
A line ending in \\ goes on on the next line; the lines between two lines of \"\"\" are one
message, taken as typed (for pasting code). // at the start sends a message starting with /.
{commands}
Tab completes a command. Ctrl-C stops an answer (the part that arrived is saved) or drops
what you are typing."""


class Terminal:
    """The read-answer loop around a Chat."""

    def __init__(self, chat, markdown: bool = False):
        from ...services.chat import Composer

        self.chat = chat
        self.markdown = markdown
        self.composer = Composer()
        self.interactive = sys.stdin.isatty()
        self.styled = self.interactive and sys.stdout.isatty() and not os.environ.get("NO_COLOR")
        self.history = _history() if self.interactive else None

    def run(self) -> None:
        from ...errors import ConvError, Interrupted
        from ...terminal import render
        from .text import refuse_undecodable

        where = f"going on with {self.chat.short}" if self.chat.conv_id else "a new conversation"
        render.notice(f"{where}; /help for commands, Ctrl-D to leave")
        while True:
            try:
                line = self._read()
            except EOFError:  # Ctrl-D: the cursor is still on the prompt's line
                self._newline()
                break
            except Interrupted:  # Ctrl-C at the prompt: drop the line and start a fresh one, as a shell does
                self.composer.reset()
                self._newline()
                continue
            try:
                refuse_undecodable(line, "that line", "Type it again in UTF-8")
                entry = self.composer.feed(line)
                if entry is not None and not self._do(entry):
                    break
            except Interrupted as exc:
                if exc.exit_code != 128 + signal.SIGINT:
                    raise  # the terminal went away (or SIGTERM): leave as conv ask does
                render.notice("stopped")
            except ConvError as exc:
                render.error(str(exc))
        if self.composer.pending:
            render.notice("the unfinished message was not sent")
        if self.chat.conv_id:
            self._leave()

    def _leave(self) -> None:
        """Pause the chat's conversation and say how to take it up again."""
        from ...errors import ConvError
        from ...terminal import render

        short = self.chat.short
        try:
            paused = self.chat.pause()
        except ConvError as exc:  # e.g. a read-only store: leaving must still work
            render.error(str(exc))
            paused = False
        render.notice(("paused " + short + "; " if paused else "")
                      + f'to go on later: conv chat {short}, conv resume, or conv ask --cid {short} "…"')

    def _read(self) -> str:
        """One line from the prompt (remembered in the history file)."""
        import readline

        before = readline.get_current_history_length()
        line = input(self._prompt())
        if self.history and readline.get_current_history_length() > before:
            try:
                readline.append_history_file(1, self.history)
            except OSError:
                pass  # history is a convenience: never a reason to stop
        return line

    def _prompt(self) -> str:
        if not self.interactive:
            return ""
        if self.composer.pending:
            return "... "
        text = f"conv {self.chat.short}>" if self.chat.conv_id else "conv>"
        # \001 \002 tell readline the colour codes take no room on the line
        return f"\001\x1b[36m\002{text}\001\x1b[0m\002 " if self.styled else f"{text} "

    def _confirm(self, question: str) -> bool:
        try:
            return input(question).strip().lower() in ("y", "yes")
        except EOFError:
            return False

    def _newline(self) -> None:
        if self.interactive:
            sys.stdout.write("\n")
            sys.stdout.flush()

    def _do(self, entry) -> bool:
        """Carry out a message or command; False to leave."""
        from ...services.chat import COMMANDS, sounds_like_stopping
        from ...terminal import render

        chat = self.chat
        if isinstance(entry, str):
            if self.interactive and chat.conv_id and sounds_like_stopping(entry) and self._confirm(
                    f"pause {chat.short} and leave? [y/N] "):
                return False
            self._answer(lambda out: chat.send(entry, out))
        elif entry.name in ("exit", "stop"):
            return False
        elif entry.name in ("new", "clear"):
            left = chat.start_over()
            render.notice((f"left {chat.ws.index.queries.short_id(left)} (kept); " if left else "")
                          + "the next message starts a new conversation")
        elif entry.name == "history":
            for short, title, turns, here in chat.history():
                render.plain(f"{'*' if here else ' '}{short}  {plural(turns, 'turn')}  {title or '(untitled)'}")
            if not chat.ws.visited:
                render.notice("no conversation yet in this chat")
        elif entry.name == "model":
            spec = chat.switch_model(entry.arg)
            render.notice(f"the next answers come from {spec}" if entry.arg else f"model: {spec}")
        elif entry.name == "file":
            render.notice(f"{chat.attach(entry.arg)} goes with the next message")
        elif entry.name == "retry":
            self._answer(lambda out: chat.retry(entry.arg, out))
        elif entry.name == "fork":
            forked = chat.fork(entry.arg)
            parent = chat.ws.index.queries.short_id(forked.parent)
            render.notice(f"forked {parent} at turn {forked.at}; this chat goes on in {forked.short}")
        elif entry.name == "title":
            render.plain(chat.title(entry.arg) or "(untitled)")
        elif entry.name == "show":
            from ...terminal.show import print_conversation

            print_conversation(chat.conversation())
        else:  # help
            lines = [f"  /{name} {arg}".ljust(18) + what for name, (arg, what) in COMMANDS.items()]
            render.wrapped(HELP.format(commands="\n".join(lines)), hang=18)
        return True

    def _answer(self, ask) -> None:
        """Stream an answer as conv ask does; Ctrl-C stops it and the chat goes on."""
        from ...errors import Interrupted
        from ...terminal import render

        printer, stopped = render.AnswerPrinter(markdown=self.markdown), False
        try:
            ask(printer)
        except Interrupted as exc:
            if exc.exit_code != 128 + signal.SIGINT:
                raise
            stopped = True
        finally:
            printer.finish()
        printer.check()
        if stopped:
            render.notice("answer stopped; the part that arrived is saved (/retry asks again)")


def _history() -> str | None:
    """Line editing and the history file for the prompt; the file's path, or None
    if it cannot be made. Tab completes the commands."""
    import readline

    from ...home import paths
    from ...services.chat import COMMANDS

    def complete(text: str, state: int) -> str | None:
        found = [f"/{name} " for name in COMMANDS if text.startswith("/") and f"/{name}".startswith(text)]
        return found[state] if state < len(found) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" \t\n")
    readline.parse_and_bind("bind ^I rl_complete" if "libedit" in (readline.__doc__ or "") else "tab: complete")
    readline.set_history_length(HISTORY_LINES)
    path = paths.chat_history()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))  # private: it holds what was asked
        readline.read_history_file(path)
    except OSError:
        return None
    return str(path)
