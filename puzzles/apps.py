from django.apps import AppConfig


class PuzzlesConfig(AppConfig):
    name = "puzzles"
    verbose_name = "Problem set and automatic scoring"
    default_auto_field = "django.db.models.BigAutoField"
