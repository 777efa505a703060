"""One record per provider, read by everything that needs to know one: which
module answers for it (imported only then), the variables that set it up,
the model it answers with when its key chose it, the bare model names that
mean it, the API it speaks, whether its answers cost nothing, its window when
the model's is not known by name. Adding a provider is a module and a line
here (docs/architecture.md); home/keys.py's RESERVED names them too (home
sits below providers), and a test holds the two alike."""

from ..records import dataclass


@dataclass(frozen=True)
class Record:
    name: str  # the PROVIDER of -m PROVIDER:MODEL
    module: str  # its module in providers/ and the class in it
    cls: str
    key_env: str | None = None  # the environment variable of its API key
    url_env: str | None = None  # the environment variable of its base URL
    url_chooses: bool = False  # that variable alone chooses it (a server of one's own: Ollama, vLLM…)
    base_url: str | None = None  # its base URL when none is set
    default_model: str | None = None  # the model it answers with when its key (or URL) chose it
    prefixes: tuple[str, ...] = ()  # bare model names that mean it: claude-…
    api: str | None = None  # the wire format it speaks: openai or anthropic
    free: bool = False  # its answers cost nothing (a price in config is not looked for)
    window: int | None = None  # what its models read at once, when that is its and not the model's


RECORDS: tuple[Record, ...] = (
    Record("openai", "openai", "OpenAIProvider", key_env="OPENAI_API_KEY", url_env="OPENAI_BASE_URL", url_chooses=True,
           base_url="https://api.openai.com/v1", default_model="gpt-4o-mini", api="openai"),
    Record("ollama", "openai", "OllamaProvider", url_env="OLLAMA_HOST", base_url="http://127.0.0.1:11434",
           api="openai", free=True, window=4_096),  # what an Ollama server loads a model with unless told otherwise
    Record("anthropic", "anthropic", "AnthropicProvider", key_env="ANTHROPIC_API_KEY", url_env="ANTHROPIC_BASE_URL",
           base_url="https://api.anthropic.com", default_model="claude-haiku-4-5", prefixes=("claude",),
           api="anthropic"),
    Record("local", "local", "LocalProvider", free=True),
    Record("cmd", "command", "CommandProvider"),
)
BY_NAME: dict[str, Record] = {record.name: record for record in RECORDS}
