"""Options told apart: no prompt shows two identical labels.

The engine offers every legal command, and two of them may read the same ("The Cultist in Vat Hall"
for two Cultists both closest; two Fire Vampires to attack). A player must still see which key is
which. The labels kept in the state (and hashed) are the engine's; the ones a prompt shows are these:
where the options' data names a place that differs, the place; else a number, in the order offered.
The TUI's own wordings of the options (the prompt bar's short labels) go through the same function.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any


def distinct_labels(labels: Sequence[str], data: Sequence[Mapping[str, Any] | None] = ()) -> list[str]:
    """`labels` with every repeated one told apart: " at SPACE" where the options' `space` differs
    (and the label does not name it yet), then " (1)", " (2)"... for any still alike."""
    out = list(labels)
    if len(set(out)) == len(out):
        return out
    datas = list(data) + [None] * (len(out) - len(data))
    for label in [label for label, n in Counter(out).items() if n > 1]:
        group = [i for i, shown in enumerate(out) if shown == label]
        spaces = [str((datas[i] or {}).get("space") or "") for i in group]
        if all(spaces) and len(set(spaces)) > 1:
            for i, space in zip(group, spaces):
                if space not in out[i]:
                    out[i] = f"{out[i]} at {space}"
    for label in [label for label, n in Counter(out).items() if n > 1]:
        group = [i for i, shown in enumerate(out) if shown == label]
        for n, i in enumerate(group, 1):
            out[i] = f"{label} ({n})"
    return out
