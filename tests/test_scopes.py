from __future__ import annotations

import pytest

from orgbrain.errors import Forbidden, InvalidInput
from orgbrain.scopes import Principal, Visibility, narrowest_scope, parse_scope


def test_parse_scope() -> None:
    assert parse_scope(None) == "org"
    assert parse_scope("") == "org"
    assert parse_scope(" team:eng ") == "team:eng"
    assert parse_scope("user:alice@example.com") == "user:alice@example.com"
    for bad in ("everyone", "team:", "user: bob", "team:a:b", "org:x", "TEAM:eng"):
        with pytest.raises(InvalidInput):
            parse_scope(bad)


def test_principal_sees_org_teams_and_self() -> None:
    p = Principal("ws", "alice", frozenset({"eng"}))
    v = p.visibility
    assert v.allows("org") and v.allows("team:eng") and v.allows("user:alice")
    assert not v.allows("team:ops") and not v.allows("user:bob")
    assert Visibility.everything().allows("user:bob")


def test_write_scope_must_be_ones_own() -> None:
    p = Principal("ws", "alice", frozenset({"eng"}))
    assert p.check_write_scope("team:eng") == "team:eng"
    with pytest.raises(Forbidden):
        p.check_write_scope("team:ops")
    with pytest.raises(Forbidden):
        p.check_write_scope("user:bob")


def test_narrowest_scope_fails_closed() -> None:
    assert narrowest_scope([]) == "org"
    assert narrowest_scope(["org", "org"]) == "org"
    assert narrowest_scope(["org", "team:eng"]) == "team:eng"
    assert narrowest_scope(["user:a", "user:a", "org"]) == "user:a"
    for pair in (["team:a", "team:b"], ["team:a", "user:b"], ["user:a", "user:b"]):
        with pytest.raises(Forbidden):
            narrowest_scope(pair)
