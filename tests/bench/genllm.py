"""Fill an ``llm`` logs.db (https://llm.datasette.io) with the conversations of
a genstore store: the same texts, the same exchanges, the same times.

Runs under the Python that has llm installed (bench_manage.py makes a venv
for it under tests/bench/out/), not conv's: it imports llm only, and reads
the ``conversations.jsonl`` genstore.py wrote beside the store.

Everything is written through llm's own Python API, the way ``llm prompt``
logs: a conversation per conv conversation (``model.conversation()``), one
``conversation.prompt(question)`` per exchange, answered by a stand-in model
whose ``model_id`` is the store's ("gpt-4o-mini") and which replays the
stored answer and its token usage, then ``LogStore.log(response)`` (what
``Response.log_to_db`` does) into threads / turns / messages / parts, with
turn_search and its FTS index kept by llm itself. Only the clock is set:
the response's start time and duration, the turn's and the thread's ULIDs
and the thread's creation time are those of the conv turns, so ``llm logs``
orders them as the store does.

conv's generated conversations end on a question (user, assistant, user,
assistant, user): the last exchange is logged with an empty answer, as a
prompt whose model said nothing. So 10,000 conversations x 5 turns are
10,000 threads and 30,000 turns (model calls) holding the same 50,000 texts.

    llm-venv/bin/python tests/bench/genllm.py --source STORE_HOME/conversations.jsonl --db DIR/logs.db
"""

import argparse
import json
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import llm
import llm.logs
import sqlite_utils
from llm.logs import LogStore
from ulid import ULID

BATCH = 500  # conversations per transaction


class Replay(llm.Model):
    """Answers with whatever ``answer`` holds: (text, usage dict) or None."""

    model_id = "gpt-4o-mini"
    can_stream = True

    def __init__(self):
        self.answer = None

    def execute(self, prompt, stream, response, conversation):
        if self.answer is not None:
            text, usage = self.answer
            yield text
            response.set_usage(input=usage.get("prompt_tokens"), output=usage.get("completion_tokens"))


def moment(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


def ulid_at(seconds: float) -> str:
    return str(ULID.from_timestamp(seconds)).lower()


def exchanges(record: dict) -> list[tuple[dict, dict | None]]:
    """(question, answer or None) pairs, in order."""
    out, turns = [], record["turns"]
    k = 0
    while k < len(turns):
        question = turns[k]
        if question["role"] != "user":
            raise ValueError(f"{record['id']}: turn {k} is {question['role']}, expected a question")
        answer = turns[k + 1] if k + 1 < len(turns) and turns[k + 1]["role"] == "assistant" else None
        out.append((question, answer))
        k += 2 if answer else 1
    return out


def log_conversation(store: LogStore, model: Replay, record: dict) -> int:
    conversation = model.conversation()
    conversation.id = ulid_at(record["time"])
    created = str(moment(record["time"]))
    made = 0
    for question, answer in exchanges(record):
        model.answer = (answer["content"], answer["usage"] or {}) if answer else None
        response = conversation.prompt(question["content"])
        response.text()  # runs the stand-in model; llm records the response in the conversation
        response.id = ulid_at(question["time"])
        response._start_utcnow = moment(question["time"])
        response._start, response._end = 0.0, (answer["time"] - question["time"]) if answer else 0.0
        llm.logs._now = lambda: created  # the thread is created with the first turn
        store.log(response)
        made += 1
    return made


def fill(source: Path, db_path: Path) -> dict:
    t0 = time.perf_counter()
    records = [json.loads(line) for line in source.open()]
    records.sort(key=lambda r: r["turns"][0]["time"])  # logged in the order they were asked
    db_path.unlink(missing_ok=True)
    db = sqlite_utils.Database(db_path)
    store = LogStore(db)  # applies llm's migrations, as the CLI does on first use
    model = Replay()
    turns = 0
    for start in range(0, len(records), BATCH):
        with db.atomic():
            for record in records[start:start + BATCH]:
                turns += log_conversation(store, model, record)
    db.close()
    seconds = time.perf_counter() - t0
    return {"threads": len(records), "turns": turns, "texts": sum(len(r["turns"]) for r in records),
            "seconds": seconds, "llm": llm_version()}


def llm_version() -> str:
    from importlib.metadata import version

    return version("llm")


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--source", type=Path, required=True, help="conversations.jsonl written by genstore.py")
    p.add_argument("--db", type=Path, required=True, help="the logs.db to (re)create")
    a = p.parse_args(argv)
    info = fill(a.source, a.db)
    print(json.dumps(info))


if __name__ == "__main__":
    sys.exit(main())
