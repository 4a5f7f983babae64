"""The main game's luck report (`Mode.luck`): each investigator's dice against their exact odds.

A roll counts for the investigator it is made by or against. On their own rolls (attacks,
checks) more successes are luckier; on the rolls made against them (an enemy's attack, the
Fire) fewer are; tentacles cost sanity on every roll, so fewer are always luckier. Only the
first throw of a roll counts in these tallies, since when to reroll is the player's choice:
rerolls are summed apart, with what they gained. The rest (harm by cause, cards drawn,
enemies defeated) is counted from the same events.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..luck import LuckReport, Person, Tally
from .odds import symbols

if TYPE_CHECKING:
    from ..command import Event
    from ..game import Game
    from .content import MainContent

OWN = ("attack", "check")  # rolls the investigator makes; "defend" and "fire" are rolled against them
WHAT = {"attack": "attack", "check": "check", "defend": "defence", "fire": "Fire roll"}


def _plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else many or word + 's'}"


def cause_label(cause: dict[str, Any] | None) -> str:
    """Where a harm came from, for people: 'Cultist', 'the Fire', 'tentacles on attacks'."""
    if not cause:
        return "other"
    kind, name = cause.get("kind"), str(cause.get("name") or "")
    if kind == "fire":
        return "the Fire"
    if kind == "tentacles":
        return f"tentacles on {WHAT.get(name, name)}s" if name else "tentacles"
    if kind == "reroll":
        return "rerolls"
    return name or str(kind)


@dataclass
class _Rerolls:
    """An investigator's rerolls: how many, how paid, and what they changed in the roller's favour."""

    n: int = 0
    stress: int = 0
    free: int = 0
    better: int = 0
    worse: int = 0
    gained: int = 0  # successes in the investigator's favour
    expected: Fraction = Fraction(0)  # what the odds gave for the same dice rerolled
    tentacles: int = 0  # tentacles more (fewer: negative)

    def wire(self) -> dict[str, int | float]:
        return {"n": self.n, "stress": self.stress, "free": self.free, "better": self.better, "worse": self.worse,
                "gained": self.gained, "expected": round(float(self.expected), 4), "tentacles": self.tentacles}


class _Investigator:
    def __init__(self, name: str) -> None:
        self.name = name
        self.successes = Tally("successes", ("success", "successes"), True)  # on their own rolls
        self.hits = Tally("successes_against", ("success", "successes"), False, "The dice rolled against {who} showed")  # on rolls against them
        self.tentacles = Tally("tentacles", ("tentacle", "tentacles"), False)  # on every roll of theirs or against them
        self.person = Person(name, tallies=[self.successes, self.hits, self.tentacles])
        self.rolls: Counter[str] = Counter()
        self.rerolls = _Rerolls()
        self.wounds: Counter[str] = Counter()
        self.sanity: Counter[str] = Counter()
        self.cards: Counter[str] = Counter()
        self.defeated: Counter[str] = Counter()


class MainLuck:
    """Sums a main game's events per investigator (`core.luck.LuckKeeper`)."""

    def __init__(self, game: Game) -> None:
        c: MainContent = game.content.part("main")
        self.faces = {"standard": c.dice.standard, "bonus": c.dice.bonus}
        self.success = {k: tuple(symbols(f).count("success") for f in v) for k, v in self.faces.items()}
        self.tentacle = {k: tuple(symbols(f).count("tentacle") for f in v) for k, v in self.faces.items()}
        self.people = [_Investigator(str(i["name"])) for i in game.view(None)["investigators"]]
        self.turn = 0
        self.purpose: dict[int, str] = {}  # the roll each investigator is deciding
        self.hitter: int | None = None  # who last wounded an enemy (a Stage falls to them)
        self.stages = 0

    def see(self, step: int, events: Sequence[Event]) -> None:
        for event in events:
            e = event.wire()
            kind = e["type"]
            if kind == "turn_started":
                self.turn = e["turn"]
            elif kind == "dice_rolled":
                self._rolled(step, e)
            elif kind == "die_rerolled":
                self._rerolled(e)
            elif kind == "wounded":
                self.people[e["inv"]].wounds[cause_label(e["cause"])] += e["n"]
            elif kind == "sanity_lost":
                self.people[e["inv"]].sanity[cause_label(e["cause"])] += e["n"]
            elif kind in ("mythos_drawn", "discovery_drawn"):
                self.people[e["inv"]].cards["Mythos" if kind == "mythos_drawn" else "Discovery"] += 1
            elif kind == "enemy_wounded":
                self.hitter = e["inv"]
            elif kind == "enemy_killed":
                self.people[e["inv"]].defeated[e["name"]] += 1
            elif kind == "stage_defeated":
                self.stages += 1
                if self.hitter is not None:
                    self.people[self.hitter].defeated[f"{e['name']} (a Stage of {e['elder']})"] += 1

    def _rolled(self, step: int, e: dict[str, Any]) -> None:
        who = self.people[e["inv"]]
        purpose = e["purpose"]
        self.purpose[e["inv"]] = purpose
        who.rolls[purpose] += 1
        own = purpose in OWN
        tally = who.successes if own else who.hits
        roll = Tally("roll", ("success", "successes"), own)  # this roll alone, for its chance
        for kind, face in e["dice"]:
            index = self.faces[kind].index(face)
            for t in (tally, roll):
                t.add(self.success[kind], self.success[kind][index])
            who.tentacles.add(self.tentacle[kind], self.tentacle[kind][index])
        got = roll.got
        at_least = Fraction(sum(roll.counts[got:]), roll.whole)
        at_most = Fraction(sum(roll.counts[: got + 1]), roll.whole)
        dice = f"{_plural(got, 'success', 'successes')}{'' if own else ' against them'} on {_plural(len(e['dice']), 'die', 'dice')}"
        what = f"{_roll_name(e)} on turn {self.turn}: {dice}"
        who.person.rolls.see(what, step, at_least if own else at_most, at_most if own else at_least)

    def _rerolled(self, e: dict[str, Any]) -> None:
        who = self.people[e["inv"]]
        kind = "bonus" if e["bonus"] else "standard"
        was, now = self.faces[kind].index(e["was"]), self.faces[kind].index(e["face"])
        sign = 1 if self.purpose.get(e["inv"], "check") in OWN else -1
        gain = sign * (self.success[kind][now] - self.success[kind][was])
        r = who.rerolls
        r.n += 1
        r.stress += e["cost"]
        r.free += 0 if e["cost"] else 1
        r.better += gain > 0
        r.worse += gain < 0
        r.gained += gain
        r.expected += sign * (Fraction(sum(self.success[kind]), len(self.success[kind])) - self.success[kind][was])
        r.tentacles += self.tentacle[kind][now] - self.tentacle[kind][was]

    def report(self) -> LuckReport:
        people = []
        for who in self.people:
            _facts(who)
            people.append(who.person)
        table = [f"Stages of the Elder One defeated: {self.stages}."] if self.stages else []
        return LuckReport(people, table)


def _roll_name(e: dict[str, Any]) -> str:
    """'attack on a Cultist', 'check for Chalk on the Door', 'defence against a Ghoul', 'the Fire's roll'."""
    purpose = e["purpose"]
    if purpose == "attack" and e.get("target_names"):
        return "attack on " + " and ".join(e["target_names"])
    if purpose == "check" and e.get("cause"):
        return f"check for {e['cause']['name']}"
    if purpose == "defend" and e.get("enemy"):
        return f"defence against {e['enemy']}"
    return "the Fire's roll" if purpose == "fire" else WHAT[purpose]


def _by_cause(counts: Counter[str]) -> str:
    return ", ".join(f"{n} from {cause}" for cause, n in counts.most_common())


def _facts(who: _Investigator) -> None:
    p = who.person
    r = who.rerolls
    p.stats = {
        "rolls": dict(sorted(who.rolls.items())),
        "rerolls": r.wire(),
        "wounds": dict(who.wounds.most_common()),
        "sanity": dict(who.sanity.most_common()),
        "cards": dict(sorted(who.cards.items())),
        "defeated": dict(who.defeated.most_common()),
    }
    facts = p.facts = []
    if who.rolls:
        facts.append("Rolls: " + ", ".join(_plural(n, WHAT[k]) for k, n in sorted(who.rolls.items())) + ".")
    if r.n:
        paid = f"{r.stress} paid with stress, {r.free} free" if r.stress and r.free else ("all free" if r.free else "each for a stress")
        net = r.gained
        facts.append(f"Rerolls: {r.n} ({paid}): {r.better} for the better, {r.worse} for the worse; "
                     f"{'+' if net > 0 else ''}{net} success{'' if abs(net) == 1 else 'es'} in their favour (the odds gave {float(r.expected):+.1f}).")
    if who.wounds:
        facts.append(f"Wounds taken: {sum(who.wounds.values())} ({_by_cause(who.wounds)}).")
    if who.sanity:
        facts.append(f"Sanity lost: {sum(who.sanity.values())} ({_by_cause(who.sanity)}).")
    if who.cards:
        facts.append("Cards drawn: " + ", ".join(f"{n} {k}" for k, n in sorted(who.cards.items())) + ".")
    if who.defeated:
        facts.append("Defeated: " + ", ".join(f"{k} ({n})" if n > 1 else k for k, n in who.defeated.most_common()) + ".")
