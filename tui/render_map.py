"""The Map pane's picture: tiles laid out by their table position as boxes, one line per space.

Pure functions from a view to Rich `Text`, so they are tested without a terminal.
A space line is its (abbreviated) name followed by what stands there: gate,
start, stairs/tunnel marks, Fire tokens, investigators (colored initial) and
enemies (type initials, wounds after a colon).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

INVESTIGATOR_STYLES = ["bold bright_cyan", "bold bright_yellow", "bold bright_green", "bold bright_blue", "bold bright_white"]
GATE_STYLES = {"red": "bold red", "yellow": "bold yellow", "blue": "bold blue", "green": "bold green"}

UNICODE_BOX = {"tl": "┌", "tr": "┐", "bl": "└", "br": "┘", "h": "─", "v": "│"}
ASCII_BOX = {"tl": "+", "tr": "+", "bl": "+", "br": "+", "h": "-", "v": "|"}

MIN_BOX = 12
MAX_BOX = 30


def initials(name: str) -> str:
    """'Fire Vampire' -> 'FV', 'Cultist' -> 'C'."""
    words = [w for w in name.replace("-", " ").split() if w]
    big = [w for w in words if w[0].isupper()] or words  # "Disciple of the Sign" -> "DS"
    return "".join(w[0].upper() for w in big) or "?"


def investigator_marks(view: dict[str, Any]) -> dict[int, tuple[str, str]]:
    """index -> (mark, style): first letters, lengthened until they differ."""
    invs = view.get("investigators") or []
    names = [str(i.get("name", "?")) for i in invs]
    marks: dict[int, tuple[str, str]] = {}
    for n, name in enumerate(names):
        mark = name[:1].upper() or "?"
        clash = [m for m in names if m[:1].upper() == mark]
        if len(clash) > 1:
            mark = name[:2].title().replace(" ", "")
        marks[invs[n].get("index", n)] = (mark, INVESTIGATOR_STYLES[n % len(INVESTIGATOR_STYLES)])
    return marks


def abbreviate(name: str, width: int) -> str:
    """Shorten a space name to `width`: keep the first word's start and the other words' initials."""
    if width <= 0:
        return ""
    if len(name) <= width:
        return name
    words = name.split()
    if len(words) > 1:
        rest = "".join(w[0] for w in words[1:])
        head = max(1, width - len(rest) - 1)
        short = words[0][:head] + " " + rest
        if len(short) <= width:
            return short
        short = words[0][: max(1, width - len(rest))] + rest
        if len(short) <= width:
            return short
    return name[:width]


def _enemy_tags(enemies: list[dict[str, Any]], elder: str | None = None) -> list[tuple[str, str]]:
    counts: dict[str, int] = {}
    tags: list[tuple[str, str]] = []
    for e in enemies:
        ini = initials(str(e.get("name", e.get("kind", "?"))))
        if elder is not None and e.get("name") == elder:
            tags.append((ini + "!" + (f":{e['wounds']}" if e.get("wounds") else ""), "bold reverse red"))
            continue
        if e.get("wounds"):
            tags.append((f"{ini}:{e['wounds']}", "bold magenta"))
        else:
            counts[ini] = counts.get(ini, 0) + 1
    for ini, n in counts.items():
        tags.append(((f"{n}" if n > 1 else "") + ini, "magenta"))
    return tags


def space_tags(view: dict[str, Any], sid: str, marks: dict[int, tuple[str, str]]) -> list[tuple[str, str]]:
    """What stands on a space, as (text, style) pairs in reading order."""
    ep = view.get("episode") or {}
    tags: list[tuple[str, str]] = []
    for color, gate_space in (ep.get("gates") or {}).items():
        if gate_space == sid:
            tags.append(("#" + color[:1].lower(), GATE_STYLES.get(color, "bold")))
    if ep.get("start") == sid:
        tags.append(("S", "bold"))
    if sid in (ep.get("staircases") or []):
        tags.append(("/", ""))
    if sid in (ep.get("tunnels") or []):
        tags.append(("=", ""))
    fire = (view.get("fire") or {}).get(sid)
    if fire:
        tags.append((f"F{fire}", "bold red"))
    token_names = view.get("tokens") or {}
    for token, n in ((view.get("space_tokens") or {}).get(sid) or {}).items():
        if n:
            mark = initials(str(token_names.get(token, token))).lower()
            tags.append(((f"{n}" if n > 1 else "") + mark, "yellow"))
    eo = view.get("elder_one")
    elder = str(eo.get("name")) if isinstance(eo, dict) and eo.get("name") else None
    here = [e for e in view.get("enemies") or [] if e.get("space") == sid]
    if elder and eo.get("space") == sid and not any(e.get("name") == elder for e in here):
        tags.append((initials(elder) + "!", "bold reverse red"))
    for inv in view.get("investigators") or []:
        if inv.get("space") == sid and inv.get("alive", True):
            mark, style = marks.get(inv.get("index", 0), ("?", "bold"))
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


def active_space(view: dict[str, Any]) -> str | None:
    invs = view.get("investigators") or []
    active = view.get("active")
    for inv in invs:
        if inv.get("index") == active:
            return inv.get("space")
    return None


def render_map(view: dict[str, Any], width: int, ascii_only: bool = False) -> Text:
    """The tiles as boxes on a grid, sized to `width` columns."""
    ep = view.get("episode") or {}
    tiles = ep.get("tiles") or []
    if not tiles:
        return Text("No map in this view.", style="dim")
    box = ASCII_BOX if ascii_only else UNICODE_BOX
    cols = max(int(t["pos"][0]) for t in tiles) + 1
    rows = max(int(t["pos"][1]) for t in tiles) + 1
    bw = max(MIN_BOX, min(MAX_BOX, width // cols))
    inner = bw - 2
    at: dict[tuple[int, int], dict[str, Any]] = {(int(t["pos"][0]), int(t["pos"][1])): t for t in tiles}
    marks = investigator_marks(view)
    here = active_space(view)
    out = Text(no_wrap=True, overflow="crop")
    first = True
    for r in range(rows):
        row_tiles = [at.get((c, r)) for c in range(cols)]
        if not any(row_tiles):
            continue
        height = max(len(t.get("spaces", [])) for t in row_tiles if t) + 2
        for y in range(height):
            if not first:
                out.append("\n")
            first = False
            for tile in row_tiles:
                out.append_text(_tile_line(tile, y, height, bw, inner, box, view, marks, here))
    return out


def _tile_line(tile, y, height, bw, inner, box, view, marks, here) -> Text:
    if tile is None:
        return Text(" " * bw)
    spaces = tile.get("spaces", [])
    if y == 0:
        title = abbreviate(str(tile.get("name", "")), inner - 2)
        t = Text(box["tl"] + box["h"], style="dim")
        t.append(title, style="bold")
        t.append(box["h"] * (inner - 1 - len(title)) + box["tr"], style="dim")
        return t
    if y == height - 1:
        return Text(box["bl"] + box["h"] * inner + box["br"], style="dim")
    t = Text(box["v"], style="dim")
    idx = y - 1
    if idx < len(spaces):
        sp = spaces[idx]
        t.append_text(_space_line(str(sp.get("name", sp["id"])), space_tags(view, sp["id"], marks), inner, sp["id"] == here))
    else:
        t.append(" " * inner)
    t.append(box["v"], style="dim")
    return t


def render_legend(view: dict[str, Any], width: int = 80) -> Text:
    """Who is who on the map, and the exits from the active space; lines never wrap."""
    pieces: list[tuple[str, str, str]] = []  # (mark, style, name)
    marks = investigator_marks(view)
    for inv in view.get("investigators") or []:
        mark, style = marks.get(inv.get("index", 0), ("?", ""))
        pieces.append((mark, style, str(inv.get("name", ""))))
    eo = view.get("elder_one")
    elder = eo.get("name") if isinstance(eo, dict) else None
    if elder and eo.get("space"):
        pieces.append((initials(str(elder)) + "!", "bold reverse red", str(elder)))
    seen = {elder}
    for e in view.get("enemies") or []:
        name = str(e.get("name", e.get("kind")))
        if name not in seen:
            seen.add(name)
            pieces.append((initials(name), "magenta", name))
    token_names = view.get("tokens") or {}
    shown = sorted({t for toks in (view.get("space_tokens") or {}).values() for t, n in (toks or {}).items() if n})
    for token in shown:
        name = str(token_names.get(token, token))
        pieces.append((initials(name).lower(), "yellow", name))
    gates = "/".join("#" + c[:1].lower() for c in ((view.get("episode") or {}).get("gates") or {}))
    for mark, name in ((gates or "#", "gate"), ("S", "start"), ("/", "stairs"), ("=", "tunnel"), ("F", "fire"), (":n", "wounds")):
        pieces.append((mark, "dim", name))
    out = legend_text(pieces, width)
    here = active_space(view)
    if here:
        ep = view.get("episode") or {}
        names = {sp["id"]: sp.get("name", sp["id"]) for t in ep.get("tiles", []) for sp in t.get("spaces", [])}
        exits = ", ".join(names.get(s, s) for s in (ep.get("adjacent") or {}).get(here, []))
        out.append(f"\nExits from {names.get(here, here)}: {exits}")
    return out


def legend_text(pieces: list[tuple[str, str, str]], width: int, dim_names: bool = False) -> Text:
    """`mark name` pairs laid out in rows that fit `width`; names dim (always, or with a dim mark)."""
    out = Text()
    used = 0
    for mark, style, name in pieces:
        size = len(mark) + 1 + len(name)
        if used and used + 2 + size > width:
            out.append("\n")
            used = 0
        elif used:
            out.append("  ")
            used += 2
        out.append(mark, style=style)
        out.append(" " + name, style="dim" if dim_names or style == "dim" else "")
        used += size
    return out
