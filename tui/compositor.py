"""The one door to Textual's private API: its frames, and where they leave the app.

The terminal writer (`tui.terminal`) sends only the cells that changed, so it must see each
frame Textual draws: the compositor's updates (`LayoutUpdate` for a whole new layout,
`ChopsUpdate` for repainted regions, both `CompositorUpdate`s) as `App._display(screen,
renderable)` hands them to the driver. Textual has no public API for either. They are
imported here and nowhere else, against the exact Textual the project pins, and
`tests/tui/test_textual_private.py` fails, naming what moved, when an upgrade changes them.
"""

from __future__ import annotations

from textual._compositor import ChopsUpdate, CompositorUpdate, LayoutUpdate

DISPLAY_HOOK = "_display"
"""`App._display(screen, renderable)`: every frame passes here on its way to the terminal."""

__all__ = ["DISPLAY_HOOK", "ChopsUpdate", "CompositorUpdate", "LayoutUpdate"]
