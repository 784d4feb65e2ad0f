"""Reads of accounts: the organizers' list with each account's roles and load.

An account's load (papers assigned and submitted) is the jury's to count: the shared floor
imports no app, so the jury app registers its reader at start-up (`register_loads`, called
from `grading.apps.GradingConfig.ready`). Without it, every load is nought."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from django.contrib.auth import get_user_model

from ..roles import ROLES


class Load(Protocol):
    """Papers assigned to an account and submitted by it (the jury's JurorLoad)."""

    @property
    def assigned(self) -> int: ...

    @property
    def submitted(self) -> int: ...


@dataclass(frozen=True)
class NoLoad:
    assigned: int = 0
    submitted: int = 0


def _no_loads() -> Mapping[int, Load]:
    return {}


_loads: Callable[[], Mapping[int, Load]] = _no_loads


def register_loads(reader: Callable[[], Mapping[int, Load]]) -> None:
    """Called by the jury app: how to read every account's load, by user id, in one query."""
    global _loads
    _loads = reader


@dataclass(frozen=True)
class AccountRow:
    user_id: int
    username: str
    name: str
    email: str
    roles: tuple[str, ...]
    active: bool
    password_set: bool
    staff: bool
    last_login: object
    load: Load


@dataclass(frozen=True)
class AccountsPage:
    rows: list[AccountRow]
    active: int
    waiting: int  # active accounts whose holder has not set a password yet


def accounts_page() -> AccountsPage:
    """Return every account, by username, with its roles and papers assigned and submitted."""
    users = list(get_user_model().objects.order_by("username").prefetch_related("groups"))
    loads = _loads()
    rows = [
        AccountRow(
            user_id=u.pk,
            username=u.username,
            name=u.get_full_name(),
            email=u.email,
            roles=tuple(r for r in ROLES if r in {g.name for g in u.groups.all()})
            + (("superuser",) if u.is_superuser else ()),
            active=u.is_active,
            password_set=u.has_usable_password(),
            staff=u.is_staff or u.is_superuser,
            last_login=u.last_login,
            load=loads.get(u.pk, NoLoad()),
        )
        for u in users
    ]
    return AccountsPage(
        rows=rows,
        active=sum(r.active for r in rows),
        waiting=sum(r.active and not r.password_set for r in rows),
    )
