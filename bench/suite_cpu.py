"""Where the suite's CPU goes: a pytest plugin that charges each test the CPU its process and the
children it reaped used while it ran (issue 37's budget is CPU, and `--durations` is wall time, most
of it spent waiting on real processes and clocks).

    PYTHONPATH=bench pytest -p suite_cpu            # writes suite-cpu.json, prints the costliest 40
    python bench/suite_cpu.py suite-cpu.json 60     # the costliest 60 again, and by file

With xdist each worker writes its own part, and the controller adds them up. A test's background
threads that outlive it are charged to the tests after it, so the figures are a map, not a ledger.
"""

from __future__ import annotations

import json
import os
import resource
import sys
from collections import defaultdict
from pathlib import Path

import pytest

OUT = Path(os.environ.get("SUITE_CPU", "suite-cpu.json"))


def _cpu() -> float:
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


_costs: dict[str, float] = {}


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    start = _cpu()
    yield
    _costs[item.nodeid] = _costs.get(item.nodeid, 0.0) + _cpu() - start


def pytest_sessionfinish(session):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        Path(f"{OUT}.{worker}").write_text(json.dumps({"costs": _costs, "total": _cpu()}))
        return
    costs, totals = dict(_costs), [_cpu()]
    for part in sorted(OUT.parent.glob(f"{OUT.name}.gw*")):
        data = json.loads(part.read_text())
        costs.update(data["costs"])
        totals.append(data["total"])
        part.unlink()
    OUT.write_text(json.dumps({"costs": costs, "processes": totals}, indent=1))


def pytest_terminal_summary(terminalreporter):
    if os.environ.get("PYTEST_XDIST_WORKER") or not OUT.exists():
        return
    for line in report(json.loads(OUT.read_text()), 40):
        terminalreporter.write_line(line)


def report(data: dict, top: int) -> list[str]:
    costs: dict[str, float] = data["costs"]
    files: dict[str, float] = defaultdict(float)
    for nodeid, cost in costs.items():
        files[nodeid.split("::")[0]] += cost
    lines = [f"CPU charged to tests: {sum(costs.values()):.0f} s; the processes' own totals: "
             f"{' + '.join(f'{t:.0f}' for t in data['processes'])} s"]
    lines += [f"{cost:7.2f} s  {nodeid}" for nodeid, cost in sorted(costs.items(), key=lambda kv: -kv[1])[:top]]
    lines.append("by file:")
    lines += [f"{cost:7.2f} s  {name}" for name, cost in sorted(files.items(), key=lambda kv: -kv[1])[:top]]
    return lines


if __name__ == "__main__":
    print("\n".join(report(json.loads(Path(sys.argv[1]).read_text()), int(sys.argv[2]) if len(sys.argv) > 2 else 40)))
