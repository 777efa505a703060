"""What the answers in the cache spent (``conv stats``): their tokens in
their classes (format/usage.py) summed in SQL, by day, project, tool and
model, over a span of time. An answer a fork holds too is counted once (a
turn's name is the same in every conversation that holds it), as the tool's
that wrote it (a fork of an imported conversation is conv's: its copy of the
tool's answer is still the tool's)."""

CLASSES = ("prompt_tokens", "cache_write_tokens", "cache_read_tokens", "completion_tokens", "reasoning_tokens")


def spending(rows, filters, since: str | None, until: str | None) -> list[tuple]:
    """(day YYYYMMDD, project, source, model, the five classes…, the same of the answers no tool gave a cost,
    the cost the tools gave, answers, answers with a cost, answers summed) of each day, project, source and
    model; ``since``/``until``: turn names' bounds (YYYYMMDD-HHMMSS…), the first in, the second out. Read
    off the turns' own rows (db.py: they keep their conversation's project, source and place): a month of
    answers at 100,000 conversations is a range of one index."""
    where, args = filters.sql("t")  # queries.Filters (those conv stats takes: the place, --here and --source)
    span = ""
    if since:
        span += " AND t.name >= :from_name"
        args["from_name"] = since
    if until:
        span += " AND t.name < :to_name"
        args["to_name"] = until
    summed = ", ".join(f"SUM(coalesce({k}, 0))" for k in CLASSES)
    unpriced = ", ".join(f"SUM(CASE WHEN cost IS NULL THEN coalesce({k}, 0) ELSE 0 END)" for k in CLASSES)
    sql = (f"SELECT substr(name, 1, 8) AS day, project, source, model, {summed}, {unpriced}, SUM(cost), COUNT(*), "
           "COUNT(cost), SUM(coalesce(summed, 0)) FROM ("
           f"SELECT name, MAX(project) AS project, MAX(source) AS source, model, {', '.join(CLASSES)}, cost, summed "
           "FROM turns t "
           f"WHERE t.role = 'assistant' AND t.summed IS NOT NULL{span} AND {where} "
           "GROUP BY t.name) GROUP BY day, project, source, model ORDER BY day")
    return rows(sql, args)
