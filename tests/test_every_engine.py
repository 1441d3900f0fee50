"""One harness, every game alike (in the style of OpenSpiel's random_sim_test).

For every bundled game with an engine and every player count and variant it supports:
random games with all invariants checked after every action, seeded determinism, every
policy playing legal games, and saved records replaying to the same result.
"""

from __future__ import annotations

import random

import pytest

from cardgen.engine import engine_module
from cardgen.engine.bots import make_policy
from cardgen.engine.core import apply_moves
from cardgen.engine.harness import configurations, random_game
from cardgen.engine.record import Record, load_record, replay, save_record
from cardgen.engine.simulate import play
from cardgen.load import load_game

from .conftest import BUNDLED

CASES = [(game_id, players, variant) for game_id in BUNDLED for players, variant in configurations(load_game(game_id))]


def test_every_bundled_game_has_an_engine_with_cases():
    assert {game_id for game_id, _, _ in CASES} == set(BUNDLED)


@pytest.fixture(scope="module")
def games():
    return {game_id: load_game(game_id) for game_id in BUNDLED}


def rules_for(games, game_id, players, variant):
    game = games[game_id]
    return engine_module(game), engine_module(game).Rules(game, players, variant)


@pytest.mark.parametrize("game_id,players,variant", CASES)
def test_random_games_keep_every_invariant(games, game_id, players, variant):
    _, rules = rules_for(games, game_id, players, variant)
    low, high = rules.score_range()
    for seed in range(25):
        state, result = random_game(rules, seed, deep=seed < 3)  # conservation, legality, chance, clone, observations
        assert state.is_terminal() and result.length <= rules.max_actions
        assert all(low <= score <= high for score in result.scores)
        assert len(result.scores) == players


@pytest.mark.parametrize("game_id,players,variant", CASES)
def test_same_seed_and_choices_replay_exactly(games, game_id, players, variant):
    _, rules = rules_for(games, game_id, players, variant)
    state, result = random_game(rules, 4242)
    again = rules.new_initial_state()
    apply_moves(again, [str(a) for a in state.history])
    assert again.result() == result
    assert {zone: list(cards) for zone, cards in again.zones().items()} == {zone: list(cards) for zone, cards in state.zones().items()}
    other, _ = random_game(rules, 4243)
    assert other.history != state.history  # the seed, not a global RNG, drives chance


@pytest.mark.parametrize("game_id,players,variant", CASES)
def test_every_policy_plays_legal_games(games, game_id, players, variant):
    module, rules = rules_for(games, game_id, players, variant)
    for name in sorted(module.POLICIES):
        policies = [make_policy(module, name, rules) for _ in range(players)]
        for seed in range(5):
            state = play(rules, policies, seed)
            assert state.is_terminal(), (name, seed)


@pytest.mark.parametrize("game_id,players,variant", CASES)
def test_saved_record_replays_to_the_same_result(games, tmp_path, game_id, players, variant):
    _, rules = rules_for(games, game_id, players, variant)
    state, result = random_game(rules, 11, check=False)
    path = tmp_path / "game.yaml"
    save_record(Record(game=game_id, players=players, variant=variant, seed=11, actions=list(state.history)), path)
    report = replay(load_record(path))
    assert report.ok and report.finished and report.result == result
