"""Every event told in plain English, and every choice worded from its data (issue 14).

Seeded bot games of both modes (at least 200 each, over every episode, Elder
One and difficulty, one to three players, both bots) are played through the
real narrators and prompt-bar labels. Every event the engine emits must get a
sentence from its mode's own teller (never the generic fallback), and no
sentence or label may show an internal id (`cultist-4`), a snake_case key, a
`key value,` dump or one of the grammar slips a player found. Every declared
event type must turn up at least once, so a new event cannot go untold.
"""

from __future__ import annotations

import re
import typing
from collections import Counter
from typing import Any

from cthulhu.content import builtin
from cthulhu.core import Game, Setup, modes
from cthulhu.core.bots import make_bot
from cthulhu.tui.modes import tui_mode

GAMES_PER_MODE = 200

ID = re.compile(r"\b[a-z][a-z_]*-(?:t?\d+)\b")  # a figure id: disciple-4, cultist-t1
SNAKE = re.compile(r"\b[a-z]+_[a-z_]+\b")  # a key or an id: invest_fight, vat_hall
SLIPS = [
    (re.compile(r"\b1 (wounds|successes|tentacles|dice|spaces|actions|cards|Fire tokens|elder signs|Shamblers|tentacles|steps)\b"), "a plural after 1"),
    (re.compile(r"\b([02-9]|\d\d+) (wound|success|tentacle|die|space|action|card|Fire token|elder sign|Shambler|step)\b(?![-']| token)"), "a singular after a number"),
    (re.compile(r"stresss|\(s\)|(?<!')\bs\b"), "a pasted plural"),
    (re.compile(r"costs free|of 1 successes|\b1 [a-z ]+ are\b|\b1 Fire token roll\b|\b([02-9]|\d\d+) [a-z ]+s is\b"), "a known slip"),
    (re.compile(r"\b[Aa] [AEIOU]"), "'a' before a vowel"),
    (re.compile(r"\b[Aa]n [B-DF-HJ-NP-TV-Z]"), "'an' before a consonant"),
    (re.compile(r"  |\s[.,:;!?]|\.\.|,,|\(\s|\s\)"), "spacing or punctuation"),
    (re.compile(r"\b(None|True|False)\b|\[\]|[{}]"), "a raw value"),
    (re.compile(r"Revealed:.*Revealed:"), "a doubled word"),
]


def wound_slip(text: str) -> str | None:
    """'(18 of 12)': a count shown above its own maximum."""
    for m in re.finditer(r"\((\d+) of (\d+)\)", text):
        if int(m.group(1)) > int(m.group(2)):
            return f"{m.group(0)} is more than its maximum"
    return None


def strings(value: Any) -> list[str]:
    """Every string inside an event (card texts, names of causes)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


def problems(text: str, ev: dict[str, Any] | None, elder: str | None) -> list[str]:
    """What is wrong with a sentence; words the content itself prints (a card's text in the event) are its own."""
    printed = [v for v in strings(ev or {})]
    found = []
    if ID.search(text):
        found.append(f"an internal id {ID.search(text).group(0)!r}")
    if SNAKE.search(text):
        found.append(f"a snake_case word {SNAKE.search(text).group(0)!r}")
    for pattern, what in SLIPS:
        for m in pattern.finditer(text):
            if not any(m.group(0) in p for p in printed):
                found.append(f"{what}: {m.group(0)!r}")
                break
    slip = wound_slip(text)
    if slip:
        found.append(slip)
    if elder and re.search(rf"\b(the|a|an|The|A|An) {re.escape(elder)}\b", text):
        found.append(f"an article before the proper name {elder}")
    if ev is not None:
        for key, value in ev.items():
            if key != "type" and isinstance(value, (str, int)) and not isinstance(value, bool):
                dump = f"{key.replace('_', ' ')} {value},"
                if dump in text:
                    found.append(f"a key-value dump {dump!r}")
    return found


def setups() -> list[tuple[Setup, str]]:
    """(setup, bot kind) for every game: both bots, every episode and Elder One (main), every level (Shamblers), 1-3 players."""
    content = builtin()
    out: list[tuple[Setup, str]] = []
    episodes = sorted(content.main.episodes)
    elders = sorted(content.main.elder_ones)
    levels = [lv.id for lv in content.shamblers.levels]
    for n in range(GAMES_PER_MODE):
        bot = "heuristic" if n % 3 else "random"
        players = 1 + n % 3
        out.append((Setup(mode="main", seed=n, players=players, episode=episodes[n % len(episodes)], elder_one=elders[(n // 6) % len(elders)]), bot))
        out.append((Setup(mode="shamblers", seed=n, players=players, difficulty=levels[n % len(levels)]), bot))
    return out


def play(setup: Setup, bot_kind: str, content: Any, seen: Counter, failures: list[str]) -> None:
    mode = modes.get(setup.mode)
    ui = tui_mode(setup.mode)
    game = Game.new(setup, content)
    bots = {seat: make_bot(bot_kind, setup.mode, setup.seed * 7 + seat) for seat in range(setup.players)}
    events = [e.wire() for e in game.start_events]
    for _ in range(3000):
        view = game.view(game.prompt.seat if game.prompt else None)
        elder = view["elder_one"]["name"] if setup.mode == "main" else None
        for ev in events:
            seen[(setup.mode, ev["type"])] += 1
            checked = mode.check_event(ev)
            told = ui.tell(checked, view)
            if told is None:
                failures.append(f"{setup.mode} {ev['type']}: no sentence for {ev}")
                continue
            kind, text = told
            for problem in problems(text, ev, elder):
                failures.append(f"{setup.mode} {ev['type']}: {problem}\n    in {text!r}")
        if game.outcome is not None:
            return
        prompt = view["prompt"]
        labels, header = ui.labels(prompt, view, 76)
        assert len(labels) == len(prompt["options"])
        printed = {"options": [o["data"] for o in prompt["options"]]}  # card and skill texts are the content's own
        for text in [header or prompt["text"], *labels]:
            for problem in problems(text, printed, elder):
                failures.append(f"{setup.mode} prompt {prompt['kind']}: {problem}\n    in {text!r}")
        seat = prompt["seat"]
        events = [e.wire() for e in game.apply(seat, bots[seat].choose(game, seat))]
    failures.append(f"{setup.mode} seed {setup.seed}: the game did not end")


def test_every_event_of_both_modes_is_told_in_plain_english():
    content = builtin()
    seen: Counter = Counter()
    failures: list[str] = []
    games = Counter()
    for setup, bot in setups():
        play(setup, bot, content, seen, failures)
        games[setup.mode] += 1
    assert games["main"] >= 200 and games["shamblers"] >= 200
    first: dict[str, str] = {}
    for failure in failures:  # one example of each kind of problem with each event
        first.setdefault(failure.split("\n")[0], failure)
    assert not first, f"{len(first)} kinds of problem, e.g.:\n" + "\n".join(sorted(first.values())[:60])
    for name in ("main", "shamblers"):
        declared = {typing.get_type_hints(t)["type"].__args__[0] for t in typing.get_args(modes.get(name).events)}
        missing = declared - {t for (m, t) in seen if m == name}
        assert not missing, f"{name}: these events never happened in the seeded games: {sorted(missing)}"
