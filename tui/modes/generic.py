"""The interface of a mode without its own package: every pane as indented 'key: value' lines.

A plug-in mode (or the tests' toy) plays in the app before anyone draws it a
proper layout; nothing here knows any mode.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from cthulhu.core import modes as core_modes

from .tuimode import TuiMode


def generic(name: str) -> TuiMode:
    title = core_modes.get(name).title
    return TuiMode(
        name=name,
        map=lambda view, width, ascii_only: render_generic({k: v for k, v in view.items() if k not in _FRAME}, title),
        story=lambda view, width: Text(""),
        people=lambda view, width: Text(""),
        tell=lambda ev, view: None,
        labels=lambda prompt, view, width: ([o["label"] for o in prompt["options"]], ""),
        dice=lambda view, width: None,
        title=lambda view: title,
        whose_turn=lambda view: None,
        summary=lambda view: Text(""),
        help=lambda content, view, options: [],
    )


_FRAME = ("mode", "step", "outcome", "prompt")


def render_generic(value: Any, title: str | None = None) -> Text:
    """Any view (or part of one) as indented 'key: value' lines."""
    out = Text()
    out.append(title or "", style="bold")
    out.append_text(_pretty(value, 0))
    return out


def _short(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("name") or ", ".join(f"{k} {v}" for k, v in value.items() if not isinstance(v, (dict, list))))
    if isinstance(value, list):
        return ", ".join(_short(v) for v in value) or "none"
    return str(value)


def _pretty(value: Any, depth: int) -> Text:
    pad = "  " * depth
    out = Text()
    if isinstance(value, dict):
        for k, v in value.items():
            label = str(k).replace("_", " ")
            if isinstance(v, (dict, list)) and v and not _flat(v):
                out.append(f"\n{pad}{label}:", style="bold")
                out.append_text(_pretty(v, depth + 1))
            else:
                out.append(f"\n{pad}{label}: ", style="bold")
                out.append(_short(v) if isinstance(v, (dict, list)) else str(v))
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and not _flat(item):
                out.append(f"\n{pad}-")
                out.append_text(_pretty(item, depth + 1))
            else:
                out.append(f"\n{pad}- {_short(item)}")
    else:
        out.append(f" {value}")
    return out


def _flat(value: Any) -> bool:
    items = value.values() if isinstance(value, dict) else value
    return all(not isinstance(v, (dict, list)) for v in items) and len(value) <= 6
