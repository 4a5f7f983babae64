"""The reference for `serve_figures.py`: a minimal Textual app, served by the same doors as the game.

    python -m serve_minimal      (with bench/ on PYTHONPATH; the doors' visitors run it)

One line of text and nothing else: what any Textual app costs to start and to keep."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static

MARKER = "Minimal app: first frame"


class Minimal(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(MARKER)


if __name__ == "__main__":
    Minimal().run()
