from django.apps import AppConfig


class IolevalConfig(AppConfig):
    name = "ioleval"
    verbose_name = "ioleval"

    def ready(self) -> None:
        from . import checks  # noqa: F401  (registers the deploy checks)
