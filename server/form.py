"""The lobby's create form checked before a table is made: what is wrong, never what was sent.

A refusal's reason goes back over the wire, and reasons never echo the input (net/PROTOCOL.md),
so a wrong mode, option, id or bot kind is named by what this server offers instead (the modes,
the mode's set-up choices, `cthulhu content` for the ids). The rules' own checks (`Setup`, the
content) still run after this; their messages quote the value, so they are not passed on.
"""

from __future__ import annotations

from cthulhu.core import modes
from cthulhu.net import CreateTable


def form_problem(msg: CreateTable) -> str | None:
    """Why the form makes no table (one line, no input quoted), or None."""
    if msg.mode not in modes.names():
        return f"this server has no such mode (it has {', '.join(modes.names())})"
    mode = modes.get(msg.mode)
    if msg.bots > msg.seats:
        return "more bots than seats"
    if (msg.bot or mode.default_bot) not in mode.bot_kinds:
        return f"{mode.title} has no bot of that kind (choose from {', '.join(mode.bot_kinds)})"
    from cthulhu.content import builtin

    content = builtin().modes.get(mode.name)
    declared = {option.name: option for option in mode.options}
    for name, value in msg.options.items():
        option = declared.get(name)
        if option is None:
            takers = [(m, o) for m in modes.all_modes() for o in m.options if o.name == name]
            if takers:  # another mode's choice: named by its own words, as the rules do
                return f"{takers[0][1].plural} are for {' or '.join(f'{m.title} mode' for m, _ in takers)}"
            named = "a set-up choice needs a name" if not name.strip() else "no such set-up choice"
            return f"{named} ({mode.title} has {', '.join(declared) or 'none'})"
        if option.many != isinstance(value, list):
            return f"{option.flag}: {'a list of ids' if option.many else 'one id'} expected"
        ids = {choice.id for choice in option.values(content)}
        if any(one not in ids for one in (value if isinstance(value, list) else [value]) if one):
            return f"{option.flag}: {mode.title} has no such {option.noun} (`cthulhu content list` names them)"
    return None
