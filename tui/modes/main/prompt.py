"""The main game's prompt bar: each option worded from its data, the header, and the dice line.

Every prompt kind declares its options' data (`cthulhu.core.main.prompts`), so
an option is worded here from what it does, never by parsing the engine's
label: a Discovery choice shows its effect and the halves it claims, a skill
its new level's text, a reroll the die it takes and its cost. The dice line
belongs to the keep-or-reroll prompt and says whose roll it is and what its
successes do; it is gone once the dice are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text

from cthulhu.core.main.view import MainView

from ...english import and_list, cap, plural, possessive, the
from .dice import face_glyph, faces_rich

SHORT_LEGEND = "* success T tentacle E elder sign - blank, lower case: bonus"


def _who(prompt: Any, view: MainView) -> str:
    actor = prompt["actor"]
    found = next((i["name"] for i in view["investigators"] if i["index"] == actor), None)
    return found or "You"


def _enemy(d: Any) -> str:
    return the(d["name"], proper=d["elder"])


def roll_says(view: MainView) -> str | None:
    """'The Fire Vampire attacks Mina Castellane: each success is a wound to Mina Castellane ...' for the roll being
    decided, with what the investigator's skills and cards make of it (wounds and tentacles ignored, elder signs)."""
    roll = view["last_roll"]
    if roll is None or not roll["deciding"]:
        return None
    who = roll["name"]
    purpose = roll["purpose"]
    mods = next((i["mods"] for i in view["investigators"] if i["index"] == roll["inv"]), {})
    tentacles = "each tentacle 1 sanity" + (f" ({plural(int(mods['calm']), 'tentacle')} ignored)" if mods.get("calm") else "")
    elders = _elder_signs(roll, mods)
    if purpose == "defend":
        enemy = roll["enemy"] or "an enemy"
        proper = enemy == view["elder_one"]["name"]
        armor = f" ({plural(int(mods['armor']), 'wound')} ignored)" if mods.get("armor") else ""
        return f"{cap(the(enemy, proper))} attacks {who}: each success is a wound to {who}{armor}{elders}, {tentacles}"
    if purpose == "attack":
        targets = and_list(the(t, t == view["elder_one"]["name"]) for t in roll["target_names"]) or "the enemy"
        return f"{who} attacks {targets}: each success is a wound to {targets}{elders}, {tentacles}"
    if purpose == "fire":
        return f"The flames roll against {who}: each success is a wound to {who}{elders}, {tentacles}"
    cause = roll["cause"]
    source = f" for {cause['name']}" if cause and cause["name"] else ""
    return f"{possessive(who)} roll{source}: {plural(roll['need'] or 1, 'success')} needed{elders}, {tentacles}"


def _elder_signs(roll: Any, mods: Any) -> str:
    """What the elder signs showing on the dice do on this roll ('' when none shows)."""
    if not any("elder" in str(face).split("+") for _, face in roll["dice"]):
        return ""
    if roll["purpose"] == "attack" and mods.get("elder_hits"):
        return ", each elder sign is a success too"
    if roll["purpose"] in ("defend", "fire") and mods.get("elder_shield"):
        return ", each elder sign cancels a success"
    if roll["purpose"] == "defend":
        return ""  # an enemy's elder signs may set off its ability: the Log tells it when they do
    return ", elder signs do nothing on this roll"


def dice_line(view: MainView, width: int) -> Text | None:
    """Whose roll, what it does, and its faces, while a keep-or-reroll choice is open on it."""
    roll = view["last_roll"]
    says = roll_says(view)
    if roll is None or says is None or not roll["dice"]:
        return None
    line = Text(says + "\n", style="bold")
    line.append("Dice: ", style="bold")
    line.append_text(faces_rich(roll["dice"]))
    if len(line.plain.split("\n")[-1]) + len(SHORT_LEGEND) + 3 <= width:
        line.append("   " + SHORT_LEGEND, style="dim")
    return line


def _cost(stress: int) -> str:
    return "free" if stress == 0 else f"{stress} stress"


def _reroll(prompt: Any, view: MainView, who: str) -> tuple[list[str], str]:
    options = prompt["options"]
    rerolls = [o["data"] for o in options if not o["data"]["keep"]]
    costs = {_cost(d["stress"]) for d in rerolls}
    same = len(costs) == 1
    labels = []
    for o in options:
        data = o["data"]
        if data["keep"]:
            labels.append("keep the dice")
            continue
        glyph = face_glyph("bonus" if data["bonus"] else "standard", data["face"] or "")
        labels.append(f"reroll {data['die'] + 1}:[{glyph}]" + ("" if same else f" ({_cost(data['stress'])})"))
    if not rerolls:
        return labels, f"{who}: keep the dice (no stress left to reroll)"
    cost = next(iter(costs)) if same else "free or 1 stress"
    return labels, f"{who}: keep the dice or reroll one (a reroll is {cost})"


def _action(d: Any) -> str:
    act = d["action"]
    if act == "attack" and "health" in d:
        return f"{d['name']} ({d['wounds']}/{d['health']})"
    if act == "end_actions" and d.get("unused"):
        return f"End actions ({d['unused']} unused)"
    return str(d["name"])


def _rest(d: Any) -> str:
    parts = ([plural(d["wounds"], "wound")] if d["wounds"] else []) + ([plural(d["stress"], "stress")] if d["stress"] else [])
    return "Heal " + (and_list(parts) or "nothing")


def _trade(d: Any) -> str:
    if not d["give"]:
        return "Back: trade nothing (no action spent)" if d["refund"] else "Done trading"
    return f"{d['giver']} gives {d['card']} to {d['taker']}"


def _choose(d: Any) -> str:
    """'Take the axe: take Fire Axe (Item: Roll 2 extra bonus dice when you attack.)'."""
    text = d["text"]
    claimed = {f"take {half['name']}" for half in d["claims"]}
    does = [w for w in d["does"] if w not in claimed and w.lower() not in text.lower()]
    out = f"{text} ({'; '.join(does)})" if does else text
    for half in d["claims"]:
        out += f" [{half['kind'].title()} {half['name']}: {half['text']}]"
    return out


LABELS: dict[str, Callable[[Any], str]] = {
    "action": _action,
    "run": lambda d: "Stop here" if d["stop"] else f"Move to {d['space']}",
    "rest": _rest,
    "trade": _trade,
    "assign_hit": lambda d: f"{cap(_enemy(d))} ({d['wounds']}/{d['health']})",
    "attack_order": lambda d: f"{cap(_enemy(d))} ({plural(d['dice'] + d['bonus'], 'die')})",
    "wound_to": lambda d: f"{d['card']} ({d['wounds']}/{d['health']})",
    "level_up": lambda d: f"{d['name']} to level {d['level']}: {d['text']}",
    "douse": lambda d: f"{d['space']} ({plural(d['fire'], 'Fire token')})",
    "pick_enemy": lambda d: f"{cap(_enemy(d))} in {d['space']}",
    "enemy_path": lambda d: f"Through {d['space']}",
    "discard_card": lambda d: f"{d['name']} ({d['kind'].title()})",
    "choose": _choose,
}


def _header(kind: str, who: str, first: Any, view: MainView) -> str:
    if kind == "action":
        return f"{who}: choose an action ({plural(first['left'], 'action')} left)"
    if kind == "run":
        return f"{who} runs: {plural(first['left'], 'space')} left" + (", or stop here" if first["moved"] else "")
    if kind == "rest":
        return f"{who} rests: heal {first['heal']}, shared between wounds and stress as you like"
    if kind == "trade":
        return "Trade: who gives what to whom?"
    if kind == "assign_hit":
        return f"{who}: where does the next hit land? ({plural(first['hits'], 'hit')} left)"
    if kind == "attack_order":
        return f"{who}: which enemy attacks next?"
    if kind == "wound_to":
        return f"{who} takes {plural(first['n'], 'wound')}: who takes the next one?"
    if kind == "level_up":
        return f"{who} crosses an insanity threshold: raise a skill"
    if kind == "douse":
        return f"{who}: where do you put out the flames?"
    if kind == "pick_enemy":
        return "Which of the closest enemies moves?"
    if kind == "enemy_path":
        return f"{cap(the(first['enemy'], first['enemy'] == view['elder_one']['name']))} closes in: which way?" if "enemy" in first else "Which way?"
    if kind == "discard_card":
        return f"{who} must lose a card"
    if kind == "choose":
        return f"{who}, {first['source']}: choose one" if first["source"] else f"{who}: choose one"
    return ""


def option_labels(prompt: Any, view: MainView, width: int) -> tuple[list[str], str]:
    """Labels for the bar, and the prompt's line, worded from the options' data."""
    options = prompt["options"]
    kind = prompt["kind"]
    who = _who(prompt, view)
    if kind == "reroll":
        return _reroll(prompt, view, who)
    word = LABELS.get(kind)
    if word is None or not options:
        return [o["label"] for o in options], prompt["text"]
    labels = []
    for o in options:
        d = o["data"]
        if kind == "wound_to" and d["card"] is None:
            labels.append(f"{who} ({d['wounds']}/{d['health']})")
        else:
            labels.append(word(d))
    if kind == "action":
        # An episode action says what it does, where the bar has the room (the Choices list always does).
        told = [f"{label}: {_effect(o['data']['text'])}" if o["data"]["action"] == "episode" and o["data"].get("text") else label
                for label, o in zip(labels, options)]
        if told != labels and _rows(told, width) <= 3:
            labels = told
    return labels, _header(kind, who, options[0]["data"], view)


def _effect(text: str) -> str:
    """An episode action's text without where it may be taken ("On a space with a Rift: ..."): it is offered only there."""
    where, sep, effect = text.partition(": ")
    return cap(effect) if sep and where.startswith(("On ", "In ")) else text


def _rows(labels: list[str], width: int) -> int:
    """Bar rows the labels take when packed (as the prompt bar packs them: key, label, three spaces)."""
    rows, used = 0, 0
    for label in labels:
        size = len(label) + 6
        if used == 0 or used + 3 + size > width:
            rows += max(1, -(-size // max(1, width)))
            used = size % max(1, width) if size > width else size
        else:
            used += 3 + size
    return rows
