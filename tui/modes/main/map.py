"""The Map pane's picture: tiles laid out by their table position as boxes, one line per space.

Pure functions from a view to Rich `Text`, so they are tested without a terminal.
A space line is its (abbreviated) name followed by what stands there: gate,
start, stairs/tunnel marks, Fire tokens, investigators (colored initial) and
enemies (type initials, wounds after a colon).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from cthulhu.core.main.view import EnemyView, MainView, TileView

from ...render import MARK_STYLES, abbreviate, legend_text
GATE_STYLES = {"red": "bold bright_red", "yellow": "bold bright_yellow", "blue": "bold bright_white on blue", "green": "bold green"}

UNICODE_BOX = {"tl": "┌", "tr": "┐", "bl": "└", "br": "┘", "h": "─", "v": "│"}
ASCII_BOX = {"tl": "+", "tr": "+", "bl": "+", "br": "+", "h": "-", "v": "|"}

MIN_BOX = 12
MAX_BOX = 30


def initials(name: str) -> str:
    """'Fire Vampire' -> 'FV', 'Cultist' -> 'C'."""
    words = [w for w in name.replace("-", " ").split() if w]
    big = [w for w in words if w[0].isupper()] or words  # "Disciple of the Sign" -> "DS"
    return "".join(w[0].upper() for w in big) or "?"


def investigator_marks(view: MainView) -> dict[int, tuple[str, str]]:
    """index -> (mark, style): first letters, lengthened until they differ."""
    invs = view["investigators"]
    names = [i["name"] for i in invs]
    marks: dict[int, tuple[str, str]] = {}
    for n, name in enumerate(names):
        mark = name[:1].upper() or "?"
        clash = [m for m in names if m[:1].upper() == mark]
        if len(clash) > 1:
            mark = name[:2].title().replace(" ", "")
        marks[invs[n]["index"]] = (mark, MARK_STYLES[n % len(MARK_STYLES)])
    return marks


def _enemy_tags(enemies: list[EnemyView], elder: str | None = None) -> list[tuple[str, str]]:
    counts: dict[str, int] = {}
    tags: list[tuple[str, str]] = []
    for e in enemies:
        ini = initials(e["name"])
        if elder is not None and e["name"] == elder:
            tags.append((ini + "!" + (f":{e['wounds']}" if e["wounds"] else ""), "bold reverse bright_red"))
            continue
        if e["wounds"]:
            tags.append((f"{ini}:{e['wounds']}", "bold bright_magenta"))
        else:
            counts[ini] = counts.get(ini, 0) + 1
    for ini, n in counts.items():
        tags.append(((f"{n}" if n > 1 else "") + ini, "bright_magenta"))
    return tags


def space_tags(view: MainView, sid: str, marks: dict[int, tuple[str, str]]) -> list[tuple[str, str]]:
    """What stands on a space, as (text, style) pairs in reading order."""
    ep = view["episode"]
    tags: list[tuple[str, str]] = []
    for color, gate_space in ep["gates"].items():
        if gate_space == sid:
            tags.append(("#" + color[:1].lower(), GATE_STYLES.get(color, "bold")))
    if ep["start"] == sid:
        tags.append(("S", "bold"))
    if sid in ep["staircases"]:
        tags.append(("/", ""))
    if sid in ep["tunnels"]:
        tags.append(("=", ""))
    fire = view["fire"].get(sid)
    if fire:
        tags.append((f"F{fire}", "bold bright_red"))
    token_names = view["tokens"]
    for token, n in view["space_tokens"].get(sid, {}).items():
        if n:
            mark = initials(token_names.get(token, token)).lower()
            tags.append(((f"{n}" if n > 1 else "") + mark, "bright_yellow"))
    eo = view["elder_one"]
    elder = eo["name"]
    here = [e for e in view["enemies"] if e["space"] == sid]
    if eo["space"] == sid and not any(e["name"] == elder for e in here):
        tags.append((initials(elder) + "!", "bold reverse bright_red"))
    for inv in view["investigators"]:
        if inv["space"] == sid and inv["alive"]:
            mark, style = marks.get(inv["index"], ("?", "bold"))
            tags.append((mark, style))
    tags.extend(_enemy_tags(here, elder))
    return tags


def _space_line(name: str, tags: list[tuple[str, str]], inner: int, active: bool) -> Text:
    tag_len = sum(len(t) for t, _ in tags) + max(0, len(tags) - 1)
    name_w = max(3, inner - tag_len - 1) if tags else inner
    line = Text(abbreviate(name, name_w), style="bold" if active else "")
    if tags:
        line.append(" " * max(1, inner - len(line) - tag_len))
        for n, (t, style) in enumerate(tags):
            if n:
                line.append(" ")
            line.append(t, style=style)
    line.truncate(inner, pad=True)
    if active:
        line.stylize("reverse")
    return line


def active_space(view: MainView) -> str | None:
    for inv in view["investigators"]:
        if inv["index"] == view["active"]:
            return inv["space"]
    return None


def render_map(view: MainView, width: int, ascii_only: bool = False) -> Text:
    """The tiles as boxes on a grid, sized to `width` columns."""
    tiles = view["episode"]["tiles"]
    if not tiles:
        return Text("No map in this view.", style="dim")
    box = ASCII_BOX if ascii_only else UNICODE_BOX
    cols = max(int(t["pos"][0]) for t in tiles) + 1
    rows = max(int(t["pos"][1]) for t in tiles) + 1
    bw = max(MIN_BOX, min(MAX_BOX, width // cols))
    inner = bw - 2
    at: dict[tuple[int, int], TileView] = {(t["pos"][0], t["pos"][1]): t for t in tiles}
    marks = investigator_marks(view)
    here = active_space(view)
    out = Text(no_wrap=True, overflow="crop")
    first = True
    for r in range(rows):
        row_tiles = [at.get((c, r)) for c in range(cols)]
        if not any(row_tiles):
            continue
        height = max(len(t["spaces"]) for t in row_tiles if t) + 2
        for y in range(height):
            if not first:
                out.append("\n")
            first = False
            for tile in row_tiles:
                out.append_text(_tile_line(tile, y, height, bw, inner, box, view, marks, here))
    return out


def _tile_line(tile: TileView | None, y: int, height: int, bw: int, inner: int, box: dict[str, str], view: MainView,
               marks: dict[int, tuple[str, str]], here: str | None) -> Text:
    if tile is None:
        return Text(" " * bw)
    spaces = tile["spaces"]
    if y == 0:
        title = abbreviate(tile["name"], inner - 2)
        t = Text()
        t.append(box["tl"] + box["h"], style="dim")
        t.append(title, style="bold")
        t.append(box["h"] * (inner - 1 - len(title)) + box["tr"], style="dim")
        return t
    if y == height - 1:
        return Text(box["bl"] + box["h"] * inner + box["br"], style="dim")
    t = Text()
    t.append(box["v"], style="dim")
    idx = y - 1
    if idx < len(spaces):
        sp = spaces[idx]
        t.append_text(_space_line(sp["name"], space_tags(view, sp["id"], marks), inner, sp["id"] == here))
    else:
        t.append(" " * inner)
    t.append(box["v"], style="dim")
    return t


def render_legend(view: MainView, width: int = 80) -> Text:
    """Who is who on the map, and the exits from the active space; lines never wrap."""
    pieces: list[tuple[str, str, str]] = []  # (mark, style, name)
    marks = investigator_marks(view)
    for inv in view["investigators"]:
        mark, style = marks.get(inv["index"], ("?", ""))
        pieces.append((mark, style, inv["name"]))
    eo = view["elder_one"]
    elder = eo["name"]
    if eo["space"]:
        pieces.append((initials(elder) + "!", "bold reverse bright_red", elder))
    seen = {elder}
    for e in view["enemies"]:
        name = e["name"]
        if name not in seen:
            seen.add(name)
            pieces.append((initials(name), "bright_magenta", name))
    token_names = view["tokens"]
    shown = sorted({t for toks in view["space_tokens"].values() for t, n in toks.items() if n})
    for token in shown:
        name = token_names.get(token, token)
        pieces.append((initials(name).lower(), "bright_yellow", name))
    gates = "/".join("#" + c[:1].lower() for c in view["episode"]["gates"])
    for mark, name in ((gates or "#", "gate"), ("S", "start"), ("/", "stairs"), ("=", "tunnel"), ("F", "fire"), (":n", "wounds")):
        pieces.append((mark, "dim", name))
    out = legend_text(pieces, width)
    here = active_space(view)
    if here:
        ep = view["episode"]
        names = {sp["id"]: sp["name"] for t in ep["tiles"] for sp in t["spaces"]}
        exits = ", ".join(names.get(s, s) for s in ep["adjacent"].get(here, []))
        out.append(f"\nExits from {names.get(here, here)}: {exits}")
    return out
