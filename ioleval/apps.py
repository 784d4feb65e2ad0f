from django.apps import AppConfig


class IolevalConfig(AppConfig):
    name = "ioleval"
    verbose_name = "ioleval"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate
        from django.urls import register_converter

        # the Celery app, for the shared tasks; the deploy checks, registered on import
        from . import celery, checks  # noqa: F401
        from .sqlite import sqlite_wal
        from .tables import TableFormatConverter

        # Before any URLconf is read: every app's table downloads name their format with it.
        register_converter(TableFormatConverter, "fmt")

        # Sent once per app with models (this one has none); the mode is set at the first.
        post_migrate.connect(sqlite_wal, dispatch_uid="ioleval.sqlite_wal")
