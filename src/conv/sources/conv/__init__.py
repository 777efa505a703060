"""conv itself: a file ``conv export --format json`` wrote, kept whole (reader.py)."""

from ..contract import Source

SOURCE = Source("conv", "conv", __name__)
