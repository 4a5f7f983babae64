"""The main game's Investigators and Story Board panes.

Pure functions from a checked `MainView` to Rich `Text`: the view has exactly
its declared shape (`cthulhu.core.main.view`), so nothing here guesses at keys.
"""

from __future__ import annotations

import textwrap

from rich.text import Text

from cthulhu.core.main.view import CardView, ElderOneView, InvestigatorView, MainView

from ...render import track, wrap_into
from .map import investigator_marks

PHASES = {"mythos": "Mythos", "invest_fight": "investigate or fight", "end_of_turn": "end of turn"}


def sanity_track(inv: InvestigatorView) -> Text:
    """Cells 1..skull: lost sanity '#', thresholds '+', the skull 'X'."""
    skull, sanity = inv["skull"], inv["sanity"]
    thresholds = set(inv["thresholds"])
    t = Text()
    t.append("[", style="dim")
    for i in range(1, skull + 1):
        if i == skull:
            t.append("X", style="bold bright_red")
        elif i <= sanity:
            t.append("#", style="bold bright_yellow" if i in thresholds else "bright_yellow")
        elif i in thresholds:
            t.append("+", style="bold")
        else:
            t.append(".", style="dim")
    t.append("]", style="dim")
    return t


def turn_line(view: MainView) -> Text:
    """'Turn 3  Ada Whitlock: actions (2 left)'."""
    t = Text()
    t.append(f"Turn {view['turn']}  ", style="bold")
    active = next((i for i in view["investigators"] if i["index"] == view["active"]), None)
    if active is not None:
        _, style = investigator_marks(view).get(active["index"], ("?", ""))
        t.append(active["name"], style=style)
    phase = view["phase"]
    t.append(f": {PHASES.get(phase, phase.replace('_', ' '))}")
    if phase == "actions":
        t.append(f" ({view['actions_left']} left)")
    return t


def render_investigators(view: MainView, detail: bool = True, width: int = 60) -> Text:
    out = turn_line(view)
    marks = investigator_marks(view)
    spaces = {sp["id"]: sp["name"] for t in view["episode"]["tiles"] for sp in t["spaces"]}
    invs = view["investigators"]
    # Whose turn it is comes first, so a short pane shows them without scrolling; the rest keep seat order.
    for inv in sorted(invs, key=lambda i: i["index"] != view["active"]):
        idx = inv["index"]
        mark, style = marks.get(idx, ("?", ""))
        full = detail and (idx == view["active"] or len(invs) == 1)
        out.append("\n\n")
        out.append(">" if idx == view["active"] else " ", style="bold")
        out.append(f"{mark} ", style=style)
        out.append(inv["name"], style=style)
        if inv["title"] and full:
            out.append(f", {inv['title']}", style="dim")
        if not inv["alive"]:
            out.append(f"  DEAD ({(inv['cause'] or '').replace('_', ' ')})", style="bold bright_red")
            continue
        out.append(f"\n  at {spaces.get(inv['space'], inv['space'])}")
        if inv["bonus"]:
            out.append(f"  bonus dice {inv['bonus']}", style="green")
        if inv["fire"]:
            out.append(f"  Fire {inv['fire']}", style="bold bright_red")
        out.append("\n  Wounds ")
        out.append_text(track(inv["wounds"], inv["health"], "bold bright_red"))
        out.append(f" {inv['wounds']}/{inv['health']}")
        out.append("\n  Stress ")
        out.append_text(track(inv["stress"], inv["stress_max"], "bold bright_magenta"))
        out.append(f" {inv['stress']}/{inv['stress_max']}")
        out.append("\n  Sanity ")
        out.append_text(sanity_track(inv))
        out.append(f" {inv['sanity']}/{inv['skull']}")
        signs = elder_signs(inv, full)
        for line in textwrap.wrap(signs, max(20, width - 2), subsequent_indent="  "):
            out.append(f"\n  {line}", style="dim" if signs.endswith("yet") else "bright_yellow")
        if full:
            for sk in inv["skills"]:
                level = sk["level"]
                # A level a held card grants is shown where it comes from: "Brawling 2 (1 + Old Jory, Stoker)".
                head = f"{sk['name']} {level}" + (f" ({sk['own']} + {' + '.join(sk['granted'])})" if sk["granted"] else "")
                for n, line in enumerate(textwrap.wrap(head, max(20, width - 2), subsequent_indent="  ")):
                    out.append(f"\n  {line}", style=("bold" if sk["unique"] else "") if n == 0 else "")
                # Every level reached, lowest first: a level adds to the ones below it or replaces them, as it says.
                for n, text in enumerate(sk["levels"][:level], 1):
                    said = f"{n}: {text}" if level > 1 else text
                    lines = textwrap.wrap(said, max(20, width - 4), subsequent_indent="   " if level > 1 else "")
                    for line in lines:
                        out.append(f"\n    {line}", style="dim")
        elif inv["skills"]:
            for line in packed([f"{sk['name']} {sk['level']}" for sk in inv["skills"]], width - 2):
                out.append("\n  " + line)
        held = {k: n for k, n in inv["tokens"].items() if n}
        if held:
            names = view["tokens"]
            out.append("\n  Tokens: " + ", ".join(f"{names.get(k, k.replace('_', ' '))} x{n}" for k, n in held.items()), style="bright_yellow")
        cards = inv["cards"]
        if cards and not full:
            out.append("\n  Cards: ", style="dim")
            out.append(", ".join(c["name"] + _card_wounds(c) for c in cards))
        for card in cards if full else []:
            out.append(f"\n  {card['kind'].title()}: ", style="dim")
            out.append(card["name"], style="bold")
            out.append(_card_wounds(card))
            for line in textwrap.wrap(card["text"], max(20, width - 4)):
                out.append(f"\n    {line}", style="dim")
        insanity = inv["insanity"]
        if insanity is not None:
            out.append("\n  Insanity: ", style="dim")
            name = textwrap.wrap(insanity["name"], max(10, width - 13)) or [""]
            out.append(name[0], style="bright_red" if inv["reached"] else "")
            for line in name[1:]:
                out.append(f"\n    {line}", style="bright_red" if inv["reached"] else "")
            if full:
                for line in textwrap.wrap(insanity["text"], max(20, width - 4)):
                    out.append(f"\n    {line}", style="dim")
        for kept in inv["kept"]:
            out.append(f"\n  Kept Mythos: {kept}", style="dim")
    return out


def elder_signs(inv: InvestigatorView, full: bool) -> str:
    """What the elder signs on the dice do for this investigator (their skills and cards say it)."""
    mods = inv["mods"]
    does = ([("successes on your attacks", "hits on attack")] if mods.get("elder_hits") else []) + (
        [("each cancels a success rolled against you", "cancel hits on you")] if mods.get("elder_shield") else [])
    if not does:
        return "Elder signs: no use to you yet" if full else "Elder signs: no use yet"
    return "Elder signs: " + "; ".join(long if full else short for long, short in does)


def packed(items: list[str], width: int) -> list[str]:
    """Items two spaces apart, in as few lines of `width` as they fit, never split inside one."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + 2 + len(item) <= width:
            lines[-1] += "  " + item
        else:
            lines.append(item)
    return lines


def _card_wounds(card: CardView) -> str:
    health = card.get("health")  # Companions only: the view declares it NotRequired
    if health:
        return f" ({card.get('wounds', 0)}/{health})"
    return ""


def summoning_track(eo: ElderOneView) -> Text:
    """'1 2 3 4 5 6 7 8!' with the Elder One's (or the Progression token's) space marked, red from `first_red`."""
    size, first_red, pos = eo["track"], eo["first_red"], eo["position"]
    t = Text()
    for i in range(1, size + 1):
        if i > 1:
            t.append(" ")
        style = "bold bright_red" if i >= first_red else ""
        if i == pos:
            t.append(f"[{i}]", style="bold reverse " + ("bright_red" if i >= first_red else ""))
        else:
            t.append(f"{i}" if i < size else f"{i}!", style=style)
    return t


def render_elder_one(eo: ElderOneView, width: int) -> Text:
    out = Text()
    out.append(eo["name"], style="bold bright_yellow")
    token = "Progression token" if eo["summoned"] else "summoning"
    out.append(f"  ({'on the board' if eo['summoned'] else 'not yet summoned'})", style="bright_yellow")
    out.append(f"\n {token}: ")
    out.append_text(summoning_track(eo))
    out.append(f"  red from {eo['first_red']}", style="dim")
    return out


def elder_dice(eo: ElderOneView) -> tuple[int, int]:
    """The Elder One's attack: the dice of every revealed stage added up (standard, bonus)."""
    shown = [st for st in eo["stages"] if st["revealed"]]
    return sum(st["standard"] for st in shown), sum(st["bonus"] for st in shown)


def render_stages(eo: ElderOneView, width: int) -> Text:
    out = Text()
    stages = eo["stages"]
    if eo["summoned"]:
        standard, bonus = elder_dice(eo)
        out.append(f"\n {eo['name']} attacks with {standard} + {bonus} dice (every revealed stage adds its own)", style="bold")
    for n, st in enumerate(stages):
        label = "Stage 1" if n == 0 else ("Final" if n == len(stages) - 1 else f"Stage {n + 1}")
        if not st["revealed"]:
            out.append(f"\n {label}: hidden", style="dim")
            if st["health"]:
                out.append(f" (health {st['health']}, adds {st['standard']}+{st['bonus']} dice)", style="dim")
            continue
        style = "bold" if n == eo["stage"] else ""
        out.append(f"\n {label}: {st['name']}", style=style + (" strike" if st["defeated"] else ""))
        if st["defeated"]:
            out.append("  defeated", style="green")
        elif st["health"]:
            out.append(f"  wounds {st['wounds']}/{st['health']}  adds {st['standard']}+{st['bonus']} dice")
        if st["text"] and not st["defeated"]:
            wrap_into(out, st["text"], width, 3)
    return out


def render_story(view: MainView, width: int = 60) -> Text:
    ep, eo, mythos, ritual = view["episode"], view["elder_one"], view["mythos"], view["ritual"]
    out = render_elder_one(eo, width)
    discard = mythos["discard"]
    out.append("\n Mythos", style="bold")
    out.append(f" {mythos['deck']} left, {len(discard)} discarded ({mythos['summoning']} summoning)")
    if discard:
        top = discard[-1]
        out.append(f"\n last: {top['name']}" + (" (summoning)" if top["summoning"] else ""), style="dim")
    out.append("\n Discovery", style="bold")
    out.append(f" {view['discovery']['deck']} left, {view['discovery']['discard']} discarded")
    out.append(f"\n\n{ep['name']}", style="bold")
    out.append(f"\n Ritual: {ritual['name']} ")
    if ritual["disrupted"]:
        out.append("DISRUPTED", style="bold green")
    else:
        out.append_text(track(ritual["progress"], ritual["needed"], "bold green"))
        out.append(f" {ritual['progress']}/{ritual['needed']}")
    if ritual["text"]:
        wrap_into(out, ritual["text"], width, 2)
    if eo["stages"]:
        out.append(f"\n\n{eo['name']}'s stages", style="bold bright_yellow")
        out.append_text(render_stages(eo, width))
    for action in ep["actions"]:
        out.append(f"\n Action: {action['name']}", style="bold")
        if action["text"]:
            wrap_into(out, action["text"], width, 3)
    if view["reference"]:
        out.append("\n\nEnemies", style="bold bright_magenta")
        reserve = view["reserve"]
        for kind, r in view["reference"].items():
            out.append(f"\n {r['name']}", style="bright_magenta")
            out.append(f"  health {r['health']}  dice {r['standard']}+{r['bonus']}")
            if kind in reserve:
                out.append(f"  reserve {reserve[kind]}", style="dim")
            if r["ability"]:
                wrap_into(out, r["ability"], width, 3)
    out.append(f"\n\nSupply: Fire tokens {view['fire_reserve']}, wound tokens {view['wound_tokens']}", style="dim")
    return out
