"""An investigator's actions: Run, Rest, Trade, the episode's actions (Attack starts in `fight`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..command import Command
from . import fight, harm
from .tasks import PhaseTask, RunTask, TradeTask
from .turnevents import ActionTaken

if TYPE_CHECKING:
    from .engine import Engine


def step_actions(e: Engine, task: PhaseTask) -> None:
    s = e.s
    i = task["inv"]
    s.phase = "actions"
    if s.actions_left <= 0:
        return
    inv = e.inv(i)
    opts: list[tuple[Command, str]] = []
    if e.adj[inv.space]:
        opts.append((Command.of("run"), "Run"))
    here = [f for f in s.enemies_at(inv.space) if e.attackable(f)]
    if here:
        if e.mods(i)["attack_all"] and len(here) > 1:
            opts.append((Command.of("attack", all=True), "Attack every enemy here"))
        for f in here:
            opts.append((Command.of("attack", target=f.id), f"Attack the {e.enemy_name(f)} ({f.wounds}/{e.enemy_health(f)} wounds)"))
    if e.safe(inv.space) and (inv.wounds or inv.stress):
        opts.append((Command.of("rest"), "Rest (heal wounds and/or stress)"))
    if trades(e, i):
        opts.append((Command.of("trade"), "Trade Items and Companions here"))
    for n, act in enumerate(e.c.episodes[s.episode].actions):
        if meets(e, i, act.requires):
            opts.append((Command.of("episode", action=n), f"{act.name}: {act.text}"))
    left = s.actions_left
    opts.append((Command.of("end_actions"), f"End actions ({left} unused)" if left else "End actions"))
    e.ask(task, "action", i, f"{e.name(i)}: choose an action ({left} of {e.c.rules.actions} left)", opts)


def answer_actions(e: Engine, task: PhaseTask, cmd: Command) -> None:
    s = e.s
    i = task["inv"]
    if cmd.kind == "end_actions":
        e.emit({"type": "actions_ended", "inv": i, "unused": s.actions_left})
        s.actions_left = 0
        return
    s.actions_left -= 1
    taken: ActionTaken = {"type": "action_taken", "inv": i, "action": cmd.kind, "left": s.actions_left}
    if cmd.kind == "episode":
        taken["episode_action"] = e.c.episodes[s.episode].actions[cmd["action"]].name
    e.emit(taken)
    e.push(task)  # the next action comes after this one resolves
    if cmd.kind == "run":
        e.push({"k": "run", "inv": i, "left": e.c.rules.run + e.mods(i)["run_bonus"], "moved": 0})
    elif cmd.kind == "attack":
        fight.start_attack(e, i, cmd)
    elif cmd.kind == "rest":
        e.push({"k": "rest", "inv": i})
    elif cmd.kind == "trade":
        e.push({"k": "trade", "inv": i})
    elif cmd.kind == "episode":
        act = e.c.episodes[s.episode].actions[cmd["action"]]
        e.run_ops(i, act.effect, act.name)


def meets(e: Engine, i: int, req: Any) -> bool:
    inv = e.inv(i)
    s = e.s
    if req.at and inv.space not in req.at:
        return False
    if req.safe and not e.safe(inv.space):
        return False
    if req.fire_here and not s.fire.get(inv.space):
        return False
    if req.space_token and not s.space_tokens.get(inv.space, {}).get(req.space_token):
        return False
    return all(inv.tokens.get(t, 0) >= n for t, n in req.tokens.items())


def trades(e: Engine, i: int) -> list[tuple[Command, str]]:
    """Every gift possible in the space: an Item or Companion from one investigator to another."""
    s = e.s
    if not any(inv.cards for inv in s.investigators):
        return []
    here = e.targets(i, "here")
    if len(here) < 2:
        return []
    out = []
    for giver in here:
        for held in e.inv(giver).cards:
            half = e.half(held)
            if half.kind == "condition":
                continue
            for taker in here:
                if taker != giver:
                    out.append((Command.of("give", card=held["card"], to=taker), f"{e.name(giver)} gives {half.name} to {e.name(taker)}"))
    return out


def step_trade(e: Engine, task: TradeTask) -> None:
    opts = trades(e, task["inv"])
    if task.get("given"):
        opts.append((Command.of("done"), "Done trading"))
    else:
        # Backing out before anything changed hands costs nothing: the action is given back.
        opts.append((Command.of("done"), "Back: trade nothing (the action is not spent)"))
    e.ask(task, "trade", task["inv"], "Trade: who gives what to whom?", opts)


def answer_trade(e: Engine, task: TradeTask, cmd: Command) -> None:
    i = task["inv"]
    given = task.get("given", 0)
    if cmd.kind == "done":
        if not given:
            e.s.actions_left += 1
        e.emit({"type": "trade_ended", "inv": i, "given": given, "refunded": not given})
        return
    giver_index, held = next((n, h) for n, g in enumerate(e.s.investigators) for h in g.cards if h["card"] == cmd["card"])
    e.inv(giver_index).cards.remove(held)
    e.inv(cmd["to"]).cards.append(held)  # a traded card keeps its side
    e.emit({"type": "traded", "card": e.half(held).name, "to": cmd["to"], "name": e.name(cmd["to"]), "frm": giver_index,
            "giver": e.name(giver_index)})
    e.push({**task, "given": given + 1})


def step_run(e: Engine, task: RunTask) -> None:
    i = task["inv"]
    inv = e.inv(i)
    if task["left"] <= 0:
        return
    moves = e.memo.get(("moves", inv.space))  # the same options from a space in every game of this episode
    if moves is None:
        moves = e.memo[("moves", inv.space)] = [(Command.of("move", to=sp), f"Move to {e.space_name(sp)}") for sp in e.adj[inv.space]]
    opts = list(moves)
    if task["moved"]:
        opts.append((Command.of("stop"), "Stop running"))
    e.ask(task, "run", i, f"{e.name(i)} runs: {task['left']} space(s) left", opts)


def answer_run(e: Engine, task: RunTask, cmd: Command) -> None:
    if cmd.kind == "stop":
        e.emit({"type": "run_stopped", "inv": task["inv"], "moved": task["moved"]})
        return
    move_investigator(e, task["inv"], cmd["to"])
    e.push({**task, "left": task["left"] - 1, "moved": task["moved"] + 1})


def move_investigator(e: Engine, i: int, dest: str) -> None:
    """Leave a space: catch its Fire, drag its enemies along, arrive."""
    s = e.s
    inv = e.inv(i)
    origin = inv.space
    burning = s.fire.get(origin, 0)
    if burning:
        harm.catch_fire(e, i, burning, origin, {"kind": "fire", "name": e.space_name(origin)})
    followers = [] if e.mods(i)["sneak"] else s.enemies_at(origin)
    for f in followers:
        f.space = dest
    inv.space = dest
    # Told as it is seen: the investigator moves, then the enemies follow.
    e.emit({"type": "moved", "inv": i, "name": e.name(i), "frm": origin, "to": dest, "space": e.space_name(dest)})
    for f in followers:
        e.emit({"type": "followed", "figure": f.id, "kind": f.kind, "name": e.enemy_name(f), "inv": i, "to": dest})


def step_rest(e: Engine, task: PhaseTask) -> None:
    i = task["inv"]
    inv = e.inv(i)
    amount = min(e.c.rules.rest + e.mods(i)["rest_bonus"], inv.wounds + inv.stress)
    opts = []
    for w in range(min(amount, inv.wounds), -1, -1):
        st = amount - w
        if st <= inv.stress:
            opts.append((Command.of("heal", wounds=w, stress=st), f"Heal {w} wound(s) and {st} stress"))
    e.ask(task, "rest", i, f"{e.name(i)} rests: heal {amount} in any split", opts)


def answer_rest(e: Engine, task: PhaseTask, cmd: Command) -> None:
    inv = e.inv(task["inv"])
    inv.wounds -= cmd["wounds"]
    inv.stress -= cmd["stress"]
    e.emit({"type": "rested", "inv": task["inv"], "name": e.name(task["inv"]), "wounds": cmd["wounds"], "stress": cmd["stress"]})
