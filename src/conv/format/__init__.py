"""The on-disk format (docs/format.md): conversations and turns as Markdown
files with YAML frontmatter (model.py, frontmatter.py), their ids and turn
names (ids.py), and the one-file transcript ``conv edit`` opens (transcript.py).
Nothing here touches git, the network or the terminal."""
