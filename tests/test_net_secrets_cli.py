"""Table codes and seat tokens are typed on command lines: none may look like an option."""

from __future__ import annotations

from cthulhu.net.host import new_secret, new_table_code


def test_codes_and_tokens_never_start_with_a_dash():
    # One in 64 plain urlsafe tokens starts with '-'; 3,000 draws of each would show a regression.
    assert not [c for c in (new_table_code() for _ in range(3000)) if c.startswith("-")]
    assert not [t for t in (new_secret(24) for _ in range(3000)) if t.startswith("-")]
    assert len(new_table_code()) == 8 and len(new_secret(24)) == 32
