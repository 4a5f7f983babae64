"""Small grammar for the sentences the interface builds: counts, articles, lists.

Every mode's Log and prompt bar words things through these, so "1 wound",
"2 wounds", "2 stress", "a Cultist", "an Elder Thing" and "Hastur" (a proper
name, no article) come out right in one place.
"""

from __future__ import annotations

from collections.abc import Iterable

UNCOUNTABLE = frozenset({"stress", "sanity", "Delirium", "Chaos"})
IRREGULAR = {"die": "dice", "Cthulhu Die": "Cthulhu Dice", "bonus die": "bonus dice", "success": "successes"}


def plural_of(word: str) -> str:
    """'wound' -> 'wounds', 'success' -> 'successes', 'die' -> 'dice', 'stress' -> 'stress'."""
    if word in UNCOUNTABLE:
        return word
    if word in IRREGULAR:
        return IRREGULAR[word]
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and len(word) > 1 and word[-2].lower() not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def plural(n: int, word: str) -> str:
    """'1 wound', '2 wounds', '0 wounds', '3 stress'."""
    return f"{n} {word if n == 1 else plural_of(word)}"


NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def spoken_count(n: int, word: str) -> str:
    """'no successes', 'one tentacle', 'three successes' (digits past twelve): as a voice says a count."""
    number = NUMBER_WORDS[n] if 0 <= n < len(NUMBER_WORDS) else str(n)
    return f"{number} {word if n == 1 else plural_of(word)}"


def a(name: str) -> str:
    """'a Cultist', 'an Elder Thing'."""
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


def the(name: str, proper: bool = False) -> str:
    """'the Cultist'; a proper name ('Hastur') as it is."""
    return name if proper else f"the {name}"


def cap(sentence: str) -> str:
    """The first letter in upper case, the rest as it is ('the Cultist ...' -> 'The Cultist ...')."""
    return sentence[:1].upper() + sentence[1:]


def and_list(items: Iterable[str]) -> str:
    """'A', 'A and B', 'A, B and C'."""
    items = [i for i in items if i]
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def possessive(name: str) -> str:
    """"Ada Whitlock's", "Silas Keel's", "the Cultists'"."""
    return name + ("'" if name.endswith("s") and name[:1].islower() else "'s")
