"""title, tag, status and summary take the current conversation when no
reference is given, as their help says (issue 13, defect 5); a first word
that names a conversation is still its reference."""

import json

from conftest import fails, ok

TERM = {"CONV_SESSION": "metadata-defaults"}


def shown(ref: str | None = None) -> dict:
    return json.loads(ok("show", *([ref] if ref else []), "--json", env=TERM).stdout)


def test_without_a_reference_the_current_conversation_is_changed(fake):
    ok("ask", "the other one", env=TERM)
    other = shown()["id"]
    ok("ask", "--new", "explain git rebase", env=TERM)
    here = shown()["id"]
    ok("status", "done", env=TERM)
    ok("tag", "+git", "+work", env=TERM)
    ok("tag", "-work", env=TERM)
    ok("title", "my", "rebase", "notes", env=TERM)
    ok("summary", "Chose rebase -i.", env=TERM)
    conv = shown(here)
    assert ((conv["status"], conv["tags"], conv["title"], conv["summary"])
            == ("done", ["git"], "my rebase notes", "Chose rebase -i."))
    assert ok("tag", env=TERM).stdout.decode().strip() == "git"
    untouched = shown(other)
    assert untouched["status"] == "active" and untouched.get("tags", []) == [] and untouched["title"] == "the other one"

    # a first word naming a conversation is its reference
    ok("status", other[:6], "paused", env=TERM)
    ok("tag", other[:6], "+x", env=TERM)
    ok("title", other[:6], "renamed", env=TERM)
    ok("summary", other, "", env=TERM)
    untouched = shown(other)
    assert (untouched["status"], untouched["tags"], untouched["title"]) == ("paused", ["x"], "renamed")
    assert shown(here)["status"] == "done"
    assert "give one status" in fails("status", other[:6], "paused", "done", env=TERM)
    assert "no conversation matches" in fails("title", "qqqqqq", "notes", env=TERM)  # looks like an id: taken as one
    assert "unknown status 'finished'" in fails("status", "finished", env=TERM)
