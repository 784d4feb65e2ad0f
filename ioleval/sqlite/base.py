"""Django's SQLite backend with writers served in turn: the ENGINE of an SQLite DATABASES.

SQLite lets one transaction write at a time. Its own wait for the lock (the busy timeout)
polls, sleeping up to 100 ms between tries, so under many writers a waiting transaction
keeps losing the lock to ones that came after it: with 40 tabs saving at once, a few waited
past any timeout and failed with "database is locked" (benchmarks/HISTORY.md). Within one
process (`manage.py runserver`, one gunicorn worker) transactions here queue for the lock in
arrival order instead, each handing it to the next when it ends; SQLite's busy timeout is
left to order them with other processes (a management command running meanwhile).

The queue is the process's: a forked child (a gunicorn worker) starts with empty queues,
never with a hold of a parent's thread. A thread that, inside its transaction, waits for
another thread whose transaction is queued behind it (a thread pool's job that the request
waits on, say) stalls both until the waiting transaction's timeout ends it with "database is
locked": one transaction of a process at a time, so nothing here may wait for a second one.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque

from django.db.backends.sqlite3 import base
from django.db.utils import OperationalError


class FairLock:
    """A lock that its waiters get in the order they asked for it, with a timeout."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._held = False
        self._waiters: deque[threading.Event] = deque()

    def acquire(self, timeout: float) -> bool:
        """Take the lock, waiting at most `timeout` seconds; return whether it was taken."""
        with self._mutex:
            if not self._held and not self._waiters:
                self._held = True
                return True
            turn = threading.Event()
            self._waiters.append(turn)
        try:
            if turn.wait(timeout):
                return True  # handed over by release(): held for this thread now
        except BaseException:
            # Interrupted while waiting (a signal handler's exception, a worker's timeout):
            # out of the queue, or, if the lock was handed over meanwhile, on to the next,
            # so that release() never hands it to a waiter that has gone.
            with self._mutex:
                if turn.is_set():
                    self._hand_on()
                else:
                    self._waiters.remove(turn)
            raise
        with self._mutex:
            if turn.is_set():  # handed over just as the wait ended
                return True
            self._waiters.remove(turn)
            return False

    def release(self) -> None:
        """Hand the lock to the first waiter, or free it."""
        with self._mutex:
            self._hand_on()

    def _hand_on(self) -> None:
        # Under self._mutex.
        if self._waiters:
            self._waiters.popleft().set()
        else:
            self._held = False


_writers: dict[str, FairLock] = {}
_writers_mutex = threading.Lock()


def writer_lock(name: str) -> FairLock:
    """Return the one write queue of the process for the database file `name`."""
    with _writers_mutex:
        return _writers.setdefault(str(name), FairLock())


def _forget_writers() -> None:
    """Start a forked child with no write queue: a parent's thread that held one (or its
    mutex) at the fork does not exist in the child and would never let go."""
    global _writers_mutex
    _writers_mutex = threading.Lock()
    _writers.clear()


os.register_at_fork(after_in_child=_forget_writers)


class DatabaseWrapper(base.DatabaseWrapper):
    """SQLite whose transactions (atomic blocks) wait for the database in arrival order."""

    _queued: FairLock | None = None  # the lock this connection's transaction holds

    def _start_transaction_under_autocommit(self) -> None:
        if self.is_in_memory_db():  # one connection's memory: nothing to share
            super()._start_transaction_under_autocommit()
            return
        lock = writer_lock(self.settings_dict["NAME"])
        timeout = float(self.settings_dict.get("OPTIONS", {}).get("timeout", 5))
        started = time.monotonic()
        if not lock.acquire(timeout):
            raise OperationalError(
                f"database is locked: waited {time.monotonic() - started:.0f} s for the"
                " transactions before this one"
            )
        self._queued = lock
        try:
            super()._start_transaction_under_autocommit()
        except BaseException:
            self._dequeue()
            raise

    def _dequeue(self) -> None:
        lock, self._queued = self._queued, None
        if lock is not None:
            lock.release()

    def _commit(self) -> None:
        try:
            super()._commit()
        finally:
            self._dequeue()

    def _rollback(self) -> None:
        try:
            super()._rollback()
        finally:
            self._dequeue()

    def _close(self) -> None:
        try:
            super()._close()
        finally:
            self._dequeue()
