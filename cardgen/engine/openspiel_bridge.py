"""The OpenSpiel bridge: every cardgen engine as a pyspiel Python game (needs the `[agents]` extra).

    import pyspiel
    from cardgen.engine import openspiel_bridge
    openspiel_bridge.register_all()             # every installed engine with a bundled game
    openspiel_bridge.register("mygame", load_game("path/to/mygame"))   # a plugin's, with its game
    game = pyspiel.load_game("cardgen_mygame", {"players": 4})
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False, mask_test=True)

Each installed engine is registered as ``cardgen_<engine>`` with parameters ``players``
(default: the game's minimum), ``variant`` (default: the usual one for that count) and ``path``
(a game folder; default: the one given to `register`, else the bundled one).
`load_bridge_game(rules)` wraps any `Rules`. Each game object owns its rules: two games never
share them, whatever their parameters.

Action ids are the engine's own deterministic numbering (`Rules.action_space` for the players'
moves, `Rules.chance_space` for chance outcomes), computed from the rules and the card list, so
a history recorded in one process replays in another; `num_distinct_actions()` and
`max_chance_outcomes()` are their sizes. A state's OpenSpiel history is the list of ids applied
to it; `serialize()` carries only that (the engine state is replayed from it), and pickling a
state pickles its game (with the rules) and that list. `apply_action` from Python is answered
here without a round trip through C++, so C++'s own history holds only the moves C++ applied
(`child`, C++ algorithms); every history accessor reads the bridge's list instead.

Observers honour `IIGObservationType`: the public part is what every seat sees, the private
part one seat's (or every seat's) own information, and perfect recall adds the history as the
observer may see it. Tensors are a generic encoding of the engine's `Observation` (see
`ObservationLayout`), so OpenSpiel's RL tools run on any engine.

`openspiel_policy(rules, "openspiel-ismcts" | "openspiel-mcts", iterations)` is a cardgen
policy that runs OpenSpiel's Python IS-MCTS (or MCTS, which searches a determinization and
treats it as the truth) with random rollouts.
"""

from __future__ import annotations

import json
import operator
import random
import time
from typing import Any, Sequence

import numpy as np
import pyspiel

from . import engine_by_name, installed_engines
from .core import CHANCE, TERMINAL, ActionSpace, Rules
from .core import State as EngineState

_JSON = {"sort_keys": True, "ensure_ascii": False, "separators": (",", ":"), "default": list}


class _Context:
    """What every state of one bridge game shares: its rules, their action spaces, the
    determinizer and the observation layout. Shared by clones (deep copies return it)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.actions: ActionSpace = rules.action_space
        self.chances: ActionSpace = rules.chance_space
        # one object for every call: a deck keeps the codes of its outcomes while it is the same
        self.chance_id = self.chances.id
        self.action_id = self.actions.cached_id     # the id of an action numbered before, else None
        self.determinizer = None
        self.rng = random.Random(0)
        self._layout: ObservationLayout | None = None
        self._codes: dict = {}
        self._ids: dict = {}

    @property
    def layout(self) -> "ObservationLayout":
        if self._layout is None:
            self._layout = ObservationLayout(self.rules)
        return self._layout

    def __deepcopy__(self, memo):
        return self

    def codes(self, history: Sequence) -> list[str]:
        """The codes of the actions of a history (memoized: engines reuse action objects)."""
        memo = self._codes
        out = []
        for action in history:
            code = memo.get(action)
            if code is None:
                code = memo[action] = str(action)
            out.append(code)
        return out

    def ids(self, history: Sequence) -> list[tuple[bool, int]]:
        """(is a chance outcome, id) of each action of a history, automatic moves included."""
        memo = self._ids
        out = []
        for action in history:
            got = memo.get(action)
            if got is None:
                chance = action in self.chances
                got = memo[action] = (chance, (self.chances if chance else self.actions).id(action))
            out.append(got)
        return out

    def action(self, engine_state: EngineState, code: int):
        """The engine action with id `code` at `engine_state` (a chance outcome at a chance node)."""
        space = self.chances if engine_state.current_player() == CHANCE else self.actions
        try:
            return space.action(code)
        except ValueError as exc:
            raise pyspiel.SpielError(str(exc)) from None

    def replay(self, moves: Sequence[int]) -> EngineState:
        """The engine state after the OpenSpiel actions `moves` from the start; SpielError at
        the first that is not legal (a history from other rules, or a damaged one)."""
        state = self.rules.new_initial_state(None)
        for number, code in enumerate(moves, start=1):
            action = self.action(state, code)
            if action not in state.legal_actions():
                raise pyspiel.SpielError(f"{self.rules.game.id}: move {number} of the history, {action} "
                                         f"(id {code}), is not legal there")
            state.apply_unchecked(action)
        return state


class _Box:
    """The engine state and the OpenSpiel actions applied to it. OpenSpiel clones a Python state
    by deep-copying its attributes: this makes that copy the engine's own cheap `clone()`.
    Pickled (OpenSpiel's `serialize()`), it is the list of action ids alone; the state is
    replayed from it when first needed (`BridgeState._resolve`)."""

    __slots__ = ("ctx", "state", "moves", "seen")

    def __init__(self, ctx: _Context | None, state: EngineState | None, moves: list[int]) -> None:
        self.ctx = ctx
        self.state = state
        self.moves = moves
        # the codes and ids of the engine history so far, extended as it grows (observers read
        # the whole history at every step); None until an observer asks
        self.seen: tuple[list[str], list[tuple[bool, int]]] | None = None

    def __deepcopy__(self, memo):
        if self.state is None:
            return _Box(None, None, list(self.moves))
        copy = _Box(self.ctx, self.state.clone(), list(self.moves))
        if self.seen is not None:
            copy.seen = (list(self.seen[0]), list(self.seen[1]))
        return copy

    def __reduce__(self):
        return (_pending_box, (list(self.moves),))

    def history_codes(self) -> tuple[list[str], list[tuple[bool, int]]]:
        """(codes, (is a chance outcome, id)) of every move of the engine history."""
        history = self.state.history
        seen = self.seen
        if seen is None:
            seen = self.seen = ([], [])
        codes, ids = seen
        if len(codes) < len(history):
            new = history[len(codes):]
            codes.extend(self.ctx.codes(new))
            ids.extend(self.ctx.ids(new))
        return seen


def _pending_box(moves: list[int]) -> _Box:
    return _Box(None, None, moves)


class BridgeState(pyspiel.State):
    """An engine state seen through OpenSpiel's State API."""

    def __init__(self, game: "BridgeGame", ctx: _Context, engine_state: EngineState | None = None) -> None:
        super().__init__(game)
        # the initial engine state is made when first needed: OpenSpiel's Clone makes a new
        # initial state only to replace its attributes with copies of the original's
        self._box = _Box(ctx, engine_state, [])

    def _resolve(self) -> EngineState:
        """The engine state of a new or deserialized state: its moves replayed (once)."""
        box = self._box
        if box.state is None:
            if box.ctx is None:
                box.ctx = self.get_game()._ctx
            box.state = box.ctx.replay(box.moves)
            box.seen = None
        return box.state

    @property
    def engine(self) -> EngineState:
        state = self._box.state
        return state if state is not None else self._resolve()

    @property
    def context(self) -> _Context:
        if self._box.ctx is None:
            self._resolve()
        return self._box.ctx

    # --- OpenSpiel's State API -------------------------------------------------------------

    def current_player(self) -> int:
        state = self._box.state
        if state is None:
            state = self._resolve()
        return state.current_player()          # CHANCE and TERMINAL are OpenSpiel's ids

    def _legal_actions(self, player: int) -> list[int]:
        box = self._box
        state = box.state
        if state is None:
            state = self._resolve()
        ids = box.ctx.actions.ids
        return sorted(ids(state.legal_actions()))

    def legal_actions(self, player: int | None = None) -> list[int]:
        """OpenSpiel's legal_actions, answered here for Python callers (the C++ path makes
        several round trips through Python for the same answer)."""
        box = self._box
        state = box.state
        if state is None:
            state = self._resolve()
        current = state.current_player()
        if current >= 0 and (player is None or player == current):
            legal = state._legal_actions()     # State.legal_actions at a decision, one call less
            out = list(map(box.ctx.action_id, legal))
            if None in out:                    # an action not numbered yet in this process
                out = box.ctx.actions.ids(legal)
            out.sort()
            return out
        if current == TERMINAL:
            return []
        if player is not None and player != current:
            if player < 0:
                raise pyspiel.SpielError(f"legal_actions of the pseudo-player {player}")
            return []
        return [code for code, _ in state.coded_chance_outcomes(box.ctx.chance_id)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        box = self._box
        state = box.state
        if state is None:
            state = self._resolve()
        return state.coded_chance_outcomes(box.ctx.chance_id)

    def apply_action(self, action: int) -> None:
        """OpenSpiel's apply_action, answered here for Python callers: C++'s ApplyAction would
        cross into Python twice per move (current_player, then _apply_action) to keep a history
        of its own. The bridge's list of moves is the history: every accessor that OpenSpiel
        answers from C++'s history is answered from it here (history, full_history,
        move_number, serialize, ...). C++ callers come through `_apply_action`, this same code."""
        if type(action) is not int:
            action = operator.index(action)     # a numpy integer, as C++ would take it; not a float
        box = self._box
        state = box.state
        if state is None:
            state = self._resolve()
        ctx = box.ctx
        found = (ctx.chances if state.current_player() == CHANCE else ctx.actions).known.get(action)
        if found is None:
            found = ctx.action(state, action)
        state.history.append(found)            # State.apply_unchecked, one call less per move
        state._apply(found)
        box.moves.append(action)

    _apply_action = apply_action               # OpenSpiel's DoApplyAction, for C++ callers

    def _action_to_string(self, player: int, action: int) -> str:
        space = self.context.chances if player == pyspiel.PlayerId.CHANCE else self.context.actions
        try:
            return str(space.action(action))
        except ValueError as exc:
            raise pyspiel.SpielError(str(exc)) from None

    def is_terminal(self) -> bool:
        state = self._box.state
        if state is None:
            state = self._resolve()
        return state.current_player() == TERMINAL

    # answered here for Python callers, as legal_actions is (one call instead of a round trip)
    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def is_player_node(self) -> bool:
        return self.current_player() >= 0

    def returns(self) -> list[float]:
        return list(self.engine.returns())

    def __str__(self) -> str:
        self.engine
        return " ".join(self._box.history_codes()[0])

    # OpenSpiel's C++ history holds only what C++ applied (apply_action from Python, and
    # undo_action, leave it alone); these read the bridge's own list of moves.
    def history(self) -> list[int]:
        return list(self._box.moves)

    def history_str(self) -> str:
        return ", ".join(map(str, self._box.moves))

    def move_number(self) -> int:
        return len(self._box.moves)

    def is_initial_state(self) -> bool:
        return not self._box.moves

    # what C++ answers from its history, asked of a replay whose every move C++ applied
    def full_history(self) -> list:
        return pyspiel.State.full_history(self._replayed_by_cpp())

    def is_initial_non_chance_state(self) -> bool:
        return pyspiel.State.is_initial_non_chance_state(self._replayed_by_cpp())

    def serialize(self) -> str:
        return pyspiel.State.serialize(self._replayed_by_cpp())

    def _replayed_by_cpp(self) -> "BridgeState":
        """This state again, its moves applied by C++'s ApplyAction (which keeps C++'s history)."""
        replay = self.get_game().new_initial_state()
        apply = pyspiel.State.apply_action
        for action in self._box.moves:
            apply(replay, action)
        return replay

    def undo_action(self, player: int, action: int) -> None:
        """Take back the last action (`player` played `action`): the engine state is replayed
        without it, since engines keep no undo log."""
        moves = self._box.moves
        if not moves or moves[-1] != action:
            raise pyspiel.SpielError(f"undo_action({player}, {action}): the last action is "
                                     f"{moves[-1] if moves else 'none'}")
        moves.pop()
        self._box.state = self.context.replay(moves)
        self._box.seen = None

    def __deepcopy__(self, memo):
        return self.clone()          # OpenSpiel's Clone: keeps history() and move_number()

    def __reduce__(self):
        return (_unpickle_state, (self.get_game(), list(self._box.moves)))

    def resample_from_infostate(self, player_id: int, probability_sampler=None):
        """A state `player_id` cannot tell from this one (the native agent's determinizer), with
        its own OpenSpiel history (the sampled chance outcomes, never this state's)."""
        ctx = self.context
        if ctx.determinizer is None:
            from .agents.ismcts import Determinizer

            ctx.determinizer = Determinizer(ctx.rules)
        rng = ctx.rng if probability_sampler is None else random.Random(int(probability_sampler() * 2**31))
        sampled, ok = ctx.determinizer.sample(self.engine.observation(player_id), rng)
        if not ok:
            # never a state the player could tell apart: say so (issue #30)
            raise pyspiel.SpielError(f"resample_from_infostate: found no state with player {player_id}'s "
                                     f"information state in {ctx.determinizer.max_replays} replays")
        return _bridge_state_for(self.get_game(), sampled)


def _unpickle_state(game: "BridgeGame", moves: list[int]) -> BridgeState:
    state = game.new_initial_state()
    for code in moves:
        state.apply_action_with_legality_check(code)
    return state


def _bridge_state_for(game: "BridgeGame", engine_state: EngineState) -> BridgeState:
    """A bridge state whose OpenSpiel history is `engine_state`'s (automatic moves, which the
    engine makes itself, are not OpenSpiel actions)."""
    ctx = game._ctx
    state = game.new_initial_state()
    target = engine_state.history
    replay = state.engine
    while len(replay.history) < len(target):
        action = target[len(replay.history)]
        space = ctx.chances if replay.current_player() == CHANCE else ctx.actions
        state.apply_action(space.id(action))
    return state


# --- observations ------------------------------------------------------------------------------

_SCALARS = (str, int, float, bool, type(None))


def _features(value: Any, path: tuple, cards: dict[str, int], out: list) -> list:
    """Append (feature, card index or None, value) of a plain-data view to `out`: a card id under
    a path is that zone's card (lists of cards are zones: their order is dropped), a number is a
    counter, any other text is a category (one feature per path and text), None is nothing."""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            if key in cards:                         # a table keyed by card ids
                if type(item) in (int, float):
                    out.append(((*path, "[card]"), cards[key], float(item)))
                else:
                    out.append(((*path, "[card]"), cards[key], 1.0))
                    _features(item, (*path, "[card-value]"), cards, out)
            else:
                _features(item, (*path, key), cards, out)
    elif kind is list or kind is tuple:
        if all(type(v) in _SCALARS for v in value):
            out.append(((*path, "[len]"), None, float(len(value))))
            zone = (*path, "*")
            for item in value:
                if type(item) is str and item in cards:
                    out.append((zone, cards[item], 1.0))
                elif item is not None:
                    _features(item, zone, cards, out)
        else:
            for i, item in enumerate(value):
                _features(item, (*path, i), cards, out)
    elif value is None:
        pass
    elif kind is bool:
        out.append((path, None, 1.0 if value else 0.0))
    elif kind is int or kind is float:
        out.append((path, None, float(value)))
    else:
        text = str(value)
        if text in cards:
            out.append((path, cards[text], 1.0))
        else:
            out.append(((*path, "=" + text), None, 1.0))
    return out


class ObservationLayout:
    """A fixed tensor layout for one game's observations, generic for every engine: each zone
    (a path in the public or private view that holds card ids) has one slot per card id of the
    game, each counter one slot, each category (a phase, a text value) one slot, plus whose turn
    it is and which seat observes. The paths come from the rules' own views, met while walking
    seeded random games at first use; a feature never met there is counted in `dropped` (the
    bundled engines' tests check that random games drop none)."""

    EXPLORE_GAMES = 12

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        ids = sorted(rules.card_counts)
        self.cards: dict[str, int] = {c: i for i, c in enumerate(ids)}
        self.slots: dict[tuple, int] = {}          # (part, feature) -> its first slot
        self.size = 0
        self.dropped = 0
        self._cache: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        self._explore()

    def _add(self, key: tuple, card: int | None = None) -> None:
        """Give `key` (part, feature) its slots: one per card id for a zone, else one."""
        if key not in self.slots:
            self.slots[key] = self.size
            self.size += 1 if card is None else len(self.cards)

    def _explore(self) -> None:
        from .core import sample_chance

        rules = self.rules
        n = rules.players
        for feature in ("to_act", "seat"):
            for seat in range(n):
                self._add(("turn", (feature, seat)))
        for seed in range(self.EXPLORE_GAMES):
            rng = random.Random(seed)
            state = rules.new_initial_state(None)
            while True:
                self._add(("phase", "=" + state.phase_name()))
                for feature, card, _ in _features(state.public_view(), (), self.cards, []):
                    self._add(("public", feature), card)
                for seat in range(n):
                    for feature, card, _ in _features(state.private_view(seat), (), self.cards, []):
                        self._add(("private", feature), card)
                player = state.current_player()
                if player == TERMINAL:
                    break
                legal = state.legal_actions()
                state.apply_unchecked(sample_chance(state, rng) if player == CHANCE else rng.choice(legal))

    def encode(self, state: EngineState, part: str, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """(slots, values) of the public view ("public") or of `seat`'s private view
        ("private") of `state`. A view depends only on the state, which changes only by moves,
        so the encodings of the latest histories seen are kept: OpenSpiel asks for every seat's
        observation and information state at each step, often of a clone."""
        key = (part, seat, tuple(state.history))     # equal histories, equal views (clones too)
        got = self._cache.get(key)
        if got is None:
            view = state.public_view() if part == "public" else state.private_view(seat)
            slots = self.slots
            index: list[int] = []
            values: list[float] = []
            for feature, card, value in _features(view, (), self.cards, []):
                slot = slots.get((part, feature))
                if slot is None:
                    self.dropped += 1
                else:
                    index.append(slot if card is None else slot + card)
                    values.append(value)
            if len(self._cache) >= 256:
                self._cache.clear()
            got = self._cache[key] = (np.array(index, np.intp), np.array(values, np.float32))
        return got

    def fill(self, out: np.ndarray, state: EngineState, parts: Sequence[tuple[str, int]]) -> None:
        """Write the encodings of `parts` ((part, seat), ...) into `out` (zeroed first)."""
        out.fill(0)
        for part, seat in parts:
            index, values = self.encode(state, part, seat)
            np.add.at(out, index, values)


class _Observer:
    """Observation/information-state strings and tensors for one `IIGObservationType`.

    - public info: the phase, whose turn it is and the public view (what every seat sees);
    - private info: none, the observing seat's private view, or every seat's;
    - perfect recall: the history as the observer may see it (a chance outcome is shown when
      the observer's seat saw it; with every seat's private info, when any seat saw it; with
      none, when every seat saw it); its tensor counts the moves and outcomes seen, by id.
    The default information state (perfect recall, one seat's private info) is the engine's
    own `information_state_string`, which its determinizer groups states by."""

    def __init__(self, ctx: _Context, iig_obs_type=None, params=None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        self.ctx = ctx
        self.public = iig_obs_type.public_info
        self.private = iig_obs_type.private_info
        self.recall = iig_obs_type.perfect_recall
        self._tensor: np.ndarray | None = None
        self._dict: dict[str, np.ndarray] | None = None

    # OpenSpiel reads `tensor` and `dict`; built on first use (the layout walks random games).
    @property
    def tensor(self) -> np.ndarray:
        if self._tensor is None:
            self._build()
        return self._tensor

    @property
    def dict(self) -> dict[str, np.ndarray]:
        if self._dict is None:
            self._build()
        return self._dict

    def _build(self) -> None:
        layout = self.ctx.layout
        players = self.ctx.rules.players
        pieces = [("observation", layout.size)]
        if self.private == pyspiel.PrivateInfoType.ALL_PLAYERS and players > 1:
            pieces.append(("other_private", layout.size * (players - 1)))
        if self.recall:
            pieces += [("moves_seen", self.ctx.actions.size), ("outcomes_seen", self.ctx.chances.size),
                       ("outcomes_hidden", 1)]
        self._tensor = np.zeros(sum(size for _, size in pieces), np.float32)
        self._dict = {}
        at = 0
        for name, size in pieces:
            self._dict[name] = self._tensor[at:at + size]
            at += size

    def _parts(self, player: int) -> list[tuple[str, int]]:
        parts: list[tuple[str, int]] = []
        if self.public:
            parts.append(("public", -1))
        if self.private != pyspiel.PrivateInfoType.NONE:      # the others' come in other_private
            parts.append(("private", player))
        return parts

    def _seen(self, state: EngineState, codes: list[str], player: int) -> list[bool]:
        """Which moves of the history this observer sees (the others are chance outcomes it
        was not shown)."""
        if self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            view = state.public_history(player)
            return [a == b for a, b in zip(view, codes)]
        views = [state.public_history(seat) for seat in range(state.rules.players)]
        combine = all if self.private == pyspiel.PrivateInfoType.NONE else any
        return [combine(view[i] == code for view in views) for i, code in enumerate(codes)]

    def string_from(self, state: BridgeState, player: int) -> str:
        engine = state.engine
        if self.recall and self.public and self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            return engine.information_state_string(player)
        out: dict[str, Any] = {}
        if self.public:
            out.update(phase=engine.phase_name(), to_act=engine.to_act(), public=engine.public_view())
        if self.private == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            out.update(seat=player, private=engine.private_view(player))
        elif self.private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            out["private"] = [engine.private_view(seat) for seat in range(engine.rules.players)]
        if self.recall:
            codes = state._box.history_codes()[0]
            seen = self._seen(engine, codes, player)
            out["history"] = [code if shown else engine.hidden_label(action)
                              for shown, code, action in zip(seen, codes, engine.history)]
        return json.dumps(out, **_JSON)

    def set_from(self, state: BridgeState, player: int) -> None:
        engine = state.engine
        ctx = self.ctx
        layout = ctx.layout
        pieces = self.dict
        layout.fill(pieces["observation"], engine, self._parts(player))
        observation = pieces["observation"]
        if self.public:
            phase = layout.slots.get(("phase", "=" + engine.phase_name()))
            if phase is None:
                layout.dropped += 1
            else:
                observation[phase] = 1.0
            seat = engine.current_player()
            if seat >= 0:
                observation[layout.slots[("turn", ("to_act", seat))]] = 1.0
        if self.private != pyspiel.PrivateInfoType.NONE:
            observation[layout.slots[("turn", ("seat", player))]] = 1.0
        if "other_private" in pieces:
            others = pieces["other_private"].reshape(-1, layout.size)
            for k, seat in enumerate(s for s in range(engine.rules.players) if s != player):
                layout.fill(others[k], engine, [("private", seat)])
        if self.recall:
            moves, outcomes, hidden = pieces["moves_seen"], pieces["outcomes_seen"], pieces["outcomes_hidden"]
            moves.fill(0)
            outcomes.fill(0)
            codes, ids = state._box.history_codes()
            seen = self._seen(engine, codes, player)
            hidden[0] = len(seen) - sum(seen)
            if ids:
                table = np.array(ids, np.intp).reshape(-1, 2)       # (is chance, id) per move
                shown = np.array(seen, bool)
                chance = table[:, 0].astype(bool)
                np.add.at(outcomes, table[shown & chance, 1], 1.0)
                np.add.at(moves, table[shown & ~chance, 1], 1.0)


# --- games ---------------------------------------------------------------------------------

def _utility(rules: Rules) -> tuple[Any, float | None]:
    """Co-operative and solo games pay every seat the same; a competitive game shares 1 among
    its winners (it always has one), so its returns sum to 1."""
    if rules.cooperative:
        return pyspiel.GameType.Utility.IDENTICAL, None
    return pyspiel.GameType.Utility.CONSTANT_SUM, 1.0


def _game_type(engine: str, game: Any, utility: Any = pyspiel.GameType.Utility.GENERAL_SUM) -> "pyspiel.GameType":
    return pyspiel.GameType(
        short_name=f"cardgen_{engine}", long_name=f"cardgen {game.id}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players, min_num_players=game.min_players,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification={"players": game.min_players, "variant": "", "path": ""})


class BridgeGame(pyspiel.Game):
    """One engine, player count and variant as an OpenSpiel game, owning its rules.

    Subclassed once per registered engine (`engine` names it); pickles as its rules, so an
    unpickled game plays by the same rule numbers even when they came from a copied folder."""

    engine: str = ""

    def __init__(self, params: dict | None = None, rules: Rules | None = None) -> None:
        params = dict(params or {})
        if rules is None:
            rules = _rules_from_params(self.engine, params)
        self._ctx = _Context(rules)
        utility, utility_sum = _utility(rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=self._ctx.actions.size, max_chance_outcomes=self._ctx.chances.size,
            num_players=rules.players, min_utility=0.0, max_utility=1.0, utility_sum=utility_sum,
            max_game_length=rules.max_game_length())
        shown = {"players": rules.players, "variant": rules.variant}
        self._path = str(params.get("path") or "")
        if self._path:
            shown["path"] = self._path
        super().__init__(_game_type(rules.game.engine or self.engine, rules.game, utility), info, shown)

    @property
    def rules(self) -> Rules:
        return self._ctx.rules

    def new_initial_state(self) -> BridgeState:
        return BridgeState(self, self._ctx)

    def make_py_observer(self, iig_obs_type=None, params=None) -> _Observer:
        return _Observer(self._ctx, iig_obs_type, params)

    def __reduce__(self):
        return (_game_from_rules, (self._ctx.rules, self._path))


def _rules_from_params(engine: str, params: dict) -> Rules:
    from ..load import bundled_games_dir, load_game

    path = params.get("path") or _GAME_FOLDERS.get(engine) or str(bundled_games_dir() / engine)
    try:
        game = load_game(path)
    except Exception as exc:                   # a DataError names the file and line
        raise pyspiel.SpielError(f"cardgen_{engine}: {exc}") from None
    rules_class = engine_by_name(engine)
    players = int(params.get("players", game.min_players))
    variant = str(params.get("variant", "") or rules_class.default_variant(players, game))
    try:
        return rules_class(game, players, variant)
    except ValueError as exc:
        raise pyspiel.SpielError(str(exc)) from None


def _game_class(engine: str) -> type:
    """The module-level game class of `engine` (made once, named CardgenGame_<engine>)."""
    name = f"CardgenGame_{engine.replace('-', '_')}"
    cls = globals().get(name)
    if cls is None:
        cls = type(name, (BridgeGame,), {"engine": engine, "__module__": __name__, "__qualname__": name})
        globals()[name] = cls
    return cls


def _game_from_rules(rules: Rules, path: str = "") -> BridgeGame:
    return _game_class(rules.game.engine)({"path": path} if path else {}, rules)


_REGISTERED: set[str] = set()
_GAME_FOLDERS: dict[str, str] = {}   # engine -> the game folder `register` was given (the default `path`)


def register(engine: str, game: Any = None) -> str:
    """Register `cardgen_<engine>` with pyspiel for any installed engine. Its parameters load the
    folder `path` names, else the folder of the `game` given here (a plugin's game), else the
    bundled game of that name; `game` also gives the registration's player bounds."""
    if engine not in _REGISTERED:
        if game is None:
            from ..load import bundled_games_dir, load_game

            game = load_game(str(bundled_games_dir() / engine))
        else:
            _GAME_FOLDERS[engine] = str(game.root)
        pyspiel.register_game(_game_type(engine, game), _game_class(engine))
        _REGISTERED.add(engine)
    return f"cardgen_{engine}"


def register_all() -> list[str]:
    """Register every installed engine that has a bundled game of its name (a plugin's engine
    is registered with its game: `register("mygame", load_game("path/to/mygame"))`)."""
    from ..load import bundled_game_ids

    bundled = set(bundled_game_ids())
    return [register(engine) for engine in installed_engines() if engine in bundled]


def load_bridge_game(rules: Rules) -> BridgeGame:
    """The bridge game object playing by `rules` (registering the engine when needed)."""
    register(rules.game.engine, rules.game)
    return _game_class(rules.game.engine)({"path": str(rules.game.root)}, rules)


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
        from .agents.ismcts import POOL, Determinizer

        self.determinizer = Determinizer(rules)
        self.pool = POOL
        self.stats = {"moves": 0, "iterations": 0, "seconds": 0.0}

    def iterations_per_second(self) -> float:
        return self.stats["iterations"] / self.stats["seconds"] if self.stats["seconds"] else 0.0

    def choose(self, observation, legal_actions, rng: random.Random):
        if len(legal_actions) == 1:
            return legal_actions[0]
        started = time.process_time()     # CPU time, like the native agent
        self._np_rng.seed(int(rng.random() * 2**31))
        ctx = self.game._ctx
        ctx.rng = rng
        # the search starts only from states with the seat's exact information state: a pool
        # of consistent determinizations, which OpenSpiel's IS-MCTS resamples from
        key = observation.key()
        pool = []
        for _ in range(min(self.pool, self.iterations)):
            engine_state, ok = self.determinizer.sample(observation, rng, key, None if pool else 3)
            if ok:
                pool.append(_bridge_state_for(self.game, engine_state))
        self.stats["consistent_samples"] = self.stats.get("consistent_samples", 0) + len(pool)
        if not pool:
            # none found: a uniformly random legal move, counted, rather than a search over
            # states the seat could tell apart from its own
            self.stats["unmatched"] = self.stats.get("unmatched", 0) + 1
            self.stats["moves"] += 1
            self.stats["seconds"] += time.process_time() - started
            return legal_actions[int(rng.random() * len(legal_actions))]
        state = pool[0]
        if self.kind == "openspiel-ismcts":
            self.bot.reset()
            self.bot.set_resampler(lambda _state, _player: pool[int(rng.random() * len(pool))].clone())
        action = ctx.actions.action(self.bot.step(state))
        self.stats["moves"] += 1
        self.stats["iterations"] += self.iterations
        self.stats["seconds"] += time.process_time() - started
        assert action in legal_actions       # a consistent determinization has the same legal moves
        return action


def openspiel_policy(rules: Rules, kind: str, iterations: int, name: str | None = None) -> OpenSpielPolicy:
    return OpenSpielPolicy(rules, kind, iterations, name)
