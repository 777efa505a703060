"""An older Cline extension's task (``tasks/<id>/``, its id the time it
began, in ms), made into the messages of the session store (reader.py reads
both alike): ``api_conversation_history.json`` is Anthropic's messages, the
tools called as XML in the answers' text (``<write_to_file>``…, the thinking
in ``<thinking>``, the last word in ``<attempt_completion>``) and each
result coming back as a user message's text after a ``[tool for 'x']
Result:`` line; ``ui_messages.json`` beside it holds each model call
(``api_req_started``: its time, tokens, cache and cost, in the order of the
answers) and ``task_metadata.json`` the models used, from when."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ...importers.files import Unreadable, json_document

HISTORY = "api_conversation_history.json"
_XML_CALL = re.compile(r"<(write_to_file|replace_in_file|execute_command|apply_patch|read_file|list_files|"
                       r"search_files|ask_followup_question|browser_action|use_mcp_tool)>\s*(.*?)\s*</\1>", re.S)
_XML_PARAM = re.compile(r"<(\w+)>\n?(.*?)\n?</\1>", re.S)
_THINKING = re.compile(r"<thinking>\s*(.*?)\s*</thinking>", re.S)
_COMPLETION = re.compile(r"<attempt_completion>\s*(.*?)\s*</attempt_completion>", re.S)
_RESULT_HEAD = re.compile(r"^\[(\w+)(?: for [^\]]*)?\] Result:\s*", re.S)
_PERSON = re.compile(r"<(environment_details|feedback|answer|user_message|task)>")  # not a tool's result
_FAILED = ("The tool execution failed", "Error ", "Error:")


def load_task(file: Path) -> tuple[list, int | None]:
    """The task's messages as the session store's (tool calls and results as blocks, each answer's call's
    time, tokens and model from beside), and when it began (its folder's name, ms), if that says."""
    messages = json_document(file)
    if not isinstance(messages, list):
        raise Unreadable("not a Cline task's history (a JSON list of messages)")
    requests, models = _beside(file.with_name("ui_messages.json"), file.with_name("task_metadata.json"))
    out, calls, answered = [], [], 0
    for n, m in enumerate(messages):
        if not isinstance(m, dict):
            out.append(m)  # not a message: left out, counted
            continue
        m = {"kind": "message", "id": str(n), **m}
        content = m.get("content")
        if m.get("role") == "assistant" and isinstance(content, (str, list)):
            m["content"], calls = _answer(content, n)
            request = requests[answered] if answered < len(requests) else {}
            answered += 1
            m.setdefault("ts", request.get("ts"))
            if "metrics" not in m and request:
                m["metrics"] = _metrics(request)
            model = _model_at(models, m.get("ts"))
            if model and "modelInfo" not in m:
                m["modelInfo"] = {"id": model}
        elif m.get("role") == "user" and isinstance(content, list):
            m["content"] = _asked(content, calls)
        out.append(m)
    began = file.parent.name
    return out, int(began) if began.isdigit() and len(began) < 20 else None


def _answer(content, n: int) -> tuple[list, list[str]]:
    """An answer's blocks with its XML made blocks: the thinking, each tool call (its params its input), the
    text; and its calls' ids, in order, for the results that follow."""
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    out, calls = [], []
    for block in blocks:
        if not (isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)):
            out.append(block)
            continue
        text = block["text"]
        out += [{"type": "thinking", "thinking": found} for found in _THINKING.findall(text)]
        text = _THINKING.sub("", text)
        for k, (tool, body) in enumerate(_XML_CALL.findall(text)):
            calls.append(f"{n}/xml{k}")
            out.append({"type": "tool_use", "id": calls[-1], "name": tool, "input": dict(_XML_PARAM.findall(body))})
        text = _COMPLETION.sub(lambda found: dict(_XML_PARAM.findall(found[1])).get("result", ""), text)
        out.append({"type": "text", "text": _XML_CALL.sub("", text).strip()})
    return out, calls


def _asked(content: list, calls: list[str]) -> list:
    """A user message's blocks with each ``[tool] Result:`` text (and the text blocks after it, until a person's
    words or Cline's context) made the result of the call before it."""
    out, result, pending = [], None, list(calls)
    for block in content:
        text = block.get("text") if isinstance(block, dict) and block.get("type") == "text" else None
        head = _RESULT_HEAD.match(text) if isinstance(text, str) else None
        if head:
            result = {"type": "tool_result", "tool_use_id": pending.pop(0) if pending else f"unknown/{head[1]}",
                      "content": text[head.end():]}
            out.append(result)
        elif isinstance(text, str) and result is not None and not _PERSON.search(text):
            result["content"] = f"{result['content']}\n{text}".strip("\n")
        else:
            result = None
            out.append(block)
        if result is not None:
            result["is_error"] = result["content"].lstrip().startswith(_FAILED)
    return out


def _beside(ui: Path, metadata: Path) -> tuple[list[dict], list[tuple]]:
    """The task's model calls (ui_messages' api_req_started, each its JSON and time) and the models it used
    ((time, model) each), or none when the files are not there or not Cline's."""
    requests, models = [], []
    for said in _document(ui) if isinstance(_document(ui), list) else []:
        if isinstance(said, dict) and said.get("say") == "api_req_started" and isinstance(said.get("text"), str):
            try:
                found = json.loads(said["text"])
            except (ValueError, RecursionError):
                continue
            if isinstance(found, dict):
                requests.append({**found, "ts": said.get("ts")})
    meta = _document(metadata)
    for used in meta.get("model_usage") or [] if isinstance(meta, dict) else []:
        if isinstance(used, dict) and isinstance(used.get("model_id"), str):
            models.append((used.get("ts") if isinstance(used.get("ts"), (int, float)) else 0, used["model_id"]))
    return requests, sorted(models, key=lambda m: m[0])


def _document(file: Path):
    try:
        return json_document(file) if file.is_file() else None
    except Unreadable:
        return None


def _metrics(request: dict) -> dict:
    """A model call's tokens as the session store keeps them (its input holding the cache's)."""
    def count(name):
        value = request.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0

    cost = request.get("cost")
    return {"inputTokens": count("tokensIn") + count("cacheReads") + count("cacheWrites"),
            "outputTokens": count("tokensOut"), "cacheReadTokens": count("cacheReads"),
            "cacheWriteTokens": count("cacheWrites"),
            "cost": cost if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None}


def _model_at(models: list[tuple], when) -> str | None:
    """The model the task used at ``when`` (ms), the last named before it."""
    found = None
    for since, model in models:
        if not isinstance(when, (int, float)) or since <= when:
            found = model
    return found
