"""Everything that reaches a person's terminal: printing text, tables, JSON
and Markdown (render.py), keeping escape sequences out of it (sanitize.py),
signals while the terminal is held (signals.py), and the fuzzy picker
(picker.py). Nothing here reads the store or calls a model."""
