"""Engine speed: random games per second on one core, per game, and a timed `simulate` run.

    python3 benchmarks/bench_engine.py [--seconds 3] [--simulate-games 10000]
    python3 benchmarks/bench_engine.py --targets [--repeat 5] [--seconds 2]

Targets (issue 13, random play, one core): llll 4p >= 2,500 games/s, alice solo >= 4,000,
requiem >= 3,000, ohanatsumi 4p >= 2,500; `simulate --games 10000` of any game < 15 s.
`--targets` measures only those four, `--repeat` times each, and judges the median.
Numbers are measured in this run on this machine; compare them only with each other.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardgen.engine import game_engine  # noqa: E402
from cardgen.engine.bots import make_policy  # noqa: E402
from cardgen.engine.simulate import game_seed, play, simulate  # noqa: E402
from cardgen.load import bundled_game_ids, load_game  # noqa: E402

# (game, players) -> random games per second on one core; None means every player count.
TARGETS = {("llll", 4): 2500, ("alice", 1): 4000, ("requiem", 3): 3000, ("ohanatsumi", 4): 2500}


def target_for(game_id: str, players: int) -> int | None:
    return TARGETS.get((game_id, players))


def games_per_second(game, players: int, policy: str, seconds: float) -> tuple[float, float]:
    engine = game_engine(game)
    rules = engine(game, players)
    policies = [make_policy(engine, policy, rules) for _ in range(players)]
    games = actions = 0
    start = time.perf_counter()
    cpu = time.process_time()
    while time.perf_counter() - start < seconds:
        for _ in range(50):
            state = play(rules, policies, game_seed(12345, games))
            actions += len(state.history)
            games += 1
    # CPU time of this process: the one-core rate even when other processes share the cores.
    elapsed = time.process_time() - cpu
    return games / elapsed, actions / elapsed


def check_targets(seconds: float, repeat: int) -> int:
    """Median random games/s of each target over `repeat` runs; exit status 1 if one is missed."""
    import statistics
    print(f"one core (rates per CPU-second of this process); load average {os.getloadavg()[0]:.2f}; "
          f"median of {repeat} runs of {seconds:g} s")
    missed = 0
    for (game_id, players), target in TARGETS.items():
        game = load_game(game_id)
        runs = [games_per_second(game, players, "random", seconds)[0] for _ in range(repeat)]
        median = statistics.median(runs)
        ok = median >= target
        missed += not ok
        shown = ", ".join(f"{r:.0f}" for r in runs)
        print(f"{game_id:<11} {players}p random  median {median:7.0f} games/s  target {target}: "
              f"{'met' if ok else 'MISSED'}  (runs: {shown})")
    return 1 if missed else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--simulate-games", type=int, default=10000, help="games for the timed simulate run (0 = skip)")
    parser.add_argument("--targets", action="store_true", help="measure only the four targets (random play) and judge the median")
    parser.add_argument("--repeat", type=int, default=5, help="measurements per target with --targets")
    args = parser.parse_args()
    random.seed(0)
    if args.targets:
        sys.exit(check_targets(args.seconds, args.repeat))
    print(f"one core (rates per CPU-second of this process); {os.cpu_count()} cores on this machine,"
          f" load average {os.getloadavg()[0]:.2f}")
    for game_id in bundled_game_ids():
        try:
            game = load_game(game_id)
            engine = game_engine(game)
        except Exception as exc:
            print(f"{game_id:<11} skipped: {exc}")
            continue
        if engine is None:
            continue
        for players in game.player_counts:
            for policy in sorted({"random", *engine.POLICIES}):
                try:
                    gps, aps = games_per_second(game, players, policy, args.seconds)
                except Exception as exc:  # another module's bug must not hide the other numbers
                    print(f"{game_id:<11} {players}p {policy:<8} failed: {type(exc).__name__}: {exc}")
                    continue
                target = target_for(game_id, players) if policy == "random" else None
                verdict = "" if target is None else (f"  target {target}: {'met' if gps >= target else 'MISSED'}")
                print(f"{game_id:<11} {players}p {policy:<8} {gps:8.0f} games/s {aps:10.0f} actions/s{verdict}")
    if args.simulate_games:
        for game_id, players in (("llll", 4), ("requiem", 3), ("alice", 1), ("ohanatsumi", 4)):
            start = time.perf_counter()
            report = simulate(game_id, games=args.simulate_games, seed=1, players=players, workers=None)
            elapsed = time.perf_counter() - start
            print(f"simulate {game_id} --players {players} --games {args.simulate_games} (all cores, random): {elapsed:.2f} s"
                  f"  target < 15 s: {'met' if elapsed < 15 else 'MISSED'}  (mean length {report.as_dict()['length']['mean']:.1f})")


if __name__ == "__main__":
    main()
