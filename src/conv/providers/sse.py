"""Server-Sent Events, read line by line from a streaming response: the
framing both OpenAI's and Anthropic's streaming APIs use."""

from collections.abc import Iterator


def events(response) -> Iterator[tuple[str, str]]:
    """(event type, data) for each event as it completes; an event cut off by
    the end of the stream is still given, so the caller can judge it."""
    kind, data = "", []
    while True:
        raw = response.readline()
        if not raw:
            break
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
        elif line.startswith("event:"):
            kind = line[6:].strip()
        elif not line and data:
            yield kind, "\n".join(data)
            kind, data = "", []
        # other fields, comments and keep-alive blank lines carry nothing
    if data:
        yield kind, "\n".join(data)
