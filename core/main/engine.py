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
from .content import ElderOne, Half, MainContent, Mythos
from .effects import Effects
from .mods import mods_of
from .state import Figure, Investigator, MainState

Task = dict[str, Any]
Events = list[Event]

# What a death does to the work still queued (RULES.md, "Decided after the first audit"). Every task
# kind is in exactly one of these three sets (a test keeps it so), so a new kind must be placed on purpose.
#
# The dead investigator's own steps: their actions, rolls, harm and choices. Nobody is left to take them.
PERSONAL = frozenset({
    "run", "rest", "trade", "attack_hits", "assign_hits", "roll", "reroll", "check", "fight", "enemy_hits",
    "ignite", "fire_hits", "fire_out", "wounds", "stress", "sanity", "threshold", "level_up",
})
# The turn phases a death of the active investigator skips (seed: "skip all the following turn phases"
# except the Mythos discard check).
SKIPPED_PHASES = frozenset({"actions", "mythos", "invest_fight", "eot_effects", "fire", "elder_eot"})
# Everything else outlives any death: effects being resolved (a Mythos card, an advance, a Stage reveal)
# run to their end, with the dead investigator's space standing for "you"; summon lines, discards, the
# reshuffle after an advance, the discard and summoning checks and the next turn all happen.
OUTLIVES_DEATH = frozenset({
    "turn", "next_turn", "discard_check", "summon_check", "mythos_discard", "summons", "reshuffle",
    "discovery_done", "ops", "advance_enemy", "pick_mover", "douse", "discard_card", "choose",
})
ELDER = "elder_one"


class Engine(Effects):
    """Runs tasks against one state with one content; holds no state of its own."""

    __slots__ = ("s", "c", "events", "adj", "memo")

    def __init__(self, state: MainState, content: MainContent, adjacency: dict[str, list[str]], memo: dict | None = None) -> None:
        self.s = state
        self.c = content
        self.adj = adjacency
        self.events: Events = []
        # Derived values that depend on content only (space names, modifier sums), kept per game.
        self.memo = memo if memo is not None else {}

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
        return self.elder().name if f.kind == ELDER else self.c.enemies[f.kind].name

    def enemy_health(self, f: Figure) -> int:
        if f.kind == ELDER:
            return self.elder().stages[self.s.stage].health or 0
        return self.c.enemies[f.kind].health

    def elder(self) -> ElderOne:
        return self.c.elder_ones[self.s.elder_one]

    def mythos_card(self, card: str) -> Mythos:
        deck, n = card.split(":")
        source = self.elder().mythos if deck == "eo" else self.c.episodes[self.s.episode].mythos
        return source[int(n)]

    def half(self, held: dict[str, Any]) -> Half:
        card = self.c.episodes[self.s.episode].discovery[int(held["card"])]
        return card.left if held["side"] == "left" else card.right

    def space_name(self, space: str) -> str:
        names = self.memo.get("names")
        if names is None:
            names = self.memo["names"] = {sp.id: sp.name for t in self.c.episodes[self.s.episode].map.tiles for sp in t.spaces}
        return names.get(space, space)

    def safe(self, space: str) -> bool:
        return not any(f.space == space for f in self.s.figures)

    def levels(self, i: int) -> dict[str, int]:
        """Skill levels with Companions' levels added (level 1 of a skill the investigator lacks)."""
        inv = self.inv(i)
        if not inv.cards:
            return inv.levels
        out = dict(inv.levels)
        for held in inv.cards:
            h = self.half(held)
            if h.skill:
                out[h.skill] = min(4, out.get(h.skill, 0) + 1)
        return out

    def mods(self, i: int) -> dict[str, Any]:
        """Skills (with Companions' levels) plus the modifiers of held cards."""
        inv = self.inv(i)
        if not inv.cards:
            return mods_of(self.c, inv.levels)
        key = (tuple(sorted(inv.levels.items())), tuple((h["card"], h["side"]) for h in inv.cards))
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        total = dict(mods_of(self.c, self.levels(i)))
        for held in inv.cards:
            for k, value in self.half(held).mods:
                total[k] = (total[k] or value) if isinstance(value, bool) else total[k] + value
        self.memo[key] = total
        return total

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
        s.disrupted_this_turn = False
        s.advanced_this_turn = False
        self.emit("turn_started", turn=s.turn, inv=i, name=self.name(i))
        self.push(
            {"k": "actions", "inv": i},
            {"k": "mythos", "inv": i},
            {"k": "invest_fight", "inv": i},
            {"k": "eot_effects", "inv": i},
            {"k": "fire", "inv": i},
            {"k": "discard_check", "inv": i},
            {"k": "summon_check", "inv": i},
            {"k": "elder_eot", "inv": i},
            {"k": "next_turn", "inv": i},
        )
        # Mythos cards kept by an insanity strike again at the start of the holder's turn.
        for card in reversed(self.inv(i).kept):
            self.emit("mythos_recurs", inv=i, name=self.name(i), card=self.mythos_card(card).name)
            self.run_ops(i, self.mythos_card(card).effect, self.mythos_card(card).name)

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

    # ------------------------------------------------------------------ Mythos

    def shuffle_discard_into_deck(self) -> None:
        s = self.s
        s.mythos_deck.extend(s.mythos_discard)
        s.mythos_discard.clear()
        s.rng.shuffle("hidden", s.mythos_deck)
        self.emit("mythos_shuffled", deck=len(s.mythos_deck))

    def step_mythos(self, task: Task) -> None:
        s = self.s
        s.phase = "mythos"
        i = task["inv"]
        if not s.mythos_deck:
            self.shuffle_discard_into_deck()
        if not s.mythos_deck:
            return
        card_id = s.mythos_deck.pop()
        card = self.mythos_card(card_id)
        self.emit("mythos_drawn", inv=i, card=card.name, text=card.text, summoning=card.summoning)
        # Top to bottom: the summoning symbol does nothing now, then the effect, then the summons.
        self.push({"k": "mythos_discard", "inv": i, "card": card_id})
        if card.summons:
            self.push({"k": "summons", "inv": i, "card": card_id})
        self.run_ops(i, card.effect, card.name)

    def step_summons(self, task: Task) -> None:
        m = self.c.episodes[self.s.episode].map
        for line in self.mythos_card(task["card"]).summons:
            if not self.summon(self.enemy_kind(line.enemy), m.gates[line.gate]):
                break  # out of figures: this and the card's later gates are skipped

    def step_mythos_discard(self, task: Task) -> None:
        self.s.mythos_discard.append(task["card"])

    def summoning_symbols(self) -> int:
        return sum(1 for card in self.s.mythos_discard if self.mythos_card(card).summoning)

    def step_discard_check(self, task: Task) -> None:
        """Three summoning symbols in the discard: the Elder One (or its Progression token) advances."""
        s = self.s
        s.phase = "end_of_turn"
        if s.advanced_this_turn or self.summoning_symbols() < 3:
            return
        s.advanced_this_turn = True
        eo = self.elder()
        s.track += 1
        self.emit("elder_advanced", name=eo.name, track=s.track, last=eo.track, token="progression" if s.summoned else "figure")
        if s.summoned and s.track >= eo.track:
            self.lose("track_end", "the Progression token reached the last space of the summoning track")
            return
        self.push({"k": "reshuffle", "inv": task["inv"]})
        # The Elder One's effects first, then the episode's.
        self.run_ops(s.active, self.c.episodes[s.episode].on_advance, self.c.episodes[s.episode].name)
        for stage in reversed(eo.stages[: s.stage + 1]):
            self.run_ops(s.active, stage.on_advance, stage.name)

    def step_reshuffle(self, task: Task) -> None:
        self.shuffle_discard_into_deck()

    def step_summon_check(self, task: Task) -> None:
        s = self.s
        eo = self.elder()
        if s.summoned or not (s.track >= eo.first_red or s.disrupted_this_turn):
            return
        s.summoned = True
        s.stage = 1
        self.emit("elder_summoned", name=eo.name, track=s.track, why="ritual" if s.disrupted_this_turn else "track")
        self.emit("stage_revealed", name=eo.stages[1].name, stage=1, text=eo.stages[1].text)
        self.run_ops(s.active, eo.stages[1].reveal, eo.stages[1].name)

    def step_elder_eot(self, task: Task) -> None:
        s = self.s
        eo = self.elder()
        for stage in reversed(eo.stages[: s.stage + 1]):
            self.run_ops(s.active, stage.end_of_turn, stage.name)

    def step_eot_effects(self, task: Task) -> None:
        """End-of-turn effects other than the Elder One's: regenerating enemies heal."""
        self.s.phase = "end_of_turn"
        for f in self.s.figures:
            ref = self.c.enemies.get(f.kind)
            if ref is not None and ref.ability is not None and ref.ability.kind == "regenerate" and f.wounds:
                f.wounds = 0
                self.emit("enemy_regenerated", figure=f.id, name=ref.name)
                self.emit("ability_used", kind=f.kind, ability="regenerate", n=1)

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
                opts.append((Command.of("attack", target=f.id), f"Attack the {self.enemy_name(f)} ({f.wounds}/{self.enemy_health(f)} wounds)"))
        if self.safe(inv.space) and (inv.wounds or inv.stress):
            opts.append((Command.of("rest"), "Rest (heal wounds and/or stress)"))
        if self.trades(i):
            opts.append((Command.of("trade"), "Trade Items and Companions here"))
        for n, act in enumerate(self.c.episodes[s.episode].actions):
            if self.meets(i, act.requires):
                opts.append((Command.of("episode", action=n), f"{act.name}: {act.text}"))
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
        extra = {"episode_action": self.c.episodes[s.episode].actions[cmd["action"]].name} if cmd.kind == "episode" else {}
        self.emit("action_taken", inv=i, action=cmd.kind, left=s.actions_left, **extra)
        self.push(task)  # the next action comes after this one resolves
        if cmd.kind == "run":
            self.push({"k": "run", "inv": i, "left": self.c.rules.run + self.mods(i)["run_bonus"], "moved": 0})
        elif cmd.kind == "attack":
            self.start_attack(i, cmd)
        elif cmd.kind == "rest":
            self.push({"k": "rest", "inv": i})
        elif cmd.kind == "trade":
            self.push({"k": "trade", "inv": i})
        elif cmd.kind == "episode":
            act = self.c.episodes[s.episode].actions[cmd["action"]]
            self.run_ops(i, act.effect, act.name)

    def meets(self, i: int, req: Any) -> bool:
        inv = self.inv(i)
        s = self.s
        if req.at and inv.space not in req.at:
            return False
        if req.safe and not self.safe(inv.space):
            return False
        if req.fire_here and not s.fire.get(inv.space):
            return False
        if req.space_token and not s.space_tokens.get(inv.space, {}).get(req.space_token):
            return False
        return all(inv.tokens.get(t, 0) >= n for t, n in req.tokens.items())

    # Trade -------------------------------------------------------------

    def trades(self, i: int) -> list[tuple[Command, str]]:
        """Every gift possible in the space: an Item or Companion from one investigator to another."""
        s = self.s
        if not any(inv.cards for inv in s.investigators):
            return []
        here = self.targets(i, "here")
        if len(here) < 2:
            return []
        out = []
        for giver in here:
            for held in self.inv(giver).cards:
                half = self.half(held)
                if half.kind == "condition":
                    continue
                for taker in here:
                    if taker != giver:
                        out.append((Command.of("give", card=held["card"], to=taker), f"{self.name(giver)} gives {half.name} to {self.name(taker)}"))
        return out

    def step_trade(self, task: Task) -> None:
        opts = self.trades(task["inv"])
        opts.append((Command.of("done"), "Done trading"))
        self.ask(task, "trade", task["inv"], "Trade: who gives what to whom?", opts)

    def answer_trade(self, task: Task, cmd: Command) -> None:
        if cmd.kind == "done":
            return
        giver, held = next((g, h) for g in self.s.investigators for h in g.cards if h["card"] == cmd["card"])
        giver.cards.remove(held)
        self.inv(cmd["to"]).cards.append(held)  # a traded card keeps its side
        self.emit("traded", card=self.half(held).name, to=cmd["to"], name=self.name(cmd["to"]))
        self.push(task)

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
        """The Elder One cannot be attacked or damaged until the ritual is disrupted."""
        return f.kind != ELDER or self.s.disrupted

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
        # The Stage the roll was made against: hits never follow the Elder One into the next one.
        task = {**task, "stage": self.s.stage}
        targets = [f.id for f in self.hit_targets(task)]
        if len(targets) == 1:
            self.wound_enemy(i, targets[0], hits)
        elif targets and hits:
            self.push({"k": "assign_hits", "inv": i, "targets": targets, "hits": hits, "stage": task["stage"]})

    def hit_targets(self, task: Task) -> list[Figure]:
        """The declared targets a hit may still land on, checked against the table as it is now:
        alive, in the attacker's space, attackable, and (for the Elder One) still at the Stage rolled against."""
        s = self.s
        here = self.inv(task["inv"]).space
        return [
            f for f in s.figures
            if f.id in task["targets"] and f.space == here and self.attackable(f) and (f.kind != ELDER or s.stage == task["stage"])
        ]

    def step_assign_hits(self, task: Task) -> None:
        i = task["inv"]
        alive = self.hit_targets(task)
        if not alive or task["hits"] <= 0:
            return
        opts = [(Command.of("hit", target=f.id), f"{self.enemy_name(f)} ({f.wounds}/{self.enemy_health(f)} wounds)") for f in alive]
        self.ask(task, "assign_hit", i, f"{self.name(i)}: where does the next hit land? ({task['hits']} left)", opts)

    def answer_assign_hits(self, task: Task, cmd: Command) -> None:
        self.push({**task, "hits": task["hits"] - 1})
        self.wound_enemy(task["inv"], cmd["target"], 1)

    def wound_enemy(self, i: int, fid: str, n: int) -> None:
        """`n` hits on one figure that `hit_targets` allowed; wounds past its health are lost."""
        s = self.s
        f = s.figure(fid)
        name, health = self.enemy_name(f), self.enemy_health(f)
        if n <= 0:
            self.emit("attack_missed", inv=i, figure=fid, name=name)
            return
        f.wounds += n
        self.emit("enemy_wounded", inv=i, figure=fid, name=name, n=n, wounds=f.wounds, health=health)
        if f.wounds < health:
            return
        if f.kind == ELDER:
            self.defeat_stage(f)
            return
        s.figures.remove(f)
        s.reserve[f.kind] = s.reserve.get(f.kind, 0) + 1
        self.emit("enemy_killed", inv=i, figure=fid, name=name, space=f.space)

    def defeat_stage(self, f: Figure) -> None:
        """A stage falls; excess wounds are lost; the next stage is revealed, or the game is won."""
        s = self.s
        eo = self.elder()
        self.emit("stage_defeated", name=eo.stages[s.stage].name, stage=s.stage, excess=f.wounds - (eo.stages[s.stage].health or 0))
        f.wounds = 0
        if s.stage == len(eo.stages) - 1:
            s.figures.remove(f)
            s.result = "won"
            s.cause = "elder_defeated"
            s.pending = None
            self.emit("game_won", name=eo.name)
            return
        s.stage += 1
        self.emit("stage_revealed", name=eo.stages[s.stage].name, stage=s.stage, text=eo.stages[s.stage].text)
        self.run_ops(s.active, eo.stages[s.stage].reveal, eo.stages[s.stage].name)

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
            self.investigate(i)
            return
        self.push({"k": "fight", "inv": i, "done": []})

    def investigate(self, i: int) -> None:
        s = self.s
        self.emit("investigated", inv=i, name=self.name(i), space=self.inv(i).space)
        if not s.discovery_deck:
            self.emit("discovery_empty")
            return
        card_id = s.discovery_deck.pop()
        card = self.c.episodes[s.episode].discovery[int(card_id)]
        halves = {side: {"name": h.name, "kind": h.kind, "text": h.text} for side, h in (("left", card.left), ("right", card.right)) if h}
        self.emit("discovery_drawn", inv=i, card=card.name, text=card.text, **halves)
        self.push({"k": "discovery_done", "inv": i, "card": card_id})
        self.run_ops(i, card.effect, card.name, card=card_id)

    def step_discovery_done(self, task: Task) -> None:
        """Discard the card unless it was claimed (or already lost again while it resolved)."""
        card = task["card"]
        if not self.claimed(card) and card not in self.s.discovery_discard:
            self.s.discovery_discard.append(card)

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
        self.push({"k": "fight", "inv": i, "done": [*task["done"], fid]})
        self.emit("enemy_attacks", figure=fid, name=self.enemy_name(f), inv=i, target=self.name(i))
        standard, bonus = self.attack_dice(f)
        # The enemy's own dice only: never the defender's bonus dice.
        self.push(
            {"k": "roll", "inv": i, "standard": standard, "bonus": bonus, "own": False, "purpose": "defend"},
            {"k": "enemy_hits", "inv": i, "figure": fid, "kind": f.kind},
        )

    def attack_dice(self, f: Figure) -> tuple[int, int]:
        """An enemy's reference dice; the Elder One rolls the sum over its revealed stages."""
        if f.kind == ELDER:
            stages = self.elder().stages[1 : self.s.stage + 1]
            return sum(st.standard for st in stages), sum(st.bonus for st in stages)
        ref = self.c.enemies[f.kind]
        return ref.standard, ref.bonus

    def step_enemy_hits(self, task: Task) -> None:
        i = task["inv"]
        m = self.mods(i)
        t = self.tally(task["roll"])
        ability = self.c.enemies[task["kind"]].ability if task["kind"] != ELDER else None
        hits = t["success"]
        if ability is not None and t["elder"] and ability.kind in ("frenzy", "ignite", "drain"):
            self.emit("ability_used", kind=task["kind"], ability=ability.kind, n=t["elder"])
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
        companions = [h for h in inv.cards if self.half(h).kind == "companion"]
        if companions:
            # Each wound may land on a Companion instead; it still counts as the investigator's.
            opts = [(Command.of("take", card=None), f"{self.name(i)} takes it")]
            for h in companions:
                half = self.half(h)
                opts.append((Command.of("take", card=h["card"]), f"{half.name} takes it ({h['wounds']}/{half.health})"))
            self.ask(task, "wound_to", i, f"{self.name(i)} takes {n} wound(s): who takes the next one?", opts)
            return
        self.wound_investigator(i, n, task.get("source"))

    def answer_wounds(self, task: Task, cmd: Command) -> None:
        i = task["inv"]
        if task["n"] > 1:
            self.push({**task, "n": task["n"] - 1})
        if cmd["card"] is None:
            self.wound_investigator(i, 1, task.get("source"))
            return
        inv = self.inv(i)
        for h in inv.cards:
            if h["card"] == cmd["card"]:
                h["wounds"] += 1
                half = self.half(h)
                self.emit("companion_wounded", inv=i, card=half.name, wounds=h["wounds"], health=half.health)
                if h["wounds"] >= (half.health or 1):
                    self.lose_card(i, h["card"])
                break

    def wound_investigator(self, i: int, n: int, source: str | None) -> None:
        inv = self.inv(i)
        health = self.c.investigators[inv.id].health
        inv.wounds = min(health, inv.wounds + n)
        self.emit("wounded", inv=i, name=self.name(i), n=n, wounds=inv.wounds, health=health, source=source)
        if inv.wounds >= health:
            self.kill(i, "killed")

    def step_stress(self, task: Task) -> None:
        i = task["inv"]
        inv = self.inv(i)
        cap = self.c.investigators[inv.id].stress
        n = min(task["n"], cap - inv.stress)
        if n > 0 and inv.alive:
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
        self.push({"k": "level_up", "inv": i})
        if inv.insanity is not None:
            card = self.c.insanity[inv.insanity]
            self.emit("insanity_activated", inv=i, name=self.name(i), card=card.name, text=card.text)
            self.run_ops(i, card.activate, card.name)

    def step_level_up(self, task: Task) -> None:
        i = task["inv"]
        inv = self.inv(i)
        ref = self.c.investigators[inv.id]
        opts = [
            (Command.of("level_up", skill=sk), f"{self.c.skills[sk].name} to level {inv.levels[sk] + 1}: {self.c.skills[sk].levels[inv.levels[sk]].text}")
            for sk in ref.skills
            if inv.levels[sk] < 4
        ]
        if opts:
            self.ask(task, "level_up", i, f"{self.name(i)} crosses a threshold: level up a skill", opts)

    def answer_level_up(self, task: Task, cmd: Command) -> None:
        i = task["inv"]
        inv = self.inv(i)
        sk = cmd["skill"]
        inv.levels[sk] += 1
        self.emit("skill_leveled", inv=i, name=self.name(i), skill=sk, skill_name=self.c.skills[sk].name, level=inv.levels[sk])

    def kill(self, i: int, cause: str) -> None:
        """An investigator dies: tokens and cards go back, their own steps and (if active) the rest
        of their turn are dropped; everything else already queued still happens (see OUTLIVES_DEATH)."""
        s = self.s
        inv = self.inv(i)
        if not inv.alive:
            return
        self.douse(i)
        inv.alive = False
        inv.cause = cause
        for held in list(inv.cards):
            self.lose_card(i, held["card"])
        inv.tokens.clear()
        s.mythos_discard.extend(inv.kept)
        inv.kept.clear()
        self.emit("investigator_died", inv=i, name=self.name(i), cause=cause, space=inv.space)
        active_died = i == s.active
        s.stack[:] = [
            t for t in s.stack
            if not (t["k"] in PERSONAL and t["inv"] == i) and not (active_died and t["k"] in SKIPPED_PHASES)
        ]
        if active_died:
            s.actions_left = 0
        if not self.elder_on_board():
            self.lose("died_before_summoning", f"{self.name(i)} died before the Elder One took the board")
        elif not any(x.alive for x in s.investigators):
            self.lose("all_dead", "every investigator is dead")

    def elder_on_board(self) -> bool:
        return self.s.summoned

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
    "level_up": Engine.step_level_up,
    "mythos": Engine.step_mythos,
    "summons": Engine.step_summons,
    "mythos_discard": Engine.step_mythos_discard,
    "reshuffle": Engine.step_reshuffle,
    "summon_check": Engine.step_summon_check,
    "elder_eot": Engine.step_elder_eot,
    "eot_effects": Engine.step_eot_effects,
    "discovery_done": Engine.step_discovery_done,
    "trade": Engine.step_trade,
    "ops": Engine.step_ops,
    "advance_enemy": Engine.step_advance_enemy,
    "check": Engine.step_check,
}

ANSWERS: dict[str, Callable[[Engine, Task, Command], None]] = {
    "actions": Engine.answer_actions,
    "run": Engine.answer_run,
    "rest": Engine.answer_rest,
    "assign_hits": Engine.answer_assign_hits,
    "reroll": Engine.answer_reroll,
    "fight": Engine.answer_fight,
    "level_up": Engine.answer_level_up,
    "wounds": Engine.answer_wounds,
    "trade": Engine.answer_trade,
    "douse": Engine.answer_douse,
    "pick_mover": Engine.answer_pick_mover,
    "advance_enemy": Engine.answer_advance_enemy,
    "discard_card": Engine.answer_discard_card,
    "choose": Engine.answer_choose,
}
