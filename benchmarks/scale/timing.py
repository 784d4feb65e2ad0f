"""Timers, percentiles and query counts shared by the scale benchmarks."""

from __future__ import annotations

import math
import os
import statistics
import time


def percentile(ordered: list[float], q: float) -> float:
    """Return the q-th percentile of sorted values (linear interpolation)."""
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q / 100
    lo, hi = math.floor(k), math.ceil(k)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summary(values_ms: list[float]) -> dict:
    """Return n, min, median, p95, max and mean of times in ms, rounded to 0.01 ms."""
    ordered = sorted(values_ms)
    return {
        "n": len(ordered),
        "min_ms": round(ordered[0], 2) if ordered else None,
        "median_ms": round(percentile(ordered, 50), 2) if ordered else None,
        "p95_ms": round(percentile(ordered, 95), 2) if ordered else None,
        "max_ms": round(ordered[-1], 2) if ordered else None,
        "mean_ms": round(sum(ordered) / len(ordered), 2) if ordered else None,
    }


def load_average() -> str:
    """Return the 1, 5 and 15 minute load averages, or n/a."""
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


class Stopwatch:
    """Collect wall and CPU (this process) times of repeated steps, in ms."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []
        self._t0 = self._c0 = 0.0

    def __enter__(self) -> Stopwatch:
        self._t0, self._c0 = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc) -> None:
        self.wall.append((time.perf_counter() - self._t0) * 1000)
        self.cpu.append((time.process_time() - self._c0) * 1000)

    def medians(self) -> dict:
        """Return min and median wall time and the median CPU time, rounded to 0.1 ms."""
        return {
            "min_ms": round(min(self.wall), 1),
            "median_ms": round(statistics.median(self.wall), 1),
            "cpu_median_ms": round(statistics.median(self.cpu), 1),
        }


def timed(fn, repeats: int) -> dict:
    """Return min and median wall time and the median CPU time of this process (the machine's
    other load shows in the wall time, less in the CPU time; numpy's threads add to it)."""
    watch = Stopwatch()
    for _ in range(repeats):
        with watch:
            fn()
    return watch.medians()


def query_count(fn) -> int:
    """Return how many SQL queries fn() runs on the default database."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        fn()
    return len(captured)
