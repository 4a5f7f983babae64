"""A mode declares what it can do; the core never probes for it (issue 37, item 5).

Every hook a mode gives the engine is a method of `core.rules.Rules` with a docstring and a
default, so nothing in `core/` asks an object whether it has a capability by name: no
`getattr(x, "name", ...)` or `hasattr(x, "name")`. Reflection over a model's own fields by a
name held in a variable (pydantic models, dataclasses) is not a capability probe, and is left alone.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from cthulhu.core import Game, Rules, Setup, script_dice
from cthulhu.core.rng import Rng

from support.net_toy import ToyRules

ROOT = Path(__file__).resolve().parents[2]


def probes(folder: Path) -> list[str]:
    """Every `getattr`/`hasattr` in `folder` whose attribute name is spelled in the code ("rng",
    "on_" + kind, f"on_{kind}"), as "path:line: call"."""
    found: list[tuple[str, int, str]] = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")):
                continue
            if len(node.args) >= 2 and any(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in ast.walk(node.args[1])):
                found.append((path.relative_to(folder.parent).as_posix(), node.lineno, ast.unparse(node)))
    return [f"{where}:{line}: {call}" for where, line, call in sorted(found)]


def test_the_core_probes_nothing_for_a_capability():
    assert probes(ROOT / "core") == []


def test_the_scanner_finds_a_probe_however_its_name_is_spelled(tmp_path):
    core = tmp_path / "core"
    (core / "main").mkdir(parents=True)
    (core / "undo.py").write_text("rng = getattr(state, 'rng', None)\nif hasattr(rules, 'secret'):\n    pass\n")
    (core / "main" / "bot.py").write_text(
        "pick = getattr(self, 'on_' + kind, None)\nother = getattr(self, f'on_{kind}')\nfield = getattr(model, name)\n")
    assert probes(core) == [
        "core/main/bot.py:1: getattr(self, 'on_' + kind, None)",
        "core/main/bot.py:2: getattr(self, f'on_{kind}')",
        "core/undo.py:1: getattr(state, 'rng', None)",
        "core/undo.py:2: hasattr(rules, 'secret')",
    ]


HOOKS = ["new_state", "prompt", "resolve", "view", "outcome", "canonical", "from_canonical",
         "start", "rng", "secret", "projection", "cause", "summoned", "hashed"]


def test_every_hook_of_rules_is_declared_with_a_docstring():
    """Read from the source: a compiled core (mypyc) keeps no docstrings on its methods."""
    declared = sorted(name for name, _ in inspect.getmembers(Rules, inspect.isroutine) if not name.startswith("_"))
    assert declared == sorted(HOOKS)
    tree = ast.parse((ROOT / "core" / "rules.py").read_text(encoding="utf-8"))
    rules = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Rules")
    documented = {f.name for f in rules.body if isinstance(f, ast.FunctionDef) and (ast.get_docstring(f) or "").strip()}
    assert sorted(set(HOOKS) - documented) == []


class _Bare(Rules):
    """A mode that declares nothing of its own."""


class _Dice:
    rng = Rng(5)


def test_a_mode_that_declares_nothing_gets_the_safe_defaults_and_a_clear_error_for_what_it_must_declare():
    bare = _Bare()
    assert bare.start(None) == []
    assert bare.rng(_Dice) is _Dice.rng  # its dice, where every mode keeps them
    assert bare.secret(None) is None  # no secrets named: no take-backs
    assert [bare.projection(None, seat) for seat in (None, 0, 3)] == [None, 0, 3]  # one view per seat
    assert bare.cause(None) is None and bare.summoned(None) is False
    with pytest.raises(NotImplementedError, match="_Bare declares no 'prompt' hook"):
        bare.prompt(None)
    with pytest.raises(NotImplementedError, match="'from_canonical'"):
        bare.from_canonical({}, Setup(), None)


class _Unnamed(ToyRules):
    """The toy with its `secret` hook left at the default."""

    secret = Rules.secret


def _toy(rules: Rules) -> Game:
    setup = Setup(mode="toy", seed=3, players=1)
    state = rules.new_state(setup, None)
    rules.start(state)
    return Game(setup, None, rules, state)


@pytest.mark.parametrize("rules, horizon", [(ToyRules(), 1), (_Unnamed(), 0)], ids=["named", "unnamed"])
def test_take_backs_follow_the_declared_secret_hook(rules, horizon):
    """Playing a card from the hand draws nothing: it can be taken back only where the mode names its
    secrets; a mode that leaves `secret` at its default offers no take-back at all."""
    game = _toy(rules)
    play = next(o.command for o in game.prompt.options if o.command.kind == "play")
    game.apply(0, play)
    assert game.undo_horizon(0) == horizon


class _Chanceless(ToyRules):
    """The toy declaring that it has no dice (its `rng` hook says None)."""

    def rng(self, state):
        return None


def test_test_dice_are_queued_only_in_a_mode_that_declares_its_dice():
    script_dice(game := _toy(ToyRules()), 6)
    assert game.state.rng.scripted == [6]
    with pytest.raises(ValueError, match="'toy' rolls no dice"):
        script_dice(_toy(_Chanceless()), 6)
