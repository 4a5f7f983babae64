"""The one rule for a connection that ended (`PeerSession.after_drop`), pure: no socket, no loop.
The trio client (`net.client.play_seat`) and the app (`tui.netlink`) both act on it."""

from __future__ import annotations

from cthulhu.net.client import AfterDrop, PeerSession
from cthulhu.net.messages import Error, GameOverMsg


def _session(token: str | None = "t0ken", closed: str | None = None) -> PeerSession:
    session = PeerSession("Ann", token=token, seat=1 if token else None)
    session.closed = Error(code=closed, fatal=True, reason="why") if closed else None
    return session


def test_a_lost_connection_of_a_seated_peer_is_dialled_again():
    assert _session().after_drop(seated=True) is AfterDrop.RECONNECT


def test_a_bad_token_once_seated_means_sitting_down_anew_and_letting_the_token_go():
    session = _session(closed="bad_token")
    assert session.after_drop(seated=True) is AfterDrop.SIT_ANEW
    assert session.sit_anew() == "t0ken"
    assert (session.token, session.seat) == (None, None)


def test_a_bad_token_before_seating_is_a_refusal_unless_the_token_may_be_stale():
    assert _session(closed="bad_token").after_drop(seated=False) is AfterDrop.REFUSED
    assert _session(closed="bad_token").after_drop(seated=False, stale=True) is AfterDrop.SIT_ANEW
    assert _session(token=None, closed="bad_token").after_drop(seated=True) is AfterDrop.REFUSED  # no token to drop


def test_a_table_closed_on_purpose_a_refusal_and_a_finished_game_are_not_dialled_again():
    assert _session(closed="host_closed").after_drop(seated=True) is AfterDrop.CLOSED
    assert _session(closed="table_full").after_drop(seated=True) is AfterDrop.REFUSED
    assert _session().after_drop(seated=False) is AfterDrop.REFUSED  # never seated: the caller says why
    over = _session(closed="bad_token")
    over.game_over = GameOverMsg(outcome="won", seed=3, step=40, state_hash="0" * 16)
    assert over.after_drop(seated=True) is AfterDrop.OVER
