"""Worker processes for reading many files at once (an index build, an
import: parsing is most of either): forked where that is safe (Linux), fresh
interpreters elsewhere. They ignore Ctrl-C: the process that started them
hears it, and stops them."""

import os
import signal
import sys

MAX_WORKERS = 4  # more would outrun the one process that writes what they read


def workers():
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    return ProcessPoolExecutor(min(MAX_WORKERS, os.cpu_count() or 1), context, initializer=_deaf_to_ctrl_c)


def _deaf_to_ctrl_c() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
