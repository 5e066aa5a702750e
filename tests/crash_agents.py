"""Agents that kill the process they decide in, for the crash tests (a plugin
module: workers import it through ``GameSetup.plugins``)."""

from __future__ import annotations

import ctypes
import os
import signal

from numba import njit

from slagwerk.agents.base import Agent
from slagwerk.agents.registry import AGENTS, register


class _Crash(Agent):
    def decide(self, view):
        self.crash()


def _segfault():
    ctypes.string_at(0)  # reads address 0: SIGSEGV


def _sigkill():
    os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer would


@njit(cache=True)
def _spin(n):
    x = 0
    for i in range(n):
        x = (x * 31 + i) % 1000003
    return x


def _spin_forever():
    _spin(1 << 62)  # native code that no alarm interrupts


for _name, _how in (("test-segfault", _segfault), ("test-sigkill", _sigkill), ("test-spin", _spin_forever)):
    if _name not in AGENTS:
        register(type(_name, (_Crash,), {"name": _name, "description": "dies when asked to move",
                                         "crash": staticmethod(_how)}))
