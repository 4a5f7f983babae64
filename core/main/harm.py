"""What hurts: Fire, wounds, stress, sanity and its thresholds, death and the lost game."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ..command import Command
from .eventparts import Cause
from .tasks import PERSONAL, SKIPPED_PHASES, CountTask, FireHitsTask, PhaseTask, StressTask, ThresholdTask, WoundsTask

if TYPE_CHECKING:
    from .engine import Engine


def catch_fire(e: Engine, i: int, n: int, origin: str | None, cause: Cause | None = None) -> None:
    s = e.s
    inv = e.inv(i)
    tokens = wounds = 0
    for _ in range(n):
        if s.fire_reserve > 0:
            s.fire_reserve -= 1
            tokens += 1
        elif s.wound_tokens > 0:
            s.wound_tokens -= 1
            wounds += 1
    inv.fire += tokens
    inv.fire_wounds += wounds
    if tokens or wounds:
        e.emit({"type": "fire_caught", "inv": i, "name": e.name(i), "tokens": tokens, "stand_ins": wounds, "frm": origin, "cause": cause})


def step_fire(e: Engine, task: PhaseTask) -> None:
    i = task["inv"]
    inv = e.inv(i)
    e.s.phase = "fire"
    n = inv.fire + inv.fire_wounds
    if n <= 0:
        return
    e.emit({"type": "burning", "inv": i, "name": e.name(i), "tokens": n})
    e.push(
        {"k": "roll", "inv": i, "standard": n, "bonus": 0, "own": False, "purpose": "fire"},
        {"k": "fire_hits", "inv": i},
    )


def step_fire_hits(e: Engine, task: FireHitsTask) -> None:
    i = task["inv"]
    t = e.tally(task["roll"])
    # Fire rolls against the investigator: a shield's elder signs cancel its successes too (RULES.md, Dice).
    shielded = min(t["success"], t["elder"]) if e.mods(i)["elder_shield"] else 0
    e.ignored(i, "elder_signs", shielded, "elder_shield", {"kind": "fire", "name": ""})
    e.push(
        {"k": "wounds", "inv": i, "n": t["success"] - shielded, "source": "fire"},
        e.tentacle_sanity(i, t, "fire"),
        {"k": "fire_out", "inv": i},
    )


def step_fire_out(e: Engine, task: PhaseTask) -> None:
    douse(e, task["inv"])


def douse(e: Engine, i: int) -> None:
    s = e.s
    inv = e.inv(i)
    if inv.fire or inv.fire_wounds:
        s.fire_reserve += inv.fire
        s.wound_tokens += inv.fire_wounds
        e.emit({"type": "fire_out", "inv": i, "name": e.name(i), "tokens": inv.fire + inv.fire_wounds})
        inv.fire = inv.fire_wounds = 0


def step_wounds(e: Engine, task: WoundsTask) -> None:
    i = task["inv"]
    inv = e.inv(i)
    n = task["n"]
    if n <= 0 or not inv.alive:
        return
    companions = [h for h in inv.cards if e.half(h).kind == "companion"]
    if companions:
        # Each wound may land on a Companion instead; it still counts as the investigator's.
        opts = [(Command.of("take", card=None), f"{e.name(i)} takes it")]
        for h in companions:
            half = e.half(h)
            opts.append((Command.of("take", card=h["card"]), f"{half.name} takes it ({h['wounds']}/{half.health})"))
        e.ask(task, "wound_to", i, f"{e.name(i)} takes {n} wound(s): who takes the next one?", opts)
        return
    wound_investigator(e, i, n, task.get("source"))


def answer_wounds(e: Engine, task: WoundsTask, cmd: Command) -> None:
    i = task["inv"]
    if task["n"] > 1:
        e.push({**task, "n": task["n"] - 1})
    if cmd["card"] is None:
        wound_investigator(e, i, 1, task.get("source"))
        return
    inv = e.inv(i)
    for h in inv.cards:
        if h["card"] == cmd["card"]:
            h["wounds"] += 1
            half = e.half(h)
            e.emit({"type": "companion_wounded", "inv": i, "name": e.name(i), "card": half.name, "wounds": h["wounds"], "health": half.health})
            if h["wounds"] >= (half.health or 1):
                lose_card(e, i, h["card"], "wounds")
            break


def wound_investigator(e: Engine, i: int, n: int, source: str | None) -> None:
    inv = e.inv(i)
    health = e.c.investigators[inv.id].health
    inv.wounds = min(health, inv.wounds + n)
    e.emit({"type": "wounded", "inv": i, "name": e.name(i), "n": n, "wounds": inv.wounds, "health": health, "source": source,
            "cause": e.wound_cause(source)})
    if inv.wounds >= health:
        kill(e, i, "killed")


def step_stress(e: Engine, task: StressTask) -> None:
    i = task["inv"]
    inv = e.inv(i)
    cap = e.c.investigators[inv.id].stress
    n = min(task["n"], cap - inv.stress)
    if n > 0 and inv.alive:
        inv.stress += n
        cause = task.get("cause") or e.cause(task["why"])  # an enemy's drain names the enemy; an effect, its source
        e.emit({"type": "stress_taken", "inv": i, "name": e.name(i), "n": n, "stress": inv.stress, "why": task["why"], "cause": cause})


def step_sanity(e: Engine, task: CountTask) -> None:
    """Move the marker right; a threshold stops it (the rest is ignored), the skull kills."""
    i = task["inv"]
    inv = e.inv(i)
    if task["n"] <= 0 or not inv.alive:
        return
    ref = e.c.investigators[inv.id]
    lost = 0
    for _ in range(task["n"]):
        inv.sanity += 1
        lost += 1
        if inv.sanity >= ref.sanity:
            e.emit({"type": "sanity_lost", "inv": i, "name": e.name(i), "n": lost, "sanity": inv.sanity, "skull": ref.sanity, "cause": task.get("cause")})
            kill(e, i, "madness")
            return
        if inv.sanity in ref.thresholds:
            break
    e.emit({"type": "sanity_lost", "inv": i, "name": e.name(i), "n": lost, "sanity": inv.sanity, "skull": ref.sanity, "cause": task.get("cause")})
    if inv.sanity in ref.thresholds and inv.sanity not in inv.reached:
        inv.reached.append(inv.sanity)
        e.push({"k": "threshold", "inv": i, "at": inv.sanity, "ignored": task["n"] - lost})


def step_threshold(e: Engine, task: ThresholdTask) -> None:
    i = task["inv"]
    inv = e.inv(i)
    ref = e.c.investigators[inv.id]
    e.emit({"type": "threshold_reached", "inv": i, "name": e.name(i), "at": task["at"], "ignored": task["ignored"]})
    if task["at"] in ref.bonus_thresholds:
        inv.bonus += 1
        e.emit({"type": "bonus_die_gained", "inv": i, "name": e.name(i), "bonus": inv.bonus})
    e.push({"k": "level_up", "inv": i})
    if inv.insanity is not None:
        card = e.c.insanity[inv.insanity]
        e.emit({"type": "insanity_activated", "inv": i, "name": e.name(i), "card": card.name, "text": card.text})
        e.run_ops(i, card.activate, card.name)


def step_level_up(e: Engine, task: PhaseTask) -> None:
    i = task["inv"]
    inv = e.inv(i)
    ref = e.c.investigators[inv.id]
    opts = [
        (Command.of("level_up", skill=sk), f"{e.c.skills[sk].name} to level {up}: {e.c.skills[sk].levels[up - 1].text}")
        for sk in ref.skills
        if inv.levels[sk] < e.c.rules.skill_cap
        for up in [e.level_after_up(i, sk)]
    ]
    if opts:
        e.ask(task, "level_up", i, f"{e.name(i)} crosses a threshold: level up a skill", opts)


def answer_level_up(e: Engine, task: PhaseTask, cmd: Command) -> None:
    i = task["inv"]
    inv = e.inv(i)
    sk = cmd["skill"]
    inv.levels[sk] += 1
    e.emit({"type": "skill_leveled", "inv": i, "name": e.name(i), "skill": sk, "skill_name": e.c.skills[sk].name, "level": e.levels(i)[sk]})


def kill(e: Engine, i: int, cause: Literal["killed", "madness"]) -> None:
    """An investigator dies: tokens and cards go back, their own steps and (if active) the rest
    of their turn are dropped; everything else already queued still happens (see `tasks.OUTLIVES_DEATH`)."""
    s = e.s
    inv = e.inv(i)
    if not inv.alive:
        return
    douse(e, i)
    inv.alive = False
    inv.cause = cause
    for held in list(inv.cards):
        lose_card(e, i, held["card"], "death")
    inv.tokens.clear()
    s.mythos_discard.extend(inv.kept)
    inv.kept.clear()
    e.emit({"type": "investigator_died", "inv": i, "name": e.name(i), "cause": cause, "space": inv.space})
    active_died = i == s.active
    s.stack[:] = [
        t for t in s.stack
        if not (t["k"] in PERSONAL and t["inv"] == i) and not (active_died and t["k"] in SKIPPED_PHASES)
    ]
    if active_died:
        s.actions_left = 0
    if not e.s.summoned:
        lose(e, "died_before_summoning", f"{e.name(i)} died before the Elder One took the board")
    elif not any(x.alive for x in s.investigators):
        lose(e, "all_dead", "every investigator is dead")


def lose(e: Engine, cause: str, text: str) -> None:
    """End the game lost; `cause` is a short code for summaries, `text` is for people."""
    s = e.s
    if s.result is None:
        s.result = "lost"
        s.cause = cause
        s.pending = None
        e.emit({"type": "game_lost", "cause": cause, "text": text})


def lose_card(e: Engine, i: int, card: str, reason: Literal["wounds", "death", "effect"], cause: Cause | None = None) -> None:
    inv = e.inv(i)
    for h in list(inv.cards):
        if h["card"] == card:
            inv.cards.remove(h)
            e.s.discovery_discard.append(card)
            e.emit({"type": "card_lost", "inv": i, "name": e.name(i), "card": e.half(h).name, "reason": reason, "cause": cause})
