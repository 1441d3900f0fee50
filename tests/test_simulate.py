"""`simulate` and `replay`: reports, determinism across workers, records that replay."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from cardgen.cli import cli
from cardgen.engine.record import Record, load_record, record_from_dict, replay, save_record
from cardgen.engine.record import RecordError
from cardgen.engine.simulate import simulate


def comparable(report):
    d = report.as_dict()
    d.pop("run")
    return d


def test_llll_report_shape():
    report = simulate("llll", games=120, seed=3, players=4)
    d = report.as_dict()
    assert d["games"] == 120 and d["players"] == 4 and d["policies"] == ["random"] * 4
    assert len(d["seats"]) == 4
    assert sum(s["wins"] for s in d["seats"]) + d["draws"] == 120
    for seat in d["seats"]:
        lo, hi = seat["wilson95"]
        assert lo <= seat["win_rate"] <= hi
    length = d["length"]
    assert length["min"] <= length["p10"] <= length["p50"] <= length["p90"] <= length["max"]
    assert set(d["endings"]) <= {"points", "princess"}
    assert "strategies" not in d


def test_results_do_not_depend_on_workers():
    one = simulate("llll", games=300, seed=11, workers=1)
    two = simulate("llll", games=300, seed=11, workers=2)
    assert comparable(one) == comparable(two)
    assert one.lengths == two.lengths


def test_requiem_reports_success_and_endings():
    report = simulate("requiem", games=150, seed=2, policies=["greedy"])
    d = report.as_dict()
    coop = d["cooperative"]
    assert 0 < coop["successes"] < 150 and d["seats"] == []
    assert sum(d["endings"].values()) == 150
    assert sum(coop["scores_of_successes"].values()) == coop["successes"]
    assert all(-20 <= int(k) <= 20 for k in coop["scores_of_successes"])


def test_strategy_comparison_with_rotation():
    report = simulate("llll", games=200, seed=1, policies=["greedy", "random", "random"], rotate=True)
    d = report.as_dict()
    rows = {r["policy"]: r for r in d["strategies"]}
    assert rows["greedy"]["seat_games"] == 200 and rows["random"]["seat_games"] == 400
    assert rows["greedy"]["win_rate"] > rows["random"]["win_rate"]


@pytest.mark.parametrize("game_id", ["llll", "requiem"])
def test_saved_records_replay_to_the_same_result(tmp_path, game_id):
    report = simulate(game_id, games=30, seed=7, workers=2, save_records=tmp_path, policies=["greedy"])
    files = sorted(tmp_path.glob("*.yaml"))
    assert len(files) == 30
    seen = []
    for path in files:
        record = load_record(path)
        result = replay(record)
        assert result.ok and result.finished, result.error or result.mismatch
        assert list(result.result.scores) == record.meta["result"]["scores"]
        assert list(result.result.winners) == record.meta["result"]["winners"]
        seen.append(result.result.decisions)     # simulate reports the players' decisions as length
    assert sorted(seen) == sorted(report.lengths)


def test_record_round_trip(tmp_path):
    record = Record("llll", 3, seed=5, actions=[("pick", 0), ("bid", 2), ("pass",)], meta={"note": "x"})
    save_record(record, tmp_path / "r.yaml")
    text = (tmp_path / "r.yaml").read_text()
    assert '- ["pick", 0]' in text
    again = load_record(tmp_path / "r.yaml")
    assert again.actions == record.actions and again.seed == 5 and again.meta == {"note": "x"}


def test_replay_reports_an_illegal_action_with_its_position(tmp_path):
    simulate("llll", games=1, seed=0, save_records=tmp_path)
    path = next(tmp_path.glob("*.yaml"))
    data = yaml.safe_load(path.read_text())
    data["actions"][2] = ["bid", 99]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data))
    report = replay(load_record(bad))
    assert not report.ok and report.error_index == 3
    assert "action 3" in report.error and "not legal" in report.error
    result = CliRunner().invoke(cli, ["replay", str(bad)])
    assert result.exit_code == 1
    assert "ILLEGAL: action 3 ([bid, 99])" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(cli, ["replay", str(bad), "--format", "json"])
    assert result.exit_code == 1 and json.loads(result.stdout)["error_index"] == 3


def test_replay_of_actions_that_are_no_actions_at_all(tmp_path):
    record = record_from_dict({"game": "requiem", "players": 3, "seed": 1, "actions": ["hello", {"a": 1}]})
    report = replay(record)
    assert report.error_index == 1 and not report.ok


def test_replay_with_a_stacked_deck_and_an_unfinished_game():
    from cardgen.load import load_game

    order = [c.id for c in load_game("llll").cards][::-1]
    record = record_from_dict({"game": "llll", "players": 3, "deck_order": order, "actions": [["pick", 0], ["bid", 1]]})
    report = replay(record)
    assert report.ok and not report.finished and report.applied == 2
    assert report.state.castle[0] == order[8]


def test_replay_detects_a_wrong_recorded_result(tmp_path):
    simulate("llll", games=1, seed=0, save_records=tmp_path)
    path = next(tmp_path.glob("*.yaml"))
    data = yaml.safe_load(path.read_text())
    data["meta"]["result"]["scores"] = [99, 99, 99]
    path.write_text(yaml.safe_dump(data))
    report = replay(load_record(path))
    assert report.mismatch and not report.ok
    assert CliRunner().invoke(cli, ["replay", str(path)]).exit_code == 1


@pytest.mark.parametrize("data, message", [
    ([], "must be a mapping"),
    ({"game": "llll", "players": 3, "actions": []}, "seed"),
    ({"game": "llll", "players": 3, "seed": 1, "actions": [], "colour": 1}, "unknown key"),
    ({"game": "llll", "players": "three", "seed": 1, "actions": []}, "players"),
])
def test_bad_records(data, message):
    with pytest.raises(RecordError, match=message):
        record_from_dict(data)


def test_cli_replay_of_a_broken_file(tmp_path):
    path = tmp_path / "r.yaml"
    path.write_text("game: llll\nplayers: [\n")
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 1 and "YAML syntax error" in result.output and "Traceback" not in result.output
    result = CliRunner().invoke(cli, ["replay", str(tmp_path / "missing.yaml")])
    assert result.exit_code == 1 and "missing.yaml:1:1: file is missing" in result.output


def test_cli_simulate_text_and_json(tmp_path):
    runner = CliRunner()
    result = runner.invoke(cli, ["simulate", "llll", "--games", "50", "--seed", "4", "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "95% CI" in result.output and "seat 1 (random)" in result.output
    result = runner.invoke(cli, ["simulate", "requiem", "--games", "20", "--policy", "greedy", "--format", "json",
                                 "--save-records", str(tmp_path / "recs")])
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert d["games"] == 20 and "cooperative" in d
    assert len(list((tmp_path / "recs").glob("*.yaml"))) == 20
    first = sorted((tmp_path / "recs").glob("*.yaml"))[0]
    replayed = runner.invoke(cli, ["replay", str(first)])
    assert replayed.exit_code == 0 and "scores:" in replayed.output


@pytest.mark.parametrize("args, message", [
    (["--policy", "greedy", "--policy", "random"], "one policy for every seat"),
    (["--policy", "clever"], "no policy 'clever'"),
    (["--players", "9"], "not 9"),
])
def test_cli_simulate_errors(args, message):
    result = CliRunner().invoke(cli, ["simulate", "llll", "--games", "5", *args])
    assert result.exit_code == 1 and message in result.output and "Traceback" not in result.output


def test_workers_simulate_the_game_object_they_are_given():
    import dataclasses

    from cardgen.load import load_game

    game = load_game("llll")
    params = dict(game.parameters)
    params["starting_action_points"] = 30
    rich = dataclasses.replace(game, parameters=params)
    a = comparable(simulate(rich, games=300, seed=1, workers=2))
    b = comparable(simulate(rich, games=300, seed=1, workers=1))
    c = comparable(simulate(game, games=300, seed=1, workers=2))
    assert a == b and a != c


@pytest.mark.parametrize("args, message", [
    (["alice", "--players", "2", "--variant", "solo"], "with 2 player(s) use versus"),
    (["ohanatsumi", "--players", "3", "--variant", "two_character"], "with 3 player(s) use standard"),
])
def test_unplayable_variant_is_a_clear_error(args, message):
    from click.testing import CliRunner

    from cardgen.cli import cli

    result = CliRunner().invoke(cli, ["simulate", *args, "--games", "3"])
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output


@pytest.mark.skipif(sys.platform == "win32", reason="process groups and SIGINT are POSIX")
def test_ctrl_c_stops_a_simulation_with_workers_without_their_tracebacks():
    """Ctrl-C reaches the whole foreground process group: the workers ignore it, the parent
    terminates the pool and lets KeyboardInterrupt rise to the CLI, which says one line."""
    proc = subprocess.Popen([sys.executable, "-m", "cardgen", "simulate", "llll", "--games", "200000", "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            cwd=Path(__file__).resolve().parent.parent)
    try:
        time.sleep(2.5)
        assert proc.poll() is None, "200,000 games finished in 2.5 s: the test cannot interrupt them"
        sent = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal's Ctrl-C: parent and workers alike
        _, err = proc.communicate(timeout=15)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert time.monotonic() - sent < 10
    stderr = err.decode("utf-8", "replace")
    # No worker prints a KeyboardInterrupt traceback; only the parent ever sees the interrupt.
    assert stderr.count("Traceback") <= 1, stderr
    assert "multiprocessing" not in stderr and "Process ForkPoolWorker" not in stderr, stderr
    cli_source = (Path(__file__).resolve().parent.parent / "cardgen" / "cli.py").read_text(encoding="utf-8")
    if "KeyboardInterrupt" in cli_source:  # the CLI turns it into one line and the shell's 130
        assert proc.returncode == 130, stderr
        assert "Traceback" not in stderr and "interrupted" in stderr, stderr
    else:
        assert proc.returncode != 0
