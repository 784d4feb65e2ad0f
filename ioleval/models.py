"""The project package's one table: the locks that make a login attempt's count and check one step."""

from __future__ import annotations

from django.db import models


class LoginGate(models.Model):
    """A row per account and per address that tried to log in lately; ioleval/login_throttle.py
    locks an attempt's two rows (account, then address) while it checks the limits and counts it.

    Axes' own records (AccessAttempt) hold the failures; these rows only serialize the attempts
    on one account or address, also when no failure of theirs is recorded yet.
    """

    key = models.CharField(max_length=64, unique=True)  # sha256 of "account:NAME" / "address:IP"
    used = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return self.key
