"""``conv serve``: a read-only web viewer of the whole store, on the loopback
address only. ``server.py`` is the HTTP side (the standard library's
threading server, the checks every request passes: its Host and Origin, the
token printed at start then kept in a cookie; GET only; the live feed of the
store's head), ``pages.py`` the pages (every conversation, search, one
conversation, its versions and diffs, the stats), ``markup.py`` a turn's
Markdown made HTML that runs nothing, ``static/`` the page's one stylesheet
and one script (a Content-Security-Policy forbids any other). What a page
shows is masked as conv share masks it."""
