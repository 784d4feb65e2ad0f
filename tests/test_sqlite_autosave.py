"""SQLite, the database of `make run` and of docs/run-a-real-jury.md, under concurrent autosaves.

Before its DATABASES options (ioleval/settings/base.py) and WAL mode (ioleval/sqlite.py),
concurrent autosaves answered 500 "database is locked": 72 of 93 with 40 tabs for 10 s.
This runs benchmarks/sqlite_autosave.py small: the demo on a fresh SQLite file, served by
`manage.py runserver` (threaded), 16 tabs saving without pause for 8 s.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.timeout(600)
def test_sixteen_tabs_saving_at_once_on_sqlite_get_no_error():
    run = subprocess.run(
        [
            sys.executable,
            "benchmarks/sqlite_autosave.py",
            "--clients",
            "16",
            "--seconds",
            "8",
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=540,
    )
    assert run.returncode in (0, 1), run.stderr[-3000:]
    result = json.loads(run.stdout)
    assert result["saves"] > 16
    assert (result["failed"], result["database_is_locked_in_log"]) == (0, 0), result
    assert result["journal_mode"] == "wal"


def test_the_write_queue_serves_waiters_in_the_order_they_came():
    from ioleval.sqlite.base import FairLock

    lock = FairLock()
    assert lock.acquire(1)
    served: list[int] = []
    waiting = []
    for index in range(5):
        thread = threading.Thread(
            target=lambda i=index: (lock.acquire(10), served.append(i), lock.release())
        )
        thread.start()
        waiting.append(thread)
        time.sleep(0.05)  # each asks after the one before
    lock.release()
    for thread in waiting:
        thread.join(10)
    assert served == [0, 1, 2, 3, 4]


def test_a_waiter_past_its_timeout_leaves_the_queue_and_the_next_one_gets_the_lock():
    from ioleval.sqlite.base import FairLock

    lock = FairLock()
    assert lock.acquire(1)
    assert not lock.acquire(0.05)  # gives up
    lock.release()
    assert lock.acquire(0.05)  # free again: nobody left waiting holds it


def test_a_waiter_interrupted_while_it_waits_leaves_the_queue():
    """An exception during the wait (a signal handler's, a worker's timeout) takes the waiter
    out of the queue; before, the lock was later handed to it and stayed held for good."""
    import signal

    from ioleval.sqlite.base import FairLock

    class Interrupted(Exception):
        pass

    def interrupt(signum, frame):
        raise Interrupted

    lock = FairLock()
    assert lock.acquire(1)
    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.1)
        with pytest.raises(Interrupted):
            lock.acquire(5)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    lock.release()
    assert lock.acquire(0.05)  # free: nobody is left in the queue to hand it to


def test_a_forked_process_starts_with_its_own_empty_write_queues():
    """A process forked while a thread of its parent held the write queue (gunicorn forks
    its workers) does not inherit the hold: its first transaction gets the lock at once."""
    import os

    from ioleval.sqlite.base import writer_lock

    lock = writer_lock("/tmp/forked.sqlite3")
    assert lock.acquire(1)
    try:
        pid = os.fork()
        if pid == 0:  # the child: exit at once with what it found
            os._exit(0 if writer_lock("/tmp/forked.sqlite3").acquire(0.2) else 1)
        _, status = os.waitpid(pid, 0)
    finally:
        lock.release()
    assert os.waitstatus_to_exitcode(status) == 0
