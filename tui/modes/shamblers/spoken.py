"""Shamblers' glyphs put in words, for the reader mode: the Cthulhu Dice's faces ('[1] [0] [2]') as
their numbers, and the Shambler Mat's two tracks on one row as what each counts (the pane draws
them under one heading, which a voice reads apart from the row)."""

from __future__ import annotations

import re

from ...english import and_list

_DICE = re.compile(r"\[\d+\](?: \[\d+\])*(?= \(tentacles per die\)|$)")
_MAT_ROW = re.compile(r"^(\s*\S+(?: \S+)?)\s+\[[#.]*\] (\d+)/(\d+)\s+\[[#.]*\] (\d+)/(\d+)\s*$")


def spoken(line: str) -> str:
    row = _MAT_ROW.match(line)
    if row is not None:
        who, banished, win, held, lose = row.groups()
        return f"{who}: banished {banished} of {win}, tentacles {held} of {lose}"
    return _DICE.sub(lambda m: and_list(re.findall(r"\d+", m.group(0))), line)
