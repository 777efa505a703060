"""A fenced code block around any text: the fence is longer than every run of
backticks in the text, so nothing inside can close it early."""


def fenced(text: str, info: str = "") -> str:
    longest = run = 0
    for c in text:
        run = run + 1 if c == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text.rstrip(chr(10))}\n{fence}"
