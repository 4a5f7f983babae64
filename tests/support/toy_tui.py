"""The toy mode's interface, added by files only: it registers itself with the interface registry."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from support import net_toy  # noqa: F401  (the core half registers itself)
from cthulhu.tui.modes import TuiMode, register, unregister


def _map(view: Any, width: int, ascii_only: bool) -> Text:
    return Text(f"Deck: {view['deck']['size']} cards   Played: {', '.join(view['played']) or 'none'}")


def _hands(view: Any, width: int) -> Text:
    return Text("\n".join(f"Seat {h['seat'] + 1}: {h['count']} cards" + (f" ({', '.join(h['cards'])})" if "cards" in h else "")
                          for h in view["hands"]))


TELLERS = {
    "dealt": lambda e: ("story", f"Each of {e['cards']} seats is dealt a card."),
    "drew": lambda e: ("good", f"Seat {e['seat'] + 1} draws a card."),
    "rolled": lambda e: ("dice", f"Seat {e['seat'] + 1} rolls a {e['face']}."),
    "played": lambda e: ("good", f"Seat {e['seat'] + 1} plays {e['card']}."),
}

TUI = TuiMode(
    name="toy",
    map=_map,
    story=lambda view, width: Text(f"Score {view['score']} of {view['goal']}"),
    people=_hands,
    tell=lambda ev, view: TELLERS[ev["type"]](ev),
    labels=lambda prompt, view, width: ([o["label"].replace("Play ", "") for o in prompt["options"]], ""),
    dice=lambda view, width: None,
    title=lambda view: "Toy",
    whose_turn=lambda view: f"Seat {view['turn'] % len(view['hands']) + 1}",
    summary=lambda view: Text(f"\nScore {view['score']}"),
    help=lambda content, view, options: [("", "Draw or play; play the goal's cards (eight, or four in a short game) before the deck runs out.")],
)


def install() -> None:
    register(TUI)


def uninstall() -> None:
    unregister("toy")
