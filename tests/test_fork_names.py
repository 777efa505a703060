"""Two lines of one person's conversation met by sync (store/merge.merged)
and met on a project's side ref (store/publishing) go to the same fork: a
line diverged both ways is never two forks."""

from conv.format.model import Conversation
from conv.store.merge import Side, merged
from conv.store.publishing import _meet

CONV = "k3f9x2abcdef"
META = Conversation(id=CONV, created="2026-11-26T10:00:00.000Z", title="shared").to_text().encode()
Q, A = "20261126-100000.000-aaaa-user", "20261126-100001.000-bbbb-assistant"
MINE, THEIRS = "20261126-110000.000-cccc-user", "20261126-120000.000-dddd-user"  # theirs began later: it moves


def side(*files: str) -> Side:
    return Side("conversations", {"conversation.md": "meta", **{f: f"sha-{f}" for f in files}})


def test_sync_and_a_project_ref_name_the_fork_of_one_line_alike():
    base = side(f"{Q}.md", f"{A}.md")
    mine = side(f"{Q}.md", f"{A}.md", f"{MINE}.md")
    theirs = side(f"{Q}.md", f"{A}.md", f"{THEIRS}.md", f"{THEIRS}.1.png")  # the moving turn sent a file

    _, synced = merged(CONV, base, mine, theirs, lambda name: True, lambda sha: META, None)
    ref = {CONV: theirs}
    assert _meet(CONV, mine, ref, lambda sha: META, {}) == 1
    (published,) = set(ref) - {CONV}
    assert synced.conv_id == published
