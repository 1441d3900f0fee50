"""Resampling: how often the native determinizer finds no state with the seat's information state.

    python3 benchmarks/bench_resample.py [--games 20] [--seed 0] [GAME ...]

For every bundled game with more than one seat (or the GAMEs named), in each player count and
variant, `--games` random games are played; at every decision with more than one legal move the
seat to act asks a Determinizer (one per seat and game, as an IS-MCTS agent keeps one) for one
state, with its default replay budget. A call either returns a state with the seat's exact
information state or says it failed; a returned state that differs is counted as wrong (must be
0). The figure is the share of failed calls per configuration, judged against FAILED_TARGET, and
the median CPU milliseconds per call. One core; numbers are of this run on this machine.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cardgen.engine import game_engine  # noqa: E402
from cardgen.engine.agents.ismcts import Determinizer  # noqa: E402
from cardgen.engine.core import CHANCE  # noqa: E402
from cardgen.engine.harness import configurations  # noqa: E402
from cardgen.load import bundled_game_ids, load_game  # noqa: E402

FAILED_TARGET = 0.05       # at most this share of calls may say they found no consistent state


def measure(game_id: str, players: int, variant: str, games: int, seed: int) -> dict:
    game = load_game(game_id)
    rules = game_engine(game)(game, players, variant)
    calls = failed = wrong = 0
    times: list[float] = []
    for g in range(games):
        rng = random.Random(seed * 100_003 + g)
        state = rules.new_initial_state()
        determinizers = [Determinizer(rules) for _ in range(players)]
        while not state.is_terminal():
            seat = state.current_player()
            legal = state.legal_actions()
            if seat == CHANCE:
                outcomes = state.chance_outcomes()
                state.apply_unchecked(outcomes[int(rng.random() * len(outcomes))][0])
                continue
            if len(legal) > 1:
                observation = state.observation(seat)
                started = time.process_time()
                sampled, ok = determinizers[seat].sample(observation, rng)
                times.append(time.process_time() - started)
                calls += 1
                if not ok:
                    failed += 1
                elif sampled.information_state_string(seat) != state.information_state_string(seat):
                    wrong += 1
            state.apply_unchecked(legal[int(rng.random() * len(legal))])
    share = failed / calls if calls else 0.0
    return {"game": game_id, "players": players, "variant": variant, "games": games, "calls": calls,
            "failed": failed, "failed_share": share, "wrong": wrong,
            "ms_per_call_median": 1000 * statistics.median(times) if times else 0.0,
            "ok": share <= FAILED_TARGET and wrong == 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games_ids", nargs="*", metavar="GAME")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    ok = True
    for game_id in args.games_ids or bundled_game_ids():
        for players, variant in configurations(load_game(game_id)):
            if players == 1:
                continue
            row = measure(game_id, players, variant, args.games, args.seed)
            ok &= row["ok"]
            print(f"{game_id} {players}p {variant}: {row['failed']}/{row['calls']} calls failed "
                  f"({100 * row['failed_share']:.1f} %, target <= {100 * FAILED_TARGET:.0f} %), {row['wrong']} wrong, "
                  f"{row['ms_per_call_median']:.2f} ms CPU per call (median)", flush=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
