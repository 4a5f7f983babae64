"""The app's color themes, each readable at every color depth a terminal may have.

Every theme keeps text and tokens at a contrast of 4.5:1 or more in true color, in
256 colors and in 16 colors (`tests/tui/test_tui_contrast.py` renders the screens and
measures). That is why the backgrounds are near black (in 16 colors they become
black, never the grey that sinks light text), and why the sixteen named colors the
panes use are the VGA ones Rich picks from when it has only sixteen: a named color
looks the same at every depth. `ansi` leaves the colors to the terminal itself; as
terminals draw faint text as they please, that theme sends no faint (dim) text.
"""

from __future__ import annotations

from rich._palettes import STANDARD_PALETTE
from rich.terminal_theme import TerminalTheme
from textual.theme import Theme

# The sixteen named colors in true color: exactly the ones Rich matches to in 16 colors.
VGA = TerminalTheme(
    STANDARD_PALETTE[0],
    STANDARD_PALETTE[7],
    [STANDARD_PALETTE[n] for n in range(8)],
    [STANDARD_PALETTE[n] for n in range(8, 16)],
)

DARK = Theme(
    name="dark",
    dark=True,
    primary="#1f5fbf",
    secondary="#3f6fa0",
    accent="#ffd75f",
    warning="#ffd75f",
    error="#ff5f5f",
    success="#5fd787",
    foreground="#e6e6e6",
    background="#0c0c0c",
    surface="#141414",
    panel="#1a1f26",
    variables={
        "text-muted": "#a8a8a8",
        "text-disabled": "#8a8a8a",
        "foreground-muted": "#a8a8a8",
        "footer-background": "#1a1f26",
        "footer-key-foreground": "#ffd75f",
        "footer-description-foreground": "#e6e6e6",
        "block-cursor-foreground": "#ffffff",
        "block-cursor-background": "#0f2f8f",
        "block-cursor-blurred-foreground": "#ffffff",
        "block-cursor-blurred-background": "#0f2f8f",
        "input-selection-background": "#0f2f8f",
        "input-selection-foreground": "#ffffff",
        "input-cursor-background": "#e6e6e6",
        "input-cursor-foreground": "#0c0c0c",
        "scrollbar": "#1f4f8f",
        "scrollbar-hover": "#1f5fbf",
        "scrollbar-active": "#3f7fdf",
        "scrollbar-background": "#0c0c0c",
        "text-primary": "#87afff",
        "text-accent": "#ffd75f",
        "text-warning": "#ffd75f",
        "text-error": "#ff8787",
        "text-success": "#87d7af",
    },
)

ANSI = Theme(
    name="ansi",
    dark=True,
    ansi=True,  # colors go out as the terminal's own, not converted to true color
    primary="ansi_blue",
    secondary="ansi_cyan",
    accent="ansi_bright_yellow",
    warning="ansi_bright_yellow",
    error="ansi_bright_red",
    success="ansi_bright_green",
    foreground="ansi_default",
    background="ansi_default",
    surface="ansi_default",
    panel="ansi_default",
    boost="ansi_default",
    variables={
        "ansi-background": "ansi_black",
        "ansi-foreground": "ansi_white",
        "text-muted": "ansi_default",
        "text-disabled": "ansi_default",
        "foreground-muted": "ansi_default",
        "border-blurred": "ansi_black",
        "footer-background": "ansi_default",
        "footer-key-foreground": "ansi_bright_yellow",
        "footer-description-foreground": "ansi_default",
        "block-cursor-foreground": "ansi_black",
        "block-cursor-background": "ansi_white",
        "block-cursor-blurred-foreground": "ansi_black",
        "block-cursor-blurred-background": "ansi_white",
        "input-cursor-background": "ansi_white",
        "input-cursor-foreground": "ansi_black",
        "input-cursor-text-style": "none",
        "input-selection-background": "ansi_white",
        "input-selection-foreground": "ansi_black",
        "screen-selection-background": "ansi_white",
        "screen-selection-foreground": "ansi_black",
        "text-primary": "ansi_bright_cyan",
        "text-accent": "ansi_bright_yellow",
        "text-warning": "ansi_bright_yellow",
        "text-error": "ansi_bright_red",
        "text-success": "ansi_bright_green",
    },
)

THEMES = {theme.name: theme for theme in (DARK, ANSI)}  # cli.common.THEME_NAMES lists them for the command line
