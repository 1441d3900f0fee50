"""Fuzz the bundled game folders: thousands of seeded mutations through `check` and `build`.

    python benchmarks/fuzz_game_folders.py --cases 2000 --workers 2
    python benchmarks/fuzz_game_folders.py --case ohanatsumi-17 --keep /tmp/case   # one case, kept
    python benchmarks/fuzz_game_folders.py --cases 200 --slow --mode subprocess    # + png/tts, fresh processes
    python benchmarks/fuzz_game_folders.py --cases 300 --games options,cache:alice,cache:llll   # outside the folder

Each case (game, seed) copies card_data/<game>, mutates a few files (tests/fuzzing.py lists the
mutations), runs `check --no-simulate` and, if it passes, `build`. It counts tracebacks (and
internal errors), hangs, check-pass-build-fail, and other failures (canary file created, written
outside --out, outside text leaked, bad exit codes), prints the first example of each cause, and
exits 1 if there is any.  Cases `cache:<game>-N` damage the build cache between two builds (the
rebuild must write what a build without the cache writes); cases `options-N` run one command with
a hostile --scheduler or --vary.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import fuzzing  # noqa: E402

CATEGORIES = (("tracebacks", ("traceback", "internal-error")), ("hangs", ("hang",)),
              ("check-pass-build-fail", ("check-pass-build-fail",)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000, help="number of cases, spread over the games")
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--games", default=",".join(fuzzing.GAMES + fuzzing.SURFACES),
                        help="comma-separated game ids, and cache:<game> (a damaged build cache) or options (hostile --scheduler, --vary)")
    parser.add_argument("--slow", action="store_true", help="also build png and tts (longer time limit)")
    parser.add_argument("--mode", choices=("fork", "subprocess"), default="fork",
                        help="fork: commands in a forked warm child (fast); subprocess: `python -m cardgen` per command")
    parser.add_argument("--case", help="run only this case, e.g. llll-42, and print its steps")
    parser.add_argument("--keep", type=Path, help="with --case: keep the case's folders here")
    parser.add_argument("--examples", type=int, default=1, help="examples printed per cause")
    args = parser.parse_args()

    if args.case:
        game, _, seed = args.case.rpartition("-")
        case, findings, steps = fuzzing.run_any(game, int(seed), slow=args.slow, mode=args.mode, keep=args.keep)
        print(f"case {case.id}: " + "; ".join(case.mutations))
        for step in steps:
            print(f"$ {step.command}   -> exit {step.exit_code} in {step.seconds:.1f} s")
            print(fuzzing._indent(step.output.rstrip()[-3000:], "  "))
            if step.exception:
                print(fuzzing._indent(step.exception.rstrip()[-5000:], "  "))
        if args.keep:
            print(f"kept in {args.keep}")
        print(fuzzing.report(findings, examples=5) if findings else "no findings")
        return 1 if findings else 0

    jobs = fuzzing.cases(args.cases, args.start, tuple(args.games.split(",")))
    started = time.monotonic()
    done = [0]

    def progress(case_id, found, seconds):
        done[0] += 1
        mark = "!" if found else "."
        if found or done[0] % 50 == 0 or done[0] == len(jobs):
            rate = done[0] / max(time.monotonic() - started, 1e-9)
            print(f"{done[0]:>6}/{len(jobs)} {rate:5.1f} cases/s  {mark} {case_id}"
                  + (f"  {found[0].kind}: {found[0].signature}" if found else ""), file=sys.stderr, flush=True)

    findings, stats = fuzzing.run_many(jobs, args.workers, args.slow, args.mode, progress)
    elapsed = time.monotonic() - started
    print(f"\n{stats['cases']} cases in {elapsed:.0f} s ({args.workers} workers, {args.mode}); "
          f"check passed {stats['check_ok']}, build passed {stats['build_ok']}; "
          f"slowest {stats['slowest'][1]} {stats['slowest'][0]:.1f} s")
    known = set()
    for name, kinds in CATEGORIES:
        items = [f for f in findings if f.kind in kinds]
        known |= set(kinds)
        print(f"{name}: {len({f.case for f in items})} cases, {len(fuzzing.group(items))} causes")
    others = [f for f in findings if f.kind not in known]
    print(f"other failures: {len({f.case for f in others})} cases, {len(fuzzing.group(others))} causes")
    if findings:
        print("\n" + fuzzing.report(findings, examples=args.examples))
        first = findings[0].case
        print(f"\nreproduce one: {fuzzing.repro(first)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
