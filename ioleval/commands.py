"""What every ioleval management command shares: it refuses an unmigrated database in one
line, instead of a traceback from the first query (``no such table: ...``)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor


def unapplied_migrations(alias: str = DEFAULT_DB_ALIAS) -> int:
    """Return how many migrations the database still lacks."""
    connection = connections[alias]
    executor = MigrationExecutor(connection)
    return len(executor.migration_plan(executor.loader.graph.leaf_nodes()))


class AppCommand(BaseCommand):
    """A command that reads or writes the app's tables: the database must be migrated."""

    def execute(self, *args, **options):
        missing = unapplied_migrations()
        if missing:
            name = connections[DEFAULT_DB_ALIAS].settings_dict["NAME"]
            raise CommandError(
                f"the database {name} is not migrated ({missing} migration"
                f"{'s' if missing != 1 else ''} to apply): run `python manage.py migrate` first"
            )
        return super().execute(*args, **options)
