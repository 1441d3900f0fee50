"""The engine core and the generic random-simulation harness."""

from __future__ import annotations

import pickle
import random
from collections import Counter

import pytest

from cardgen.checks import check_game
from cardgen.engine import llll
from cardgen.engine.bots import FirstPolicy, RandomPolicy, make_policy
from cardgen.engine.core import CHANCE, GameResult, IllegalAction, check_deck_order, choose, play, resolve_chance
from cardgen.engine.harness import _sweep_one, random_game
from cardgen.engine.simulate import game_seed, percentile, wilson
from cardgen.load import load_game


@pytest.fixture(scope="module")
def game():
    return load_game("llll")


def test_game_result_draw_and_cooperative_success():
    assert GameResult((3, 3, 1), (0, 1), 10).draw
    assert not GameResult((3, 2, 1), (0,), 10).draw
    coop = GameResult((5, 5, 5), (0, 1, 2), 10, success=True, ending="happy")
    assert not coop.draw
    assert coop.as_dict()["success"] is True and coop.as_dict()["winners"] == [0, 1, 2]


def test_check_deck_order(game):
    ids = [c.id for c in game.cards]
    assert check_deck_order(game, ids[::-1]) == ids[::-1]
    with pytest.raises(ValueError, match="missing"):
        check_deck_order(game, ids[1:])
    with pytest.raises(ValueError, match="duplicated"):
        check_deck_order(game, ids + ids[:1])


def test_apply_refuses_illegal_actions_and_actions_after_the_end(game):
    rules = llll.Rules(game, 3)
    state = resolve_chance(rules.new_initial_state(), random.Random(0))
    with pytest.raises(IllegalAction, match="not legal for seat 1"):
        state.apply(("bid", 3))
    with pytest.raises(IllegalAction, match="not legal for chance"):
        rules.new_initial_state().apply("pass")
    state, _ = random_game(rules, 1)
    with pytest.raises(IllegalAction, match="after the end"):
        state.apply(("pass",))


def test_policies(game):
    rules = llll.Rules(game, 3)
    state = resolve_chance(rules.new_initial_state(), random.Random(0))
    rng = random.Random(1)
    legal = state.legal_actions()
    assert RandomPolicy(rules).choose(None, legal, rng) in legal
    assert FirstPolicy(rules).choose(None, legal, rng) == legal[0]
    assert choose(make_policy(llll.Rules, "greedy", rules), state, 0, rng) in legal
    assert make_policy(llll.Rules, "greedy", rules).name == "greedy"
    with pytest.raises(KeyError, match="no policy 'clever'"):
        make_policy(llll.Rules, "clever", rules)


def test_policies_do_not_touch_the_game_rng(game):
    rules = llll.Rules(game, 3)
    # Chance comes from its own source: the same seed gives the same deal whatever the policies do.
    deals = []
    for name in ("random", "greedy"):
        chance = random.Random(0)
        state = play(rules.new_initial_state(), [make_policy(llll.Rules, name, rules)] * 3, chance, random.Random(3))
        deals.append([str(a) for a in state.history if a.kind == "draw"][:11])
    assert deals[0] == deals[1]


def test_summary_is_plain_data(game):
    import json
    state, _ = random_game(llll.Rules(game, 4), 3)
    json.dumps(state.summary())


# --- the harness --------------------------------------------------------------------------

class LosesACard(llll.Rules):
    def new_initial_state(self, deck_order=None):
        state = super().new_initial_state(deck_order)
        state.deck.remove(state.deck.cards()[0])
        return state


class NeverEnds(llll.Rules):
    max_actions = 20


class NarrowScores(llll.Rules):
    def score_range(self):
        return (0, 1)


class Crashes(llll.Rules):
    def new_initial_state(self, deck_order=None):
        state = super().new_initial_state(deck_order)

        def broken(action):
            raise ZeroDivisionError("boom")
        state._apply = broken
        return state


class _DrawsAnUnlistedCard(llll.State):
    def chance_outcomes(self):                   # leaves out a draw that chance_at() still makes
        outcomes = super().chance_outcomes()
        if len(outcomes) < 2:
            return outcomes
        rest = 1 - outcomes[0][1]
        return [(a, p / rest) for a, p in outcomes[1:]]


class DrawsAnUnlistedCard(llll.Rules):
    def new_initial_state(self, deck_order=None):
        state = super().new_initial_state(deck_order)
        state.__class__ = _DrawsAnUnlistedCard
        return state


class _ListsOtherChanceMoves(llll.State):
    def legal_actions(self):                     # disagrees with chance_outcomes() at chance nodes
        legal = super().legal_actions()
        return legal[1:] if self.current_player() == CHANCE and len(legal) > 1 else legal


class ListsOtherChanceMoves(llll.Rules):
    def new_initial_state(self, deck_order=None):
        state = super().new_initial_state(deck_order)
        state.__class__ = _ListsOtherChanceMoves
        return state


@pytest.mark.parametrize("cls, message", [
    (LosesACard, "card conservation broken"),
    (NeverEnds, "no end after 20 actions"),
    (NarrowScores, "outside score_range"),
    (Crashes, "ZeroDivisionError: boom"),
    (DrawsAnUnlistedCard, "is not among the legal actions"),
    (ListsOtherChanceMoves, "legal_actions() at a chance node differs from chance_outcomes()"),
])
def test_harness_catches_broken_rules(game, cls, message):
    result = _sweep_one(cls(game, 3), "random-sim-3p", 5, 0)
    assert not result.ok and message in result.message and "seed" in result.message


def test_check_game_runs_the_sweep_for_engines(game):
    report = check_game(game)
    ids = [r.id for r in report.results]
    assert "random-sim-3p" in ids and "random-sim-4p" in ids and report.ok
    assert not [r for r in check_game(game, simulate=False).results if r.id.startswith("random-sim")]


# --- statistics helpers -------------------------------------------------------------------

def test_wilson_interval():
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    assert wilson(0, 0) == (0.0, 1.0)


def test_percentile_nearest_rank():
    values = list(range(1, 11))
    assert percentile(values, 50) == 5 and percentile(values, 90) == 9 and percentile(values, 100) == 10
    assert percentile([7], 10) == 7


def test_game_seeds_are_stable_and_distinct():
    assert game_seed(1, 0) == game_seed(1, 0)
    assert len({game_seed(s, i) for s in range(3) for i in range(100)}) == 300


def test_results_count_the_players_decisions_apart_from_every_move(game):
    """GameResult.length counts every move (chance and automatic too); decisions only the
    players' own choices, which is what simulate reports as a game's length."""
    from cardgen.engine.core import count_decisions, is_automatic
    state, result = random_game(llll.Rules(game, 3), 5)
    chance = sum(1 for a in state.history if a.kind == "draw")
    automatic = sum(1 for a in state.history if is_automatic(a))
    assert result.length == len(state.history)
    assert result.decisions == count_decisions(state.history) == result.length - chance - automatic
    assert chance == 32 and automatic > 0 and result.as_dict()["decisions"] == result.decisions


@pytest.mark.parametrize("kept", [False, True], ids=["own", "kept"])
def test_a_decks_chance_outcomes_are_kept_across_every_change(kept):
    """Deck.outcomes (the next draw's cards with their probabilities, kept incrementally, also
    for an unordered layer under known cards) always equals a fresh count of the top layer,
    sorted by the draw actions (here in the reverse of the cards' order), and so do the coded
    outcomes the bridge asks for (sorted by code), whatever happens to the deck; also when the
    tables are kept across decks (`kept`: as the rules keep them, for decks that start alike)
    and their outcome lists are reused."""
    from cardgen.engine.core import Deck

    def act(card):
        return "draw:" + chr(255 - ord(card))

    def code(action):              # an id in the other order (the bridge's ids need not follow the actions')
        return ord(action[-1]) % 7 * 1000 + ord(action[-1])

    rng = random.Random(5)
    tables = {} if kept else None
    starts = [[rng.choice("abcdefgh") for _ in range(rng.randint(1, 30))] for _ in range(6)] + [list("abcdefgh")]
    for trial in range(200):
        deck = Deck(rng.choice(starts) if kept else [rng.choice("abcdefgh") for _ in range(rng.randint(1, 30))])
        for _ in range(40):
            if not deck:
                break
            ordered, top = deck.layers[0]
            counts = {top[-1]: 1} if ordered else Counter(top)
            total = sum(counts.values())
            expected = sorted((act(card), k / total) for card, k in counts.items())
            assert deck.outcomes(act, tables) == expected
            assert deck.outcome_actions(act, tables) == [a for a, _ in expected]
            assert deck.coded_outcomes(act, code, tables) == sorted((code(a), p) for a, p in expected)
            op = rng.random()
            if op < 0.55:
                deck.take(deck.candidate(int(rng.random() * deck.choices())))
            elif op < 0.65:
                deck.remove(rng.choice(deck.cards()))
            elif op < 0.7:
                card = rng.choice(deck.cards())
                deck.replace(card, rng.choice("abcxyz"))
            elif op < 0.8:
                deck.put_on_top([rng.choice("xyz") for _ in range(rng.randint(1, 3))])
            elif op < 0.9:
                deck.put_under([rng.choice("xyz") for _ in range(rng.randint(1, 3))], ordered=rng.random() < 0.5)
            else:
                deck.shuffle_in([rng.choice("xyz")])
            if rng.random() < 0.2:
                deck = deck.copy()
            elif rng.random() < 0.05:
                deck = pickle.loads(pickle.dumps(deck))
    if kept:
        # decks that start alike, every card once, list the same pairs, not new ones per draw,
        # once the deck is kept (met twice) and the list was met twice by kept copies
        lists = [Deck(list("abcdefgh")).outcomes(act, tables) for _ in range(4)]
        assert lists[0] == lists[1] == lists[2] == lists[3]
        assert all(a is b for a, b in zip(lists[2], lists[3]))
        # a pickled deck leaves those lists behind (they are a cache)
        deck = Deck(list("abcdefgh"))
        deck.outcomes(act, tables)
        assert deck._table.rows and pickle.loads(pickle.dumps(deck))._table.rows == {}


@pytest.mark.parametrize("game_id,players", [("llll", 3), ("alice", 2), ("requiem", 3), ("ohanatsumi", 3)])
def test_chance_outcomes_from_the_deck_match_the_equally_likely_draws(game_id, players):
    """An engine's chance_outcomes (from its Deck's kept counts) are exactly the outcomes of
    its equally likely draws (chance_size/chance_at), counted."""
    from cardgen.engine import game_engine
    from cardgen.engine.core import CHANCE, TERMINAL
    from cardgen.load import load_game

    loaded = load_game(game_id)
    rules = game_engine(loaded)(loaded, players)
    rng = random.Random(3)
    checked = 0
    for _ in range(3):
        state = rules.new_initial_state()
        while state.current_player() != TERMINAL:
            if state.current_player() == CHANCE:
                n = state.chance_size()
                if n:
                    counts = Counter(state.chance_at(i) for i in range(n))
                    assert state.chance_outcomes() == [(a, k / n) for a, k in sorted(counts.items())]
                    checked += 1
            legal = state.legal_actions()
            state.apply_unchecked(legal[int(rng.random() * len(legal))])
    assert checked > 10
    # the rules keep the decks' tables for the next game, but do not pickle them
    assert rules.outcome_tables
    assert "outcome_tables" not in vars(pickle.loads(pickle.dumps(rules)))
