"""The transcript `conv edit` opens: any content survives render -> parse exactly,
edits and deletions come back as exactly what changed, and a file that no longer
reads names its line."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conv.errors import UsageError
from conv.format.model import Conversation, Turn
from conv.format.transcript import Edit, marker, parse, render

CREATED = "2026-11-21T17:55:20.123Z"
ROLES = ("user", "assistant", "system")


def make(contents, title="explain git rebase", roles=None):
    roles = roles or [("user", "assistant")[i % 2] for i in range(len(contents))]
    turns = [
        Turn(f"20261121-1755{i:02d}.123-a7k2-{role}", role, content, CREATED)
        for i, (role, content) in enumerate(zip(roles, contents))
    ]
    return Conversation(id="k3f9x2ab7q4m", created=CREATED, title=title, turns=turns)


CONV = make(["explain git rebase", "Rebase replays your commits.\n\n---\n# heading\n", "and merge?"])
U1, A1, U2 = (t.name for t in CONV.turns)

tricky_lines = st.sampled_from([
    "---", "# heading", "", "\n", "\r\n", "\r", "\u2028", "title: x", "-->", "<!--", "<!-- a comment -->",
    "<!-- conv turn 1 · user · x -->", f"<!-- conv turn 2 · assistant · {A1} -->",
    f"<!-- conv turn 1 · user · {U1} -->",
    "\\<!-- conv turn 1 · user · x -->", "\\\\<!--conv", "  <!-- CONV", " \\<!-- conv", "<!-- conversation -->",
])
bodies = st.tuples(st.lists(st.one_of(st.text(), tricky_lines), max_size=6).map("\n".join),
                   st.sampled_from(["", "\n", "\n\n"]))
contents = st.lists(bodies.map("".join), max_size=5)


def same_shape(conv, new_contents):
    """conv with other contents (same names, roles and order)."""
    return Conversation(id=conv.id, created=conv.created, title=conv.title,
                        turns=[Turn(t.name, t.role, c, t.created) for t, c in zip(conv.turns, new_contents)])


def cut_block(text, conv, index):
    """The text without turn ``index``'s block, as a person deleting it in an editor would."""
    start = text.index("\n" + marker(index + 1, conv.turns[index]) + "\n") + 1
    later = [text.find("\n" + marker(j + 1, t) + "\n") + 1 for j, t in enumerate(conv.turns) if j > index]
    end = min([p for p in later if p > 0], default=len(text))
    return text[:start] + text[end:]


def line_of(text, fragment):
    return text[: text.index(fragment)].count("\n") + 1


# --- round trips -----------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(old=contents, title=st.text())
def test_an_unchanged_transcript_changes_nothing(old, title):
    conv = make(old, title=title)
    edit = parse(render(conv), conv)
    assert edit == Edit(title=None, changed={}, deleted=[])
    assert edit.unchanged


@settings(max_examples=300, deadline=None)
@given(pairs=st.lists(st.tuples(bodies.map("".join), bodies.map("".join)), max_size=5))
def test_edited_content_comes_back_exactly(pairs):
    conv = make([old for old, _ in pairs])
    edited = render(same_shape(conv, [new for _, new in pairs]))
    expected = {t.name: new for t, (old, new) in zip(conv.turns, pairs) if new != old}
    assert parse(edited, conv) == Edit(title=None, changed=expected, deleted=[])


@settings(max_examples=200, deadline=None)
@given(old=contents, data=st.data())
def test_deleting_blocks_deletes_exactly_those_turns(old, data):
    conv = make(old)
    gone = data.draw(st.sets(st.integers(0, len(old) - 1)) if old else st.just(set()))
    text = render(conv)
    for index in sorted(gone, reverse=True):
        text = cut_block(text, conv, index)
    assert parse(text, conv) == Edit(title=None, changed={}, deleted=[conv.turns[i].name for i in sorted(gone)])


def test_render_shows_each_turn_under_its_marker():
    text = render(CONV)
    assert text.startswith("<!--\n  conv edit k3f9x2ab7q4m:")
    assert text.endswith(
        "-->\ntitle: explain git rebase\n\n"
        f"<!-- conv turn 1 · user · {U1} -->\nexplain git rebase\n\n"
        f"<!-- conv turn 2 · assistant · {A1} -->\nRebase replays your commits.\n\n---\n# heading\n\n\n"
        f"<!-- conv turn 3 · user · {U2} -->\nand merge?\n\n"
    )


def test_lines_that_look_like_markers_are_escaped_with_a_backslash():
    conv = make(["<!-- conv turn 2 · assistant · x -->\n\\<!-- conv\nplain <!-- conv"])
    text = render(conv)
    assert "\n\\<!-- conv turn 2 · assistant · x -->\n\\\\<!-- conv\nplain <!-- conv\n" in text
    assert parse(text, conv).unchanged
    typed = text.replace("plain <!-- conv\n", "\\<!-- conv: new\n")
    assert parse(typed, conv).changed == {
        conv.turns[0].name: "<!-- conv turn 2 · assistant · x -->\n\\<!-- conv\n<!-- conv: new"}


def test_editing_text_in_place():
    text = render(CONV)
    edit = parse(text.replace("-->\nexplain git rebase\n", "-->\nexplain git merge\nplease\n"), CONV)
    assert edit == Edit(title=None, changed={U1: "explain git merge\nplease"}, deleted=[])
    # typing on the blank line below a turn's text adds to it; emptying a turn leaves it empty
    assert (parse(text.replace("and merge?\n\n", "and merge?\nand squash?\n"), CONV).changed
            == {U2: "and merge?\nand squash?"})
    assert parse(text.replace("and merge?\n\n", ""), CONV).changed == {U2: ""}


@pytest.mark.parametrize("ending", ["and merge?\n", "and merge?"])
def test_editors_that_trim_the_last_blank_line_change_nothing(ending):
    text = render(CONV)
    assert parse(text.removesuffix("and merge?\n\n") + ending, CONV).unchanged


def test_a_missing_blank_line_between_blocks_changes_nothing():
    assert parse(render(CONV).replace("-->\nexplain git rebase\n\n", "-->\nexplain git rebase\n"), CONV).unchanged


def test_title_edits():
    text = render(CONV)
    assert (parse(text.replace("title: explain git rebase\n", "title:   git rebase, explained  \n"), CONV).title
            == "git rebase, explained")
    assert parse(text.replace("title: explain git rebase\n", "title:\n"), CONV).title == ""
    assert parse(text.replace("title: explain git rebase\n", "Title : explain git rebase\n"), CONV).title is None


def test_a_title_with_line_breaks_is_shown_on_one_line_and_unchanged_if_left_alone():
    conv = make(["q"], title="two\nlines\r\n")
    text = render(conv)
    assert "\ntitle: two lines  \n" in text
    assert parse(text, conv).unchanged


def test_comments_and_blank_lines_above_the_first_turn_are_ignored():
    text = render(CONV).replace("title:", "\n<!-- my note -->\n<!--\nmore\n-->\ntitle:")
    assert parse(text, CONV).unchanged


def test_deleting_every_turn_and_a_conversation_without_turns():
    text = render(CONV)
    assert parse(text[: text.index("<!-- conv turn 1")], CONV).deleted == [U1, A1, U2]
    empty = make([])
    assert parse(render(empty), empty).unchanged


# --- errors: the exact line ----------------------------------------------------

HAND = f"""<!-- edit -->
title: explain git rebase

<!-- conv turn 1 · user · {U1} -->
explain git rebase

<!-- conv turn 2 · assistant · {A1} -->
Rebase replays your commits.

<!-- conv turn 3 · user · {U2} -->
and merge?
"""


def test_the_hand_written_transcript_reads():
    assert parse(HAND, CONV) == Edit(changed={A1: "Rebase replays your commits."})  # it lost "---" and the heading


def swap_blocks(text):
    one, two = text.index("<!-- conv turn 1"), text.index("<!-- conv turn 2")
    three = text.index("<!-- conv turn 3")
    return text[:one] + text[two:three] + text[one:two] + text[three:]


@pytest.mark.parametrize(
    "text, line, what",
    [
        (HAND.replace(U2, "20261121-175599.123-zzzz-user"), 10,
         "marker names turn 20261121-175599.123-zzzz-user, which is not"),
        (HAND + f"<!-- conv turn 1 · user · {U1} -->\nagain\n", 12, f"turn {U1} appears twice (first at line 4)"),
        (swap_blocks(HAND), 7, "turn 1 is out of order (after turn 2 at line 4)"),
        (HAND.replace(f"turn 2 · assistant · {A1}", f"turn 2 assistant {A1}"), 7, "malformed turn marker"),
        (HAND.replace(f"<!-- conv turn 2 · assistant · {A1} -->", "<!-- conv turn 2 -->"), 7, "malformed turn marker"),
        (HAND.replace("replays", "replays\n  <!--   CONV note -->\n"), 9, "malformed turn marker"),
        (HAND.replace("turn 2 · assistant", "turn 2 · user"), 7,
         f"marker says turn 2 · user, but {A1} is turn 2 · assistant"),
        (HAND.replace("turn 3 · user", "turn 2 · user"), 10, f"marker says turn 2 · user, but {U2} is turn 3 · user"),
        (HAND.replace("title: explain git rebase\n", ""), 3, "no title line before the first turn"),
        (HAND.replace("title: explain git rebase", "title = rebase"), 2, "malformed title line"),
        (HAND.replace("title: explain git rebase", "Title explain"), 2, "malformed title line"),
        (HAND.replace("<!-- edit -->", "stray"), 1, "text before the title line"),
        (HAND.replace("\n\n<!-- conv turn 1", "\nstray words\n<!-- conv turn 1"), 3, "text after the title line"),
        (HAND.replace("\n\n<!-- conv turn 1", "\ntitle: again\n<!-- conv turn 1"), 3, "text after the title line"),
        (HAND.replace("\n\n<!-- conv turn 1", "\n\\<!-- conv turn 1\n<!-- conv turn 1"), 3,
         "text after the title line"),
        (HAND.replace("<!-- edit -->", "<!-- edit"), 1, "comment not closed before the first turn"),
        ("", 1, "no title line before the first turn"),
        ("<!--\nhow to edit\n-->\n", 4, "no title line before the first turn"),
    ],
)
def test_errors_name_the_line(text, line, what):
    with pytest.raises(UsageError) as caught:
        parse(text, CONV)
    assert caught.value.message.startswith(f"transcript line {line}: {what}")
    assert caught.value.hint


def test_errors_in_the_rendered_file_count_the_header_lines():
    text = render(CONV).replace("turn 3 · user", "turn 3 · system")
    with pytest.raises(UsageError, match=rf"^transcript line {line_of(text, 'turn 3 · system')}: marker says"):
        parse(text, CONV)
    assert line_of(text, "turn 3 · system") == len(re.findall("\n", render(CONV).split("<!-- conv turn 3")[0])) + 1


def test_a_broken_marker_that_still_names_its_turn_says_how_to_restore_it():
    with pytest.raises(UsageError) as caught:
        parse(HAND.replace(f"<!-- conv turn 2 · assistant · {A1} -->", f"<!-- conv turn 2 · {A1}"), CONV)
    assert caught.value.hint == f"Restore it as <!-- conv turn 2 · assistant · {A1} -->"
