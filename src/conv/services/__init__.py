"""What conv does, apart from how it is asked (cli) and where it keeps things
(store, index, session): each module one verb or family of verbs, returning
results the CLI renders."""
