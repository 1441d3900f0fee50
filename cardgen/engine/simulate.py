"""Simulate many games with bots and report balance statistics.

Game i of a run uses a seed derived from (run seed, i) alone, and its results are gathered in
index order, so a run gives the same report whatever the number of worker processes. The
number of games is fixed in advance (never "until it looks significant").
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from ..errors import CardgenError
from ..load import load_game
from ..model import Game
from ..registry import engine_on_worker, game_engine
from ..metrics import balance_metrics, game_features, wilson
from .agents import make_any_policy, parse_policy
from .core import Rules, State
from .core import play as core_play

_CHUNK = 250          # games per task sent to a worker


def game_seed(seed: int, index: int) -> int:
    """The seed of game `index` of a run with `seed`: independent of workers and chunking."""
    digest = hashlib.sha256(f"cardgen-sim:{seed}:{index}".encode()).digest()
    return int.from_bytes(digest[:7], "big")


def policy_seed(game_seed_: int) -> int:
    """The bots' own random source for a game (never the game's chance source)."""
    digest = hashlib.sha256(f"cardgen-policy:{game_seed_}".encode()).digest()
    return int.from_bytes(digest[:7], "big")


def percentile(sorted_values: Sequence[int], q: float) -> int:
    """Nearest-rank percentile of an ascending list."""
    if not sorted_values:
        return 0
    rank = max(1, math.ceil(q / 100 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def play(rules: Rules, policies: Sequence[Any], seed: int, deck_order: Sequence[str] | None = None) -> State:
    """Play one game to the end: chance outcomes drawn from a source seeded with `seed`, the
    bots' own randomness from `policy_seed(seed)` (the fast loop: actions come from
    legal_actions, so they are applied without validating them a second time)."""
    state = rules.new_initial_state(deck_order)
    try:
        return core_play(state, policies, random.Random(seed), random.Random(policy_seed(seed)), rules.max_actions)
    except RuntimeError:
        raise RuntimeError(f"{rules.game.id}: game with seed {seed} passed {rules.max_actions} moves without ending") from None


def _seat_policies(names: Sequence[str], index: int, rotate: bool) -> list[str]:
    if not rotate:
        return list(names)
    shift = index % len(names)
    return list(names[shift:]) + list(names[:shift])


# --- the worker side --------------------------------------------------------------------------

_CACHE: dict[tuple, tuple[Any, Rules]] = {}
_GAMES: dict[str, Game] = {}


def _init_worker(root: str, game: Game) -> None:
    _CACHE.clear()          # a forked worker must not reuse rules cached by an earlier run
    _GAMES.clear()
    _GAMES[root] = game


def _rules_for(root: str, players: int, variant: str) -> tuple[Any, Rules]:
    key = (root, players, variant)
    if key not in _CACHE:
        game = _GAMES.get(root) or load_game(root)
        rules_class = game_engine(game)
        _CACHE[key] = (rules_class, rules_class(game, players, variant))
    return _CACHE[key]


def _run_chunk(task: tuple, loaded: tuple[Any, Rules] | None = None) -> list[tuple]:
    root, players, variant, names, rotate, seed, start, stop, records_dir = task
    rules_class, rules = loaded or _rules_for(root, players, variant)
    out = []
    for index in range(start, stop):
        gseed = game_seed(seed, index)
        seat_names = _seat_policies(names, index, rotate)
        policies = [make_any_policy(rules_class, name, rules) for name in seat_names]
        state = play(rules, policies, gseed)
        result = state.result()
        # a game's length is the players' decisions (chance outcomes and automatic moves are
        # in the history and in result.length, but they are not turns anyone plays)
        length = result.decisions if result.decisions is not None else result.length
        out.append((index, tuple(seat_names), result.scores, result.winners, length,
                    result.success, result.ending, result.draw, game_features(state, result)))
        if records_dir:
            from .record import Record, save_record

            record = Record(game=rules.game.id, players=players, variant=variant, seed=gseed,
                            actions=[str(a) for a in state.history],
                            meta={"policies": seat_names, "run_seed": seed, "index": index,
                                  "result": {"scores": list(result.scores), "winners": list(result.winners),
                                             "ending": result.ending}})
            save_record(record, Path(records_dir) / f"{rules.game.id}-{index:06d}.yaml")
    return out


def _run_chunk_on(game: Game, task: tuple) -> list[tuple]:
    """Run one chunk of games of `game` in an executor's worker (a Dask worker, say): the game
    travels with the task, because that worker may lack the folder or hold another version of it."""
    root = task[0]
    if _GAMES.get(root) != game:
        _GAMES[root] = game
        for key in [k for k in _CACHE if k[0] == root]:
            del _CACHE[key]
    with engine_on_worker(game):
        return _run_chunk(task)


# --- the report -------------------------------------------------------------------------------

@dataclass
class SimulationReport:
    game: str
    players: int
    variant: str
    games: int
    seed: int
    policies: list[str]
    rotate: bool
    cooperative: bool
    seat_wins: list[int]
    draws: int
    lengths: list[int]
    endings: Counter
    successes: int
    success_scores: Counter          # co-operative: score of each successful game
    policy_games: Counter            # strategy comparison: seats played per policy
    policy_wins: Counter
    policy_score_sum: Counter
    score_counts: list[Counter] = field(default_factory=list)   # per seat: score -> games
    features: list[dict] = field(default_factory=list)          # per game, in index order (cardgen.metrics)
    workers: int = 1
    elapsed: float = 0.0
    records_dir: str | None = None

    def as_dict(self) -> dict[str, Any]:
        n = self.games
        lengths = sorted(self.lengths)
        out: dict[str, Any] = {
            "game": self.game, "players": self.players, "variant": self.variant, "games": n,
            "seed": self.seed, "policies": list(self.policies), "seat_rotation": self.rotate,
            "seats": [], "draws": self.draws, "draw_rate": self.draws / n if n else 0.0,
            "length": {
                "mean": sum(lengths) / n if n else 0.0, "min": lengths[0] if lengths else 0,
                "max": lengths[-1] if lengths else 0,
                **{f"p{q}": percentile(lengths, q) for q in (10, 25, 50, 75, 90)},
            },
            "length_counts": {str(k): v for k, v in sorted(Counter(lengths).items())},
            "endings": dict(sorted(self.endings.items())),
            "scores": {f"seat_{s + 1}": {str(k): v for k, v in sorted(c.items())} for s, c in enumerate(self.score_counts)},
        }
        if not self.cooperative:
            for s in range(self.players):
                wins = self.seat_wins[s]
                lo, hi = wilson(wins, n)
                out["seats"].append({"seat": s + 1, "policy": self.policies[s] if not self.rotate else "rotating",
                                     "wins": wins, "win_rate": wins / n if n else 0.0, "wilson95": [lo, hi]})
        if self.cooperative:
            lo, hi = wilson(self.successes, n)
            scored = sum(self.success_scores.values())
            out["cooperative"] = {
                "successes": self.successes, "success_rate": self.successes / n if n else 0.0, "wilson95": [lo, hi],
                "scores_of_successes": {str(k): v for k, v in sorted(self.success_scores.items())},
                "mean_score_of_successes": (sum(k * v for k, v in self.success_scores.items()) / scored) if scored else None,
            }
        if len(set(self.policies)) > 1:
            rows = []
            for name in sorted(self.policy_games):
                seats = self.policy_games[name]
                wins = self.policy_wins[name]
                lo, hi = wilson(wins, seats)
                rows.append({"policy": name, "seat_games": seats, "wins": wins, "win_rate": wins / seats if seats else 0.0,
                             "wilson95": [lo, hi], "mean_score": self.policy_score_sum[name] / seats if seats else 0.0})
            out["strategies"] = rows
        out["metrics"] = balance_metrics(self)
        out["run"] = {"workers": self.workers, "elapsed_s": round(self.elapsed, 3), "records_dir": self.records_dir}
        return out


def simulate(game: Game | str, games: int = 1000, seed: int = 0, players: int | None = None,
             policies: Sequence[str] | None = None, workers: int | None = 1, variant: str | None = None,
             rotate: bool = False, save_records: str | os.PathLike | None = None,
             progress: Callable[[int], None] | None = None, executor: Any = None,
             chunk: int | None = None) -> SimulationReport:
    """Play `games` games with bots and gather balance statistics.

    `policies`: one name for every seat, or one per seat. `workers`: processes (None = all
    cores); the report does not depend on it. `rotate`: game i shifts the policies i seats,
    so that a strategy comparison is not a seat comparison. `executor`: an object whose
    `map(fn, tasks)` yields results in task order (cardgen.analysis.executors: local processes
    or a Dask cluster); it replaces `workers`, and the report does not depend on it either.
    """
    if isinstance(game, str):
        game = load_game(game)
    rules_class = game_engine(game)
    if rules_class is None:
        raise CardgenError(f"{game.id} has no rules engine to simulate (game.yaml names no `engine:`)")
    players = players if players is not None else game.min_players
    if players not in game.player_counts:
        raise CardgenError(f"{game.id} is for {game.min_players}-{game.max_players} players, not {players}")
    if variant is None:
        variant = rules_class.default_variant(players, game)
    if variant not in rules_class.variants:
        raise CardgenError(f"{game.id} has no variant {variant!r}; choose from {', '.join(rules_class.variants)}")
    if games < 1:
        raise CardgenError("--games must be at least 1")
    names = list(policies) if policies else ["random"]
    if len(names) == 1:
        names = names * players
    if len(names) != players:
        raise CardgenError(f"give one policy for every seat or {players} policies (one per seat), not {len(names)}")
    for name in names:
        try:
            parse_policy(rules_class, name)
        except ValueError as exc:
            raise CardgenError(f"{game.id}: {exc}") from None
    if not rules_class.supports(players, variant, game):
        playable = ", ".join(f"{v}" for v in rules_class.variants if rules_class.supports(players, v, game))
        raise CardgenError(f"{game.id}: variant {variant!r} cannot be played by {players} player(s); "
                           f"with {players} player(s) use {playable or 'another player count'}")
    try:
        rules = rules_class(game, players, variant)
    except ValueError as exc:  # the rules refuse this set-up (a data or option problem, not a bug)
        raise CardgenError(str(exc)) from None
    records_dir = None
    if save_records is not None:
        Path(save_records).mkdir(parents=True, exist_ok=True)
        records_dir = str(save_records)
    workers = workers or os.cpu_count() or 1
    root = str(game.root)
    # `chunk`: games per task, so per progress step (each game has its own seed: the results do not depend on it)
    size = max(1, min(chunk or _CHUNK, _CHUNK))
    tasks = [(root, players, variant, tuple(names), rotate, seed, start, min(games, start + size), records_dir)
             for start in range(0, games, size)]
    started = time.perf_counter()
    rows: list[tuple] = []
    if executor is not None:
        import functools

        for chunk in executor.map(functools.partial(_run_chunk_on, game), tasks):
            rows.extend(chunk)
            if progress:
                progress(len(chunk))
    elif workers <= 1 or len(tasks) == 1:
        for task in tasks:
            chunk = _run_chunk(task, (rules_class, rules))
            rows.extend(chunk)
            if progress:
                progress(len(chunk))
    else:
        from ..workers import worker_pool

        with worker_pool(min(workers, len(tasks)), _init_worker, (root, game)) as pool:
            for chunk in pool.imap(_run_chunk, tasks):
                rows.extend(chunk)
                if progress:
                    progress(len(chunk))
    elapsed = time.perf_counter() - started
    return _report(game.id, players, variant, games, seed, names, rotate, rules.cooperative, rows,
                   workers, elapsed, records_dir)


def _report(game_id: str, players: int, variant: str, games: int, seed: int, names: list[str], rotate: bool,
            cooperative: bool, rows: list[tuple], workers: int, elapsed: float, records_dir: str | None) -> SimulationReport:
    rows.sort(key=lambda r: r[0])
    seat_wins = [0] * players
    draws = 0
    lengths = []
    endings: Counter = Counter()
    successes = 0
    success_scores: Counter = Counter()
    policy_games: Counter = Counter()
    policy_wins: Counter = Counter()
    policy_score: Counter = Counter()
    score_counts: list[Counter] = [Counter() for _ in range(players)]
    features = []
    for _index, seat_names, scores, winners, length, success, ending, draw, feature in rows:
        features.append(feature)
        lengths.append(length)
        for s in range(players):
            score_counts[s][scores[s]] += 1
        if ending is not None:
            endings[ending] += 1
        if success is not None:
            cooperative = True
            if success:
                successes += 1
                success_scores[scores[0]] += 1
        if draw:
            draws += 1
        for s in range(players):
            policy_games[seat_names[s]] += 1
            policy_score[seat_names[s]] += scores[s]
        if not draw and success is None and len(winners) == 1:
            seat_wins[winners[0]] += 1
            policy_wins[seat_names[winners[0]]] += 1
        elif success:
            for s in winners:
                policy_wins[seat_names[s]] += 1
    return SimulationReport(game_id, players, variant, games, seed, names, rotate, cooperative, seat_wins, draws,
                            lengths, endings, successes, success_scores, policy_games, policy_wins, policy_score,
                            score_counts, features, workers, elapsed, records_dir)


def format_report(report: SimulationReport) -> str:
    """The report as text for the terminal."""
    d = report.as_dict()
    lines = [f"{d['game']}: {d['games']} games, {d['players']} players, variant {d['variant']}, seed {d['seed']}",
             "policies: " + ", ".join(f"seat {i + 1} {p}" for i, p in enumerate(d["policies"]))
             + (" (rotated one seat each game)" if d["seat_rotation"] else "")]
    for row in d["seats"]:
        lo, hi = row["wilson95"]
        lines.append(f"  seat {row['seat']} ({row['policy']}): wins {row['wins']} = {row['win_rate']:.1%}  95% CI {lo:.1%}–{hi:.1%}")
    if not report.cooperative:
        lines.append(f"  draws: {d['draws']} = {d['draw_rate']:.1%}")
    if "cooperative" in d:
        c = d["cooperative"]
        lo, hi = c["wilson95"]
        lines.append(f"  success: {c['successes']} = {c['success_rate']:.1%}  95% CI {lo:.1%}–{hi:.1%}")
        if c["mean_score_of_successes"] is not None:
            scores = ", ".join(f"{k}: {v}" for k, v in c["scores_of_successes"].items())
            lines.append(f"  score of successes: mean {c['mean_score_of_successes']:.2f}; {scores}")
    if d["endings"]:
        lines.append("  endings: " + ", ".join(f"{k} {v} ({v / d['games']:.1%})" for k, v in d["endings"].items()))
    ln = d["length"]
    lines.append(f"  length (player decisions; chance and automatic moves not counted): mean {ln['mean']:.1f}, min {ln['min']}, p10 {ln['p10']}, p25 {ln['p25']}, "
                 f"median {ln['p50']}, p75 {ln['p75']}, p90 {ln['p90']}, max {ln['max']}")
    for row in d.get("strategies", []):
        lo, hi = row["wilson95"]
        lines.append(f"  strategy {row['policy']}: {row['wins']} wins in {row['seat_games']} seat-games = {row['win_rate']:.1%}"
                     f"  95% CI {lo:.1%}–{hi:.1%}, mean score {row['mean_score']:.2f}")
    run = d["run"]
    lines.append(f"  ({run['workers']} worker(s), {run['elapsed_s']:.2f} s"
                 + (f", records in {run['records_dir']}" if run["records_dir"] else "") + ")")
    return "\n".join(lines)
