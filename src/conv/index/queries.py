"""What the cache answers: listings with filters, full-text search, the
history of a conversation, and reference lookups."""

import json
import re
from collections.abc import Callable

from ..format import ids
from ..records import dataclass

HIT_START, HIT_END = "\ue000", "\ue001"  # around matches in snippets (see Hit.spans)
OWN = "conv"  # --source conv: conversations asked in conv (and conv's own exports imported)
MOST = 1 << 62  # a limit past SQLite's integers (conv list -n 99999999999999999999) is no limit at all
HITS_MOST = 1_000_000  # conversations a search ranks at most


@dataclass
class Row:
    id: str
    title: str
    created: str
    updated: str
    model: str | None
    provider: str | None
    agent: str | None
    tags: list[str]
    status: str
    turns: int
    broken: str | None  # why the conversation could not be read, if it could not
    forked_from: str | None
    summary: str | None
    trashed: bool
    tokens: int  # prompt and answer tokens over its answers
    cost: float | None  # US dollars, when every answer that used tokens has a cost
    wrong: int = 0  # answers given again after the user said the one before was wrong
    project: str | None = None  # the root of the work tree it was about
    source: str | None = None  # the tool it was imported or captured from (None: conv's own)

    COLUMNS = ("id, title, created, updated, model, provider, agent, tags, status, turns, broken, forked_from, summary,"
               " trashed, tokens, cost, wrong, project, source")

    @classmethod
    def from_sql(cls, r: tuple) -> "Row":
        return cls(r[0], r[1] or "", r[2] or "", r[3] or "", r[4], r[5], r[6], json.loads(r[7] or "[]"),
                   r[8] or "active", r[9] or 0, r[10], r[11], r[12], bool(r[13]), r[14] or 0, r[15], r[16] or 0, r[17],
                   r[18])


@dataclass
class Filters:
    """The filters ``conv list`` and ``conv search`` share."""

    agent: str | None = None
    tag: str | None = None
    since: str | None = None  # ISO time: updated at or after
    until: str | None = None  # ISO time: updated before
    status: str | None = None
    trashed: bool = False
    here: str | None = None  # a work tree's root: its conversations, and imports run in a folder of it
    source: str | None = None  # the tool it came from; OWN: conv's own conversations
    model: str | None = None  # a model that answered in it (or that it goes on with)

    def sql(self, alias: str = "c") -> tuple[str, dict]:
        """A WHERE clause with named parameters (``:trashed``, ``:agent`` …)."""
        where, args = [f"{alias}.trashed = :trashed"], {"trashed": int(self.trashed)}
        if self.agent:
            where.append(f"{alias}.agent = :agent")
            args["agent"] = self.agent
        if self.tag:
            where.append(f"EXISTS (SELECT 1 FROM json_each({alias}.tags) WHERE value = :tag)")
            args["tag"] = self.tag
        if self.since:
            where.append(f"{alias}.updated >= :since")
            args["since"] = self.since
        if self.until:
            where.append(f"{alias}.updated < :until")
            args["until"] = self.until
        if self.status:
            where.append(f"{alias}.status = :status")
            args["status"] = self.status
        if self.source == OWN:
            where.append(f"({alias}.source IS NULL OR {alias}.source = :source)")
            args["source"] = OWN
        elif self.source:
            where.append(f"{alias}.source = :source")
            args["source"] = self.source
        if self.model:
            where.append(f"({alias}.model = :model OR EXISTS (SELECT 1 FROM turns m WHERE m.conv_id = {alias}.id "
                         "AND m.model = :model))")
            args["model"] = self.model
        if self.here:
            where.append(f"({alias}.project = :here OR substr({alias}.project, 1, :here_len) = :here_dir)")
            args |= {"here": self.here, "here_dir": self.here.rstrip("/") + "/",
                     "here_len": len(self.here.rstrip("/")) + 1}
        return " AND ".join(where), args


@dataclass
class Hit:
    row: Row
    turn: str  # the best matching turn's name
    role: str
    snippet: str  # the text around the match, matches between HIT_START and HIT_END
    number: int = 0  # that turn's place in the conversation, from 1 (conv show REF --turn N)

    def spans(self) -> list[tuple[str, bool]]:
        """The snippet as (text, is a match) pieces, for whoever shows it."""
        out, matched = [], False
        for piece in self.snippet.replace(HIT_END, HIT_START).split(HIT_START):
            if piece:
                out.append((piece, matched))
            matched = not matched
        return out


@dataclass
class Event:
    """One commit in a conversation's history."""

    sha: str
    time: int
    message: str


def snippet(text: str, words: list[str], before: int = 80, after: int = 160) -> str:
    """The text around the first of ``words`` it holds, the words marked (HIT_START, HIT_END), what looks
    like a secret masked around it first (outward), then cut: never half a key, nor one a match splits."""
    from ..home.secrets import outward

    found = [re.escape(_stem(w)) for word in words for w in re.findall(r"\w+", word)]
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(found) + r")\w*", re.IGNORECASE) if found else None
    first = pattern.search(text) if pattern else None
    at = first.start() if first else 0
    text = outward(text[max(0, at - before - 400):at + after + 400])  # longer than a key each side
    first, at = (pattern.search(text) if pattern else None), min(at, before + 400)  # where it was: if in a key
    at = first.start() if first else at
    start, end = max(0, at - before), min(len(text), at + after)
    while 0 < start < at and not text[start - 1].isspace():  # whole words at both ends
        start += 1
    while end < len(text) and not text[end].isspace():
        end += 1
    piece = text[start:end]
    if pattern:
        piece = pattern.sub(lambda m: HIT_START + m.group(0) + HIT_END, piece)
    return ("…" if start else "") + " ".join(piece.split()) + ("…" if end < len(text) else "")


def _stem(word: str) -> str:
    """What a word's forms begin with, near enough to mark them ("retries", "retry": "retr")."""
    return word if len(word) <= 4 else word[:max(4, len(word) - 3)]


class Queries:
    """Reads of the cache: ``rows(sql, args)`` queries it (rebuilt first should it turn out corrupt)."""

    def __init__(self, rows: Callable[..., list[tuple]]):
        self._rows = rows

    def recent(self, limit: int | None = None, filters: Filters | None = None,
               after: tuple[str, str] | None = None) -> list[Row]:
        """The newest first; ``after``: those listed after the row (updated, id) a page ended with."""
        where, args = (filters or Filters()).sql()
        if after is not None:
            where += " AND (c.updated < :after_updated OR (c.updated = :after_updated AND c.id > :after_id))"
            args |= {"after_updated": after[0], "after_id": after[1]}
        sql = f"SELECT {Row.COLUMNS} FROM conversations c WHERE {where} ORDER BY c.updated DESC, c.id"
        if limit:
            sql += " LIMIT :limit"
            args["limit"] = min(limit, MOST)
        return [Row.from_sql(r) for r in self._rows(sql, args)]

    def starting(self, prefix: str, limit: int) -> list[Row]:
        """The newest live conversations whose id starts with ``prefix`` (tab completion)."""
        like = prefix.replace("_", r"\_").replace("%", r"\%")
        return [Row.from_sql(r) for r in self._rows(
            f"SELECT {Row.COLUMNS} FROM conversations WHERE trashed = 0 AND id LIKE ? || '%' ESCAPE '\\'"
            " ORDER BY updated DESC, id LIMIT ?", (like, limit))]

    def count(self) -> int:
        """Conversations indexed, those in the trash included."""
        return self._rows("SELECT count(*) FROM conversations")[0][0]

    def counted(self, filters: Filters | None = None) -> int:
        """How many conversations ``recent`` would list without a limit."""
        where, args = (filters or Filters()).sql()
        return self._rows(f"SELECT count(*) FROM conversations c WHERE {where}", args)[0][0]

    def spending(self, filters: Filters, since: str | None, until: str | None) -> list[tuple]:
        """What the answers spent, by day, project, source and model (spending.py)."""
        from .spending import spending

        return spending(self._rows, filters, since, until)

    def turn_names(self, conv_id: str) -> list[str]:
        """A conversation's turns by name, in time's order."""
        return [name for (name,) in self._rows("SELECT name FROM turns WHERE conv_id = ? ORDER BY name", (conv_id,))]

    def first_turn(self, root: str, remote: str | None) -> str | None:
        """The oldest turn of the live conversations of a project (its root, or its remote)."""
        found = self._rows("SELECT min(name) FROM turns WHERE trashed = 0 AND (project = ? OR (remote IS NOT NULL "
                           "AND remote = ?))", (root, remote))
        return found[0][0] if found else None

    def writers(self, keys: list[int]) -> dict:
        """Of each line key, the answers whose edits wrote such a line (written.py)."""
        from .written import writers

        return writers(self._rows, keys)

    def get(self, conv_id: str) -> Row | None:
        rows = self._rows(f"SELECT {Row.COLUMNS} FROM conversations WHERE id = ?", (conv_id,))
        return Row.from_sql(rows[0]) if rows else None

    def family(self, conv_id: str, most: int = 1000) -> list[Row]:
        """The live conversation ``conv_id``, those it was forked from, and every fork under them (at most
        ``most``), each once however forks name each other."""
        found, at = {}, self.get(conv_id)
        while at is not None and at.id not in found:
            found[at.id], at = at, self.get(at.forked_from) if at.forked_from else None
        wave = list(found)
        while wave and len(found) < most:
            rows = [Row.from_sql(r) for r in self._rows(f"SELECT {Row.COLUMNS} FROM conversations WHERE trashed = 0 "
                                                        f"AND forked_from IN ({', '.join('?' * len(wave[:500]))})",
                                                        tuple(wave[:500])) if r[0] not in found]
            found.update({r.id: r for r in rows})
            wave = [r.id for r in rows]
        return list(found.values())

    def search(self, text: str, limit: int = 20, filters: Filters | None = None, pool: int | None = None,
               every: bool = False) -> list[Hit]:
        """The conversations that hold what ``text`` asks, best first (index/search.py says how a query is read
        and ranked), each with its best matching turn and a snippet around the match; ``pool``: how many matching
        turns to score at least (fewer: sooner, as a keystroke needs); ``every``: only those holding every term."""
        from .search import POOL, Query, ranked

        query = Query(text)
        if not query:
            return []
        found = ranked(self._rows, query, min(limit, HITS_MOST), *(filters or Filters()).sql(), pool or POOL, every)
        if not found:
            return []
        columns = ", ".join("c." + col.strip() for col in Row.COLUMNS.split(","))
        shown = {r[-4]: r for r in self._rows(
            f"""SELECT {columns}, (SELECT count(*) FROM turns x WHERE x.conv_id = t.conv_id AND x.name <= t.name),
                       t.rowid, t.name, t.role, turn_body(t.sha) FROM turns t
                JOIN conversations c ON c.id = t.conv_id WHERE t.rowid IN (SELECT value FROM json_each(?))""",
            (json.dumps([rid for _, rid, _ in found]),))}
        return [Hit(Row.from_sql(r[:-5]), r[-3], r[-2], snippet(r[-1] or "", query.marks), r[-5])
                for _, rid, _ in found if (r := shown.get(rid))]

    def history(self, conv_id: str) -> list[Event]:
        """Newest first, as git log shows it."""
        rows = self._rows("SELECT sha, time, message FROM history WHERE conv_id = ? ORDER BY time DESC, rowid DESC",
                          (conv_id,))
        return [Event(*r) for r in rows]

    def commits_matching(self, prefix: str) -> list[str]:
        return [r[0] for r in self._rows("SELECT DISTINCT sha FROM history WHERE sha LIKE ? || '%'", (prefix.lower(),))]

    def short_id(self, conv_id: str) -> str:
        """The shortest prefix that names only this conversation (at least six
        characters after any agent prefix), from its neighbours in id order."""
        ((before, after),) = self._rows(
            "SELECT (SELECT max(id) FROM conversations WHERE id < ?1), "
            "(SELECT min(id) FROM conversations WHERE id > ?1)",
            (conv_id,),
        )
        length = len(conv_id) - len(ids.token_of(conv_id)) + ids.SHORT_LENGTH
        for other in (before, after):
            if other:
                common = next((i for i, (a, b) in enumerate(zip(conv_id, other)) if a != b), len(other))
                length = max(length, common + 1)
        return conv_id[:length]

    def matching(self, ref: str, trashed: bool = False) -> list[str]:
        """Ids equal to, starting with or ending with ``ref`` (also after an agent prefix)."""
        like = ref.replace("_", r"\_")
        rows = self._rows(
            "SELECT id FROM conversations WHERE trashed = ?3 AND (id = ?1 OR id LIKE ?2 || '%' ESCAPE '\\'"
            " OR id LIKE '%-' || ?2 || '%' ESCAPE '\\' OR id LIKE '%' || ?2 ESCAPE '\\')",
            (ref, like, int(trashed)),
        )
        return sorted(r[0] for r in rows)

    def recent_with_text(self, limit: int, chars: int) -> list[tuple[Row, str, str]]:
        """The most recently updated live conversations, each with the start of
        its first question and of its last turn (what ``conv resume`` matches)."""
        columns = ", ".join("c." + col.strip() for col in Row.COLUMNS.split(","))
        rows = self._rows(
            # turn_body reads a text from the store: once a turn chosen, not for every turn sorted
            f"""SELECT {columns},
                   (SELECT substr(turn_body(sha), 1, :chars) FROM
                       (SELECT sha FROM turns WHERE conv_id = c.id AND role = 'user' ORDER BY name LIMIT 1)),
                   (SELECT substr(turn_body(sha), 1, :chars) FROM
                       (SELECT sha FROM turns WHERE conv_id = c.id ORDER BY name DESC LIMIT 1))
                FROM (SELECT * FROM conversations WHERE trashed = 0 ORDER BY updated DESC, id LIMIT :limit) c
                ORDER BY c.updated DESC, c.id""",
            {"limit": limit, "chars": chars},
        )
        return [(Row.from_sql(r[:-2]), r[-2] or "", r[-1] or "") for r in rows]
