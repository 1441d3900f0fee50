"""Search agents measured: IS-MCTS speed (iterations per second, seconds per game) and strength.

    python benchmarks/bench_agents.py speed [--iterations 200] [--games 5]
        one IS-MCTS seat against three greedy bots in 4-player llll, on one core
        (--game G --players P --policy NAME --others BOT: another agent or game, e.g.
         speed --game alice --players 1 --policy rollout:64:heuristic; the rollout agent's
         rate is rollouts per second)
    python benchmarks/bench_agents.py strength GAME PLAYERS POLICY... [--games 400] [--workers 2]
        e.g. strength llll 4 ismcts:200 greedy greedy greedy   (seats rotated every game)
             strength alice 1 ismcts:200                        (solo success)
    python benchmarks/bench_agents.py paired ROWS_A ROWS_B
        two solo runs of the same seed (their --rows files) compared game by game: the paired
        difference of success rates with a 95 % interval (Newcombe) and McNemar's exact test
    python benchmarks/bench_agents.py openspiel [--iterations 200] [--games 3]
        OpenSpiel's IS-MCTS through the bridge, for comparison

Games are played in chunks of a few games across worker processes with progress on stderr;
game i uses the same seeds as `cardgen simulate` game i, so the result equals
`cardgen simulate GAME --players P --policy ... --rotate-seats --games N --seed S --format json`.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardgen.engine import game_engine  # noqa: E402
from cardgen.metrics import wilson  # noqa: E402
from cardgen.engine.agents import make_any_policy  # noqa: E402
from cardgen.engine.simulate import _report, _run_chunk, play  # noqa: E402
from cardgen.load import load_game  # noqa: E402


def speed(iterations: int, games: int, seed: int, game_id: str = "llll", players: int = 4, policy: str | None = None,
          others: str = "greedy") -> dict:
    """One searching seat (rotated game by game) against `others` bots, on one core; by default
    ismcts:ITERATIONS in 4-player llll against three greedy bots."""
    game = load_game(game_id)
    engine = game_engine(game)
    rules = engine(game, players, engine.default_variant(players, game))
    name = policy or f"ismcts:{iterations}"
    per_game = []
    cpu = []
    its = []
    # resampling: searched moves with no consistent determinization, and samples that failed
    searched = unmatched = samples = inconsistent = 0
    for k in range(games):
        agent = make_any_policy(engine, name, rules)
        seat = k % players
        policies = [agent if s == seat else make_any_policy(engine, others, rules) for s in range(players)]
        started, used = time.perf_counter(), time.process_time()
        play(rules, policies, seed + k)
        per_game.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
        # IS-MCTS counts iterations; the rollout agent counts rollouts (one per action and sample)
        rate = agent.iterations_per_second() if hasattr(agent, "iterations_per_second") else agent.rollouts_per_second()
        its.append(rate)
        searched += agent.stats["moves"]
        unmatched += agent.stats.get("unmatched", 0)
        determinizer = getattr(agent, "determinizer", None)
        samples += determinizer.samples if determinizer else 0
        inconsistent += determinizer.inconsistent if determinizer else 0
        print(f"game {k + 1}/{games}: {per_game[-1]:.2f} s ({cpu[-1]:.2f} s CPU), {agent.stats['moves']} searched moves, "
              f"{its[-1]:.0f} iterations/s, determinizations {agent.determinizer.samples} "
              f"({agent.determinizer.inconsistent} inconsistent)", file=sys.stderr)
    per_game.sort()
    cpu.sort()
    its.sort()
    # CPU seconds are the figure to hold against the target on a shared machine: wall time
    # counts the other processes' turns on the core as well
    return {"bench": "agent-speed", "game": game_id, "players": players, "policy": name, "others": others,
            "games": games, "seed": seed,
            "seconds_per_game_median": per_game[len(per_game) // 2], "seconds_per_game_max": per_game[-1],
            "cpu_seconds_per_game_median": cpu[len(cpu) // 2], "cpu_seconds_per_game_max": cpu[-1],
            "cpu_seconds_per_game_mean": sum(cpu) / len(cpu),
            "iterations_per_second_median": its[len(its) // 2],
            "searched_moves": searched, "unmatched_moves": unmatched,
            "unmatched_share": unmatched / searched if searched else 0.0,
            "determinizations": samples, "inconsistent_determinizations": inconsistent}


def _strength_setup(game_id: str, players: int, names: list[str]):
    """What a strength run and its summary both need: the game, its engine, the default variant,
    one policy name per seat (a single name fills every seat) and whether seats rotate."""
    game = load_game(game_id)
    engine = game_engine(game)
    variant = engine.default_variant(players, game)
    if len(names) == 1:
        names = names * players
    return game, engine, variant, names, len(set(names)) > 1


def strength(game_id: str, players: int, names: list[str], games: int, seed: int, workers: int, chunk: int,
             rows_file: str | None = None) -> dict:
    game, engine, variant, names, rotate = _strength_setup(game_id, players, names)
    rows = resumed_rows(rows_file, games)
    done = {row[0] for row in rows}
    todo = [index for index in range(games) if index not in done]
    # chunks of consecutive games still to play (a resumed run skips the games its file holds)
    tasks = []
    for index in todo:
        if tasks and tasks[-1][7] == index and tasks[-1][7] - tasks[-1][6] < chunk:
            tasks[-1] = tasks[-1][:7] + (index + 1, None)
        else:
            tasks.append((str(game.root), players, variant, tuple(names), rotate, seed, index, index + 1, None))
    if rows:
        print(f"{game_id}: resuming, {len(rows)} games already in {rows_file}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    with multiprocessing.get_context().Pool(workers) as pool:
        for part in pool.imap_unordered(_run_chunk, tasks):
            rows.extend(part)
            if rows_file:      # every finished game at once, so a run cut short still counts
                with open(rows_file, "a") as handle:
                    for row in part:
                        handle.write(json.dumps(row) + "\n")
            print(f"{game_id}: {len(rows)}/{games} games, {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - started
    return summarise(game_id, players, names, rows, seed, workers, elapsed)


def resumed_rows(rows_file: str | None, games: int) -> list:
    """The games of the first `games` a --rows file already holds (one per index: a line cut
    short by an interrupted run is skipped, a game written twice counts once)."""
    if not rows_file or not Path(rows_file).exists():
        return []
    rows = {}
    for line in Path(rows_file).read_text().splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, list) and row and isinstance(row[0], int) and row[0] < games:
            rows.setdefault(row[0], row)
    return [rows[k] for k in sorted(rows)]


def summarise(game_id: str, players: int, names: list[str], rows: list, seed: int, workers: int, elapsed: float) -> dict:
    game, engine, variant, names, rotate = _strength_setup(game_id, players, names)
    games = len(rows)
    rows = [tuple(tuple(x) if isinstance(x, list) else x for x in row) for row in rows]
    report = _report(game.id, players, variant, games, seed, names, rotate, engine.cooperative, rows, workers, elapsed, None)
    data = report.as_dict()
    out = {"bench": "ismcts-strength", "game": game_id, "players": players, "policies": names, "games": games,
           "seed": seed, "elapsed_s": round(elapsed, 1), "workers": workers,
           "command": f"cardgen simulate {game_id} --players {players} " + " ".join(f"--policy {p}" for p in names)
           + (" --rotate-seats" if rotate else "") + f" --games {games} --seed {seed} --format json"}
    if "cooperative" in data:
        out["success"] = data["cooperative"]
        out["endings"] = data["endings"]
    else:
        out["strategies"] = data.get("strategies") or data["seats"]
    out["metrics"] = data["metrics"]
    return out


def paired(rows_a: list, rows_b: list) -> dict:
    """Two solo (or co-operative) runs on the same seed compared game by game: game i of both
    met the same chance stream until their moves parted, so the paired difference of their
    success rates is measured far more tightly than two independent rates would be. Newcombe's
    (1998) method 10 interval for the difference (rate A minus rate B) and McNemar's exact
    two-sided test on the games only one of them won."""
    a = {row[0]: bool(row[5]) for row in rows_a}
    b = {row[0]: bool(row[5]) for row in rows_b}
    games = sorted(set(a) & set(b))
    n = len(games)
    both = sum(1 for g in games if a[g] and b[g])
    only_a = sum(1 for g in games if a[g] and not b[g])
    only_b = sum(1 for g in games if b[g] and not a[g])
    neither = n - both - only_a - only_b
    out = {"games": n, "successes_a": both + only_a, "successes_b": both + only_b, "both": both,
           "only_a": only_a, "only_b": only_b, "neither": neither}
    if not n:
        return out
    p1, p2 = (both + only_a) / n, (both + only_b) / n
    l1, u1 = wilson(both + only_a, n)
    l2, u2 = wilson(both + only_b, n)
    phi = 0.0
    margins = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    if margins:
        cross = both * neither - only_a * only_b
        phi = (cross - n / 2 if cross > n / 2 else min(cross, 0)) / math.sqrt(margins)
    d = p1 - p2
    low = d - math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    high = d + math.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    k, m = min(only_a, only_b), only_a + only_b
    p_value = min(1.0, 2 * sum(math.comb(m, i) for i in range(k + 1)) / 2 ** m) if m else 1.0
    out.update({"rate_a": p1, "rate_b": p2, "wilson95_a": [l1, u1], "wilson95_b": [l2, u2],
                "difference": d, "difference95": [low, high], "mcnemar_exact_p": p_value})
    return out


def openspiel(iterations: int, games: int, seed: int) -> dict:
    from cardgen.engine.openspiel_bridge import openspiel_policy

    game = load_game("llll")
    engine = game_engine(game)
    rules = engine(game, 4)
    per_game = []
    for k in range(games):
        agent = openspiel_policy(rules, "openspiel-ismcts", iterations)
        policies = [agent] + [make_any_policy(engine, "greedy", rules) for _ in range(3)]
        started = time.perf_counter()
        play(rules, policies, seed + k)
        per_game.append(time.perf_counter() - started)
        print(f"openspiel game {k + 1}/{games}: {per_game[-1]:.2f} s, {agent.iterations_per_second():.0f} iterations/s",
              file=sys.stderr)
    return {"bench": "openspiel-ismcts-speed", "game": "llll", "iterations": iterations, "games": games,
            "seconds_per_game": per_game, "iterations_per_second": agent.iterations_per_second()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True)
    s = sub.add_parser("speed")
    s.add_argument("--iterations", type=int, default=200)
    s.add_argument("--games", type=int, default=5)
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--game", default="llll")
    s.add_argument("--players", type=int, default=4)
    s.add_argument("--policy", help="the searching seat's policy (default ismcts:ITERATIONS)")
    s.add_argument("--others", default="greedy", help="the bot in every other seat")
    t = sub.add_parser("strength")
    t.add_argument("game")
    t.add_argument("players", type=int)
    t.add_argument("policies", nargs="+")
    t.add_argument("--games", type=int, default=400)
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--workers", type=int, default=2)
    t.add_argument("--chunk", type=int, default=4)
    t.add_argument("--rows", help="append each finished game to this JSON-lines file; games it already holds "
                                  "are not played again (a run cut short resumes)")
    u = sub.add_parser("summarise", help="the result of the games a --rows file holds (a run cut short)")
    u.add_argument("rows")
    u.add_argument("game")
    u.add_argument("players", type=int)
    u.add_argument("policies", nargs="+")
    u.add_argument("--seed", type=int, default=0)
    q = sub.add_parser("paired", help="two solo --rows files of the same seed compared game by game (A minus B)")
    q.add_argument("rows_a")
    q.add_argument("rows_b")
    o = sub.add_parser("openspiel")
    o.add_argument("--iterations", type=int, default=200)
    o.add_argument("--games", type=int, default=2)
    o.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.what == "speed":
        result = speed(args.iterations, args.games, args.seed, args.game, args.players, args.policy, args.others)
    elif args.what == "openspiel":
        result = openspiel(args.iterations, args.games, args.seed)
    elif args.what == "paired":
        result = paired(resumed_rows(args.rows_a, sys.maxsize), resumed_rows(args.rows_b, sys.maxsize))
        result.update({"rows_a": args.rows_a, "rows_b": args.rows_b})
    elif args.what == "summarise":
        rows = resumed_rows(args.rows, sys.maxsize)
        result = summarise(args.game, args.players, args.policies, rows, args.seed, 0, 0.0)
    else:
        result = strength(args.game, args.players, args.policies, args.games, args.seed, args.workers, args.chunk, args.rows)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
