"""The random-simulation sweep (after OpenSpiel's random_sim_test), generic for every engine.

For every supported player count and variant it plays random games and checks after every
action: card conservation, a valid player to act, sorted non-empty unique legal actions
unless the game is over, termination within `Rules.max_actions`, and at the end scores within
`Rules.score_range()` and winners that are seats. One game per count is then replayed from
its seed and choices, which must give the same result (seeded determinism).
"""

from __future__ import annotations

import random
import traceback
from typing import Any

from ..model import CheckResult, Game
from ..registry import game_engine
from .bots import RandomPolicy
from .core import CHANCE, TERMINAL, InvariantError, Rules, State, apply_moves, sample_chance
from .simulate import game_seed, policy_seed


class SweepFailure(AssertionError):
    pass


def random_game(rules: Rules, seed: int, check: bool = True, deep: bool = False):
    """Play one random game from `seed` (chance from `seed`, choices from `policy_seed(seed)`),
    checking every invariant after every move when `check`; `deep` also checks at every node
    that clone() gives an equal independent state and that observations are consistent."""
    state = rules.new_initial_state()
    chance_rng = random.Random(seed)
    rng = random.Random(policy_seed(seed))
    bot = RandomPolicy(rules)
    players = rules.players
    low, high = rules.score_range()
    steps = 0
    legal: list | None = None
    while True:
        if check:
            legal = _check_state(state, players, steps)
            if deep:
                _check_deep(state, players)
        seat = state.current_player()
        if seat == TERMINAL:
            break
        if seat == CHANCE:
            action = sample_chance(state, chance_rng)
        else:
            action = bot.choose(None, legal if legal is not None else state.legal_actions(), rng)
        # checked against the legal actions _check_state read, which is all that apply() checks
        # more than apply_unchecked (reading them again costs a third of a checked game)
        if legal is not None and action not in legal:
            raise SweepFailure(f"the move {action!r} is not among the legal actions {legal[:6]}")
        state.apply_unchecked(action)
        steps += 1
        if steps > rules.max_actions:
            raise SweepFailure(f"no end after {rules.max_actions} actions (Rules.max_actions)")
    result = state.result()
    if len(result.scores) != players:
        raise SweepFailure(f"result has {len(result.scores)} scores for {players} players")
    bad = [s for s in result.scores if not low <= s <= high]
    if bad:
        raise SweepFailure(f"scores {list(result.scores)} outside score_range() {low}..{high}")
    if any(not 0 <= w < players for w in result.winners):
        raise SweepFailure(f"winners {list(result.winners)} are not seats 0..{players - 1}")
    if rules.cooperative and result.success is None:
        raise SweepFailure("a co-operative game ended without saying whether the players succeeded")
    if result.length != len(state.history):
        raise SweepFailure(f"result length {result.length} differs from the {len(state.history)} moves in the history")
    returns = state.returns()
    if len(returns) != players:
        raise SweepFailure(f"returns() has {len(returns)} values for {players} players")
    return state, result


def _check_state(state, players: int, steps: int) -> list:
    """Check one state and return its legal actions."""
    state.check_invariants()
    seat = state.current_player()
    # At a chance node the base State's legal_actions() is the outcomes' actions: read them once
    # (a game that overrides legal_actions() has both read and compared).
    outcomes = state.chance_outcomes() if seat == CHANCE else None
    derived = outcomes is not None and type(state).legal_actions is State.legal_actions
    legal = [a for a, _ in outcomes] if derived else state.legal_actions()
    if seat == TERMINAL:
        if legal:
            raise SweepFailure("terminal state with legal actions")
        return legal
    if outcomes is not None:
        if not derived and legal != [a for a, _ in outcomes]:
            raise SweepFailure("legal_actions() at a chance node differs from chance_outcomes()")
        if not outcomes:
            raise SweepFailure("a chance node without outcomes")
        total = sum(p for _, p in outcomes)
        if abs(total - 1.0) > 1e-9:
            raise SweepFailure(f"chance probabilities sum to {total}, not 1")
        if any(p <= 0 for _, p in outcomes):
            raise SweepFailure("a chance outcome with probability 0 or less")
    elif not 0 <= seat < players:
        raise SweepFailure(f"current_player() is {seat}, not a seat 0..{players - 1}, CHANCE or TERMINAL")
    if not legal:
        raise SweepFailure(f"no legal action for seat {seat} in a state that is not over")
    if len(set(legal)) != len(legal):
        raise SweepFailure("legal_actions() repeats an action")
    if legal != sorted(legal):
        raise SweepFailure("legal_actions() is not sorted")
    rules = state.rules
    for action in legal[:4]:
        if rules.decode_action(str(action)) != action:
            raise SweepFailure(f"the action {action!r} does not survive its string code {str(action)!r}")
    return legal


def _check_deep(state, players: int) -> None:
    """clone() equal and independent; observations consistent with the clone."""
    twin = state.clone()
    if twin.legal_actions() != state.legal_actions() or twin.current_player() != state.current_player():
        raise SweepFailure("clone() differs from the state (legal actions or player to act)")
    zones = {k: list(v) for k, v in state.zones().items()}
    if {k: list(v) for k, v in twin.zones().items()} != zones:
        raise SweepFailure("clone() has different zones")
    for seat in range(players):
        if twin.information_state_string(seat) != state.information_state_string(seat):
            raise SweepFailure(f"clone() gives seat {seat} a different information state")
    if twin.legal_actions():
        twin.apply(twin.legal_actions()[-1])
        if {k: list(v) for k, v in state.zones().items()} != zones or len(twin.history) == len(state.history):
            raise SweepFailure("applying a move to a clone changed the original")
    seat = state.current_player()
    if seat >= 0:
        obs = state.observation(seat)
        if obs.seat != seat or obs.to_act != seat + 1:
            raise SweepFailure(f"observation of seat {seat} says seat {obs.seat}, to act {obs.to_act}")
        if len(obs.history) != len(state.history):
            raise SweepFailure("the observed history is not as long as the history")


def configurations(game: Game) -> list[tuple[int, str]]:
    """Every (player count, variant) the game's engine can play."""
    rules_class = game_engine(game)
    if rules_class is None:
        return []
    return [(players, variant) for players in game.player_counts for variant in rules_class.variants
            if rules_class.supports(players, variant, game)]


def random_sim_sweep(game: Game, games_per_count: int = 30, seed: int = 0) -> list[CheckResult]:
    """Random games for every player count and variant; one CheckResult for each."""
    rules_class = game_engine(game)
    out = []
    for players, variant in configurations(game):
        label = f"random-sim-{players}p" + ("" if variant == "standard" else f"-{variant}")
        try:
            rules = rules_class(game, players, variant)
        except ValueError as exc:
            out.append(CheckResult(label, False, f"{players} players, {variant}: cannot set up: {exc}"))
            continue
        out.append(_sweep_one(rules, label, games_per_count, seed))
    return out


def _sweep_one(rules: Rules, label: str, games: int, seed: int) -> CheckResult:
    lengths = []
    for index in range(games):
        gseed = game_seed(seed, index)
        try:
            state, result = random_game(rules, gseed)
        except (SweepFailure, InvariantError) as exc:
            return CheckResult(label, False, f"game {index} (seed {gseed}): {exc}")
        except Exception as exc:  # a crash in the rules is a failed check, not a crash of `check`
            where = traceback.extract_tb(exc.__traceback__)[-1]
            return CheckResult(label, False, f"game {index} (seed {gseed}): {type(exc).__name__}: {exc} "
                                             f"at {where.filename.rsplit('/', 1)[-1]}:{where.lineno}")
        lengths.append(result.length)
        if index == 0:
            problem = _replay_same(rules, gseed, state.history, result)
            if problem:
                return CheckResult(label, False, f"game {index} (seed {gseed}): {problem}")
    players = f"{rules.players} player" + ("" if rules.players == 1 else "s")
    return CheckResult(label, True, f"{games} random games, {players}: invariants hold after every action; "
                                    f"{min(lengths)}–{max(lengths)} actions (bound {rules.max_actions}); scores in "
                                    f"{rules.score_range()[0]}..{rules.score_range()[1]}; seeded replay identical")


def _replay_same(rules: Rules, seed: int, actions: list[Any], result) -> str | None:
    state = rules.new_initial_state()
    apply_moves(state, [str(a) for a in actions])
    if not state.is_terminal():
        return "replaying the same seed and choices does not end the game"
    again = state.result()
    if (again.scores, again.winners, again.success, again.ending) != (result.scores, result.winners, result.success, result.ending):
        return f"replaying the same seed and choices gives {again}, not {result}"
    return None


def simulation_checks(game: Game) -> list[CheckResult]:
    """The hook `cardgen check` calls for any game whose engine defines Rules."""
    return random_sim_sweep(game)
