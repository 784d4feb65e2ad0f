from django.apps import AppConfig


class IolevalConfig(AppConfig):
    name = "ioleval"
    verbose_name = "ioleval"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        # the Celery app, for the shared tasks; the deploy checks, registered on import
        from . import celery, checks  # noqa: F401
        from .sqlite import sqlite_wal

        # Sent once per app with models (this one has none); the mode is set at the first.
        post_migrate.connect(sqlite_wal, dispatch_uid="ioleval.sqlite_wal")
