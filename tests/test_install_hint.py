"""The command conv gives for adding the local model fits the install it
runs from (issue 14, part 5): conv is on no package index, so
``pip install 'conv-git[local]'`` never works. The runtime comes first,
then ``conv models pull`` for the model file (issue 22). Real virtual environments
laid out as pip, pipx and uv make them, conv installed into each."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ASK = "from conv.home.install import local_model_command; print(local_model_command())"


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A venv with conv installed by pip (once: a pip install is 10 s here)."""
    venv = tmp_path_factory.mktemp("pip") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--no-deps",
                    "--disable-pip-version-check", "-e", str(ROOT)], check=True, capture_output=True)
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
