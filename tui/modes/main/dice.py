"""Dice as faces: each symbol one letter or sign, so they read the same in ASCII and over SSH."""

from __future__ import annotations

from typing import Any

from rich.text import Text

GLYPHS = {"success": "*", "tentacle": "T", "elder": "E", "": "-"}
STYLES = {"success": "bold green", "tentacle": "bold bright_magenta", "elder": "bold bright_yellow", "": "dim"}
LEGEND = "* success  T tentacle  E elder sign  - blank  (lower case: bonus)"


def face_glyph(kind: str, face: str) -> str:
    """'success+tentacle' -> '*T'; bonus dice in lower case where that differs."""
    symbols = [s for s in face.split("+") if s] or [""]
    glyph = "".join(GLYPHS.get(s, s[:1].upper() or "?") for s in symbols)
    return glyph.lower() if kind == "bonus" else glyph


def faces_text(dice: list[Any], ascii_only: bool = True) -> str:
    """Plain '[*] [T] [e*]' for the log."""
    return " ".join(f"[{face_glyph(*_pair(d))}]" for d in dice) or "no dice"


def faces_rich(dice: list[Any], numbered: bool = True) -> Text:
    """Colored faces, numbered so the reroll choices can name them."""
    out = Text()
    for n, d in enumerate(dice):
        kind, face = _pair(d)
        if n:
            out.append("  ")
        if numbered:
            out.append(f"{n + 1}:", style="dim")
        symbols = [s for s in face.split("+") if s] or [""]
        style = STYLES.get(symbols[0], "bold")
        out.append(f"[{face_glyph(kind, face)}]", style=style + (" underline" if kind == "bonus" else ""))
    return out


def _pair(d: Any) -> tuple[str, str]:
    if isinstance(d, (list, tuple)) and len(d) == 2:
        return str(d[0]), str(d[1] or "")
    if isinstance(d, dict):
        return str(d.get("die", "standard")), str(d.get("face", ""))
    return "standard", str(d)
