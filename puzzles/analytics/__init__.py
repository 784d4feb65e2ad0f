"""Challenge analytics (issue 12): what the automatic side tells organizers beyond the board.

Each analysis is its own room, a package (`runs/`, `tiers/`, `formats/`, `oracle/`,
`techniques/`, `probes/`, `ablations/`) with its selectors, charts and, as it has them, its
forms, imports, services and demo data, its `__init__` naming what others import. Beside the
rooms: a pure statistics module per analysis in `stats/` (no Django import, tested against
scipy), the views in `views/`, the shared tables (`models.py`), CSV cells (`cells.py`),
chart cache (`charts.py`), exports and the JSON and PDF reports. Templates under
templates/puzzles/analytics/. Organizers only. No import of `grading`.
"""
