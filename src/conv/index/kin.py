"""Words of one family that the Porter stemmer leaves apart: "decide" and
"decision" stem to "decid" and "decis", so "what did we decide about the
webhook retries?" missed the conversation that states the webhook decision.
A query's word is searched with its kin (the index stays as it is); a rule
that pairs a word with one English lacks only costs a term nothing holds."""

# (the verb's ending, the noun's): decide/decision, include/inclusion, explode/explosion,
# describe/description, resolve/resolution, receive/reception, extend/extension, expand/expansion
_PAIRS = (("ide", "ision"), ("ude", "usion"), ("ode", "osion"), ("ribe", "ription"), ("olve", "olution"),
          ("eive", "eption"), ("end", "ension"), ("and", "ansion"))
_INFLECTED = ("ing", "ed", "es", "s", "d", "")  # a verb's endings, tried longest first
STEM_LEAST = 3  # letters before the ending: "pension" is no p-end, "tension" no t-end, "side" no s-ide


def kin(word: str) -> list[str]:
    """The other members of ``word``'s family (lower case), none when it has none here."""
    word = word.lower()
    for verb, noun in _PAIRS:
        for ending in (noun + "s", noun):
            if word.endswith(ending) and len(word) >= len(ending) + STEM_LEAST:
                return [word[: -len(ending)] + verb]
    for ending in _INFLECTED:
        if not word.endswith(ending):
            continue
        base = word[: len(word) - len(ending)]
        for stem in (base, base + "e"):  # "deciding": decid, decide
            for verb, noun in _PAIRS:
                if stem.endswith(verb) and len(stem) >= len(verb) + STEM_LEAST:
                    return [stem[: -len(verb)] + noun]
    return []
