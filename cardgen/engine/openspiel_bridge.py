"""The OpenSpiel bridge: every cardgen engine as a pyspiel Python game (needs the `[agents]` extra).

    import pyspiel
    from cardgen.engine import openspiel_bridge
    openspiel_bridge.register_all()             # every installed engine with a bundled game
    openspiel_bridge.register("mygame", load_game("path/to/mygame"))   # a plugin's, with its game
    game = pyspiel.load_game("cardgen_mygame", {"players": 4})
    pyspiel.random_sim_test(game, num_sims=10, serialize=False, verbose=False)

Each engine is registered as ``cardgen_<engine>`` with parameters ``players`` (default: the
game's minimum) and ``variant`` (default: the usual one for that count). The game is read from
the bundled card data (`card_data/<id>`) unless `register(engine, game)` is given a loaded
`Game` (any installed engine's); `load_bridge_game(rules)` wraps any `Rules`.

OpenSpiel wants integer actions in a fixed range. The bridge numbers the engine's typed
actions and chance outcomes as it meets them (a code book shared by every state of one game
object), so ids are stable within a game object and `legal_actions()` is sorted by id; the
range (`ACTION_CAPACITY`) is far above the distinct actions any bundled game has. Chance is
OpenSpiel's explicit-stochastic chance: the engine's chance nodes and their `chance_outcomes`.
Information-state strings are the engine's, so OpenSpiel's IS-MCTS groups exactly the states
a seat cannot tell apart; its determinizations come from the native agent's `Determinizer`
(`resample_from_infostate`), which rebuilds a state from the seat's observation alone.

`openspiel_policy(rules, "openspiel-ismcts" | "openspiel-mcts", iterations)` is a cardgen
policy that runs OpenSpiel's Python IS-MCTS (or MCTS, which searches the true state: it
cheats, and is there for comparison only) with random rollouts.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
import pyspiel

from . import engine_by_name, installed_engines
from .core import CHANCE, TERMINAL, Rules
from .core import State as EngineState

ACTION_CAPACITY = 4096


class CodeBook:
    """Engine actions <-> integer ids, assigned in the order they are first met."""

    def __init__(self) -> None:
        self.ids: dict[Any, int] = {}
        self.actions: list[Any] = []

    def id(self, action: Any) -> int:
        got = self.ids.get(action)
        if got is None:
            got = len(self.actions)
            if got >= ACTION_CAPACITY:
                raise pyspiel.SpielError(f"more than {ACTION_CAPACITY} distinct actions")
            self.ids[action] = got
            self.actions.append(action)
        return got

    def action(self, code: int) -> Any:
        return self.actions[code]


class _Observer:
    """Information-state (and observation) strings: the engine's own; no tensors."""

    def __init__(self, iig_obs_type=None, params=None) -> None:
        self.tensor = np.zeros(0, np.float32)
        self.dict: dict = {}

    def set_from(self, state: "BridgeState", player: int) -> None:
        return None

    def string_from(self, state: "BridgeState", player: int) -> str:
        return state.engine.information_state_string(player)


def _game_type(engine: str, game: Any, cooperative: bool) -> "pyspiel.GameType":
    return pyspiel.GameType(
        short_name=f"cardgen_{engine}", long_name=f"cardgen {game.id}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        # general-sum: one registration serves every variant, and a game's versus variant may be
        # competitive while its solo variant is not
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players, min_num_players=game.min_players,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=False,
        parameter_specification={"players": game.min_players, "variant": ""})


def _make_game_class(engine: str, game: Any, rules_class: Any):
    game_type = _game_type(engine, game, rules_class.cooperative)

    class BridgeGame(pyspiel.Game):
        def __init__(self, params=None):
            params = dict(params or {})
            players = int(params.get("players", game.min_players))
            variant = str(params.get("variant", "") or rules_class.default_variant(players, game))
            try:
                rules = rules_class(game, players, variant)
            except ValueError as exc:
                raise pyspiel.SpielError(str(exc)) from None
            info = pyspiel.GameInfo(
                num_distinct_actions=ACTION_CAPACITY, max_chance_outcomes=ACTION_CAPACITY, num_players=players,
                min_utility=0.0, max_utility=1.0, utility_sum=None, max_game_length=rules_class.max_actions)
            super().__init__(game_type, info, {"players": players, "variant": variant})
            # The rules and code book live in a module table keyed by the parameters, so every
            # Python wrapper of this game (pybind11 may hand back one without our attributes)
            # and every state share them.
            self.ctx = _context((engine, players, variant), rules)

        def new_initial_state(self):
            ctx = _context_of(self, engine)
            return BridgeState(self, ctx, ctx.rules.new_initial_state(None))

        def make_py_observer(self, iig_obs_type=None, params=None):
            return _Observer(iig_obs_type, params)

    BridgeGame.__name__ = f"CardgenGame_{engine}"
    return game_type, BridgeGame


class _Context:
    """What every state of one bridge game shares: the rules, the code book, the determinizer."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.codes = CodeBook()
        self.determinizer = None
        self.rng = random.Random(0)


    def __deepcopy__(self, memo):      # shared by every copy of a state
        return self


class _Box:
    """Holds the engine state: OpenSpiel clones a Python state by deep-copying its attributes,
    and this makes that copy the engine's own cheap `clone()`."""

    __slots__ = ("state",)

    def __init__(self, state: EngineState) -> None:
        self.state = state

    def __deepcopy__(self, memo):
        return _Box(self.state.clone())


_CONTEXTS: dict[tuple, _Context] = {}


def _context(key: tuple, rules: Rules) -> _Context:
    ctx = _CONTEXTS.get(key)
    if ctx is None:
        ctx = _CONTEXTS[key] = _Context(rules)
    return ctx


def _context_of(game: Any, engine: str) -> _Context:
    ctx = getattr(game, "ctx", None)
    if ctx is None:
        params = game.get_parameters()
        ctx = _CONTEXTS[(engine, int(params["players"]), str(params["variant"]))]
    return ctx


class BridgeState(pyspiel.State):
    """An engine state seen through OpenSpiel's State API."""

    def __init__(self, bridge_game, ctx: _Context, engine_state: EngineState) -> None:
        super().__init__(bridge_game)
        self.bridge = ctx
        self.box = _Box(engine_state)

    @property
    def engine(self) -> EngineState:
        return self.box.state

    def current_player(self) -> int:
        player = self.engine.current_player()
        if player == CHANCE:
            return pyspiel.PlayerId.CHANCE
        if player == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        return player

    def _legal_actions(self, player: int) -> list[int]:
        code = self.bridge.codes.id
        return sorted(code(a) for a in self.engine.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        code = self.bridge.codes.id
        return sorted((code(a), p) for a, p in self.engine.chance_outcomes())

    def _apply_action(self, action: int) -> None:
        self.engine.apply_unchecked(self.bridge.codes.action(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return str(self.bridge.codes.action(action))

    def is_terminal(self) -> bool:
        return self.engine.current_player() == TERMINAL

    def returns(self) -> list[float]:
        return list(self.engine.returns())

    def __str__(self) -> str:
        return " ".join(str(a) for a in self.engine.history)

    def __deepcopy__(self, memo):
        return BridgeState(self.get_game(), self.bridge, self.engine.clone())

    def clone(self):
        return BridgeState(self.get_game(), self.bridge, self.engine.clone())

    def resample_from_infostate(self, player_id: int, probability_sampler=None):
        """A state `player_id` cannot tell from this one (the native agent's determinizer)."""
        ctx = self.bridge
        if ctx.determinizer is None:
            from .agents.ismcts import Determinizer

            ctx.determinizer = Determinizer(ctx.rules)
        state, _ok = ctx.determinizer.sample(self.engine.observation(player_id), ctx.rng)
        return BridgeState(self.get_game(), ctx, state)


_REGISTERED: dict[str, Any] = {}


def register(engine: str, game: Any = None) -> str:
    """Register `cardgen_<engine>` with pyspiel for `game` (a loaded Game whose `engine:` is
    `engine`; by default the bundled game folder of that name)."""
    if engine in _REGISTERED:
        return f"cardgen_{engine}"
    if game is None:
        from ..load import bundled_games_dir, load_game

        game = load_game(str(bundled_games_dir() / engine))
    game_type, game_class = _make_game_class(engine, game, engine_by_name(engine))
    pyspiel.register_game(game_type, game_class)
    _REGISTERED[engine] = game_class
    return game_type.short_name


def register_all() -> list[str]:
    """Register every installed engine that has a bundled game folder of its name (register a
    plugin's engine with its game: `register("mygame", load_game("path/to/mygame"))`)."""
    from ..load import bundled_game_ids

    bundled = set(bundled_game_ids())
    return [register(engine) for engine in installed_engines() if engine in bundled]


def load_bridge_game(rules: Rules):
    """The bridge game object for `rules` (registering the engine when needed)."""
    engine = rules.game.engine
    register(engine, rules.game)
    game = _REGISTERED[engine]({"players": rules.players, "variant": rules.variant})
    game.ctx.rules = rules
    return game


class OpenSpielPolicy:
    """A cardgen policy running OpenSpiel's IS-MCTS (or MCTS) bot through the bridge.

    IS-MCTS starts from a determinization of the seat's observation (the bridge's
    `resample_from_infostate`). MCTS searches a determinization too, so it never sees the
    hidden cards; it treats that sample as the truth (plain determinized MCTS)."""

    needs_observation = True

    def __init__(self, rules: Rules, kind: str, iterations: int, name: str | None = None) -> None:
        from open_spiel.python.algorithms import ismcts, mcts

        self.rules = rules
        self.kind = kind
        self.iterations = iterations
        self.name = name or f"{kind}:{iterations}"
        self.game = load_bridge_game(rules)
        self._np_rng = np.random.RandomState(0)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=self._np_rng)
        if kind == "openspiel-ismcts":
            self.bot = ismcts.ISMCTSBot(self.game, evaluator, uct_c=0.7 * 2, max_simulations=iterations,
                                        random_state=self._np_rng,
                                        child_selection_policy=ismcts.ChildSelectionPolicy.UCT,
                                        allow_inconsistent_action_sets=True)
        else:
            self.bot = mcts.MCTSBot(self.game, uct_c=1.4, max_simulations=iterations, evaluator=evaluator,
                                    random_state=self._np_rng, solve=False)
        from .agents.ismcts import Determinizer

        self.determinizer = Determinizer(rules)
        self.stats = {"moves": 0, "iterations": 0, "seconds": 0.0}

    def iterations_per_second(self) -> float:
        return self.stats["iterations"] / self.stats["seconds"] if self.stats["seconds"] else 0.0

    def choose(self, observation, legal_actions, rng: random.Random):
        if len(legal_actions) == 1:
            return legal_actions[0]
        started = time.process_time()     # CPU time, like the native agent
        self._np_rng.seed(int(rng.random() * 2**31))
        ctx = self.game.ctx
        ctx.rng = rng
        engine_state, _ok = self.determinizer.sample(observation, rng)
        state = BridgeState(self.game, ctx, engine_state)
        if self.kind == "openspiel-ismcts":
            self.bot.reset()
        code = self.bot.step(state)
        action = ctx.codes.action(code)
        self.stats["moves"] += 1
        self.stats["iterations"] += self.iterations
        self.stats["seconds"] += time.process_time() - started
        if action not in legal_actions:      # cannot happen with a consistent determinization
            action = legal_actions[0]
        return action


def openspiel_policy(rules: Rules, kind: str, iterations: int, name: str | None = None) -> OpenSpielPolicy:
    return OpenSpielPolicy(rules, kind, iterations, name)
