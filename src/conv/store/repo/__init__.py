"""Git plumbing, apart from what the store keeps in it: objects written in
git's formats (loose or in a pack) through a quarantine the pre-commit hook
judges, trees read a directory at a time, the branch moved by
compare-and-swap under conv's writer lock, hooks run, and transfers to and
from remotes (the git CLI, or dulwich without it). ``git.GitStore`` is the
repository; nothing here knows what a conversation is, and
tests/test_architecture.py holds this package to importing nothing else of
the store."""
