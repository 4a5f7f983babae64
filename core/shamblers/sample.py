"""A whole Shamblers state consistent with one seat's view: the search bot's worlds.

Everything but the order of the tentacle bag and of the Shambler Track is on the table,
and their contents are what the box holds less everything the view shows elsewhere; a
world deals both in an order of the sampler's own `Rng`, and the Wheel and the dice come
from a seed of the sampler's. Nothing is read but the view and the content.
"""

from __future__ import annotations

from typing import Any

from ..game import Game
from ..rng import Rng
from ..setup import Setup
from .content import CHAOS, ShamblersContent
from .rules import ShamblerRules
from .state import PHASES, MatState, ShamblerState, TownState
from .view import ShamblersView


def sample(view: ShamblersView, content: Any, rng: Rng) -> Game | None:
    """A game whose every seat's view is `view`, the bag and the Shambler Track dealt from `rng`."""
    if view["prompt"] is None or view["outcome"] is not None:
        return None
    cfg: ShamblersContent = content.part("shamblers").at(view["difficulty"]["id"])
    colors = cfg.color_ids
    bag_counts = {c.id: c.in_bag for c in cfg.colors} | {CHAOS: cfg.chaos_in_bag}
    shamblers = {c.id: c.shamblers for c in cfg.colors}
    for town in view["towns"]:
        for kind, n in town["tentacles"].items():
            bag_counts[kind] -= n
        for color, n in town["shamblers"].items():
            shamblers[color] -= n
    for mat in view["mats"]:
        for color, n in mat["tracks"].items():
            bag_counts[color] -= n
        bag_counts[CHAOS] -= mat["chaos"]
    for color, n in view["shambler_mat"]["tentacles"].items():
        bag_counts[color] -= n
    for kind, n in view["discard"].items():
        bag_counts[kind] -= n
    bag_counts[CHAOS] -= view["supply_chaos"]
    for color, n in view["shambler_mat"]["shamblers"].items():
        shamblers[color] -= n
    bag = [kind for kind in [*colors, CHAOS] for _ in range(bag_counts[kind])]
    track = [color for color in colors for _ in range(shamblers[color])]
    if len(bag) != view["bag_count"] or len(track) != view["shambler_track_count"] or min([*bag_counts.values(), *shamblers.values()]) < 0:
        return None  # not a view of this content
    rng.shuffle("deal", bag)
    rng.shuffle("deal", track)
    banish = view["banish"]
    state = ShamblerState(
        rng=Rng(seed=rng.below("deal", 2**62)),
        cfg=cfg,
        mats=[MatState(name=m["name"], seat=m["seat"], town=m["town"], tracks=dict(m["tracks"]), chaos=m["chaos"], delirium=m["delirium"])
              for m in view["mats"]],
        towns=[TownState(tentacles=dict(t["tentacles"]), shamblers=dict(t["shamblers"])) for t in view["towns"]],
        bag=bag,
        track=track,
        mat_shamblers=dict(view["shambler_mat"]["shamblers"]),
        mat_tentacles=dict(view["shambler_mat"]["tentacles"]),
        discard=dict(view["discard"]),
        supply_chaos=view["supply_chaos"],
        turn=view["turn"],
        active=view["active"],
        phase=next(p for p in PHASES if p == view["phase"]),
        actions_left=view["actions_left"],
        wheel=view["wheel"],
        dice=list(view["last_dice"]),
        banish=None if banish is None else {"town": banish["town"], "cost": banish["cost"], "rage": banish["rage_at_start"], "dice": list(banish["dice"])},
        feed=[list(f) for f in view["feeding"]],
        cause=view["cause"],
    )
    seats = [m.seat for m in state.mats]
    setup = Setup(mode="shamblers", players=max(seats) + 1, seats=seats, options={"difficulty": cfg.difficulty})
    return Game(setup, content, ShamblerRules(), state, step=view["step"])
