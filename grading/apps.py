from django.apps import AppConfig


class GradingConfig(AppConfig):
    name = "grading"
    verbose_name = "Jury grading"
    default_auto_field = "django.db.models.BigAutoField"
