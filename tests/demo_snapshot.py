"""The demo as `make run` loads it, loaded once per test process and copied into each test
that asks for it (the `demo` fixture of tests/conftest.py).

Loading the demo runs every importer of the app (competition, jury, analytics, context lab)
and takes seconds; copying the rows it made takes a fraction of that. The load runs in a
transaction that is rolled back, so nothing of it stays in the database and no on-commit
hook of it ever runs; what is kept is the rows it added, as plain values, with their ids. A
test that asks for the demo gets those rows written into its own transaction, with every date
and time moved forward by the time since the load ended, so the demo is as fresh as one
loaded by the test itself (times relative to "now" read the same) and is rolled back with
the test as usual. The fixture is set up before any other of the test (tests/conftest.py),
so no row a fixture made holds one of the demo's ids.
"""

from __future__ import annotations

import datetime
import io
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.apps import apps
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, models, transaction
from django.utils import timezone

if TYPE_CHECKING:
    from puzzles.context.models import ContextPuzzle
    from puzzles.models import Competition


@dataclass(frozen=True)
class TableRows:
    """One model's rows, as values in field order: those the demo added, and those it found
    (the role groups of a migration), which a test's database lacks after a transactional
    test emptied it."""

    model: type[models.Model]
    fields: list[models.Field]
    rows: list[tuple]
    found: list[tuple]


@dataclass(frozen=True)
class Snapshot:
    """What the demo added to the database, and when its load ended."""

    tables: list[TableRows]
    loaded_at: datetime.datetime
    seconds: float  # how long the load took, for the record

    @property
    def row_count(self) -> int:
        """Return how many rows the demo added."""
        return sum(len(t.rows) for t in self.tables)


class _Discard(Exception):
    """Raised to roll the demo's load back once its rows are read."""


# Made again after every migration or flush, each time with pks of its own: never copied.
_REMADE = {("contenttypes", "contenttype"), ("auth", "permission")}


def _concrete_models() -> list[type[models.Model]]:
    """Return every model with a table of its own (including many-to-many tables)."""
    return [
        m
        for m in apps.get_models(include_auto_created=True)
        if m._meta.managed and not m._meta.proxy and not m._meta.swapped
    ]


def _columns(model: type[models.Model]) -> list[models.Field]:
    return list(model._meta.concrete_fields)


def rows_read(model: type[models.Model]) -> dict:
    """Return the table's rows by primary key, each as a tuple of field values."""
    fields = _columns(model)
    pk = fields.index(model._meta.pk)
    rows = model._base_manager.using(connection.alias).values_list(*(f.attname for f in fields))
    return {row[pk]: tuple(row) for row in rows}


def snapshot_take() -> Snapshot:
    """Load the demo in a transaction that is rolled back; return the rows it added. Fail if
    the load changed or removed a row that was there before (the copy could not redo it)."""
    tables: list[TableRows] = []
    started = time.perf_counter()
    try:
        with transaction.atomic():
            before = {m: rows_read(m) for m in _concrete_models()}
            call_command("demo", stdout=io.StringIO())
            loaded_at = timezone.now()  # its last row's time: moved to the test's "now"
            seconds = time.perf_counter() - started
            for model, old in before.items():
                now = rows_read(model)
                changed = [pk for pk, row in old.items() if now.get(pk) != row]
                if changed:
                    raise AssertionError(
                        f"the demo changed rows that were there before it "
                        f"({model._meta.db_table}: {changed[:5]}); the demo fixture cannot copy it"
                    )
                added = [row for pk, row in sorted(now.items()) if pk not in old]
                remade = (model._meta.app_label, model._meta.model_name) in _REMADE
                if added and remade:
                    raise AssertionError(f"the demo added rows to {model._meta.db_table}")
                if (added or old) and not remade:
                    tables.append(TableRows(model, _columns(model), added, sorted(old.values())))
            raise _Discard
    except _Discard:
        pass
    return Snapshot(tables=tables, loaded_at=loaded_at, seconds=seconds)


def _shifted(value, delta: datetime.timedelta):
    return value + delta if isinstance(value, datetime.datetime) else value


def snapshot_restore(snapshot: Snapshot) -> None:
    """Write the demo's rows into the current database as they were, times moved forward by
    the time since the load ended (so its last row is from now and every row the test makes is
    later, as after a load in the test); then set the tables' id sequences past them."""
    delta = timezone.now() - snapshot.loaded_at
    quote = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        for table in snapshot.tables:
            rows = table.rows
            if table.found:
                pk = table.fields.index(table.model._meta.pk)
                there = set(table.model._base_manager.values_list("pk", flat=True))
                rows = [row for row in table.found if row[pk] not in there] + rows
            if not rows:
                continue
            columns = ", ".join(quote(f.column) for f in table.fields)
            marks = ", ".join(["%s"] * len(table.fields))
            sql = f"INSERT INTO {quote(table.model._meta.db_table)} ({columns}) VALUES ({marks})"
            cursor.executemany(
                sql,
                [
                    [
                        f.get_db_prep_save(_shifted(v, delta), connection)
                        for f, v in zip(table.fields, row, strict=True)
                    ]
                    for row in rows
                ],
            )
        resets = connection.ops.sequence_reset_sql(no_style(), [t.model for t in snapshot.tables])
        for statement in resets:
            cursor.execute(statement)


@dataclass(frozen=True)
class Demo:
    """The demo in a test: its competition, its context lab puzzles and its users by name
    (organizer, chair, juror1..juror4)."""

    competition: Competition
    puzzles: list[ContextPuzzle]

    def user(self, username: str):
        """Return the demo user `username`."""
        from django.contrib.auth import get_user_model

        return get_user_model().objects.get(username=username)

    def login(self, client, username: str):
        """Log `client` in as the demo user `username` and return it."""
        client.force_login(self.user(username))
        return client


def demo_get() -> Demo:
    """Return the demo already in the database."""
    from puzzles.context.lab.demo import DEMO_PUZZLES
    from puzzles.context.models import ContextPuzzle
    from puzzles.demo import DEMO_SLUG
    from puzzles.models import Competition

    slugs = [p["slug"] for p in DEMO_PUZZLES]
    return Demo(
        competition=Competition.objects.get(slug=DEMO_SLUG),
        puzzles=list(ContextPuzzle.objects.filter(slug__in=slugs).order_by("slug")),
    )
