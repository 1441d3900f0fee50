"""Parameter sweeps: `simulate` at every point of a grid (or a sample) of overrides.

- The points: the product of every `--vary PATH=VALUES` (in the order given), or `--samples K`
  points drawn from those values (Latin hypercube by default: each value of each parameter is
  used about equally often; duplicates of an earlier point are dropped).
- Each point is the game with its overrides (`overrides.GameSource.build`: the loader and the
  checks of `cardgen check`). Invalid points are listed and skipped; a sweep with no valid point
  is refused.
- Point p plays `simulate(game_p, seed=point_seed(seed, overrides_p))`: game i of a point has
  a seed derived from (seed, point, i), so a point's result depends on neither its place in the
  sweep nor the executor that ran it.
- Each finished point is written at once (atomically) to a results folder named after a hash of
  the sweep's arguments and the game's files; a rerun with the same arguments reuses every
  finished point, so an interrupted sweep ends with the same table as an uninterrupted one.
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import math
import random
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from ..errors import CardgenError
from ..files import write_atomic
from ..langs import suffix as lang_suffix
from ..sweep_result import (Condition, PointResult, SweepResult, SweepSpec, Vary, chart_metrics, format_overrides, metrics_of,
                            primary_metric, resolve_metric)
from .overrides import GameSource, Refused, point_key

FORMAT_VERSION = 1


# --- the plan -------------------------------------------------------------------------------

def point_seed(seed: int, overrides: dict[str, Any]) -> int:
    """The run seed of one point: from the sweep seed and the point's overrides alone."""
    digest = hashlib.sha256(f"cardgen-sweep:{seed}:{point_key(overrides)}".encode()).digest()
    return int.from_bytes(digest[:7], "big")


# The most points one sweep plans (a grid, or --samples): each is a results file and a table row.
MAX_POINTS = 100_000


def plan_points(spec: SweepSpec) -> list[dict[str, Any]]:
    """The overrides of every point, in sweep order."""
    if not spec.varies:
        raise CardgenError("give at least one --vary PARAMETER=VALUES")
    paths = [v.path for v in spec.varies]
    if len(set(paths)) != len(paths):
        raise CardgenError(f"--vary names {sorted(p for p in paths if paths.count(p) > 1)[0]} twice; give each parameter once")
    if spec.samples is None:
        size = math.prod(len(v.values) for v in spec.varies)
        if size > MAX_POINTS:
            raise CardgenError(f"the grid has {size:,} points, more than {MAX_POINTS:,}; use --samples K to draw K of them")
        return [dict(zip(paths, combo)) for combo in itertools.product(*(v.values for v in spec.varies))]
    if not 1 <= spec.samples <= MAX_POINTS:
        raise CardgenError(f"--samples must be 1 to {MAX_POINTS:,}")
    if spec.sampling not in ("lhs", "random"):
        raise CardgenError(f"--sampling {spec.sampling}: choose lhs or random")
    rng = random.Random(f"cardgen-sweep-samples:{spec.seed}")
    k = spec.samples
    columns = []
    for vary in spec.varies:
        n = len(vary.values)
        if spec.sampling == "lhs":
            strata = list(range(k))
            rng.shuffle(strata)
            columns.append([vary.values[min(n - 1, int((s + rng.random()) / k * n))] for s in strata])
        else:
            columns.append([vary.values[rng.randrange(n)] for _ in range(k)])
    points, seen = [], set()
    for i in range(k):
        point = {path: columns[j][i] for j, path in enumerate(paths)}
        key = point_key(point)
        if key not in seen:
            seen.add(key)
            points.append(point)
    return points


# --- targets (the conditions are cardgen.sweep_result.Condition) ----------------------------

_CONDITION = re.compile(r"^\s*([A-Za-z0-9_]+)\s*(<=|>=|==|<|>|=)\s*(-?[0-9]+(?:\.[0-9]*)?)(?:\s*\.\.\s*(-?[0-9]+(?:\.[0-9]*)?))?\s*$")


def parse_target(text: str, metrics: Sequence[str]) -> list[Condition]:
    """`seat_gap<0.05, success=0.3..0.6`: conditions on metrics (a name may drop `_rate`)."""
    out = []
    for part in [p for p in text.split(",") if p.strip()]:
        m = _CONDITION.match(part)
        if not m:
            raise CardgenError(f"--target: '{part.strip()}' is not a condition; write METRIC<X, METRIC>=X or METRIC=LOW..HIGH")
        name, op, a, b = m.groups()
        resolved = resolve_metric(name, metrics, "--target")
        try:
            lo, hi = float(a), float(b) if b is not None else 0.0
        except ValueError:
            raise CardgenError(f"--target: '{part.strip()}' has a number that does not read as one") from None
        if b is not None and op not in ("=", "=="):
            raise CardgenError(f"--target: '{part.strip()}': a range LOW..HIGH goes with '='")
        out.append(Condition(resolved, "range" if b is not None else ("=" if op == "==" else op), lo, hi))
    if not out:
        raise CardgenError("--target is empty; write e.g. \"seat_gap<0.05, success=0.3..0.6\"")
    return out


# --- running --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Progress:
    done: int              # points finished (reused ones included)
    total: int             # valid points
    reused: int            # points taken from an earlier run
    games: int             # games played in this run
    elapsed: float
    overrides: dict[str, Any] | None = None

    @property
    def games_per_s(self) -> float:
        return self.games / self.elapsed if self.elapsed > 0 else 0.0

    def seconds_left(self, games_per_point: int) -> float | None:
        if not self.games:
            return None
        return (self.total - self.done) * games_per_point / self.games_per_s

    def line(self, games_per_point: int) -> str:
        left = self.seconds_left(games_per_point)
        eta = "?" if left is None else f"{int(left // 60)}:{int(left % 60):02d}"
        reused = f" ({self.reused} from an earlier run)" if self.reused else ""
        return (f"sweep: {self.done}/{self.total} points{reused}, {self.games:,} games, "
                f"{self.games_per_s:,.0f} games/s, ~{eta} left")


def _run_point(task: tuple) -> dict[str, Any]:
    """One point in a worker: `simulate` on the modified game, the report without its run timings."""
    from ..engine.simulate import simulate
    from ..registry import engine_on_worker

    game, seed, games, players, variant, policies, rotate = task
    with engine_on_worker(game):
        report = simulate(game, games=games, seed=seed, players=players, policies=policies, workers=1,
                          variant=variant, rotate=rotate).as_dict()
    report.pop("run", None)
    return report


def sweep_key(spec: SweepSpec, digest: str, players: int, variant: str, policies: Sequence[str]) -> dict[str, Any]:
    return {"format": FORMAT_VERSION, "game": digest, "vary": [[v.path, list(v.values)] for v in spec.varies],
            "samples": spec.samples, "sampling": spec.sampling if spec.samples else None, "games": spec.games,
            "seed": spec.seed, "players": players, "variant": variant, "policies": list(policies), "rotate": spec.rotate}


def run_sweep(spec: SweepSpec, executor: Any = None, out_dir: str | Path = "output", results_dir: str | Path | None = None,
              progress: Callable[[Progress], None] | None = None, target: str | None = None) -> SweepResult:
    """Run (or finish) a sweep; see the module docstring."""
    from ..engine.simulate import simulate
    from .executors import LocalExecutor

    if spec.games < 1:
        raise CardgenError("--games must be at least 1")
    source = GameSource(spec.game)
    base = source.base
    for vary in spec.varies:
        source.check_path(vary.path)
    planned = plan_points(spec)
    # the simulate options, checked and resolved once on the game as written (one game)
    probe = simulate(base, games=1, seed=spec.seed, players=spec.players, policies=spec.policies or None, workers=1,
                     variant=spec.variant, rotate=spec.rotate)
    players, variant, policies = probe.players, probe.variant, list(probe.policies)
    valid: list[tuple[int, dict[str, Any], Any]] = []
    refused: list[tuple[dict[str, Any], str]] = []
    refused_why: list[str] = []
    for overrides in planned:
        try:
            valid.append((len(valid), overrides, source.build(overrides)))
        except Refused as exc:
            refused.append((overrides, str(exc)))
            refused_why.append(exc.why)
    if not valid:
        reasons = list(dict.fromkeys(reason for _o, reason in refused))  # points refused alike, said once
        shown = "\n".join(f"  {reason}" for reason in reasons[:5])
        more = f"\n  ... and {len(reasons) - 5} more" if len(reasons) > 5 else ""
        raise CardgenError(f"every point of the sweep breaks the game's rules; nothing to run:\n{shown}{more}")
    key = sweep_key(spec, source.digest, players, variant, policies)
    digest = hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()[:16]
    folder = Path(results_dir) if results_dir is not None else Path(out_dir) / base.id / "sweeps" / digest
    (folder / "points").mkdir(parents=True, exist_ok=True)
    manifest = folder / "sweep.json"
    if manifest.exists():
        try:
            held = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            held = None
        if held is not None and held.get("key") != json.loads(json.dumps(key, default=str)):
            raise CardgenError(f"{folder} holds the results of a different sweep; choose another --results folder")
    else:
        write_atomic(manifest, json.dumps({"key": key, "game_id": base.id, "game_spec": spec.game}, ensure_ascii=False,
                                          indent=1, default=str).encode())

    conditions = []
    if target:
        names = list(metrics_of(probe.as_dict()))
        conditions = parse_target(target, names)

    results: dict[int, PointResult] = {}
    todo = []
    for index, overrides, game in valid:
        seed = point_seed(spec.seed, overrides)
        path = folder / "points" / f"{point_key(overrides)}.json"
        if path.exists():
            try:
                saved = json.loads(path.read_text(encoding="utf-8"))
                if saved.get("seed") == seed and saved.get("games") == spec.games:
                    results[index] = PointResult(index, overrides, seed, saved["report"], reused=True)
                    continue
            except (OSError, ValueError, KeyError):
                pass  # a damaged file: run the point again
        todo.append((index, overrides, seed, (game, seed, spec.games, players, variant, policies, spec.rotate)))
    reused = len(results)
    executor = executor or LocalExecutor()
    started = time.perf_counter()
    games_done = 0
    if progress:
        progress(Progress(len(results), len(valid), reused, 0, 0.0))
    stream = executor.map_unordered(_run_point, [t[3] for t in todo])
    try:
        for j, report in stream:
            index, overrides, seed, _task = todo[j]
            write_atomic(folder / "points" / f"{point_key(overrides)}.json",
                         json.dumps({"overrides": overrides, "seed": seed, "games": spec.games, "report": report},
                                    ensure_ascii=False, indent=1).encode())
            results[index] = PointResult(index, overrides, seed, report)
            games_done += spec.games
            if progress:
                progress(Progress(len(results), len(valid), reused, games_done, time.perf_counter() - started, overrides))
    finally:
        close = getattr(stream, "close", None)
        if close:
            close()
    return SweepResult(spec, base.id, players, variant, policies, [results[i] for i in sorted(results)], refused, folder,
                       ran=len(todo), reused=reused, elapsed=time.perf_counter() - started,
                       executor=executor.describe() if hasattr(executor, "describe") else str(executor), targets=conditions,
                       refused_why=refused_why)


# --- the table ------------------------------------------------------------------------------

def _cell(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6)
    return value


def table_csv(result: SweepResult) -> str:
    rows = result.rows()
    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow({k: ("" if v is None else str(v).lower() if isinstance(v, bool) else _cell(v)) for k, v in row.items()})
    return buffer.getvalue()


def table_json(result: SweepResult) -> str:
    return json.dumps(as_dict(result), ensure_ascii=False, indent=2)


def as_dict(result: SweepResult) -> dict[str, Any]:
    spec = result.spec
    return {
        "game": result.game_id, "players": result.players, "variant": result.variant, "policies": result.policies,
        "games_per_point": spec.games, "seed": spec.seed, "seat_rotation": spec.rotate,
        "vary": {v.path: list(v.values) for v in spec.varies},
        "samples": spec.samples, "sampling": spec.sampling if spec.samples else None,
        "target": [str(c) for c in result.targets] or None,
        "points": result.rows(),
        "refused": [{"overrides": o, "reason": r} for o, r in result.refused],
        "run": {"results_dir": str(result.results_dir), "ran": result.ran, "reused": result.reused,
                "elapsed_s": round(result.elapsed, 3), "executor": result.executor},
    }


def write_parquet(result: SweepResult, path: str | Path) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise CardgenError("--format parquet needs pyarrow, which is not installed; pip install pyarrow, "
                           "or use --format csv or json") from None
    sink = io.BytesIO()
    pq.write_table(pa.Table.from_pylist(result.rows()), sink)
    write_atomic(path, sink.getvalue())


def table_text(result: SweepResult, metrics: Sequence[str] = ()) -> str:
    rows = result.rows()
    metrics = list(metrics) or [primary_metric(result)]
    paths = [v.path for v in result.spec.varies]
    head = ["#", *paths]
    for m in metrics:
        head.append(m + (" (95% CI)" if f"{m}_lo" in (rows[0] if rows else {}) else ""))
    if result.targets:
        head.append("target")
    body = []
    for row in rows:
        line = [str(row["point"]), *(str(row[p]).lower() if isinstance(row[p], bool) else str(row[p]) for p in paths)]
        for m in metrics:
            v = row.get(m)
            if v is None:
                line.append("-")
            elif f"{m}_lo" in row and row[f"{m}_lo"] is not None:
                line.append(f"{v:.3f} ({row[m + '_lo']:.3f}–{row[m + '_hi']:.3f})")
            else:
                line.append(f"{v:.3f}" if isinstance(v, float) else str(v))
        if result.targets:
            line.append("yes" if row["target"] else "")
        body.append(line)
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    spec = result.spec
    lines = [f"{result.game_id}: {len(rows)} points × {spec.games} games, {result.players} players, variant {result.variant}, "
             f"seed {spec.seed}, policies {', '.join(result.policies)}"]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [head, *body]]
    if result.targets:
        met = sum(1 for r in rows if r["target"])
        lines.append(f"target {', '.join(map(str, result.targets))}: met by {met} of {len(rows)} points")
    for overrides, reason in result.refused:
        lines.append(f"refused: {reason}")
    lines.append(f"({result.ran} point(s) run on {result.executor}, {result.reused} reused from {result.results_dir}, "
                 f"{result.elapsed:.2f} s)")
    return "\n".join(lines)


__all__ = ["SweepSpec", "SweepResult", "Progress", "run_sweep", "plan_points", "metrics_of", "parse_target", "point_seed",
           "table_csv", "table_json", "table_text", "write_parquet", "format_overrides"]


def sweep_command(game: str, *, varies: Sequence[str | Vary], samples: int | None, sampling: str, count: int, seed: int,
                  players: int | None, variant: str | None, policies: Sequence[str], rotate_seats: bool, target: str | None,
                  metrics: Sequence[str], fmt: str, output: str | None, out_dir: str, results_dir: str | None, no_report: bool,
                  executor: str, scheduler: str | None, workers: int | None, lang: str | None = None,
                  paper: str = "a4", quiet: bool = False) -> SweepResult:
    """`cardgen sweep`: run, print or write the table, write the report (in `lang`, on `paper`);
    progress on stderr unless `quiet` (cardgen -q)."""
    import sys

    from .executors import make_executor
    from .overrides import parse_vary

    if fmt == "parquet" and not output:
        raise CardgenError("--format parquet writes a binary file; give --output FILE.parquet")
    spec = SweepSpec(game, tuple(v if isinstance(v, Vary) else parse_vary(v) for v in varies), count, seed, players, variant, tuple(policies),
                     rotate_seats, samples, sampling)
    runner = make_executor(executor, scheduler, workers)
    tty = sys.stderr.isatty() and not quiet

    def show(p: Progress) -> None:
        if tty:
            sys.stderr.write("\r" + p.line(count) + "\033[K")
        elif p.done == p.total or p.done == p.reused or p.done % max(1, p.total // 20) == 0:
            sys.stderr.write(p.line(count) + "\n")
        sys.stderr.flush()

    try:
        result = run_sweep(spec, runner, out_dir=out_dir, results_dir=results_dir, progress=None if quiet else show,
                           target=target)
    finally:
        if tty:
            sys.stderr.write("\n")
        runner.close()
    for _overrides, reason in result.refused:
        sys.stderr.write(f"skipped: {reason}\n")
    if fmt == "parquet":
        write_parquet(result, output)
        sys.stderr.write(f"wrote {output}\n")
    else:
        text = {"text": lambda: table_text(result, chart_metrics(result, metrics)), "csv": lambda: table_csv(result),
                "json": lambda: table_json(result)}[fmt]()
        if output:
            write_atomic(output, (text if text.endswith("\n") else text + "\n").encode())
            sys.stderr.write(f"wrote {output}\n")
        else:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")
    if not no_report:
        from ..load import load_game
        from ..render.documents.sweep_report import write_sweep_report

        loaded = load_game(game)
        lang = lang or loaded.languages[0]
        tag = lang_suffix(lang, loaded.languages)  # the first language keeps today's name
        path = write_sweep_report(loaded, result, Path(out_dir) / result.game_id / f"{result.game_id}-sweep{tag}.pdf",
                                  lang, metrics, paper)
        sys.stderr.write(f"wrote {path}\n")
    return result
