"""What ``conv mcp`` offers, as the protocol declares it: its tools' schemas
(the arguments each takes, checked by mcp._checked) and its resources'
template; the protocol itself is mcp.py."""

from ...services.tools import NAMES

FILTERS = {
    "here": {"type": "string", "maxLength": 4096,
             "description": "A folder of a git project: only that project's conversations (e.g. the current working "
                            "directory)."},
    "source": {"type": "string", "maxLength": 100,
               "description": f"Only those from this tool: {', '.join(n for n in NAMES if n != 'conv')}, "
                              "or conv for conv's own."},
    "since": {"type": "string", "maxLength": 100,
              "description": "Updated within an age (7d, 12h) or since a date (2026-11-01)."},
    "model": {"type": "string", "maxLength": 1000, "description": "Only those a model of this name answered in."},
    "tag": {"type": "string", "maxLength": 1000, "description": "Only those with this tag."},
}
READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
TOOLS = [
    {"name": "search", "title": "Search past conversations",
     "description": "Search every turn of the user's past conversations (with models and coding agents), the "
                    "best conversation first. Ask as you would ask a person (a question in a sentence works): "
                    "conversations holding every word come first, then those holding most of the rare ones; other "
                    "word forms match (retry, retries), \"quoted words\" must be side by side. "
                    "Each hit names the conversation (id, title, date, source, project, model) and its best turn "
                    "(turn_number), with a short snippet; read one with show.",
     "inputSchema": {"type": "object", "properties": {
         "query": {"type": "string", "maxLength": 1000,
                   "description": "What to find: a question or words (\"quoted words\" side by side; a * is no "
                                  "prefix here)."},
         **FILTERS,
         "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10}},
         "required": ["query"], "additionalProperties": False},
     "annotations": READ_ONLY},
    {"name": "show", "title": "Read a past conversation",
     "description": "The turns of one past conversation (an id or short id from search or list), the latest "
                    "last; long turns are cut and, past about 24,000 characters, the earliest turns left out "
                    "(said in left_out).",
     "inputSchema": {"type": "object", "properties": {
         "id": {"type": "string", "maxLength": 100, "description": "The conversation's id or short id."},
         "last": {"type": "integer", "minimum": 1, "description": "Only its last N turns."},
         "before": {"type": "integer", "minimum": 0, "description": "Leave out its last N turns first (to read "
                                                                     "earlier ones, as left_out says)."}},
         "required": ["id"], "additionalProperties": False},
     "annotations": READ_ONLY},
    {"name": "list", "title": "List recent conversations",
     "description": "The user's most recently updated conversations, newest first, with the same filters as "
                    "search.",
     "inputSchema": {"type": "object", "properties": {
         **FILTERS, "limit": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}},
         "additionalProperties": False},
     "annotations": READ_ONLY},
    {"name": "origin", "title": "Which conversation wrote this code",
     "description": "Where code of a git project came from: for a file (and lines), each run of lines with the "
                    "commit git blame gives and the conversation and turn whose edit wrote that text (read it with "
                    "show, then); for a commit or a range A..B, the conversations that wrote its added lines, with "
                    "how many each, and the lines none wrote. A line no conversation wrote says why when it can.",
     "inputSchema": {"type": "object", "properties": {
         "file": {"type": "string", "maxLength": 4096, "description": "A file of the project, as an absolute path."},
         "lines": {"type": "string", "maxLength": 40, "description": "Only these lines of the file: 10-20, or 10."},
         "commit": {"type": "string", "maxLength": 400, "description": "Instead of a file: a commit (HEAD, a sha) "
                                                                      "or a range A..B."},
         "folder": {"type": "string", "maxLength": 4096,
                    "description": "With commit: a folder of the project, as an absolute path (default: the "
                                   "folder conv mcp runs in)."}},
         "additionalProperties": False},
     "annotations": READ_ONLY},
]

TEMPLATES = [{"uriTemplate": "conv://{id}", "name": "conversation", "title": "A past conversation",
              "description": "One of the user's past conversations by its id or short id (from search or list), "
                             "as Markdown: the newest turns, masked as conv share masks them.",
              "mimeType": "text/markdown"}]
