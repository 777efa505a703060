"""The on-disk format round-trips anything a person or a model can write."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conv.errors import StoreError
from conv.format.model import Conversation, Turn, order_turns

tricky_lines = st.sampled_from(["---", "--- ", "...", "---\n---", "role: system", "# heading", "", "\n", "\r\n",
                                "  - a"])
bodies = st.lists(st.one_of(st.text(), tricky_lines), max_size=8).map("\n".join)


@settings(max_examples=300, deadline=None)
@given(body=bodies)
def test_turn_body_round_trips_exactly(body):
    turn = Turn("20261121-175520.123-a7k2-user", "user", body, "2026-11-21T17:55:20.123Z", parent=None)
    back = Turn.from_text(turn.name, turn.to_text())
    assert back.content == body
    assert back.role == "user" and back.created == turn.created


@settings(max_examples=200, deadline=None)
@given(title=st.text(), notes=bodies, tags=st.lists(st.text(min_size=1), max_size=4))
def test_conversation_metadata_round_trips(title, notes, tags):
    conv = Conversation(id="k3f9x2ab7q4m", created="2026-11-21T17:55:20.123Z", title=title, tags=tags, notes=notes)
    back = Conversation.from_text(conv.to_text())
    assert (back.id, back.title, back.tags, back.notes) == (conv.id, title, tags, notes)


@pytest.mark.parametrize("odd", ["\x85", "a\x85b", "\u2028", "tab\there", "\x1b[31m", "\ufeffbom", "x\r"])
def test_metadata_with_line_breaks_and_controls_round_trips(odd):
    conv = Conversation(id="k3f9x2ab7q4m", created="2026-11-21T17:55:20.123Z", title=odd, tags=[odd])
    back = Conversation.from_text(conv.to_text())
    assert (back.title, back.tags) == (odd, [odd])


def test_frontmatter_that_looks_like_a_body_and_a_body_that_looks_like_frontmatter():
    body = "---\nrole: system\n---\nnot metadata\n---\n"
    turn = Turn("20261121-175520.123-a7k2-assistant", "assistant", body, "2026-11-21T17:55:20.123Z", parent="p")
    text = turn.to_text()
    assert text.endswith(body + "\n")
    assert Turn.from_text(turn.name, text).role == "assistant"


def test_hand_edits_keep_comments_and_unknown_keys():
    text = ("---\n# kept by hand\nid: k3f9x2ab7q4m\ncreated: 2026-11-21T17:55:20Z\ntitle: old\nmine: 42  # mine\n"
            "---\nnotes\n")
    conv = Conversation.from_text(text)
    assert conv.created == "2026-11-21T17:55:20.000Z"  # an unquoted timestamp is read as a time
    conv.title = "new"
    out = conv.to_text()
    assert "# kept by hand" in out and "mine: 42  # mine" in out and "title: new" in out
    assert out.endswith("---\nnotes\n")


@pytest.mark.parametrize(
    "text, message",
    [
        ("no frontmatter", "no frontmatter"),
        ("---\nid: x\n", "not closed"),
        ("---\nid: [unclosed\n---\n", "not valid YAML"),
        ("---\n- a list\n---\n", "mapping"),
        ("---\ntitle: no id\n---\n", "no id"),
    ],
)
def test_broken_files_say_what_is_wrong(text, message):
    with pytest.raises(StoreError, match=message):
        Conversation.from_text(text)


def test_interleaved_askers_get_answers_beside_their_questions():
    def t(name, role, parent=None):
        return Turn(name, role, name, parent=parent)

    q1, q2 = t("20261121-000001.000-aaaa-user", "user"), t("20261121-000002.000-bbbb-user", "user")
    a2 = t("20261121-000003.000-cccc-assistant", "assistant", q2.name)
    a1 = t("20261121-000004.000-dddd-assistant", "assistant", q1.name)
    assert [x.name for x in order_turns([a1, a2, q2, q1])] == [q1.name, a1.name, q2.name, a2.name]


# -- the canonical writer/reader agrees with ruamel --------------------------------
from conv.format.canonical import emit_canonical, parse_canonical  # noqa: E402
from conv.format.frontmatter import _yaml  # noqa: E402
from conv.format.model import _plain  # noqa: E402

keys = st.from_regex(r"[a-z_][a-z0-9_]{0,12}", fullmatch=True)
scalars = st.one_of(st.text(), st.integers(), st.booleans(), st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from(["true", "No", "null", "~", "1e3", "1.5", "-0.25", "1e-06", "0x1f", "2026-11-21",
                                     "a: b", "- x", "#c", "x ", " x", "[a]", "k3f9x2"]))
mappings = st.dictionaries(
    keys,
    st.one_of(scalars, st.lists(st.text(min_size=0), max_size=4),
              st.dictionaries(keys, scalars, min_size=1, max_size=3)),
    max_size=8,
)


@settings(max_examples=400, deadline=None)
@given(meta=mappings)
@example(meta={"title": "\ufffe and \uffff"})  # not YAML's printable characters: escaped
def test_canonical_frontmatter_reads_the_same_with_ruamel(meta):
    head = emit_canonical(meta)
    assert head is not None
    assert parse_canonical(head) == meta
    assert _plain(_yaml().load(head) or {}) == meta


@settings(max_examples=300, deadline=None)
@given(meta=mappings)
def test_the_canonical_reader_never_misreads_other_yaml(meta):
    from io import StringIO

    out = StringIO()
    _yaml().dump(meta, out)  # ruamel's own style: quoting, block lists …
    parsed = parse_canonical(out.getvalue())
    assert parsed is None or parsed == _plain(_yaml().load(out.getvalue()) or {})
