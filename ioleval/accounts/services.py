"""Writes of accounts: create one or a CSV of them, deactivate, reactivate, set-password links.

No password ever passes through here: a new account has an unusable password until its
holder sets one through a one-time link (Django's password-reset tokens). A link is valid
until the password is set and for PASSWORD_RESET_TIMEOUT at most.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.contrib.auth.tokens import default_token_generator
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.db.models.functions import Lower
from django.http import HttpRequest
from django.urls import reverse
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from ..errors import AppError
from ..roles import CHAIR, JUROR, ORGANIZER
from ..uploads import text_decode

# The groups each role of the CSV gives: a chair also grades (as ChairFactory in the tests).
ROLE_GROUPS: dict[str, tuple[str, ...]] = {
    JUROR: (JUROR,),
    CHAIR: (CHAIR, JUROR),
    ORGANIZER: (ORGANIZER,),
}
COLUMNS = ("username", "name", "email", "role")
# Where each column is stored: its length is the user model's, checked here for the CSV.
MODEL_FIELDS = {"username": "username", "name": "first_name", "email": "email"}


def field_length(column: str) -> int:
    """Return the most characters the user model stores for a column of the CSV."""
    return get_user_model()._meta.get_field(MODEL_FIELDS[column]).max_length


class AccountError(AppError):
    """An account action that is not valid or not allowed; nothing was changed."""


@dataclass(frozen=True)
class AccountSpec:
    """One account to create, checked."""

    username: str
    name: str
    email: str
    role: str


def account_check(*, username: str, name: str, email: str, role: str) -> AccountSpec:
    """Return the account's fields cleaned, or raise AccountError naming the bad field.

    Whether the username is taken is checked by the callers, against the file and the database.
    """
    username, name, email, role = (
        (username or "").strip(),
        (name or "").strip(),
        (email or "").strip(),
        (role or "").strip().lower(),
    )
    for field, text in (("username", username), ("name", name), ("email", email), ("role", role)):
        _control_check(text, field=field)
    if not username:
        raise AccountError("the username is blank", field="username")
    _length_check(username, field="username")
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError:
        raise AccountError(
            f"{username!r} is not a valid username (letters, digits and @ . + - _ only)",
            field="username",
        ) from None
    _length_check(name, field="name")
    _length_check(email, field="email")
    if email:
        try:
            validate_email(email)
        except ValidationError:
            raise AccountError(f"{email!r} is not an email address", field="email") from None
    if role not in ROLE_GROUPS:
        raise AccountError(f"unknown role {role!r} (known: {', '.join(ROLE_GROUPS)})", field="role")
    return AccountSpec(username=username, name=name, email=email, role=role)


def _length_check(text: str, *, field: str) -> None:
    """Refuse a text longer than the user model stores."""
    limit = field_length(field)
    if len(text) > limit:
        what = "email address" if field == "email" else field
        raise AccountError(f"the {what} is longer than {limit} characters", field=field)


def _control_check(text: str, *, field: str) -> None:
    """Refuse a control character (PostgreSQL stores no NUL; no name or address holds any)."""
    found = next((c for c in text if unicodedata.category(c) in ("Cc", "Cs")), None)
    if found is not None:
        raise AccountError(
            f"the {field} holds the control character U+{ord(found):04X}; remove it",
            field=field,
        )


def _taken(usernames: Iterable[str]) -> set[str]:
    """Return those usernames (lowercased) that an account already has, in any letter case."""
    lowered = {u.lower() for u in usernames}
    return set(
        get_user_model()
        .objects.annotate(lowered=Lower("username"))
        .filter(lowered__in=lowered)
        .values_list("lowered", flat=True)
    )


def _create(specs: list[AccountSpec]) -> list:
    User = get_user_model()
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in (ORGANIZER, CHAIR, JUROR)}
    users = []
    for spec in specs:
        # No password given: create_user makes it unusable until the holder sets one.
        user = User.objects.create_user(
            username=spec.username, email=spec.email, first_name=spec.name
        )
        user.groups.set([groups[g] for g in ROLE_GROUPS[spec.role]])
        users.append(user)
    return users


def account_create(*, username: str, name: str, email: str, role: str):
    """Create an account in the role's groups, with no usable password; return it.

    The whole name goes to first_name: names do not split reliably into first and last.
    """
    spec = account_check(username=username, name=name, email=email, role=role)
    if _taken([spec.username]):
        raise AccountError(f"an account {spec.username!r} exists already", field="username")
    try:
        with transaction.atomic():
            return _create([spec])[0]
    except IntegrityError:
        raise AccountError(
            f"an account {spec.username!r} exists already", field="username"
        ) from None


def accounts_read(data: bytes, *, file: str) -> list[AccountSpec]:
    """Read a CSV of username,name,email,role rows (UTF-8), or raise AccountError with line
    and field; the one reader of the command (create_jurors) and of the Accounts page."""
    text = text_decode(data, file=file, error=AccountError)
    reader = csv.reader(io.StringIO(text, newline=""))
    start = 1  # the line the row being read starts on: a quoted cell may span lines
    try:
        header = [h.strip().lower() for h in next(reader, [])]
        if not any(header):
            raise AccountError("the file is empty", file=file, line=1)
        _header_check(header, file=file)
        specs: list[AccountSpec] = []
        lines: dict[str, int] = {}
        start = reader.line_num + 1
        for values in reader:
            line, start = start, reader.line_num + 1
            if not any(v.strip() for v in values):
                continue  # a blank line
            if len(values) > len(header):
                raise AccountError(
                    f"{len(values)} fields, the header has {len(header)}", file=file, line=line
                )
            row = dict(zip(header, values, strict=False))
            try:
                spec = account_check(**{c: row.get(c, "") for c in COLUMNS})
            except AccountError as exc:
                raise AccountError(exc.message, file=file, line=line, field=exc.field) from None
            key = spec.username.lower()
            if key in lines:
                raise AccountError(
                    f"username {spec.username!r} is on line {lines[key]} too",
                    file=file,
                    line=line,
                    field="username",
                )
            lines[key] = line
            specs.append(spec)
    except csv.Error as exc:
        raise AccountError(
            f"malformed CSV in the row starting here ({exc})", file=file, line=start
        ) from None
    if not specs:
        raise AccountError("no accounts in the file", file=file, line=1)
    taken = _taken(s.username for s in specs)
    for spec in specs:
        if spec.username.lower() in taken:
            raise AccountError(
                f"an account {spec.username!r} exists already",
                file=file,
                line=lines[spec.username.lower()],
                field="username",
            )
    return specs


def _header_check(header: list[str], *, file: str) -> None:
    """Refuse a header without the four columns, with others, or with a password column."""
    if "password" in header:
        raise AccountError(
            "passwords are never imported; each account gets a set-password link",
            file=file,
            line=1,
            field="password",
        )
    missing = [c for c in COLUMNS if c not in header]
    unknown = [h for h in header if h not in COLUMNS]
    if missing or unknown:
        problem = "; ".join(
            part
            for part in (
                missing and f"missing column(s) {', '.join(missing)}",
                unknown and f"unknown column(s) {', '.join(map(repr, unknown))}",
            )
            if part
        )
        raise AccountError(
            f"{problem} (expected {','.join(COLUMNS)})",
            file=file,
            line=1,
            field=(missing or unknown)[0],
        )


def accounts_import(data: bytes, *, file: str) -> list:
    """Create every account of a CSV (username,name,email,role), or none; return them."""
    specs = accounts_read(data, file=file)
    try:
        with transaction.atomic():
            return _create(specs)
    except IntegrityError:
        raise AccountError(
            "an account of the file was created meanwhile; nothing was imported", file=file
        ) from None


def _managed(user, *, by) -> None:
    """Refuse actions on one's own account and on accounts only the Django admin manages."""
    if by is not None and user.pk == by.pk:
        raise AccountError("not on your own account", field="user")
    if user.is_superuser or user.is_staff:
        raise AccountError(
            f"{user.username} is a staff account: manage it in the Django admin", field="user"
        )


def account_deactivate(*, user, by=None) -> None:
    """Deactivate an account: it can no longer log in, its sessions and links stop working."""
    _managed(user, by=by)
    user.is_active = False
    user.save(update_fields=["is_active"])


def account_reactivate(*, user, by=None) -> None:
    """Let a deactivated account log in again with its password, if it has one."""
    _managed(user, by=by)
    user.is_active = True
    user.save(update_fields=["is_active"])


def account_password_reset(*, user, by=None) -> None:
    """Make the account's password unusable: the old password and every earlier link stop."""
    _managed(user, by=by)
    if not user.is_active:
        raise AccountError(f"{user.username} is deactivated: reactivate it first", field="user")
    user.set_unusable_password()
    user.save(update_fields=["password"])


def password_link(user, *, request: HttpRequest | None = None, base_url: str = "") -> str:
    """Return a one-time set-password link for the account, absolute through request or base_url."""
    if not user.is_active:
        raise AccountError(f"{user.username} is deactivated: reactivate it first", field="user")
    path = reverse(
        "password_set",
        kwargs={
            "uidb64": urlsafe_base64_encode(force_bytes(user.pk)),
            "token": default_token_generator.make_token(user),
        },
    )
    if request is not None:
        return request.build_absolute_uri(path)
    return base_url.rstrip("/") + path
