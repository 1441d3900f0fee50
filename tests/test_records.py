"""A record file is untrusted input: every corruption is a DataError at its file and line."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from cardgen.cli import cli
from cardgen.engine.record import Record, RecordError, load_record, replay, save_record
from cardgen.engine.simulate import simulate
from cardgen.errors import DataError
from cardgen.io.reader import display_path
from cardgen.load import load_game


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A real record written by `simulate --save-records` (llll, 3 players)."""
    folder = tmp_path_factory.mktemp("records")
    simulate("llll", games=1, seed=3, save_records=folder)
    return next(folder.glob("*.yaml"))


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if needle in line)


def _corrupt(tmp_path, saved, old: str, new: str):
    """`saved` with its first line starting with `old` replaced by `new` (an action line: `new` goes before it)."""
    lines = saved.read_text(encoding="utf-8").splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(old))
    lines[index] = new + "\n" + lines[index] if old.startswith("- ") else new
    path = tmp_path / "bad.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, path.read_text(encoding="utf-8")


def _error(path) -> str:
    with pytest.raises(DataError) as info:
        load_record(path)
    assert isinstance(info.value, RecordError)
    return str(info.value)


def test_the_saved_record_loads_and_replays(saved):
    record = load_record(saved)
    report = replay(record)
    assert report.ok and report.finished
    assert list(report.result.scores) == record.meta["result"]["scores"]


def test_recorded_scores_that_are_not_a_list(tmp_path, saved):
    text = saved.read_text(encoding="utf-8")
    start = text.index("scores:")
    end = text.index("\n", start)
    path = tmp_path / "bad.yaml"
    path.write_text(text[:start] + "scores: 5" + text[end:], encoding="utf-8")
    line = _line_of(path.read_text(), "scores: 5")
    message = _error(path)
    assert f"{display_path(path)}:{line}:" in message
    assert "meta.result.scores must be a list" in message


def test_an_unknown_card_in_the_deck_order(tmp_path):
    order = [c.id for c in load_game("llll").cards]
    save_record(Record("llll", 3, deck_order=order, actions=[]), tmp_path / "stacked.yaml")
    assert load_record(tmp_path / "stacked.yaml").deck_order == order
    path = tmp_path / "bad.yaml"
    path.write_text((tmp_path / "stacked.yaml").read_text(encoding="utf-8").replace(order[5], "ZZ99"), encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    message = _error(path)
    assert f"{display_path(path)}:{_line_of(text, 'ZZ99')}:" in message
    assert "'ZZ99' is not a card of llll" in message


def test_a_deck_order_missing_a_card(tmp_path):
    order = [c.id for c in load_game("llll").cards]
    save_record(Record("llll", 3, deck_order=order[:-1], actions=[]), tmp_path / "short.yaml")
    path = tmp_path / "short.yaml"
    message = _error(path)
    assert f"{display_path(path)}:{_line_of(path.read_text(), 'deck_order:')}:" in message
    assert "deck_order must list each card once" in message and order[-1] in message


def test_a_stacked_versus_deck_holds_two_sets():
    """The engine, not a fixed rule, says what a stacked deck holds: alice's versus deals two sets."""
    import tempfile
    from pathlib import Path

    order = [c.id for c in load_game("alice").cards]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "versus.yaml"
        save_record(Record("alice", 2, variant="versus", deck_order=order + order[::-1], actions=[]), path)
        assert load_record(path).deck_order == order + order[::-1]
        save_record(Record("alice", 2, variant="versus", deck_order=order, actions=[]), path)
        assert "deck_order must list 46 cards" in _error(path)


def test_a_missing_key(tmp_path, saved):
    text = saved.read_text(encoding="utf-8")
    path = tmp_path / "bad.yaml"
    path.write_text(text.replace("players: 3\n", ""), encoding="utf-8")
    message = _error(path)
    assert f"{display_path(path)}:1:1: record: missing required key 'players'" in message


@pytest.mark.parametrize("old, new, needle, expected", [
    ("players: 3", "players: three", "players: three", "players must be a whole number"),
    ("players: 3", "players: 9", "players: 9", "players is 9, but llll is for 3–4 players"),
    ("seed: ", "seed: [1, 2]", "seed: [1, 2]", "seed must be a whole number"),
    ("seed: ", "seed: 1.5", "seed: 1.5", "seed must be a whole number"),
    ("variant: standard", "variant: solo", "variant: solo", "llll cannot be set up"),
    ("- pick:", "- {pick: 1}", "- {pick: 1}", "] must be"),
])
def test_wrong_types_and_values(tmp_path, saved, old, new, needle, expected):
    path, text = _corrupt(tmp_path, saved, old, new)
    message = _error(path)
    assert f"{display_path(path)}:{_line_of(text, needle)}:" in message
    assert expected in message


def test_actions_that_are_not_a_list(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("game: llll\nplayers: 3\nseed: 1\nactions: {a: 1}\n", encoding="utf-8")
    assert f"{display_path(path)}:4:10: actions must be a list" in _error(path)


def test_not_utf8(tmp_path, saved):
    path = tmp_path / "bad.yaml"
    path.write_bytes(saved.read_bytes().replace(b"game: llll", b"game: ll\xffll"))
    message = _error(path)
    assert f"{display_path(path)}:1:" in message and "not UTF-8" in message


def test_an_alias_bomb(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]"
              for i in range(1, 9)]
    path = tmp_path / "bomb.yaml"
    path.write_text("\n".join(lines) + "\ngame: llll\nplayers: 3\nseed: 1\nactions: []\n", encoding="utf-8")
    message = _error(path)
    assert f"{display_path(path)}:" in message and "expands to more than" in message


def test_cli_replay_of_a_corrupted_record(tmp_path, saved):
    text = saved.read_text(encoding="utf-8")
    start = text.index("scores:")
    path = tmp_path / "bad.yaml"
    path.write_text(text[:start] + "scores: 5" + text[text.index("\n", start):], encoding="utf-8")
    result = CliRunner().invoke(cli, ["replay", str(path)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert f"{display_path(path)}:{_line_of(path.read_text(), 'scores: 5')}:" in result.output
    assert "meta.result.scores must be a list" in result.output


def test_an_illegal_action_names_its_line(tmp_path, saved):
    text = saved.read_text(encoding="utf-8")
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("- "))
    lines[first] = "- [bid, 99]"
    path = tmp_path / "bad.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    report = replay(load_record(path))
    assert report.error_index == 1
    assert f"(at {display_path(path)}:{first + 1}:" in report.error


def _replay_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cardgen", "replay", *args], capture_output=True, text=True,
                          timeout=120)


def test_replay_names_the_seat_to_act_and_counts_the_moves_applied(tmp_path, saved):
    """An illegal bid after some legal moves: the error names the seat `to_act` shows, and the
    JSON counts every move applied before it."""
    lines = saved.read_text(encoding="utf-8").splitlines()
    actions = [i for i, line in enumerate(lines) if line.startswith("- ")]
    first_bid = next(i for i in actions if lines[i].startswith("- bid:"))
    bad_at = first_bid + 1                      # right after a legal bid: another seat bids next
    lines[bad_at] = "- bid:99"
    path = tmp_path / "bad.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    position = actions.index(bad_at) + 1

    text = _replay_cli(str(path))
    assert text.returncode == 1, text.stderr
    seat = re.search(r"is not legal for seat (\d+)", text.stdout)
    to_act = re.search(r"^\s*to_act: (\d+)$", text.stdout, re.M)
    assert seat and to_act, text.stdout
    assert seat.group(1) == to_act.group(1)

    report = json.loads(_replay_cli(str(path), "--format", "json").stdout)
    assert report["error_index"] == position
    assert report["applied"] == position - 1 > 0
    assert f"not legal for seat {report['state']['to_act']}" in report["error"]
