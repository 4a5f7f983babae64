"""A whole main-game state consistent with one seat's view: the search bot's worlds.

The view shows everything but the order of the Mythos and Discovery decks and the RNG, and
which Discovery cards were discarded (only how many). A world keeps everything the view
shows and deals the rest from the sampler's own `Rng`: the Mythos deck is every card not
in the discard or kept by an insanity, the Discovery deck and discard are the unclaimed
cards dealt to the sizes the view gives, and the dice come from a seed of the sampler's.
Nothing is read from anywhere but the view and the content, so a world cannot depend on
the true deck order or seed (`tests/core/test_search.py` scrambles them to make sure).

The engine's own agenda (its stack of tasks) is not in the view; it is rebuilt here for the
decisions whose agenda the view pins down: choosing an action, and each step of a Run. At
any other prompt (mid-card, mid-fight) `sample` returns None and the search leaves that
decision to its policy.
"""

from __future__ import annotations

from typing import Any

from ..command import Command
from ..game import Game
from ..rng import Rng
from ..setup import Setup
from .content import MainContent
from .rules import MainRules
from .state import Figure, Investigator, MainState
from .tasks import Pending, Task
from .view import MainView

# The end of every turn, below its actions (turn.step_turn pushes these).
_TURN_TAIL = ("next_turn", "elder_eot", "summon_check", "discard_check", "fire", "eot_effects", "invest_fight", "mythos", "actions")
SAMPLED = ("action", "run")  # the prompt kinds whose engine agenda the view pins down


def sample(view: MainView, content: Any, rng: Rng) -> Game | None:
    """A game whose every seat's view is `view` (prompt included), its secrets dealt from `rng`; None
    when the view is not at a decision whose agenda it shows (see `SAMPLED`)."""
    prompt = view["prompt"]
    if prompt is None or view["outcome"] is not None or prompt["kind"] not in SAMPLED or view["phase"] != "actions":
        return None
    c: MainContent = content.part("main")
    episode_id, elder_id = view["episode"]["id"], view["elder_one"]["id"]
    episode, elder = c.episodes[episode_id], c.elder_ones[elder_id]
    active = view["active"]
    stack: list[Task] = [{"k": k, "inv": active} for k in _TURN_TAIL]  # type: ignore[misc]  # each is a PhaseTask/TurnTask
    if prompt["kind"] == "run":
        data = prompt["options"][0]["data"]
        stack.append({"k": "run", "inv": active, "left": data["left"], "moved": data["moved"]})
    pending: Pending = {
        "kind": prompt["kind"], "inv": prompt["actor"] if prompt["actor"] is not None else active, "seat": prompt["seat"], "text": prompt["text"],
        "options": [(Command.from_wire(o["command"]), o["label"]) for o in prompt["options"]],
    }
    mythos_ids = {m.name: f"eo:{n}" for n, m in reversed(list(enumerate(elder.mythos)))}
    mythos_ids.update({m.name: f"ep:{n}" for n, m in reversed(list(enumerate(episode.mythos))) if m.name not in mythos_ids})
    insanity_ids = {card.name: key for key, card in c.insanity.items()}
    investigators = [_investigator(inv, insanity_ids, mythos_ids) for inv in view["investigators"]]
    _split_fire(view, c, investigators)
    discard = [mythos_ids[m["name"]] for m in view["mythos"]["discard"]]
    out = set(discard) | {k for inv in investigators for k in inv.kept}
    mythos = sorted(k for k in [*(f"eo:{n}" for n in range(len(elder.mythos))), *(f"ep:{n}" for n in range(len(episode.mythos)))] if k not in out)
    rng.shuffle("deal", mythos)
    claimed = {h["card"] for inv in investigators for h in inv.cards}
    unclaimed = [str(n) for n in range(len(episode.discovery)) if str(n) not in claimed]
    rng.shuffle("deal", unclaimed)
    deck_size = view["discovery"]["deck"]
    figures = [Figure(id=e["id"], kind=e["kind"], space=e["space"], wounds=e["wounds"]) for e in view["enemies"]]
    state = MainState(
        rng=Rng(seed=rng.below("deal", 2**62)),
        episode=episode_id,
        elder_one=elder_id,
        investigators=investigators,
        figures=figures,
        reserve=dict(view["reserve"]),
        fire=dict(view["fire"]),
        fire_reserve=view["fire_reserve"],
        wound_tokens=view["wound_tokens"],
        turn=view["turn"],
        active=active,
        phase=view["phase"],
        actions_left=view["actions_left"],
        stack=stack,
        pending=pending,
        cause=view["cause"],
        last_roll=_last_roll(view, c),
        figure_serial=max((int(f.id.rsplit("-", 1)[1]) for f in figures if f.id.rsplit("-", 1)[-1].isdigit()), default=0),
        mythos_deck=mythos[: view["mythos"]["deck"]],
        mythos_discard=discard,
        discovery_deck=unclaimed[:deck_size],
        discovery_discard=unclaimed[deck_size : deck_size + view["discovery"]["discard"]],
        space_tokens={sp: dict(t) for sp, t in view["space_tokens"].items()},
        track=view["elder_one"]["position"],
        summoned=view["elder_one"]["summoned"],
        stage=view["elder_one"]["stage"],
        ritual=view["ritual"]["progress"],
        disrupted=view["ritual"]["disrupted"],
        # During the actions, a ritual disrupted and no Elder One summoned can only mean this turn.
        disrupted_this_turn=view["ritual"]["disrupted"] and not view["elder_one"]["summoned"],
    )
    seats = [inv.seat for inv in investigators]
    setup = Setup(mode="main", options={"episode": episode_id, "elder_one": elder_id, "investigators": [inv.id for inv in investigators]},
                  players=max(seats) + 1, seats=seats)
    rules = MainRules()
    rules.bind(content, state)
    return Game(setup, content, rules, state, step=view["step"])


def _investigator(inv: Any, insanity_ids: dict[str, str], mythos_ids: dict[str, str]) -> Investigator:
    return Investigator(
        id=inv["id"], seat=inv["seat"], space=inv["space"], wounds=inv["wounds"], stress=inv["stress"], sanity=inv["sanity"],
        levels={sk["id"]: sk["own"] for sk in inv["skills"] if sk["own"]}, bonus=inv["bonus"], fire=inv["fire"],
        reached=list(inv["reached"]), alive=inv["alive"], cause=inv["cause"],
        insanity=insanity_ids[inv["insanity"]["name"]] if inv["insanity"] else None,
        tokens=dict(inv["tokens"]),
        cards=[{"card": h["card"], "side": h["side"], "wounds": h.get("wounds", 0)} for h in inv["cards"]],
        kept=[mythos_ids[name] for name in inv["kept"]],
    )


def _split_fire(view: MainView, c: MainContent, investigators: list[Investigator]) -> None:
    """The view counts an investigator's Fire tokens and the wound tokens standing in for them as one
    number; the Fire tokens are the ones missing from the reserve and the board, the rest are stand-ins."""
    tokens = c.rules.fire_tokens - view["fire_reserve"] - sum(view["fire"].values())
    for inv in investigators:
        own = min(inv.fire, max(0, tokens))
        inv.fire, inv.fire_wounds = own, inv.fire - own
        tokens -= own


def _last_roll(view: MainView, c: MainContent) -> Any:
    roll = view["last_roll"]
    if roll is None:
        return None
    faces = {"standard": c.dice.standard, "bonus": c.dice.bonus}
    return {
        "inv": roll["inv"],
        "dice": [[die, faces[die].index(face)] for die, face in roll["dice"]],
        "own": roll["purpose"] in ("attack", "check"),
        "purpose": roll["purpose"],
        "free": roll["free"],
    }
