"""A conversation from outside, as the one writer of such (ingest.py) takes it."""

from ..records import dataclass

TYPE_CHECKING = False  # typing's, without importing typing: PEP 781's idiom
if TYPE_CHECKING:
    from ..format.model import Conversation, Turn


@dataclass
class Incoming:
    """One conversation from outside (an import, a teammate's side ref), as the
    files of its folder: name -> content (or the blob id of a file the store
    holds), conversation.md as it is to be written when the conversation is
    new; ``base``: what was last brought in of it (name -> blob id), when
    known (``Store.ingest``)."""

    conv_id: str
    files: dict[str, "bytes | str"]
    base: dict[str, str] | None = None

    @classmethod
    def of(cls, conv: "Conversation", turns: "list[Turn]") -> "Incoming":
        """A conversation conv made (an import's), as files."""
        files = {"conversation.md": conv.to_text().encode()}
        for turn in turns:
            files[f"{turn.name}.md"] = turn.to_text().encode()
            files.update(turn.attached)
        return cls(conv.id, files)
