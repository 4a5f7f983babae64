"""Shamblers mode (RULES.md Part B): the Wheel, three actions, the feed step, win and loss.

The banish step is seed 000's, exactly: one Cthulhu Die per Shambler on the
card, cost = the highest single die (never a sum), all zeros free, payment
in the Shambler's color with up to two Chaos Tentacles as wild, and a bonus
of 1/2/3 tentacles off the Shambler Mat for 0/1/2 Rage held when the banish
started.

Decisions this module makes where Part B leaves room (documented here and
in the report):
- The dice are rolled *before* the Shambler is chosen, as the seed orders it
  ("roll ... then spend ... to banish any color Shambler"); the payment
  prompt then offers every (Shambler color, payment) pair that is payable,
  plus "do not banish". If nothing is payable, nothing is spent and the
  action is used up.
- Gather on a full track (Chaos Track included) still takes the tentacle off
  the card to the Discard Mat and adds 1 Delirium (RULES.md Part B, "Gather
  onto a full track"); that is the price of clearing a card the Shamblers
  would feed on. Such a Chaos Tentacle was never spent, so it is not lost to
  the general supply: it goes back into the bag with the Discard Mat.
- Feed: each Shambler on a card takes one Madness Tentacle of any color from
  that card onto the Shambler Mat (into that tentacle's color area). The
  active player picks only when the card holds more Madness Tentacles than
  Shamblers and in more than one color; cards are fed in ring order.
- Win and loss are checked the moment they can become true (RULES.md Part
  B, Timing): after every action and every fed tentacle, the win first (a
  win beats a simultaneous loss); an empty Shambler Track loses when the
  Wheel needs a Shambler. A decided game asks nothing more.
- The Wheel is public randomness drawn from its own stream ("wheel"), so
  scripted dice in tests are only ever consumed by Cthulhu Dice ("dice").
  Bag shuffles and draws use the secret stream ("hidden").
"""

from __future__ import annotations

from typing import Any, Literal

from ..command import Command, Event, Prompt
from ..rng import Rng
from ..rules import Rules
from ..setup import Setup
from .content import CHAOS, ShamblersContent
from .state import ACTIONS, BANISH, FEED, OVER, MatState, ShamblerState, TownState
from .events import GameLost, GameWon, ShamblersEvent
from .tables import DECLINE
from .view import ShamblersView, build_view

DICE = "dice"
HIDDEN = "hidden"
WHEEL = "wheel"


def _cfg(content: Any) -> ShamblersContent:
    cfg: ShamblersContent = content.part("shamblers")
    return cfg


def _ev(event: ShamblersEvent) -> Event:
    return Event.of(event)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def payments(state: ShamblerState, mat: MatState, town: TownState, cost: int) -> list[tuple[str, int, int]]:
    """Every distinct way to banish here at `cost`: (Shambler color, Madness paid, Chaos paid).

    Madness must be of the Shambler's color; up to `chaos_wild_max` Chaos
    Tentacles may stand in for it. Ordered by color, then fewest Chaos first.
    """
    out = []
    for color in state.colors:
        if town.shamblers[color] <= 0:
            continue
        most_chaos = min(cost, state.cfg.chaos_wild_max, mat.chaos)
        for chaos in range(most_chaos + 1):
            madness = cost - chaos
            if madness <= mat.tracks[color]:
                out.append((color, madness, chaos))
    return out


class ShamblerRules(Rules):
    """The `Rules` hooks for mode "shamblers"."""

    # ----------------------------------------------------------------- setup

    def new_state(self, setup: Setup, content: Any) -> ShamblerState:
        cfg = _cfg(content).at(setup.one("difficulty"))
        colors = cfg.color_ids
        rng = Rng(setup.seed)
        n_mats = len(setup.seats) if setup.seats is not None else setup.players
        mats = [
            MatState(name=cfg.mat_name(i), seat=setup.seat_of(i), town=cfg.start_town, tracks={c: 0 for c in colors})
            for i in range(n_mats)
        ]
        towns = [
            TownState(tentacles={**{c: 0 for c in colors}, CHAOS: 0}, shamblers={c: 0 for c in colors})
            for _ in cfg.towns
        ]
        bag = [c.id for c in cfg.colors for _ in range(c.in_bag)] + [CHAOS] * cfg.chaos_in_bag
        rng.shuffle(HIDDEN, bag)
        track = [c.id for c in cfg.colors for _ in range(c.shamblers)]
        rng.shuffle(HIDDEN, track)
        return ShamblerState(
            rng=rng,
            cfg=cfg,
            mats=mats,
            towns=towns,
            bag=bag,
            track=track,
            mat_shamblers={c: 0 for c in colors},
            mat_tentacles={c: 0 for c in colors},
            discard={c: 0 for c in [*colors, CHAOS]},
        )

    def start(self, state: ShamblerState) -> list[Event]:
        events = [
            _ev({"type": "game_started", "mode": "shamblers", "difficulty": state.cfg.level.name,
                    "mats": [m.name for m in state.mats],
                    "towns": [t.name for t in state.cfg.towns],
                    "shamblers": len(state.track),
                    "bag": len(state.bag),
                })
        ]
        events += self._begin_turn(state)
        return events

    # ---------------------------------------------------------------- prompt

    def prompt(self, state: ShamblerState) -> Prompt | None:
        if state.outcome is not None:
            return None
        mat = state.mats[state.active]
        if state.phase == ACTIONS:
            return self._action_prompt(state, mat)
        if state.phase == BANISH:
            return self._banish_prompt(state, mat)
        if state.phase == FEED:
            return self._feed_prompt(state, mat)
        return None

    def _action_prompt(self, state: ShamblerState, mat: MatState) -> Prompt:
        t = state.t
        here = mat.town
        town = state.towns[here]
        options = list(t.moves[here])
        tentacles = town.tentacles
        for color in t.with_chaos:
            if tentacles[color] > 0:
                options.append(t.gather(color, here, self._track_full(state, mat, color)))
        shamblers = town.shambler_count()
        if shamblers > 0:
            options.append(t.banish(here, shamblers))
        options.append(t.end(state.actions_left))
        text = (
            f"{mat.name}, turn {state.turn}: {_plural(state.actions_left, 'action')} left "
            f"on {t.town_names[here]}. Choose an action."
        )
        return Prompt(seat=mat.seat, kind="action", text=text, options=options, actor=state.active)

    def _banish_prompt(self, state: ShamblerState, mat: MatState) -> Prompt:
        assert state.banish is not None
        cost = state.banish["cost"]
        town = state.towns[state.banish["town"]]
        pay = state.t.pay
        options = [pay(color, madness, chaos, cost) for color, madness, chaos in payments(state, mat, town, cost)]
        options.append(DECLINE)
        dice = ", ".join(str(d) for d in state.banish["dice"])
        cost_text = "free (all dice show zero)" if cost == 0 else f"{_plural(cost, 'tentacle')} (the highest die)"
        text = f"The Cthulhu Dice show {dice}: banishing costs {cost_text}. Which Shambler, and how do you pay?"
        return Prompt(seat=mat.seat, kind="banish", text=text, options=options, actor=state.active,
                      extra={"dice": list(state.banish["dice"]), "cost": cost})

    def _feed_prompt(self, state: ShamblerState, mat: MatState) -> Prompt:
        index, remaining = state.feed[0]
        town = state.towns[index]
        feed = state.t.feed
        options = [feed[c] for c in state.colors if town.tentacles[c] > 0]
        text = (
            f"The Shamblers on {state.t.town_names[index]} feed on {_plural(remaining, 'more tentacle')}. "
            f"Which one goes to the Shambler Mat?"
        )
        return Prompt(seat=mat.seat, kind="feed", text=text, options=options, actor=state.active,
                      extra={"town": index, "remaining": remaining})

    # --------------------------------------------------------------- resolve

    def resolve(self, state: ShamblerState, command: Command) -> list[Event]:
        kind = command.kind
        if state.phase == ACTIONS:
            if kind == "move":
                return self._move(state, int(command["town"]))
            if kind == "gather":
                return self._gather(state, str(command["color"]))
            if kind == "banish":
                return self._roll_banish(state)
            if kind == "end_actions":
                left = state.actions_left
                state.actions_left = 0
                events = [_ev({"type": "actions_ended", "mat": state.active, "skipped": left})]
                return events + self._after_action(state)
        elif state.phase == BANISH:
            if kind == "pay":
                return self._pay(state, str(command["color"]), int(command["madness"]), int(command["chaos"]))
            if kind == "decline":
                state.banish = None
                state.phase = ACTIONS
                return [_ev({"type": "banish_declined", "mat": state.active})] + self._after_action(state)
        elif state.phase == FEED and kind == "feed":
            events = self._feed_one(state, str(command["color"]))
            return events + self._advance_feed(state)
        raise AssertionError(f"resolve() got {command} in phase {state.phase}")  # the façade checks legality

    def _move(self, state: ShamblerState, to: int) -> list[Event]:
        mat = state.mats[state.active]
        frm, mat.town = mat.town, to
        state.actions_left -= 1
        return [_ev({"type": "moved", "mat": state.active, "from": frm, "to": to})] + self._after_action(state)

    def _track_full(self, state: ShamblerState, mat: MatState, color: str) -> bool:
        if color == CHAOS:
            return mat.chaos >= state.cfg.chaos_capacity
        return mat.tracks[color] >= state.t.spec[color].track_capacity

    def _gather(self, state: ShamblerState, color: str) -> list[Event]:
        mat = state.mats[state.active]
        town = state.towns[mat.town]
        town.tentacles[color] -= 1
        state.actions_left -= 1
        if not self._track_full(state, mat, color):
            if color == CHAOS:
                mat.chaos += 1
            else:
                mat.tracks[color] += 1
            events = [_ev({"type": "gathered", "mat": state.active, "town": mat.town, "color": color, "to": "track"})]
        else:
            to: Literal["discard"] = "discard"
            state.discard[color] += 1
            mat.delirium = min(mat.delirium + 1, state.cfg.delirium_capacity)
            events = [
                _ev({"type": "gathered", "mat": state.active, "town": mat.town, "color": color, "to": to}),
                _ev({"type": "delirium", "mat": state.active, "delirium": mat.delirium,
                                   "capacity": state.cfg.delirium_capacity, "reason": "track_full"}),
            ]
        return events + self._after_action(state)

    def _roll_banish(self, state: ShamblerState) -> list[Event]:
        mat = state.mats[state.active]
        town = state.towns[mat.town]
        rage = mat.tracks[state.cfg.bonus_color]  # counted before any roll or payment
        faces = state.cfg.die.faces
        dice = [faces[state.rng.face(DICE, faces)] for _ in range(town.shambler_count())]
        cost = max(dice)
        state.dice = list(dice)
        state.actions_left -= 1
        events = [_ev({"type": "dice_rolled", "mat": state.active, "town": mat.town, "dice": list(dice), "cost": cost})]
        if not payments(state, mat, town, cost):
            events.append(_ev({"type": "banish_failed", "mat": state.active, "town": mat.town, "cost": cost,
                                                  "reason": "no matching Madness or Chaos Tentacles to pay"}))
            return events + self._after_action(state)
        state.banish = {"town": mat.town, "cost": cost, "rage": rage, "dice": list(dice)}
        state.phase = BANISH
        return events

    def _pay(self, state: ShamblerState, color: str, madness: int, chaos: int) -> list[Event]:
        assert state.banish is not None
        mat = state.mats[state.active]
        index, cost, rage = state.banish["town"], state.banish["cost"], state.banish["rage"]
        town = state.towns[index]
        mat.tracks[color] -= madness
        state.discard[color] += madness
        mat.chaos -= chaos
        state.supply_chaos += chaos
        town.shamblers[color] -= 1
        state.mat_shamblers[color] += 1
        bonus = state.cfg.banish_bonus[min(rage, len(state.cfg.banish_bonus) - 1)]
        moved = min(bonus, state.mat_tentacles[color])
        state.mat_tentacles[color] -= moved
        state.discard[color] += moved
        events = [
            _ev({"type": "banished", "mat": state.active,
                    "town": index,
                    "color": color,
                    "dice": list(state.banish["dice"]),
                    "cost": cost,
                    "payment": {"madness": madness, "chaos": chaos},
                    "rage_at_start": rage,
                    "mat_tentacles_discarded": moved,
                })
        ]
        state.banish = None
        state.phase = ACTIONS
        return events + self._after_action(state)

    def _after_action(self, state: ShamblerState) -> list[Event]:
        ended = self._settled(state)
        if ended or state.actions_left > 0:
            return ended
        return self._start_feed(state)

    # ------------------------------------------------------------------ feed

    def _start_feed(self, state: ShamblerState) -> list[Event]:
        state.phase = FEED
        state.feed = []
        for i, town in enumerate(state.towns):
            eat = min(town.shambler_count(), town.madness(state.colors))
            if eat > 0:
                state.feed.append([i, eat])
        return self._advance_feed(state)

    def _feed_one(self, state: ShamblerState, color: str) -> list[Event]:
        index = state.feed[0][0]
        state.towns[index].tentacles[color] -= 1
        state.mat_tentacles[color] += 1
        state.feed[0][1] -= 1
        return [_ev({"type": "fed", "town": index, "color": color, "shambler_mat": state.mat_tentacles[color]})] + self._settled(state)

    def _advance_feed(self, state: ShamblerState) -> list[Event]:
        """Feed every tentacle that needs no choice; stop at the first real choice."""
        events: list[Event] = []
        while state.feed:  # a decided game has no feed left (see `_finish`)
            index, remaining = state.feed[0]
            if remaining <= 0:
                state.feed.pop(0)
                continue
            town = state.towns[index]
            present = [c for c in state.colors if town.tentacles[c] > 0]
            if len(present) > 1 and remaining < town.madness(state.colors):
                return events  # the active player picks: see `_feed_prompt`
            events += self._feed_one(state, present[0])
        if state.outcome is not None:
            return events
        return events + self._end_turn(state)

    # ------------------------------------------------------- turn boundaries

    def _settled(self, state: ShamblerState) -> list[Event]:
        """End the game if it is won or lost right now; the win first, so it beats a simultaneous loss."""
        cfg = state.cfg
        if all(state.mat_shamblers[c] >= cfg.win_per_color for c in state.colors):
            return self._finish(state, {"type": "game_won", "cause": "banished", "turn": state.turn, "shambler_mat": dict(state.mat_shamblers)})
        for c in state.colors:
            if state.mat_tentacles[c] >= cfg.loss_mat_tentacles:
                return self._finish(state, {"type": "game_lost", "cause": "shambler_mat_full", "turn": state.turn, "color": c,
                                            "count": state.mat_tentacles[c]})
        for i, m in enumerate(state.mats):
            if m.delirium >= cfg.delirium_capacity:
                return self._finish(state, {"type": "game_lost", "cause": "delirium", "turn": state.turn, "mat": i})
        return []

    def _end_turn(self, state: ShamblerState) -> list[Event]:
        state.active = (state.active + 1) % len(state.mats)
        return self._begin_turn(state)

    def _finish(self, state: ShamblerState, event: GameWon | GameLost) -> list[Event]:
        state.outcome = "won" if event["type"] == "game_won" else "lost"
        state.cause = event["cause"]
        state.phase = OVER
        state.feed = []
        state.actions_left = 0
        return [Event.of(event)]

    def _draw(self, state: ShamblerState) -> tuple[str | None, list[Event]]:
        events: list[Event] = []
        if not state.bag:
            count = sum(state.discard.values())
            if count == 0:
                return None, events
            state.bag = [c for c in state.discard for _ in range(state.discard[c])]
            state.discard = {c: 0 for c in state.discard}
            state.rng.shuffle(HIDDEN, state.bag)
            events.append(_ev({"type": "bag_refilled", "count": count}))
        return state.bag.pop(), events

    def _begin_turn(self, state: ShamblerState) -> list[Event]:
        cfg = state.cfg
        state.turn += 1
        state.phase = ACTIONS
        state.actions_left = cfg.actions_per_turn
        state.dice = []
        mat = state.mats[state.active]
        events = [_ev({"type": "turn_started", "turn": state.turn, "mat": state.active, "seat": mat.seat})]
        n = len(state.towns)
        wheel = state.rng.below(WHEEL, n)
        state.wheel = wheel
        events.append(_ev({"type": "wheel_turned", "town": wheel}))
        drawn: list[str] = []
        for _ in range(cfg.wheel_draw):
            color, more = self._draw(state)
            events += more
            if color is None:
                events.append(_ev({"type": "bag_empty", "town": wheel}))
                break
            state.towns[wheel].tentacles[color] += 1
            drawn.append(color)
        events.append(_ev({"type": "tentacles_drawn", "town": wheel, "tentacles": drawn}))
        target = (wheel + cfg.shambler_offset) % n
        if not state.track:
            return events + self._finish(state, {"type": "game_lost", "cause": "shambler_track_empty", "turn": state.turn, "town": target})
        color = state.track.pop(0)
        state.towns[target].shamblers[color] += 1
        events.append(_ev({"type": "shambler_placed", "town": target, "color": color, "track_left": len(state.track)}))
        return events

    # ------------------------------------------------------------- views

    def view(self, state: ShamblerState, seat: int | None) -> ShamblersView:
        return build_view(state, seat)

    def projection(self, state: ShamblerState, seat: int | None) -> None:
        """Every seat, and a spectator, sees the same table (`build_view` does not look at the seat)."""
        return None

    def outcome(self, state: ShamblerState) -> str | None:
        return state.outcome

    def cause(self, state: ShamblerState) -> str | None:
        return state.cause

    def secret(self, state: ShamblerState) -> tuple[tuple[str, ...], ...]:
        """The bag and the Shambler Track: a draw from either shows something (see `core.undo`)."""
        return tuple(state.bag), tuple(state.track)

    def canonical(self, state: ShamblerState) -> dict[str, Any]:
        return state.canonical()

    def from_canonical(self, data: dict[str, Any], setup: Setup, content: Any) -> ShamblerState:
        return ShamblerState.from_canonical(data, _cfg(content).at(setup.one("difficulty")))
