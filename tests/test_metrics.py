"""Balance metrics after Ludii: lead changes, decisiveness, seat advantage, intervals."""

from __future__ import annotations

from cardgen.metrics import lead_features, mean_interval, wilson
from cardgen.engine.simulate import simulate


def test_lead_changes_and_decisiveness_from_a_trajectory():
    trajectory = [(0, 0), (1, 0), (1, 2), (3, 2), (3, 3), (4, 3)]
    changes, decided = lead_features(trajectory, winners=[0])
    assert changes == 2                  # 0 leads, 1 takes over, 0 takes it back (the tie keeps 0)
    assert decided == 5 / 6              # the tie at the fifth reading means seat 0 held no lead there
    assert lead_features([(0, 0), (1, 0)], winners=[0]) == (0, 0.5)
    assert lead_features([(1, 1)], winners=[0, 1])[1] is None


def test_intervals():
    lo, hi = wilson(50, 100)
    assert lo < 0.5 < hi
    m = mean_interval([1, 2, 3])
    assert m["mean"] == 2 and m["ci95"][0] < 2 < m["ci95"][1]
    assert mean_interval([])["mean"] is None


def test_simulate_json_carries_the_metrics():
    d = simulate("llll", games=40, players=3, workers=1).as_dict()["metrics"]
    assert {"seat_advantage", "first_player_advantage", "draw_rate", "lead_changes", "decisiveness", "length"} <= set(d)
    assert d["lead_changes"]["n"] == 40 and d["lead_changes"]["mean"] >= 0
    assert 0 <= d["decisiveness"]["mean"] <= 1
    co = simulate("requiem", games=20, players=3, workers=1).as_dict()["metrics"]
    assert "success_rate" in co and "endings" in co
    assert abs(sum(e["rate"] for e in co["endings"].values()) - 1) < 1e-9
