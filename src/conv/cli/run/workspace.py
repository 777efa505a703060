"""The workspace a person's command runs in, Typer's or the fast path's:
what the background has to say is said as it opens (services/capture.py)."""


def workspace():
    from ...services.catch_up import on_command
    from ...services.workspace import Workspace
    from ...terminal.render import notice

    ws = Workspace(notice)
    on_command(ws)  # what the agents' captures have to say; the catch-up (import.auto)
    return ws
