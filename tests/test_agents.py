"""The native IS-MCTS agent: policy names, determinizations consistent with the observation,
legal moves in every game, and a searched move that beats a blunder."""

from __future__ import annotations

import random

import pytest

from cardgen.engine import engine_module
from cardgen.engine.agents import PolicySpec, make_any_policy, parse_policy
from cardgen.engine.agents.ismcts import Determinizer, ISMCTSPolicy
from cardgen.engine.core import choose, resolve_chance
from cardgen.engine.harness import configurations
from cardgen.engine.simulate import play, simulate
from cardgen.errors import CardgenError
from cardgen.load import bundled_games_dir, load_game

from .conftest import BUNDLED


def _rules(game_id: str, players: int, variant: str | None = None):
    game = load_game(str(bundled_games_dir() / game_id))
    module = engine_module(game)
    return module, module.Rules(game, players, variant or module.Rules.default_variant(players, game))


def test_policy_names_are_read_in_one_place():
    module, _ = _rules("llll", 4)
    assert parse_policy(module, "ismcts") == PolicySpec("ismcts", 200, "random")
    assert parse_policy(module, "ismcts:50") == PolicySpec("ismcts", 50, "random")
    assert parse_policy(module, "ismcts:50:greedy") == PolicySpec("ismcts", 50, "greedy")
    assert parse_policy(module, "openspiel-ismcts:30").kind == "openspiel-ismcts"
    assert parse_policy(module, "greedy") == PolicySpec("greedy")
    for bad in ("ismcts:lots", "ismcts:0", "ismcts:5:nobody", "openspiel-mcts:5:greedy", "cleverest"):
        with pytest.raises(ValueError):
            parse_policy(module, bad)


def test_simulate_refuses_a_bad_agent_name_with_a_message():
    with pytest.raises(CardgenError, match="iteration count"):
        simulate("llll", games=1, players=4, policies=["ismcts:many"])


def _mid_game(game_id: str, players: int, variant: str, seed: int, steps: int):
    module, rules = _rules(game_id, players, variant)
    bot = make_any_policy(module, "random", rules)
    state = rules.new_initial_state(None)
    rng = random.Random(seed)
    for _ in range(steps):
        resolve_chance(state, rng)
        if state.is_terminal():
            break
        seat = state.current_player()
        state.apply_unchecked(choose(bot, state, seat, rng))
    resolve_chance(state, rng)
    return rules, state


@pytest.mark.parametrize("game_id", BUNDLED)
def test_determinizations_match_the_seat_observation(game_id):
    """A sample the determinizer calls consistent is one the seat cannot tell from the real
    state; most samples are (the agent counts the others in `inconsistent`)."""
    game = load_game(str(bundled_games_dir() / game_id))
    tried = consistent = 0
    for players, variant in configurations(game):
        for seed, steps in ((1, 6), (2, 25), (3, 15)):
            rules, state = _mid_game(game_id, players, variant, seed, steps)
            if state.is_terminal():
                continue
            seat = state.current_player()
            obs = state.observation(seat)
            sampled, ok = Determinizer(rules).sample(obs, random.Random(seed))
            sampled.check_invariants()
            tried += 1
            if ok:
                consistent += 1
                assert sampled.information_state_string(seat) == state.information_state_string(seat)
                assert sampled.legal_actions() == state.legal_actions()
    assert consistent >= tried * 2 / 3, (consistent, tried)


def _seat_draws(history) -> set:
    return {h.split(":", 1)[1] for h in history if h.startswith("draw:") and ":?" not in h}


def test_ohanatsumi_history_keeps_the_cards_everyone_saw():
    """Opened event cards go back under the deck at cleanup, but every player saw them: the
    public history keeps naming their draws, so a determinization can match past rounds. A
    card still face down in a row is never named, and a quest's front (not its back) shows."""
    module, rules = _rules("ohanatsumi", 4)
    bot = make_any_policy(module, "balanced", rules)
    state = rules.new_initial_state(None)
    rng = random.Random(7)
    cleanups = 0
    opened_before: set = set()
    while not state.is_terminal() and cleanups < 2:
        resolve_chance(state, rng)
        if state.is_terminal():
            break
        seat = state.current_player()
        view = state.public_view()
        history = state.observation(0).history
        named = _seat_draws(history)
        face_down = {c for p in range(4) for c in state.zones()[f"p{p}.row0"]} - {
            c for s in view["seats"] for row in s["opened"] for c in row}
        assert not named & face_down
        if view["round"] == 1 and view["offer"]:       # quests on offer: fronts shown, backs not
            assert sum(h.startswith("draw:?quest_") for h in history) >= len(view["offer"])
        opened_before = {c for s in view["seats"] for row in s["opened"] for c in row}
        round_before = view["round"]
        state.apply_unchecked(choose(bot, state, seat, rng))
        resolve_chance(state, rng)
        if not state.is_terminal() and state.public_view()["round"] > round_before:
            cleanups += 1
            assert opened_before and opened_before <= _seat_draws(state.observation(0).history)
    assert cleanups == 2


@pytest.mark.parametrize("game_id,players,bot", [("ohanatsumi", 4, "balanced"), ("requiem", 3, "greedy")])
def test_determinizations_match_late_in_the_game(game_id, players, bot):
    """Cards shown and then gone from the table (ohanatsumi's opened events after cleanup,
    requiem's arrivals once fought or retreated) stay named in the public history, so late in
    a game every sample still matches the seat's information state."""
    module, rules = _rules(game_id, players)
    policy = make_any_policy(module, bot, rules)
    determinizer = Determinizer(rules)
    samples = 0
    for seed in (1, 2):
        state = rules.new_initial_state(None)
        rng = random.Random(seed)
        decisions = 0
        while True:
            resolve_chance(state, rng)
            if state.is_terminal():
                break
            seat = state.current_player()
            decisions += 1
            if decisions > 20 and decisions % 3 == 0 and len(state.legal_actions()) > 1:
                sampled, ok = determinizer.sample(state.observation(seat), random.Random(samples))
                samples += 1
                assert ok and sampled.information_state_string(seat) == state.information_state_string(seat)
            state.apply_unchecked(choose(policy, state, seat, rng))
    assert samples >= 4


def test_ismcts_plays_its_rollout_bot_when_no_playout_is_rewarded():
    """In a co-operative game that every sampled playout loses, visit counts say nothing: the
    agent then plays its rollout bot's move, so three ismcts:5:first players play exactly the
    game three 'first' bots play (requiem is always lost by doing the first thing)."""
    module, rules = _rules("requiem", 3)
    agents = [make_any_policy(module, "ismcts:5:first", rules) for _ in range(3)]
    searched = play(rules, agents, 1)
    plain = play(rules, [make_any_policy(module, "first", rules) for _ in range(3)], 1)
    assert plain.result().success is False
    assert [str(a) for a in searched.history] == [str(a) for a in plain.history]
    assert all(agent.stats["fallbacks"] == agent.stats["moves"] > 0 for agent in agents)
