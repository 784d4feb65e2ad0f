"""Reads of accounts: the organizers' list with each account's roles and load."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model

from grading.selectors import JurorLoad, juror_loads

from ..roles import ROLES


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
    load: JurorLoad


@dataclass(frozen=True)
class AccountsPage:
    rows: list[AccountRow]
    active: int
    waiting: int  # active accounts whose holder has not set a password yet


def accounts_page() -> AccountsPage:
    """Return every account, by username, with its roles and papers assigned and submitted."""
    users = list(get_user_model().objects.order_by("username").prefetch_related("groups"))
    loads = juror_loads()
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
            load=loads.get(u.pk, JurorLoad()),
        )
        for u in users
    ]
    return AccountsPage(
        rows=rows,
        active=sum(r.active for r in rows),
        waiting=sum(r.active and not r.password_set for r in rows),
    )
