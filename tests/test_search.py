"""Search that answers a question, as a person and an agent ask it: in
sentences, with other word forms, prefixes and phrases; ranked by
conversation; each hit saying where it is; a filter that leaves nothing said
as such; conv's own answers in a captured session never found as its words.
The suite's own small recall set: conversations and questions made here."""

import json

import pytest
from conftest import fails, ok

TALKS = {  # title-to-be (the first question) -> the answers of the conversation
    "how should the uploader handle failures?": [
        "Retry each failed upload three times with exponential backoff, capped at 30 seconds.",
        "We settled on that retry policy for the uploader: three tries, then give up and log it."],
    "webhook deliveries keep failing": [
        "Webhooks are retried by the sender; on our side, answer 200 fast and queue the work.",
        "For webhooks we decided on at most five retries, spread over an hour, then an alert."],
    "set up the postgres backups": ["Use pg_dump nightly to S3, kept for 30 days, and test a restore monthly."],
    "which font for the slides?": ["Inter for text, JetBrains Mono for code samples."],
    "the deploy pipeline is slow": ["Cache the Docker layers and run the tests in parallel: about 4 minutes saved."],
    "rename the git branch": ["git branch -m old new, then git push origin -u new and delete the old one."],
}
QUESTIONS = {  # a question asked in a sentence -> the conversation (its first question) that answers it
    "what did we decide about the retry policy for webhooks?": "webhook deliveries keep failing",
    "how many times does the uploader retry a failed upload?": "how should the uploader handle failures?",
    "Where do the nightly backups go?": "set up the postgres backups",
    "what font did we pick for code in the slides": "which font for the slides?",
    "how did we make deploys faster?": "the deploy pipeline is slow",
    "How do I rename a branch in git?": "rename the git branch",
}


@pytest.fixture
def talks(fake):
    for first, answers in TALKS.items():
        fake.reply = answers[0]
        ok("ask", "-n", first)
        for answer in answers[1:]:
            fake.reply = answer
            ok("ask", "-c", "and then?")
    return {c["title"]: c["id"] for c in json.loads(ok("list", "--json").stdout)}


def found(*args: str) -> list[dict]:
    return json.loads(ok("search", *args, "--json").stdout)


def test_a_question_in_a_sentence_finds_its_conversation_first(talks):
    for question, title in QUESTIONS.items():
        hits = found(question)
        assert hits and hits[0]["id"] == talks[title], (question, [h["title"] for h in hits])


def test_other_forms_prefixes_and_phrases_are_found(talks):
    assert {h["id"] for h in found("retries")} >= {talks["how should the uploader handle failures?"],
                                                   talks["webhook deliveries keep failing"]}  # "retry" and "retried"
    assert found("backup")[0]["id"] == talks["set up the postgres backups"]  # "backups"
    assert found("postg*")[0]["id"] == talks["set up the postgres backups"]
    assert [h["id"] for h in found('"exponential backoff"')] == [talks["how should the uploader handle failures?"]]
    assert found('"backoff exponential"') == []  # a phrase is side by side, in order
    assert "\ue000" not in json.dumps(found("retries"))  # the marks are the terminal's, not the JSON's


def test_a_conversation_where_several_turns_match_ranks_above_a_stray_turn(fake):
    fake.reply = "Fine, we do not run it."
    ok("ask", "-n", "I read about kubernetes in a blog post yesterday evening")  # its one mention
    fake.reply = "The scheduler in kubernetes places each pod on a node with room for it."
    ok("ask", "-n", "how are our pods placed on the nodes of the cluster?")
    fake.reply = "When a node fails, kubernetes moves its pods to the nodes that are left."
    ok("ask", "-c", "and when a node fails, what happens to the pods on it?")
    titles = [h["title"] for h in found("kubernetes")]
    assert titles == ["how are our pods placed on the nodes of the cluster?",
                      "I read about kubernetes in a blog post yesterday evening"]


def test_a_hit_says_where_it_is_and_show_opens_at_that_turn(talks):
    hit = found("pg_dump")[0]
    assert (hit["source"], hit["model"], hit["role"], hit["turn_number"]) == ("conv", "gpt-4o-mini", "assistant", 2)
    assert hit["date"] and hit["turn"].endswith("-assistant")
    text = ok("search", "pg_dump").stdout.decode()
    assert text.splitlines()[1].startswith("    conv · ") and text.splitlines()[1].endswith(
        " · gpt-4o-mini · turn 2 (assistant)")  # (the project between: where the test runs)
    shown = json.loads(ok("show", hit["id"], "--turn", "2", "--json").stdout)
    assert shown["first_turn"] == 2 and shown["turns"][0]["content"].startswith("Use pg_dump nightly")
    assert "has 2 turns, not 3" in fails("show", hit["id"], "--turn", "3", code=2)


def test_a_filter_that_leaves_nothing_says_what_matched_without_it(talks):
    said = ok("search", "retry", "--model", "sonnet").stderr.decode()
    assert said.strip() == "conv: 2 conversations match 'retry'; none with --model sonnet"
    assert "nothing matches 'zanzibar'" in ok("search", "zanzibar").stderr.decode()
    assert "nothing to search for" in fails("search", "", code=2)
    assert "nothing to search for in '?!'" in fails("search", "?!", code=2)


def test_the_helps_examples_work_as_printed(talks):
    help_text = ok("search", "--help").stdout.decode()
    assert 'conv search "interactive rebase" --tag git -n 5' in help_text
    ok("search", "interactive rebase", "--tag", "git", "-n", "5")  # as a shell passes the quoted phrase
    assert found("rebase") == []


def test_conv_mcps_own_answers_in_a_captured_session_are_not_its_words(tmp_path, monkeypatch, fake):
    """An agent that asked conv mcp has the answer in its session: searching
    for what that answer held must find the conversation it came from, not the agent's."""
    fake.reply = "The zanzibar cluster is in Frankfurt."
    ok("ask", "where is the zanzibar cluster?")
    original = json.loads(ok("list", "--json").stdout)[0]["id"]
    echoed = json.dumps([{"id": original, "title": "where is the zanzibar cluster?",
                          "snippet": "The zanzibar cluster is in Frankfurt."}])
    base = {"sessionId": "s9", "cwd": str(tmp_path), "isSidechain": False}
    records = [
        {**base, "type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-11-28T10:00:00.000Z",
         "message": {"role": "user", "content": "what did I ask before?"}},
        {**base, "type": "assistant", "uuid": "a1", "parentUuid": "u1", "timestamp": "2026-11-28T10:00:01.000Z",
         "message": {"role": "assistant", "model": "claude-opus-5-5", "content": [
             {"type": "tool_use", "id": "t1", "name": "mcp__conv__search", "input": {"query": "cluster"}}]}},
        {**base, "type": "user", "uuid": "r1", "parentUuid": "a1", "timestamp": "2026-11-28T10:00:02.000Z",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": echoed}]}},
        {**base, "type": "assistant", "uuid": "a2", "parentUuid": "r1", "timestamp": "2026-11-28T10:00:03.000Z",
         "message": {"role": "assistant", "model": "claude-opus-5-5",
                     "content": [{"type": "text", "text": "You asked where a cluster is."}]}}]
    session = tmp_path / "s9.jsonl"
    session.write_text("".join(json.dumps(r) + "\n" for r in records))
    ok("import", "--from", "claude-code", str(session))
    assert [h["id"] for h in found("frankfurt")] == [original]
    agents = [c for c in json.loads(ok("list", "--json").stdout) if c["source"] == "claude-code"][0]
    answer = json.loads(ok("show", agents["id"], "--json").stdout)["turns"][1]
    assert "Frankfurt" not in answer["content"] and "kept beside this turn" in answer["content"]
    assert answer["files"][0]["sent"] is False  # the whole answer, kept


def test_a_decision_is_found_by_decide(fake):
    """Porter stems "decide" and "decision" apart: the conversations that state the webhook decision
    rank above one that only "decided" to "retry" something else."""
    for first, answer in (("webhook deliveries", "Decision: webhook retries back off exponentially, five at most."),
                          ("the CI job is flaky", "We decided the CI job should retry twice before failing."),
                          ("webhooks again", "The decision on webhooks stands: retries five times, then an alert.")):
        fake.reply = answer
        ok("ask", "-n", first)
    titles = [h["title"] for h in found("what did we decide about the webhook retries?")]
    assert sorted(titles[:2]) == ["webhook deliveries", "webhooks again"], titles
    assert len(found("decisions")) == len(found("deciding")) == 3  # every form finds all three
    fake.reply = "The pension plan pays out at 67; my muscles tend to ache."
    ok("ask", "-n", "retirement")
    assert [h["title"] for h in found("pending")] == [] and [h["title"] for h in found("tension")] == []


def test_a_title_is_searched_as_its_turns_are(fake):
    """A title a tool or the user gave, said in no turn, found nothing."""
    fake.reply = "Start with the database, then the workers."
    conv_id = json.loads(ok("ask", "--json", "what order do we bring things up in?").stdout)["conversation"]
    ok("title", conv_id, "Zanzibar outage runbook")
    fake.reply = "The runbook is in the wiki."
    ok("ask", "-n", "where is the runbook for outages?")
    assert [h["id"] for h in found("zanzibar")] == [conv_id]
    assert conv_id in [h["id"] for h in found("outage runbook")]  # beside the one that says it
    ok("title", conv_id, "Kept elsewhere")
    assert found("zanzibar") == []  # the title it had is no longer searched


def test_an_emoji_is_a_word_of_its_own(fake):
    fake.reply = "Shipped it 🚀 to production, all green ✅."
    ok("ask", "-n", "did the release go out?")
    fake.reply = "Not yet ⏳."
    ok("ask", "-n", "and the hotfix?")
    assert [h["title"] for h in found("🚀")] == ["did the release go out?"]
    assert [h["title"] for h in found("⏳")] == ["and the hotfix?"]
