"""Who the user is, gathered once for a command that sends conversations out
(login, host, home, git name and e-mail, the machines of ~/.ssh/config, the
config's ``redact.*``), and a redactor for each conversation, which knows its
project's root as well (home/redaction.py masks them)."""

import getpass
import os
import socket

from ..errors import StoreError
from ..format.model import META_FILE, Conversation
from ..home import addresses
from ..home.redaction import Mine, Redactor, Report, Rules
from ..records import replace
from .workspace import Workspace


class Redacting:
    """The redactors of one command, all noting what they change in one ``report``."""

    def __init__(self, ws: Workspace, report: Report | None = None):
        self.report = report if report is not None else Report()
        name, email = ws.store.work_tree.identity()
        home = os.path.expanduser("~")
        self.mine = Mine(homes=tuple({home, os.environ.get("HOME", "")} - {""}), login=_login(),
                         host=socket.gethostname(), git_name=name, git_email=email,
                         machines=addresses.ssh_hosts(home))
        get = ws.config.get
        self.rules = Rules(words=get("redact.words") or (), patterns=get("redact.patterns") or (),
                           hosts=get("redact.hosts") or (), off=get("redact.off") or ())

    def of(self, conv: Conversation | None, keep: tuple[str, ...] = ()) -> Redactor:
        """A redactor for ``conv``: its numbering its own, its project's roots (where it ran) masked too,
        ``keep`` left whole (None: for what belongs to no one conversation, a list of them)."""
        roots = {(conv.project or {}).get("root"), (conv.imported_from or {}).get("cwd")} if conv else set()
        mine = replace(self.mine, roots=tuple(r for r in roots if isinstance(r, str) and r))
        return Redactor(mine, self.rules, self.report, keep)

    def files(self, keep: tuple[str, ...] = ()):
        """A conversation's files (name -> bytes) as they may leave (conv push --project): every text file
        masked (the turns, a tool's whole output kept beside one, a file sent), conversation.md read for
        where it ran and masked first, then the rest in name order, their placeholders numbered through the
        conversation: a turn added later numbers only what is new, so what was pushed before stays the same
        bytes."""
        def masked(conv_id: str, files: dict[str, bytes]) -> dict[str, bytes]:
            try:
                conv = Conversation.from_text(files[META_FILE].decode("utf-8"))
            except (KeyError, StoreError, UnicodeDecodeError):  # the ref's own files are checked elsewhere
                conv = Conversation(id=conv_id, created="")
            redactor = self.of(conv, keep)
            redactor.taken(data.decode("utf-8", "replace") for data in files.values())
            out = {}
            for name in sorted(files, key=lambda name: (name != META_FILE, name)):
                try:
                    out[name] = redactor(files[name].decode("utf-8"), f"{conv_id} {name}").encode()
                except UnicodeDecodeError:  # a file sent that is no text (an image): as it is
                    out[name] = files[name]
            return out
        return masked


def _login() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no name in the environment and none for the uid
        return ""
