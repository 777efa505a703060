"""The Manage panel: fork, title, tag, status, summary, edit, delete, restore, clean."""

from typing import Annotated, Optional

import typer

from .app import app, workspace

PANEL = "Manage"

REF_HELP = "Conversation id, unique prefix or suffix (default: the current one)."
Ref = Annotated[Optional[str], typer.Argument(help=REF_HELP, show_default=False)]
Json = Annotated[bool, typer.Option("--json", help="Print JSON.")]
# after REF every word is text (so "conv tag REF -draft" removes a tag, not an option)
WORDS_AFTER_REF = {"allow_interspersed_args": False}


def _words(words: list[str] | None) -> list[str]:
    """The words after REF, without a "--" typed to end options (no longer needed)."""
    words = list(words or [])
    return words[1:] if words[:1] == ["--"] else words


def _text_after_ref(words: list[str] | None) -> tuple[str | None, list[str]]:
    """``[REF] TEXT…``: a first word is the REF when it looks like one and
    text follows (``conv title k3f9x2 notes``); otherwise all of it is the
    text, for the current conversation (``conv title rebase notes`` needs
    quotes only when its first word looks like an id: ``"k3f9x2 notes"``)."""
    from ..errors import UsageError
    from ..format.ids import looks_like_ref

    words = _words(words)
    if words and looks_like_ref(words[0]):
        if len(words) == 1:  # a conversation with no text, or a text that is one id-like word: say which
            raise UsageError(f"{words[0]!r} looks like a conversation id, and no text follows it",
                             f'Give the text after it (… {words[0]} "text"), or quote a one-word text with more words')
        return words[0], _words(words[1:])
    return None, words


@app.command(rich_help_panel=PANEL,
             epilog="Examples:\n\n  conv fork                 # all of the current conversation\n\n"
             "  conv fork k3f9x2 --at 3 --title 'try it with rebase -i'")
def fork(
    ref: Ref = None,
    at: Annotated[Optional[int], typer.Option("--at", metavar="N", help="Take turns 1..N (default: all).")] = None,
    title: Annotated[Optional[str], typer.Option("--title", help="Title of the fork.")] = None,
    json_out: Json = False,
) -> None:
    """Start a new conversation from the first N turns of another (no content is copied).

    The fork becomes this terminal's current conversation, so conv ask -c continues it."""
    from ..services.fork import fork as make_fork
    from ..terminal import views

    views.emit(make_fork(workspace(), ref, at, title), json_out, views.fork)


@app.command(rich_help_panel=PANEL, context_settings=WORDS_AFTER_REF,
             epilog='Examples:\n\n  conv title k3f9x2 "rebase vs merge"\n\n'
             '  conv title rebase vs merge      # the current conversation')
def title(
    words: Annotated[list[str], typer.Argument(
        metavar="[REF] TEXT...", help=f"The new title (words are joined), after an optional REF: {REF_HELP}")],
) -> None:
    """Set a conversation's title (it starts as the first question)."""
    from ..services.metadata import set_title

    ref, text = _text_after_ref(words)
    set_title(workspace(), ref, " ".join(text))


@app.command(rich_help_panel=PANEL, context_settings={**WORDS_AFTER_REF, "ignore_unknown_options": True},
             epilog="Examples:\n\n  conv tag k3f9x2 +work +git -draft\n\n"
             "  conv tag +work           # the current conversation\n\n"
             "  conv tag k3f9x2          # show the tags")
def tag(
    words: Annotated[Optional[list[str]], typer.Argument(
        metavar="[REF] [+TAG|-TAG]...", help=f"+TAG adds, -TAG removes, after an optional REF: {REF_HELP}",
        show_default=False)] = None,
) -> None:
    """Add or remove tags (conv list --tag TAG filters by them)."""
    from ..services.metadata import change_tags
    from ..terminal import render

    ws = workspace()
    words = _words(words)
    # +TAG and -TAG are changes
    ref = words.pop(0) if words and not words[0].startswith(("+", "-")) else None
    changes = _words(words)
    tags = change_tags(ws, ref, changes) if changes else ws.conversation(ws.resolve(ref)).tags
    render.plain(" ".join(tags))


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv status k3f9x2 done\n\n"
             "  conv status paused       # the current conversation")
def status(
    words: Annotated[list[str], typer.Argument(
        metavar="[REF] STATUS", help=f"active, paused or done, after an optional REF: {REF_HELP}")],
) -> None:
    """Mark a conversation active, paused or done (conv list --status filters)."""
    from ..errors import UsageError
    from ..services.metadata import set_status

    if len(words) not in (1, 2):
        raise UsageError("give one status: active, paused or done", "e.g. conv status done, or conv status k3f9x2 done")
    set_status(workspace(), words[0] if len(words) == 2 else None, words[-1])


@app.command(rich_help_panel=PANEL, context_settings=WORDS_AFTER_REF,
             epilog='Examples:\n\n  conv summary k3f9x2 "Chose rebase -i with autosquash."\n\n'
             '  conv summary "Chose rebase -i."   # the current conversation')
def summary(
    words: Annotated[list[str], typer.Argument(
        metavar="[REF] TEXT...", help=f"The summary (an empty string removes it), after an optional REF: {REF_HELP}")],
) -> None:
    """Set the summary shown at the top of conv show."""
    from ..services.metadata import set_summary

    ref, text = _text_after_ref(words)
    set_summary(workspace(), ref, " ".join(text))


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv edit\n\n  EDITOR='code -w' conv edit k3f9x2")
def edit(
    ref: Annotated[Optional[str], typer.Argument(help="Conversation (default: the current one).",
                                                 show_default=False)] = None,
    json_out: Annotated[bool, typer.Option("--json", help="Print what changed as JSON.")] = False,
) -> None:
    """Edit a conversation as one Markdown file in $EDITOR; changed turns are committed.

    A file that no longer reads is refused with its line number, and nothing is changed."""
    from ..services.editing import edit as edit_conv
    from ..terminal import views

    views.emit(edit_conv(workspace(), ref), json_out, views.edited)


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv delete k3f9x2 p8r2m1\n\n  conv restore k3f9x2")
def delete(
    references: Annotated[list[str], typer.Argument(help="Conversations to delete.", metavar="REF...")],
    json_out: Json = False,
) -> None:
    """Move conversations to the trash (conv restore brings them back)."""
    from ..services.lifecycle import delete as trash

    _report(trash(workspace(), references), "deleted", json_out)


@app.command(rich_help_panel=PANEL, epilog="Example:\n\n  conv restore k3f9x2\n\n"
             "  conv list --deleted        # what the trash holds")
def restore(
    references: Annotated[list[str], typer.Argument(help="Deleted conversations to bring back.", metavar="REF...")],
    json_out: Json = False,
) -> None:
    """Bring conversations back from the trash."""
    from ..services.lifecycle import restore as bring_back

    _report(bring_back(workspace(), references), "restored", json_out)


@app.command(rich_help_panel=PANEL, epilog="Examples:\n\n  conv clean --older 30d --dry-run\n\n"
             "  conv clean --older 90d\n\n"
             "  conv clean --purge --yes          # empty the trash, for good")
def clean(
    older: Annotated[str, typer.Option("--older", metavar="AGE",
                                       help="Not updated for this long: 30d, 12h, 8w.")] = "30d",
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list what would go to the trash.")] = False,
    purge: Annotated[bool, typer.Option(
        "--purge", help="Instead: erase what is in the trash (or the REFs given) from the store, its whole git history "
                        "and the index. Other machines erase it when they next sync; remotes that still hold it are "
                        "named (conv remote purge NAME erases it there). This cannot be undone; it asks for "
                        "confirmation, or takes --yes.")] = False,
    yes: Annotated[bool, typer.Option("--yes", help="Confirm --purge without asking.")] = False,
    references: Annotated[Optional[list[str]], typer.Argument(help="With --purge: only these deleted conversations.",
                                                              metavar="[REF...]", show_default=False)] = None,
    json_out: Json = False,
) -> None:
    """Move conversations not updated for a while to the trash (restorable); --purge empties the trash for good."""
    from ..errors import UsageError
    from ..services import lifecycle

    ws = workspace()
    if not purge:
        if references:
            raise UsageError("REFs go with --purge only", "To delete conversations: conv delete REF...")
        _report(lifecycle.clean(ws, older, dry_run), "would move to the trash" if dry_run else "moved to the trash",
                json_out)
        return
    if not yes:
        import sys

        count = len(references) if references else len(lifecycle.trashed(ws))
        if not sys.stdin.isatty():
            raise UsageError("--purge erases history and needs confirmation", "Add --yes to confirm")
        answer = typer.prompt(f"Erase {count} conversation(s) from the store and all its history? "
                              "Type 'purge' to confirm")
        if answer.strip() != "purge":
            raise UsageError("not confirmed; nothing was erased")
    from ..terminal import views

    views.emit(lifecycle.purge(ws, references or []), json_out, views.purged)


def _report(moved, verb: str, json_out: bool) -> None:
    from ..terminal import views

    views.emit(moved, json_out, views.moved, verb)
