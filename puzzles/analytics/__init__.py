"""Challenge analytics (issue 12): what the automatic side tells organizers beyond the board.

Each analysis is its own module: a pure statistics module in `stats/` (no Django import,
tested against scipy), a selector that returns a page dataclass in a constant number of
queries, views and a template under templates/puzzles/analytics/. Organizers only. No import
of `grading`.
"""
