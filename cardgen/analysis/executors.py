"""Where simulations run: local worker processes (the default) or a Dask cluster.

An executor has two methods, both taking a picklable module-level function and a list of items:

- `map(fn, items)` yields `fn(item)` in item order (what `simulate` needs: its report is built
  in game order);
- `map_unordered(fn, items)` yields `(i, fn(items[i]))` as each finishes (what a sweep needs:
  every point is saved the moment it is done, so an interrupted sweep loses little).

Results never depend on the executor: every game's seed comes from (seed, index) and every
sweep point's seed from (seed, point), never from where or when it ran.
"""

from __future__ import annotations

import ipaddress
import os
import re
from typing import Any, Callable, Iterable, Iterator, Sequence

from ..errors import CardgenError

EXECUTORS = ("local", "dask")
SCHEDULER_FORM = "tcp://HOST:PORT (or tls://HOST:PORT with Dask's TLS settings)"
_ADDRESS = re.compile(r"(tcp|tls)://(\[[^\[\]/]*\]|[A-Za-z0-9.\-]+):([0-9]{1,5})")
_HOSTNAME = re.compile(r"(?!-)[A-Za-z0-9\-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9\-]{1,63}(?<!-))*\.?")


def scheduler_address(text: str) -> str:
    """`text` when it is a Dask scheduler address cardgen can connect to, tcp:// or tls:// then a
    host name, an IPv4 address or a bracketed IPv6 address, and a port 1..65535; else ValueError
    saying what is wrong and the form to write."""
    m = _ADDRESS.fullmatch(text.strip())
    shown = repr(text) if len(text) <= 80 else repr(text[:80]) + "…"
    if not m:
        raise ValueError(f"{shown} is not a scheduler address; write {SCHEDULER_FORM}, as `dask scheduler` prints it")
    host, port = m.group(2), int(m.group(3))
    if host.startswith("["):
        try:
            ipaddress.IPv6Address(host[1:-1])
        except ValueError:
            raise ValueError(f"{shown}: {host[:80]} is not an IPv6 address; write {SCHEDULER_FORM}") from None
    elif len(host) > 253 or not _HOSTNAME.fullmatch(host):
        raise ValueError(f"{shown}: {'a name this long' if len(host) > 80 else repr(host)} is not a host name; write {SCHEDULER_FORM}")
    if not 1 <= port <= 65535:
        raise ValueError(f"{shown}: port {port} is not 1 to 65535; write {SCHEDULER_FORM}")
    return text.strip()


def _handshake(address: str, timeout: float) -> None:
    """Connect to `address` and ask it who it is, all within `timeout` seconds: CardgenError unless a
    Dask scheduler answers.  (distributed.Client waits without end on a server that accepts the
    connection and never speaks.)"""
    import asyncio

    from distributed.comm import connect
    from distributed.security import Security

    connection = Security().get_connection_args("client")
    if address.startswith("tls://") and connection.get("ssl_context") is None:
        raise CardgenError(f"--scheduler {address}: tls:// needs Dask's TLS settings (distributed.comm.tls.ca-file and "
                           "distributed.comm.tls.client.cert/key in Dask's configuration); or use tcp:// on a private network")

    async def ask() -> Any:
        comm = await connect(address, timeout=timeout, **connection)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    hint = "start one with `dask scheduler` and workers with `dask worker ADDRESS`, and give the address it prints"
    try:
        answer = asyncio.run(asyncio.wait_for(ask(), timeout))
    except (asyncio.TimeoutError, TimeoutError):
        raise CardgenError(f"--scheduler {address}: no Dask scheduler answered within {timeout:g} s; {hint}") from None
    except OSError as exc:  # refused, unreachable, reset, no such host
        raise CardgenError(f"--scheduler {address}: cannot reach a Dask scheduler there "
                           f"({' '.join(str(exc).split())[:200] or type(exc).__name__}); {hint}") from None
    except Exception:  # noqa: BLE001 - it answered with something Dask cannot read (a web server, a proxy)
        raise CardgenError(f"--scheduler {address}: the server there is not a Dask scheduler (its answer is not Dask's "
                           f"protocol); {hint}") from None
    if not (isinstance(answer, dict) and answer.get("type") == "Scheduler"):
        raise CardgenError(f"--scheduler {address}: the server there is not a Dask scheduler; {hint}")


class LocalExecutor:
    """Worker processes on this machine (`workers` = 1 runs in this process)."""

    name = "local"

    def __init__(self, workers: int | None = None):
        self.workers = max(1, workers or os.cpu_count() or 1)

    def describe(self) -> str:
        return f"{self.workers} local process(es)" if self.workers > 1 else "this process"

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        for _i, result in self._run(fn, list(items), ordered=True):
            yield result

    def map_unordered(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        return self._run(fn, list(items), ordered=False)

    def _run(self, fn: Callable[[Any], Any], items: list[Any], ordered: bool) -> Iterator[tuple[int, Any]]:
        if self.workers <= 1 or len(items) <= 1:
            for i, item in enumerate(items):
                yield i, fn(item)
            return
        from ..workers import worker_pool

        indexed = [(fn, i, item) for i, item in enumerate(items)]
        with worker_pool(min(self.workers, len(items))) as pool:
            yield from (pool.imap(_call, indexed) if ordered else pool.imap_unordered(_call, indexed))

    def close(self) -> None:
        pass


def _call(job: tuple) -> tuple[int, Any]:
    fn, i, item = job
    return i, fn(item)


class DaskExecutor:
    """A dask.distributed cluster: `scheduler` is its address (tcp://HOST:8786), or pass a `client`.

    Every worker needs the same cardgen installed (`pip install "cardgen[cluster]"`); the game
    itself travels with each task, so workers need no copy of the game folder.
    """

    name = "dask"

    def __init__(self, scheduler: str | None = None, client: Any = None, timeout: float | None = None):
        """`timeout`: seconds to connect and hear the scheduler answer (default: Dask's own
        `distributed.comm.timeouts.connect`, 30 s unless configured)."""
        try:
            import distributed
        except ImportError:
            raise CardgenError('--executor dask needs dask.distributed, which is not installed; '
                               'install it with: pip install "cardgen[cluster]"  (or pip install "dask[distributed]")') from None
        self._own = client is None
        if client is None:
            if not scheduler:
                raise CardgenError(f"--executor dask needs --scheduler {SCHEDULER_FORM} (the address `dask scheduler` prints)")
            try:
                scheduler = scheduler_address(scheduler)
            except ValueError as exc:
                raise CardgenError(f"--scheduler {exc}") from None
            if timeout is None:
                from dask.config import get
                from dask.utils import parse_timedelta

                timeout = parse_timedelta(get("distributed.comm.timeouts.connect"), default="seconds")
            _handshake(scheduler, timeout)
            try:
                client = distributed.Client(scheduler, timeout=timeout, set_as_default=False)
            except (OSError, TimeoutError) as exc:
                raise CardgenError(f"--scheduler {scheduler}: cannot reach a Dask scheduler there ({exc}); "
                                   "start one with `dask scheduler` and workers with `dask worker tcp://HOST:8786`") from None
        self.client = client
        self.scheduler = scheduler or getattr(getattr(client, "scheduler", None), "address", "?")

    def describe(self) -> str:
        try:
            workers = len(self.client.scheduler_info().get("workers", {}))
        except Exception:  # noqa: BLE001 - only a description
            workers = "?"
        return f"Dask cluster {self.scheduler} ({workers} worker(s))"

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        futures = self.client.map(fn, list(items), pure=False)
        try:
            for future in futures:
                yield future.result()
        except BaseException:
            self.client.cancel(futures)
            raise

    def map_unordered(self, fn: Callable[[Any], Any], items: Sequence[Any]) -> Iterator[tuple[int, Any]]:
        from distributed import as_completed

        items = list(items)
        if not items:
            return
        futures = self.client.map(fn, items, pure=False)
        index = {future.key: i for i, future in enumerate(futures)}
        try:
            for future in as_completed(futures, loop=self.client.loop):  # this client, not a default one (there is none)
                yield index[future.key], future.result()
        except BaseException:
            self.client.cancel(futures)
            raise

    def close(self) -> None:
        if self._own:
            self.client.close()


def make_executor(name: str = "local", scheduler: str | None = None, workers: int | None = None):
    """The executor for `--executor NAME [--scheduler ADDRESS] [--workers N]`."""
    if name == "local":
        if scheduler:
            raise CardgenError("--scheduler is only for --executor dask")
        return LocalExecutor(workers)
    if name == "dask":
        return DaskExecutor(scheduler)
    raise CardgenError(f"no executor {name!r}; choose from {', '.join(EXECUTORS)}")
