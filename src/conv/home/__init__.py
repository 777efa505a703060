"""What conv keeps on this machine outside the store, under ``CONV_HOME`` or
the OS's folders: where things live (paths.py), the settings file
(config.py) and the settings it may hold (keys.py), settings in the
environment (env.py), each terminal's current conversation (session.py), and files
written whole or not at all (files.py)."""
