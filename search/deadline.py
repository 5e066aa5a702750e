"""Stopping a search from the inside: a deadline and signals, checked by the kernels.

numba kernels cannot be interrupted: a Python signal handler (Ctrl-C, SIGTERM,
the harness's per-move alarm) runs only when the interpreter gets control
back, and a budget checked between kernel calls overshoots by a whole call.
So the search kernels themselves look, every :data:`CHECK_EVERY` iterations,
at the clock (:func:`expired`) and at a ``stop`` flag, and return early.
Looking also runs pending Python signal handlers (CPython's
``PyErr_CheckSignals``): :func:`interruptible` swaps them for ones that only
raise the flag while a kernel runs, and afterwards hands each signal that
came to the handler it was meant for (so Ctrl-C still raises
``KeyboardInterrupt`` and a move-time alarm still forfeits, just promptly).
A handler that raises outside :func:`interruptible` ends the kernel with its
exception.

The clock and the signal check call CPython's C functions from the kernel
(the clock of ``time.perf_counter``). An ``objmode`` block calling Python
would do the same, but numba compiles such a block afresh in every process,
never from the cache: a tenth of a second before a process's first search.
"""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
from contextlib import contextmanager

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

CHECK_EVERY = 256
"""Iterations between two looks at the clock and the stop flag (a power of two)."""
CHECK_MASK = CHECK_EVERY - 1
NO_DEADLINE = math.inf

SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGALRM") if hasattr(signal, name))


_I32, _I64 = ir.IntType(32), ir.IntType(64)
_PUBLIC_CLOCK = sys.version_info >= (3, 13)  # PyTime_PerfCounter; before, _PyTime_GetPerfCounter


@intrinsic
def _perf_counter_ns(typingctx):
    """``time.perf_counter()`` in nanoseconds, from CPython's own clock function."""

    def codegen(context, builder, signature, args):
        if _PUBLIC_CLOCK:
            clock = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(_I32, [_I64.as_pointer()]), "PyTime_PerfCounter")
            now = cgutils.alloca_once(builder, _I64)
            builder.call(clock, [now])
            return builder.load(now)
        clock = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_I64, []),
                                               "_PyTime_GetPerfCounter")
        return builder.call(clock, [])

    return types.int64(), codegen


@intrinsic
def _run_signal_handlers(typingctx):
    """CPython's ``PyErr_CheckSignals``: run the pending Python signal handlers;
    an exception one raises leaves the kernel as that exception."""

    def codegen(context, builder, signature, args):
        check = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_I32, []),
                                               "PyErr_CheckSignals")
        raised = builder.icmp_signed("!=", builder.call(check, []), ir.Constant(_I32, 0))
        with builder.if_then(raised, likely=False):
            context.call_conv.return_exc(builder)
        return context.get_dummy_value()

    return types.none(), codegen


@njit(cache=True)
def expired(deadline, stop):
    """True when ``stop[0]`` is raised or ``time.perf_counter()`` has passed
    ``deadline``; pending signal handlers run first (they may raise the flag)."""
    _run_signal_handlers()
    return stop[0] != 0 or _perf_counter_ns() >= deadline * 1e9


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
