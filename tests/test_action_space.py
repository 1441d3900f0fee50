"""Action ids (issue #30): `Rules.action_kinds()` declares every action kind with the ordered
domain of each argument, and `ActionSpace` numbers them from that alone, so an id means the
same action in every state and every process, whatever order actions are met in."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from cardgen.engine import engine_by_name
from cardgen.engine.core import CHANCE, TERMINAL, Action, ActionSpace, sample_chance
from cardgen.engine.harness import configurations
from cardgen.load import bundled_games_dir, load_game

from .conftest import BUNDLED

CONFIGS = [(game_id, players, variant) for game_id in BUNDLED
           for players, variant in configurations(load_game(str(bundled_games_dir() / game_id)))]


def _rules(game_id: str, players: int, variant: str):
    return engine_by_name(game_id)(load_game(str(bundled_games_dir() / game_id)), players, variant)


def test_ids_follow_the_declaration_in_mixed_radix():
    space = ActionSpace({"pass": (), "use": (("a", "b"), (None, 0, 1)), "draw": (("x", "y", "z"),)})
    assert space.size == 1 + 2 * 3 + 3
    assert [str(space.action(i)) for i in range(space.size)] == [
        "pass", "use:a", "use:a:0", "use:a:1", "use:b", "use:b:0", "use:b:1", "draw:x", "draw:y", "draw:z"]
    assert all(space.id(space.action(i)) == i for i in range(space.size))
    assert space.id(Action("use", ("b", 1))) == 6


def test_undeclared_actions_and_ids_are_refused():
    space = ActionSpace({"use": (("a", "b"), (None, 0))})
    for action in (Action("use", ("c",)), Action("use", ("a", 5)), Action("play", ()), Action("use", ("a", 0, 0))):
        with pytest.raises(ValueError, match="not in the declared action space"):
            space.id(action)
        assert action not in space
    for code in (-1, space.size, "3"):
        with pytest.raises(ValueError):
            space.action(code)
    with pytest.raises(ValueError, match="lists a value twice"):
        ActionSpace({"bid": ((1, 1),)})


def test_an_absent_argument_before_a_present_one_names_no_action():
    space = ActionSpace({"order": (("a", "b"), (None, "a", "b"), (None, "a", "b"))})
    holes = []
    for code in range(space.size):
        try:
            space.action(code)
        except ValueError:
            holes.append(code)
    # ids are first * 9 + second * 3 + third: an absent second (index 0) with a present third
    assert holes == [c for c in range(space.size) if c % 9 in (1, 2)]


@pytest.mark.parametrize("game_id,players,variant", CONFIGS,
                         ids=[f"{g}-{p}p-{v}" for g, p, v in CONFIGS])
def test_every_action_of_random_games_is_declared(game_id, players, variant):
    """Each legal move and chance outcome has an id in its space that decodes to it; the
    automatic moves engines record are declared too."""
    rules = _rules(game_id, players, variant)
    moves, chances = rules.action_space, rules.chance_space
    for seed in range(8):
        rng = random.Random(seed)
        state = rules.new_initial_state()
        while state.current_player() != TERMINAL:
            space = chances if state.current_player() == CHANCE else moves
            for action in state.legal_actions():
                assert space.action(space.id(action)) == action
            legal = state.legal_actions()
            state.apply_unchecked(sample_chance(state, rng) if state.current_player() == CHANCE else rng.choice(legal))
        for action in state.history:
            assert action in moves or action in chances, action


_IDS = """
import json, sys
from cardgen.engine import engine_by_name
from cardgen.load import bundled_games_dir, load_game
rules = engine_by_name(sys.argv[1])(load_game(str(bundled_games_dir() / sys.argv[1])), int(sys.argv[2]))

def shown(space, i):
    try:
        return str(space.action(i))
    except ValueError:
        return None

print(json.dumps([[shown(space, i) for i in range(space.size)] for space in (rules.action_space, rules.chance_space)]))
"""


def test_ids_are_the_same_in_another_process():
    """Here the actions are met in the order of a game; in the child, in id order."""
    rules = _rules("alice", 2, "versus")
    state = rules.new_initial_state()
    rng = random.Random(1)
    met = []
    while state.current_player() != TERMINAL:
        legal = state.legal_actions()
        action = sample_chance(state, rng) if state.current_player() == CHANCE else rng.choice(legal)
        space = rules.chance_space if state.current_player() == CHANCE else rules.action_space
        met.append((space is rules.chance_space, space.id(action), str(action)))
        state.apply_unchecked(action)
    done = subprocess.run([sys.executable, "-c", _IDS, "alice", "2"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    moves, chances = json.loads(done.stdout)
    assert len(moves) == rules.action_space.size and len(chances) == rules.chance_space.size
    assert all((chances if chance else moves)[code] == text for chance, code, text in met)
