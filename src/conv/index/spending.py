"""What the answers in the cache spent (``conv stats``): their tokens in
their classes (format/usage.py) summed in SQL, by day, project, tool and
model, over a span of time. An answer a fork holds too is counted once (a
turn's name is the same in every conversation that holds it)."""

from .queries import Filters

CLASSES = ("prompt_tokens", "cache_write_tokens", "cache_read_tokens", "completion_tokens", "reasoning_tokens")


def spending(rows, filters: Filters, since: str | None, until: str | None) -> list[tuple]:
    """(day YYYYMMDD, project, source, model, the five classes…, the same of the answers no tool gave a cost,
    the cost the tools gave, answers, answers with a cost, answers summed) of each day, project, source and
    model; ``since``/``until``: turn names' bounds (YYYYMMDD-HHMMSS…), the first in, the second out."""
    where, args = filters.sql()
    span = ""
    if since:
        span += " AND t.name >= :from_name"
        args["from_name"] = since
    if until:
        span += " AND t.name < :to_name"
        args["to_name"] = until
    classes = ", ".join(f"json_extract(t.usage, '$.{k}') AS {k}" for k in CLASSES)
    summed = ", ".join(f"SUM(coalesce({k}, 0))" for k in CLASSES)
    unpriced = ", ".join(f"SUM(CASE WHEN cost IS NULL THEN coalesce({k}, 0) ELSE 0 END)" for k in CLASSES)
    sql = (f"SELECT day, project, source, model, {summed}, {unpriced}, SUM(cost), COUNT(*), COUNT(cost), "
           "SUM(coalesce(summed, 0)) FROM ("
           f"SELECT substr(t.name, 1, 8) AS day, c.project AS project, c.source AS source, "
           f"coalesce(t.model, c.model) AS model, {classes}, json_extract(t.usage, '$.cost') AS cost, "
           "json_extract(t.usage, '$.summed') AS summed "
           f"FROM turns t JOIN conversations c ON c.id = t.conv_id "
           f"WHERE t.role = 'assistant' AND t.usage IS NOT NULL{span} AND {where} GROUP BY t.name) "
           "GROUP BY day, project, source, model ORDER BY day")
    return rows(sql, args)
