"""A referee watching seeded bot games of the main game, step by step (issue 11).

The referee is wired into the real engine for the length of a test: it sees every
event as it is emitted, every task as it is queued and run, and every prompt,
with the table as it is at that moment. It checks the rules the first audit
found broken, as a class rather than as instances:

- every hit lands on a figure that is alive, in the attacker's space, one of the
  targets declared and attackable, and (the Elder One) still at the Stage the roll
  was made against; so no Stage starts with wounds;
- the Elder One advances at most once per turn, only with 3 summoning symbols in
  the Mythos discard, and every advance that does not end the game reshuffles the
  discard exactly once, leaving it empty;
- every bookkeeping step queued in a turn (checks, discards, summon lines, the
  reshuffle, the next turn) runs exactly once before the turn ends;
- a dead investigator takes no harm, rolls no dice and is asked nothing about
  themselves.

Games cover both Elder Ones, all six episodes and 1-4 players, with the heuristic
bot, the random bot and a wandering one (the heuristic bot that spreads every attack
it can, from Brawling 2, and picks at random one time in four). CI plays 300;
`pytest -m slow` plays 2,000.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from cthulhu.core import Game, Setup
from cthulhu.core.bots import make_bot
from cthulhu.core.main import engine as engine_module
from cthulhu.core.main.engine import Engine
from cthulhu.core.main.state import ELDER
from cthulhu.core.main.tasks import PERSONAL
from cthulhu.core.main.turn import summoning_symbols
from cthulhu.core.rng import Rng
from cthulhu.core.sim import game_seed

from test_main_properties import check_invariants

# Steps that keep the books of a turn: each one queued must run, once.
BOOKKEEPING = ("discard_check", "summon_check", "next_turn", "mythos_discard", "summons", "reshuffle", "discovery_done")
# Prompts an investigator answers about themselves (a dead one is never asked). The active
# player still settles ties for a card resolving in their turn ("pick_enemy", "enemy_path").
OWN_PROMPTS = ("action", "run", "rest", "trade", "assign_hit", "reroll", "attack_order", "level_up", "wound_to", "douse", "discard_card", "choose")


@dataclass
class Referee:
    """Watches one game at a time; `violations` lists what it saw go wrong, `seen` what it saw happen."""

    violations: list[str] = field(default_factory=list)
    seen: Counter = field(default_factory=Counter)
    game: str = ""
    attack: dict[str, Any] | None = None
    advanced: int = 0  # advances this turn
    reshuffles: int = 0  # reshuffles that followed an advance this turn
    queued: dict[int, list] = field(default_factory=dict)  # id(task) -> [task, times run]

    def start(self, label: str) -> None:
        self.game = label
        self.attack = None
        self.advanced = self.reshuffles = 0
        self.queued.clear()

    def fail(self, what: str) -> None:
        self.violations.append(f"{self.game}: {what}")

    # -------------------------------------------------------------- events, with the table as it is now

    def on_event(self, eng: Engine, type_: str, data: dict[str, Any]) -> None:
        s = eng.s
        if type_ == "attack_declared":
            self.attack = {"inv": data["inv"], "targets": set(data["targets"]), "stage": s.stage}
            if len(data["targets"]) > 1:
                self.seen["split attack" + (" with the Elder One" if ELDER in data["targets"] else "")] += 1
        elif type_ == "enemy_wounded":
            self.check_hit(eng, data)
        elif type_ == "stage_revealed":
            elder = next((f for f in s.figures if f.kind == ELDER), None)
            if elder is not None and elder.wounds:
                self.fail(f"Stage {data['stage'] + 1} revealed with {elder.wounds} wounds")
        elif type_ == "elder_advanced":
            self.seen["advance"] += 1
            self.advanced += 1
            if self.advanced > 1:
                self.fail(f"the Elder One advanced {self.advanced} times in turn {s.turn}")
            if summoning_symbols(eng) < 3:
                self.fail(f"the Elder One advanced with {summoning_symbols(eng)} summoning symbols in the discard")
        elif type_ == "investigator_died":
            self.seen["death"] += 1
            if s.phase == "end_of_turn" and data["inv"] == s.active and self.advanced:
                self.seen["death during an advance"] += 1
        elif type_ == "stage_defeated" and self.attack is not None:
            self.seen["stage felled by an attack"] += 1
        elif type_ == "turn_ended":
            self.end_turn(eng)

    def check_hit(self, eng: Engine, data: dict[str, Any]) -> None:
        s = eng.s
        a = self.attack
        fid = data["figure"]
        if a is None or a["inv"] != data["inv"]:
            self.fail(f"{fid} wounded outside an attack by investigator {data['inv']}")
            return
        self.seen["hit" if data["n"] == 1 else "hits"] += 1
        attacker = s.investigators[a["inv"]]
        f = next((f for f in s.figures if f.id == fid), None)
        if f is None:
            self.fail(f"a hit landed on {fid}, which is not on the board")
            return
        if fid not in a["targets"]:
            self.fail(f"a hit landed on {fid}, which was not a declared target")
        if not attacker.alive:
            self.fail(f"a dead investigator's hit landed on {fid}")
        if f.space != attacker.space:
            self.fail(f"a hit landed on {fid} in {f.space}, away from the attacker in {attacker.space}")
        if f.wounds - data["n"] >= eng.enemy_health(f):
            self.fail(f"a hit landed on {fid}, which was already defeated")
        if f.kind == ELDER:
            if not s.disrupted:
                self.fail("a hit landed on the Elder One before the ritual was disrupted")
            if s.stage != a["stage"]:
                self.fail(f"a hit rolled against Stage {a['stage'] + 1} landed on Stage {s.stage + 1}")

    def end_turn(self, eng: Engine) -> None:
        if self.advanced and self.reshuffles != 1 and eng.s.result is None:
            self.fail(f"an advance in turn {eng.s.turn} was followed by {self.reshuffles} reshuffles")
        for task, runs in self.queued.values():
            if task["k"] != "next_turn" and runs != 1:
                self.fail(f"{task['k']} queued in turn {eng.s.turn} ran {runs} times")
        self.queued.clear()
        self.advanced = self.reshuffles = 0
        self.attack = None

    # -------------------------------------------------------------- tasks

    def on_push(self, tasks: tuple) -> None:
        for t in tasks:
            if t["k"] in BOOKKEEPING and id(t) not in self.queued:
                self.queued[id(t)] = [t, 0]

    def before_step(self, eng: Engine, task: dict[str, Any]) -> None:
        k = task["k"]
        if k in BOOKKEEPING:
            entry = self.queued.get(id(task))
            if entry is not None:
                entry[1] += 1
        if k in PERSONAL and not eng.s.investigators[task["inv"]].alive:
            self.fail(f"{k} ran for a dead investigator ({eng.name(task['inv'])})")

    def after_step(self, eng: Engine, task: dict[str, Any]) -> None:
        if task["k"] == "reshuffle":
            self.reshuffles += 1
            if eng.s.mythos_discard:
                self.fail(f"the discard holds {len(eng.s.mythos_discard)} cards right after the reshuffle")

    # -------------------------------------------------------------- prompts

    def on_prompt(self, game: Game) -> None:
        p = game.state.pending
        if p is not None and p["kind"] in OWN_PROMPTS and not game.state.investigators[p["inv"]].alive:
            self.fail(f"a dead investigator is asked: {p['text']}")


@pytest.fixture
def referee(monkeypatch) -> Referee:
    """The real engine with a referee looking over its shoulder."""
    ref = Referee()
    emit, push = Engine.emit, Engine.push

    def watched_emit(self, event):
        emit(self, event)
        ref.on_event(self, event["type"], {k: v for k, v in event.items() if k != "type"})

    def watched_push(self, *tasks):
        ref.on_push(tasks)
        push(self, *tasks)

    def watched(step):
        def run(self, task):
            ref.before_step(self, task)
            step(self, task)
            ref.after_step(self, task)

        return run

    monkeypatch.setattr(Engine, "emit", watched_emit)
    monkeypatch.setattr(Engine, "push", watched_push)
    for kind, step in list(engine_module.STEPS.items()):
        monkeypatch.setitem(engine_module.STEPS, kind, watched(step))
    return ref


class WanderingBot:
    """The heuristic bot, but it always spreads an attack when it can, and one other choice in four
    is any legal command: it reaches tables neither bot reaches alone (split attacks on the Elder One)."""

    def __init__(self, seed: int) -> None:
        self.rng = Rng(seed)
        self.heuristic = make_bot("heuristic", "main", seed)
        self.random = make_bot("random", "main", seed)

    def choose(self, game: Game, seat: int):
        legal = game.legal(seat)
        spread = [c for c in legal if c.kind == "attack" and c.get("all")]
        if spread:
            return spread[0]
        bot = self.random if self.rng.below("wander", 4) == 0 else self.heuristic
        return bot.choose(game, seat)


def make_test_bot(kind: str, seed: int):
    return WanderingBot(seed) if kind == "wandering" else make_bot(kind, "main", seed)


def table(n: int, content) -> tuple[Setup, str]:
    """The n-th table of the run: every Elder One x episode in turn, 1-4 players, varied investigators and bots."""
    main = content.main
    elders, episodes = sorted(main.elder_ones), sorted(main.episodes)
    players = 1 + n % 4
    seed = game_seed(11, n)
    pool = sorted(main.investigators)
    Rng(seed).shuffle("table", pool)
    setup = Setup(
        seed=seed,
        elder_one=elders[n % len(elders)],
        episode=episodes[(n // len(elders)) % len(episodes)],
        players=players,
        investigators=pool[: max(2, players)],
    )
    return setup, ("heuristic", "wandering", "heuristic", "random", "wandering")[n % 5]


def referee_games(ref: Referee, content, games: int, turn_limit: int = 200) -> None:
    for n in range(games):
        setup, bot_kind = table(n, content)
        ref.start(f"game {n} ({setup.one('elder_one')}, {setup.one('episode')}, {setup.players}p, {bot_kind}, seed {setup.seed})")
        game = Game.new(setup, content)
        if bot_kind == "wandering":
            # Brawlers start at Brawling 2, so split attacks (on the Elder One too) come up often.
            for inv in game.state.investigators:
                if "brawling" in inv.levels:
                    inv.levels["brawling"] = 2
        bots = {}
        ref.on_prompt(game)
        while game.outcome is None and game.state.turn <= turn_limit:
            seat = game.prompt.seat
            bot = bots.get(seat) or bots.setdefault(seat, make_test_bot(bot_kind, game_seed(setup.seed, seat + 1)))
            game.apply(seat, bot.choose(game, seat))
            ref.on_prompt(game)
            check_invariants(game)
        ref.seen["games"] += 1
        ref.seen[game.outcome or "turn limit"] += 1


def test_the_referee_sees_no_violation_in_a_few_hundred_games(referee, content):
    referee_games(referee, content, 300)
    assert referee.violations == [], "\n".join(referee.violations[:20])
    # The run reaches the situations the rules are about, not just quiet turns.
    seen = referee.seen
    assert seen["games"] == 300 and seen["won"] > 30 and seen["lost"] > 30
    assert seen["advance"] > 200 and seen["death"] > 100 and seen["death during an advance"] > 5
    assert seen["stage felled by an attack"] > 50 and seen["split attack with the Elder One"] > 20


def test_the_referee_catches_a_hit_on_a_fallen_stage(referee, content):
    """The referee is not blind: replaying the old fault (a hit past a fallen Stage) is reported."""
    from support.helpers import hastur_summoned, setup_table

    from support.helpers import new_game

    game = new_game("ada_whitlock", "mina_castellane")
    setup_table(game)
    elder = hastur_summoned(game, stage=1, space="yard_gate")
    referee.start("hand-built")
    eng = game.rules.engine(game.state)
    eng.emit({"type": "attack_declared", "inv": 0, "name": "Ada", "targets": ["elder_one"]})
    game.state.stage = 2  # the Stage fell, then a later hit of the same roll arrives
    elder.wounds = 1
    eng.emit({"type": "enemy_wounded", "inv": 0, "figure": "elder_one", "name": "Hastur", "n": 1, "wounds": 1, "health": 3})
    assert referee.violations == ["hand-built: a hit rolled against Stage 2 landed on Stage 3"]


@pytest.mark.slow
def test_the_referee_sees_no_violation_in_two_thousand_games(referee, content):
    referee_games(referee, content, 2000)
    assert referee.violations == [], "\n".join(referee.violations[:20])
    print(dict(referee.seen))
