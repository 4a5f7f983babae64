"""What a seat sees of the main game. The main game hides only deck orders and the RNG,
so every seat sees the same table; the seat is kept for the modes and cards that hide more."""

from __future__ import annotations

from typing import Any

from .content import MainContent
from .mods import mods_of
from .state import MainState


def _static(c: MainContent, episode: str, adj: dict[str, list[str]]) -> dict[str, Any]:
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
        "adjacent": adj,
        "staircases": list(m.staircases),
        "tunnels": list(m.tunnels),
        "gates": dict(m.gates),
        "start": m.start,
    }


def _investigator(c: MainContent, n: int, inv: Any) -> dict[str, Any]:
    ref = c.investigators[inv.id]
    return {
        "index": n,
        "id": inv.id,
        "name": ref.name,
        "title": ref.title,
        "seat": inv.seat,
        "space": inv.space,
        "alive": inv.alive,
        "cause": inv.cause,
        "wounds": inv.wounds,
        "health": ref.health,
        "stress": inv.stress,
        "stress_max": ref.stress,
        "sanity": inv.sanity,
        "skull": ref.sanity,
        "thresholds": list(ref.thresholds),
        "bonus_thresholds": list(ref.bonus_thresholds),
        "reached": list(inv.reached),
        "bonus": inv.bonus,
        "fire": inv.fire + inv.fire_wounds,
        "skills": [
            {
                "id": sk,
                "name": c.skills[sk].name,
                "unique": not c.skills[sk].common,
                "level": inv.levels[sk],
                "levels": [lv.text for lv in c.skills[sk].levels],
            }
            for sk in ref.skills
        ],
        "mods": {k: v for k, v in mods_of(c, inv.levels).items() if v},
    }


def build_view(s: MainState, c: MainContent, adj: dict[str, list[str]], seat: int | None) -> dict[str, Any]:
    roll = None
    if s.last_roll is not None:
        faces = {"standard": c.dice.standard, "bonus": c.dice.bonus}
        roll = {
            "inv": s.last_roll["inv"],
            "purpose": s.last_roll["purpose"],
            "dice": [[d, faces[d][f]] for d, f in s.last_roll["dice"]],
        }
    return {
        "mode": "main",
        "seat": seat,
        "episode": _static(c, s.episode, adj),
        "investigators": [_investigator(c, n, inv) for n, inv in enumerate(s.investigators)],
        "enemies": [
            {"id": f.id, "kind": f.kind, "name": c.enemies[f.kind].name, "space": f.space, "wounds": f.wounds, "health": c.enemies[f.kind].health}
            for f in s.figures
        ],
        "reference": {
            k: {
                "name": e.name,
                "category": e.category,
                "health": e.health,
                "standard": e.standard,
                "bonus": e.bonus,
                "ability": e.ability.text if e.ability else None,
            }
            for k, e in c.enemies.items()
        },
        "reserve": dict(s.reserve),
        "fire": dict(s.fire),
        "fire_reserve": s.fire_reserve,
        "wound_tokens": s.wound_tokens,
        "turn": s.turn,
        "active": s.active,
        "phase": s.phase,
        "actions_left": s.actions_left,
        "last_roll": roll,
        "cause": s.cause,
    }
