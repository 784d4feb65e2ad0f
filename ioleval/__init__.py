"""The project package. Its Celery app is made when Django starts (`IolevalConfig.ready`) or
a worker loads it (`celery -A ioleval`), not on import: the pure modules here
(`ioleval.inference`, `ioleval.wording`) load without Django, as the statistics that import
them must (tests/grading/review/stats/test_purity.py)."""


def __getattr__(name: str):
    """Return the Celery app as `ioleval.celery_app`, made on first use."""
    if name == "celery_app":
        from .celery import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ("celery_app",)
