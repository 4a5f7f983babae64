"""The effect vocabulary interpreted: cards, stages, insanities and episode actions.

Effects are the validated content models themselves (`content.AnyOp`) inside an
`ops` task with a subject investigator; each op is dispatched on its model class
(`OPS` at the bottom) and becomes one or more tasks, so effects can stop for
decisions like everything else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..command import Command
from .ops import (
    BurnOp,
    ChooseOp,
    ClaimOp,
    DiscardCardOp,
    DouseOp,
    FireSpaceOp,
    HealOp,
    IfHoldsOp,
    IfSpaceTokenOp,
    IfTokensOp,
    KeepMythosOp,
    MoveEnemiesOp,
    Op,
    PlaceElderOp,
    RitualOp,
    RollOp,
    SanityOp,
    SpaceTokenOp,
    StressOp,
    SummonOp,
    TokenOp,
    WoundOp,
)
from . import harm, turn
from .board import distances, next_steps
from .state import Figure
from .tasks import (
    AdvanceEnemyTask,
    CheckTask,
    ChooseTask,
    CountTask,
    DiscardCardTask,
    OpsTask,
    PickMoverTask,
    StressTask,
    WoundsTask,
)

if TYPE_CHECKING:
    from .engine import Engine


# Ops that need their subject alive: a dead investigator rolls, chooses, puts out fires and takes
# cards no more. The rest of an effect still resolves after its subject's death (RULES.md, "Decided
# after the first audit"), with the space where they died standing for theirs.
NEEDS_LIVING_SUBJECT: frozenset[type[Op]] = frozenset({RollOp, ChooseOp, DouseOp, ClaimOp, KeepMythosOp, DiscardCardOp})


def op_stress(e: Engine, task: OpsTask, op: StressOp) -> None:
    tasks: list[StressTask] = [{"k": "stress", "inv": i, "n": op.n, "why": task["src"]} for i in e.targets(task["inv"], op.who)]
    e.push(*tasks)


def op_wound(e: Engine, task: OpsTask, op: WoundOp) -> None:
    tasks: list[WoundsTask] = [{"k": "wounds", "inv": i, "n": op.n, "source": task["src"]} for i in e.targets(task["inv"], op.who)]
    e.push(*tasks)


def op_sanity(e: Engine, task: OpsTask, op: SanityOp) -> None:
    cause = e.cause(task["src"])
    tasks: list[CountTask] = [
        {"k": "sanity", "inv": i, "n": op.n, **({"cause": cause} if cause else {})}  # type: ignore[typeddict-item]
        for i in e.targets(task["inv"], op.who)
    ]
    e.push(*tasks)


def op_heal(e: Engine, task: OpsTask, op: HealOp) -> None:
    for i in e.targets(task["inv"], op.who):
        inv = e.inv(i)
        w, st = min(op.wounds, inv.wounds), min(op.stress, inv.stress)
        inv.wounds -= w
        inv.stress -= st
        if w or st:
            e.emit({"type": "healed", "inv": i, "name": e.name(i), "wounds": w, "stress": st, "why": task["src"], "cause": e.cause(task["src"])})


def op_burn(e: Engine, task: OpsTask, op: BurnOp) -> None:
    for i in e.targets(task["inv"], op.who):
        harm.catch_fire(e, i, op.n, None, e.cause(task["src"]))


def op_token(e: Engine, task: OpsTask, op: TokenOp) -> None:
    for i in e.targets(task["inv"], op.who):
        held = e.inv(i).tokens
        old = held.get(op.token, 0)
        new = max(0, old + op.n)
        if new != old:
            held[op.token] = new
            e.emit({"type": "tokens_changed", "inv": i, "name": e.name(i), "token": op.token, "token_name": e.c.tokens[op.token].name, "n": new,
                    "change": new - old, "cause": e.cause(task["src"])})


def op_fire_space(e: Engine, task: OpsTask, op: FireSpaceOp) -> None:
    s = e.s
    space = e.place(task["inv"], op.at)
    n = min(op.n, s.fire_reserve)
    if n:
        s.fire_reserve -= n
        s.fire[space] = s.fire.get(space, 0) + n
        s.fire = dict(sorted(s.fire.items()))
        e.emit({"type": "fire_spread", "space": space, "space_name": e.space_name(space), "n": n, "total": s.fire[space], "cause": e.cause(task["src"])})


def op_douse(e: Engine, task: OpsTask, op: DouseOp) -> None:
    here = e.inv(task["inv"]).space
    spots = [here, *e.adj[here]] if op.near else [here]
    burning = [sp for sp in spots if e.s.fire.get(sp)]
    if not burning:
        return
    opts = [(Command.of("douse", at=sp), f"Put out Fire in {e.space_name(sp)} ({e.s.fire[sp]})") for sp in burning]
    e.ask({"k": "douse", "inv": task["inv"], "n": op.n}, "douse", task["inv"], "Where do you put out the flames?", opts)


def op_space_token(e: Engine, task: OpsTask, op: SpaceTokenOp) -> None:
    s = e.s
    space = e.place(task["inv"], op.at)
    held = s.space_tokens.setdefault(space, {})
    old = held.get(op.token, 0)
    new = max(0, old + op.n)
    held[op.token] = new
    if not new:
        del held[op.token]
    if not held:
        del s.space_tokens[space]
    s.space_tokens = {k: dict(sorted(v.items())) for k, v in sorted(s.space_tokens.items())}
    e.emit({"type": "space_tokens_changed", "space": space, "space_name": e.space_name(space), "token": op.token,
            "token_name": e.c.tokens[op.token].name, "n": new, "change": new - old, "cause": e.cause(task["src"])})


def op_summon(e: Engine, task: OpsTask, op: SummonOp) -> None:
    turn.summon(e, e.enemy_kind(op.enemy), e.place(task["inv"], op.at), e.cause(task["src"]))


def op_move_enemies(e: Engine, task: OpsTask, op: MoveEnemiesOp) -> None:
    """Towards "you": the investigator the effect is about (the active one, for Mythos cards)."""
    target = e.inv(task["inv"]).space
    dist = distances(e.adj, target)
    movers = [f for f in e.s.figures if e.matches(f, op.kind) and dist.get(f.space, 0) > 0]
    if not movers:
        return
    cause = e.cause(task["src"])
    why = {"cause": cause} if cause else {}
    if op.which == "closest":
        best = min(dist[f.space] for f in movers)
        movers = [f for f in movers if dist[f.space] == best]
        if len(movers) > 1:
            opts = [(Command.of("pick", figure=f.id), f"{e.the_enemy(f)} in {e.space_name(f.space)}") for f in movers]
            mover: PickMoverTask = {"k": "pick_mover", "inv": task["inv"], "steps": op.steps, **why}  # type: ignore[typeddict-item]
            e.ask(mover, "pick_enemy", e.s.active, "Which of the closest enemies moves?", opts)
            return
    tasks: list[AdvanceEnemyTask] = [
        {"k": "advance_enemy", "inv": task["inv"], "figure": f.id, "steps": op.steps, **why}  # type: ignore[typeddict-item]
        for f in movers
    ]
    e.push(*tasks)


def op_ritual(e: Engine, task: OpsTask, op: RitualOp) -> None:
    s = e.s
    ritual = e.c.episodes[s.episode].ritual
    s.ritual = min(ritual.needed, s.ritual + op.n)
    e.emit({"type": "ritual_progress", "progress": s.ritual, "needed": ritual.needed, "name": ritual.name, "cause": e.cause(task["src"])})
    if s.ritual >= ritual.needed and not s.disrupted:
        s.disrupted = s.disrupted_this_turn = True
        e.emit({"type": "ritual_disrupted", "name": ritual.name})


def op_place_elder(e: Engine, task: OpsTask, op: PlaceElderOp) -> None:
    s = e.s
    space = e.place(task["inv"], op.at)
    for f in s.figures:
        if f.kind == "elder_one":
            f.space = space
            e.emit({"type": "elder_moved", "name": e.elder().name, "space": space, "space_name": e.space_name(space), "cause": e.cause(task["src"])})
            return
    s.figures.append(Figure(id="elder_one", kind="elder_one", space=space))
    e.emit({"type": "elder_placed", "name": e.elder().name, "space": space, "space_name": e.space_name(space), "cause": e.cause(task["src"])})


def op_keep_mythos(e: Engine, task: OpsTask, op: KeepMythosOp) -> None:
    s = e.s
    if s.mythos_discard:
        card = s.mythos_discard.pop()
        e.inv(task["inv"]).kept.append(card)
        e.emit({"type": "mythos_kept", "inv": task["inv"], "name": e.name(task["inv"]), "card": e.mythos_card(card).name})


def op_claim(e: Engine, task: OpsTask, op: ClaimOp) -> None:
    card = task.get("card")
    if card is None or e.claimed(card):
        return
    inv = e.inv(task["inv"])
    inv.cards.append({"card": card, "side": op.side, "wounds": 0})
    half = e.half(inv.cards[-1])
    source = e.c.episodes[e.s.episode].discovery[int(card)].name
    e.emit({"type": "claimed", "inv": task["inv"], "name": e.name(task["inv"]), "card": half.name, "kind": half.kind, "text": half.text, "source": source})


def op_discard_card(e: Engine, task: OpsTask, op: DiscardCardOp) -> None:
    i = task["inv"]
    held = [n for n, h in enumerate(e.inv(i).cards) if op.kind == "any" or e.half(h).kind == op.kind]
    if not held:
        return
    opts = [(Command.of("discard", card=e.inv(i).cards[n]["card"]), f"Lose {e.half(e.inv(i).cards[n]).name}") for n in held]
    cause = e.cause(task["src"])
    asking: DiscardCardTask = {"k": "discard_card", "inv": i, **({"cause": cause} if cause else {})}  # type: ignore[typeddict-item]
    e.ask(asking, "discard_card", i, f"{e.name(i)} must lose a card", opts)


def op_if_holds(e: Engine, task: OpsTask, op: IfHoldsOp) -> None:
    halves = [e.half(h) for h in e.inv(task["inv"]).cards]
    held = any((op.card is None or h.name == op.card) and (op.kind is None or h.kind == op.kind) for h in halves)
    e.push({**task, "ops": op.then if held else op.otherwise})


def op_if_space_token(e: Engine, task: OpsTask, op: IfSpaceTokenOp) -> None:
    space = e.place(task["inv"], op.at)
    held = e.s.space_tokens.get(space, {}).get(op.token, 0) >= op.at_least
    e.push({**task, "ops": op.then if held else op.otherwise})


def op_if_tokens(e: Engine, task: OpsTask, op: IfTokensOp) -> None:
    hit = [i for i in e.targets(task["inv"], op.who) if e.inv(i).tokens.get(op.token, 0) >= op.at_least]
    tasks: list[OpsTask] = [{"k": "ops", "inv": i, "ops": op.then, "src": task["src"], "card": task["card"]} for i in hit]
    e.push(*tasks)


def op_choose(e: Engine, task: OpsTask, op: ChooseOp) -> None:
    opts = [(Command.of("choose", option=n), c.label) for n, c in enumerate(op.options)]
    e.ask({"k": "choose", "inv": task["inv"], "op": op, "src": task["src"], "card": task.get("card")}, "choose", task["inv"], "Choose:", opts)


def op_roll(e: Engine, task: OpsTask, op: RollOp) -> None:
    i = task["inv"]
    bonus = e.inv(i).bonus + e.mods(i)["check_dice"]
    e.push(
        {"k": "roll", "inv": i, "standard": e.c.rules.dice, "bonus": bonus, "own": True, "purpose": "check"},
        {"k": "check", "inv": i, "need": op.need, "success": op.success, "fail": op.fail, "src": task["src"], "card": task.get("card")},
    )


def step_ops(e: Engine, task: OpsTask) -> None:
    ops = task["ops"]
    if not ops:
        return
    op, rest = ops[0], ops[1:]
    if rest:
        e.push({**task, "ops": rest})
    if type(op) in NEEDS_LIVING_SUBJECT and not e.inv(task["inv"]).alive:
        return
    OPS[type(op)](e, task, op)


def answer_douse(e: Engine, task: CountTask, cmd: Command) -> None:
    s = e.s
    sp = cmd["at"]
    n = min(task["n"], s.fire.get(sp, 0))
    s.fire[sp] -= n
    if not s.fire[sp]:
        del s.fire[sp]
    s.fire_reserve += n
    e.emit({"type": "fire_doused", "inv": task["inv"], "space": sp, "space_name": e.space_name(sp), "n": n})


def answer_pick_mover(e: Engine, task: PickMoverTask, cmd: Command) -> None:
    advance: AdvanceEnemyTask = {"k": "advance_enemy", "inv": task["inv"], "figure": cmd["figure"], "steps": task["steps"]}
    if "cause" in task:
        advance["cause"] = task["cause"]
    e.push(advance)


def step_advance_enemy(e: Engine, task: AdvanceEnemyTask) -> None:
    """One step along a shortest path to the active investigator; ties are the active player's."""
    if not any(f.id == task["figure"] for f in e.s.figures) or task["steps"] <= 0:
        return
    f = e.s.figure(task["figure"])
    steps = next_steps(e.adj, f.space, e.inv(task["inv"]).space)
    if not steps:
        return
    if len(steps) > 1:
        opts = [(Command.of("path", to=sp), f"Through {e.space_name(sp)}") for sp in steps]
        e.ask(task, "enemy_path", e.s.active, f"{e.the_enemy(f)} closes in: which way?", opts)
        return
    enemy_step(e, task, steps[0])


def answer_advance_enemy(e: Engine, task: AdvanceEnemyTask, cmd: Command) -> None:
    enemy_step(e, task, cmd["to"])


def enemy_step(e: Engine, task: AdvanceEnemyTask, to: str) -> None:
    f = e.s.figure(task["figure"])
    f.space = to
    e.emit({"type": "enemy_moved", "figure": f.id, "kind": f.kind, "name": e.enemy_name(f), "to": to, "space_name": e.space_name(to),
            "cause": task.get("cause")})
    e.push({**task, "steps": task["steps"] - 1})


def answer_discard_card(e: Engine, task: DiscardCardTask, cmd: Command) -> None:
    harm.lose_card(e, task["inv"], cmd["card"], "effect", task.get("cause"))


def answer_choose(e: Engine, task: ChooseTask, cmd: Command) -> None:
    chosen = task["op"].options[cmd["option"]]
    e.emit({"type": "chose", "inv": task["inv"], "label": chosen.label, "cause": e.cause(task["src"])})
    e.push({"k": "ops", "inv": task["inv"], "ops": chosen.ops, "src": task["src"], "card": task.get("card")})


def step_check(e: Engine, task: CheckTask) -> None:
    i = task["inv"]
    t = e.tally(task["roll"])
    ok = t["success"] >= task["need"]
    e.emit({"type": "check_result", "inv": i, "name": e.name(i), "successes": t["success"], "need": task["need"], "passed": ok,
            "cause": e.cause(task["src"])})
    # Successes decide the outcome, the outcome's effects follow, tentacles come last.
    e.push(
        {"k": "ops", "inv": i, "ops": task["success"] if ok else task["fail"], "src": task["src"], "card": task.get("card")},
        e.tentacle_sanity(i, t, "check"),
    )


OPS: dict[type[Op], Callable[[Engine, OpsTask, Any], None]] = {
    StressOp: op_stress,
    WoundOp: op_wound,
    SanityOp: op_sanity,
    HealOp: op_heal,
    BurnOp: op_burn,
    TokenOp: op_token,
    FireSpaceOp: op_fire_space,
    DouseOp: op_douse,
    SpaceTokenOp: op_space_token,
    SummonOp: op_summon,
    MoveEnemiesOp: op_move_enemies,
    RitualOp: op_ritual,
    PlaceElderOp: op_place_elder,
    KeepMythosOp: op_keep_mythos,
    ClaimOp: op_claim,
    DiscardCardOp: op_discard_card,
    IfHoldsOp: op_if_holds,
    IfSpaceTokenOp: op_if_space_token,
    IfTokensOp: op_if_tokens,
    ChooseOp: op_choose,
    RollOp: op_roll,
}
