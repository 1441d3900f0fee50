"""Crazy Eights' own tests: cardgen's test kit on every player count, and the rules it cannot
know (wild eights, one take a turn, the blocked end, the scoring)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from cardgen.engine.api import CHANCE, RandomPolicy, play
from cardgen.testing import check_rules, configurations, load_game
from crazy_eights_rules import CrazyEights, Move, Shedder

GAME = Path(__file__).resolve().parents[1] / "crazy-eights"


@pytest.fixture(scope="module")
def game():
    return load_game(str(GAME))


@pytest.mark.parametrize("players, variant", configurations(CrazyEights, load_game(str(GAME))))
def test_the_rules_pass_cardgen_s_test_kit(game, players, variant):
    check_rules(lambda: CrazyEights(game, players, variant), games=10)


def dealt(game, players=3, seed=1):
    state = CrazyEights(game, players).new_initial_state()
    rng = random.Random(seed)
    while state.current_player() == CHANCE:
        outcomes = state.legal_actions()
        state.apply(outcomes[rng.randrange(len(outcomes))])
    return state


def test_the_deal_gives_hidden_hands_of_hand_size_and_a_starter(game):
    state = dealt(game, players=2)
    assert [len(hand) for hand in state.hands] == [7, 7] and len(state.discard) == 1
    seen = state.observation(1)
    assert seen.public["zones"]["hand1"] == {"count": 7}
    assert seen.private["zones"] == {"hand2": list(state.hands[1])}


def test_an_eight_is_always_playable_and_names_the_suit_to_follow(game):
    state = dealt(game)
    seat = state.current_player()
    where = next(zone for zone in state.table if "hearts-8" in zone)
    state.table.move("hearts-8", where, state.hands[seat])
    state.ask_turn()
    eights = [m for m in state.legal_actions() if m.args[:1] == ("hearts-8",)]
    assert [m.args[1] for m in eights] == ["clubs", "diamonds", "hearts", "spades"]
    state.apply(Move("play", ("hearts-8", "spades")))
    assert state.suit == "spades" and state.discard.top() == "hearts-8"


def test_a_player_takes_once_then_plays_or_passes(game):
    state = dealt(game)
    seat = state.current_player()
    assert Move("take") in state.legal_actions() and Move("pass") not in state.legal_actions()
    state.apply("take")
    assert state.current_player() == CHANCE
    state.apply(state.legal_actions()[0])
    assert state.current_player() == seat and len(state.hands[seat]) == 6
    assert Move("take") not in state.legal_actions() and Move("pass") in state.legal_actions()


def test_games_end_out_or_blocked_and_the_winner_scores_the_difference(game):
    endings = set()
    for seed in range(40):
        rules = CrazyEights(game, 4)
        state = play(rules.new_initial_state(), [Shedder(rules), RandomPolicy()] * 2, random.Random(seed))
        result = state.result()
        points = result.details["hand_points"]
        endings.add(result.ending)
        for seat in result.winners:
            assert points[seat] == min(points)
            assert result.scores[seat] == sum(p - points[seat] for p in points)
    assert endings == {"out", "blocked"}
