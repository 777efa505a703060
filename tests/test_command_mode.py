"""conv cmd: a description becomes one shell command, printed alone; the
exchange is kept in the terminal's command conversation. (The keys that put
it in the shell's line are tested in real shells in test_shell_plugins.py.)"""

import json

import pytest
from conftest import fails, ok, run_conv

from conv.services.command_in_answer import first_command

FENCED = "Here it is:\n```bash\nfind . -size +100M -mtime -7\n```\nOr with fd:\n```\nfd -S +100m\n```\n"


@pytest.mark.parametrize("answer, command", [
    ("du -sh .", "du -sh ."),
    ("du -sh .\n", "du -sh ."),  # no newline: it would run the line in some shells
    (FENCED, "find . -size +100M -mtime -7"),
    ("1. `ls -la`\n2. `ls -lA`", "ls -la"),  # alternatives: the first (the rest stays in the stored answer)
    ("- git log --oneline\n- git log", "git log --oneline"),
    ("$ git status", "git status"),
    ("```sh\ntar -czf out.tgz \\\n  src \\\n  docs\necho done\n```", "tar -czf out.tgz \\\n  src \\\n  docs"),
    ("```\r\nls\r\n```", "ls"),
    ("ls \x1b[31m-la\x1b[0m\x1b]0;title\x07", "ls -la"),  # escape sequences go
    ("\x9b31mls -la\x9b0m\x9d0;title\x9c", "ls -la"),  # C1 ones too (one-byte CSI, OSC), whole
    ("echo hi\x07\x08 \u202eevil\u202c\x00", "echo hi evil"),  # control and bidi characters go
    ("ls $(touch X) `id`; rm -rf x", "ls $(touch X) `id`; rm -rf x"),  # data: left as it is, never run
    ("```python\nimport os\n```\nor:\n```console\nls -la\n```", "ls -la"),  # a shell's fence first
    ("```python\nimport os\n```", None),  # another language's fence is never taken (ImageMagick has import)
    ("```python\nimport os\n```\nThen run:\n\n    make test", "make test"),  # the text outside it is read
    ("Listing all files by size: `ls -lS`.\nThis lists …", "ls -lS"),  # the answer's one code span
    ("echo `date`", "echo `date`"),
    ("```\n\n```", None),
    ("I cannot help with that.", None),  # no command: nothing goes in the line
    ("You can use `find . -size +100M` for that.", "find . -size +100M"),  # the span, never its backticks
    ("Run this: `du -sh .`.", "du -sh ."),
    ("Use `ls -la` or `ls -lA`.", None),  # two spans in prose: which one is no guess to make
    ("Edit `config.yaml` to change it.", None),  # a span that is no command
    ("Call `os.listdir('.')` in Python.", None),
    ("os.listdir('.')", None),  # another language's call, not a shell's line
    ("print(len(files))", None),
    ("```bash\nsubprocess.run(['ls', '-la'])\n```", None),
    ("```bash\nprintf \"%s\\n\", len(out), size\nls -la\n```", "ls -la"),
    ("greet() { echo hi; }", "greet() { echo hi; }"),  # a shell function is a shell's line
    ("See:\nhttps://example.com/2019/06/list-files.html\nls -l", "ls -l"),  # a link is no program (the local model)
    ("```bash\n# find big files\nfind . -size +100M\n```", "find . -size +100M"),  # a comment first
    ("`find . -name '*.log'`", "find . -name '*.log'"),  # a whole inline span is the command
    ("Sure! Here it is:\nfind . -size +100M", "find . -size +100M"),  # a sentence, then the command
    ("FOO=1 make test", "FOO=1 make test"),
    # what a hostile or chatty model says instead of a command: nothing in the line
    ("find is the right tool here, but I need more details.", None),
    ("yes you can do that with a loop", None),
    ("test it on a copy first please", None),
    ("$5 is the price of that service.", None),
    ("(Note: this requires GNU find.)", None),
    ("[Warning] This will delete everything.", None),
    ("which directory do you mean?", None),
    ("export is not needed here; just run it.", None),
    ("```\nI'm sorry, I can't help with that.\n```", None),  # an unnamed fence is no promise of code
    ("echo Hello, world.", "echo Hello, world."),  # echo says sentences
    ("ls -la\rrm -rf ~", "ls -la"),  # a carriage return ends the line, never joins two
    ("~~~bash\nls -la\n~~~", "ls -la"),  # a tilde fence
    ("```\n\n```\n```bash\nls\n```", "ls"),
    ("ls -la \\\nThis lists all files.", "ls -la"),  # a sentence does not continue a command
    ("```bash\ncat <<EOF\nhello\n\nEOF\nls\n```", "cat <<EOF\nhello\n\nEOF"),  # a here-document whole
    # a second hostile pass: prose that starts like a command, sentences in a shell's fence, commands that end
    # like a sentence, invisible characters
    ("make sure you have a backup first, then run\n\nrm -rf build", "rm -rf build"),
    ("[Note: this requires root]", None),
    ("[note] requires GNU find", None),
    ("time to check your disk usage", None),
    ("watch out: this deletes everything", None),
    ("who knows, try it", None),
    ("awk is better suited here", None),
    ("cd into the folder and run make", None),
    ("If you want, use ls -a", None),
    ("```bash\nI cannot help with that.\n```", None),
    ("```bash\nThis will delete everything.\nrm -rf build\n```", "rm -rf build"),
    ("```bash\nfor f in a b c\n```", "for f in a b c"),
    ("git commit -m \"Fix the bug.\"", "git commit -m \"Fix the bug.\""),
    ("```\ngit commit -am \"Fix typo in README.\"\n```", "git commit -am \"Fix typo in README.\""),
    ("git log --grep \"fix.\"", "git log --grep \"fix.\""),
    ("git add . && git commit -m \"WIP.\"", "git add . && git commit -m \"WIP.\""),
    ("mv a b", "mv a b"),
    ("git push origin main", "git push origin main"),
    ("```bash\nls\u200b -la\ufeff\u00a0/tmp\n```", "ls -la /tmp"),  # what is seen is what runs
    ("\u200bls -la", "ls -la"),
    # a third pass: a warning that starts as a command, commands joined by ;, sentences a shell's fence holds,
    # notes in brackets, a loop over lines
    ("rm -rf ~ deletes your home directory", None),
    ("rm -rf * removes every file in this folder", None),
    ("chmod -R 777 / is a terrible idea", None),
    ("git push --force rewrites history, so be careful.", None),
    ("> rm -rf / is dangerous", None),
    ("- rm -rf node_modules is usually safe", None),
    ("```bash\nrm -rf ~ deletes your home directory\n```", None),
    ("for f in a b c; do echo $f; done", "for f in a b c; do echo $f; done"),
    ("```bash\nwhile true; do date; sleep 1; done\n```", "while true; do date; sleep 1; done"),
    ("cd src; make", "cd src; make"),
    ("ls; pwd", "ls; pwd"),
    ("{ echo a; echo b; } > out.txt", "{ echo a; echo b; } > out.txt"),
    ("```bash\nI cannot help with that\n```", None),
    ("```bash\nReplace FILE with your file name\n```", None),
    ("```bash\nmake sure the file exists first\n```", None),
    ("kill the process first by finding its PID", None),
    ("sort the output by size and take the top ten", None),
    ("mv the files by hand", None),
    ("join us on discord", None),
    ("rm it manually", None),
    ("(run as root)", None),
    ("(This requires root)", None),
    ("(cd src && make)", "(cd src && make)"),
    ("```bash\nfor f in *.txt; do\n  echo \"$f\"\ndone\necho after\n```", "for f in *.txt; do\n  echo \"$f\"\ndone"),
    ("```fish\nfor f in a b c\n    echo $f\nend\n```", "for f in a b c\n    echo $f\nend"),
    ("```bash\nif [ -f x ]; then\n  cat x\nfi\n```", "if [ -f x ]; then\n  cat x\nfi"),
    ("yes", None),  # an answer, not the command that says y for ever
    ("echo is not needed here", None),
    ("echo The build is done, go home.", "echo The build is done, go home."),
    ("make clean all", "make clean all"),
    ("ln -s a b", "ln -s a b"),
    ("```bash\nls -la   # list everything\n```", "ls -la   # list everything"),
    ("git commit -am 'Update the readme, add examples.'", "git commit -am 'Update the readme, add examples.'"),
    ("export is not needed here; just run it.", None),
])
def test_first_command(answer, command):
    assert first_command(answer) == command


def test_the_steps_where_the_user_named_the_model_are_the_chains_own():
    from conv.home.config import Config
    from conv.providers.choice import USER_NAMED, chain

    sources = [step.source for step in chain(Config())]
    assert set(USER_NAMED) <= set(sources) and "the conversation's model" not in USER_NAMED


def test_the_users_shells_fence_comes_first():
    answer = "```fish\nfor f in *.png; echo $f; end\n```\n```bash\nfor f in *.png; do echo $f; done\n```"
    assert first_command(answer, "bash") == "for f in *.png; do echo $f; done"
    assert first_command(answer, "fish") == "for f in *.png; echo $f; end"
    assert first_command(answer) == "for f in *.png; echo $f; end"


def test_conv_cmd_prints_the_command_alone_and_keeps_the_whole_answer(fake):
    fake.set(reply=FENCED)
    done = ok("cmd", "--shell", "zsh", "find", "big", "files")
    assert done.stdout.decode() == "find . -size +100M -mtime -7\n"
    system, question = fake.requests[0]["messages"]
    assert system["role"] == "system" and "one zsh command for Linux" in system["content"]
    assert question == {"role": "user", "content": "find big files"}
    shown = json.loads(ok("show", "--json", json.loads(ok("list", "--json").stdout)[0]["id"]).stdout)
    assert shown["turns"][-1]["content"] == FENCED


def test_a_second_description_refines_the_command_and_ask_c_is_not_drawn_in(fake):
    env = {"CONV_SESSION": "term1"}
    fake.set(reply="ls -la")
    first = json.loads(ok("cmd", "--json", "--shell", "bash", "list files", env=env).stdout)
    assert first["command"] == "ls -la" and first["answer"] == "ls -la" and first["model"].startswith("openai:")
    fake.set(reply="ls -laR")
    second = json.loads(ok("cmd", "--json", "make it recursive", env=env).stdout)
    assert second["conversation"] == first["conversation"]
    assert [(m["role"], m["content"]) for m in fake.requests[1]["messages"][1:]] == [
        ("user", "list files"), ("assistant", "ls -la"), ("user", "make it recursive")]

    ok("ask", "-c", "an unrelated question", env=env)
    assert [m["content"] for m in fake.requests[2]["messages"]] == ["an unrelated question"]
    ok("cmd", "one for another terminal", env={"CONV_SESSION": "term2"})
    assert len(fake.requests[3]["messages"]) == 2  # a system prompt and the description: a new conversation


def test_a_deleted_command_conversation_starts_a_new_one(fake):
    fake.set(reply="ls")
    first = json.loads(ok("cmd", "--json", "list files").stdout)
    ok("delete", first["conversation"])
    second = json.loads(ok("cmd", "--json", "list files again").stdout)
    assert second["conversation"] != first["conversation"]
    assert fake.requests[1]["messages"][0]["role"] == "system"


def test_the_shell_defaults_to_the_users(fake):
    fake.set(reply="ls")
    ok("cmd", "list files", env={"SHELL": "/usr/bin/fish"})
    ok("cmd", "list files", env={"SHELL": "/opt/odd/xonsh", "CONV_SESSION": "other"})
    assert "one fish command" in fake.requests[0]["messages"][0]["content"]
    assert "one sh command" in fake.requests[1]["messages"][0]["content"]


def test_bad_input_is_one_line_and_nothing_is_asked(fake):
    assert "nothing to turn into a command" in fails("cmd", "  ", code=2)
    assert "--shell zsh, bash, fish, sh" in fails("cmd", "--shell", "tcsh", "list files", code=2)
    assert fake.requests == []


def test_an_answer_with_no_command_is_an_error_and_kept(fake):
    fake.set(reply="```\n\n```")
    line = fails("cmd", "do nothing")
    assert "no command" in line
    [conv] = json.loads(ok("list", "--json").stdout)
    assert conv["turns"] == 3


def test_an_answer_without_a_command_puts_nothing_in_the_line(fake, store_path):
    fake.set(reply="I cannot help with that.")
    done = fails("cmd", "find files over 100 MB changed this week", code=1)
    assert "the answer holds no command" in done and "I cannot help with that." in done
    done = run_conv("cmd", "again")
    assert done.stdout == b"" and done.returncode == 1  # the plugins leave the line as typed
    shown = json.loads(ok("show", "--json", json.loads(ok("list", "--json").stdout)[0]["id"]).stdout)
    assert shown["turns"][-1]["content"] == "I cannot help with that."  # the answer is kept


def test_the_model_is_the_one_the_user_set_now_and_named_when_none_was(fake):
    """As --help says: -m, then CONV_MODEL, then config; never the command
    conversation's last model, and conv clear starts it over."""
    fake.set(reply="ls")
    assert json.loads(ok("cmd", "--json", "list", env={"CONV_MODEL": "gpt-4o"}).stdout)["model"] == "openai:gpt-4o"
    again = json.loads(ok("cmd", "--json", "list more", env={"CONV_MODEL": "fake-model"}).stdout)
    assert again["model"] == "openai:fake-model"
    ok("config", "set", "model", "gpt-4o-mini")
    third = json.loads(ok("cmd", "--json", "list all").stdout)
    assert third["model"] == "openai:gpt-4o-mini" and third["conversation"] == again["conversation"]
    ok("config", "unset", "model")
    said = ok("cmd", "list it all").stderr.decode()
    assert "openai:gpt-4o-mini answered (chosen by OPENAI_BASE_URL" in said or "answered (chosen by" in said
    ok("clear")
    assert json.loads(ok("cmd", "--json", "list").stdout)["conversation"] != third["conversation"]
