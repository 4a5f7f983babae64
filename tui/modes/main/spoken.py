"""The main game's glyphs put in words, for the reader mode (a screen reader says "[*T]" as
"left bracket star T"): a die's face as "success and tentacle", a roll's dice as their totals and
then each die, and the summoning track as the space the Elder One stands on.

Every pattern is one the panes and the narrator draw (`dice.GLYPHS`, `panes.summoning_track`), so
nothing else is touched: faces stand alone in brackets, and no name is made of them.
"""

from __future__ import annotations

import re

from ...english import and_list, spoken_count
from .dice import GLYPHS

WORDS = {glyph: word for word, glyph in (("success", GLYPHS["success"]), ("tentacle", GLYPHS["tentacle"]),
                                        ("elder sign", GLYPHS["elder"]), ("blank", GLYPHS[""]))}
_LETTERS = "".join(WORDS)
_FACE = f"[{re.escape(_LETTERS + _LETTERS.lower())}]+"
_DIE = re.compile(rf"(:?)\[({_FACE})\]")
_DICE = re.compile(rf"\[{_FACE}\](?: \[{_FACE}\])+")
_COUNTED = re.compile(r", \d+ success")  # a kept roll's dice, followed by its own totals
_SUMMONING = re.compile(r"(?<![\w\[])((?:\[?\d+\]?!? ){2,}\[?\d+\]?!)")


def face_words(glyph: str) -> str:
    """'*T' -> 'success and tentacle'; a bonus die's (lower case) -> 'bonus success'."""
    words = " and ".join(WORDS.get(g, g) for g in glyph.upper())
    return f"bonus {words}" if glyph != glyph.upper() else words


def dice_words(faces: list[str]) -> str:
    """['*', '*T', '-'] -> 'two successes and one tentacle (die 1: success; die 2: success and tentacle; die 3: blank)'."""
    symbols = "".join(faces).upper()
    totals = [spoken_count(symbols.count(GLYPHS["success"]), "success"), spoken_count(symbols.count(GLYPHS["tentacle"]), "tentacle")]
    if GLYPHS["elder"] in symbols:
        totals.append(spoken_count(symbols.count(GLYPHS["elder"]), "elder sign"))
    each = "; ".join(f"die {n}: {face_words(face)}" for n, face in enumerate(faces, 1))
    return f"{and_list(totals)} ({each})"


def _summoning(found: re.Match[str]) -> str:
    cells = found.group(1).split()
    at = next((n for n, cell in enumerate(cells, 1) if cell.startswith("[")), None)
    return f"space {at} of {len(cells)}" if at is not None else f"off the track (spaces 1 to {len(cells)})"


def spoken(line: str) -> str:
    """`line` with every roll, die face and the summoning track in words."""
    line = _SUMMONING.sub(_summoning, line)
    kept = _DICE.search(line)
    if kept is not None and _COUNTED.match(line, kept.end()):  # 'keeps the dice: [*] [T], 1 success and 1 tentacle.'
        line = line[:kept.start()] + line[kept.end() + 2:]
    line = _DICE.sub(lambda m: dice_words(re.findall(r"\[([^\]]+)\]", m.group(0))), line)
    return _DIE.sub(lambda m: (": " if m.group(1) else "") + face_words(m.group(2)), line)
