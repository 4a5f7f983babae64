"""The public surface of the rules core does not drift by accident (as trio's test_exports holds its own)."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import cthulhu.core as core

SURFACE = {
    "CannotUndo", "Command", "ContentError", "Event", "Game", "GameOver", "IllegalCommand", "MalformedCommand", "Mode",
    "NotYourDecision", "Option", "OptionWire", "Prompt", "PromptWire", "Rejected", "Rules", "Setup", "StalePrompt",
    "modes", "script_dice",
}


def test_the_core_exports_exactly_its_surface():
    assert set(core.__all__) == SURFACE, "update SURFACE (and the callers) on purpose"
    assert all(getattr(core, name, None) is not None for name in core.__all__)


def test_every_registered_mode_declares_its_contracts():
    for mode in core.modes.all_modes():
        assert mode.view is not None and mode.events is not None and mode.prompts, mode.name
        assert mode.scramble is not None, f"{mode.name}: declare what is secret"
        rules = mode.rules()
        assert isinstance(rules, core.Rules), f"{mode.name}: its rules subclass core.Rules"
        assert type(rules).secret is not core.Rules.secret, f"{mode.name}: name the hidden piles, or nothing can be taken back"
        assert "random" in mode.bot_kinds
        if "search" in mode.bot_kinds:  # the search bot plays a mode by what it declares, nothing else
            assert mode.search is not None, f"{mode.name}: a search bot needs Mode.search (worlds, a value, a policy)"


# The wire's face and the table's (issue 37): what the other packages import, named here on purpose.
NET_SURFACE = {
    "AWAY_AFTER", "AfterDrop", "Allowance", "Answer", "AskBoard", "Back", "BoardMsg", "BoardRow", "CHAT_MAX", "ChallengeRow",
    "ChallengesMsg", "Chat", "CleanFormatter", "Clock", "CommandMsg", "ConnectionTrouble", "CreateTable", "Created", "Crowd",
    "Delta", "DiceVerdict", "Doorstep", "Entered", "Error", "FrameDecoder", "FrameError", "FrameTooLarge", "GameOverMsg",
    "Gate", "HEADER", "Hello", "History", "LOST", "Limits", "LinkCodeMsg", "LinkDoor", "Linked", "ListChallenges", "ListRecords",
    "ListTables", "Lobby", "LobbyClient", "LobbyRefused", "LobbyWelcome", "MAX_AWAY_AFTER", "MAX_FRAME", "NAME_MAX",
    "NewLinkCode", "NotifyFormat", "ON_TIMEOUT", "OnTimeout", "PROTOCOL_VERSION", "PeerSession", "Ping", "Pong",
    "PrefixBudgets", "ProtocolError", "Quiet", "RECONNECT_FOR", "RecapMsg", "RecordRow", "RecordsMsg", "Redirect", "RedirectRefused", "Refusal", "Rejected", "Route",
    "SeatInfo", "SeatRow", "SeatStore", "SharedBudget", "SinceMsg", "Snapshot", "SnapshotRequest", "SubmitChallenge", "Table",
    "TableRow", "TablesPage", "TlsFailed", "TokenBucket", "TrioLobby", "TrioPeer", "Undo", "UnexpectedMessage", "Welcome", "clean_chat",
    "board_words", "challenge_words", "clean_name", "clean_text", "clean_tree", "decide", "decide_off_loop", "diff", "encode_body", "encode_frame", "every_record", "failure",
    "format_duration", "join_address", "join_command", "lobby_pace", "moving_words", "record_line", "table_lines", "new_seat_token", "new_table_code",
    "new_table_id", "open_lobby", "output_width", "pace", "pace_words", "parse_duration", "parse_to_host", "peer_address",
    "play_again_command", "play_bot", "prefix_of", "public_setup", "read_hello", "reconnect_delays", "refuse",
    "serve_listeners", "serve_tls", "tls", "view_hash", "when_words",
}
TABLE_SURFACE = {
    "Host", "HostEvents", "Kept", "MoveBegins", "Pace", "Peer", "SaveTo", "Seat", "StandInMove", "StandIns", "TableSpec", "open_table",
    "ThreadedHost", "ThreadError", "DidNotStart", "NotRunning", "NotSaving",
}
ROOT = Path(__file__).resolve().parents[2]


def test_the_wire_and_the_table_export_exactly_their_surfaces():
    import cthulhu.net as net
    import cthulhu.table as table

    assert set(net.__all__) == NET_SURFACE, "update NET_SURFACE (and the callers) on purpose"
    assert set(table.__all__) == TABLE_SURFACE, "update TABLE_SURFACE (and the callers) on purpose"
    assert all(getattr(table, name, None) is not None for name in table.__all__)


def test_every_name_of_the_wires_face_is_its_modules_own_and_declared_for_the_type_checker():
    """The face loads each module when one of its names is asked for: its table of names, its
    imports for the type checker and `__all__` say the same, and each name is its module's object."""
    import cthulhu.net as net

    tree = ast.parse((ROOT / "net" / "__init__.py").read_text(encoding="utf-8"))
    checked = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    declared = {(node.module or alias.name, alias.name) for node in checked.body if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert declared == {(module, name) for name, module in net._WHERE.items()} | {(name, name) for name in net._NAMESPACES}
    for name, module in net._WHERE.items():
        assert getattr(net, name) is getattr(importlib.import_module(f"cthulhu.net.{module}"), name), name
    assert net.tls is importlib.import_module("cthulhu.net.tls")


def test_the_wires_face_loads_a_module_only_when_one_of_its_names_is_used():
    code = ("import sys, cthulhu.net as net; before = sorted(m for m in sys.modules if m.startswith('cthulhu.net.')); net.clean_text('x'); "
            "print(before, sorted(m for m in sys.modules if m.startswith('cthulhu.net.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[] ['cthulhu.net.textclean']", out


def _submodule_imports(package: str, face: str) -> list[str]:
    """Where a module of `package` imports a module of `face` by name instead of the face."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names] if isinstance(node, ast.Import) else []
            found += [f"{path.relative_to(ROOT)}: {name}" for name in names if name.startswith(f"cthulhu.{face}.")]
    return found


def test_other_packages_import_the_faces_not_the_modules():
    assert [hit for package in ("table", "server", "serve", "tui", "cli") for hit in _submodule_imports(package, "net")] == []
    assert [hit for package in ("server", "serve", "tui", "cli") for hit in _submodule_imports(package, "table")] == []
