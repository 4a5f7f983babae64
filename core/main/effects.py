"""The effect vocabulary interpreted: cards, stages, insanities and episode actions.

Effects arrive as lists of plain op dicts (dumped from the validated content
models) inside an `ops` task with a subject investigator; each op becomes one
or more tasks, so effects can stop for decisions like everything else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..command import Command
from .board import distances, next_steps
from .state import Figure

if TYPE_CHECKING:
    from .engine import Engine, Task


# Ops that need their subject alive: a dead investigator rolls, chooses, puts out fires and takes
# cards no more. The rest of an effect still resolves after its subject's death (RULES.md, "Decided
# after the first audit"), with the space where they died standing for theirs.
NEEDS_LIVING_SUBJECT = frozenset({"roll", "choose", "douse", "claim", "keep_mythos", "discard_card"})


def dump(ops: list) -> list[dict[str, Any]]:
    return [op.model_dump() for op in ops]


class Effects:
    """Mixed into Engine: one `op_<name>` per operation."""

    # ------------------------------------------------------------------ plumbing

    def run_ops(self: "Engine", subject: int, ops: list, source: str, card: str | None = None) -> None:
        if not ops:
            return
        if not isinstance(ops[0], dict):
            # Content lists live as long as the game: dump each once (the memo keeps the list alive).
            hit = self.memo.get(id(ops))
            if hit is None or hit[0] is not ops:
                hit = self.memo[id(ops)] = (ops, dump(ops))
            ops = hit[1]
        self.push({"k": "ops", "inv": subject, "ops": ops, "src": source, "card": card})

    def step_ops(self: "Engine", task: "Task") -> None:
        ops = task["ops"]
        if not ops:
            return
        op, rest = ops[0], ops[1:]
        if rest:
            self.push({**task, "ops": rest})
        if op["op"] in NEEDS_LIVING_SUBJECT and not self.inv(task["inv"]).alive:
            return
        getattr(self, "op_" + op["op"])(task, op)

    def targets(self: "Engine", subject: int, who: str) -> list[int]:
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

    def place(self: "Engine", subject: int, at: str) -> str:
        m = self.c.episodes[self.s.episode].map
        if at == "here":
            return self.s.investigators[subject].space
        if at == "start":
            return m.start
        if at in m.gates:
            return m.gates[at]
        return at

    # ------------------------------------------------------------------ harm and help

    def op_stress(self: "Engine", task: "Task", op: dict) -> None:
        self.push(*[{"k": "stress", "inv": i, "n": op["n"], "why": task["src"]} for i in self.targets(task["inv"], op["who"])])

    def op_wound(self: "Engine", task: "Task", op: dict) -> None:
        self.push(*[{"k": "wounds", "inv": i, "n": op["n"], "source": task["src"]} for i in self.targets(task["inv"], op["who"])])

    def op_sanity(self: "Engine", task: "Task", op: dict) -> None:
        self.push(*[{"k": "sanity", "inv": i, "n": op["n"]} for i in self.targets(task["inv"], op["who"])])

    def op_heal(self: "Engine", task: "Task", op: dict) -> None:
        for i in self.targets(task["inv"], op["who"]):
            inv = self.inv(i)
            w, st = min(op["wounds"], inv.wounds), min(op["stress"], inv.stress)
            inv.wounds -= w
            inv.stress -= st
            if w or st:
                self.emit("healed", inv=i, name=self.name(i), wounds=w, stress=st, why=task["src"])

    def op_burn(self: "Engine", task: "Task", op: dict) -> None:
        for i in self.targets(task["inv"], op["who"]):
            self.catch_fire(i, op["n"], None)

    def op_token(self: "Engine", task: "Task", op: dict) -> None:
        for i in self.targets(task["inv"], op["who"]):
            held = self.inv(i).tokens
            new = max(0, held.get(op["token"], 0) + op["n"])
            if new != held.get(op["token"], 0):
                held[op["token"]] = new
                self.emit("tokens_changed", inv=i, name=self.name(i), token=op["token"], token_name=self.c.tokens[op["token"]].name, n=new)

    # ------------------------------------------------------------------ the table

    def op_fire_space(self: "Engine", task: "Task", op: dict) -> None:
        s = self.s
        space = self.place(task["inv"], op["at"])
        n = min(op["n"], s.fire_reserve)
        if n:
            s.fire_reserve -= n
            s.fire[space] = s.fire.get(space, 0) + n
            s.fire = dict(sorted(s.fire.items()))
            self.emit("fire_spread", space=space, space_name=self.space_name(space), n=n)

    def op_douse(self: "Engine", task: "Task", op: dict) -> None:
        here = self.inv(task["inv"]).space
        spots = [here, *self.adj[here]] if op["near"] else [here]
        burning = [sp for sp in spots if self.s.fire.get(sp)]
        if not burning:
            return
        opts = [(Command.of("douse", at=sp), f"Put out Fire in {self.space_name(sp)} ({self.s.fire[sp]})") for sp in burning]
        self.ask({"k": "douse", "inv": task["inv"], "n": op["n"]}, "douse", task["inv"], "Where do you put out the flames?", opts)

    def answer_douse(self: "Engine", task: "Task", cmd: Command) -> None:
        s = self.s
        sp = cmd["at"]
        n = min(task["n"], s.fire.get(sp, 0))
        s.fire[sp] -= n
        if not s.fire[sp]:
            del s.fire[sp]
        s.fire_reserve += n
        self.emit("fire_doused", inv=task["inv"], space=sp, space_name=self.space_name(sp), n=n)

    def op_space_token(self: "Engine", task: "Task", op: dict) -> None:
        s = self.s
        space = self.place(task["inv"], op["at"])
        held = s.space_tokens.setdefault(space, {})
        new = max(0, held.get(op["token"], 0) + op["n"])
        held[op["token"]] = new
        if not new:
            del held[op["token"]]
        if not held:
            del s.space_tokens[space]
        s.space_tokens = {k: dict(sorted(v.items())) for k, v in sorted(s.space_tokens.items())}
        self.emit("space_tokens_changed", space=space, space_name=self.space_name(space), token=op["token"], token_name=self.c.tokens[op["token"]].name, n=new)

    def enemy_kind(self: "Engine", name: str) -> str:
        return self.elder().minion if name == "minion" else name

    def summon(self: "Engine", kind: str, space: str) -> bool:
        """Place a figure from the reserve; False when none is left."""
        s = self.s
        if s.reserve.get(kind, 0) <= 0:
            # Out of figures, or a monster this episode does not use.
            self.emit("summon_skipped", kind=kind, name=self.c.enemies[kind].name, space=space)
            return False
        s.reserve[kind] -= 1
        s.figure_serial += 1
        f = Figure(id=f"{kind}-{s.figure_serial}", kind=kind, space=space)
        s.figures.append(f)
        self.emit("summoned", figure=f.id, kind=kind, name=self.c.enemies[kind].name, space=space, space_name=self.space_name(space))
        return True

    def op_summon(self: "Engine", task: "Task", op: dict) -> None:
        self.summon(self.enemy_kind(op["enemy"]), self.place(task["inv"], op["at"]))

    def matches(self: "Engine", f: Figure, kind: str) -> bool:
        if f.kind == "elder_one":
            return False
        if kind == "any":
            return True
        if kind in ("cultist", "monster"):
            return self.c.enemies[f.kind].category == kind
        return f.kind == self.enemy_kind(kind)

    def op_move_enemies(self: "Engine", task: "Task", op: dict) -> None:
        """Towards "you": the investigator the effect is about (the active one, for Mythos cards)."""
        target = self.inv(task["inv"]).space
        dist = distances(self.adj, target)
        movers = [f for f in self.s.figures if self.matches(f, op["kind"]) and dist.get(f.space, 0) > 0]
        if not movers:
            return
        if op["which"] == "closest":
            best = min(dist[f.space] for f in movers)
            movers = [f for f in movers if dist[f.space] == best]
            if len(movers) > 1:
                opts = [(Command.of("pick", figure=f.id), f"The {self.enemy_name(f)} in {self.space_name(f.space)}") for f in movers]
                self.ask({"k": "pick_mover", "inv": task["inv"], "steps": op["steps"]}, "pick_enemy", self.s.active, "Which of the closest enemies moves?", opts)
                return
        self.push(*[{"k": "advance_enemy", "inv": task["inv"], "figure": f.id, "steps": op["steps"]} for f in movers])

    def answer_pick_mover(self: "Engine", task: "Task", cmd: Command) -> None:
        self.push({"k": "advance_enemy", "inv": task["inv"], "figure": cmd["figure"], "steps": task["steps"]})

    def step_advance_enemy(self: "Engine", task: "Task") -> None:
        """One step along a shortest path to the active investigator; ties are the active player's."""
        if not any(f.id == task["figure"] for f in self.s.figures) or task["steps"] <= 0:
            return
        f = self.s.figure(task["figure"])
        steps = next_steps(self.adj, f.space, self.inv(task["inv"]).space)
        if not steps:
            return
        if len(steps) > 1:
            opts = [(Command.of("path", to=sp), f"Through {self.space_name(sp)}") for sp in steps]
            self.ask(task, "enemy_path", self.s.active, f"The {self.enemy_name(f)} closes in: which way?", opts)
            return
        self.enemy_step(task, steps[0])

    def answer_advance_enemy(self: "Engine", task: "Task", cmd: Command) -> None:
        self.enemy_step(task, cmd["to"])

    def enemy_step(self: "Engine", task: "Task", to: str) -> None:
        f = self.s.figure(task["figure"])
        f.space = to
        self.emit("enemy_moved", figure=f.id, kind=f.kind, name=self.enemy_name(f), to=to, space_name=self.space_name(to))
        self.push({**task, "steps": task["steps"] - 1})

    # ------------------------------------------------------------------ the ritual and the Elder One

    def op_ritual(self: "Engine", task: "Task", op: dict) -> None:
        s = self.s
        ritual = self.c.episodes[s.episode].ritual
        s.ritual = min(ritual.needed, s.ritual + op["n"])
        self.emit("ritual_progress", progress=s.ritual, needed=ritual.needed, name=ritual.name)
        if s.ritual >= ritual.needed and not s.disrupted:
            s.disrupted = s.disrupted_this_turn = True
            self.emit("ritual_disrupted", name=ritual.name)

    def op_place_elder(self: "Engine", task: "Task", op: dict) -> None:
        s = self.s
        space = self.place(task["inv"], op["at"])
        for f in s.figures:
            if f.kind == "elder_one":
                f.space = space
                self.emit("elder_moved", name=self.elder().name, space=space, space_name=self.space_name(space))
                return
        s.figures.append(Figure(id="elder_one", kind="elder_one", space=space))
        self.emit("elder_placed", name=self.elder().name, space=space, space_name=self.space_name(space))

    # ------------------------------------------------------------------ cards

    def op_keep_mythos(self: "Engine", task: "Task", op: dict) -> None:
        s = self.s
        if s.mythos_discard:
            card = s.mythos_discard.pop()
            self.inv(task["inv"]).kept.append(card)
            self.emit("mythos_kept", inv=task["inv"], name=self.name(task["inv"]), card=self.mythos_card(card).name)

    def op_claim(self: "Engine", task: "Task", op: dict) -> None:
        card = task.get("card")
        if card is None or self.claimed(card):
            return
        inv = self.inv(task["inv"])
        inv.cards.append({"card": card, "side": op["side"], "wounds": 0})
        half = self.half(inv.cards[-1])
        self.emit("claimed", inv=task["inv"], name=self.name(task["inv"]), card=half.name, kind=half.kind, text=half.text)

    def claimed(self: "Engine", card: str) -> bool:
        return any(h["card"] == card for i in self.s.investigators for h in i.cards)

    def op_discard_card(self: "Engine", task: "Task", op: dict) -> None:
        i = task["inv"]
        held = [n for n, h in enumerate(self.inv(i).cards) if op["kind"] == "any" or self.half(h).kind == op["kind"]]
        if not held:
            return
        opts = [(Command.of("discard", card=self.inv(i).cards[n]["card"]), f"Lose {self.half(self.inv(i).cards[n]).name}") for n in held]
        self.ask({"k": "discard_card", "inv": i}, "discard_card", i, f"{self.name(i)} must lose a card", opts)

    def answer_discard_card(self: "Engine", task: "Task", cmd: Command) -> None:
        self.lose_card(task["inv"], cmd["card"])

    def lose_card(self: "Engine", i: int, card: str) -> None:
        inv = self.inv(i)
        for h in list(inv.cards):
            if h["card"] == card:
                inv.cards.remove(h)
                self.s.discovery_discard.append(card)
                self.emit("card_lost", inv=i, name=self.name(i), card=self.half(h).name)

    def op_if_holds(self: "Engine", task: "Task", op: dict) -> None:
        halves = [self.half(h) for h in self.inv(task["inv"]).cards]
        held = any((op["card"] is None or h.name == op["card"]) and (op["kind"] is None or h.kind == op["kind"]) for h in halves)
        self.push({**task, "ops": op["then"] if held else op["otherwise"]})

    def op_if_space_token(self: "Engine", task: "Task", op: dict) -> None:
        space = self.place(task["inv"], op["at"])
        held = self.s.space_tokens.get(space, {}).get(op["token"], 0) >= op["at_least"]
        self.push({**task, "ops": op["then"] if held else op["otherwise"]})

    def op_if_tokens(self: "Engine", task: "Task", op: dict) -> None:
        hit = [i for i in self.targets(task["inv"], op["who"]) if self.inv(i).tokens.get(op["token"], 0) >= op["at_least"]]
        self.push(*[{**task, "inv": i, "ops": op["then"]} for i in hit])

    def op_choose(self: "Engine", task: "Task", op: dict) -> None:
        opts = [(Command.of("choose", option=n), c["label"]) for n, c in enumerate(op["options"])]
        self.ask({"k": "choose", "inv": task["inv"], "op": op, "src": task["src"], "card": task.get("card")}, "choose", task["inv"], "Choose:", opts)

    def answer_choose(self: "Engine", task: "Task", cmd: Command) -> None:
        chosen = task["op"]["options"][cmd["option"]]
        self.emit("chose", inv=task["inv"], label=chosen["label"])
        self.push({"k": "ops", "inv": task["inv"], "ops": chosen["ops"], "src": task["src"], "card": task.get("card")})

    def op_roll(self: "Engine", task: "Task", op: dict) -> None:
        i = task["inv"]
        bonus = self.inv(i).bonus + self.mods(i)["check_dice"]
        self.push(
            {"k": "roll", "inv": i, "standard": 3, "bonus": bonus, "own": True, "purpose": "check"},
            {"k": "check", "inv": i, "need": op["need"], "success": op["success"], "fail": op["fail"], "src": task["src"], "card": task.get("card")},
        )

    def step_check(self: "Engine", task: "Task") -> None:
        i = task["inv"]
        t = self.tally(task["roll"])
        ok = t["success"] >= task["need"]
        self.emit("check_result", inv=i, name=self.name(i), successes=t["success"], need=task["need"], passed=ok)
        # Successes decide the outcome, the outcome's effects follow, tentacles come last.
        self.push(
            {"k": "ops", "inv": i, "ops": task["success"] if ok else task["fail"], "src": task["src"], "card": task.get("card")},
            {"k": "sanity", "inv": i, "n": self.tentacles(i, t)},
        )
