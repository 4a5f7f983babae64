"""Dice and fights: rolls and rerolls, attacks on enemies, enemies attacking, the Elder One's stages."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..command import Command
from . import harm
from .eventparts import Cause
from .state import ELDER, Figure
from .tasks import AssignHitsTask, AttackHitsTask, CountTask, EnemyHitsTask, FightTask, RerollTask, Roll, RollTask, RollTaker

if TYPE_CHECKING:
    from .engine import Engine


def start_attack(e: Engine, i: int, cmd: Command) -> None:
    inv = e.inv(i)
    m = e.mods(i)
    if cmd.get("all"):
        targets = [f.id for f in e.s.enemies_at(inv.space) if e.attackable(f)]
    else:
        targets = [cmd["target"]]
    names = [e.enemy_name(e.s.figure(t)) for t in targets]
    e.emit({"type": "attack_declared", "inv": i, "name": e.name(i), "targets": targets, "target_names": names})
    e.push(
        {"k": "roll", "inv": i, "standard": e.c.rules.dice, "bonus": inv.bonus + m["attack_dice"], "own": True, "purpose": "attack"},
        {"k": "attack_hits", "inv": i, "targets": targets},
    )


def step_attack_hits(e: Engine, task: AttackHitsTask) -> None:
    i = task["inv"]
    roll = task["roll"]
    t = e.tally(roll)
    hits = t["success"] + (t["elder"] if e.mods(i)["elder_hits"] else 0)
    # Successes first, then the roll's effects, then tentacles.
    e.push(e.tentacle_sanity(i, t, "attack"))
    # The Stage the roll was made against: hits never follow the Elder One into the next one.
    stage = e.s.stage
    targets = [f.id for f in hit_targets(e, i, task["targets"], stage)]
    if len(targets) == 1:
        wound_enemy(e, i, targets[0], hits)
    elif targets and hits:
        e.push({"k": "assign_hits", "inv": i, "targets": targets, "hits": hits, "stage": stage})


def hit_targets(e: Engine, i: int, targets: list[str], stage: int) -> list[Figure]:
    """The declared targets a hit may still land on, checked against the table as it is now:
    alive, in the attacker's space, attackable, and (for the Elder One) still at the Stage rolled against."""
    s = e.s
    here = e.inv(i).space
    return [
        f for f in s.figures
        if f.id in targets and f.space == here and e.attackable(f) and (f.kind != ELDER or s.stage == stage)
    ]


def step_assign_hits(e: Engine, task: AssignHitsTask) -> None:
    i = task["inv"]
    alive = hit_targets(e, i, task["targets"], task["stage"])
    if not alive or task["hits"] <= 0:
        return
    opts = [(Command.of("hit", target=f.id), f"{e.enemy_name(f)} ({f.wounds}/{e.enemy_health(f)} wounds)") for f in alive]
    e.ask(task, "assign_hit", i, f"{e.name(i)}: where does the next hit land? ({task['hits']} left)", opts)


def answer_assign_hits(e: Engine, task: AssignHitsTask, cmd: Command) -> None:
    e.push({**task, "hits": task["hits"] - 1})
    wound_enemy(e, task["inv"], cmd["target"], 1)


def wound_enemy(e: Engine, i: int, fid: str, n: int) -> None:
    """`n` hits on one figure that `hit_targets` allowed; wounds past its health are lost."""
    s = e.s
    f = s.figure(fid)
    name, health = e.enemy_name(f), e.enemy_health(f)
    if n <= 0:
        e.emit({"type": "attack_missed", "inv": i, "figure": fid, "kind": f.kind, "name": name})
        return
    f.wounds += n
    e.emit({"type": "enemy_wounded", "inv": i, "figure": fid, "kind": f.kind, "name": name, "n": n, "wounds": f.wounds, "health": health})
    if f.wounds < health:
        return
    if f.kind == ELDER:
        defeat_stage(e, f)
        return
    s.figures.remove(f)
    s.reserve[f.kind] = s.reserve.get(f.kind, 0) + 1
    e.emit({"type": "enemy_killed", "inv": i, "figure": fid, "kind": f.kind, "name": name, "space": f.space, "space_name": e.space_name(f.space)})


def defeat_stage(e: Engine, f: Figure) -> None:
    """A stage falls; excess wounds are lost; the next stage is revealed, or the game is won."""
    s = e.s
    eo = e.elder()
    health = eo.stages[s.stage].health or 0
    e.emit({"type": "stage_defeated", "name": eo.stages[s.stage].name, "elder": eo.name, "stage": s.stage, "stages": len(eo.stages),
            "health": health, "excess": f.wounds - health})
    f.wounds = 0
    if s.stage == len(eo.stages) - 1:
        s.figures.remove(f)
        s.result = "won"
        s.cause = "elder_defeated"
        s.pending = None
        e.emit({"type": "game_won", "name": eo.name})
        return
    s.stage += 1
    e.emit({"type": "stage_revealed", "name": eo.stages[s.stage].name, "elder": eo.name, "stage": s.stage, "stages": len(eo.stages),
            "text": eo.stages[s.stage].text})
    e.run_ops(s.active, eo.stages[s.stage].reveal, eo.stages[s.stage].name)


def step_roll(e: Engine, task: RollTask) -> None:
    """Roll, then hand the dice to the task below once rerolls are done."""
    s = e.s
    i = task["inv"]
    dice: list[list[Any]] = []
    # Callers decide the bonus dice: the investigator's own on their rolls, the enemy's on its attack.
    for die, n in (("standard", task["standard"]), ("bonus", task["bonus"])):
        for _ in range(n):
            dice.append([die, s.rng.face("dice", e.faces(die))])
    roll: Roll = {"inv": i, "dice": dice, "own": task["own"], "purpose": task["purpose"], "free": e.mods(i)["free_rerolls"]}
    s.last_roll = roll
    enemy, targets, need, cause = roll_context(e, e.s.stack[-1] if e.s.stack else None)
    e.emit({"type": "dice_rolled", "inv": i, "name": e.name(i), "purpose": task["purpose"], "dice": shown(e, roll), "enemy": enemy,
            "target_names": targets, "need": need, "cause": cause, "free": roll["free"]})
    e.push({"k": "reroll", "inv": i, "roll": roll})


def shown(e: Engine, roll: Roll) -> list[list[str]]:
    """[die, face name] pairs, as events and views show a roll."""
    return [[d, e.faces(d)[f]] for d, f in roll["dice"]]


def roll_context(e: Engine, taker: Any) -> tuple[str | None, list[str], int | None, Cause | None]:
    """Who a roll is against and what it is for, read from the task that will take it (just below the roll
    on the stack): (the enemy attacking, the enemies attacked, the successes a check needs, its source or the Fire)."""
    enemy: str | None = None
    targets: list[str] = []
    need: int | None = None
    cause: Cause | None = None
    if taker is not None and taker["k"] == "enemy_hits":
        enemy = e.elder().name if taker["kind"] == ELDER else e.c.enemies[taker["kind"]].name
    elif taker is not None and taker["k"] == "attack_hits":
        targets = [e.enemy_name(f) for f in e.s.figures if f.id in taker["targets"]]
    elif taker is not None and taker["k"] == "check":
        need = taker["need"]
        cause = e.cause(taker["src"])
    elif taker is not None and taker["k"] == "fire_hits":
        cause = {"kind": "fire", "name": ""}
    return enemy, targets, need, cause


def step_reroll(e: Engine, task: RerollTask) -> None:
    i = task["inv"]
    inv = e.inv(i)
    roll = task["roll"]
    opts = [(Command.of("keep"), "Keep these dice")]
    free = roll["free"] > 0
    if free or inv.stress < e.c.investigators[inv.id].stress:
        memo = e.memo
        for n, (die, face) in enumerate(roll["dice"]):
            key = ("reroll", n, die, face, free)  # the same option in every roll that shows it
            opt = memo.get(key)
            if opt is None:
                shown = e.faces(die)[face] or "blank"
                opt = memo[key] = (Command.of("reroll", die=n), f"Reroll die {n + 1} ({die}: {shown}) for {'free' if free else '1 stress'}")
            opts.append(opt)
    e.ask(task, "reroll", i, f"{e.name(i)}: keep the dice or reroll one", opts)


def answer_reroll(e: Engine, task: RerollTask, cmd: Command) -> None:
    s = e.s
    i = task["inv"]
    roll = task["roll"]
    if cmd.kind == "keep":
        taker: RollTaker = s.stack[-1]  # type: ignore[assignment]  # a roll is always pushed above its taker
        taker["roll"] = roll
        t = e.tally(roll)
        e.emit({"type": "dice_kept", "inv": i, "name": e.name(i), "purpose": roll["purpose"], "dice": shown(e, roll),
                "successes": t["success"], "tentacles": t["tentacle"], "elders": t["elder"]})
        return
    n = cmd["die"]
    cost = 0
    if roll["free"] > 0:
        roll["free"] -= 1
    else:
        cost = 1
        e.inv(i).stress += 1
        e.emit({"type": "stress_taken", "inv": i, "name": e.name(i), "n": 1, "stress": e.inv(i).stress, "why": "reroll",
                "cause": {"kind": "reroll", "name": ""}})
    die, before = roll["dice"][n]
    roll["dice"][n][1] = s.rng.face("dice", e.faces(die))
    s.last_roll = roll
    e.emit({"type": "die_rerolled", "inv": i, "die": n, "bonus": die == "bonus", "was": e.faces(die)[before],
            "face": e.faces(die)[roll["dice"][n][1]], "cost": cost, "dice": shown(e, roll)})
    e.push(task)


def step_fight(e: Engine, task: FightTask) -> None:
    """Each enemy in the space attacks once, in the order the investigator picks."""
    i = task["inv"]
    waiting = [f for f in e.s.enemies_at(e.inv(i).space) if f.id not in task["done"]]
    if not waiting:
        return
    opts = [(Command.of("defend", against=f.id), f"{e.enemy_name(f)} attacks next") for f in waiting]
    e.ask(task, "attack_order", i, f"{e.name(i)}: which enemy attacks next?", opts)


def answer_fight(e: Engine, task: FightTask, cmd: Command) -> None:
    i = task["inv"]
    fid = cmd["against"]
    f = e.s.figure(fid)
    e.push({"k": "fight", "inv": i, "done": [*task["done"], fid]})
    standard, bonus = e.attack_dice(f)
    e.emit({"type": "enemy_attacks", "figure": fid, "kind": f.kind, "name": e.enemy_name(f), "inv": i, "target": e.name(i),
            "standard": standard, "bonus": bonus})
    # The enemy's own dice only: never the defender's bonus dice.
    e.push(
        {"k": "roll", "inv": i, "standard": standard, "bonus": bonus, "own": False, "purpose": "defend"},
        {"k": "enemy_hits", "inv": i, "figure": fid, "kind": f.kind},
    )


def step_enemy_hits(e: Engine, task: EnemyHitsTask) -> None:
    i = task["inv"]
    m = e.mods(i)
    t = e.tally(task["roll"])
    ability = e.c.enemies[task["kind"]].ability if task["kind"] != ELDER else None
    enemy: Cause = {"kind": "enemy", "name": e.elder().name if task["kind"] == ELDER else e.c.enemies[task["kind"]].name}
    hits = t["success"]
    if ability is not None and t["elder"] and ability.kind in ("frenzy", "ignite", "drain"):
        e.emit({"type": "ability_used", "kind": task["kind"], "name": enemy["name"], "ability": ability.kind, "text": ability.text,
                "n": t["elder"], "inv": i})
    if ability is not None and ability.kind == "frenzy":
        hits += t["elder"]
    shielded = min(hits, t["elder"]) if m["elder_shield"] else 0
    e.ignored(i, "elder_signs", shielded, "elder_shield", enemy)
    hits -= shielded
    armored = min(hits, m["armor"])
    e.ignored(i, "armor", armored, "armor", enemy)
    hits -= armored
    e.push(e.tentacle_sanity(i, t, "defend"))
    if ability is not None and t["elder"]:
        if ability.kind == "ignite":
            e.push({"k": "ignite", "inv": i, "n": t["elder"], "cause": enemy})
        elif ability.kind == "drain":
            e.push({"k": "stress", "inv": i, "n": t["elder"], "why": ability.text, "cause": enemy})
    if hits:
        e.push({"k": "wounds", "inv": i, "n": hits, "source": task["kind"]})


def step_ignite(e: Engine, task: CountTask) -> None:
    harm.catch_fire(e, task["inv"], task["n"], None, task.get("cause"))
