"""The Map pane's picture: tiles as boxes laid out by their table position, with the way between spaces drawn.

Pure functions from a view to Rich `Text`, so they are tested without a terminal.

A space line is a rail mark, its (shortened) name and what stands there: gate,
start, stairs/tunnel marks, Fire tokens, tokens, investigators (colored
initial) and enemies (type initials, wounds after a colon). The way is drawn:

- spaces of one tile that share a passage are joined by the rail in the box's
  first column (a second rail joins the first and third space of a tile when
  they touch and the middle one does not lie between them);
- a passage to the tile beside is an arrow on the box's side at that space's
  line (and a line through the gap when both ends are on the same line);
- a passage to the tile above or below is an arrow before the space's name;
- stairs (/) and tunnels (=) join every space that shows the same mark.

Figures are never dropped: a name shrinks to make room, the gaps between marks
close up, and when even that is not enough the line ends in `+` and the space
is written out in full under the map.
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text

from cthulhu.core.main.view import EnemyView, MainView, TileView

from ...render import MARK_STYLES, legend_text, shorten

GATE_STYLES = {"red": "bold bright_red", "yellow": "bold bright_yellow", "blue": "bold bright_white on blue", "green": "bold green"}

UNICODE = {"tl": "┌", "tr": "┐", "bl": "└", "br": "┘", "h": "─", "v": "│", "lt": "├", "rt": "┤",
           "right": "→", "left": "←", "up": "↑", "down": "↓", "updown": "↕",
           "rail_down": "╷", "rail_both": "│", "rail_up": "╵", "skip_top": "┐", "skip_mid": "│", "skip_end": "┘", "more": "+"}
ASCII = {"tl": "+", "tr": "+", "bl": "+", "br": "+", "h": "-", "v": "|", "lt": "+", "rt": "+",
         "right": ">", "left": "<", "up": "^", "down": "v", "updown": "%",
         "rail_down": ",", "rail_both": "|", "rail_up": "'", "skip_top": ",", "skip_mid": "|", "skip_end": "'", "more": "+"}

MIN_BOX = 12
MAX_BOX = 30
MIN_NAME = 2  # a name is never shrunk below this while marks need the room


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
        tags.append(("/", "bold"))
    if sid in ep["tunnels"]:
        tags.append(("=", "bold"))
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


def active_space(view: MainView) -> str | None:
    for inv in view["investigators"]:
        if inv["index"] == view["active"]:
            return inv["space"]
    return None


# -- the way between spaces ---------------------------------------------------


@dataclass
class Ways:
    """Where each passage is drawn: rails inside tiles, arrows to the tiles around."""

    rail: dict[str, str]  # space -> its mark on the first rail ("down", "both", "up" or "")
    skip: dict[str, str]  # space -> its mark on the second rail ("top", "mid", "end" or "")
    skip_tiles: set[str]  # tiles that need the second rail
    side: dict[tuple[str, str], str]  # (space, "left"/"right") -> the space it leads to
    vertical: dict[str, str]  # space -> "up", "down" or "updown"
    other: list[tuple[str, str]]  # passages drawn nowhere (tiles not side by side): listed under the map


def ways(view: MainView) -> Ways:
    ep = view["episode"]
    tile_of: dict[str, TileView] = {}
    line_of: dict[str, int] = {}
    for t in ep["tiles"]:
        for n, sp in enumerate(t["spaces"]):
            tile_of[sp["id"]] = t
            line_of[sp["id"]] = n
    pairs = set()
    for a, near in ep["adjacent"].items():
        for b in near:
            if (a in ep["staircases"] and b in ep["staircases"]) or (a in ep["tunnels"] and b in ep["tunnels"]):
                continue  # shown by the matching stairs or tunnel marks
            pairs.add((a, b) if a < b else (b, a))
    out = Ways({}, {}, set(), {}, {}, [])
    for a, b in sorted(pairs):
        ta, tb = tile_of[a], tile_of[b]
        if ta is tb:
            lo, hi = sorted((a, b), key=lambda s: line_of[s])
            if line_of[hi] - line_of[lo] == 1:
                out.rail[lo] = "both" if out.rail.get(lo) in ("up", "both") else "down"
                out.rail[hi] = "both" if out.rail.get(hi) in ("down", "both") else "up"
            else:
                out.skip_tiles.add(ta["id"])
                out.skip[lo] = "top"
                out.skip[hi] = "end"
                for sp in ta["spaces"][line_of[lo] + 1 : line_of[hi]]:
                    out.skip[sp["id"]] = "mid"
            continue
        (ca, ra), (cb, rb) = ta["pos"], tb["pos"]
        if ra == rb and abs(ca - cb) == 1:
            left, right = (a, b) if ca < cb else (b, a)
            out.side[(left, "right")] = right
            out.side[(right, "left")] = left
        elif ca == cb and abs(ra - rb) == 1:
            upper, lower = (a, b) if ra < rb else (b, a)
            out.vertical[upper] = "updown" if out.vertical.get(upper) == "up" else "down"
            out.vertical[lower] = "updown" if out.vertical.get(lower) == "down" else "up"
        else:
            out.other.append((a, b))
    return out


# -- drawing ------------------------------------------------------------------


def _fit_line(name: str, tags: list[tuple[str, str]], width: int) -> tuple[str, list[tuple[str, str]], bool]:
    """(shortened name, tags with their separators, overflowed) for a space line `width` wide.

    The name shrinks first (to `MIN_NAME` letters), then the marks close up; only then do
    the marks that still do not fit give way to a `+`."""
    if not tags:
        return shorten(name, width), [], False
    for sep in (" ", ""):
        tag_len = sum(len(t) for t, _ in tags) + len(sep) * (len(tags) - 1)
        room = width - tag_len - 1
        if room >= MIN_NAME:
            joined = [(t + (sep if n < len(tags) - 1 else ""), s) for n, (t, s) in enumerate(tags)]
            return shorten(name, room), joined, False
    kept: list[tuple[str, str]] = []
    used = 0
    for t, s in tags:
        if used + len(t) + 1 + 1 + MIN_NAME > width:
            break
        kept.append((t, s))
        used += len(t)
    return shorten(name, max(0, width - used - 2)), kept, True


def _space_line(view: MainView, sid: str, name: str, inner: int, box: dict[str, str], w: Ways, rails: int,
                marks: dict[int, tuple[str, str]], active: bool, overflow: list[str]) -> Text:
    line = Text()
    rail = w.rail.get(sid, "")
    line.append(box["rail_" + rail] if rail else " ", style="dim")
    if rails > 1:
        skip = w.skip.get(sid, "")
        line.append(box["skip_" + skip] if skip else " ", style="dim")
    vertical = w.vertical.get(sid)
    if vertical:
        line.append(box[vertical], style="bold")
    room = inner - len(line)
    short, shown, more = _fit_line(name, space_tags(view, sid, marks), room)
    tags = Text()
    for t, style in shown:
        tags.append(t, style=style)
    if more:
        tags.append(box["more"], style="bold reverse")
        overflow.append(sid)
    body = Text(short, style="bold" if active else "")
    body.append(" " * max(0, room - len(short) - len(tags)))
    body.append_text(tags)
    if active:
        body.stylize("reverse")
    line.append_text(body)
    line.truncate(inner, pad=True)
    return line


def render_map(view: MainView, width: int, ascii_only: bool = False) -> Text:
    """The tiles as boxes on a grid, sized to `width` columns, the way between spaces drawn."""
    out, _ = render_map_and_overflow(view, width, ascii_only)
    return out


def render_map_and_overflow(view: MainView, width: int, ascii_only: bool = False) -> tuple[Text, list[str]]:
    """The picture, and the spaces whose marks did not all fit their line (written out under the map)."""
    out, overflow, _ = draw_map(view, width, ascii_only)
    return out, overflow


def draw_map(view: MainView, width: int, ascii_only: bool = False) -> tuple[Text, list[str], dict[str, str]]:
    """The picture, the spaces that overflowed, and each space's line as drawn (for tests and tools)."""
    tiles = view["episode"]["tiles"]
    space_lines: dict[str, str] = {}
    if not tiles:
        return Text("No map in this view.", style="dim"), [], space_lines
    box = ASCII if ascii_only else UNICODE
    cols = max(int(t["pos"][0]) for t in tiles) + 1
    rows = max(int(t["pos"][1]) for t in tiles) + 1
    gap = 1 if width >= cols * (MIN_BOX + 3) + (cols - 1) else 0
    bw = max(MIN_BOX, min(MAX_BOX, (width - gap * (cols - 1)) // cols))
    inner = bw - 2
    at: dict[tuple[int, int], TileView] = {(t["pos"][0], t["pos"][1]): t for t in tiles}
    marks = investigator_marks(view)
    here = active_space(view)
    w = ways(view)
    overflow: list[str] = []
    heights = [max((len(at[(c, r)]["spaces"]) for c in range(cols) if (c, r) in at), default=0) for r in range(rows)]
    lines: list[Text] = []
    for r in range(rows + 1):
        # The border shared by row r-1 and row r (the lower tile's title on it), then row r's space lines.
        border = Text()
        for c in range(cols):
            if c:
                border.append(" " * gap)
            border.append_text(_border(at.get((c, r - 1)), at.get((c, r)), bw, inner, box))
        if border.plain.strip():
            lines.append(border)
        if r == rows:
            break
        for y in range(heights[r]):
            line = Text()
            for c in range(cols):
                tile = at.get((c, r))
                if c:
                    line.append_text(_gap(at.get((c - 1, r)), tile, y, gap, box, w))
                drawn = _tile_line(view, tile, y, bw, inner, box, w, marks, here, overflow)
                if tile is not None and y < len(tile["spaces"]):
                    space_lines[tile["spaces"][y]["id"]] = drawn.plain
                line.append_text(drawn)
            lines.append(line)
    out = Text(no_wrap=True, overflow="crop")
    for n, line in enumerate(lines):
        if n:
            out.append("\n")
        out.append_text(line)
    return out, overflow, space_lines


def _border(above: TileView | None, below: TileView | None, bw: int, inner: int, box: dict[str, str]) -> Text:
    if above is None and below is None:
        return Text(" " * bw)
    if below is None:
        return Text(box["bl"] + box["h"] * inner + box["br"], style="dim")
    left, right = (box["lt"], box["rt"]) if above is not None else (box["tl"], box["tr"])
    title = shorten(below["name"], inner - 2)
    t = Text()  # no base style: the title is not dimmed with the border
    t.append(left + box["h"], style="dim")
    t.append(title, style="bold")
    t.append(box["h"] * (inner - 1 - len(title)) + right, style="dim")
    return t


def _gap(left: TileView | None, right: TileView | None, y: int, gap: int, box: dict[str, str], w: Ways) -> Text:
    """The columns between two boxes: a line where a passage joins two spaces on the same line."""
    if gap == 0:
        return Text()
    if left is not None and right is not None and y < len(left["spaces"]) and y < len(right["spaces"]):
        if w.side.get((left["spaces"][y]["id"], "right")) == right["spaces"][y]["id"]:
            return Text(box["h"] * gap, style="bold")
    return Text(" " * gap)


def _tile_line(view: MainView, tile: TileView | None, y: int, bw: int, inner: int, box: dict[str, str], w: Ways,
               marks: dict[int, tuple[str, str]], here: str | None, overflow: list[str]) -> Text:
    if tile is None:
        return Text(" " * bw)
    spaces = tile["spaces"]
    if y >= len(spaces):
        return Text(box["v"] + " " * inner + box["v"], style="dim")
    sp = spaces[y]
    sid = sp["id"]
    rails = 2 if tile["id"] in w.skip_tiles else 1
    left, right = (sid, "left") in w.side, (sid, "right") in w.side
    t = Text()
    t.append(box["left"] if left else box["v"], style="bold" if left else "dim")
    t.append_text(_space_line(view, sid, sp["name"], inner, box, w, rails, marks, sid == here, overflow))
    t.append(box["right"] if right else box["v"], style="bold" if right else "dim")
    return t


def render_legend(view: MainView, width: int = 80, overflow: list[str] | None = None, ascii_only: bool = False) -> Text:
    """Spaces whose marks did not fit their line, the exits from the active space, who is who; lines never wrap."""
    box = ASCII if ascii_only else UNICODE
    ep = view["episode"]
    names = {sp["id"]: sp["name"] for t in ep["tiles"] for sp in t["spaces"]}
    marks = investigator_marks(view)
    out = Text()
    for sid in overflow or []:
        line = Text(f"{box['more']} {names.get(sid, sid)}:", style="bold")
        for t, style in space_tags(view, sid, marks):
            line.append(" ")
            line.append(t, style=style)
        out.append_text(line)
        out.append("\n")
    here = active_space(view)
    if here:
        exits = ", ".join(names.get(s, s) for s in ep["adjacent"].get(here, []))
        out.append(f"Exits from {names.get(here, here)}: {exits}\n", style="dim")
    pieces: list[tuple[str, str, str]] = []
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
    gates = "/".join("#" + c[:1].lower() for c in ep["gates"])
    for mark, name in (
        (gates or "#", "gate"), ("S", "start"), ("F", "fire"), (":n", "wounds"),
        (box["left"] + box["right"], "passage to the tile beside"), (box["up"] + box["down"], "passage up/down"),
        (box["rail_both"], "joined in a tile"), ("/", "stairs join stairs"), ("=", "tunnel joins tunnel"),
    ):
        pieces.append((mark, "dim", name))
    out.append_text(legend_text(pieces, width))
    return out
