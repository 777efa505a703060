"""The embedded offline model: llama.cpp on a GGUF file, with no key, no
server to run and no network once set up.

By default SmolLM2-135M-Instruct, fetched by ``conv models pull``
(model.py); ``local:/path/to/model.gguf`` or ``local.model`` in config runs
any other. llama.cpp runs in a host process of its own (host.py, started and
found by hosting.py), not in conv's: it stays loaded between questions, and
if it crashes, conv is still there to keep what came and say so. conv speaks
to it as to any OpenAI-compatible server (openai.py), over a Unix socket.
"""

from pathlib import Path

from ...errors import ProviderError
from ...home.config import Config
from ...records import dataclass
from .. import Message, OnText, Reply
from ..httpapi import Hints
from .model import DEFAULT_MODEL, model_path, runtime_installed

REPEAT_PENALTY = 1.1  # llama.cpp's default is none, and a 135M model then loops on one line
HINTS = Hints(key="the local model's key file", url="local.model", example="local:/path/to/model.gguf",
              where="The local model's process did not answer: try again", api="llama.cpp's server")


@dataclass
class LocalProvider:
    config: Config
    name: str = "local"

    @classmethod
    def from_config(cls, config: Config) -> "LocalProvider":
        return cls(config)

    OPTIONS = ("temperature", "top_p", "seed", "max_tokens", "stop")  # llama.cpp's server reads these names
    IMAGES = False  # SmolLM2 and GGUF text models see none (a vision model needs its projector: not set up here)

    def complete(
        self, messages: list[Message], model: str, on_text: OnText, stream: bool = True, options: dict | None = None,
    ) -> Reply:
        from . import hosting

        path = self._file(model)
        sent = list(messages)
        if self._ships_persona(model) and not any(m.role == "system" for m in messages):
            sent.insert(0, Message("system", ""))
        came = []

        def receive(text: str) -> None:
            came.append(text)
            on_text(text)

        for attempt in (1, 2):
            host = hosting.start(path, self.config)
            try:
                reply = self._client(host).complete(sent, model, receive, stream, options)
            except ProviderError as exc:
                if "context size" in exc.message:
                    raise ProviderError(f"the local model cannot take this conversation ({exc.message})",
                                        "Send less: conv config set context.max_tokens 1500 "
                                        "(or raise local.context)") from None
                if not host.gone():
                    raise
                if came or attempt == 2 or host.fatal_signal():
                    raise host.died(str(path), "while answering" if came else "before answering") from None
                continue  # it ended as it was asked, out of use: a new one answers
            reply.model = model  # llama.cpp names the file
            return reply
        raise AssertionError("unreachable")

    def _client(self, host):
        from ..openai import OpenAIProvider

        options = {"max_tokens": self.config.get("local.max_answer"), "repeat_penalty": REPEAT_PENALTY}
        return OpenAIProvider(host.url, host.key(), self.config.get("timeout.connect"), self.config.get("timeout.read"),
                              name=self.name, hints=HINTS, options=options)

    def _file(self, model: str) -> Path:
        if not runtime_installed():
            from ...home.install import local_model_command

            raise ProviderError("the local model needs xllamacpp (llama.cpp's prebuilt wheel), which is not installed",
                                f"Install it: {local_model_command()}")
        path = model_path(model, self.config)
        if path is None:
            raise ProviderError("the local model's file is not here yet", "Fetch it (98 MB, once): conv models pull")
        if not path.is_file():
            raise ProviderError(f"no GGUF model at {path}", "Give a GGUF file: -m local:/path/to/model.gguf")
        return path

    def _ships_persona(self, model: str) -> bool:
        """Whether the model is the SmolLM2 conv offers, whose chat template puts
        its stock persona ("You are a helpful AI assistant named SmolLM,
        trained by Hugging Face") before a conversation without a system
        prompt: 16 of the 37 tokens of a one-line question, the first byte's
        time to evaluate. conv sends an empty system prompt to it instead (an
        agent's prompt replaces the persona anyway). Other GGUF files keep
        their templates' defaults: some refuse a system message."""
        return model == DEFAULT_MODEL and not self.config.get("local.model")
