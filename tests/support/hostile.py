"""A hostile peer's text, and what of it reached a victim's real terminal (`support.pty_term`) (tests and bench).

Each payload is a control sequence a terminal would obey, followed by a
printable marker. A victim is safe when no payload's control bytes reach its
terminal, and the marker does (so the text was shown, only defused).
"""

from __future__ import annotations

import sys

ESC, BEL, ST = "\x1b", "\x07", "\x1b\\"

# name -> (payload, the bytes that must never reach the victim, the marker that must). For markup
# the harm is interpretation: it is safe when the marker, brackets and all, shows literally.
PAYLOADS: dict[str, tuple[str, bytes | None, bytes]] = {
    "OSC 0 title": (f"{ESC}]0;PWNTITLE{BEL}", b"\x1b]0;PWNTITLE", b"PWNTITLE"),
    "OSC 8 link": (f"{ESC}]8;;http://evil.example/{ST}LINKTEXT{ESC}]8;;{ST}", b"\x1b]8;;http://evil", b"LINKTEXT"),
    "OSC 52 clipboard": (f"{ESC}]52;c;cm0gLXJmIH4K{BEL}", b"\x1b]52;c;cm0g", b"cm0gLXJmIH4K"),
    "CSI 2J wipe": (f"{ESC}[2JWIPED", b"\x1b[2JWIPED", b"WIPED"),
    "CSI 21t title report": (f"{ESC}[21tREPORT", b"\x1b[21tREPORT", b"REPORT"),
    "C1 CSI (8-bit)": ("\x9b2JC1WIPE", "\x9b2J".encode(), b"C1WIPE"),
    "C1 OSC (8-bit)": ("\x9d0;C1TITLE\x9c", "\x9d0;".encode(), b"C1TITLE"),
    "bidi override": ("\u202eDIBIREVO\u202c", "\u202e".encode(), b"DIBIREVO"),
    "bidi isolate": ("\u2066ISOLATE\u2069", "\u2066".encode(), b"ISOLATE"),
    "Rich markup": ("[bold red]MARKUP[/]", None, b"[bold red]MARKUP[/]"),
    "Textual link markup": ("[link='http://x.example']MLINK[/link]", None, b"[link='http://x.example']MLINK[/link]"),
}

EVIL_NAME = f"{ESC}]0;PWNTITLE{BEL}\u202eEvil[b]"  # 40 characters at most on the wire


def reached(data: bytes) -> dict[str, tuple[int, bool]]:
    """Per payload: (times it took effect in the terminal's bytes, whether its marker was shown).

    Control payloads take effect when their control bytes arrive; markup when it is
    interpreted, i.e. when its literal text (the marker) does not arrive."""
    out = {}
    for name, (_, bad, marker) in PAYLOADS.items():
        shown = marker in data
        out[name] = (data.count(bad) if bad is not None else int(not shown), shown)
    return out


def cthulhu(*args: str) -> list[str]:
    return [sys.executable, "-m", "cthulhu.cli", *args]
