"""conv ask / list / show / clear through the real CLI against the loopback fake."""

import json

from conftest import git, run_conv


def ok(*args, **kw):
    done = run_conv(*args, **kw)
    assert done.returncode == 0, done.stderr.decode()
    return done


def test_ask_then_follow_up_sends_the_whole_conversation(fake, store_path):
    fake.set(reply="Rebase replays commits.")
    first = json.loads(ok("ask", "--json", "explain git rebase").stdout)
    fake.set(reply="Use git rebase -i.")
    ok("ask", "-c", "what about interactive mode?")
    sent = fake.requests[-1]["messages"]
    assert [(m["role"], m["content"]) for m in sent] == [
        ("user", "explain git rebase"),
        ("assistant", "Rebase replays commits."),
        ("user", "what about interactive mode?"),
    ]
    files = git(store_path, "ls-tree", "-r", "--name-only", "HEAD").split()
    conv_dir = f"conversations/{first['conversation'][:2]}/{first['conversation']}"
    assert f"{conv_dir}/conversation.md" in files
    assert sum(f.startswith(conv_dir) for f in files) == 5  # conversation.md + 4 turns
