"""The jury at IOL scale, for benchmarks/jury_scale.py and benchmarks/review_scale.py.

`database` sets up a scratch PostgreSQL database, `data` builds the competition and its jury
(through the test factories and the app's services; `bulk` holds the few bulk writes that
per-row services would make too slow), `timing` measures, `report` prints, and the
scenarios are `pages` (in-process requests), `server` and `autosave` (gunicorn and
concurrent jurors over HTTP), `pdf` (rendering in-process and through Celery) and `review`
(agreement, tags and the review page).
"""
