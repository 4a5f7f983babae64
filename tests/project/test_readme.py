"""The README (and the pages of docs/) hold no wrong facts about the commands, and its screen capture is
what the app draws.

Commands: every `cthulhu ...` command in a fenced shell block of the README or docs/, and every inline
`cthulhu ...` span, must name a command that exists and use only flags its `--help` lists (one real
`cthulhu COMMAND --help` process per command). A fenced command with nothing left to fill in
(no `[...]`, no `|`) is also parsed by the real argument parser, values included. Quick, harmless
commands (`odds`, `content`) are run for real; a `$ cthulhu ...` line followed by its output must
print exactly that output.

The screen capture: the README's `<!-- screen WxH: cthulhu play ... -->` comment names the command and
the size; the block under it is that game's first screen as a terminal shows it (the app's own bytes
played into a terminal emulator; a fixed seed, no clock on screen). When the screen changes on purpose,
rewrite the block from the app and look at the diff before committing:

    CTHULHU_UPDATE_README=1 pytest tests/project/test_readme.py -n 0
"""

from __future__ import annotations

import asyncio
import difflib
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from cthulhu.cli.embedded import table_link
from cthulhu.cli import build_parser

from support.terminal_capture import Capture

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"", "sh", "bash", "shell", "console"}
QUICK = {"odds", "content"}  # run for real: read-only, well under a second
SCREEN = re.compile(r"<!-- screen (\d+)x(\d+): (cthulhu [^>]*?) \(tests/(?:project/)?test_readme\.py[^>]*-->\n```text\n(.*?)```", re.S)


@dataclass(frozen=True)
class Shown:
    """A command as a page shows it: where, the words after `cthulhu`, the output shown under it."""

    where: str
    words: tuple[str, ...]
    output: str | None = None
    fenced: bool = True


def fences(text: str) -> list[tuple[str, list[str]]]:
    """Each fenced block as (its language, its lines)."""
    blocks, lang, lines = [], None, []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("```"):
            if lang is None:
                lang, lines = stripped[3:].strip(), []
            else:
                blocks.append((lang, lines))
                lang = None
        elif lang is not None:
            lines.append(line.rstrip())
    return blocks


def _words(line: str) -> list[list[str]]:
    """The `cthulhu` commands of one shell line (after `&&`, `;`, `&` or `|` too), each as its words."""
    tokens = shlex.split(line, comments=True)
    out, current = [], None
    for token in tokens:
        if token in ("&&", ";", "||", "&"):
            current = None
        elif token == "cthulhu" and current is None:
            current = []
            out.append(current)
        elif current is not None:
            current.append(token)
    return out


def shown_commands(path: Path, root: Path = ROOT) -> list[Shown]:
    text = path.read_text(encoding="utf-8")
    name = path.relative_to(root).as_posix()
    found: list[Shown] = []
    for lang, lines in fences(text):
        if lang not in SHELL:
            continue
        for i, raw in enumerate(lines):
            line = raw.strip()
            command = line[2:] if line.startswith("$ ") else line
            for words in _words(command):
                output = None
                if line.startswith("$ "):
                    rest = lines[i + 1:]
                    end = next((j for j, later in enumerate(rest) if later.strip().startswith("$ ")), len(rest))
                    output = "\n".join(rest[:end]).rstrip("\n")
                found.append(Shown(f"{name}: {line}", tuple(words), output))
    prose = re.sub(r"```.*?```", "", text, flags=re.S)
    for span in re.findall(r"`([^`]+)`", prose):
        words = span.replace("\\|", "|").split()
        if len(words) > 1 and words[0] == "cthulhu" and re.fullmatch(r"-.*|[a-z]+", words[1]):
            found.append(Shown(f"{name}: `{span}`", tuple(words[1:]), fenced=False))
    return found


def command_path(words: tuple[str, ...]) -> tuple[str, ...]:
    """The subcommand (and `content`'s action) a command names: `cthulhu --seed 3` is `play`."""
    if not words or words[0].startswith("-"):
        return ("play",)
    if words[0] == "content" and len(words) > 1 and not words[1].startswith("-"):
        return ("content", words[1])
    return (words[0],)


CTHULHU = Path(sys.executable).parent / "cthulhu"  # the installed command, as a player runs it
_HELP: dict[tuple[str, ...], tuple[int, str]] = {}


def help_of(*paths: tuple[str, ...]) -> list[tuple[int, str]]:
    """`cthulhu PATH --help` in a real process for each path (all started at once, each run once per
    session): its exit status and what it printed."""
    running = {path: subprocess.Popen([str(CTHULHU), *path, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
               for path in dict.fromkeys(paths) if path not in _HELP}
    for path, process in running.items():
        out, _ = process.communicate(timeout=240)
        _HELP[path] = (process.returncode, out)
    return [_HELP[path] for path in paths]


def flags_of(help_text: str) -> set[str]:
    """The long options a command's usage lines list (its description and help text do not count)."""
    usage = help_text.split("\n\n", 1)[0]
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", usage)) | {"-h", "--help"}


def flags_used(words: tuple[str, ...]) -> list[str]:
    return [w.strip("[]").split("=", 1)[0] for w in words if w.strip("[]").startswith("-") and w.strip("[]") not in ("-", "--")]


def concrete(words: tuple[str, ...]) -> bool:
    """Nothing left to choose: no optional parts, alternatives or ellipses."""
    return not any(c in w for w in words for c in "[]|…") and "..." not in words


def problems(shown: list[Shown]) -> list[str]:
    """What is wrong with the commands shown: an unknown command, a flag it does not take, values the
    parser refuses, output that is not the command's."""
    found = []
    help_of(*(command_path(item.words) for item in shown))
    for item in shown:
        path = command_path(item.words)
        [(status, text)] = help_of(path)
        if status != 0:
            found.append(f"{item.where}: `cthulhu {' '.join(path)}` is not a command ({text.strip().splitlines()[-1] if text.strip() else status})")
            continue
        unknown = [flag for flag in flags_used(item.words) if flag not in flags_of(text)]
        if unknown:
            found.append(f"{item.where}: `cthulhu {' '.join(path)}` takes no {', '.join(unknown)}")
            continue
        if item.fenced and concrete(item.words):
            try:
                build_parser().parse_args(["play", *item.words] if item.words[0].startswith("-") else list(item.words))
            except SystemExit:
                found.append(f"{item.where}: the parser refuses it")
                continue
        if item.fenced and concrete(item.words) and path[0] in QUICK:
            done = subprocess.run([str(CTHULHU), *item.words], capture_output=True, text=True, timeout=120)
            if done.returncode != 0:
                found.append(f"{item.where}: exit status {done.returncode}: {done.stderr.strip()}")
            elif item.output is not None and done.stdout.rstrip("\n") != item.output:
                found.append(f"{item.where}: prints\n{done.stdout}instead of\n{item.output}")
    return found


def test_every_command_the_readme_and_docs_show_exists_with_its_flags():
    shown = [item for page in PAGES for item in shown_commands(page)]
    in_readme = [item for item in shown if item.where.startswith("README.md") and item.fenced]
    assert any(command_path(i.words) == ("play",) for i in in_readme) and len(in_readme) >= 10, "the README shows its commands"
    assert any(item.output for item in shown), "the odds example is checked against its output"
    assert problems(shown) == []


def test_the_check_catches_a_command_or_flag_that_does_not_exist(tmp_path):
    """The checker itself: made-up commands and flags, a bad value and wrong output are each reported."""
    page = tmp_path / "page.md"
    page.write_text(
        "Try `cthulhu plya --seed 3`, or:\n\n```sh\ncthulhu play --seed 3 --no-such-flag\ncthulhu hots --seats 2\n"
        "cthulhu host --seats many\n$ cthulhu odds --dice 1\n100.0%\n```\n\n`cthulhu join HOST --tabel ID`\n",
        encoding="utf-8",
    )
    found = problems(shown_commands(page, tmp_path))
    assert len(found) == 6, found
    assert any("`cthulhu plya` is not a command" in f for f in found)
    assert any("takes no --no-such-flag" in f for f in found)
    assert any("`cthulhu hots` is not a command" in f for f in found)
    assert any("cthulhu host --seats many: the parser refuses it" in f for f in found)
    assert any("prints\n" in f and "instead of\n100.0%" in f for f in found)
    assert any("takes no --tabel" in f for f in found)


def draw(argv: list[str], size: tuple[int, int], saves: Path) -> str:
    """The first screen of the game `argv` starts, as a terminal of `size` shows it: the screen once it
    has stopped changing (the same over 20 idle turns of the app's loop)."""
    from cthulhu.cli.play import options_from
    from cthulhu.tui.app import CthulhuApp
    from support.tui_drive import started

    args = build_parser().parse_args([*argv, "--saves", str(saves)])
    app = CthulhuApp(options_from(args), link_factory=table_link)
    capture = Capture(app)

    async def run() -> str:
        async with app.run_test(size=size) as pilot:
            await started(pilot)
            last, same = None, 0
            while same < 20:
                await pilot.pause(0.02)
                text = capture.text()
                same = same + 1 if text == last else 0
                last = text
            await pilot.press("ctrl+q")
            return "\n".join(line.rstrip() for line in last.split("\n")) + "\n"

    return asyncio.run(run())


def test_the_readme_screen_capture_is_what_the_app_draws(tmp_path):
    text = README.read_text(encoding="utf-8")
    match = SCREEN.search(text)
    assert match, "the README shows a screen under a `<!-- screen WxH: cthulhu play ... (tests/project/test_readme.py ...) -->` line"
    width, height, command, shown = int(match[1]), int(match[2]), match[3], match[4]
    argv = shlex.split(command)[1:]
    assert argv[0] == "play" and "--seed" in argv, "a fixed seed, so the screen is the same every time"
    drawn = draw(argv, (width, height), tmp_path)
    if os.environ.get("CTHULHU_UPDATE_README") == "1":
        README.write_text(text[: match.start(4)] + drawn + text[match.end(4):], encoding="utf-8")
        return
    assert len(drawn.split("\n")) == height + 1
    diff = "\n".join(difflib.unified_diff(shown.split("\n"), drawn.split("\n"), "README.md", "the app", lineterm=""))
    assert shown == drawn, f"the README's screen is not what `{command}` draws (regenerate: CTHULHU_UPDATE_README=1 pytest tests/project/test_readme.py -n 0):\n{diff}"


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def broken_links(page: Path) -> list[str]:
    """Relative links of a page whose file is missing, or whose `#anchor` no heading of it makes."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        path = (page.parent / file).resolve() if file else page
        if not path.exists():
            broken.append(f"{page.name}: {target}: no such file")
        elif anchor and path.suffix == ".md":
            headings = re.findall(r"^#+ (.*)$", re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S), flags=re.M)
            if anchor not in {slug(h) for h in headings}:
                broken.append(f"{page.name}: {target}: no such heading")
    return broken


def test_every_link_between_the_pages_leads_somewhere(tmp_path):
    pages = [*PAGES, ROOT / "CHANGELOG.md", ROOT / "bench" / "RESULTS.md"]
    assert [problem for page in pages for problem in broken_links(page)] == []
    made_up = tmp_path / "page.md"
    made_up.write_text("# A page\n\n[here](#a-page), [gone](nowhere.md), [wrong](#not-a-heading)\n", encoding="utf-8")
    assert broken_links(made_up) == ["page.md: nowhere.md: no such file", "page.md: #not-a-heading: no such heading"]
