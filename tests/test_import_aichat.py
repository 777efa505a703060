"""conv import --from aichat. aichat (a Rust program) is on none of the
package registries reachable here, so its sessions are written by this test
as its source serializes them (src/config/session.rs: ``Session`` through
serde_yaml; src/client/message.rs: a message's content is a text, a list of
text and image_url parts, or a tool message's calls and outputs), as small
real files."""

import base64
import json
import os
import subprocess

from conftest import git, ok
from test_files import png

SESSION = """\
model: openai:gpt-4o-mini
temperature: 0.2
messages:
- role: system
  content: You are a terse assistant.
- role: user
  content: what is in this repo?
- role: tool
  content:
    tool_results:
    - call:
        name: fs_ls
        arguments:
          path: .
        id: call_1
      output:
        files:
        - README.md
    text: ''
    sequence: false
- role: assistant
  content: It holds a README.
- role: user
  content:
  - type: text
    text: and what is this?
  - type: image_url
    image_url:
      url: data:image/png;base64,{image}
- role: assistant
  content: A red square.
"""
MORE = """\
- role: user
  content: thanks
- role: assistant
  content: You are welcome.
"""
COMPRESSED = """\
model: openai:gpt-4o-mini
compressed_messages:
- role: system
  content: You are a terse assistant.
- role: user
  content: first question
- role: assistant
  content: first answer
messages:
- role: system
  content: |-
    You are a terse assistant.

    This is a summary of the chat history as a recap: the user asked a first question.
- role: user
  content: second question
- role: assistant
  content: second answer
"""


def imported(sessions) -> dict:
    return json.loads(ok("import", "--from", "aichat", "--json",
                         env={"AICHAT_CONFIG_DIR": str(sessions.parent)}).stdout)


def turns(short: str) -> list[dict]:
    return json.loads(ok("show", short, "--json").stdout)["turns"]


def test_sessions_become_conversations_with_tool_calls_images_and_what_was_compressed(tmp_path, fake, store_path):
    sessions = tmp_path / "aichat" / "sessions"  # found as aichat finds it: AICHAT_CONFIG_DIR/sessions
    sessions.mkdir(parents=True)
    image = png(4, 4)
    (sessions / "repo.yaml").write_text(SESSION.replace("{image}", base64.b64encode(image).decode()))
    (sessions / "long.yaml").write_text(COMPRESSED)
    (sessions / "broken.yaml").write_text("model: x\nmessages:\n- role: user\n  content: [unclosed")

    done = imported(sessions)
    assert (done["found"], done["added"], done["turns_added"]) == (2, 2, 10)  # what was read, added
    assert done["skipped"] == [f"{sessions / 'broken.yaml'}: not read: not YAML (expected ',' or ']', but "
                               "got '<stream end>', line 4)"]
    listed = {c["title"]: c["short"] for c in json.loads(ok("list", "--json").stdout)}
    repo = turns(listed["what is in this repo?"])
    assert [t["role"] for t in repo] == ["system", "user", "assistant", "user", "assistant"]
    assert repo[2]["model"] == "openai:gpt-4o-mini"
    assert '```tool call: fs_ls\n{"path": "."}\n```' in repo[2]["content"]
    assert '```tool result: fs_ls\n{"files": ["README.md"]}\n```' in repo[2]["content"]
    assert repo[2]["content"].endswith("It holds a README.")
    assert repo[3]["content"] == "and what is this?" and repo[3]["files"][0]["type"] == "image/png"
    stored = git(store_path, "ls-tree", "-r", "--name-only", "HEAD").split()
    kept = next(p for p in stored if p.endswith(".png"))
    assert subprocess.run(["git", "-C", str(store_path), "show", f"HEAD:{kept}"], capture_output=True).stdout == image
    long = turns(listed["first question"])  # the summary aichat wrote for the model is not a turn
    assert [t["content"] for t in long] == ["You are a terse assistant.", "first question", "first answer",
                                            "second question", "second answer"]

    with open(sessions / "repo.yaml", "a") as session:  # the session went on
        session.write(MORE)
    os.utime(sessions / "repo.yaml")
    again = imported(sessions)
    assert (again["added"], again["turns_added"]) == (0, 2)
    grown = turns(listed["what is in this repo?"])
    assert [t["content"] for t in grown[-2:]] == ["thanks", "You are welcome."]
    assert grown[-2]["created"] > grown[-3]["created"]
    ok("ask", "-c", listed["what is in this repo?"], "one more")  # the image goes again, as with conv's own
    sent = fake.requests[-1]["messages"]
    assert sent[0] == {"role": "system", "content": "You are a terse assistant."}
    assert any(isinstance(m["content"], list) and any(p.get("type") == "image_url" for p in m["content"]) for m in sent)
    git(store_path, "fsck", "--strict")
