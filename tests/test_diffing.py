"""conv diff's model and renderings: the shared prefix collapses to one line,
the divergence is aligned turn by turn, and no escape sequence from a model
reaches the output."""

import io
import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from conv.format.model import Turn
from conv.services.diffing import compare, to_dict
from conv.terminal.diff import plain, rich_renderable, words

ESCAPES = ["\x1b[2J", "\x1b]0;pwned\x07", "\x1b]52;c;aGk=\x1b\\", "\x9b31m", "\x1b[31m", "\x07", "\r", "\x1bP+q\x1b\\"]
# Printed output may hold nothing that drives a terminal: no ESC, no C0/C1 control but \n and \t.
UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def convo(*pairs: str) -> list[Turn]:
    """Turns alternating user, assistant from plain strings."""
    return [Turn(f"t{n}", ("user", "assistant")[n % 2], text) for n, text in enumerate(pairs)]


PARENT = convo("explain rebase", "Rebase moves commits.", "and merge?", "Merge joins two histories.")
FORK = convo("explain rebase", "Rebase moves commits.", "and merge?", "Merge combines two histories.")


def rich_text(diff) -> str:
    from rich.console import Console

    console = Console(file=io.StringIO(), force_terminal=True, color_system="truecolor", width=100)
    console.print(rich_renderable(diff))
    return console.file.getvalue()


def test_identical_conversations_say_so():
    diff = compare(PARENT, list(PARENT), "k3f9x2@ab12cd3", "k3f9x2@ef45gh6")
    assert diff.identical and diff.shared == 4 and diff.turns == []
    assert diff.shared_roles == ["user", "assistant", "user", "assistant"]
    assert plain(diff) == (
        "--- k3f9x2@ab12cd3\n+++ k3f9x2@ef45gh6\n= all 4 turns identical (user, assistant, user, assistant)\n"
    )
    assert "identical" in rich_text(diff)
    assert "both conversations are empty" in plain(compare([], [], "a", "b"))


def test_fork_with_a_different_last_answer():
    diff = compare(PARENT, FORK, "k3f9x2 (parent)", "p8r2m1 (fork)")
    assert (diff.shared, diff.identical) == (3, False)
    [turn] = diff.turns
    assert (turn.kind, turn.position_a, turn.position_b, turn.role) == ("changed", 4, 4, "assistant")
    assert plain(diff) == (
        "--- k3f9x2 (parent)\n"
        "+++ p8r2m1 (fork)\n"
        "= turns 1–3 identical (user, assistant, user)\n"
        "@@ turn 4 · assistant @@\n"
        "-Merge joins two histories.\n"
        "+Merge combines two histories.\n"
    )


def test_plain_has_one_prefix_line_and_the_changed_lines_with_context():
    a = convo("q", "line 1\nline 2\nold middle\nline 4\nline 5\nline 6\nline 7\nline 8\nold end")
    b = convo("q", "line 1\nline 2\nnew middle\nline 4\nline 5\nline 6\nline 7\nline 8\nnew end", "more?")
    out = plain(compare(a, b, "A", "B")).splitlines()
    assert [line for line in out if line.startswith("=")] == ["= turn 1 identical (user)"]
    assert [line for line in out if line[:1] in "-+" and line[:3] not in ("---", "+++")] == [
        "-old middle", "+new middle", "-old end", "+new end", "+more?"]
    # two hunks inside one turn: each header names the turn and its line range
    assert "@@ turn 2 · assistant · lines -1,5 +1,5 @@" in out
    assert "@@ turn 2 · assistant · lines -7,3 +7,3 @@" in out
    assert " line 2" in out and " line 5" in out and " line 6" not in out  # two lines of context
    assert "@@ turn 3 · user (only in B) @@" in out


def test_inserted_exchange_aligns_and_later_turns_stay_identical():
    inserted = PARENT[:2] + convo("a new question", "a new answer") + PARENT[2:]
    diff = compare(PARENT, inserted, "A", "B")
    assert diff.shared == 2
    assert [(t.kind, t.position_a, t.position_b) for t in diff.turns] == [
        ("only_b", None, 3), ("only_b", None, 4), ("same", 3, 5), ("same", 4, 6)]
    out = plain(diff)
    assert "@@ turn 3 · user (only in B) @@\n+a new question\n" in out
    assert "@@ turn 4 · assistant (only in B) @@\n+a new answer\n" in out
    assert out.endswith("= turns 3–4 (5–6 in B) identical (user, assistant)\n")

    back = compare(inserted, PARENT, "B", "A")  # the same edit seen the other way: a deletion
    assert [(t.kind, t.position_a, t.position_b) for t in back.turns] == [
        ("only_a", 3, None), ("only_a", 4, None), ("same", 5, 3), ("same", 6, 4)]
    assert "@@ turn 3 · user (only in A) @@\n-a new question\n" in plain(back)


def test_unmatched_turns_pair_by_role_never_a_question_with_an_answer():
    a = convo("q", "a", "q2")  # the fork dropped the pending question and retried the answer
    b = convo("q", "a retried")
    kinds = [(t.kind, t.role) for t in compare(a, b, "A", "B").turns]
    assert kinds == [("changed", "assistant"), ("only_a", "user")]
    system = [Turn("s", "system", "Be brief.")] + convo("q", "a")
    kinds = [(t.kind, t.role) for t in compare(system, convo("q", "a"), "A", "B").turns]
    assert ("only_a", "system") in kinds and all(k != "changed" for k, _ in kinds)


def test_long_runs_of_shared_turns_count_their_roles():
    long = convo(*[f"message {n}" for n in range(40)])
    out = plain(compare(long, long[:-1] + [Turn("x", "assistant", "other")], "A", "B"))
    assert "= turns 1–39 identical (20 user, 19 assistant)" in out


texts = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=60)
wordy = st.lists(st.sampled_from(["the", "cat", " ", "  ", "\n", "\r\n", ".", "é", "\t", "x\x85y", "\u2028", "ok"]),
                 max_size=30).map("".join)


@settings(max_examples=500, deadline=None)
@given(a=st.one_of(texts, wordy), b=st.one_of(texts, wordy))
def test_words_reconstruct_both_texts_exactly(a, b):
    ops = words(a, b)
    assert "".join(s for op, s in ops if op in "=-") == a
    assert "".join(s for op, s in ops if op in "=+") == b
    assert all(op in "=-+" and s for op, s in ops)
    assert all(not (x == "=" and y == "=") for (x, _), (y, _) in zip(ops, ops[1:]))  # coalesced


def test_words_group_a_change_across_a_space_and_keep_gaps_apart():
    assert words("the cat sat", "a dog sat") == [("-", "the cat"), ("+", "a dog"), ("=", " sat")]
    assert words("x", "x y") == [("=", "x"), ("+", " y")]
    assert words("a  b", "a b") == [("=", "a"), ("-", " "), ("=", " b")]
    assert words("one two\nthree", "one 2\nthree") == [("=", "one "), ("-", "two"), ("+", "2"), ("=", "\nthree")]
    assert words("same", "same") == [("=", "same")]
    assert words("", "") == []


@settings(max_examples=200, deadline=None)
@given(escape=st.sampled_from(ESCAPES), before=texts, after=texts, where=st.integers(0, 3))
def test_escape_sequences_never_reach_plain_output(escape, before, after, where):
    evil = f"{before}{escape}{after}"
    a = convo("q", "answer one", "q2")
    b = convo("q", "answer two", "q2", "extra")
    (a if where < 3 and where % 2 else b)[where].content = evil
    out = plain(compare(a, b, f"k3f9x2{escape}", "p8r2m1"))
    assert not UNSAFE.search(out), repr(out)


def test_escape_sequences_never_reach_the_terminal():
    a = convo("q", "safe answer")
    b = convo("q", "safe \x1b]0;pwned\x07answer \x1b[2Jcleared \x9b31mred", "\x1b]52;c;aGk=\x1b\\copy")
    out = rich_text(compare(a, b, "k3f9x2\x1b[5m", "p8r2m1"))
    assert "pwned" not in out and "aGk=" not in out and "\x1b[2J" not in out
    assert "\x9b" not in out and "\x07" not in out and "\x1b[5m" not in out
    assert "cleared" in out and "copy" in out


def test_rich_renders_removed_and_added_words():
    diff = compare(PARENT, FORK, "k3f9x2 (parent)", "p8r2m1 (fork)")
    out = rich_text(diff)
    assert "joins" in out and "combines" in out
    plain_view = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "turns 1–3 identical" in plain_view and "turn 4 · assistant" in plain_view
    assert "Merge joinscombines two histories." in plain_view  # removed then added, in place
    assert "\x1b[9" in out or ";9m" in out or ";9;" in out  # strike is on for the removed word


def test_rich_folds_long_unchanged_stretches_and_shows_one_sided_turns():
    body = "\n".join(f"line {n}" for n in range(50))
    a = convo("q", body.replace("line 25", "old 25"), "gone")
    b = convo("q", body.replace("line 25", "new 25"))
    out = re.sub(r"\x1b\[[0-9;]*m", "", rich_text(compare(a, b, "A", "B")))
    assert "old" in out and "new" in out and "⋯ 22 unchanged lines ⋯" in out and "⋯ 21 unchanged lines ⋯" in out
    assert "line 22" in out and "line 28" in out and "line 21" not in out and "line 29" not in out
    assert "- turn 3 · user (only in A)" in out and "gone" in out


def test_a_difference_only_in_invisible_characters_is_named():
    a, b = convo("q", "answer"), convo("q", "answer\x1b[0m")
    assert plain(compare(a, b, "A", "B")).endswith(
        "@@ turn 2 · assistant @@\n\\ differs only in line endings or invisible characters\n")
    assert "invisible characters" in rich_text(compare(a, b, "A", "B"))
    assert "invisible characters" not in rich_text(compare(convo("q", ""), convo("q", "x"), "A", "B"))


def test_to_dict_is_json_with_the_stored_texts():
    data = to_dict(compare(PARENT, FORK + convo("x"), "A", "B"))
    assert json.loads(json.dumps(data)) == data
    assert (data["a"], data["b"], data["identical"], data["shared"]) == ("A", "B", False, 3)
    assert data["turns"][0] == {"kind": "changed", "position_a": 4, "position_b": 4, "role": "assistant",
                                "a_text": "Merge joins two histories.", "b_text": "Merge combines two histories."}
    assert data["turns"][1]["kind"] == "only_b" and data["turns"][1]["a_text"] is None


def test_long_answers_diff_quickly():
    import time

    a = " ".join(f"word{n}" for n in range(20000))
    b = a.replace("word500 ", "changed ").replace("word15000", "other")
    start = time.perf_counter()
    ops = words(a, b)
    plain(compare(convo("q", a), convo("q", b), "A", "B"))
    assert time.perf_counter() - start < 2
    assert ("-", "word500") in ops and ("+", "changed") in ops
