"""How likely the main game is to be won from a seat's view: the search bot's evaluation.

A logistic model over a few public facts (ritual progress, the Elder One's track and wounds,
the investigators' health, sanity and stress, the enemies near them, the Fire), fitted to
the outcomes of games played by the search bot's policy from the start of each of their
turns (`python bench/fit_values.py --mode main`, which prints `WEIGHTS`). It is what a
rollout that stops after a turn or two is worth; a finished game is worth 1 or 0.
"""

from __future__ import annotations

import math

from .view import MainView


def features(view: MainView) -> list[float]:
    """The facts the model weighs, each scaled to about 0..1 (the first is the constant)."""
    ritual = view["ritual"]
    eo = view["elder_one"]
    everyone = view["investigators"]
    alive = [i for i in everyone if i["alive"]] or everyone
    health = [(i["health"] - i["wounds"]) / i["health"] for i in alive]
    sanity = [(i["skull"] - i["sanity"]) / i["skull"] for i in alive]
    stress = [i["stress"] / max(1, i["stress_max"]) for i in alive]
    spaces = {i["space"] for i in alive}
    enemies = [e for e in view["enemies"] if e["kind"] != "elder_one"]
    near = [e for e in enemies if e["space"] in spaces]
    ref = view["reference"]
    near_dice = sum(ref[e["kind"]]["standard"] + ref[e["kind"]]["bonus"] for e in near if e["kind"] in ref)
    stage = eo["stages"][eo["stage"]]
    stage_wounds = stage["wounds"] / stage["health"] if eo["summoned"] and stage["health"] else 0.0
    return [
        1.0,
        ritual["progress"] / ritual["needed"],
        float(ritual["disrupted"]),
        float(eo["summoned"]),
        eo["stage"] / (len(eo["stages"]) - 1),
        stage_wounds,
        eo["position"] / eo["track"],
        view["mythos"]["summoning"] / 3,
        len(alive) / len(everyone),
        min(health),
        sum(health) / len(health),
        min(sanity),
        sum(sanity) / len(sanity),
        sum(stress) / len(stress),
        sum(i["bonus"] for i in alive) / len(alive) / 4,
        sum(sk["level"] for i in alive for sk in i["skills"]) / len(alive) / 9,
        len(enemies) / 5,
        len(near) / 3,
        near_dice / 10,
        sum(view["fire"].values()) / 6,
        sum(len(i["cards"]) for i in alive) / len(alive) / 3,
        view["turn"] / 20,
    ]


WEIGHTS: list[float] = [-1.7085, 1.7448, -1.0270, -1.0270, 6.8922, 1.3830, -2.7521, -0.5764, 2.9780, 0.5167, -0.3595, -1.1393, 1.1296, -0.4058, -3.6844, -1.1203, -1.2173, -0.3675, 0.4395, -0.1930, -0.3455, 3.0581]


def value(view: MainView) -> float:
    """The estimated chance of a win from here (1 or 0 once the game is over)."""
    if view["outcome"] is not None:
        return float(view["outcome"] == "won")
    z = sum(w * x for w, x in zip(WEIGHTS, features(view)))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
