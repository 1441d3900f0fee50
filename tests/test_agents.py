"""The native IS-MCTS agent: policy names, determinizations consistent with the observation,
legal moves in every game, and a searched move that beats a blunder. The rollout agent: legal
moves, its bot's move kept unless another is measurably better, and the paired comparison of
two runs (benchmarks/bench_agents.py paired)."""

from __future__ import annotations

import random

import pytest

from cardgen.engine import game_engine
from cardgen.engine.agents import PolicySpec, make_any_policy, parse_policy
from cardgen.engine.agents.ismcts import Determinizer, ISMCTSPolicy
from cardgen.engine.agents.rollout import RolloutPolicy
from cardgen.engine.core import choose, resolve_chance
from cardgen.engine.harness import configurations
from cardgen.engine.simulate import play, simulate
from cardgen.errors import CardgenError
from cardgen.load import bundled_games_dir, load_game

from .conftest import BUNDLED


def _rules(game_id: str, players: int, variant: str | None = None):
    game = load_game(str(bundled_games_dir() / game_id))
    engine = game_engine(game)
    return engine, engine(game, players, variant or engine.default_variant(players, game))


def test_policy_names_are_read_in_one_place():
    module, _ = _rules("llll", 4)
    assert parse_policy(module, "ismcts") == PolicySpec("ismcts", 200, "random")
    assert parse_policy(module, "ismcts:50") == PolicySpec("ismcts", 50, "random")
    assert parse_policy(module, "ismcts:50:greedy") == PolicySpec("ismcts", 50, "greedy")
    assert parse_policy(module, "openspiel-ismcts:30").kind == "openspiel-ismcts"
    assert parse_policy(module, "greedy") == PolicySpec("greedy")
    assert parse_policy(module, "rollout") == PolicySpec("rollout", 64, "random")
    assert parse_policy(module, "rollout:16:greedy") == PolicySpec("rollout", 16, "greedy")
    assert parse_policy(module, "ismcts-keep:30:greedy") == PolicySpec("ismcts-keep", 30, "greedy")
    for bad in ("ismcts:lots", "ismcts:0", "ismcts:5:nobody", "openspiel-mcts:5:greedy", "cleverest",
                "rollout:5:nobody", "rollout:0", "ismcts-keep", "ismcts-keep:30"):
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


@pytest.mark.parametrize("game_id,players,bot", [("ohanatsumi", 4, "balanced"), ("requiem", 3, "greedy"),
                                                 ("alice", 2, "random")])
def test_determinizations_match_late_in_the_game(game_id, players, bot):
    """Cards shown and then gone from the table (ohanatsumi's opened events after cleanup,
    requiem's arrivals once fought or retreated) stay named in the public history, and hidden
    moves are chosen so that the moves seen after them can follow (alice's peeked cards, put
    back in a secret order and drawn later), so late in a game every sample still matches the
    seat's information state."""
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


def test_ismcts_keep_plays_its_bot_move_unless_the_search_measures_a_better_one():
    """ismcts-keep's move is its bot's, unless the search's most visited move has a mean return
    more than one standard error (of the difference) above the bot's move's."""
    from cardgen.engine.agents.ismcts import _Node

    module, rules = _rules("alice", 1)

    class Fixed:  # a bot that always plays `move`
        needs_observation = False

        def __init__(self, move):
            self.move = move

        def choose(self, observation, legal, rng):
            return self.move

    def root(results: dict) -> _Node:
        node = _Node(0)
        for action, returns in results.items():
            child = node.children[action] = _Node(0)
            child.visits, child.total, child.squares = len(returns), sum(returns), sum(r * r for r in returns)
        return node

    agent = ISMCTSPolicy(rules, 40, rollout=Fixed("a"), keep_bot=True)
    rng = random.Random(0)
    clear = root({"a": [0.0] * 15 + [1.0] * 5, "b": [1.0] * 18 + [0.0] * 2})  # 25 % against 90 %
    assert agent._kept(clear, "b", None, ["a", "b"], rng) == "b"
    close = root({"a": [0.0] * 10 + [1.0] * 10, "b": [1.0] * 12 + [0.0] * 8})  # 50 % against 60 %: noise
    assert agent._kept(close, "b", None, ["a", "b"], rng) == "a"
    assert agent.stats["changed"] == 1
    # it plays whole games, every move legal, and only ever where the search is run
    keep = make_any_policy(module, "ismcts-keep:20:heuristic", rules)
    assert isinstance(keep, ISMCTSPolicy) and keep.keep_bot
    assert play(rules, [keep], 2).is_terminal() and keep.stats["moves"] > 0


# --- the rollout agent ------------------------------------------------------------------------

@pytest.mark.parametrize("game_id,players,name", [("alice", 1, "rollout:6:heuristic"), ("alice", 2, "rollout:3:heuristic"),
                                                  ("requiem", 3, "rollout:2:greedy"), ("alice", 1, "rollout:4")])
def test_rollout_agent_plays_whole_games(game_id, players, name):
    """Every move legal (play() checks), in a solitaire and in games with hidden cards."""
    module, rules = _rules(game_id, players)
    agents = [make_any_policy(module, name, rules) for _ in range(players)]
    state = play(rules, agents, 3)
    assert state.is_terminal()
    assert all(isinstance(agent, RolloutPolicy) and agent.stats["moves"] > 0 for agent in agents)
    assert all(agent.stats["rollouts"] >= agent.stats["samples"] for agent in agents)


def test_rollout_agent_keeps_its_bot_move_when_no_action_differs():
    """requiem is always lost by doing the first thing: every rollout returns 0, so no action
    beats the bot and rollout:8:first plays exactly the game three 'first' bots play."""
    module, rules = _rules("requiem", 3)
    agents = [make_any_policy(module, "rollout:8:first", rules) for _ in range(3)]
    searched = play(rules, agents, 1)
    plain = play(rules, [make_any_policy(module, "first", rules) for _ in range(3)], 1)
    assert [str(a) for a in searched.history] == [str(a) for a in plain.history]
    assert all(agent.stats["changed"] == 0 for agent in agents)


def test_rollout_agent_changes_the_bot_move_only_on_paired_evidence():
    """The best other action replaces the bot's move only when it wins, on the same sampled
    futures, clearly more often than it loses (a sign test at Z standard errors)."""
    _, rules = _rules("alice", 1)
    agent = RolloutPolicy(rules, 20)
    bot, other, third = "record", "memo", "pass"
    clear = {bot: [0.0] * 10 + [1.0] * 10, other: [1.0] * 18 + [0.0] * 2, third: [0.0] * 20}
    assert agent._pick(clear, bot, [other, third]) == other          # 10 wins, 2 losses against the bot
    close = {bot: [1.0] * 4 + [0.0] * 16, other: [0.0] * 4 + [1.0] * 6 + [0.0] * 10, third: [0.0] * 20}
    assert agent._pick(close, bot, [other, third]) == bot            # 6 wins, 4 losses: 2 < sqrt(10)
    assert RolloutPolicy(rules, 20)._pick({bot: [0.0, 1.0], other: [1.0, 1.0]}, None, [bot, other]) == other


def _bench_agents():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_agents.py"
    spec = importlib.util.spec_from_file_location("bench_agents", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_paired_comparison_of_two_solo_runs():
    """Game i of two runs compared: Newcombe's interval for the difference of paired rates
    (Altman et al. 2000, table 6.2: 14 both, 5 only the first, 22 neither: 0.122, 0.011 to
    0.226) and McNemar's exact test on the 5 discordant games (p = 2 / 32)."""
    paired = _bench_agents().paired

    def rows(wins):
        return [[i, ["x"], [0], [], 1, bool(w), "solved" if w else "three-alices", False, {}] for i, w in enumerate(wins)]
    first = [1] * 19 + [0] * 22
    second = [1] * 14 + [0] * 27
    out = paired(rows(first), rows(second))
    assert (out["games"], out["both"], out["only_a"], out["only_b"], out["neither"]) == (41, 14, 5, 0, 22)
    assert out["difference"] == pytest.approx(5 / 41)
    assert out["difference95"] == pytest.approx([0.0115, 0.2265], abs=5e-4)
    assert out["mcnemar_exact_p"] == pytest.approx(0.0625)
    back = paired(rows(second), rows(first))
    assert back["difference95"] == pytest.approx([-0.2265, -0.0115], abs=5e-4)
    same = paired(rows(first), rows(first))
    assert same["difference"] == 0 and same["difference95"][0] < 0 < same["difference95"][1]
    assert same["mcnemar_exact_p"] == 1.0
    assert paired(rows(first), rows(second[:10]))["games"] == 10      # only the games both ran
