"""How each command's result reads: ``emit`` is the one place where it
becomes JSON (``--json``) or text, and the functions below are the text
views, one a kind of result, so the commands in cli/ only run a service and
hand its result here. Each JSON form is the result's ``to_dict()`` unless
the command gives another."""

from . import render
from .render import notice, plain

TYPE_CHECKING = False  # typing's, without importing typing (conv push prints through here): PEP 781's idiom
if TYPE_CHECKING:
    from collections.abc import Callable


def emit(result, json_out: bool, view: "Callable[..., None]", *context, data: "Callable | None" = None) -> None:
    """``result`` as JSON (``data(result)``, by default its ``to_dict()``) or through ``view(result, *context)``."""
    if json_out:
        render.emit_json(data(result) if data is not None else result.to_dict())
    else:
        view(result, *context)


# -- reading -------------------------------------------------------------------
def listing(items: list, limit: int, asked: str, deleted: bool, total: "Callable[[], int]",
            trashed: "Callable[[], int]") -> None:
    """conv list: the table and how many more match (``total()``), or why it is
    empty (``asked``: the filters given; ``trashed()``: how many are in the trash)."""
    if not items:
        left = 0 if asked or deleted else trashed()
        return notice(f"no conversation matches {asked}" if asked else "the trash is empty" if deleted
                      else f"no conversations but {left} in the trash: conv list --deleted, then conv restore REF"
                      if left else 'no conversations yet; start one with: conv ask "…"')
    agents = any(i.row.agent for i in items)  # the AGENT column only where there is one to show
    sources = any(i.row.source for i in items)  # FROM: the tool a conversation was captured or imported from
    render.table(
        ["ID", "TURNS", "UPDATED", "MODEL", *(["AGENT"] if agents else []), *(["FROM"] if sources else []), "TOKENS",
         "COST", "TITLE"],
        [
            [("*" if i.current else " ") + i.short, str(i.row.turns) + (f" ✗{i.row.wrong}" if i.row.wrong else ""),
             render.ago(i.row.updated), i.row.model or "-",
             *([i.row.agent or "-"] if agents else []), *([i.row.source or "conv"] if sources else []),
             render.count(i.row.tokens), render.dollars(i.row.cost) if i.row.tokens else "-",
             "  " * i.depth + ("└ " if i.depth else "")
             + (f"{i.title} [unreadable: {i.row.broken}]" if i.row.broken and i.row.title
                else f"[unreadable: {i.row.broken}]" if i.row.broken else i.title or "-")]
            for i in items
        ],
    )
    if len(items) >= limit and (everything := total()) > limit:
        notice(f"the {limit} most recently updated of {everything:,}; conv list -n {everything} shows them all")


def search(found) -> None:
    """conv search: each hit, where it is (the tool, the project, the model, the turn), and the words around it."""
    from ..format.words import folder, plural
    from ..home.secrets import outward

    if not found.hits:
        asked = found.text if len(found.text) <= 100 else found.text[:100] + "…"  # never a whole pasted page
        if found.unfiltered:
            more = "or more " if found.unfiltered >= 1_000 else ""
            verb = "matches" if found.unfiltered == 1 else "match"
            return notice(f"{plural(found.unfiltered, 'conversation')} {more}{verb} {asked!r}; "
                          f"none with {found.filtered_by}")
        return notice(f"nothing matches {asked!r}")
    for hit, short in found.hits:
        where = " · ".join(x for x in (hit.row.source or "conv", folder(hit.row.project or ""), hit.row.model or "",
                                        f"turn {hit.number} ({hit.role})") if x)
        render.search_hit(short, render.ago(hit.row.updated), outward(hit.row.title) or "-", where, hit.spans())


def conversation_data(conv, turn: int | None = None) -> dict:
    from ..format.usage import usage_totals

    data = conv.to_dict() | {"usage": usage_totals(conv.turns)}
    if turn:
        data["turns"] = data["turns"][turn - 1:]
        data["first_turn"] = turn
    return data


def conversation(conv, last: int | None, turn: int | None = None) -> None:
    from .show import print_conversation

    print_conversation(conv, last, turn)


def raw_files(files: list[tuple[str, str]]) -> None:
    for path, text in files:
        plain(f"==> {path} <==")
        plain(text)


def log(found) -> None:
    render.table(["COMMIT", "WHEN", "WHAT"],
                 [[e.sha[:8], render.when(e.time), e.message.splitlines()[0]] for e in found.events])


def diff(result) -> None:
    from .diff import plain as plain_diff
    from .diff import rich_renderable

    if render.is_terminal():
        render.rich(rich_renderable(result))
    else:
        plain(plain_diff(result), end="")


# -- changing ------------------------------------------------------------------
def fork(forked) -> None:
    plain(f"{forked.short}: fork of {forked.parent} at turn {forked.at}")


def edited(done) -> None:
    from ..format.words import plural

    if done.commit is None:
        return notice("nothing changed")
    notice(f"{done.conv_id}: {plural(len(done.changed), 'turn')} changed, {len(done.deleted)} deleted"
           + (", title changed" if done.title is not None else ""))


def moved(done, verb: str) -> None:
    """conv delete, restore and clean."""
    notice(f"{verb}: " + " ".join(done.ids) if done.ids else "nothing to do")


def purged(done) -> None:
    """conv clean --purge, naming the remotes that still hold what it erased."""
    moved(done, "erased")
    for name in done.remotes:
        notice(f"{name} still holds purged conversations; erase them there: conv remote purge {name}")


# -- exchanging ----------------------------------------------------------------
def imported(done) -> None:
    """conv import --from TOOL: what was read, what was left out, and where what came went."""
    from ..format.words import plural

    for line in done.skipped:
        notice(line)
    unchanged = (f" ({plural(done.unchanged, 'session')} unchanged since the last import)"
                 if done.unchanged else "")
    updated = f", {plural(done.updated, 'turn')} completed" if done.updated else ""
    notice(f"{plural(done.conversations, 'conversation')} in {done.path}{unchanged}: {done.added} new, "
           f"{plural(done.turns, 'turn')} added{updated}")
    _apart(done.forks, done.in_trash, "the session")


def handed_off(done) -> None:
    """conv handoff: where the session is, what it leaves out, and (last, on stdout) the command that resumes it."""
    import shlex

    from ..format.words import plural

    notice(f"{done.short} handed to {done.tool}: {plural(done.turns, 'turn')} in {done.file}")
    for line in done.left_out:
        notice(f"not in the session: {line}")
    if not done.comes_back:
        notice(f"conv connect {done.tool} brings what {done.tool} says next back into {done.short}")
    plain(shlex.join(done.resume))


def brought_in(done) -> None:
    """conv import --from project."""
    from ..format.words import plural

    for line in done.skipped:
        notice(line)
    notice(f"{plural(done.added, 'conversation')} and {plural(done.turns, 'turn')} added from "
           f"{', '.join(done.refs) or 'no one (nothing on refs/conv/* yet)'}")
    _apart(done.forks, done.in_trash, "a teammate's line")


def _apart(forks: list, in_trash: list, whose: str) -> None:
    """What did not join a conversation as it was: said in one line each."""
    from ..format.words import plural

    if forks:
        notice(f"{whose} went on apart from yours in {plural(len(forks), 'conversation')}, kept as "
               f"{'forks' if len(forks) > 1 else 'a fork'} beside yours: {', '.join(forks[:5])}")
    if in_trash:
        notice(f"{plural(len(in_trash), 'deleted conversation')} got new turns, kept in the trash with them: "
               f"conv restore {in_trash[0]}" + (f" (and {len(in_trash) - 1} more)" if len(in_trash) > 1 else ""))


def published(done) -> None:
    """conv push --project."""
    from ..format.words import plural  # here: conv push loads no conversation code

    for line in done.skipped:
        notice(line)
    if not done.conversations and not done.moved and not done.theirs:
        return notice(f"nothing of {done.project} pushed: each conversation of it was held back (above) or is a "
                      "teammate's")
    where = (("pushed to " if done.moved else "already on ") + done.remote if done.remote
             else "kept in the project's repository (it has no remote to push to)")
    kept = f"; the ref keeps {plural(done.theirs, 'conversation')} pushed from elsewhere" if done.theirs else ""
    forks = (f"; {plural(done.forks, 'line')} pushed from elsewhere went on apart from yours, kept beside "
             "them as forks" if done.forks else "")
    notice(f"{plural(done.conversations, 'conversation')} of {done.project} on {done.ref}, {where}{kept}{forks}")


def remotes_data(known: list) -> list[dict]:
    return [{"name": r.name, "url": r.shown} for r in known]


def remotes(known: list) -> None:
    if not known:
        return notice("no remotes; add one: conv remote add origin URL")
    render.table(["NAME", "URL"], [[r.name, r.shown] for r in known])


def synced(done, pull: bool, rewrite: bool) -> None:
    """conv sync, pull, push and remote purge: one line of what happened."""
    parts = [f"{done.remote}: pulled ({done.pulled})" if pull else "", "pushed" if done.pushed else ""]
    if done.forks:
        parts.append(f"{done.forks} conversation(s) had grown on both sides: the other line is kept as a fork")
    for old, new in done.moved.items():
        parts.append(f"this machine's line of {old} continues in {new}")
    if done.erased:
        parts.append("purged on another machine, erased here too (with any turns added here): "
                     + " ".join(done.erased))
    if done.rewritten:
        parts.append(f"{done.remote}'s history rewritten without the purged conversations; " + (
            "its unreachable objects are deleted" if done.remote_pruned
            else "the server keeps unreachable objects until its own gc (clones never get them)"))
    elif rewrite:
        parts.append(f"{done.remote} holds no purged conversation")
    if done.holds_purged:
        parts.append(f"{done.remote} still holds purged conversations: "
                     f"conv remote purge {done.remote} erases them there")
    notice("; ".join(p for p in parts if p) or f"{done.remote}: up to date")


# -- asking ----------------------------------------------------------------------
def preview(found) -> None:
    """--dry-run: the messages, each under a rule naming its role."""
    choice, plan = found.choice, found.plan
    if found.taken_as:
        notice(f"this line would be taken as {found.taken_as}")
    notice(f"would be sent to {choice.spec} (chosen by {choice.source}); nothing stored, nothing called")
    if plan.needs_summary:
        then = ("; the summary below is the one stored so far" if plan.summary
                else ", and the summary sent ahead of the rest")
        notice(f"the {len(plan.to_summarize)} older messages would first be summarized by {choice.spec}{then}")
    for message in found.messages():
        plain(f"--- {message.role} ---\n{message.content}\n")


def models(found) -> None:
    """conv models: the chain that picks a model, endpoints, aliases, agents, prices."""
    steps, chosen, agents, prices = found.steps, found.chosen, found.agents, found.prices
    rows = [["→" if n == chosen else "", s.source, s.spec or "-", s.detail] for n, s in enumerate(steps)]
    render.table(["", "STEP", "MODEL", "NOTE"], rows, wrap=True)
    if chosen is None:
        notice(f"no model is set up: {steps[-1].detail}; or export OPENAI_API_KEY or ANTHROPIC_API_KEY")
    for name, end in found.endpoints.items():
        shown = ", ".join(end["models"][:6]) + (" …" if len(end["models"]) > 6 else "")
        plain(f"\nendpoint {name} (-m {name}:MODEL, {end['api']}): {end['base_url']}: {end['status']}"
              + (f"; models: {shown}" if shown else ""))
    if found.aliases:
        plain("\naliases (-m NAME): " + ", ".join(f"{a} = {target}" for a, target in found.aliases.items()))
    if agents:
        plain("\nagents (conv ask -a NAME): " + ", ".join(f"{a} ({m or 'the chain'})" for a, m in agents.items()))
    if prices:
        plain("prices per million tokens: " + ", ".join(
            f"{m} in ${p['input'] or 0:g} out ${p['output'] or 0:g}" for m, p in prices.items()))


def pulled_data(pulled) -> dict:
    return {"path": str(pulled.path), "fetched": pulled.fetched, "bytes": pulled.size,
            "seconds": round(pulled.seconds, 2)}


def pulled(found) -> None:
    """conv models pull."""
    if not found.fetched:
        return notice(f"the local model is here already: {found.path}")
    notice(f"fetched {found.path.name} ({found.size / 1e6:.0f} MB in {found.seconds:.1f} s) into "
           f"{found.path.parent}; conv ask -m local answers offline now")


def command(suggested) -> None:
    """conv cmd: the command alone, for the shell to put in its line."""
    import sys

    sys.stdout.write(suggested.command + "\n")
