"""conv itself: a file ``conv export --format json`` wrote, kept whole (reader.py)."""

from ..contract import Source

SOURCE = Source("conv", "conv's own JSON export", __name__)
