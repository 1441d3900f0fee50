"""The OpenSpiel bridge: a game loads by name, and OpenSpiel's IS-MCTS plays through it (the
conformance tests, random_sim_test included, are in test_openspiel_conformance.py). Skipped
only when open_spiel is not importable."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")

from cardgen.engine.simulate import simulate  # noqa: E402

bridge = pytest.importorskip("cardgen.engine.openspiel_bridge")


def test_load_game_by_name_with_players():
    bridge.register_all()
    game = pyspiel.load_game("cardgen_llll", {"players": 4})
    state = game.new_initial_state()
    assert state.is_chance_node()
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        assert abs(sum(p for _, p in outcomes) - 1) < 1e-9
        state.apply_action(outcomes[0][0])
    assert state.current_player() == 0
    assert state.legal_actions() == sorted(state.legal_actions())
    assert state.information_state_string(0) != state.information_state_string(1)
    resampled = state.resample_from_infostate(0, None)
    assert resampled.information_state_string(0) == state.information_state_string(0)


def test_openspiel_ismcts_is_a_policy():
    report = simulate("alice", games=1, players=1, policies=["openspiel-ismcts:5"], workers=1).as_dict()
    assert report["games"] == 1 and report["policies"] == ["openspiel-ismcts:5"]
