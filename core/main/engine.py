"""The main game's engine: a stack of typed tasks run until a decision is needed.

Every step of the turn, every roll and every consequence is a task (a typed
dict tagged by its kind `k`, see `tasks`) on `state.stack`. A task either
finishes (perhaps pushing more tasks) or asks a question by setting
`state.pending` and leaving itself on the stack; the answer is given to that
same task. Because tasks are plain data, the whole game, mid-roll or mid-run,
can be hashed, copied and snapshotted.

`Engine` only drives the stack and answers questions about the table; what each
task does lives by topic in `turn`, `actions`, `fight`, `harm` and `effects`,
and the tables at the bottom dispatch on the task's kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from ..command import Command, Event
from . import actions, effects, fight, harm, turn
from .eventparts import Cause, CauseKind
from .events import MainEvent
from .content import ElderOne, Half, MainContent, Mythos
from .ops import AnyOp
from .mods import held_half, investigator_mods, mods_of, skill_levels, skill_mods
from .prepared import Prepared
from .state import ELDER, Figure, Investigator, MainState
from .tasks import CountTask, HeldCard, Roll, Task

Events = list[Event]


class Engine:
    """Runs tasks against one state with one content; holds no state of its own."""

    __slots__ = ("s", "c", "p", "events", "adj", "memo")

    def __init__(self, state: MainState, prepared: Prepared) -> None:
        self.s = state
        self.p = prepared  # the content this game reads, as plain values; shared by every game of its episode
        self.c: MainContent = prepared.content
        self.adj = prepared.adj
        self.events: Events = []
        # Derived values that depend on content only (options' labels, modifier sums), shared like `p`.
        self.memo = prepared.memo

    def emit(self, event: MainEvent) -> None:
        # Every event is a fresh literal with its type first: the event keeps it (`Event.of`).
        self.events.append(Event(event["type"], None, event))  # type: ignore[arg-type]  # a MainEvent is a dict

    def push(self, *tasks: Task) -> None:
        """Push tasks so that the first one given runs first."""
        stack = self.s.stack
        n = len(tasks)
        while n:
            n -= 1
            stack.append(tasks[n])

    def ask(self, task: Task, kind: str, inv: int, text: str, options: list[tuple[Command, str]]) -> None:
        """Wait for a decision by the investigator's seat; the task stays on the stack."""
        self.s.stack.append(task)
        self.s.pending = {"kind": kind, "inv": inv, "seat": self.s.investigators[inv].seat, "text": text, "options": options}

    def run(self) -> Events:
        s = self.s
        stack = s.stack  # changed in place only (a death filters it with a slice assignment)
        while s.result is None:
            pending = s.pending
            if pending is not None:
                if len(pending["options"]) != 1:
                    break
                # One way forward is no decision at all: take it (as `answer` would, without recursing).
                s.pending = None
                task = stack.pop()
                ANSWERS[task["k"]](self, task, pending["options"][0][0])
                continue
            if not stack:
                raise RuntimeError("the engine ran out of tasks")
            task = stack.pop()
            STEPS[task["k"]](self, task)
        return self.events

    def answer(self, command: Command) -> Events:
        s = self.s
        self.events = []
        s.pending = None
        task = s.stack.pop()
        ANSWERS[task["k"]](self, task, command)
        return self.run()

    def inv(self, i: int) -> Investigator:
        return self.s.investigators[i]

    def name(self, i: int) -> str:
        return self.p.investigator_names[self.s.investigators[i].id]

    def enemy_name(self, f: Figure) -> str:
        return self.p.enemy_names[f.kind]

    def the_enemy(self, f: Figure) -> str:
        """'The Cultist' to open a sentence, or the Elder One's own name (a proper name takes no article)."""
        return self.enemy_name(f) if f.kind == ELDER else f"The {self.enemy_name(f)}"

    def enemy_health(self, f: Figure) -> int:
        if f.kind == ELDER:
            return self.p.elder.stages[self.s.stage].health or 0
        return self.p.enemy_health[f.kind]

    def elder(self) -> ElderOne:
        return self.p.elder

    def mythos_card(self, card: str) -> Mythos:
        found = self.p.mythos.get(card)
        if found is None:
            deck, n = card.split(":")
            source = self.elder().mythos if deck == "eo" else self.p.episode.mythos
            return source[int(n)]
        return found

    def half(self, held: HeldCard) -> Half:
        found = self.p.halves.get((held["card"], held["side"]))
        return found if found is not None else held_half(self.c, self.s.episode, held)

    def cause(self, src: str | None) -> Cause | None:
        """What an effect's source is, for the Log: the card, Stage, episode, action or insanity it is printed on.

        Effects carry only their source's name (`OpsTask.src`, canonical since the first
        saves); its kind is looked up in this game's content, never stored. None for a
        name that is none of these."""
        if not src:
            return None
        kinds: dict[str, CauseKind] | None = self.memo.get("cause_kinds")
        if kinds is None:
            ep = self.p.episode
            eo = self.elder()
            kinds = {}
            for source_kind, names in (
                ("insanity", [card.name for card in self.c.insanity.values()]),
                ("discovery", [card.name for card in ep.discovery]),
                ("mythos", [m.name for m in (*eo.mythos, *ep.mythos)]),
                ("action", [a.name for a in ep.actions]),
                ("stage", [st.name for st in eo.stages]),
                ("episode", [ep.name]),
            ):
                for name in names:
                    kinds[name] = source_kind  # type: ignore[assignment]  # the literals above are CauseKinds
            self.memo["cause_kinds"] = kinds
        found = kinds.get(src)
        return {"kind": found, "name": src} if found is not None else None

    def wound_cause(self, source: str | None) -> Cause | None:
        """A wound's source (an enemy kind, "fire", or an effect's name) as a cause."""
        if source is None:
            return None
        if source == "fire":
            return {"kind": "fire", "name": ""}
        if source == ELDER:
            return {"kind": "enemy", "name": self.elder().name}
        if source in self.c.enemies:
            return {"kind": "enemy", "name": self.c.enemies[source].name}
        return self.cause(source)

    def space_name(self, space: str) -> str:
        return self.p.space_names.get(space, space)

    def safe(self, space: str) -> bool:
        return not any(f.space == space for f in self.s.figures)

    def levels(self, i: int, own: dict[str, int] | None = None) -> dict[str, int]:
        """Skill levels with held cards' levels added (`mods.skill_levels`); `own` in place of the investigator's own."""
        inv = self.inv(i)
        if not inv.cards:
            return inv.levels if own is None else own
        return skill_levels(self.c, self.s.episode, inv, own)

    def level_after_up(self, i: int, skill: str) -> int:
        """The level `skill` shows once the investigator's own level rises by one (held cards included)."""
        own = dict(self.inv(i).levels)
        own[skill] += 1
        return self.levels(i, own)[skill]

    def mods(self, i: int) -> dict[str, Any]:
        """Skills (with held cards' levels) plus the modifiers of held cards."""
        inv = self.s.investigators[i]
        # Asked several times a step: the last answer for this seat's investigator, while its levels
        # and cards are what they were (checked by equality, so a memo shared by games stays right).
        last = self.memo.get(("mods", i))
        if last is not None and last[0] == inv.levels and last[1] == inv.cards:
            return last[2]  # type: ignore[no-any-return]
        total = self._mods(inv, i)
        self.memo[("mods", i)] = (dict(inv.levels), [dict(h) for h in inv.cards], total)
        return total

    def _mods(self, inv: Investigator, i: int) -> dict[str, Any]:
        if not inv.cards:
            return mods_of(self.c, inv.levels)
        key = (tuple(sorted(inv.levels.items())), tuple((h["card"], h["side"]) for h in inv.cards))
        hit: dict[str, Any] | None = self.memo.get(key)
        if hit is None:
            hit = self.memo[key] = investigator_mods(self.c, self.s.episode, inv)
        return hit

    def faces(self, die: str) -> list[str]:
        return self.p.standard if die == "standard" else self.p.bonus

    def tally(self, roll: Roll) -> dict[str, int]:
        standard, bonus = self.p.standard_symbols, self.p.bonus_symbols
        success = tentacle = elder = 0
        for die, face in roll["dice"]:
            a, b, c = (standard if die == "standard" else bonus)[face]
            success += a
            tentacle += b
            elder += c
        return {"success": success, "tentacle": tentacle, "elder": elder}

    def mod_sources(self, i: int, key: str) -> list[str]:
        """The names of the skills (at their levels) and held cards that give investigator `i` the modifier `key`."""
        names = [self.c.skills[sk].name for sk, level in self.levels(i).items() if skill_mods(self.c, sk, level)[key]]
        return names + [self.half(held).name for held in self.inv(i).cards if getattr(self.half(held).mods, key)]

    def ignored(self, i: int, by: Literal["armor", "elder_signs", "calm"], n: int, key: str, cause: Cause) -> None:
        """Tell the harm investigator `i` keeps off by its skills and cards (nothing when `n` is 0)."""
        if n > 0:
            self.emit({"type": "harm_ignored", "inv": i, "name": self.name(i), "by": by, "n": n,
                       "sources": self.mod_sources(i, key), "cause": cause})

    def tentacle_sanity(self, i: int, t: dict[str, int], purpose: Literal["attack", "defend", "check", "fire"]) -> CountTask:
        """The sanity a roll's tentacles cost (after the ones `calm` ignores, which are told), as a task."""
        calm: int = self.mods(i)["calm"]
        cause: Cause = {"kind": "tentacles", "name": purpose}
        self.ignored(i, "calm", min(calm, t["tentacle"]), "calm", cause)
        return {"k": "sanity", "inv": i, "n": max(0, t["tentacle"] - calm), "cause": cause}

    def targets(self, subject: int, who: str) -> list[int]:
        """Investigators an op reaches, clockwise from the active one."""
        s = self.s
        n = len(s.investigators)
        order = [(s.active + k) % n for k in range(n)]
        alive = [i for i in order if s.investigators[i].alive]
        if who == "you":
            return [subject] if s.investigators[subject].alive else []
        if who == "all":
            return alive
        here = s.investigators[subject].space
        near = [i for i in alive if s.investigators[i].space == here]
        return near if who == "here" else [i for i in near if i != subject]

    def place(self, subject: int, at: str) -> str:
        m = self.p.episode.map
        if at == "here":
            return self.s.investigators[subject].space
        if at == "start":
            return m.start
        if at in m.gates:
            return m.gates[at]
        return at

    def claimed(self, card: str) -> bool:
        return any(h["card"] == card for i in self.s.investigators for h in i.cards)

    def enemy_kind(self, name: str) -> str:
        return self.elder().minion if name == "minion" else name

    def matches(self, f: Figure, kind: str) -> bool:
        """Whether an effect that names enemies of `kind` reaches figure `f`.

        Once on the board the Elder One "acts like any enemy" (seed 001): "any" enemy includes it;
        only effects that say cultist, monster or an enemy id leave it out (RULES.md, Enemies)."""
        if kind == "any":
            return True
        if f.kind == ELDER:
            return False
        if kind in ("cultist", "monster"):
            return self.c.enemies[f.kind].category == kind
        return f.kind == self.enemy_kind(kind)

    def attackable(self, f: Figure) -> bool:
        """The Elder One cannot be attacked or damaged until the ritual is disrupted."""
        return f.kind != ELDER or self.s.disrupted

    def run_ops(self, subject: int, ops: list[AnyOp], source: str, card: str | None = None) -> None:
        """Resolve a content effect about investigator `subject` (it may stop for decisions)."""
        if ops:
            self.push({"k": "ops", "inv": subject, "ops": ops, "src": source, "card": card})

    def attack_dice(self, f: Figure) -> tuple[int, int]:
        """An enemy's reference dice; the Elder One rolls the sum over its revealed stages."""
        if f.kind == ELDER:
            stages = self.elder().stages[1 : self.s.stage + 1]
            return sum(st.standard for st in stages), sum(st.bonus for st in stages)
        ref = self.c.enemies[f.kind]
        return ref.standard, ref.bonus


STEPS: dict[str, Callable[[Engine, Any], None]] = {
    "turn": turn.step_turn,
    "next_turn": turn.step_next_turn,
    "discard_check": turn.step_discard_check,
    "mythos": turn.step_mythos,
    "summons": turn.step_summons,
    "mythos_discard": turn.step_mythos_discard,
    "reshuffle": turn.step_reshuffle,
    "summon_check": turn.step_summon_check,
    "elder_eot": turn.step_elder_eot,
    "eot_effects": turn.step_eot_effects,
    "invest_fight": turn.step_invest_fight,
    "discovery_done": turn.step_discovery_done,
    "actions": actions.step_actions,
    "run": actions.step_run,
    "rest": actions.step_rest,
    "trade": actions.step_trade,
    "attack_hits": fight.step_attack_hits,
    "assign_hits": fight.step_assign_hits,
    "roll": fight.step_roll,
    "reroll": fight.step_reroll,
    "fight": fight.step_fight,
    "enemy_hits": fight.step_enemy_hits,
    "ignite": fight.step_ignite,
    "fire": harm.step_fire,
    "fire_hits": harm.step_fire_hits,
    "fire_out": harm.step_fire_out,
    "wounds": harm.step_wounds,
    "stress": harm.step_stress,
    "sanity": harm.step_sanity,
    "threshold": harm.step_threshold,
    "level_up": harm.step_level_up,
    "ops": effects.step_ops,
    "advance_enemy": effects.step_advance_enemy,
    "check": effects.step_check,
}

ANSWERS: dict[str, Callable[[Engine, Any, Command], None]] = {
    "actions": actions.answer_actions,
    "run": actions.answer_run,
    "rest": actions.answer_rest,
    "trade": actions.answer_trade,
    "assign_hits": fight.answer_assign_hits,
    "reroll": fight.answer_reroll,
    "fight": fight.answer_fight,
    "level_up": harm.answer_level_up,
    "wounds": harm.answer_wounds,
    "douse": effects.answer_douse,
    "pick_mover": effects.answer_pick_mover,
    "advance_enemy": effects.answer_advance_enemy,
    "discard_card": effects.answer_discard_card,
    "choose": effects.answer_choose,
}
