"""The Shamblers mode's panes: the ring of Town Cards, the Shambler Track and Mats, the Player Mats.

Pure functions from a `Game.view` of mode "shamblers" to Rich `Text`, tested
without a terminal. Every color is also a letter (R Rage, B Dread, G Decay,
C Chaos), so nothing depends on color alone in the ANSI theme or over SSH;
the Story Board and Investigators text is plain ASCII in every mode.
"""

from __future__ import annotations

import textwrap
from typing import Any

from rich.text import Text

from cthulhu.core import modes
from cthulhu.core.shamblers.view import ColorView, ShamblersView, TownView

from ...english import plural
from ...render import MARK_STYLES, abbreviate, legend_text, track

CHAOS = "chaos"
COLOR_STYLES = {"red": "bold bright_red", "blue": "bold bright_white on blue", "green": "bold green", CHAOS: "bold bright_magenta"}
WHEEL_STYLE = "bold bright_yellow"

BOX = {"tl": "┌", "tr": "┐", "bl": "└", "br": "┘", "h": "─", "v": "│"}
BOX_ACTIVE = {"tl": "╔", "tr": "╗", "bl": "╚", "br": "╝", "h": "═", "v": "║"}
ASCII = {"tl": "+", "tr": "+", "bl": "+", "br": "+", "h": "-", "v": "|"}
ASCII_ACTIVE = {"tl": "#", "tr": "#", "bl": "#", "br": "#", "h": "=", "v": "H"}
ARROWS = {"right": "→", "left": "←", "down": "↓", "up": "↑"}
ASCII_ARROWS = {"right": ">", "left": "<", "down": "v", "up": "^"}

RING_MIN_WIDTH = 60  # narrower than this, the ring is drawn as a list
BOX_MAX = 30
PHASES = {"actions": "actions", "banish": "paying for a banish", "feed": "the Shamblers feed", "over": "game over"}


# -- small pieces ------------------------------------------------------------


def colors(view: ShamblersView) -> list[ColorView]:
    return list(view["colors"])


def color_ids(view: ShamblersView) -> list[str]:
    return [c["id"] for c in colors(view)]


def letter(color: str) -> str:
    """'red' -> 'R'; Chaos is always 'C'."""
    return "C" if color == CHAOS else (str(color)[:1].upper() or "?")


def tentacle_name(view: ShamblersView, color: str) -> str:
    if color == CHAOS:
        return "Chaos"
    return next((c["tentacle"] for c in colors(view) if c["id"] == color), str(color).title())


def counts(by_color: dict[str, int], order: list[str], sep: str = " ") -> Text:
    """'R1 B2' in each color's style, zeros left out; '-' when there is nothing."""
    out = Text()
    for color in order:
        n = by_color.get(color, 0)
        if n > 0:
            if out:
                out.append(sep)
            out.append(f"{letter(color)}{n}", style=COLOR_STYLES.get(color, "bold"))
    return out or Text("-", style="dim")


def mat_mark(index: int) -> tuple[str, str]:
    """A Player Mat's mark on the map and its style: 'P1', 'P2' ..."""
    return f"P{index + 1}", MARK_STYLES[index % len(MARK_STYLES)]


def active_town(view: ShamblersView) -> int | None:
    mats = view["mats"]
    active = view["active"]
    if isinstance(active, int) and 0 <= active < len(mats):
        return mats[active]["town"]
    return None


def feeding_town(view: ShamblersView) -> tuple[int, int] | None:
    feeding = view["feeding"]
    if view["phase"] == "feed" and feeding:
        return int(feeding[0][0]), int(feeding[0][1])
    return None


def _labelled(label: str, short: str, by_color: dict[str, int], order: list[str], inner: int) -> Text:
    """'Tentacles R1 B1 C1'; when crowded 'Tentacles R1B1G3C1', and only then 'T R1 B1 G3 C1'."""
    for name, sep in ((label, " "), (label, ""), (short, " "), (short, "")):
        value = counts(by_color, order, sep)
        if len(name) + 1 + len(value) <= inner:
            break
    line = Text()
    line.append(name + " ", style="dim")
    line.append_text(value)
    line.truncate(inner, pad=True)
    return line


def _tags(view: ShamblersView, index: int) -> Text:
    """Who stands on a Town Card, and the Wheel's mark: 'P1 P2  W wheel'."""
    out = Text()
    for m, mat in enumerate(view["mats"]):
        if mat["town"] == index:
            mark, style = mat_mark(m)
            if out:
                out.append(" ")
            out.append(mark, style=style + (" reverse" if m == view["active"] else ""))
    if view["wheel"] == index:
        if out:
            out.append(" ")
        out.append("W", style="reverse " + WHEEL_STYLE)
    feed = feeding_town(view)
    if feed is not None and feed[0] == index:
        if out:
            out.append(" ")
        out.append(f"feeds {feed[1]}", style="bold bright_red")
    return out


# -- the Map pane: the ring of Town Cards -------------------------------------


def render_towns(view: ShamblersView, width: int, ascii_only: bool = False) -> Text:
    """The ring as boxes (3 on top, the rest below, arrows clockwise), or a list when narrow."""
    towns = view["towns"]
    if not towns:
        return Text("No Town Cards in this view.", style="dim")
    ring = width >= RING_MIN_WIDTH and len(towns) >= 3
    out = _ring(view, width, ascii_only) if ring else _ring_list(view, width, ascii_only)
    out.append("\n")
    if ring:
        short = not box_labels_fit(view, ring_box_width(view, width)[0] - 2)
    else:
        short = not list_labels_fit(view, width)
    out.append_text(town_legend(view, width, colors_shown=ring and len(towns) % 2 == 1, short_labels=short))
    return out


SMALL_WORDS = {"the", "of", "a", "an"}


def short_name(name: str, width: int) -> str:
    """Fit a Town Card's name: whole, then without the small words, then abbreviated."""
    if len(name) <= width:
        return name
    words = name.split()
    kept = " ".join([words[0], *[w for w in words[1:] if w.lower() not in SMALL_WORDS]])
    if words[0].lower() in SMALL_WORDS and len(words) > 1:
        kept = " ".join(w for w in words if w.lower() not in SMALL_WORDS) or kept
    if len(kept) <= width:
        return kept
    return abbreviate(kept, width)


def _town_box(view: ShamblersView, index: int, bw: int, ascii_only: bool) -> list[Text]:
    """One Town Card as `bw`-wide lines: number, name, tentacles, Shamblers, who is there."""
    town = (view["towns"])[index]
    active = active_town(view) == index
    wheel = view["wheel"] == index
    box = (ASCII_ACTIVE if active else ASCII) if ascii_only else (BOX_ACTIVE if active else BOX)
    border = "bold" if active else "dim"
    inner = bw - 2
    order = color_ids(view)
    number = f" {index + 1} "
    top = Text()
    top.append(box["tl"] + box["h"], style=border)
    top.append(number, style="bold")
    top.append(box["h"] * max(0, inner - 1 - len(number)) + box["tr"], style=border)
    name = Text(short_name(town["name"], inner), style=WHEEL_STYLE if wheel else "bold")
    if active:
        name.stylize("reverse")
    name.truncate(inner, pad=True)
    tags = _tags(view, index)
    tags.truncate(inner, pad=True)
    rows = [
        name,
        _labelled("Tentacles", "T", town["tentacles"], [*order, CHAOS], inner),
        _labelled("Shamblers", "Sh", town["shamblers"], order, inner),
        tags,
    ]
    lines = [top]
    for row in rows:
        line = Text()
        line.append(box["v"], style=border)
        line.append_text(row)
        line.append(box["v"], style=border)
        lines.append(line)
    lines.append(Text(box["bl"] + box["h"] * inner + box["br"], style=border))
    return lines


def ring_box_width(view: ShamblersView, width: int) -> tuple[int, int]:
    """(box width, gap between boxes) for the ring at `width` columns."""
    cols = (len(view["towns"]) + 1) // 2
    gap = 3 if width >= cols * 22 + 3 * (cols - 1) else 2
    return max(14, min(BOX_MAX, (width - gap * (cols - 1)) // cols)), gap


def box_labels_fit(view: ShamblersView, inner: int) -> bool:
    """Whether every Town Card box keeps the long labels (counts may close up to fit)."""
    order = color_ids(view)
    return all(
        len(label) + 1 + len(counts(by_color, colors_of, "")) <= inner
        for t in view["towns"]
        for label, by_color, colors_of in (("Tentacles", t["tentacles"], [*order, CHAOS]), ("Shamblers", t["shamblers"], order))
    )


def _ring(view: ShamblersView, width: int, ascii_only: bool) -> Text:
    """Top row left to right, bottom row right to left: the clockwise ring as a rectangle."""
    towns = view["towns"]
    n = len(towns)
    arrows = ASCII_ARROWS if ascii_only else ARROWS
    cols = (n + 1) // 2
    bw, gap = ring_box_width(view, width)
    pad = " " * (gap - 2)
    top = list(range(cols))
    bottom: list[int | None] = [None] * cols
    rest = list(range(cols, n))  # clockwise from the top row's right end
    if rest:
        bottom[cols - 1] = rest[0]
        bottom[0] = rest[-1]
        for k, index in enumerate(rest[1:-1]):
            bottom[cols - 2 - k] = index
    height = 6
    top_boxes = [_town_box(view, i, bw, ascii_only) for i in top]
    bottom_boxes = [_town_box(view, i, bw, ascii_only) if i is not None else _filler(view, bw, height) for i in bottom]
    out = Text(no_wrap=True, overflow="crop")
    for y in range(height):
        if y:
            out.append("\n")
        for c, lines in enumerate(top_boxes):
            if c:
                out.append(f" {arrows['right']}{pad}" if y == 2 else " " * gap, style="bold")
            out.append_text(lines[y])
    out.append("\n")
    left = bw // 2
    right = (cols - 1) * (bw + gap) + bw // 2
    link = Text(" " * left)
    link.append(arrows["up"], style="bold")
    link.append(" " * max(1, right - left - 1))
    link.append(arrows["down"], style="bold")
    out.append_text(link)
    for y in range(height):
        out.append("\n")
        for c, lines in enumerate(bottom_boxes):
            if c:
                between = bottom[c] is not None or bottom[c - 1] is not None
                out.append(f"{pad}{arrows['left']} " if y == 2 and between else " " * gap, style="bold")
            out.append_text(lines[y])
    return out


def _filler(view: ShamblersView, bw: int, height: int) -> list[Text]:
    """The empty cell of the bottom row holds the color key."""
    lines = [Text(" " * bw) for _ in range(height)]
    keys = [(letter(c), COLOR_STYLES.get(c, "bold"), tentacle_name(view, c)) for c in [*color_ids(view), CHAOS]]
    rows = [keys[i : i + 2] for i in range(0, len(keys), 2)]
    for y, row in enumerate(rows[: height - 2]):
        line = Text(" ")
        for n, (mark, style, name) in enumerate(row):
            if n:
                line.append("  ")
            line.append(mark, style=style)
            line.append(" " + name, style="dim")
        line.truncate(bw, pad=True)
        lines[y + 1] = line
    return lines


def _list_parts(view: ShamblersView, town: TownView) -> tuple[tuple[str, str, Text], ...]:
    order = color_ids(view)
    return (
        ("Tentacles", "T", counts(town["tentacles"], [*order, CHAOS])),
        ("Shamblers", "Sh", counts(town["shamblers"], order)),
    )


def list_labels_fit(view: ShamblersView, width: int) -> bool:
    """Whether every Town Card's second line fits with the long labels."""
    return all(
        sum(len(label) + len(value) + 3 for label, _, value in _list_parts(view, t)) + 1 <= width
        for t in view["towns"]
    )


def _ring_list(view: ShamblersView, width: int, ascii_only: bool) -> Text:
    """Narrow panes: two lines per Town Card, clockwise, with the wrap-around said once."""
    towns = view["towns"]
    arrows = ASCII_ARROWS if ascii_only else ARROWS
    here = active_town(view)
    n = len(towns)
    sep = f" {arrows['right']} "
    ring = "Clockwise: " + sep.join(str(i + 1) for i in range(n)) + sep + "1"
    if len(ring) > width:
        ring = "Clockwise: " + arrows["right"].join(str(i + 1) for i in range(n)) + arrows["right"] + "1"
    out = Text()
    out.append(ring, style="dim")
    long = list_labels_fit(view, width)
    for i, town in enumerate(towns):
        tags = _tags(view, i)
        name_w = max(8, width - 3 - len(tags) - 1)
        line = Text("\n")
        line.append(">" if i == here else " ", style="bold")
        line.append(f"{i + 1} ", style="bold")
        name = Text(short_name(town["name"], name_w), style=WHEEL_STYLE if view["wheel"] == i else "bold")
        if i == here:
            name.stylize("reverse")
        line.append_text(name)
        if tags:
            line.append(" " * max(1, width - 3 - len(name) - len(tags)))
            line.append_text(tags)
        out.append_text(line)
        detail = Text("\n   ")
        for label, short, value in _list_parts(view, town):
            detail.append(f"{label if long else short} ", style="dim")
            detail.append_text(value)
            detail.append("  ")
        detail.rstrip()
        out.append_text(detail)
    return out


def town_legend(view: ShamblersView, width: int = 80, colors_shown: bool = False, short_labels: bool = False) -> Text:
    """Letters and marks, packed into lines that never wrap (the ring's empty cell may hold the colors)."""
    pieces: list[tuple[str, str, str]] = []
    for c in [] if colors_shown else [*color_ids(view), CHAOS]:
        pieces.append((letter(c), COLOR_STYLES.get(c, "bold"), tentacle_name(view, c)))
    for m, mat in enumerate(view["mats"]):
        mark, style = mat_mark(m)
        pieces.append((mark, style, mat["name"]))
    pieces.append(("W", "reverse " + WHEEL_STYLE, "the Wheel's pick"))
    if short_labels:
        pieces += [("T", "dim", "tentacles"), ("Sh", "dim", "Shamblers")]
    towns = view["towns"]
    out = legend_text(pieces, width, dim_names=True)
    here = active_town(view)
    if here is not None and towns and colors_shown:
        n = len(towns)
        cw = f"{(here + 1) % n + 1} {towns[(here + 1) % n]['name']}"
        ccw = f"{(here - 1) % n + 1} {towns[(here - 1) % n]['name']}"
        moves = f"From {here + 1} {towns[here]['name']}: clockwise to {cw}, counter-clockwise to {ccw}."
        for line in textwrap.wrap(moves, max(20, width)):
            out.append("\n" + line, style="dim")
    return out


# -- the Story Board: Shambler Track, Shambler Mat, bag, discard, supply ------


def render_shambler_story(view: ShamblersView, width: int = 40) -> Text:
    order = color_ids(view)
    goals = view["goals"]
    win = goals["win_per_color"]
    lose = goals["loss_mat_tentacles"]
    named = width >= 38
    out = Text()
    out.append("Shambler Track", style="bold bright_yellow")
    out.append(f"  {view['shambler_track_count']} left")
    out.append("\n  what comes next is secret", style="dim")
    out.append("\nShambler Mat", style="bold bright_yellow")
    head = Text("\n  " + " " * (9 if named else 2))
    head.append("banished".ljust(3 + win + 5), style="dim")
    head.append("tentacles", style="dim")
    out.append_text(head)
    mat = view["shambler_mat"]
    banished, held = mat["shamblers"], mat["tentacles"]
    for c in order:
        style = COLOR_STYLES.get(c, "bold")
        out.append("\n  ")
        out.append(letter(c), style=style)
        if named:
            out.append(" " + tentacle_name(view, c).ljust(6), style=style.replace("bold ", ""))
        out.append(" ")
        b, t = banished[c], held[c]
        out.append_text(track(b, win, "bold green"))
        out.append(f" {b}/{win}".ljust(5), style="bold green" if b >= win else "")
        out.append(" ")
        out.append_text(track(t, lose, "bold bright_red"))
        out.append(f" {t}/{lose}", style="bold bright_red" if t >= lose - 1 else "")
    out.append(f"\n  win: {win} banished per color", style="dim")
    out.append(f"\n  lose: {lose} tentacles of a color", style="dim")
    discard = view["discard"]
    out.append("\nBag ", style="bold")
    out.append(f"{view['bag_count']} tentacles")
    out.append("   " if named else "\n")
    out.append("Discard Mat ", style="bold")
    total = sum(int(v or 0) for v in discard.values())
    out.append(f"{total}")
    if total:
        out.append(": ")
        out.append_text(counts(discard, [*order, CHAOS]))
    out.append("\nGeneral supply ", style="bold")
    out.append(f"{view['supply_chaos']} Chaos")
    die = view["die"]
    faces = " ".join(str(f) for f in die["faces"])
    out.append(f"\n{die['name']}: ", style="bold")
    out.append(f"faces {faces}")
    dice = [int(d) for d in view["last_dice"]]
    if dice:
        out.append("\nLast roll ", style="bold")
        out.append_text(dice_faces(dice))
        out.append(f"  cost {max(dice)}")
    banish = view["banish"]
    if isinstance(banish, dict):
        towns = view["towns"]
        name = towns[banish["town"]]["name"]
        rules = view["banish_rules"]
        bonus = list(rules["bonus"])
        rage = banish["rage_at_start"]
        _wrap(out, f"Banishing on {name}: cost {banish['cost']}; "
                   f"{rage} Rage held at the start, so {bonus[min(rage, len(bonus) - 1)]} tentacle(s) of its color "
                   f"leave the Shambler Mat.", width, 0, "bold")
    feed = feeding_town(view)
    if feed is not None:
        towns = view["towns"]
        _wrap(out, f"Feeding: the Shamblers on {towns[feed[0]]['name']} take {feed[1]} more.", width, 0, "bold bright_red")
    return out


def _wrap(out: Text, text: str, width: int, indent: int, style: str = "dim") -> None:
    for line in textwrap.wrap(text, max(20, width - indent)):
        out.append("\n" + " " * indent + line, style=style)


def dice_faces(dice: list[int]) -> Text:
    """'[1] [0] [2]': tentacles shown per die; the highest (the cost) in bold."""
    out = Text()
    top = max(dice) if dice else 0
    for n, d in enumerate(dice):
        if n:
            out.append(" ")
        style = "dim" if d == 0 else ("bold reverse bright_magenta" if d == top else "bright_magenta")
        out.append(f"[{d}]", style=style)
    return out


def dice_line(view: ShamblersView) -> Text | None:
    """The prompt bar's dice line while a roll matters this turn."""
    dice = [int(d) for d in view["last_dice"]]
    if not dice:
        return None
    line = Text()
    line.append("Cthulhu Dice (tentacles): ", style="bold")
    line.append_text(dice_faces(dice))
    cost = max(dice)
    if cost == 0:
        line.append("  all zero: the banish is free", style="dim")
    else:
        line.append(f"  cost {cost}, the highest die (never the sum)", style="dim")
    return line


# -- the Investigators pane: Player Mats ---------------------------------------


def turn_line(view: ShamblersView, width: int = 40) -> Text:
    mats = view["mats"]
    active = view["active"]
    out = Text()
    out.append(f"Turn {view['turn']}  ", style="bold")
    mark, style = mat_mark(active)
    out.append(f"{mark} {mats[active]['name']}" if width >= 40 else mark, style=style)
    phase = view["phase"]
    out.append(f": {PHASES.get(phase, phase.replace('_', ' '))}")
    if phase == "actions":
        out.append(f" ({view['actions_left']} left)")
    return out


def render_mats(view: ShamblersView, width: int = 40) -> Text:
    out = turn_line(view, width)
    towns = view["towns"]
    rules = view["banish_rules"]
    bonus = list(rules["bonus"])
    bonus_color = rules["bonus_color"]
    for m, mat in enumerate(view["mats"]):
        mark, style = mat_mark(m)
        active = m == view["active"]
        out.append("\n\n")
        out.append(">" if active else " ", style="bold")
        out.append(f"{mark} {mat['name']}", style=style)
        town = mat["town"]
        where = towns[town]["name"] if 0 <= town < len(towns) else "?"
        out.append(f"\n  on {town + 1} {where}")
        tracks = mat["tracks"]
        for c in colors(view):
            cid = str(c["id"])
            value, cap = tracks[cid], c["capacity"]
            out.append("\n  ")
            out.append(letter(cid), style=COLOR_STYLES.get(cid, "bold"))
            out.append(f" {c['tentacle']}".ljust(9))
            out.append_text(track(value, cap, COLOR_STYLES.get(cid, "bold")))
            out.append(f" {value}/{cap}" + (" full" if value >= cap else ""))
            if cid == bonus_color and bonus and width >= 36:
                out.append(f"  bonus {bonus[min(value, len(bonus) - 1)]}", style="dim")
        chaos, chaos_cap = mat["chaos"], mat["chaos_capacity"]
        out.append("\n  ")
        out.append("C", style=COLOR_STYLES[CHAOS])
        out.append(" Chaos".ljust(9))
        out.append_text(track(chaos, chaos_cap, COLOR_STYLES[CHAOS]))
        out.append(f" {chaos}/{chaos_cap}" + (" full" if chaos >= chaos_cap else ""))
        if width >= 36:
            out.append(f"  wild, up to {rules['chaos_wild_max']}", style="dim")
        delirium, cap = mat["delirium"], mat["delirium_capacity"]
        out.append("\n  Delirium  ")
        out.append_text(track(delirium, cap, "bold bright_red"))
        out.append(f" {delirium}/{cap}", style="bold bright_red" if delirium >= cap - 1 else "")
        if width >= 36:
            out.append("  full loses", style="dim")
    if bonus and width >= 30:
        _wrap(out, "bonus: tentacles a banish takes off the Shambler Mat (set by the Rage held when it starts).", width, 0)
    return out


# -- the prompt bar and the end ------------------------------------------------


def short_labels(prompt: Any, view: ShamblersView, width: int) -> tuple[list[str], str]:
    """Bar labels that fit a small terminal, from the options' data, and the prompt's line ('' for its own text);
    the Choices list keeps the full labels.

    Payments read 'R red: 1 Rage + 1 Chaos' (the Shambler's color: what is paid). Whether a prompt's labels
    are short depends on the width only, never on how many options it has: "Move cw to ..." stays so.
    """
    options = prompt["options"]
    full = [o["label"] for o in options]
    if prompt["kind"] == "banish":
        dice = [int(d) for d in view["last_dice"]]
        cost = max(dice) if dice else 0
        shown = " ".join(f"[{d}]" for d in dice)
        line = (f"The Cthulhu Dice show {shown}: the banish is free. Which Shambler goes?" if cost == 0 else
                f"The Cthulhu Dice show {shown}: the highest die sets the cost, {plural(cost, 'tentacle')}. Which Shambler, paid how?")
        if width >= 120:  # the Choices list: each payment in a whole sentence
            return full, line
        labels = []
        for o in options:
            pay = o["data"]
            if not pay["banish"]:
                labels.append("don't banish")
                continue
            color, madness, chaos = pay["color"], pay["madness"], pay["chaos"]
            parts = ([f"{madness} {pay['tentacle']}"] if madness else []) + ([f"{chaos} Chaos"] if chaos else [])
            labels.append(f"{letter(color)} {color}: " + (" + ".join(parts) or "free"))
        return labels, line
    if prompt["kind"] == "action" and width < 120:  # by the terminal alone: a label never shortens from one prompt to the next
        labels = []
        towns = view["towns"]
        for o in options:
            act = o["data"]
            if act["action"] == "move":
                labels.append(f"Move {'cw' if act['clockwise'] else 'ccw'} to {towns[act['town']]['name']}")
            elif act["action"] == "gather":
                color = act["color"]
                labels.append(f"Gather {tentacle_name(view, color)} ({letter(color)})" + (" +1 Delirium" if act["track_full"] else ""))
            elif act["action"] == "banish":
                labels.append(f"Banish (roll {plural(act['dice'], 'Cthulhu Die')})")
            else:
                labels.append("End actions")
        return labels, ""
    return full, ""


def summary(view: ShamblersView) -> Text:
    """The game-over dialog's lines: why it ended, the Shambler Mat and the Player Mats."""
    out = Text()
    ending = modes.get("shamblers").endings.get(view["cause"] or "")
    if ending:
        out.append(ending, style="bold")
    mat = view["shambler_mat"]
    order = color_ids(view)
    out.append("\nShambler Mat: banished ")
    out.append_text(counts(mat["shamblers"], order))
    out.append(", tentacles ")
    out.append_text(counts(mat["tentacles"], order))
    out.append(f"\nShamblers left on the track: {view['shambler_track_count']}")
    for m, pm in enumerate(view["mats"]):
        out.append(f"\n{pm['name']}: Delirium {pm['delirium']}/{pm['delirium_capacity']}")
    return out
