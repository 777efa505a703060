"""Files kept beside a turn (docs/format.md, a turn's ``files``): what one
is (UTF-8 text, or a png, jpeg, gif or webp image; anything else refused),
and a turn with its files, to be stored beside it. A question's files
(services/ask/attachments.py) and an imported tool's output (services/imports.py)
are both kept so."""

from ..errors import UsageError
from ..records import dataclass
from .ids import attachment_name
from .model import Turn

IMAGES = {b"\x89PNG\r\n\x1a\n": "image/png", b"\xff\xd8\xff": "image/jpeg", b"GIF87a": "image/gif",
          b"GIF89a": "image/gif"}  # and webp: RIFF....WEBP (image_type)


@dataclass
class Attachment:
    name: str  # as given: the path, or "stdin"
    data: bytes
    type: str  # image/png…, or text/plain
    sent: bool = True  # False: kept beside the turn, never sent (an imported tool's whole output)

    @property
    def image(self) -> bool:
        return self.type.startswith("image/")


def image_type(data: bytes) -> str | None:
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((kind for magic, kind in IMAGES.items() if data.startswith(magic)), None)


def classified(name: str, data: bytes) -> Attachment:
    """An image or UTF-8 text; anything else is refused."""
    kind = image_type(data)
    if kind is None:
        if b"\0" in data:
            raise UsageError(f"{name} is binary: neither text nor a png, jpeg, gif or webp image; nothing was "
                             "stored or sent", "Send text (UTF-8) or an image")
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UsageError(f"{name} is not UTF-8 text (a byte it cannot be at offset {exc.start:,}); nothing was "
                             "stored or sent", f"Convert it first, e.g. iconv -f latin1 -t utf-8 {name}") from None
    return Attachment(name, data, kind or "text/plain")


def attach(turn: Turn, attached: list[Attachment]) -> Turn:
    """``turn`` with the files, to be stored beside it."""
    if attached:
        turn.files, turn.attached = [], {}
        for n, a in enumerate(attached, 1):
            file = attachment_name(turn.name, n, a.name)
            turn.files.append({"name": a.name, "file": file, "type": a.type, "bytes": len(a.data)}
                              | ({} if a.sent else {"sent": False}))
            turn.attached[file] = a.data
    return turn
