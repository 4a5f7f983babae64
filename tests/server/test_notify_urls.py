"""Where notifications may go (issue 36): the operator's patterns are matched on the parsed URL
(scheme, host and port exactly, globs only in the path, segment by segment), dot segments, user
names and fragments are refused, and a name is resolved again when a notice is sent, only an
allowed address contacted. A receiver on a port nobody allowed is never contacted, whatever the
URL's text looks like."""

from __future__ import annotations

import pytest
import trio

from cthulhu.net.lobbymessages import Created
from cthulhu.net.messages import Rejected
from cthulhu.server import Notifier
from cthulhu.server.hookurl import allowed
from cthulhu.server.notices import body, move_notice

from support.http_sink import Sink, serving_sinks
from support.since_play import serving, sit, started
from test_notify import _create


def test_a_pattern_names_its_host_and_port_outright():
    for pattern in ("http://1*.hooks.example/*", "http://127.0.0.1:*/hook", "http://127.0.0.?/x", "https://[ab]ooks.example/x",
                    "http://me@hooks.example/x", "ftp://hooks.example/x", "http://hooks.example/a/../b", "http://hooks.example/%2e%2e/b"):
        with pytest.raises(ValueError, match="--notify-allow"):
            allowed([pattern])
    assert allowed(["https://hooks.example.org/hooks/*", "http://[::1]:8080/x/**", "http://127.0.0.1:9/?ook"]).on


def test_only_the_patterns_scheme_host_and_port_and_a_path_segment_by_segment():
    policy = allowed(["http://hooks.example:8080/hooks/*", "https://chat.example/api/webhooks/**"])
    assert policy.check("http://hooks.example:8080/hooks/t0ken").host == "hooks.example"
    assert policy.check("HTTP://Hooks.Example:8080/hooks/t0ken").port == 8080
    assert policy.check("https://chat.example:443/api/webhooks/123/t0ken").target == "/api/webhooks/123/t0ken"
    for url, code in [
        ("http://hooks.example:8081/hooks/t0ken", "notify_not_allowed"),  # another port
        ("http://hooks.example/hooks/t0ken", "notify_not_allowed"),  # port 80 is another port
        ("https://hooks.example:8080/hooks/t0ken", "notify_not_allowed"),  # another scheme
        ("http://hooks.example.evil:8080/hooks/t0ken", "notify_not_allowed"),
        ("http://hooks.example:8080/hooks/a/b", "notify_not_allowed"),  # `*` is one segment
        ("http://hooks.example:8080/hooks/t0ken?x=1", "notify_not_allowed"),  # no query the pattern does not have
        ("http://hooks.example:8080/hooks/../admin", "bad_notify"),
        ("http://hooks.example:8080/hooks/%2e%2e/admin", "bad_notify"),
        ("http://hooks.example:8080/hooks/%2E./admin", "bad_notify"),
        ("http://hooks.example:8080/hooks/./t0ken", "bad_notify"),
        ("http://hooks.example:8080/hooks/a%2fb", "bad_notify"),
        ("http://hooks.example:8080/hooks//t0ken", "bad_notify"),
        ("http://hooks.example:8080/hooks/t0ken#x", "bad_notify"),
        ("http://u:p@hooks.example:8080/hooks/t0ken", "bad_notify"),
    ]:
        with pytest.raises(ValueError) as refused:
            policy.check(url)
        assert refused.value.code == code, url


@pytest.mark.trio
async def test_every_attack_form_is_refused_at_creation_and_its_receiver_never_contacted(tmp_path):
    good, other = Sink(), Sink()  # `other` listens on a port no pattern allows: it must never hear a thing
    async with serving_sinks(good, other):
        notifier = Notifier(allowed([f"http://127.0.0.1:{good.port}/hook/*", "http://hooks.example/*"]))
        g, f = good.port, other.port
        attacks = [
            f"http://127.0.0.1:{f}/x.hooks.example/y",  # issue 36's: the text ends like an allowed one
            f"http://127.0.0.1:{f}/?x.hooks.example/y",
            f"http://127.0.0.1:{f}/#x.hooks.example/y",
            f"http://127.0.0.1:{f}/hook/t0ken",
            f"http://127.0.0.1:{g}@127.0.0.1:{f}/hook/t0ken",
            f"http://hooks.example@127.0.0.1:{f}/hook/t0ken",
            f"http://127.0.0.1:{g}/hook/../admin",
            f"http://127.0.0.1:{g}/hook/%2e%2e/admin",
            f"http://127.0.0.1:{g}/hook/t0ken/../../admin",
            f"http://localhost:{f}/hook/t0ken",
        ]
        async with serving(tmp_path / "data", notifier=notifier) as (server, port):
            for url in attacks:
                answer = await _create(port, url, seats=1, bots=0)
                assert isinstance(answer, Rejected) and answer.code in ("bad_notify", "notify_not_allowed"), url
            assert server.tables == {}
            made = await _create(port, good.url, seats=1, bots=0)  # the one allowed address still works
            assert isinstance(made, Created)
            ann = await sit(port, "Ann", table_id=made.id, ident="key-ann")
            await started(ann)
            await good.until(lambda: len(good.posts) == 1)
            await ann.aclose()
        assert other.connections == 0 and good.connections == 1


@pytest.mark.trio
async def test_a_name_that_resolves_to_an_address_not_allowed_is_refused_when_sent():
    """`localhost` (the system's resolver) and a name a test resolver points at 127.0.0.1 both pass
    their patterns when the table is made; at send time the address they name is not one the
    operator allowed (not public, and no pattern spells it), so nothing is contacted."""
    sink = Sink()
    async with serving_sinks(sink) as nursery:
        names = {"hooks.example": ["127.0.0.1"]}

        async def resolve(host: str, port: int) -> list[str]:
            return names[host]

        p = sink.port
        for notifier, url in [
            (Notifier(allowed([f"http://localhost:{p}/hook/*", f"http://127.0.0.2:{p}/hook/*"])), f"http://localhost:{p}/hook/t0ken"),
            (Notifier(allowed([f"http://hooks.example:{p}/hook/*"]), resolve=resolve), f"http://hooks.example:{p}/hook/t0ken"),
        ]:
            notifier.policy.check(url)  # allowed as written ...
            await nursery.start(notifier.run)
            notifier.notify(url, body(move_notice("t", 0, "Ann", 1, None), "json"))
            while notifier.failed < 1:  # ... and refused when sent, at once (no retry)
                await trio.sleep(0.01)
            assert notifier.sent == 0
        assert sink.connections == 0
        # The operator allows that address by number: the name may now be used, and the address
        # it was checked to resolve to is the one contacted (its Host header still the name).
        allowed_too = Notifier(allowed([f"http://hooks.example:{p}/hook/*", f"http://127.0.0.1:{p}/hook/*"]), resolve=resolve)
        await nursery.start(allowed_too.run)
        allowed_too.notify(f"http://hooks.example:{p}/hook/t0ken", body(move_notice("t", 0, "Ann", 1, None), "slack"))
        await sink.until(lambda: len(sink.posts) == 1)
        assert sink.posts[0]["headers"]["host"] == f"hooks.example:{p}" and sink.posts[0]["json"]["text"].startswith("It is Ann's")


def test_a_public_address_is_allowed_for_a_named_host_and_a_private_one_only_by_number():
    policy = allowed(["https://hooks.example.org/*", "http://10.0.0.5:9000/*"])
    named = policy.check("https://hooks.example.org/t0ken")
    assert policy.address_allowed(named, "93.184.216.34")
    for private in ("127.0.0.1", "10.0.0.5", "169.254.169.254", "192.168.1.1", "::1", "::ffff:127.0.0.1", "fe80::1%eth0"):
        assert not policy.address_allowed(named, private), private
    assert policy.address_allowed(policy.check("http://10.0.0.5:9000/t0ken"), "10.0.0.5")
