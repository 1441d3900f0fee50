"""Balance metrics after Ludii's: every figure `simulate --format json` and the balance report
print beyond the raw win counts, each with a 95 % interval.

Per game (`game_features`, computed where the game was played): the score trajectory is
rebuilt by replaying the finished game's history from a new state and reading the running
scores after every move (`running_scores`: the engine's `scores()`, `points(seat)`,
`fame(seat)` or co-operative `score()`), from which come

- lead changes: how often the sole leader changes hands (ties keep the last sole leader);
- decisiveness: the fraction of the game's moves played before the eventual sole winner took
  a lead it never lost afterwards (0 = settled from the start, near 1 = settled at the end).

Over a run (`balance_metrics`): first-player and per-seat advantage (win rate minus 1/n, Wilson
interval), draw rate, decisiveness, lead changes and game length (means with normal 95 %
intervals), and for co-operative or solo games the success rate and each ending's rate (Wilson).

Plain statistics that import nothing of cardgen, so the engine (where a game is played), the
reports and the sweeps all read them from below.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: Sequence[float], z: float = Z95) -> dict[str, Any]:
    """Mean with a normal-approximation 95 % interval (None when there are no values)."""
    n = len(values)
    if not n:
        return {"mean": None, "ci95": None, "n": 0}
    mean = sum(values) / n
    if n == 1:
        return {"mean": mean, "ci95": [mean, mean], "n": 1}
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return {"mean": mean, "ci95": [mean - half, mean + half], "n": n}


# --- per game -----------------------------------------------------------------------------------

def running_scores(state: Any) -> tuple[float, ...] | None:
    """Every seat's score as the game stands (None when the engine offers no running score)."""
    n = state.rules.players
    try:
        if hasattr(state, "scores") and callable(state.scores):
            return tuple(state.scores())
        for name in ("points", "fame"):
            fn = getattr(state, name, None)
            if callable(fn):
                return tuple(fn(s) for s in range(n))
        fn = getattr(state, "score", None)
        if callable(fn):
            return (fn(),) * n
    except Exception:  # a score read mid-setup (before the deal) may not be defined
        return None
    return None


def score_trajectory(state: Any) -> list[tuple[float, ...]]:
    """The running scores after each move of a finished game, by replaying its history."""
    rules = state.rules
    replay = rules.new_initial_state(None)
    history = state.history
    out: list[tuple[float, ...]] = []
    i = 0
    while i < len(history):
        if i >= len(replay.history):
            replay.history.append(history[i])
            replay._apply(history[i])
        i += 1
        if not replay.is_chance_node():          # read scores between decisions, not mid-deal
            scores = running_scores(replay)
            if scores is not None:
                out.append(scores)
    return out


def lead_features(trajectory: Sequence[Sequence[float]], winners: Sequence[int]) -> tuple[int, float | None]:
    """(lead changes, decisiveness) of one game from its score trajectory."""
    leader = None
    changes = 0
    leaders: list[int | None] = []
    for scores in trajectory:
        top = max(scores)
        at_top = [s for s, v in enumerate(scores) if v == top]
        if len(at_top) == 1:
            if leader is not None and at_top[0] != leader:
                changes += 1
            leader = at_top[0]
            leaders.append(leader)
        else:
            leaders.append(None)
    decided = None
    if len(winners) == 1 and leaders:
        winner = winners[0]
        k = len(leaders)
        while k > 0 and leaders[k - 1] == winner:
            k -= 1
        decided = k / len(leaders)
    return changes, decided


def game_features(state: Any, result: Any) -> dict[str, Any]:
    """What the run metrics need from one finished game (small and picklable)."""
    if result.success is not None or state.rules.players < 2:
        return {}
    try:
        trajectory = score_trajectory(state)
    except Exception:  # never let a metric stop a simulation
        return {}
    if not trajectory:
        return {}
    changes, decided = lead_features(trajectory, result.winners)
    return {"lead_changes": changes, "decided_at": decided}


# --- over a run ---------------------------------------------------------------------------------

def balance_metrics(report: Any) -> dict[str, Any]:
    """The balance metrics of a `SimulationReport`."""
    n = report.games
    players = report.players
    out: dict[str, Any] = {"games": n}
    out["length"] = mean_interval(report.lengths)
    features = [f for f in getattr(report, "features", []) if f]
    if report.cooperative:
        lo, hi = wilson(report.successes, n)
        out["success_rate"] = {"rate": report.successes / n if n else 0.0, "wilson95": [lo, hi]}
        out["endings"] = {name: {"games": k, "rate": k / n, "wilson95": list(wilson(k, n))}
                          for name, k in sorted(report.endings.items())}
        return out
    fair = 1 / players if players else 0.0
    seats = []
    for s in range(players):
        wins = report.seat_wins[s]
        lo, hi = wilson(wins, n)
        rate = wins / n if n else 0.0
        seats.append({"seat": s + 1, "win_rate": rate, "advantage": rate - fair, "advantage95": [lo - fair, hi - fair]})
    out["fair_share"] = fair
    out["seat_advantage"] = seats
    out["first_player_advantage"] = seats[0] if seats else None
    out["draw_rate"] = {"rate": report.draws / n if n else 0.0, "wilson95": list(wilson(report.draws, n))}
    out["lead_changes"] = mean_interval([f["lead_changes"] for f in features if "lead_changes" in f])
    out["decisiveness"] = mean_interval([f["decided_at"] for f in features if f.get("decided_at") is not None])
    if report.endings:
        out["endings"] = {name: {"games": k, "rate": k / n, "wilson95": list(wilson(k, n))}
                          for name, k in sorted(report.endings.items())}
    return out


def skill_table(results: Sequence[tuple[Any, dict]]) -> list[dict[str, Any]]:
    """Strong-against-weak rows from report runs: for each run whose policies differ, each
    policy's win rate (Wilson interval) and the fair share; for each co-operative or solo run,
    its policies and success rate. A designer reads whether a stronger player does better."""
    rows = []
    for _run, data in results:
        policies = " / ".join(dict.fromkeys(data["policies"]))
        if "cooperative" in data:
            co = data["cooperative"]
            rows.append({"policies": policies, "players": data["players"], "measure": "success",
                         "rate": co["success_rate"], "wilson95": co["wilson95"], "fair": None})
        elif data.get("strategies"):
            for row in data["strategies"]:
                rows.append({"policies": row["policy"], "players": data["players"],
                             "measure": "win rate vs " + " / ".join(p for p in dict.fromkeys(data["policies"]) if p != row["policy"]),
                             "rate": row["win_rate"], "wilson95": row["wilson95"], "fair": 1 / data["players"]})
    return rows
