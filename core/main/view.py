"""What a seat sees of the main game.

The table is open except for the order of the Mythos and Discovery decks and
the RNG: views carry deck sizes, never their contents. Every seat sees the
same table; the seat is kept for modes and cards that hide more.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from typing_extensions import TypedDict

from .content import MainContent
from .ops import Op, RitualOp, TokenOp, walk_ops
from .eventparts import Cause
from .mods import grants, held_half, investigator_mods, skill_levels
from .prepared import Prepared
from .state import Investigator, MainState
from .tasks import HeldCard
from .viewtypes import (  # declared apart: see `viewtypes`
    SpaceRef as SpaceRef,
    TileView as TileView,
    RequirementView as RequirementView,
    EpisodeActionView as EpisodeActionView,
    EpisodeView as EpisodeView,
    SkillView as SkillView,
    CardView as CardView,
    InsanityView as InsanityView,
    InvestigatorView as InvestigatorView,
    EnemyView as EnemyView,
    ReferenceView as ReferenceView,
    StageView as StageView,
    ElderOneView as ElderOneView,
    MythosCardView as MythosCardView,
    MythosView as MythosView,
    DiscoveryView as DiscoveryView,
    RitualView as RitualView,
    RollView as RollView,
    MainView as MainView,
)


class _SkillRef(TypedDict):
    name: str
    unique: bool
    levels: list[str]


class _StageRef(TypedDict):
    name: str
    text: str
    health: int | None
    standard: int
    bonus: int


class _RitualRef(TypedDict):
    name: str
    text: str
    needed: int


class _Static(TypedDict):
    """The parts of a view that never change in a game (built once, shared by every view)."""

    episode: EpisodeView
    reference: dict[str, ReferenceView]
    tokens: dict[str, str]
    skills: dict[str, _SkillRef]
    stages: list[_StageRef]
    ritual: _RitualRef


def _static(c: MainContent, episode: str, adj: dict[str, list[str]]) -> EpisodeView:
    ep = c.episodes[episode]
    m = ep.map
    return {
        "id": episode,
        "name": ep.name,
        "blurb": ep.blurb,
        "tiles": [
            {"id": t.id, "name": t.name, "pos": list(t.pos), "spaces": [{"id": s.id, "name": s.name} for s in t.spaces]}
            for t in m.tiles
        ],
        "adjacent": {space: list(near) for space, near in adj.items()},  # the engine's own is shared by every game
        "staircases": list(m.staircases),
        "tunnels": list(m.tunnels),
        "gates": {color: space for color, space in m.gates.items()},
        "start": m.start,
        "actions": [
            {
                "name": a.name,
                "text": a.text,
                "requires": {
                    "at": list(a.requires.at),
                    "safe": a.requires.safe,
                    "fire_here": a.requires.fire_here,
                    "space_token": a.requires.space_token,
                    "tokens": dict(a.requires.tokens),
                },
                "advances": advances(a.effect),
            }
            for a in ep.actions
        ],
    }


def advances(ops: Sequence[Op]) -> bool:
    """Whether an action moves the ritual on (directly, or by gathering tokens): bots aim for these."""
    return any(isinstance(op, RitualOp) or (isinstance(op, TokenOp) and op.n > 0) for _, op in walk_ops(ops, ""))


def _mythos(c: MainContent, s: MainState, card: str) -> MythosCardView:
    deck, n = card.split(":")
    source = c.elder_ones[s.elder_one].mythos if deck == "eo" else c.episodes[s.episode].mythos
    m = source[int(n)]
    return {"name": m.name, "text": m.text, "summoning": m.summoning}


def _half(c: MainContent, s: MainState, held: HeldCard) -> CardView:
    h = held_half(c, s.episode, held)
    out: CardView = {"card": held["card"], "name": h.name, "kind": h.kind, "text": h.text, "side": held["side"]}
    if h.kind == "companion":
        out["wounds"] = held["wounds"]
        out["health"] = h.health
    return out


class _Hand:
    """The parts of an investigator's view that follow from who they are and what they hold (levels,
    cards, insanity, kept Mythos cards): worked out again only when one of those changes."""

    __slots__ = ("key", "name", "title", "health", "stress_max", "skull", "thresholds", "bonus_thresholds", "skills", "mods",
                 "cards", "insanity", "kept")

    def __init__(self, key: Any, c: MainContent, s: MainState, inv: Investigator, skills: dict[str, _SkillRef]) -> None:
        ref = c.investigators[inv.id]
        insanity = c.insanity.get(inv.insanity) if inv.insanity else None
        granted = grants(c, s.episode, inv) if inv.cards else {}
        levels = skill_levels(c, s.episode, inv) if granted else inv.levels
        self.key = key
        self.name = ref.name
        self.title = ref.title
        self.health = ref.health
        self.stress_max = ref.stress
        self.skull = ref.sanity
        self.thresholds = list(ref.thresholds)
        self.bonus_thresholds = list(ref.bonus_thresholds)
        self.skills: list[SkillView] = [
            {"id": sk, "name": skills[sk]["name"], "unique": skills[sk]["unique"], "levels": skills[sk]["levels"], "level": levels[sk],
             "own": inv.levels.get(sk, 0), "granted": granted.get(sk, [])}
            for sk in [*ref.skills, *[sk for sk in granted if sk not in ref.skills]]
        ]
        self.mods: dict[str, int | bool] = {k: v for k, v in investigator_mods(c, s.episode, inv).items() if v}
        self.cards = [_half(c, s, h) for h in inv.cards]
        self.insanity: InsanityView | None = {"name": insanity.name, "text": insanity.text} if insanity else None
        self.kept = [_mythos(c, s, k)["name"] for k in inv.kept]


def _investigator_cached(c: MainContent, s: MainState, n: int, inv: Investigator, skills: dict[str, _SkillRef],
                         memo: dict[Any, Any]) -> InvestigatorView:
    """The view of investigator `n`, rebuilt only when something it shows changed: the key is
    every field of `inv` that `_investigator` reads (the rest is content). Views are read-only,
    so two views may share it (and a diff skips it by identity)."""
    hand = (inv.id, tuple(inv.levels.items()), tuple([(h["card"], h["side"], h["wounds"]) for h in inv.cards]), inv.insanity,
            tuple(inv.kept))
    key = (hand, inv.seat, inv.space, inv.alive, inv.cause, inv.wounds, inv.stress, inv.sanity, tuple(inv.reached),
           inv.bonus, inv.fire, inv.fire_wounds, tuple(inv.tokens.items()))
    last = memo.get(("investigator_view", n))
    if last is not None and last[0] == key:
        return last[1]  # type: ignore[no-any-return]
    held: _Hand | None = memo.get(("investigator_hand", n))
    if held is None or held.key != hand:
        held = memo[("investigator_hand", n)] = _Hand(hand, c, s, inv, skills)
    view = _investigator(n, inv, held)
    memo[("investigator_view", n)] = (key, view)
    return view


def _investigator(n: int, inv: Investigator, held: _Hand) -> InvestigatorView:
    return {
        "index": n,
        "id": inv.id,
        "name": held.name,
        "title": held.title,
        "seat": inv.seat,
        "space": inv.space,
        "alive": inv.alive,
        "cause": inv.cause,
        "wounds": inv.wounds,
        "health": held.health,
        "stress": inv.stress,
        "stress_max": held.stress_max,
        "sanity": inv.sanity,
        "skull": held.skull,
        "thresholds": held.thresholds,
        "bonus_thresholds": held.bonus_thresholds,
        "reached": list(inv.reached),
        "bonus": inv.bonus,
        "fire": inv.fire + inv.fire_wounds,
        "skills": held.skills,
        "mods": held.mods,
        "tokens": dict(inv.tokens),
        "cards": held.cards,
        "insanity": held.insanity,
        "kept": held.kept,
    }


def _elder(c: MainContent, s: MainState, stages: list[_StageRef], memo: dict[Any, Any]) -> ElderOneView:
    figure = None
    for f in s.figures:
        if f.kind == "elder_one":
            figure = f
            break
    key = (s.track, s.summoned, s.stage, None if figure is None else figure.space, None if figure is None else figure.wounds)
    last = memo.get("elder_view")
    if last is not None and last[0] == key:
        return last[1]  # type: ignore[no-any-return]
    eo = c.elder_ones[s.elder_one]
    view: ElderOneView = {
        "id": s.elder_one,
        "name": eo.name,
        "minion": eo.minion,
        "track": eo.track,
        "first_red": eo.first_red,
        "position": s.track,
        "summoned": s.summoned,
        "stage": s.stage,
        "space": figure.space if figure else None,
        "stages": [
            {
                "name": st["name"],
                "text": st["text"],
                "health": st["health"],
                "standard": st["standard"],
                "bonus": st["bonus"],
                "revealed": n <= s.stage,
                "defeated": 0 < n < s.stage,
                "wounds": figure.wounds if figure is not None and n == s.stage else 0,
            }
            for n, st in enumerate(stages)
        ],
    }
    memo["elder_view"] = (key, view)
    return view


def build_view(s: MainState, prepared: Prepared, seat: int | None, memo: dict[Any, Any] | None = None) -> MainView:
    """The seat's view. Parts that never change in a game are built once and shared between
    views (so a diff can skip them by identity): treat every view as read-only."""
    memo = {} if memo is None else memo
    c = prepared.content
    static = memo.get("view_static")
    if static is None:
        static = memo["view_static"] = _static_parts(s, c, prepared.adj)
    return _dynamic(s, prepared, static, memo)


def _static_parts(s: MainState, c: MainContent, adj: dict[str, list[str]]) -> _Static:
    kinds = set(s.reserve) | {"cultist", c.elder_ones[s.elder_one].minion}
    eo = c.elder_ones[s.elder_one]
    return {
        "episode": _static(c, s.episode, adj),
        "reference": {
            k: {
                "name": e.name,
                "category": e.category,
                "health": e.health,
                "standard": e.standard,
                "bonus": e.bonus,
                "ability": e.ability.text if e.ability else None,
            }
            for k, e in sorted(c.enemies.items())
            if k in kinds
        },
        "tokens": {k: t.name for k, t in c.tokens.items()},
        "skills": {
            sk: {"name": c.skills[sk].name, "unique": not c.skills[sk].common, "levels": [lv.text for lv in c.skills[sk].levels]}
            for sk in sorted({sk for i in s.investigators for sk in c.investigators[i.id].skills}
                             | {h.skill for d in c.episodes[s.episode].discovery for h in (d.left, d.right) if h is not None and h.skill})
        },
        "stages": [{"name": st.name, "text": st.text, "health": st.health, "standard": st.standard, "bonus": st.bonus} for st in eo.stages],
        "ritual": {"name": c.episodes[s.episode].ritual.name, "text": c.episodes[s.episode].ritual.text, "needed": c.episodes[s.episode].ritual.needed},
    }


def _dynamic(s: MainState, prepared: Prepared, static: _Static, memo: dict[Any, Any]) -> MainView:
    """The parts that change; each is made again only when what it shows changed (compared with the
    last one made, kept in `memo`), so consecutive views share what stayed the same."""
    c = prepared.content
    roll: RollView | None = None
    if s.last_roll is not None:
        last = s.last_roll
        deciding = s.pending is not None and s.pending["kind"] == "reroll" and len(s.stack) >= 2
        enemy: str | None = None
        targets: list[str] = []
        need: int | None = None
        cause: Cause | None = None
        if deciding:
            from .engine import Engine  # the engine's questions about the table, asked of this state
            from .fight import roll_context

            enemy, targets, need, cause = roll_context(Engine(s, prepared), s.stack[-2])
        standard, bonus = prepared.standard, prepared.bonus
        roll = {
            "inv": last["inv"],
            "name": prepared.investigator_names[s.investigators[last["inv"]].id],
            "purpose": last["purpose"],
            "dice": [[d, (standard if d == "standard" else bonus)[f]] for d, f in last["dice"]],
            "deciding": deciding,
            "enemy": enemy,
            "target_names": targets,
            "need": need,
            "cause": cause,
            "free": last["free"],
        }
    return {
        "mode": "main",
        "episode": static["episode"],
        "investigators": [_investigator_cached(c, s, n, inv, static["skills"], memo) for n, inv in enumerate(s.investigators)],
        "enemies": _enemies(s, prepared, memo),
        "reference": static["reference"],
        "reserve": _copied(memo, "reserve", s.reserve),
        "fire": _copied(memo, "fire", s.fire),
        "fire_reserve": s.fire_reserve,
        "wound_tokens": s.wound_tokens,
        "space_tokens": _space_tokens(memo, s.space_tokens),
        "tokens": static["tokens"],
        "elder_one": _elder(c, s, static["stages"], memo),
        "mythos": _mythos_view(c, s, memo),
        "discovery": {"deck": len(s.discovery_deck), "discard": len(s.discovery_discard)},
        "ritual": _ritual(s, static, memo),
        "turn": s.turn,
        "active": s.active,
        "phase": s.phase,
        "actions_left": s.actions_left,
        "last_roll": roll,
        "cause": s.cause,
        "step": 0,  # filled by the façade, as are the next two
        "outcome": None,
        "prompt": None,
    }


def _copied(memo: dict[Any, Any], name: str, now: dict[str, int]) -> dict[str, int]:
    """A copy of `now`: the last one made while it still holds the same."""
    last: dict[str, int] | None = memo.get(name)
    if last is None or last != now:
        last = memo[name] = dict(now)
    return last


def _space_tokens(memo: dict[Any, Any], now: dict[str, dict[str, int]]) -> dict[str, dict[str, int]]:
    last: dict[str, dict[str, int]] | None = memo.get("space_tokens")
    if last is None or last != now:
        last = memo["space_tokens"] = {sp: dict(t) for sp, t in now.items()}
    return last


def _enemies(s: MainState, prepared: Prepared, memo: dict[Any, Any]) -> list[EnemyView]:
    key = (s.stage, [(f.id, f.kind, f.space, f.wounds) for f in s.figures])
    last = memo.get("enemies")
    if last is not None and last[0] == key:
        return last[1]  # type: ignore[no-any-return]
    elder_health = prepared.elder.stages[s.stage].health or 0
    names, health = prepared.enemy_names, prepared.enemy_health
    view: list[EnemyView] = [
        {"id": f.id, "kind": f.kind, "name": names[f.kind], "space": f.space, "wounds": f.wounds,
         "health": elder_health if f.kind == "elder_one" else health[f.kind]}
        for f in s.figures
    ]
    memo["enemies"] = (key, view)
    return view


def _mythos_view(c: MainContent, s: MainState, memo: dict[Any, Any]) -> MythosView:
    key = (len(s.mythos_deck), tuple(s.mythos_discard))
    last = memo.get("mythos_view")
    if last is not None and last[0] == key:
        return last[1]  # type: ignore[no-any-return]
    cards = memo.get("mythos_views")  # one read-only view per Mythos card of this episode and Elder One
    if cards is None:
        cards = memo["mythos_views"] = {}
    discard = []
    for card in s.mythos_discard:
        shown = cards.get(card)
        if shown is None:
            shown = cards[card] = _mythos(c, s, card)
        discard.append(shown)
    view: MythosView = {"deck": len(s.mythos_deck), "discard": discard, "summoning": sum(1 for d in discard if d["summoning"])}
    memo["mythos_view"] = (key, view)
    return view


def _ritual(s: MainState, static: _Static, memo: dict[Any, Any]) -> RitualView:
    key = (s.ritual, s.disrupted)
    last = memo.get("ritual_view")
    if last is not None and last[0] == key:
        return last[1]  # type: ignore[no-any-return]
    ritual = static["ritual"]
    view: RitualView = {"name": ritual["name"], "text": ritual["text"], "needed": ritual["needed"], "progress": s.ritual, "disrupted": s.disrupted}
    memo["ritual_view"] = (key, view)
    return view
