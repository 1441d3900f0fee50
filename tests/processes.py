"""Helpers for tests that run cardgen in a child process group and interrupt it."""

from __future__ import annotations

import os
import signal
import time

import pytest


def assert_no_process_left(group: int, grace_s: float = 1.0) -> None:
    """Fail (and kill them) if any process of process group `group` still runs `grace_s` after
    the command ended: a worker that outlives Ctrl-C keeps the CPU and the output lock."""
    time.sleep(grace_s)
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return
    os.killpg(group, signal.SIGKILL)
    pytest.fail("worker processes were still running after Ctrl-C")
