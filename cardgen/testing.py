"""The test kit for engine authors: every check cardgen makes of a rules engine, in one call.

A plugin's own tests call it with a factory of its `Rules` (one configuration) or with the
Rules class and its game (every player count and variant the game supports)::

    from cardgen.testing import check_engine, load_game

    def test_rules_pass_the_kit():
        check_engine(Rules, load_game("game"), games=20)

Over `games` seeded random games per configuration it checks, and raises `KitFailure` naming
the check, the configuration and the game's seed at the first problem:

- ``invariants``: what `cardgen check`'s random-simulation sweep checks after every move (card
  conservation, a valid player to act, legal actions sorted, unique and surviving their code,
  chance probabilities positive and summing to 1, termination within `Rules.max_actions`,
  scores within `score_range()`, winners that are seats), reused from the engine's harness;
- ``returns``: `returns()` is all zeros until the game is over;
- ``applicable``: every legal action applies without error (on a clone);
- ``action-space``: when the rules declare `action_kinds()`, every legal action has an id that
  reads back as the same action;
- ``clone``: a clone is equal to its state, and playing the clone to its end leaves the
  original untouched;
- ``observation``: an observation is plain data: the moves after it leave it as it was (a
  policy is handed it, and must not see, or change, the state through it);
- ``determinism``: the same seed and choices give the same game, from a fresh `Rules` too;
- ``leak``: two states that differ only in a chance outcome a seat did not see (the same
  history, one hidden draw changed) give that seat the same observation and information
  state, and a changed outcome it did see changes its observation (on a `TableState`, its views
  and not only its history); on a `TableState`, two cards
  in zones a seat may not see trade places at sampled positions, and its observation stays.
  Who saw a draw is what `State.hidden_moves` says (a `TableState` derives it from its zones;
  an engine on the bare `State` that forgets to mark a draw shows it to everyone, unnoticed);
- ``record``: the game saved as a record (every move, and seed plus choices only), read back and
  replayed, gives the same result;
- ``openspiel``: when pyspiel is importable and the rules are the game's installed engine,
  OpenSpiel's own `random_sim_test` through the bridge.
"""

from __future__ import annotations

import json
import random
import tempfile
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import yaml

from .engine.bots import RandomPolicy
from .engine.core import CHANCE, Deck, IllegalAction, InvariantError, Observation, Rules, State, apply_moves, sample_chance
from .engine.harness import SweepFailure, random_game
from .engine.record import Record, load_record, record_from_dict, replay, save_record
from .engine.simulate import game_seed
from .engine.zones import TableState, Zone
from .load import load_game
from .model import Game
from .registry import game_engine

__all__ = ["check_engine", "check_rules", "configurations", "KitFailure", "KitReport", "CHECKS", "load_game"]

CHECKS = ("invariants", "returns", "applicable", "action-space", "clone", "observation", "determinism", "leak", "record",
          "openspiel")

# How many positions of each game get the costlier checks (clone, applicable, leak).
SAMPLED_POSITIONS = 6
# How many games OpenSpiel's random_sim_test plays through the bridge (its own checks are slow).
OPENSPIEL_GAMES = 2
# How many chance moves of each game the leak check changes.
LEAK_POINTS = 8


class KitFailure(AssertionError):
    """An engine failed one of the kit's checks; the message names the check, the configuration,
    the seed and what broke."""

    def __init__(self, check: str, where: str, message: str) -> None:
        super().__init__(f"{check}: {where}: {message}")
        self.check = check
        self.where = where
        self.detail = message


@dataclass
class KitReport:
    """What one configuration passed: per check, what was compared."""

    engine: str
    players: int
    variant: str
    games: int
    checks: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        head = f"{self.engine} {self.players}p {self.variant}: {self.games} games"
        return head + "".join(f"\n  {name}: {what}" for name, what in self.checks.items())


def configurations(rules_class: type[Rules], game: Game) -> list[tuple[int, str]]:
    """Every (players, variant) `game` supports with `rules_class`: for a test parametrized by
    configuration, ``@pytest.mark.parametrize("players, variant", configurations(Rules, game))``."""
    return [(players, variant) for players in game.player_counts for variant in rules_class.variants
            if rules_class.supports(players, variant, game)]


def check_engine(rules_class: type[Rules], game: Game, games: int = 20, seed: int = 0,
                 openspiel: bool | None = None) -> list[KitReport]:
    """`check_rules` for every player count and variant `game` supports with `rules_class`."""
    setups = configurations(rules_class, game)
    if not setups:
        raise KitFailure("configurations", game.id, "the rules support no player count and variant of the game")
    return [check_rules(lambda p=players, v=variant: rules_class(game, p, v), games=games, seed=seed,
                        openspiel=openspiel) for players, variant in setups]


def check_rules(make_rules: Callable[[], Rules], games: int = 20, seed: int = 0,
                openspiel: bool | None = None) -> KitReport:
    """Run every check on `games` seeded random games of the rules `make_rules()` builds (a fresh
    Rules each call). `openspiel`: None runs OpenSpiel's view when pyspiel is importable, True
    requires it, False skips it. Raises KitFailure at the first problem."""
    if games < 1:
        raise ValueError(f"the kit needs at least one game, not {games}")
    rules = make_rules()
    label = f"{rules.game.id} {rules.players}p {rules.variant}"
    report = KitReport(rules.game.id, rules.players, rules.variant, games)
    counts = {"positions": 0, "hidden": 0, "seen": 0, "actions": 0, "swaps": 0}
    lengths = []
    for index in range(games):
        gseed = game_seed(seed, index)
        where = f"{label}, game {index} (seed {gseed})"
        state = _guard("invariants", where, lambda: random_game(rules, gseed)[0])
        history = [str(a) for a in state.history]
        lengths.append(len(history))
        _guard("determinism", where, lambda: _check_determinism(make_rules, gseed, history))
        chance, choices = _guard("applicable", where, lambda: _check_positions(rules, history, gseed, counts))
        _guard("leak", where, lambda: _check_leaks(rules, history, chance, gseed, counts))
        _guard("record", where, lambda: _check_record(make_rules, state, choices, gseed))
    report.checks["invariants"] = (f"after every move of {games} games ({min(lengths)}–{max(lengths)} moves, "
                                   f"bound {rules.max_actions})")
    report.checks["returns"] = "zero before the end in every position"
    sampled = f"at {counts['positions']} sampled positions"
    report.checks["applicable"] = f"{counts['actions']} legal actions applied {sampled}"
    report.checks["clone"] = f"equal and independent {sampled}"
    report.checks["observation"] = f"plain data that later moves leave alone {sampled}"
    report.checks["action-space"] = ("every legal action has an id" if _declares_action_kinds(rules)
                                     else "skipped: the rules declare no action_kinds()")
    report.checks["determinism"] = "same seed, same game, also from a fresh Rules"
    report.checks["leak"] = (f"{counts['hidden']} pairs differing only in a hidden outcome looked the same; "
                             f"{counts['seen']} pairs differing in a seen one looked different; "
                             f"{counts['swaps']} swaps of two cards hidden from a seat left its view alone")
    report.checks["record"] = "every move, and seed plus choices, replay to the same result"
    report.checks["openspiel"] = _check_openspiel(rules, label, min(games, OPENSPIEL_GAMES), seed, openspiel)
    return report


def _guard(check: str, where: str, run: Callable[[], Any]) -> Any:
    """Run one check; any failure, or a crash of the rules inside it, becomes a KitFailure."""
    try:
        return run()
    except KitFailure as exc:      # add the configuration and seed to the position
        raise KitFailure(exc.check, f"{where}, {exc.where}", exc.detail) from exc
    except (SweepFailure, InvariantError) as exc:
        raise KitFailure(check, where, str(exc)) from exc
    except Exception as exc:  # the rules crashed: say where, as `cardgen check` does
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        raise KitFailure(check, where, f"{type(exc).__name__}: {exc} at "
                                       f"{Path(frame.filename).name}:{frame.lineno}") from exc


# --- positions: returns, applicable actions, action ids, clone ---------------------------------

def _replay(rules: Rules, moves: list[str]) -> State:
    """A new game with the game's own `moves` applied in order (already checked legal by the
    invariant pass; moves the engine makes itself are skipped, as it appends them itself)."""
    state = rules.new_initial_state()
    decode = rules.decode_action
    while len(state.history) < len(moves):
        state.apply_unchecked(decode(moves[len(state.history)]))
    if [str(a) for a in state.history[:len(moves)]] != moves:
        raise KitFailure("determinism", f"move {len(moves)}", "replaying the game's own moves, the engine "
                                                              "made different moves of its own")
    return state


def _sampled(length: int, rng: random.Random) -> set[int]:
    return set(rng.sample(range(length + 1), min(SAMPLED_POSITIONS, length + 1)))


def _check_positions(rules: Rules, history: list[str], seed: int,
                     counts: dict[str, int]) -> tuple[list[int], list[str]]:
    """Walk the game again checking every position (a sample of them more deeply); return the
    indices of the chance moves in the history, and the players' own choices (neither chance
    nor the moves the engine made itself)."""
    chance: list[int] = []
    choices: list[str] = []
    rng = random.Random(seed)
    sampled = _sampled(len(history), rng)
    space = rules.action_space if _declares_action_kinds(rules) else None
    chance_space = rules.chance_space if space is not None else None
    state = rules.new_initial_state()
    shown: list[tuple[int, int, Observation, str]] = []   # observations handed out, and how they read then
    while True:
        at = len(state.history)
        terminal = state.is_terminal()
        if not terminal and any(state.returns()):
            raise KitFailure("returns", f"move {at}", f"returns() is {state.returns()} before the game is over")
        if at in sampled:
            counts["positions"] += 1
            for seat in range(rules.players):
                observation = state.observation(seat)
                shown.append((at, seat, observation, observation.key()))
            _check_clone(state, rng)
            for action in state.legal_actions()[:8]:
                counts["actions"] += 1
                twin = state.clone()
                try:
                    twin.apply(action)
                except Exception as exc:
                    raise KitFailure("applicable", f"move {at}", f"the legal action {action} cannot be applied: "
                                                                 f"{type(exc).__name__}: {exc}") from exc
                if space is not None:
                    _check_action_id(state, action, chance_space if state.current_player() == CHANCE else space, at)
        if terminal or at >= len(history):
            break
        if state.current_player() == CHANCE:
            chance.append(at)
        else:
            choices.append(history[at])
        state.apply_unchecked(rules.decode_action(history[at]))
    if [str(a) for a in state.history] != history:
        raise KitFailure("determinism", "replay", "replaying the game's own moves gives a different history")
    for at, seat, observation, then in shown:
        if observation.key() != then:
            where = _first_difference(json.loads(then), _plain(observation.as_dict()))
            raise KitFailure("observation", f"move {at}", f"seat {seat + 1}'s observation changed as the game went "
                                                          f"on, at {where}: it shares a container with the state")
    return chance, choices


def _declares_action_kinds(rules: Rules) -> bool:
    return type(rules).action_kinds is not getattr(Rules, "action_kinds", None) and hasattr(rules, "action_kinds")


def _check_action_id(state: State, action: Any, space: Any, at: int) -> None:
    try:
        code = space.id(action)
    except ValueError as exc:
        raise KitFailure("action-space", f"move {at}", f"{exc}") from None
    if space.action(code) != action:
        raise KitFailure("action-space", f"move {at}", f"id {code} of {action} reads back as {space.action(code)}")


def _snapshot(state: State) -> dict[str, Any]:
    players = state.rules.players
    return {"history": [str(a) for a in state.history], "to act": state.current_player(),
            "legal actions": [str(a) for a in state.legal_actions()],
            "zones": {name: sorted(map(str, cards)) for name, cards in state.zones().items()},
            "observations": [_plain(state.observation(p).as_dict()) for p in range(players)],
            "information states": [state.information_state_string(p) for p in range(players)],
            "returns": list(state.returns())}


def _check_clone(state: State, rng: random.Random) -> None:
    before = _snapshot(state)
    twin = state.clone()
    if _snapshot(twin) != before:
        raise KitFailure("clone", f"move {len(state.history)}",
                         f"clone() differs from the state in {_first_difference(before, _snapshot(twin))}")
    bot = RandomPolicy()
    steps = 0
    while not twin.is_terminal() and steps < state.rules.max_actions:
        chance = twin.current_player() == CHANCE
        twin.apply_unchecked(sample_chance(twin, rng) if chance else bot.choose(None, twin.legal_actions(), rng))
        steps += 1
    after = _snapshot(state)
    if after != before:
        raise KitFailure("clone", f"move {len(state.history)}", "playing a clone to its end changed the original "
                                                                f"state's {_first_difference(before, after)}: the "
                                                                "clone shares a container with it")


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two plain values first differ, as a dotted path."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{path}.{key}" if path else str(key))
    elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return path or "the whole value"


# --- determinism, records ------------------------------------------------------------------------

def _check_determinism(make_rules: Callable[[], Rules], seed: int, history: list[str]) -> None:
    again = [str(a) for a in random_game(make_rules(), seed, check=False)[0].history]
    if again != history:
        at = next((i for i, (x, y) in enumerate(zip(history, again)) if x != y), min(len(history), len(again)))
        raise KitFailure("determinism", f"move {at}", "the same seed and choices gave a different game from a "
                                                      "fresh Rules (is a random source, a set's order or a shared "
                                                      "global used?)")


def _check_record(make_rules: Callable[[], Rules], state: State, choices: list[str], seed: int) -> None:
    """Save the game as a record file, read it back and replay it: through `load_record` and
    `replay` (what `cardgen replay` does) when the rules are the game's installed engine, else
    (rules the kit was handed directly) by applying the moves read back to a fresh state."""
    rules = state.rules
    result = state.result()
    installed = game_engine(rules.game) is type(rules)
    full = [str(a) for a in state.history]
    for what, moves in (("every move", full), ("seed and choices", choices)):
        record = Record(game=str(rules.game.root), players=rules.players, variant=rules.variant, seed=seed,
                        actions=moves)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "record.yaml"
            save_record(record, path)
            if installed:
                report = replay(load_record(path), rules.game)
                problem, replayed = report.error, report.state
            else:
                back = record_from_dict(yaml.safe_load(path.read_text(encoding="utf-8")), str(path))
                problem, replayed = _apply_record(make_rules(), back)
        if problem:
            raise KitFailure("record", what, f"the saved record does not replay: {problem}")
        if replayed is None or not replayed.is_terminal():
            raise KitFailure("record", what, "the replayed record does not end the game")
        again = replayed.result()
        if (again.scores, again.winners, again.success, again.ending) != (result.scores, result.winners,
                                                                          result.success, result.ending):
            raise KitFailure("record", what, f"the replay gives {again}, the game gave {result}")


def _apply_record(rules: Rules, record: Record) -> tuple[str | None, State]:
    state = rules.new_initial_state(record.deck_order)
    try:
        apply_moves(state, record.actions, random.Random(record.seed))
    except IllegalAction as exc:
        return f"move {getattr(exc, 'position', '?')}: {exc}", state
    return None, state


# --- information leaks -----------------------------------------------------------------------------

def _check_leaks(rules: Rules, history: list[str], chance_points: list[int], seed: int,
                 counts: dict[str, int]) -> None:
    """Change one chance outcome of the game and compare each seat's view right after it (right
    after, because later the rules may show that card to a seat, a peek or a card turned face up,
    which is no leak); then, on a state built on zones, swap hidden cards at sampled positions."""
    rng = random.Random(seed ^ 0x5EED)
    for index in sorted(rng.sample(chance_points, min(LEAK_POINTS, len(chance_points)))):
        node = _replay(rules, history[:index])
        if len(node.history) != index or node.current_player() != CHANCE:
            continue
        actual = rules.decode_action(history[index])
        label = node.hidden_label(actual)
        others = [a for a, _ in node.chance_outcomes() if a != actual and node.hidden_label(a) == label]
        if not others:
            continue
        base = node.clone()
        base.apply(actual)
        views = _observations(base)
        for other in rng.sample(others, min(2, len(others))):
            twin = node.clone()
            twin.apply(other)
            if _observations(twin) and twin.hidden_moves != base.hidden_moves:
                continue       # the two outcomes are not hidden alike: no pair to compare
            _compare_views(base, twin, views, index, str(actual), str(other), counts)
    for cut in sorted(_sampled(len(history), rng)):
        state = _replay(rules, history[:cut])
        if isinstance(state, TableState):
            _check_zone_swaps(state, rng, counts)


def _observations(state: State) -> list[Observation]:
    """Every seat's observation (read first: an engine may settle what it reveals lazily, when a
    seat's view is read, so `hidden_moves` is final only after that)."""
    return [state.observation(seat) for seat in range(state.rules.players)]


def _compare_views(base: State, twin: State, views: list[Observation], index: int, was: str, now: str,
                   counts: dict[str, int]) -> None:
    seers = base.hidden_moves.get(index)
    for seat, one in enumerate(views):
        two = twin.observation(seat)
        if seers is None or seat in seers:
            counts["seen"] += 1
            if one.key() == two.key():
                raise KitFailure("leak", f"move {index}", f"seat {seat + 1} saw the chance outcome {was} (or {now} "
                                                          "instead), but its observation is the same for both")
            # on zones the card landed where this seat sees it: the views show it, not only the history
            if isinstance(base, TableState) and _views(one) == _views(two):
                raise KitFailure("leak", f"move {index}", f"seat {seat + 1} saw the chance outcome {was} (or {now} "
                                                          "instead), but only its history tells them apart: a "
                                                          "view masks a card its seat may see")
            continue
        counts["hidden"] += 1
        if one.key() != two.key():
            where = _first_difference(_plain(one.as_dict()), _plain(two.as_dict()))
            raise KitFailure("leak", f"move {index}", f"seat {seat + 1} may not see the chance outcome {was}, "
                                                      f"yet its observation differs from the game where it was "
                                                      f"{now}, at {where}: a hidden card leaks there")
        if base.information_state_string(seat) != twin.information_state_string(seat):
            raise KitFailure("leak", f"move {index}", f"seat {seat + 1} may not see the chance outcome {was}, yet "
                                                      f"its information state differs from the game where it was {now}")


def _check_zone_swaps(state: TableState, rng: random.Random, counts: dict[str, int]) -> None:
    """For a state on zones: two cards in different zones a seat may not see trade places, and
    that seat's observation must not change (a fact a plugin computes from a hidden zone leaks,
    whenever in the game it shows)."""
    for seat in range(state.rules.players):
        hidden = [zone for zone in state.table if len(zone) and not zone.visible_to(seat)]
        if len(hidden) < 2:
            continue
        one, two = rng.sample(hidden, 2)
        a, b = rng.choice(one.listed()), rng.choice(two.listed())
        if a == b:
            continue
        twin = state.clone()
        _replace(twin.table[one.name], a, b)
        _replace(twin.table[two.name], b, a)
        counts["swaps"] += 1
        before, after = _plain(state.observation(seat).as_dict()), _plain(twin.observation(seat).as_dict())
        if before != after:
            raise KitFailure("leak", f"move {len(state.history)}",
                             f"seat {seat + 1}'s observation changes when {a} (in {one.name}) and {b} (in "
                             f"{two.name}), both hidden from it, trade places, at {_first_difference(before, after)}: "
                             "a hidden card leaks there")


def _replace(zone: Zone, card: str, other: str) -> None:
    """Put `other` where one copy of `card` is in `zone`."""
    if isinstance(zone.cards, Deck):
        zone.cards.replace(card, other)
    else:
        zone.cards[zone.cards.index(card)] = other


def _views(observation: Observation) -> Any:
    return _plain({"public": observation.public, "private": observation.private})


def _plain(value: Any) -> Any:
    return json.loads(json.dumps(value, default=list, sort_keys=True))


# --- OpenSpiel ------------------------------------------------------------------------------------

def _check_openspiel(rules: Rules, label: str, sims: int, seed: int, wanted: bool | None) -> str:
    if wanted is False:
        return "skipped (openspiel=False)"
    if game_engine(rules.game) is not type(rules):
        if wanted:
            raise KitFailure("openspiel", label, "the bridge plays installed engines only: install the rules and "
                                                 "name them in game.yaml's engine:")
        return "skipped: the rules are not the game's installed engine, which the bridge plays"
    try:
        import pyspiel
        from .engine.openspiel_bridge import load_bridge_game
    except ImportError:
        if wanted:
            raise KitFailure("openspiel", label, "pyspiel is not importable; install the [agents] extra") from None
        return "skipped: pyspiel is not installed (the [agents] extra)"
    try:
        game = load_bridge_game(rules)
        pyspiel.random_sim_test(game, num_sims=sims, serialize=False, verbose=False)
    except Exception as exc:
        raise KitFailure("openspiel", label, f"pyspiel.random_sim_test: {type(exc).__name__}: {exc}") from exc
    return f"pyspiel.random_sim_test passed {sims} games through the bridge"
