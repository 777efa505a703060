"""Asking a model: the pipeline that ``conv ask``, ``conv retry`` and
``conv chat`` share (pipeline.py), and what it draws on: agents, the context
budget and its summary, and the cost of an answer."""
