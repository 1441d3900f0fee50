"""OpenSpiel conformance of the bridge, as an OpenSpiel user would test a game (issue #30):
OpenSpiel's own `games_sim_test.sim_game` (clone, pickle, serialization) and
`pyspiel.random_sim_test` (serialization, mask test) for every bundled game, player count and
variant (a game or two each here, 1,000 each under `-m slow`); deterministic action ids (a history
recorded in one process replays in another); honest observers and tensors, stepped through by
`rl_environment`; games that own their rules; SpielError for unknown ids; undo."""

from __future__ import annotations

import json
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
bridge = pytest.importorskip("cardgen.engine.openspiel_bridge")

from cardgen.engine import engine_by_name  # noqa: E402
from cardgen.engine.harness import configurations  # noqa: E402
from cardgen.load import bundled_games_dir, load_game  # noqa: E402

from .conftest import BUNDLED  # noqa: E402

CONFIGS = [(game_id, players, variant) for game_id in BUNDLED
           for players, variant in configurations(load_game(str(bundled_games_dir() / game_id)))]
IDS = [f"{g}-{p}p-{v}" for g, p, v in CONFIGS]
MAX_ACTIONS_PER_GAME = 1000        # as in games_sim_test


def _game(game_id: str, players: int, variant: str):
    bridge.register_all()
    return pyspiel.load_game(f"cardgen_{game_id}", {"players": players, "variant": variant})


def _play_random(state, rng: np.random.RandomState, stop=lambda state: False):
    while not state.is_terminal() and not stop(state):
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


# --- OpenSpiel's games_sim_test.sim_game, reproduced (the wheel need not ship its tests) -------

def _serialize_deserialize(game, state) -> None:
    text = pyspiel.serialize_game_and_state(game, state)
    new_game, new_state = pyspiel.deserialize_game_and_state(text)
    assert str(game) == str(new_game)
    assert str(state) == str(new_state)
    assert str(state) == str(pickle.loads(pickle.dumps(state)))


def _apply_and_test_clone(state, action) -> None:
    clone = state.clone()
    assert str(state) == str(clone)
    assert state.history() == clone.history()
    state.apply_action(action)
    clone.apply_action(action)
    assert str(state) == str(clone)
    assert state.history() == clone.history()


def sim_game(game, games: int, seed: int) -> None:
    assert game.min_utility() < game.max_utility()
    assert str(game) == str(pickle.loads(pickle.dumps(game)))
    assert game.get_type() == pickle.loads(pickle.dumps(game.get_type()))
    rng = np.random.RandomState(seed)
    for _ in range(games):
        state = game.new_initial_state()
        total = 0
        next_check = 1
        while not state.is_terminal() and total <= MAX_ACTIONS_PER_GAME:
            total += 1
            if total >= next_check:
                _serialize_deserialize(game, state)
                next_check *= 2
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choice(actions, p=probs))
            else:
                assert state.is_player_node()
                _apply_and_test_clone(state, rng.choice(state.legal_actions(state.current_player())))
        assert state.is_terminal(), f"no end within {MAX_ACTIONS_PER_GAME} actions"
        assert total <= game.max_game_length()
        assert state.legal_actions() == []
        for player in range(game.num_players()):
            assert state.legal_actions(player) == []
            assert state.player_return(player) == state.returns()[player]
            assert game.min_utility() <= state.returns()[player] <= game.max_utility()


@pytest.mark.parametrize("game_id,players,variant", CONFIGS, ids=IDS)
def test_sim_game(game_id, players, variant):
    sim_game(_game(game_id, players, variant), games=2, seed=0)


@pytest.mark.parametrize("game_id,players,variant", CONFIGS, ids=IDS)
def test_random_sim_test(game_id, players, variant):
    pyspiel.random_sim_test(_game(game_id, players, variant), num_sims=1, serialize=True, verbose=False,
                            mask_test=True)


@pytest.mark.slow
@pytest.mark.parametrize("game_id,players,variant", CONFIGS, ids=IDS)
def test_sim_game_thousand(game_id, players, variant):
    sim_game(_game(game_id, players, variant), games=1000, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("game_id,players,variant", CONFIGS, ids=IDS)
def test_random_sim_test_thousand(game_id, players, variant):
    pyspiel.random_sim_test(_game(game_id, players, variant), num_sims=1000, serialize=True, verbose=False,
                            mask_test=True)


# --- action ids ---------------------------------------------------------------------------------

def test_action_space_is_the_true_size_and_round_trips():
    game = load_game(str(bundled_games_dir() / "alice"))
    rules = engine_by_name("alice")(game, 2, "versus")
    bridged = _game("alice", 2, "versus")
    assert bridged.num_distinct_actions() == rules.action_space.size
    # a chance outcome draws a card, or (an event's peek, `draw:<card>:peek`) looks at it
    assert bridged.max_chance_outcomes() == rules.chance_space.size == 2 * len(set(c.id for c in game.cards))
    # every id names one action and back; alice's ordering of three peeked cards fits
    for space in (rules.action_space, rules.chance_space):
        for code in range(0, space.size, 7):
            try:
                action = space.action(code)
            except ValueError:             # an argument after an absent one: no action has it
                continue
            assert space.id(action) == code
    assert "order:AL01:AL02:AL03" in [str(rules.action_space.action(rules.action_space.id(
        rules.decode_action("order:AL01:AL02:AL03"))))]


_RECORD = """
import json, sys
import numpy as np, pyspiel
from cardgen.engine import openspiel_bridge
openspiel_bridge.register_all()
game = pyspiel.load_game(sys.argv[1], {"players": int(sys.argv[2])})
if sys.argv[3] == "record":
    rng = np.random.RandomState(int(sys.argv[4]))
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            a, p = zip(*state.chance_outcomes()); state.apply_action(int(rng.choice(a, p=p)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
else:
    state = game.new_initial_state()
    for action in json.loads(sys.stdin.read()):
        state.apply_action_with_legality_check(action)
print(json.dumps({"history": state.history(), "text": str(state), "returns": state.returns()}))
"""


@pytest.mark.parametrize("game_id,players", [("llll", 4), ("alice", 2)])
def test_a_history_recorded_in_one_process_replays_in_another(game_id, players):
    def run(*args, stdin=""):
        done = subprocess.run([sys.executable, "-c", _RECORD, f"cardgen_{game_id}", str(players), *args],
                              input=stdin, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        return json.loads(done.stdout)

    recorded = run("record", "5")
    replayed = run("replay", stdin=json.dumps(recorded["history"]))
    assert replayed == recorded


_PLAYTHROUGH = """
import sys
from absl import flags
from open_spiel.python.algorithms import generate_playthrough
from cardgen.engine import openspiel_bridge
openspiel_bridge.register_all()
flags.FLAGS(["playthrough"])
if sys.argv[1] == "generate":
    text = generate_playthrough.playthrough(sys.argv[3], action_sequence=None, alsologtostdout=False, seed=3)
    open(sys.argv[2], "w", encoding="utf-8").write(text)
else:
    expected, replayed = generate_playthrough.replay(sys.argv[2])
    sys.exit(0 if expected == replayed else 1)
"""


@pytest.mark.slow
def test_openspiel_playthrough_from_another_process_replays(tmp_path):
    """OpenSpiel's own regression format: a playthrough written by one process (action ids,
    strings, tensors, returns) is regenerated identically by another (about 15 s; the default
    run replays a history across processes in test_a_history_recorded_in_one_process...)."""
    path = tmp_path / "playthrough.txt"
    for step in ("generate", "replay"):
        done = subprocess.run([sys.executable, "-c", _PLAYTHROUGH, step, str(path), "cardgen_ohanatsumi(players=1)"],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, (step, done.stderr[-2000:])


def test_unknown_action_ids_raise_spiel_error():
    game = _game("llll", 4, "standard")
    state = game.new_initial_state()
    with pytest.raises(pyspiel.SpielError):
        state.apply_action_with_legality_check(game.max_chance_outcomes() + 5)
    _play_random(state, np.random.RandomState(0), stop=lambda s: not s.is_chance_node())
    with pytest.raises(pyspiel.SpielError):
        state.apply_action_with_legality_check(game.num_distinct_actions())
    with pytest.raises(pyspiel.SpielError):
        state.apply_action_with_legality_check(-1)


# --- game and state objects -----------------------------------------------------------------------

def test_clone_deepcopy_and_resample_keep_the_history():
    import copy

    game = _game("llll", 3, "standard")
    rng = np.random.RandomState(2)
    state = _play_random(game.new_initial_state(), rng, stop=lambda s: s.move_number() >= 40 and not s.is_chance_node())
    for copied in (state.clone(), copy.deepcopy(state)):
        assert copied.history() == state.history() and copied.move_number() == state.move_number() == 40
    seat = state.current_player()
    for _ in range(5):
        resampled = state.resample_from_infostate(seat, pyspiel.UniformProbabilitySampler(0., 1.))
        assert resampled.move_number() == len(resampled.history()) == 40
        assert resampled.information_state_string(seat) == state.information_state_string(seat)
        # its history is its own (the sampled chance outcomes), replayable from the start
        replay = game.new_initial_state()
        for action in resampled.history():
            replay.apply_action_with_legality_check(action)
        assert str(replay) == str(resampled)


def test_apply_action_from_python_keeps_one_history_without_a_round_trip(monkeypatch):
    """Python's apply_action is answered by the bridge (C++'s ApplyAction would call back into
    Python twice per move: the speed of issue #30); every history accessor still answers as if
    C++ had applied each move, whichever side applied it."""
    game = _game("requiem", 3, "standard")
    by_python = game.new_initial_state()
    assert by_python.is_initial_state() and not by_python.is_initial_non_chance_state()
    _play_random(by_python, np.random.RandomState(5), stop=lambda s: not s.is_chance_node())
    assert by_python.is_initial_non_chance_state() and not by_python.is_initial_state()
    by_python = by_python.child(by_python.legal_actions()[0])       # C++ applies this one
    _play_random(by_python, np.random.RandomState(5), stop=lambda s: s.move_number() >= 40)
    by_python.apply_action(np.int64(by_python.legal_actions()[0]))   # as rng.choice gives it
    by_cpp = game.new_initial_state()
    for action in by_python.history():
        pyspiel.State.apply_action(by_cpp, action)
    assert all(type(action) is int for action in by_python.history())
    assert by_python.history() == pyspiel.State.history(by_cpp)
    assert by_python.history_str() == pyspiel.State.history_str(by_cpp)
    assert by_python.move_number() == pyspiel.State.move_number(by_cpp) == 41
    assert ([(pa.player, pa.action) for pa in by_python.full_history()]
            == [(pa.player, pa.action) for pa in pyspiel.State.full_history(by_cpp)])
    assert not by_python.is_initial_state() and not by_python.is_initial_non_chance_state()
    assert by_python.serialize() == pyspiel.State.serialize(by_cpp)
    assert str(game.deserialize_state(by_python.serialize())) == str(by_cpp)
    with pytest.raises(pyspiel.SpielError):
        by_python.apply_action(game.num_distinct_actions())
    with pytest.raises(TypeError):
        by_python.apply_action(1.0)
    # no round trip: the bridge's own current_player is not called back by apply_action
    calls = []
    current_player = bridge.BridgeState.current_player
    monkeypatch.setattr(bridge.BridgeState, "current_player", lambda self: calls.append(1) or current_player(self))
    by_python.apply_action(by_python.legal_actions()[0])
    assert calls == []


def test_games_and_states_pickle_and_serialize_small():
    game = _game("ohanatsumi", 3, "standard")
    state = _play_random(game.new_initial_state(), np.random.RandomState(3), stop=lambda s: s.move_number() >= 60)
    again = pickle.loads(pickle.dumps(state))
    assert str(again) == str(state) and again.history() == state.history()
    assert again.information_state_string(0) == state.information_state_string(0)
    text = state.serialize()
    assert len(text.encode()) < 1500, len(text)       # the history, not the rules and the card model
    restored = game.deserialize_state(text)
    assert str(restored) == str(state) and restored.history() == state.history()
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    # a history made under other rules is refused with SpielError, not replayed into a broken state
    with pytest.raises(pyspiel.SpielError):
        _game("ohanatsumi", 1, "two_character").deserialize_state(text).returns()


def test_each_game_object_owns_its_rules(game_copy):
    folder = game_copy("llll")
    path = folder / "game.yaml"
    path.write_text(re.sub(r"starting_action_points: *10", "starting_action_points: 25", path.read_text(encoding="utf-8")),
                    encoding="utf-8")
    bundled = _game("llll", 4, "standard")
    copied = pyspiel.load_game("cardgen_llll", {"players": 4, "path": str(folder)})
    rules = engine_by_name("llll")(load_game(str(folder)), 4)
    wrapped = bridge.load_bridge_game(rules)

    def ap(game) -> list[int]:
        state = _play_random(game.new_initial_state(), np.random.RandomState(0), stop=lambda s: not s.is_chance_node())
        return [seat["ap"] for seat in json.loads(state.observation_string(0))["public"]["seats"]]

    assert ap(bundled) == [10] * 4
    assert ap(copied) == ap(wrapped) == [25] * 4
    assert ap(_game("llll", 4, "standard")) == [10] * 4          # loading the copy changed nothing
    assert ap(pickle.loads(pickle.dumps(wrapped))) == [25] * 4   # a pickled game keeps its rules
    assert str(pickle.loads(pickle.dumps(wrapped))) == str(wrapped)


def test_undo_action_takes_back_the_last_action():
    game = _game("requiem", 3, "standard")
    state = _play_random(game.new_initial_state(), np.random.RandomState(4), stop=lambda s: s.move_number() >= 30)
    before = state.clone()
    action = state.legal_actions()[-1]
    player = state.current_player()
    state.apply_action(action)
    state.undo_action(player, action)
    assert str(state) == str(before) and state.history() == before.history()
    assert state.move_number() == before.move_number()
    with pytest.raises(pyspiel.SpielError):
        state.undo_action(player, action)          # not the last action any more


def test_utility_types():
    assert _game("llll", 4, "standard").get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert _game("llll", 4, "standard").utility_sum() == 1.0
    assert _game("requiem", 3, "standard").get_type().utility == pyspiel.GameType.Utility.IDENTICAL
    assert _game("alice", 1, "solo").get_type().utility == pyspiel.GameType.Utility.IDENTICAL
    assert _game("alice", 2, "versus").get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM


def test_max_game_length_bounds_the_games():
    for game_id, players, variant in CONFIGS:
        game = _game(game_id, players, variant)
        rng = np.random.RandomState(6)
        longest = max(_play_random(game.new_initial_state(), rng).move_number() for _ in range(5))
        assert longest <= game.max_game_length(), (game_id, players, longest, game.max_game_length())


def test_max_game_length_is_derived_from_the_rules(game_copy):
    folder = game_copy("alice")
    path = folder / "game.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(re.sub(r"max_investigation_phases: *100", "max_investigation_phases: 50", text), encoding="utf-8")
    bundled = _game("alice", 1, "solo").max_game_length()
    halved = pyspiel.load_game("cardgen_alice", {"players": 1, "path": str(folder)}).max_game_length()
    assert bundled < 5000 and halved == 1 + (bundled - 1) // 2
    assert _game("ohanatsumi", 4, "standard").max_game_length() < 1000


# --- observers ------------------------------------------------------------------------------------

def _observer(game, recall: bool, private):
    from open_spiel.python.observation import make_observation

    return make_observation(game, pyspiel.IIGObservationType(perfect_recall=recall, public_info=True,
                                                             private_info=private))


def test_observers_honour_the_observation_type():
    game = _game("llll", 4, "standard")
    # play until some seat holds a secret score card
    state = _play_random(game.new_initial_state(), np.random.RandomState(1), stop=lambda s: any(
        json.loads(s.information_state_string(p))["private"]["secret_score_cards"] for p in range(4)))
    secret_seat = next(p for p in range(4) if json.loads(state.information_state_string(p))["private"]["secret_score_cards"])
    secret = json.loads(state.information_state_string(secret_seat))["private"]["secret_score_cards"][0]
    for recall in (False, True):
        public = _observer(game, recall, pyspiel.PrivateInfoType.NONE)
        strings = {public.string_from(state, p) for p in range(4)}
        assert len(strings) == 1 and secret not in strings.pop()       # public facts only
        everyone = _observer(game, recall, pyspiel.PrivateInfoType.ALL_PLAYERS)
        assert secret in everyone.string_from(state, (secret_seat + 1) % 4)
        single = _observer(game, recall, pyspiel.PrivateInfoType.SINGLE_PLAYER)
        assert secret in single.string_from(state, secret_seat)
        assert secret not in single.string_from(state, (secret_seat + 1) % 4)
    # the observation is not the information state: it has no history
    assert state.observation_string(0) != state.information_state_string(0)
    assert "history" not in json.loads(state.observation_string(0))
    # tensors: the secret card shows only in its owner's tensors
    assert state.observation_tensor(secret_seat) != state.observation_tensor((secret_seat + 1) % 4)
    assert len(state.observation_tensor(0)) == game.observation_tensor_size()
    assert len(state.information_state_tensor(0)) == game.information_state_tensor_size()


@pytest.mark.parametrize("game_id,players,variant", CONFIGS, ids=IDS)
def test_public_and_all_players_observers_do_not_depend_on_the_seat(game_id, players, variant):
    """Public-only and all-players observations are the same for every seat (no seat's own view
    sneaks in), and a seat's private view is in its own string and in the all-players one."""
    game = _game(game_id, players, variant)
    rng = np.random.RandomState(5)
    state = game.new_initial_state()
    for _ in range(4):
        _play_random(state, rng, stop=lambda s, n=state.move_number() + 15: s.move_number() >= n)
        if state.is_terminal():
            break
        for recall in (False, True):
            for private in (pyspiel.PrivateInfoType.NONE, pyspiel.PrivateInfoType.ALL_PLAYERS):
                observer = _observer(game, recall, private)
                assert len({observer.string_from(state, p) for p in range(players)}) == 1
                tensors = set()
                for p in range(players):
                    observer.set_from(state, p)
                    tensors.add(observer.tensor.tobytes())
                assert len(tensors) == 1 or private == pyspiel.PrivateInfoType.ALL_PLAYERS
        everyone = json.loads(_observer(game, False, pyspiel.PrivateInfoType.ALL_PLAYERS).string_from(state, 0))
        for p in range(players):
            own = json.loads(_observer(game, False, pyspiel.PrivateInfoType.SINGLE_PLAYER).string_from(state, p))
            assert own["private"] == everyone["private"][p]


def test_tensor_layout_drops_nothing_in_random_games():
    for game_id, players, variant in CONFIGS:
        game = _game(game_id, players, variant)
        rng = np.random.RandomState(9)
        state = game.new_initial_state()
        while not state.is_terminal():
            for seat in range(players):
                state.observation_tensor(seat)
            _play_random(state, rng, stop=lambda s, n=state.move_number(): s.move_number() > n)
        assert game._ctx.layout.dropped == 0, (game_id, players, variant)


@pytest.mark.parametrize("game_id,players,variant", CONFIGS, ids=IDS)
def test_rl_environment_steps_through_each_game(game_id, players, variant):
    from open_spiel.python import rl_environment

    game = _game(game_id, players, variant)
    env = rl_environment.Environment(game)
    env.seed(3)  # the constructor takes no seed (a `seed=` goes to the game's settings, unused): chance was unseeded
    rng = np.random.RandomState(3)
    step = env.reset()
    steps = 0
    while not step.last():
        player = step.observations["current_player"]
        assert len(step.observations["info_state"][player]) == game.information_state_tensor_size()
        step = env.step([int(rng.choice(step.observations["legal_actions"][player]))])
        steps += 1
    assert steps > 10 and len(step.rewards) == players
