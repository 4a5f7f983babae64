"""The main game's engine: a stack of plain-data tasks run until a decision is needed.

Every step of the turn, every roll and every consequence is a task (a dict with
a kind `k`) on `state.stack`. A task either finishes (perhaps pushing more
tasks) or asks a question by setting `state.pending` and leaving itself on the
stack; the answer is given to that same task. Because tasks are plain data,
the whole game, mid-roll or mid-run, can be hashed, copied and snapshotted.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..command import Command, Event
from .content import MainContent
from .mods import mods_of
from .state import Figure, Investigator, MainState

Task = dict[str, Any]
Events = list[Event]

# The phases of a turn, in order; a dead active investigator skips them all but these.
TURN_PHASES = ("actions", "invest_fight", "fire")
SURVIVES_DEATH = ("discard_check", "next_turn")


class Engine:
    """Runs tasks against one state with one content; holds no state of its own."""

    __slots__ = ("s", "c", "events", "adj")

    def __init__(self, state: MainState, content: MainContent, adjacency: dict[str, list[str]]) -> None:
        self.s = state
        self.c = content
        self.adj = adjacency
        self.events: Events = []

    # ------------------------------------------------------------------ driving

    def emit(self, type_: str, **data: Any) -> None:
        self.events.append(Event(type_, data))

    def push(self, *tasks: Task) -> None:
        """Push tasks so that the first one given runs first."""
        self.s.stack.extend(reversed(tasks))

    def ask(self, task: Task, kind: str, inv: int, text: str, options: list[tuple[Command, str]]) -> None:
        """Wait for a decision by the investigator's seat; the task stays on the stack."""
        self.s.stack.append(task)
        self.s.pending = {"kind": kind, "inv": inv, "seat": self.s.investigators[inv].seat, "text": text, "options": options}

    def run(self) -> Events:
        s = self.s
        while s.result is None:
            if s.pending is not None:
                if len(s.pending["options"]) != 1:
                    break
                # One way forward is no decision at all: take it.
                self.answer(s.pending["options"][0][0])
                continue
            if not s.stack:
                raise RuntimeError("the engine ran out of tasks")
            task = s.stack.pop()
            STEPS[task["k"]](self, task)
        return self.events

    def answer(self, command: Command) -> Events:
        s = self.s
        s.pending = None
        task = s.stack.pop()
        ANSWERS[task["k"]](self, task, command)
        return self.run()

    # ------------------------------------------------------------------ helpers

    def inv(self, i: int) -> Investigator:
        return self.s.investigators[i]

    def name(self, i: int) -> str:
        return self.c.investigators[self.inv(i).id].name

    def enemy_name(self, f: Figure) -> str:
        return self.c.enemies[f.kind].name

    def space_name(self, space: str) -> str:
        for t in self.c.episodes[self.s.episode].map.tiles:
            for sp in t.spaces:
                if sp.id == space:
                    return sp.name
        return space

    def safe(self, space: str) -> bool:
        return not any(f.space == space for f in self.s.figures)

    def mods(self, i: int) -> dict[str, Any]:
        inv = self.inv(i)
        return mods_of(self.c, inv.levels)

    def faces(self, die: str) -> list[str]:
        return self.c.dice.standard if die == "standard" else self.c.dice.bonus

    def tally(self, roll: dict[str, Any]) -> dict[str, int]:
        out = {"success": 0, "tentacle": 0, "elder": 0}
        for die, face in roll["dice"]:
            for sym in filter(None, self.faces(die)[face].split("+")):
                out[sym] += 1
        return out

    # ------------------------------------------------------------------ turn

    def step_turn(self, task: Task) -> None:
        s = self.s
        i = task["inv"]
        s.turn += 1
        s.active = i
        s.actions_left = self.c.rules.actions
        self.emit("turn_started", turn=s.turn, inv=i, name=self.name(i))
        self.push(
            {"k": "actions", "inv": i},
            {"k": "invest_fight", "inv": i},
            {"k": "fire", "inv": i},
            {"k": "discard_check", "inv": i},
            {"k": "next_turn", "inv": i},
        )

    def step_next_turn(self, task: Task) -> None:
        s = self.s
        self.emit("turn_ended", turn=s.turn, inv=task["inv"])
        n = len(s.investigators)
        for step in range(1, n + 1):
            j = (task["inv"] + step) % n
            if s.investigators[j].alive:
                self.push({"k": "turn", "inv": j})
                return
        self.lose("all_dead", "every investigator is dead")

    def step_discard_check(self, task: Task) -> None:
        """Mythos discard check: the Elder One's advance (needs the Mythos deck; see the next issue)."""

    # ------------------------------------------------------------------ actions

    def step_actions(self, task: Task) -> None:
        s = self.s
        i = task["inv"]
        s.phase = "actions"
        if s.actions_left <= 0:
            return
        inv = self.inv(i)
        opts: list[tuple[Command, str]] = []
        if self.adj[inv.space]:
            opts.append((Command.of("run"), "Run"))
        here = [f for f in s.enemies_at(inv.space) if self.attackable(f)]
        if here:
            if self.mods(i)["attack_all"] and len(here) > 1:
                opts.append((Command.of("attack", all=True), "Attack every enemy here"))
            for f in here:
                opts.append((Command.of("attack", target=f.id), f"Attack the {self.enemy_name(f)} ({f.wounds}/{self.c.enemies[f.kind].health} wounds)"))
        if self.safe(inv.space) and (inv.wounds or inv.stress):
            opts.append((Command.of("rest"), "Rest (heal wounds and/or stress)"))
        left = s.actions_left
        opts.append((Command.of("end_actions"), f"End actions ({left} unused)" if left else "End actions"))
        self.ask(task, "action", i, f"{self.name(i)}: choose an action ({left} of {self.c.rules.actions} left)", opts)

    def answer_actions(self, task: Task, cmd: Command) -> None:
        s = self.s
        i = task["inv"]
        if cmd.kind == "end_actions":
            self.emit("actions_ended", inv=i, unused=s.actions_left)
            s.actions_left = 0
            return
        s.actions_left -= 1
        self.emit("action_taken", inv=i, action=cmd.kind, left=s.actions_left)
        self.push(task)  # the next action comes after this one resolves
        if cmd.kind == "run":
            self.push({"k": "run", "inv": i, "left": self.c.rules.run + self.mods(i)["run_bonus"], "moved": 0})
        elif cmd.kind == "attack":
            self.start_attack(i, cmd)
        elif cmd.kind == "rest":
            self.push({"k": "rest", "inv": i})

    # Run ---------------------------------------------------------------

    def step_run(self, task: Task) -> None:
        i = task["inv"]
        inv = self.inv(i)
        if task["left"] <= 0:
            return
        opts = [(Command.of("move", to=sp), f"Move to {self.space_name(sp)}") for sp in self.adj[inv.space]]
        if task["moved"]:
            opts.append((Command.of("stop"), "Stop running"))
        self.ask(task, "run", i, f"{self.name(i)} runs: {task['left']} space(s) left", opts)

    def answer_run(self, task: Task, cmd: Command) -> None:
        if cmd.kind == "stop":
            return
        self.move_investigator(task["inv"], cmd["to"])
        self.push({**task, "left": task["left"] - 1, "moved": task["moved"] + 1})

    def move_investigator(self, i: int, dest: str) -> None:
        """Leave a space: catch its Fire, drag its enemies along, arrive."""
        s = self.s
        inv = self.inv(i)
        origin = inv.space
        burning = s.fire.get(origin, 0)
        if burning:
            self.catch_fire(i, burning, origin)
        if not self.mods(i)["sneak"]:
            for f in s.enemies_at(origin):
                f.space = dest
                self.emit("followed", figure=f.id, kind=f.kind, name=self.enemy_name(f), inv=i, to=dest)
        inv.space = dest
        self.emit("moved", inv=i, name=self.name(i), frm=origin, to=dest, space=self.space_name(dest))

    def catch_fire(self, i: int, n: int, origin: str | None) -> None:
        s = self.s
        inv = self.inv(i)
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
            self.emit("fire_caught", inv=i, name=self.name(i), tokens=tokens, stand_ins=wounds, frm=origin)

    # Rest --------------------------------------------------------------

    def step_rest(self, task: Task) -> None:
        i = task["inv"]
        inv = self.inv(i)
        amount = min(self.c.rules.rest + self.mods(i)["rest_bonus"], inv.wounds + inv.stress)
        opts = []
        for w in range(min(amount, inv.wounds), -1, -1):
            st = amount - w
            if st <= inv.stress:
                opts.append((Command.of("heal", wounds=w, stress=st), f"Heal {w} wound(s) and {st} stress"))
        self.ask(task, "rest", i, f"{self.name(i)} rests: heal {amount} in any split", opts)

    def answer_rest(self, task: Task, cmd: Command) -> None:
        inv = self.inv(task["inv"])
        inv.wounds -= cmd["wounds"]
        inv.stress -= cmd["stress"]
        self.emit("rested", inv=task["inv"], name=self.name(task["inv"]), wounds=cmd["wounds"], stress=cmd["stress"])

    # Attack ------------------------------------------------------------

    def attackable(self, f: Figure) -> bool:
        return f.kind in self.c.enemies

    def start_attack(self, i: int, cmd: Command) -> None:
        inv = self.inv(i)
        m = self.mods(i)
        if cmd.get("all"):
            targets = [f.id for f in self.s.enemies_at(inv.space) if self.attackable(f)]
        else:
            targets = [cmd["target"]]
        self.emit("attack_declared", inv=i, name=self.name(i), targets=targets)
        self.push(
            {"k": "roll", "inv": i, "standard": 3, "bonus": inv.bonus + m["attack_dice"], "own": True, "purpose": "attack"},
            {"k": "attack_hits", "inv": i, "targets": targets},
        )

    def step_attack_hits(self, task: Task) -> None:
        i = task["inv"]
        roll = task["roll"]
        t = self.tally(roll)
        hits = t["success"] + (t["elder"] if self.mods(i)["elder_hits"] else 0)
        # Successes first, then the roll's effects, then tentacles.
        self.push({"k": "sanity", "inv": i, "n": self.tentacles(i, t)})
        targets = [fid for fid in task["targets"] if any(f.id == fid for f in self.s.figures)]
        if len(targets) == 1:
            self.wound_enemy(i, targets[0], hits)
        elif targets and hits:
            self.push({"k": "assign_hits", "inv": i, "targets": targets, "hits": hits})

    def step_assign_hits(self, task: Task) -> None:
        i = task["inv"]
        alive = [f for f in self.s.figures if f.id in task["targets"]]
        if not alive or task["hits"] <= 0:
            return
        opts = [
            (Command.of("hit", target=f.id), f"{self.enemy_name(f)} ({f.wounds}/{self.c.enemies[f.kind].health} wounds)")
            for f in alive
        ]
        self.ask(task, "assign_hit", i, f"{self.name(i)}: where does the next hit land? ({task['hits']} left)", opts)

    def answer_assign_hits(self, task: Task, cmd: Command) -> None:
        self.push({**task, "hits": task["hits"] - 1})
        self.wound_enemy(task["inv"], cmd["target"], 1)

    def wound_enemy(self, i: int, fid: str, n: int) -> None:
        s = self.s
        f = s.figure(fid)
        ref = self.c.enemies[f.kind]
        if n <= 0:
            self.emit("attack_missed", inv=i, figure=fid, name=ref.name)
            return
        f.wounds += n
        self.emit("enemy_wounded", inv=i, figure=fid, name=ref.name, n=n, wounds=f.wounds, health=ref.health)
        if f.wounds >= ref.health:
            s.figures.remove(f)
            s.reserve[f.kind] = s.reserve.get(f.kind, 0) + 1
            self.emit("enemy_killed", inv=i, figure=fid, name=ref.name, space=f.space)

    # Rolls -------------------------------------------------------------

    def step_roll(self, task: Task) -> None:
        """Roll, then hand the dice to the task below once rerolls are done."""
        s = self.s
        i = task["inv"]
        dice = []
        # Callers decide the bonus dice: the investigator's own on their rolls, the enemy's on its attack.
        for die, n in (("standard", task["standard"]), ("bonus", task["bonus"])):
            for _ in range(n):
                dice.append([die, s.rng.face("dice", self.faces(die))])
        roll = {"inv": i, "dice": dice, "own": task["own"], "purpose": task["purpose"], "free": self.mods(i)["free_rerolls"]}
        s.last_roll = roll
        self.emit("dice_rolled", inv=i, purpose=task["purpose"], dice=[[d, self.faces(d)[f]] for d, f in dice])
        self.push({"k": "reroll", "inv": i, "roll": roll})

    def step_reroll(self, task: Task) -> None:
        i = task["inv"]
        inv = self.inv(i)
        roll = task["roll"]
        opts = [(Command.of("keep"), "Keep these dice")]
        free = roll["free"] > 0
        if free or inv.stress < self.c.investigators[inv.id].stress:
            cost = "free" if free else "1 stress"
            for n, (die, face) in enumerate(roll["dice"]):
                shown = self.faces(die)[face] or "blank"
                opts.append((Command.of("reroll", die=n), f"Reroll die {n + 1} ({die}: {shown}) for {cost}"))
        self.ask(task, "reroll", i, f"{self.name(i)}: keep the dice or reroll one", opts)

    def answer_reroll(self, task: Task, cmd: Command) -> None:
        s = self.s
        i = task["inv"]
        roll = task["roll"]
        if cmd.kind == "keep":
            s.stack[-1]["roll"] = roll
            return
        n = cmd["die"]
        if roll["free"] > 0:
            roll["free"] -= 1
        else:
            self.inv(i).stress += 1
            self.emit("stress_taken", inv=i, name=self.name(i), n=1, stress=self.inv(i).stress, why="reroll")
        die = roll["dice"][n][0]
        roll["dice"][n][1] = s.rng.face("dice", self.faces(die))
        s.last_roll = roll
        self.emit("die_rerolled", inv=i, die=n, face=self.faces(die)[roll["dice"][n][1]], dice=[[d, self.faces(d)[f]] for d, f in roll["dice"]])
        self.push(task)

    def tentacles(self, i: int, t: dict[str, int]) -> int:
        return max(0, t["tentacle"] - self.mods(i)["calm"])

    # Investigate or fight ---------------------------------------------

    def step_invest_fight(self, task: Task) -> None:
        s = self.s
        i = task["inv"]
        s.phase = "invest_fight"
        if self.safe(self.inv(i).space):
            self.emit("investigated", inv=i, name=self.name(i), space=self.inv(i).space)
            return
        self.push({"k": "fight", "inv": i, "done": []})

    def step_fight(self, task: Task) -> None:
        """Each enemy in the space attacks once, in the order the investigator picks."""
        i = task["inv"]
        waiting = [f for f in self.s.enemies_at(self.inv(i).space) if f.id not in task["done"]]
        if not waiting:
            return
        opts = [(Command.of("defend", against=f.id), f"{self.enemy_name(f)} attacks next") for f in waiting]
        self.ask(task, "attack_order", i, f"{self.name(i)}: which enemy attacks next?", opts)

    def answer_fight(self, task: Task, cmd: Command) -> None:
        i = task["inv"]
        fid = cmd["against"]
        f = self.s.figure(fid)
        ref = self.c.enemies[f.kind]
        self.push({"k": "fight", "inv": i, "done": [*task["done"], fid]})
        self.emit("enemy_attacks", figure=fid, name=ref.name, inv=i, target=self.name(i))
        # The enemy's own dice only: never the defender's bonus dice.
        self.push(
            {"k": "roll", "inv": i, "standard": ref.standard, "bonus": ref.bonus, "own": False, "purpose": "defend"},
            {"k": "enemy_hits", "inv": i, "figure": fid, "kind": f.kind},
        )

    def step_enemy_hits(self, task: Task) -> None:
        i = task["inv"]
        m = self.mods(i)
        t = self.tally(task["roll"])
        ability = self.c.enemies[task["kind"]].ability
        hits = t["success"]
        if ability is not None and ability.kind == "frenzy":
            hits += t["elder"]
        if m["elder_shield"]:
            hits = max(0, hits - t["elder"])
        hits = max(0, hits - m["armor"])
        self.push({"k": "sanity", "inv": i, "n": self.tentacles(i, t)})
        if ability is not None and t["elder"]:
            if ability.kind == "ignite":
                self.push({"k": "ignite", "inv": i, "n": t["elder"]})
            elif ability.kind == "drain":
                self.push({"k": "stress", "inv": i, "n": t["elder"], "why": ability.text})
        if hits:
            self.push({"k": "wounds", "inv": i, "n": hits, "source": task["kind"]})

    def step_ignite(self, task: Task) -> None:
        self.catch_fire(task["inv"], task["n"], None)

    # Fire --------------------------------------------------------------

    def step_fire(self, task: Task) -> None:
        i = task["inv"]
        inv = self.inv(i)
        self.s.phase = "fire"
        n = inv.fire + inv.fire_wounds
        if n <= 0:
            return
        self.emit("burning", inv=i, name=self.name(i), tokens=n)
        self.push(
            {"k": "roll", "inv": i, "standard": n, "bonus": 0, "own": False, "purpose": "fire"},
            {"k": "fire_hits", "inv": i},
        )

    def step_fire_hits(self, task: Task) -> None:
        i = task["inv"]
        t = self.tally(task["roll"])
        self.push(
            {"k": "wounds", "inv": i, "n": t["success"], "source": "fire"},
            {"k": "sanity", "inv": i, "n": self.tentacles(i, t)},
            {"k": "fire_out", "inv": i},
        )

    def step_fire_out(self, task: Task) -> None:
        self.douse(task["inv"])

    def douse(self, i: int) -> None:
        s = self.s
        inv = self.inv(i)
        if inv.fire or inv.fire_wounds:
            s.fire_reserve += inv.fire
            s.wound_tokens += inv.fire_wounds
            self.emit("fire_out", inv=i, tokens=inv.fire + inv.fire_wounds)
            inv.fire = inv.fire_wounds = 0

    # Harm --------------------------------------------------------------

    def step_wounds(self, task: Task) -> None:
        i = task["inv"]
        inv = self.inv(i)
        n = task["n"]
        if n <= 0 or not inv.alive:
            return
        health = self.c.investigators[inv.id].health
        inv.wounds = min(health, inv.wounds + n)
        self.emit("wounded", inv=i, name=self.name(i), n=n, wounds=inv.wounds, health=health, source=task.get("source"))
        if inv.wounds >= health:
            self.kill(i, "killed")

    def step_stress(self, task: Task) -> None:
        i = task["inv"]
        inv = self.inv(i)
        cap = self.c.investigators[inv.id].stress
        n = min(task["n"], cap - inv.stress)
        if n > 0:
            inv.stress += n
            self.emit("stress_taken", inv=i, name=self.name(i), n=n, stress=inv.stress, why=task.get("why", ""))

    def step_sanity(self, task: Task) -> None:
        """Move the marker right; a threshold stops it (the rest is ignored), the skull kills."""
        i = task["inv"]
        inv = self.inv(i)
        if task["n"] <= 0 or not inv.alive:
            return
        ref = self.c.investigators[inv.id]
        lost = 0
        for _ in range(task["n"]):
            inv.sanity += 1
            lost += 1
            if inv.sanity >= ref.sanity:
                self.emit("sanity_lost", inv=i, name=self.name(i), n=lost, sanity=inv.sanity, skull=ref.sanity)
                self.kill(i, "madness")
                return
            if inv.sanity in ref.thresholds:
                break
        self.emit("sanity_lost", inv=i, name=self.name(i), n=lost, sanity=inv.sanity, skull=ref.sanity)
        if inv.sanity in ref.thresholds and inv.sanity not in inv.reached:
            inv.reached.append(inv.sanity)
            self.push({"k": "threshold", "inv": i, "at": inv.sanity, "ignored": task["n"] - lost})

    def step_threshold(self, task: Task) -> None:
        i = task["inv"]
        inv = self.inv(i)
        ref = self.c.investigators[inv.id]
        self.emit("threshold_reached", inv=i, name=self.name(i), at=task["at"], ignored=task["ignored"])
        if task["at"] in ref.bonus_thresholds:
            inv.bonus += 1
            self.emit("bonus_die_gained", inv=i, name=self.name(i), bonus=inv.bonus)
        opts = [
            (Command.of("level_up", skill=sk), f"{self.c.skills[sk].name} to level {inv.levels[sk] + 1}: {self.c.skills[sk].levels[inv.levels[sk]].text}")
            for sk in ref.skills
            if inv.levels[sk] < 4
        ]
        if opts:
            self.ask({"k": "level_up", "inv": i}, "level_up", i, f"{self.name(i)} crosses a threshold: level up a skill", opts)

    def answer_level_up(self, task: Task, cmd: Command) -> None:
        i = task["inv"]
        inv = self.inv(i)
        sk = cmd["skill"]
        inv.levels[sk] += 1
        self.emit("skill_leveled", inv=i, name=self.name(i), skill=sk, skill_name=self.c.skills[sk].name, level=inv.levels[sk])

    def kill(self, i: int, cause: str) -> None:
        """An investigator dies: tokens go back, their pending harm is dropped, the turn is cut."""
        s = self.s
        inv = self.inv(i)
        if not inv.alive:
            return
        self.douse(i)
        inv.alive = False
        inv.cause = cause
        self.emit("investigator_died", inv=i, name=self.name(i), cause=cause, space=inv.space)
        active_died = i == s.active
        kept = []
        for t in s.stack:
            if t["k"] in SURVIVES_DEATH:
                kept.append(t)
            elif t.get("inv") == i or (active_died and t["k"] in TURN_PHASES):
                continue
            else:
                kept.append(t)
        s.stack[:] = kept
        if active_died:
            s.actions_left = 0
        if not self.elder_on_board():
            self.lose("died_before_summoning", f"{self.name(i)} died before the Elder One took the board")
        elif not any(x.alive for x in s.investigators):
            self.lose("all_dead", "every investigator is dead")

    def elder_on_board(self) -> bool:
        return any(f.kind == "elder_one" for f in self.s.figures)

    def lose(self, cause: str, text: str) -> None:
        """End the game lost; `cause` is a short code for summaries, `text` is for people."""
        s = self.s
        if s.result is None:
            s.result = "lost"
            s.cause = cause
            s.pending = None
            self.emit("game_lost", cause=cause, text=text)


STEPS: dict[str, Callable[[Engine, Task], None]] = {
    "turn": Engine.step_turn,
    "next_turn": Engine.step_next_turn,
    "discard_check": Engine.step_discard_check,
    "actions": Engine.step_actions,
    "run": Engine.step_run,
    "rest": Engine.step_rest,
    "attack_hits": Engine.step_attack_hits,
    "assign_hits": Engine.step_assign_hits,
    "roll": Engine.step_roll,
    "reroll": Engine.step_reroll,
    "invest_fight": Engine.step_invest_fight,
    "fight": Engine.step_fight,
    "enemy_hits": Engine.step_enemy_hits,
    "ignite": Engine.step_ignite,
    "fire": Engine.step_fire,
    "fire_hits": Engine.step_fire_hits,
    "fire_out": Engine.step_fire_out,
    "wounds": Engine.step_wounds,
    "stress": Engine.step_stress,
    "sanity": Engine.step_sanity,
    "threshold": Engine.step_threshold,
}

ANSWERS: dict[str, Callable[[Engine, Task, Command], None]] = {
    "actions": Engine.answer_actions,
    "run": Engine.answer_run,
    "rest": Engine.answer_rest,
    "assign_hits": Engine.answer_assign_hits,
    "reroll": Engine.answer_reroll,
    "fight": Engine.answer_fight,
    "level_up": Engine.answer_level_up,
}
