"""The turn and the cards: turn order, Mythos draws and summons, the summoning track, Investigate."""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import harm
from .boardevents import DiscoveryDrawn
from .eventparts import Cause
from .state import Figure
from .tasks import CardTask, PhaseTask, TurnTask

if TYPE_CHECKING:
    from .engine import Engine


def step_turn(e: Engine, task: TurnTask) -> None:
    s = e.s
    i = task["inv"]
    s.turn += 1
    s.active = i
    s.actions_left = e.c.rules.actions
    s.disrupted_this_turn = False
    s.advanced_this_turn = False
    e.emit({"type": "turn_started", "turn": s.turn, "inv": i, "name": e.name(i)})
    e.push(
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
    for card in reversed(e.inv(i).kept):
        e.emit({"type": "mythos_recurs", "inv": i, "name": e.name(i), "card": e.mythos_card(card).name})
        e.run_ops(i, e.mythos_card(card).effect, e.mythos_card(card).name)


def step_next_turn(e: Engine, task: PhaseTask) -> None:
    s = e.s
    e.emit({"type": "turn_ended", "turn": s.turn, "inv": task["inv"], "name": e.name(task["inv"])})
    n = len(s.investigators)
    for step in range(1, n + 1):
        j = (task["inv"] + step) % n
        if s.investigators[j].alive:
            e.push({"k": "turn", "inv": j})
            return
    harm.lose(e, "all_dead", "every investigator is dead")


def shuffle_discard_into_deck(e: Engine) -> None:
    s = e.s
    s.mythos_deck.extend(s.mythos_discard)
    s.mythos_discard.clear()
    s.rng.shuffle("hidden", s.mythos_deck)
    e.emit({"type": "mythos_shuffled", "deck": len(s.mythos_deck)})


def step_mythos(e: Engine, task: PhaseTask) -> None:
    s = e.s
    s.phase = "mythos"
    i = task["inv"]
    if not s.mythos_deck:
        shuffle_discard_into_deck(e)
    if not s.mythos_deck:
        return
    card_id = s.mythos_deck.pop()
    card = e.mythos_card(card_id)
    e.emit({"type": "mythos_drawn", "inv": i, "card": card.name, "text": card.text, "summoning": card.summoning})
    # Top to bottom: the summoning symbol does nothing now, then the effect, then the summons.
    e.push({"k": "mythos_discard", "inv": i, "card": card_id})
    if card.summons:
        e.push({"k": "summons", "inv": i, "card": card_id})
    e.run_ops(i, card.effect, card.name)


def step_summons(e: Engine, task: CardTask) -> None:
    m = e.c.episodes[e.s.episode].map
    card = e.mythos_card(task["card"])
    for line in card.summons:
        if not summon(e, e.enemy_kind(line.enemy), m.gates[line.gate], {"kind": "summoning", "name": line.gate}):
            break


def step_mythos_discard(e: Engine, task: CardTask) -> None:
    e.s.mythos_discard.append(task["card"])


def summoning_symbols(e: Engine) -> int:
    return sum(1 for card in e.s.mythos_discard if e.mythos_card(card).summoning)


def step_discard_check(e: Engine, task: PhaseTask) -> None:
    """Enough summoning symbols in the discard: the Elder One (or its Progression token) advances."""
    s = e.s
    s.phase = "end_of_turn"
    symbols = summoning_symbols(e)
    if s.advanced_this_turn or symbols < e.c.rules.summoning_symbols:
        return
    s.advanced_this_turn = True
    eo = e.elder()
    s.track += 1
    e.emit({"type": "elder_advanced", "name": eo.name, "track": s.track, "last": eo.track, "token": "progression" if s.summoned else "figure",
            "symbols": symbols})
    if s.summoned and s.track >= eo.track:
        harm.lose(e, "track_end", "the Progression token reached the last space of the summoning track")
        return
    e.push({"k": "reshuffle", "inv": task["inv"]})
    # The Elder One's effects first, then the episode's.
    e.run_ops(s.active, e.c.episodes[s.episode].on_advance, e.c.episodes[s.episode].name)
    for stage in reversed(eo.stages[: s.stage + 1]):
        e.run_ops(s.active, stage.on_advance, stage.name)


def step_reshuffle(e: Engine, task: PhaseTask) -> None:
    shuffle_discard_into_deck(e)


def step_summon_check(e: Engine, task: PhaseTask) -> None:
    s = e.s
    eo = e.elder()
    if s.summoned or not (s.track >= eo.first_red or s.disrupted_this_turn):
        return
    s.summoned = True
    s.stage = 1
    e.emit({"type": "elder_summoned", "name": eo.name, "track": s.track, "why": "ritual" if s.disrupted_this_turn else "track"})
    e.emit({"type": "stage_revealed", "name": eo.stages[1].name, "elder": eo.name, "stage": 1, "stages": len(eo.stages), "text": eo.stages[1].text})
    e.run_ops(s.active, eo.stages[1].reveal, eo.stages[1].name)


def step_elder_eot(e: Engine, task: PhaseTask) -> None:
    s = e.s
    eo = e.elder()
    for stage in reversed(eo.stages[: s.stage + 1]):
        e.run_ops(s.active, stage.end_of_turn, stage.name)


def step_eot_effects(e: Engine, task: PhaseTask) -> None:
    """End-of-turn effects other than the Elder One's: regenerating enemies heal."""
    e.s.phase = "end_of_turn"
    for f in e.s.figures:
        ref = e.c.enemies.get(f.kind)
        if ref is not None and ref.ability is not None and ref.ability.kind == "regenerate" and f.wounds:
            healed, f.wounds = f.wounds, 0
            e.emit({"type": "ability_used", "kind": f.kind, "name": ref.name, "ability": "regenerate", "text": ref.ability.text, "n": 1, "inv": None})
            e.emit({"type": "enemy_regenerated", "figure": f.id, "name": ref.name, "wounds": healed})


def step_invest_fight(e: Engine, task: PhaseTask) -> None:
    s = e.s
    i = task["inv"]
    s.phase = "invest_fight"
    if e.safe(e.inv(i).space):
        investigate(e, i)
        return
    e.push({"k": "fight", "inv": i, "done": []})


def investigate(e: Engine, i: int) -> None:
    s = e.s
    e.emit({"type": "investigated", "inv": i, "name": e.name(i), "space": e.inv(i).space})
    if not s.discovery_deck:
        e.emit({"type": "discovery_empty"})
        return
    card_id = s.discovery_deck.pop()
    card = e.c.episodes[s.episode].discovery[int(card_id)]
    drawn: DiscoveryDrawn = {"type": "discovery_drawn", "inv": i, "card": card.name, "text": card.text}
    if card.left:
        drawn["left"] = {"name": card.left.name, "kind": card.left.kind, "text": card.left.text}
    if card.right:
        drawn["right"] = {"name": card.right.name, "kind": card.right.kind, "text": card.right.text}
    e.emit(drawn)
    e.push({"k": "discovery_done", "inv": i, "card": card_id})
    e.run_ops(i, card.effect, card.name, card=card_id)


def step_discovery_done(e: Engine, task: CardTask) -> None:
    """Discard the card unless it was claimed (or already lost again while it resolved)."""
    card = task["card"]
    if not e.claimed(card) and card not in e.s.discovery_discard:
        e.s.discovery_discard.append(card)


def summon(e: Engine, kind: str, space: str, cause: Cause | None) -> bool:
    """Place a figure from the reserve; False when none is left."""
    s = e.s
    if s.reserve.get(kind, 0) <= 0:
        # Out of figures, or a monster this episode does not use.
        e.emit({"type": "summon_skipped", "kind": kind, "name": e.c.enemies[kind].name, "space": space, "space_name": e.space_name(space),
                "cause": cause})
        return False
    s.reserve[kind] -= 1
    s.figure_serial += 1
    f = Figure(id=f"{kind}-{s.figure_serial}", kind=kind, space=space)
    s.figures.append(f)
    e.emit({"type": "summoned", "figure": f.id, "kind": kind, "name": e.c.enemies[kind].name, "space": space, "space_name": e.space_name(space),
            "cause": cause})
    return True
