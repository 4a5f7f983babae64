"""The game screen's header line, fitted to the terminal: what a player needs is never cut.

The pieces come in the order they are read; each has a rank. When the line is wider than the
terminal, the pieces of the highest rank go first (the last of them first), until it fits: the
table's address words before the step, the seed and the mode's title; the turn, the clock and
the table's code (what a friend must be told to join) never.
"""

from __future__ import annotations

from rich.text import Text

KEEP = 0  # a piece never dropped


def fitted(pieces: list[tuple[str, str, int]], width: int) -> Text:
    """`pieces` as (text, style, rank), in order; the ones that do not fit dropped, highest rank first."""
    shown = list(pieces)
    while sum(len(text) for text, _, _ in shown) > width:
        droppable = [n for n, (_, _, rank) in enumerate(shown) if rank != KEEP]
        if not droppable:
            break
        worst = max(droppable, key=lambda n: (shown[n][2], n))
        del shown[worst]
    out = Text()
    for text, style, _ in shown:
        out.append(text, style=style)
    return out


def label_pieces(label: str) -> list[tuple[str, str, int]]:
    """What the header calls the table ("hosting on port 7777, code owl-moth"), its code kept whole
    and apart from the words that may go."""
    out = []
    for n, part in enumerate(label.split(", ")):
        code = part.startswith("code ")
        out.append((("  " if n == 0 else ", ") + part if not code else f"  {part}", "dim", KEEP if code else 4))
    return out
