"""The Investigators and Story Board panes, and a plain view for modes without a layout yet.

Pure functions from a view to Rich `Text`. The Story Board shows whichever of
the Elder One, summoning track, Mythos, Discovery and ritual the view carries,
so it keeps working while the rules grow.
"""

from __future__ import annotations

import textwrap
from typing import Any

from rich.text import Text

from .render_map import investigator_marks

PHASES = {"actions": "actions", "investigate": "investigate", "mythos": "Mythos", "enemies": "enemy phase"}


def track(value: int, size: int, style: str, empty: str = ".") -> Text:
    """A row of boxes: `value` filled out of `size`."""
    value = max(0, min(value, size))
    t = Text("[", style="dim")
    t.append("#" * value, style=style)
    t.append(empty * (size - value), style="dim")
    t.append("]", style="dim")
    return t


def sanity_track(inv: dict[str, Any]) -> Text:
    """Cells 1..skull: lost sanity '#', thresholds '+', the skull 'X'."""
    skull = int(inv.get("skull", 0) or 0)
    sanity = int(inv.get("sanity", 0) or 0)
    thresholds = set(inv.get("thresholds") or [])
    t = Text("[", style="dim")
    for i in range(1, skull + 1):
        if i == skull:
            t.append("X", style="bold red")
        elif i <= sanity:
            t.append("#", style="bold yellow" if i in thresholds else "yellow")
        elif i in thresholds:
            t.append("+", style="bold")
        else:
            t.append(".", style="dim")
    t.append("]", style="dim")
    return t


def turn_line(view: dict[str, Any]) -> Text:
    """'Turn 3  Ada Whitlock: actions (2 left)'."""
    invs = {i.get("index"): i for i in view.get("investigators") or []}
    active = invs.get(view.get("active"))
    t = Text(f"Turn {view.get('turn', '?')}  ", style="bold")
    if active:
        mark, style = investigator_marks(view).get(active.get("index"), ("?", ""))
        t.append(active.get("name", "?"), style=style)
    phase = str(view.get("phase") or "")
    if phase:
        t.append(f": {PHASES.get(phase, phase.replace('_', ' '))}")
        if phase == "actions" and view.get("actions_left") is not None:
            t.append(f" ({view['actions_left']} left)")
    return t


def render_investigators(view: dict[str, Any], detail: bool = True, width: int = 60) -> Text:
    out = turn_line(view)
    marks = investigator_marks(view)
    spaces = {sp["id"]: sp.get("name", sp["id"]) for t in (view.get("episode") or {}).get("tiles", []) for sp in t.get("spaces", [])}
    for inv in view.get("investigators") or []:
        idx = inv.get("index")
        mark, style = marks.get(idx, ("?", ""))
        full = detail and (idx == view.get("active") or len(view.get("investigators") or []) == 1)
        out.append("\n\n")
        out.append(">" if idx == view.get("active") else " ", style="bold")
        out.append(f"{mark} ", style=style)
        out.append(str(inv.get("name", "?")), style=style)
        if inv.get("title") and full:
            out.append(f", {inv['title']}", style="dim")
        if not inv.get("alive", True):
            out.append(f"  DEAD ({str(inv.get('cause') or '').replace('_', ' ')})", style="bold red")
            continue
        out.append(f"\n  at {spaces.get(inv.get('space'), inv.get('space'))}")
        if inv.get("bonus"):
            out.append(f"  bonus dice {inv['bonus']}", style="green")
        if inv.get("fire"):
            out.append(f"  Fire {inv['fire']}", style="bold red")
        out.append("\n  Wounds ")
        out.append_text(track(int(inv.get("wounds", 0)), int(inv.get("health", 0)), "bold red"))
        out.append(f" {inv.get('wounds', 0)}/{inv.get('health', 0)}")
        out.append("\n  Stress ")
        out.append_text(track(int(inv.get("stress", 0)), int(inv.get("stress_max", 0)), "bold magenta"))
        out.append(f" {inv.get('stress', 0)}/{inv.get('stress_max', 0)}")
        out.append("\n  Sanity ")
        out.append_text(sanity_track(inv))
        out.append(f" {inv.get('sanity', 0)}/{inv.get('skull', 0)}")
        skills = inv.get("skills") or []
        if full:
            for sk in skills:
                level = int(sk.get("level", 1))
                texts = sk.get("levels") or []
                out.append(f"\n  {sk.get('name')} {level}", style="bold" if sk.get("unique") else "")
                if 0 < level <= len(texts):
                    for line in textwrap.wrap(texts[level - 1], max(20, width - 4)):
                        out.append(f"\n    {line}", style="dim")
        elif skills:
            out.append("\n  " + "  ".join(f"{sk.get('name')} {sk.get('level')}" for sk in skills))
        token_names = view.get("tokens") or {}
        held = {k: n for k, n in (inv.get("tokens") or {}).items() if n}
        if held:
            out.append("\n  Tokens: " + ", ".join(f"{token_names.get(k, k.replace('_', ' '))} x{n}" for k, n in held.items()), style="yellow")
        cards = [c for c in inv.get("cards") or [] if isinstance(c, dict)]
        if cards and not full:
            out.append("\n  Cards: ", style="dim")
            out.append(", ".join(str(c.get("name", "?")) + _card_wounds(c) for c in cards))
        for card in cards if full else []:
            out.append(f"\n  {str(card.get('kind', 'card')).title()}: ", style="dim")
            out.append(str(card.get("name", "?")), style="bold")
            out.append(_card_wounds(card))
            if card.get("text"):
                for line in textwrap.wrap(str(card["text"]), max(20, width - 4)):
                    out.append(f"\n    {line}", style="dim")
        insanity = inv.get("insanity")
        if isinstance(insanity, dict) and insanity.get("name"):
            out.append("\n  Insanity: ", style="dim")
            out.append(str(insanity["name"]), style="red" if inv.get("reached") else "")
            if full and insanity.get("text"):
                for line in textwrap.wrap(str(insanity["text"]), max(20, width - 4)):
                    out.append(f"\n    {line}", style="dim")
        for kept in inv.get("kept") or []:
            out.append(f"\n  Kept Mythos: {_short(kept)}", style="dim")
        for key in ("items", "companions", "conditions"):
            if inv.get(key):
                out.append(f"\n  {key.capitalize()}: {_short(inv[key])}")
    return out


def _card_wounds(card: dict[str, Any]) -> str:
    if card.get("wounds") is not None and card.get("health"):
        return f" ({card['wounds']}/{card['health']})"
    return ""


STORY_KEYS = ("elder_one", "summoning", "mythos", "discovery", "ritual")


def _wrap(out: Text, text: str, width: int, indent: int, style: str = "dim") -> None:
    for line in textwrap.wrap(str(text), max(20, width - indent)):
        out.append("\n" + " " * indent + line, style=style)


def summoning_track(eo: dict[str, Any]) -> Text:
    """'[1 2 3 4 |5 6 7| 8]' with the Elder One's (or the Progression token's) space marked."""
    size = int(eo.get("track") or 8)
    first_red = int(eo.get("first_red") or size + 1)
    pos = int(eo.get("position") or 0)
    t = Text()
    for i in range(1, size + 1):
        if i > 1:
            t.append(" ")
        style = "bold red" if i >= first_red else ""
        if i == pos:
            t.append(f"[{i}]", style="bold reverse " + ("red" if i >= first_red else ""))
        else:
            t.append(f"{i}" if i < size else f"{i}!", style=style)
    return t


def render_elder_one(eo: dict[str, Any], width: int) -> Text:
    out = Text(f"{eo.get('name', 'The Elder One')}", style="bold yellow")
    token = "Progression token" if eo.get("summoned") else "summoning"
    out.append(f"  ({'on the board' if eo.get('summoned') else 'not yet summoned'})", style="yellow")
    out.append(f"\n {token}: ")
    out.append_text(summoning_track(eo))
    out.append("  red from {}".format(eo.get("first_red", "?")), style="dim")
    return out


def render_stages(eo: dict[str, Any], width: int) -> Text:
    out = Text()
    stages = eo.get("stages") or []
    current = eo.get("stage")
    for n, st in enumerate(stages):
        label = "Stage 1" if n == 0 else ("Final" if n == len(stages) - 1 else f"Stage {n + 1}")
        if not st.get("revealed"):
            out.append(f"\n {label}: hidden", style="dim")
            if st.get("health"):
                out.append(f" (health {st['health']}, dice {st.get('standard', 0)}+{st.get('bonus', 0)})", style="dim")
            continue
        style = "bold" if n == current else ""
        out.append(f"\n {label}: {st.get('name', '')}", style=style + (" strike" if st.get("defeated") else ""))
        if st.get("health"):
            out.append(f"  wounds {st.get('wounds', 0)}/{st['health']}  dice {st.get('standard', 0)}+{st.get('bonus', 0)}")
        if st.get("text") and not st.get("defeated"):
            _wrap(out, st["text"], width, 3)
    return out


def render_story(view: dict[str, Any], width: int = 60) -> Text:
    out = Text()
    ep = view.get("episode") or {}
    eo = view.get("elder_one")
    if isinstance(eo, dict):
        out.append_text(render_elder_one(eo, width))
    elif eo is not None:
        out.append("Elder One", style="bold yellow")
        out.append_text(_pretty(eo, 1))
    if isinstance(view.get("summoning"), (dict, list)) or view.get("summoning") is not None:
        out.append("\n\nSummoning", style="bold yellow")
        out.append_text(_pretty(view["summoning"], 1))
    mythos = view.get("mythos")
    if isinstance(mythos, dict):
        discard = mythos.get("discard") or []
        symbols = mythos.get("summoning", sum(1 for c in discard if isinstance(c, dict) and c.get("summoning")))
        out.append("\n Mythos", style="bold")
        out.append(f" {mythos.get('deck', '?')} left, {len(discard)} discarded ({symbols} summoning)")
        if discard and isinstance(discard[-1], dict):
            top = discard[-1]
            out.append(f"\n last: {top.get('name', '?')}" + (" (summoning)" if top.get("summoning") else ""), style="dim")
    elif mythos is not None:
        out.append("\n\nMythos", style="bold yellow")
        out.append_text(_pretty(mythos, 1))
    disc = view.get("discovery")
    if isinstance(disc, dict):
        out.append("\n Discovery", style="bold")
        out.append(f" {disc.get('deck', '?')} left, {disc.get('discard', '?')} discarded")
    elif disc is not None:
        out.append("\n\nDiscovery", style="bold yellow")
        out.append_text(_pretty(disc, 1))
    if ep.get("name"):
        out.append(f"\n\n{ep['name']}", style="bold")
    ritual = view.get("ritual")
    if isinstance(ritual, dict):
        out.append(f"\n Ritual: {ritual.get('name', '')} ")
        if ritual.get("disrupted"):
            out.append("DISRUPTED", style="bold green")
        else:
            out.append_text(track(int(ritual.get("progress", 0) or 0), int(ritual.get("needed", 0) or 0), "bold green"))
            out.append(f" {ritual.get('progress', 0)}/{ritual.get('needed', '?')}")
        if ritual.get("text"):
            _wrap(out, ritual["text"], width, 2)
    elif ritual is not None:
        out.append("\n\nRitual", style="bold yellow")
        out.append_text(_pretty(ritual, 1))
    if isinstance(eo, dict) and eo.get("stages"):
        out.append(f"\n\n{eo.get('name', 'Elder One')}'s stages", style="bold yellow")
        out.append_text(render_stages(eo, width))
    for action in ep.get("actions") or []:
        out.append(f"\n Action: {action.get('name', '')}", style="bold")
        if action.get("text"):
            _wrap(out, action["text"], width, 3)
    if not ep.get("actions") and ep.get("blurb"):
        _wrap(out, ep["blurb"], width, 1, "dim italic")
    ref = view.get("reference") or {}
    if ref:
        out.append("\n\nEnemies", style="bold magenta")
        reserve = view.get("reserve") or {}
        for kind, r in ref.items():
            out.append(f"\n {r.get('name', kind)}", style="magenta")
            out.append(f"  health {r.get('health')}  dice {r.get('standard', 0)}+{r.get('bonus', 0)}")
            if kind in reserve:
                out.append(f"  reserve {reserve[kind]}", style="dim")
            if r.get("ability"):
                _wrap(out, r["ability"], width, 3)
    supply = []
    if "fire_reserve" in view:
        supply.append(f"Fire tokens {view['fire_reserve']}")
    if "wound_tokens" in view:
        supply.append(f"wound tokens {view['wound_tokens']}")
    if supply:
        out.append("\n\nSupply: " + ", ".join(supply), style="dim")
    lead = len(out.plain) - len(out.plain.lstrip("\n"))
    return out[lead:] if lead else out


def render_generic(value: Any, title: str | None = None) -> Text:
    """Any view (or part of one) as indented 'key: value' lines."""
    out = Text(title or "", style="bold")
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
