"""Each source's sample (``samples/<tool>.py``'s ``SAMPLE``), found by the registry's names: a source without
one fails test_every_source.py."""

import importlib

from conv import sources


def sample(name: str):
    """The sample of the source ``name`` (None: it has none)."""
    try:
        return importlib.import_module(f"{__name__}.{name.replace('-', '_')}").SAMPLE
    except ModuleNotFoundError:
        return None


SAMPLES = {name: found for name in sources.NAMES if (found := sample(name)) is not None}
