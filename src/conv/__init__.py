"""conv: a git-native store for LLM conversations, driven from the shell."""

__version__ = "0.1.0"
