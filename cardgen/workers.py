"""Worker processes for simulate, sweep and build: one pool shape, one Ctrl-C behaviour."""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
from typing import Any, Callable, Iterator


def _start_worker(initializer: Callable[..., None] | None, initargs: tuple) -> None:
    # Ctrl-C goes to the whole process group: only the parent handles it (it terminates the
    # pool), so workers ignore it instead of each printing a KeyboardInterrupt traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


@contextlib.contextmanager
def worker_pool(processes: int, initializer: Callable[..., None] | None = None, initargs: tuple = ()) -> Iterator[Any]:
    """A process pool whose workers ignore SIGINT; on any exception in the block (Ctrl-C above
    all, or a consumer that stops early) the workers are stopped at once, then it rises."""
    pool = multiprocessing.get_context().Pool(processes, _start_worker, (initializer, initargs))
    try:
        yield pool
    except BaseException:
        pool.terminate()
        pool.join()
        raise
    pool.close()
    pool.join()
