"""`cardgen build --workers N`: games and output kinds built in parallel processes give the same
files, byte for byte, the same summary, the same file:line errors, progress, and Ctrl-C handling."""

from __future__ import annotations

import dataclasses
import os
import pickle
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardgen.build import build_game, build_games, make_options, work_units
from cardgen.cli import cli
from cardgen.errors import CardgenError, DataError, Problem
from cardgen.load import load_game
from cardgen.model import Location, Text
from tests.processes import assert_no_process_left


@pytest.fixture(scope="module")
def games():
    return [load_game("alice"), load_game("llll")]


def _files(root: Path) -> dict[str, bytes]:
    """Every file under root (not the lock, nor the face cache: which faces a split game's parts
    cache is how the work was shared, not an output), with the TTS Saved Object's file:// URIs made relative."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name != ".cardgen.lock" and ".cache" not in path.relative_to(root).parts:
            data = path.read_bytes()
            if path.suffix == ".json":
                data = data.replace(root.resolve().as_uri().encode(), b"OUT")
            out[str(path.relative_to(root))] = data
    return out


def test_files_are_byte_identical_across_worker_counts(games, tmp_path):
    summaries, files, steps = {}, {}, {}
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        options = make_options(out=out, calibration=True)
        seen: list[int] = []
        results = build_games(games, options, seen.append, workers=workers)
        summaries[workers] = [r.summary().replace(str(out), "OUT") for r in results]
        files[workers] = _files(out)
        steps[workers] = sum(seen)
        assert steps[workers] == sum(work_units(g, options) for g in games)  # progress still counts every step
    assert any(name.endswith(".pdf") for name in files[1]) and any(name.endswith(".png") for name in files[1])
    for workers in (2,):
        assert files[workers].keys() == files[1].keys()
        different = [name for name in files[1] if files[workers][name] != files[1][name]]
        assert different == [], f"--workers {workers} changed {different[:5]}"
        assert summaries[workers] == summaries[1]
    assert not list(tmp_path.rglob("*.tmp"))


def test_games_are_built_whole_unless_one_is_more_than_its_share_or_the_cheapest(games):
    """A game's outputs share work in one process, so a game is one task; a game bigger than its
    share of the workers (a game alone) is split by output kind, the documents written last, and
    so is the cheapest game when there are more games than workers (its parts fill the gaps)."""
    from cardgen.build import _tasks, estimated_cost

    options = make_options(out="unused")
    alice, llll = games
    four = _tasks([alice, alice, llll, llll], options, 2)
    assert sorted({t.game_index for t in four if t.whole}) == [0, 2, 3]   # the second alice (cheapest, last of equals) is split
    assert sorted(t.order for t in four if t.game_index == 1) == [0, 1, 2, 3]
    assert [t.cost for t in four] == sorted((t.cost for t in four), reverse=True)  # biggest first
    assert all(t.whole for t in _tasks([alice, alice, alice], options, 3))  # as many workers as games, each its share: nothing to fill
    alone = sorted(_tasks([llll], options, 2), key=lambda t: t.order)
    assert {t.game_index for t in alone} == {0} and not any(t.whole for t in alone)
    assert [t.options.outputs for t in alone] == [("sheets",), ("shop", "png", "tts"), ("rules",), ("standard", "playtest", "tuckbox")]
    assert [t.deferred for t in alone] == [False, False, True, True]
    # the pair the tests above build: the bigger game is split, the other is whole, so both paths run
    pair = _tasks(games, options, 2)
    bigger = max((0, 1), key=lambda i: estimated_cost(games[i], options.outputs))
    assert {t.game_index for t in pair if t.whole} == {1 - bigger}
    assert len([t for t in pair if t.game_index == bigger]) == 4
    assert estimated_cost(llll, ("png",)) == estimated_cost(llll, ("shop", "png"))  # PNGs need the print-shop PDF drawn


def test_build_workers_start_no_more_processes_than_the_games_can_use(games, tmp_path):
    from cardgen.build import build_workers

    with build_workers(1) as none:
        assert none is None                                   # one worker: the build runs in this process
    with build_workers(16, games=1) as pool:                  # one game splits into at most four tasks
        assert pool is not None and pool.processes == 4
        assert len(pool.pool._pool) == 3                      # this process builds too: three more processes
        results = build_games(games[:1], make_options(out=tmp_path / "p", outputs=("sheets", "rules")), pool=pool)
    assert [p.name for p in results[0].files] == ["alice-cards-a4.pdf", "alice-rules-ja.pdf", "alice-rules-en.pdf"]


def test_a_subset_of_outputs_in_parallel_equals_serial(games, tmp_path):
    for outputs in (("sheets",), ("png", "rules"), ("shop", "standard", "playtest")):
        a = build_games(games, make_options(out=tmp_path / "a", outputs=outputs), workers=1)
        b = build_games(games, make_options(out=tmp_path / "b", outputs=outputs), workers=2)
        assert [r.summary().replace(str(tmp_path / "a"), "OUT") for r in a] == [r.summary().replace(str(tmp_path / "b"), "OUT") for r in b]
    assert _files(tmp_path / "a") == _files(tmp_path / "b")


def test_a_progress_callback_failing_on_the_dispatcher_thread_ends_the_build(games, tmp_path):
    """The worker processes' progress reaches the caller through the parent's dispatcher thread;
    if the callback fails there (a closed terminal, say), the build raises it instead of waiting
    for results nobody collects."""
    import threading

    def progress(n: int) -> None:
        if threading.current_thread() is not builder:  # the parent's dispatcher thread
            raise OSError("the terminal is gone")

    raised: list[BaseException] = []

    def build() -> None:
        try:
            build_games(games, make_options(out=tmp_path / "p", outputs=("sheets",)), progress, workers=2)
        except BaseException as exc:
            raised.append(exc)

    builder = threading.Thread(target=build, daemon=True)
    builder.start()
    builder.join(120)
    assert not builder.is_alive(), "the build still waits for results nobody collects"
    assert len(raised) == 1 and isinstance(raised[0], OSError) and "the terminal is gone" in str(raised[0])


def test_cardgen_errors_pickle_with_their_problems():
    error = DataError([Problem(Location("cards.yaml", 12, 3), "card LL03: bad"), Problem(None, "shorten it")])
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is DataError and again.problems == error.problems and str(again) == str(error)
    assert pickle.loads(pickle.dumps(CardgenError("plain"))).problems == [Problem(None, "plain")]


def _overflowing(game, card_id):
    long = Text(ja="とても長い能力の説明。" * 60, en="A very long ability text. " * 60)
    cards = tuple(dataclasses.replace(c, fields={**c.fields, "ability": long}) if c.id == card_id else c for c in game.cards)
    return dataclasses.replace(game, cards=cards)


@pytest.mark.parametrize("partner, broken_whole", [("alice", False), ("requiem", True)])
def test_an_overflow_in_parallel_is_the_serial_error_and_writes_nothing_of_the_game(games, tmp_path, partner, broken_whole):
    from cardgen.build import _tasks

    llll = games[1]
    other = load_game(partner)
    broken = _overflowing(llll, "LL03")
    options = make_options(out=tmp_path / "p")
    # beside alice the broken game is split into tasks by output; beside the bigger requiem it is one task
    assert [t.whole for t in _tasks([other, broken], options, 2) if t.game_index == 1] == ([True] if broken_whole else [False] * 4)
    with pytest.raises(CardgenError) as serial:
        build_game(broken, make_options(out=tmp_path / "s"))
    with pytest.raises(CardgenError) as parallel:
        build_games([other, broken], options, workers=2)
    assert parallel.value.problems == serial.value.problems
    assert any(p.location is not None and "cards.yaml" in str(p.location) for p in parallel.value.problems)
    assert not (tmp_path / "p" / "llll").exists() or not list((tmp_path / "p" / "llll").rglob("*.*"))
    assert (tmp_path / "p" / partner / f"{partner}-rules-en.pdf").exists()  # the other game is whole
    assert not list(tmp_path.rglob("*.tmp"))


def test_cli_workers_errors_are_file_line_messages_without_traceback(tmp_path):
    folder = tmp_path / "llll"
    import shutil

    from cardgen.load import bundled_games_dir

    shutil.copytree(bundled_games_dir() / "llll", folder)
    cards = folder / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    cards.write_text(text.replace("行動＞あなたは2アクション・ポイントを得る。", "とても長い説明。" * 80, 1), encoding="utf-8")
    result = CliRunner().invoke(cli, ["build", str(folder), "--out", str(tmp_path / "out"), "--workers", "2"])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    # an overflow is reported once per card type, naming its copies (LL13 is one of the priests)
    assert re.search(r"cards\.yaml:\d+:\d+: card type 'priest' \(front, 4 copies: LL11–LL14\)", result.output), result.output
    assert result.output.count("text does not fit") == 1, result.output


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_ctrl_c_during_a_parallel_build(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "cardgen", "build", "--out", str(tmp_path / "out"), "--workers", "2"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list((tmp_path / "out").rglob("*.pdf")):  # the workers are at work
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the build ended before Ctrl-C"
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal does: SIGINT to the whole foreground group
    try:
        out, err = proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        pytest.fail("still running 30 s after Ctrl-C")
    text = (out + err).decode("utf-8", "replace")
    assert "Traceback" not in text, text[-3000:]
    assert proc.returncode == 130, f"exit {proc.returncode}:\n{text[-3000:]}"
    lines = [line for line in re.split(r"[\r\n]+", text) if line.strip() and not line.lstrip().startswith("Building decks")]
    assert lines == ["interrupted"], lines
    assert_no_process_left(proc.pid)
