"""Search that answers a question: what a person or an agent types, read as
they mean it, and the conversations that hold it, best first.

A query is phrases ("retry policy"), words and prefixes (``retr*``); word
endings are folded by the full-text index's Porter stemmer ("retries" finds
"retry"), a word's family where Porter leaves it apart by kin.py ("decide"
finds "decision"), and the common words of English are not required (unless
the query is nothing else). Ranking is by conversation, in two tiers: first
those with a turn that holds every term, then those that hold some; within a
tier, the BM25 scores of its best three matching turns (each half the one
before: a conversation where several turns match ranks above one stray turn)
and how much of the query it covers, each term weighted by how rare it is;
after them, those whose title alone holds every term. Measured on LoCoMo's
questions (docs/benchmarks.md).

Terms held by a great many turns ("like" in a large store) would have every
one of those turns scored: they are counted (cheap) and left out of the
ranked pool, still counting toward every-term and coverage where they are."""

import math
import re

from .kin import kin
from .searchable import asked

_TERMS = re.compile(r'"([^"]*)"?|([^\s"]+)')  # a "quoted phrase" (its closing quote may be missing), or a word
_WORD = re.compile(r"\w+")
POOL = 2_000  # best-ranked matching turns a search scores
COMMON = 20_000  # a term held by more turns than this is counted, not ranked turn by turn
DECAY = 0.5  # a conversation's second best turn counts half its best, the third a quarter
CANDIDATES = 200  # conversations whose coverage is weighed
STOP = frozenset("""a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has have having he her here
hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once
only or other our ours ourselves out over own same she should so some such than that the their theirs them themselves
then there these they this those through to too under until up very was we were what whats when where which while who
whom why will with would you your yours yourself yourselves""".split())


class Query:
    """What was asked: its terms as the full-text index reads them, and the words to mark in a snippet."""

    def __init__(self, text: str):
        phrases, words, prefixes = [], [], []
        for phrase, word in _TERMS.findall(asked(text)):
            found = _WORD.findall((phrase or word).lower())
            if phrase and found:
                phrases.append(" ".join(found))
            elif word.endswith("*") and found:
                prefixes.append(found[0])
            else:
                words += found
        meant = [w for w in words if w not in STOP] or (words if not (phrases or prefixes) else [])
        self.terms = [*(f'"{p}"' for p in dict.fromkeys(phrases)), *(_with_kin(w) for w in dict.fromkeys(meant)),
                      *(f'"{p}" *' for p in dict.fromkeys(prefixes))]
        self.marks = [*(w for p in phrases for w in p.split()), *meant, *(k for w in meant for k in kin(w)), *prefixes]

    def __bool__(self) -> bool:
        return bool(self.terms)


def _with_kin(word: str) -> str:
    """A word as a term: with its family (kin.py) where Porter leaves one apart, ``("decide" OR "decision")``."""
    family = [word, *kin(word)]
    return f'"{word}"' if len(family) == 1 else "(" + " OR ".join(f'"{w}"' for w in family) + ")"


def ranked(rows, query: Query, limit: int, where: str, args: dict, pool: int = POOL,
           every: bool = False) -> list[tuple[str, int, float]]:
    """(conversation id, its best turn's rowid, its score) of the best ``limit``
    conversations that pass ``where`` (a Filters' SQL, the conversations as
    ``c``), scoring at least ``pool`` matching turns (``every``: only those a
    turn or the title of which holds every term); ``rows(sql, args)`` reads the cache."""
    total = rows("SELECT count(*) FROM turns")[0][0] or 1
    counts = _counts(rows, query)
    if not any(counts.values()):
        return _titled_only(rows, query, where, args, limit)
    ranked_terms = [t for t in query.terms if 0 < counts[t] <= COMMON] or [t for t in query.terms if counts[t]]
    latest = all(counts[t] > COMMON for t in ranked_terms)  # only common terms: the latest of their turns
    while True:
        found = rows(
            f"""WITH matched AS MATERIALIZED (
                SELECT rowid AS rid, {'-1.0' if latest else 'rank'} AS score FROM turn_fts WHERE turn_fts MATCH :query
                ORDER BY {'rowid DESC' if latest else 'rank'} LIMIT :pool)
            SELECT m.rid, m.score, t.conv_id, c.updated, t.name FROM matched m JOIN turns t ON t.rowid = m.rid
            JOIN conversations c ON c.id = t.conv_id WHERE {where}""",
            {"query": " OR ".join(ranked_terms), "pool": pool, **args})
        convs = {r[2] for r in found}
        if len(convs) >= limit or pool >= sum(counts[t] for t in ranked_terms):
            break
        pool *= 10
    turns: dict[str, list] = {}
    updated = {}
    for rid, score, conv_id, when, name in found:
        turns.setdefault(conv_id, []).append((score, name, rid))  # FTS5's rank: lower is better
        updated[conv_id] = when or ""
    for ts in turns.values():
        ts.sort()  # the best first; among equals, the earliest turn
    strength = {c: sum(-s * DECAY ** n for n, (s, _, _) in enumerate(ts[:3])) for c, ts in turns.items()}
    titled = _titled(rows, query, where, args, limit, turns, updated, strength)
    candidates = sorted(strength, key=lambda c: -strength[c])[:max(CANDIDATES, limit)]
    cover = _coverage(rows, query, counts, total, candidates)
    whole = _every_term(rows, query, counts, [rid for c in candidates for _, _, rid in turns[c]])
    top_s, top_c = max(strength.values(), default=1) or 1, max(cover.values(), default=1) or 1
    score = {c: strength[c] / top_s + cover.get(c, 0) / top_c for c in candidates}
    order = sorted(candidates, key=lambda c: updated[c], reverse=True)  # among equals, the latest first
    order.sort(key=lambda c: (not any(rid in whole for _, _, rid in turns[c]), -score[c]))
    if every:  # a turn holding every term, or the title (_titled: a turn of no term at all)
        order = [c for c in order if c in titled or any(rid in whole for _, _, rid in turns[c])]
    out = []
    for conv_id in order[:limit]:
        rid = next((r for _, _, r in turns[conv_id] if r in whole), turns[conv_id][0][2])
        out.append((conv_id, rid, score[conv_id]))
    return out


TITLED = 50  # conversations whose title holds every term, looked for beside the turns


def _titled(rows, query: Query, where: str, args: dict, limit: int, turns: dict, updated: dict,
            strength: dict) -> set[str]:
    """The conversations whose title holds every term; those no turn of which matched (a title a tool or the
    user gave, "deploy runbook", said nowhere in it) added to the ranked ones, after them: each at its first
    turn, as strong as the weakest turn found."""
    found = rows(f"""SELECT f.conv_id, c.updated, (SELECT rowid FROM turns t WHERE t.conv_id = f.conv_id
                                                   ORDER BY t.name LIMIT 1), (SELECT name FROM turns t
                                                   WHERE t.conv_id = f.conv_id ORDER BY t.name LIMIT 1)
                     FROM title_fts f JOIN conversations c ON c.id = f.conv_id
                     WHERE title_fts MATCH :titled AND {where} LIMIT :most""",
                 {**args, "titled": " AND ".join(query.terms), "most": max(TITLED, limit)})
    weakest = min(strength.values(), default=1.0) / 2
    for conv_id, when, rid, name in found:
        if conv_id not in turns and rid is not None:
            turns[conv_id] = [(-weakest, name, rid)]
            updated[conv_id] = when or ""
            strength[conv_id] = weakest
    return {conv_id for conv_id, *_ in found}


def _titled_only(rows, query: Query, where: str, args: dict, limit: int) -> list[tuple[str, int, float]]:
    """No turn holds a term: the conversations whose title holds every one, the latest first."""
    turns: dict = {}
    updated: dict = {}
    _titled(rows, query, where, args, limit, turns, updated, {})
    order = sorted(turns, key=lambda c: updated[c], reverse=True)[:limit]
    return [(conv_id, turns[conv_id][0][2], 0.5) for conv_id in order]


def _counts(rows, query: Query) -> dict[str, int]:
    """How many turns hold each term, counted up to one past COMMON (never
    ranked: a common term costs what COMMON turns cost, however many hold it).
    A phrase is common when its rarest word is (its positions, checked turn
    by turn, cost ten times a word's count): then it is not counted."""
    words: dict[str, int] = {}
    out = {}
    for term in query.terms:
        inner = term.strip('"* ').split()
        if term.startswith("("):  # a word and its kin: counted as one
            out[term] = _count(rows, term)
            continue
        if len(inner) > 1:
            for word in inner:
                words.setdefault(word, _count(rows, f'"{word}"'))
            if min(words[w] for w in inner) > COMMON:
                out[term] = COMMON + 1
                continue
        out[term] = words[inner[0]] if len(inner) == 1 and term == f'"{inner[0]}"' and inner[0] in words \
            else _count(rows, term)
    return out


def _count(rows, term: str) -> int:
    return rows("SELECT count(*) FROM (SELECT 1 FROM turn_fts WHERE turn_fts MATCH ? LIMIT ?)",
                (term, COMMON + 1))[0][0]


def _coverage(rows, query: Query, counts: dict, total: int, candidates: list[str]) -> dict[str, float]:
    """Of each candidate conversation, the query's terms it holds (any turn),
    each weighted by how rare it is in the store (inverse document frequency);
    a common term, which weighs little, is not looked for turn by turn."""
    out: dict[str, float] = {}
    if not candidates or len(query.terms) < 2:
        return out
    for term in query.terms:
        if not 0 < counts[term] <= COMMON:
            continue
        idf = math.log(1 + total / counts[term])
        held = rows("""SELECT DISTINCT t.conv_id FROM turns t WHERE t.conv_id IN (SELECT value FROM json_each(:convs))
                       AND t.rowid IN (SELECT rowid FROM turn_fts WHERE turn_fts MATCH :term)""",
                    {"convs": _json(candidates), "term": term})
        for (conv_id,) in held:
            out[conv_id] = out.get(conv_id, 0.0) + idf
    return out


def _every_term(rows, query: Query, counts: dict, rowids: list[int]) -> set[int]:
    """Of ``rowids``, the turns that hold every term (the query's phrases side
    by side), looked for between the least and the greatest of them only."""
    if not rowids or len(query.terms) < 2:
        return set(rowids) if query.terms else set()
    if not all(counts.values()):
        return set()
    return set(rowids) & {r[0] for r in rows(
        "SELECT rowid FROM turn_fts WHERE turn_fts MATCH :query AND rowid BETWEEN :low AND :high",
        {"query": " AND ".join(query.terms), "low": min(rowids), "high": max(rowids)})}


def _json(values: list) -> str:
    import json

    return json.dumps(values)
