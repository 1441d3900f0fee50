"""Positions: YAML situations that tests and `cardgen replay --from` start from, validated like
every other file (errors at file:line), building states that keep every card in one zone."""

from __future__ import annotations

import random

import pytest
from click.testing import CliRunner

from cardgen.cli import cli
from cardgen.engine import alice, llll, ohanatsumi, requiem
from cardgen.engine.core import resolve_chance
from cardgen.engine.position import PositionError, PositionFileError, load_position
from cardgen.load import load_game

ALLY_PHASE = """\
game: llll
players: 3
phase: ally
to_act: 1
zones:
  allies:
    1: [LL01, LL11]
    2: [LL12]
  scores:
    3: [LL20]
  tapped: [LL12]
  castle: [LL02, LL03, LL04]
counters:
  round: 2
  ap: [4, 10, 7]
"""


def write(tmp_path, text, name="position.yaml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_yaml_position_builds_its_state(tmp_path):
    rules, state, data = load_position(write(tmp_path, ALLY_PHASE))
    assert isinstance(rules, llll.Rules) and data["players"] == 3
    assert state.phase == llll.ALLY and state.current_player() == 0 and state.round == 2
    assert state.allies[0] == ["LL01", "LL11"] and "LL12" in state.tapped and state.ap == [4, 10, 7]
    assert state.castle == ["LL02", "LL03", "LL04"] and state.hidden == [False, False, True]
    assert len(state.deck) == 32 - 7 and state.deck.choices() == 32 - 7   # the rest, shuffled
    state.check_invariants()
    assert [str(a) for a in state.legal_actions()][:1] == ["pass"]


@pytest.mark.parametrize("text, line, words", [
    (ALLY_PHASE.replace("round: 2", "rounds: 2"), 14, "unknown key"),
    (ALLY_PHASE.replace("[LL12]\n  scores", "[LL99]\n  scores"), 8, "not a card of llll"),
    (ALLY_PHASE.replace("3: [LL20]", "3: [LL01]"), 10, "placed more than once"),
    (ALLY_PHASE.replace("phase: ally", "phase: lunch"), 3, "not a phase"),
    (ALLY_PHASE.replace("players: 3", "players: 9"), 2, "players"),
    (ALLY_PHASE.replace("zones:", "zones: 3\nzonez:"), 6, "zonez"),
])
def test_errors_name_the_file_and_line(tmp_path, text, line, words):
    path = write(tmp_path, text)
    with pytest.raises(PositionFileError) as info:
        load_position(path)
    problem = info.value.problems[0]
    assert words in problem.message
    assert problem.location.path.endswith("position.yaml") and problem.location.line == line, problem


def test_data_positions_are_checked_too():
    rules = llll.Rules(load_game("llll"), 3)
    with pytest.raises(PositionError, match="not an ally in play"):
        rules.from_position({"phase": "ally", "zones": {"tapped": ["LL05"]}})
    with pytest.raises(PositionError, match="seat from 1 to 3"):
        rules.from_position({"phase": "ally", "to_act": 4})


@pytest.mark.parametrize("module, players, variant, position", [
    (llll, 4, "standard", {"phase": "deal", "counters": {"round": 3, "won": []}}),
    (llll, 3, "standard", {"phase": "pick", "zones": {"castle": ["LL01", "LL02", "LL03"]}}),
    (requiem, 3, "standard", {"phase": "prince"}),
    (requiem, 3, "standard", {"phase": "sortie"}),
    (alice, 1, "solo", {"phase": "investigate", "zones": {"record": ["AL06"]}}),
    (alice, 2, "versus", {"phase": "investigate", "zones": {"profile": {1: "AL01", 2: "AL04"}}}),
    (ohanatsumi, 4, "standard", {"phase": "round", "counters": {"round": 2, "order": [2, 1, 4, 3]}}),
    (ohanatsumi, 1, "two_character", {"phase": "round"}),
])
def test_every_game_plays_on_from_a_position(module, players, variant, position):
    game = load_game(module.Rules.engine_id)
    rules = module.Rules(game, players, variant)
    state = rules.from_position(position)
    state.check_invariants()
    chance, choice = random.Random(1), random.Random(2)
    while not state.is_terminal():
        resolve_chance(state, chance)
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply(legal[int(choice.random() * len(legal))])
        state.check_invariants()
    assert len(state.result().scores) == players


def test_replay_from_a_position(tmp_path):
    position = write(tmp_path, ALLY_PHASE)
    record = write(tmp_path, "game: llll\nplayers: 3\nseed: 4\nactions:\n- use:LL01\n- pass\n", "record.yaml")
    result = CliRunner().invoke(cli, ["replay", str(record), "--from", str(position)])
    assert result.exit_code == 0, result.output
    assert "replayed all 2 actions" in result.output
    bad = write(tmp_path, "game: llll\nplayers: 3\nactions:\n- use:LL12\n", "bad.yaml")
    result = CliRunner().invoke(cli, ["replay", str(bad), "--from", str(position)])
    assert result.exit_code == 1 and "ILLEGAL" in result.output and "bad.yaml:4" in result.output
    broken = write(tmp_path, ALLY_PHASE.replace("LL11", "LL77"), "broken.yaml")
    result = CliRunner().invoke(cli, ["replay", str(record), "--from", str(broken)])
    assert result.exit_code != 0 and "broken.yaml:7" in result.output and "Traceback" not in result.output
