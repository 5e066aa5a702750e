"""Stopping a search from the inside: a deadline and signals, checked by the kernels.

numba kernels cannot be interrupted: a Python signal handler (Ctrl-C, SIGTERM,
the harness's per-move alarm) runs only when the interpreter gets control
back, and a budget checked between kernel calls overshoots by a whole call.
So the search kernels themselves look, every :data:`CHECK_EVERY` iterations,
at the clock (:func:`expired`) and at a ``stop`` flag, and return early.
Reading the clock runs a little Python (numba's object mode), and that is
also when pending signal handlers run: :func:`interruptible` swaps them for
ones that only raise the flag while a kernel runs, and afterwards hands each
signal that came to the handler it was meant for (so Ctrl-C still raises
``KeyboardInterrupt`` and a move-time alarm still forfeits, just promptly).
"""

from __future__ import annotations

import math
import signal
import threading
import time
from contextlib import contextmanager

import numpy as np
from numba import njit, objmode

CHECK_EVERY = 256
"""Iterations between two looks at the clock and the stop flag (a power of two)."""
CHECK_MASK = CHECK_EVERY - 1
NO_DEADLINE = math.inf

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGALRM") if hasattr(signal, name))


@njit(cache=True)
def expired(deadline, stop):
    """True when ``stop[0]`` is raised or ``time.perf_counter()`` has passed ``deadline``."""
    with objmode(now="float64"):
        now = time.perf_counter()
    return stop[0] != 0 or now >= deadline


def deadline_after(time_ms: float | None) -> float:
    """The ``time.perf_counter()`` value ``time_ms`` from now (no limit for ``None``)."""
    return NO_DEADLINE if time_ms is None else time.perf_counter() + float(time_ms) / 1000.0


@contextmanager
def interruptible():
    """A ``stop`` flag (int64[1]) for a kernel, raised by SIGINT, SIGTERM or SIGALRM
    while the block runs; the signals are then passed on to their own handlers.

    Outside the main thread (where signals cannot be handled) the flag is only a
    flag, and the deadline still holds.
    """
    stop = np.zeros(1, np.int64)
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    caught: list[tuple[int, object]] = []
    previous = {}

    def raise_flag(signum, frame):
        stop[0] = 1
        caught.append((signum, frame))

    for signum in SIGNALS:
        handler = signal.getsignal(signum)
        if callable(handler):  # a Python handler; SIG_DFL and SIG_IGN act without Python
            previous[signum] = handler
            signal.signal(signum, raise_flag)
    try:
        yield stop
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum, frame in caught:
            previous[signum](signum, frame)
