"""Codes and tokens never begin with '-', and every join line the program prints works pasted as is."""

from __future__ import annotations

import shlex

import pytest

from cthulhu.net.invite import join_command, new_seat_token, new_table_code
from cthulhu.cli import build_parser


PARSER = build_parser()


def _parse_join(line: str):
    words = shlex.split(line)
    assert words[:2] == ["cthulhu", "join"], line
    return PARSER.parse_args(words[1:])


def test_a_thousand_codes_and_tokens_never_begin_with_a_dash_and_their_join_lines_parse():
    for _ in range(1000):
        code, token = new_table_code(), new_seat_token()
        assert not code.startswith("-") and not token.startswith("-")
        assert len(code) == 8 and len(token) == 32
        args = _parse_join(join_command("127.0.0.1:7777", code))
        assert (args.address, args.code, args.token) == ("127.0.0.1:7777", code, None)
        args = _parse_join(join_command("127.0.0.1:7777", code, token=token))
        assert (args.code, args.token) == (code, token)


@pytest.mark.parametrize(
    "code,token",
    [("-AbC123x", "-tok-en"), ("two words", "it's"), ("$HOME", "`rm -rf x`"), ("--code", "--x")],
)
def test_a_code_or_token_chosen_by_a_person_still_pastes_as_is(code, token):
    """`host --code` refuses a leading '-', but a line is printed right whatever it holds."""
    args = _parse_join(join_command("[::1]:7777", code, token=token))
    assert (args.address, args.code, args.token) == ("[::1]:7777", code, token)


def test_host_refuses_a_code_that_begins_with_a_dash(capsys):
    from cthulhu.cli import main

    assert main(["host", "--headless", "--code=-x", "--port", "0", "--no-save"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "'-'" in err
