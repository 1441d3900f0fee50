"""The engine SDK's building blocks: zones whose visibility makes the observations, draws as
chance nodes, clones, turn order, phases, scoring tables and choose-N decisions."""

from __future__ import annotations

import pytest

from cardgen.engine import api
from cardgen.engine.api import (CHANCE, Action, PhaseCycle, ScoringTable, Table, TurnOrder, Visibility, choose_n,
                                rotate, winners)
from cardgen.testing import load_game

from .kit_engines import GAME_FOLDER, TrickRules, TrickState


def test_the_api_exports_exactly_what_it_lists():
    assert len(set(api.__all__)) == len(api.__all__)
    assert all(hasattr(api, name) for name in api.__all__)
    assert {"Rules", "State", "Action", "Deck", "GameResult", "Observation", "CHANCE", "TERMINAL", "ActionSpace",
            "Table", "Visibility", "TableState", "Policy", "Map", "Int", "CheckResult"} <= set(api.__all__)


@pytest.fixture
def rules():
    return TrickRules(load_game(str(GAME_FOLDER)), 3)


def dealt(rules):
    """A state after the deal: three hidden hands of three cards."""
    state = rules.new_initial_state()
    while state.current_player() == CHANCE:
        state.apply(state.legal_actions()[0])
    return state


def test_an_engine_that_lists_its_own_chance_outcomes_is_believed(rules):
    """A pile's kept outcome table answers for chance_outcomes() only while the engine leaves
    it to the SDK: an engine's own chance_outcomes (here: always the lowest card) is what
    legal_actions and the bridge's coded outcomes list too."""
    class LowestCardOnly(TrickState):
        def chance_outcomes(self):
            return [(super().chance_outcomes()[0][0], 1.0)]

    rules.state_class = LowestCardOnly
    state = rules.new_initial_state()
    assert state.current_player() == CHANCE
    lowest = Action.decode(f"draw:{min(rules.card_ids)}")
    assert state.legal_actions() == [lowest]
    assert state.coded_chance_outcomes(str) == [(str(lowest), 1.0)]


def test_every_draw_is_a_uniform_chance_node_over_the_pile(rules):
    state = rules.new_initial_state()
    assert state.current_player() == CHANCE
    outcomes = state.chance_outcomes()
    assert [str(a) for a, _ in outcomes] == [f"draw:{c}" for c in sorted(set(rules.card_ids))]
    assert sum(p for _, p in outcomes) == pytest.approx(1)
    # the two eclipses are one outcome, twice as likely
    assert dict((str(a), p) for a, p in outcomes)["draw:eclipse-1"] == pytest.approx(1 / 12)


def test_a_seat_sees_its_own_hand_and_only_the_size_of_the_others(rules):
    state = dealt(rules)
    hand1 = sorted(state.hands[0])
    obs = state.observation(0)
    assert obs.private["zones"] == {"hand1": hand1}
    assert obs.public["zones"]["hand2"] == {"count": 3}
    assert obs.public["zones"]["stock"] == {"count": 3}
    other = state.observation(1)
    assert hand1[0] not in other.key()
    # the draws into hand1 read as draw:? to every other seat, in full to its owner
    assert obs.history[0] == str(state.history[0]) and other.history[0] == "draw:?"


def test_a_card_played_to_a_public_zone_is_seen_by_everyone(rules):
    state = dealt(rules)
    card = state.legal_actions()[0]
    state.apply(card)
    for seat in range(3):
        assert state.observation(seat).public["zones"]["trick"] == [card.arg]


def test_a_draw_into_a_public_zone_is_not_hidden():
    table = Table()
    table.pile("deck", ["a", "b"])
    table.add("shown", Visibility.PUBLIC)
    assert table["shown"].seen_by() is None
    assert table["deck"].seen_by() == ()


def test_a_clone_has_its_own_zones_turn_order_and_zone_references(rules):
    state = dealt(rules)
    twin = state.clone()
    twin.apply(twin.legal_actions()[0])
    assert len(state.hands[0]) == 3 and len(twin.hands[0]) == 2
    assert twin.hands[0] is twin.table["hand1"] and state.hands[0] is state.table["hand1"]
    assert state.turn.seat == 0 and twin.turn.seat == 1
    assert len(state.table["trick"]) == 0


def test_an_owner_zone_needs_an_owner_and_names_are_unique():
    table = Table()
    with pytest.raises(ValueError, match="needs an owner"):
        table.add("hand", Visibility.OWNER)
    table.add("pile", Visibility.PUBLIC)
    with pytest.raises(ValueError, match="already a zone 'pile'"):
        table.add("pile", Visibility.PUBLIC)


def test_moving_a_card_that_is_not_there_is_an_invariant_error():
    table = Table()
    table.add("a", Visibility.PUBLIC, cards=["x"])
    table.add("b", Visibility.PUBLIC)
    table.move("x", "a", "b")
    assert table.card_zones() == {"a": [], "b": ["x"]}
    with pytest.raises(api.InvariantError, match="x is not in zone 'a'"):
        table.move("x", "a", "b")


def test_turn_order_rotates_skips_and_reverses():
    turn = TurnOrder(4, first=2)
    assert turn.advance() == 3 and turn.advance() == 0
    assert turn.advance(2) == 2
    turn.reverse()
    assert turn.advance() == 1 and turn.peek() == 0 and turn.seat == 1
    assert turn.from_seat(3) == [3, 2, 1, 0]
    assert rotate([0, 1, 2, 3], 2) == [2, 3, 0, 1]
    with pytest.raises(ValueError):
        TurnOrder(3, first=3)


def test_phases_cycle_within_rounds_until_the_last_round_ends():
    cycle = PhaseCycle(["bid", "play", "score"], rounds=2)
    seen = [(cycle.round, cycle.phase)]
    while cycle.advance() is not None:
        seen.append((cycle.round, cycle.phase))
    assert seen == [(1, "bid"), (1, "play"), (1, "score"), (2, "bid"), (2, "play"), (2, "score")]
    assert cycle.over
    with pytest.raises(ValueError, match="already over"):
        cycle.advance()


def test_a_scoring_table_reads_a_card_field_and_says_which_card_lacks_it():
    game = load_game(str(GAME_FOLDER))
    table = ScoringTable.from_field(game, "power")
    assert table.score(["sun-5", "moon-1"]) == 11
    assert table.worst(2) == 18 and table.best(2) == 3
    with pytest.raises(ValueError, match=r"card sun-1 needs an integer 'suit' to be scored"):
        ScoringTable.from_field(game, "suit")
    assert winners([3, 5, 5]) == (1, 2) and winners([3, 5, 5], lowest_wins=True) == (0,)


def test_choose_n_lists_each_distinct_choice_once_sorted():
    choices = choose_n("discard", ["b", "a", "a", "c"], 2)
    assert [str(c) for c in choices] == ["discard:a:a", "discard:a:b", "discard:a:c", "discard:b:c"]
    assert choose_n("discard", ["a"], 2) == []
    assert all(type(c) is Action for c in choices)


def test_a_secret_move_reads_as_its_kind_to_the_seats_that_do_not_see_it(rules):
    class Secret(type(dealt(rules))):
        def play(self, action):
            self.secret([self.turn.seat])
            super().play(action)

    rules.state_class = Secret
    state = dealt(rules)
    move = state.legal_actions()[0]
    state.apply(move)
    assert state.observation(0).history[-1] == str(move)
    assert state.observation(1).history[-1] == "play:?"
