"""The command conv gives for adding the local model fits the install it
runs from (issue 14, part 5): conv is on no package index, so
``pip install 'conv-git[local]'`` never works. The runtime comes first,
then ``conv models pull`` for the model file (issue 22). Real virtual environments
laid out as pip, pipx and uv make them, conv installed into each."""

import shutil
import subprocess
import sys
import sysconfig
from importlib.metadata import distribution
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ASK = "from conv.home.install import local_model_command; print(local_model_command())"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A venv holding conv as pip installed it into the suite's own venv: the
    editable .pth and the dist-info pip wrote (a venv without pip is made in
    0.2 s; a pip install into it took 12 s of the suite, twice)."""
    venv = tmp_path_factory.mktemp("pip") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    ours = Path(distribution("conv-git").locate_file(""))
    theirs = Path(sysconfig.get_path("purelib", vars={"base": str(venv), "platbase": str(venv)}))
    made = [p for p in ours.iterdir() if p.name.startswith(("conv_git-", "__editable__.conv_git-"))]
    assert any(p.suffix == ".pth" for p in made), f"the suite's conv is not an editable install: {made}"
    for path in made:
        (shutil.copytree if path.is_dir() else shutil.copy2)(path, theirs / path.name)
    return venv


def install_into(venv: Path, installed: Path) -> Path:
    """That install where pipx or uv would have put it: a venv finds its prefix from
    where its python is run, and pip's editable install points at the checkout."""
    shutil.copytree(installed, venv, symlinks=True)
    return venv / "bin" / "python"


@pytest.mark.parametrize("layout", ["venv", "pipx/venvs/conv-git", "uv/tools/conv-git"])
def test_the_local_model_hint_names_this_installs_command(tmp_path, layout, installed):
    python = install_into(tmp_path / "home" / layout, installed)
    said = subprocess.run([str(python), "-c", ASK], check=True, capture_output=True, text=True).stdout.strip()
    runtime = "'xllamacpp<2026.11,>=2026.9.10809'"  # the [local] extra (no xllamacpp in these venvs)
    expected = {
        "venv": f"{python} -m pip install {runtime}",
        "pipx/venvs/conv-git": f"pipx inject conv-git {runtime}",
        "uv/tools/conv-git": f"uv tool install --reinstall --with {runtime} {ROOT}",
    }[layout]
    assert said == expected + " && conv models pull"  # then the model file
