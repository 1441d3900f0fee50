"""What a parameter sweep found, as data: the plan (`SweepSpec`, each `Vary`), every point's
`simulate` report and the metrics read from it (`SweepResult.rows`), and the targets they meet.

`cardgen.analysis.sweep` runs the sweep and makes a `SweepResult`; the sweep report
(`cardgen.render.documents.sweep_report`) and the tables read one. It sits below both so that
the report need not import the analysis that runs the games.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from .errors import CardgenError
from .metrics import Z95, wilson


@dataclass(frozen=True)
class Vary:
    """One `--vary PATH=VALUES`."""

    path: str
    values: tuple[Any, ...]
    text: str          # the values as written (for the results key)

    @property
    def is_range(self) -> bool:
        return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in self.values)


def format_overrides(overrides: dict[str, Any]) -> str:
    return ", ".join(f"{k}={show_value(v)}" for k, v in overrides.items()) or "(the game as written)"


MAX_SHOWN = 40  # characters of a value text quoted back in a message


def show_value(value: Any) -> str:
    """A value as a point is printed: true/false as in YAML, anything else as str (a long one shortened)."""
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…"


# --- the plan ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class SweepSpec:
    game: str
    varies: tuple[Vary, ...]
    games: int = 1000
    seed: int = 0
    players: int | None = None
    variant: str | None = None
    policies: tuple[str, ...] = ()
    rotate: bool = False
    samples: int | None = None
    sampling: str = "lhs"            # lhs | random


# --- metrics --------------------------------------------------------------------------------

def metric_slug(text: str) -> str:
    """An ending or policy as it appears in a metric's name (ending_<slug>_rate)."""
    return re.sub(r"[^A-Za-z0-9]+", "_", str(text)).strip("_").lower()


def metrics_of(report: dict[str, Any], endings: Sequence[str] = ()) -> dict[str, Any]:
    """Every number of a `simulate` report as flat columns; a rate or mean `X` has `X_lo` and
    `X_hi` (Wilson 95 % for rates, normal 95 % for means)."""
    n = report["games"]
    out: dict[str, Any] = {"games": n}

    def rate(name: str, k: int, of: int = n) -> None:
        out[name] = k / of if of else 0.0
        out[name + "_lo"], out[name + "_hi"] = wilson(k, of)

    def mean(name: str, counts: dict[str, int]) -> None:
        total = sum(counts.values())
        if not total:
            out[name] = out[name + "_lo"] = out[name + "_hi"] = None
            return
        mu = sum(float(v) * c for v, c in counts.items()) / total
        var = sum(c * (float(v) - mu) ** 2 for v, c in counts.items()) / max(1, total - 1)
        half = Z95 * math.sqrt(var / total)
        out[name], out[name + "_lo"], out[name + "_hi"] = mu, mu - half, mu + half

    seats = report.get("seats") or []
    if seats:
        for s in seats:
            rate(f"seat{s['seat']}_win_rate", s["wins"])
        if len(seats) > 1:
            # from the counts: one rounding, as each rate has (0.375 - 0.275 would be 0.09999999999999998,
            # which a target "seat_gap<0.1" would pass while the table shows 0.100)
            wins = [s["wins"] for s in seats]
            out["seat_gap"] = (max(wins) - min(wins)) / n if n else 0.0
        rate("draw_rate", report["draws"])
    coop = report.get("cooperative")
    if coop:
        rate("success_rate", coop["successes"])
        mean("success_score", coop["scores_of_successes"])
    for seat, counts in report.get("scores", {}).items():
        mean(f"{metric_slug(seat).replace('seat_', 'seat')}_mean_score", counts)
    mean("length_mean", report.get("length_counts", {}))
    length = report["length"]
    for q in ("min", "p10", "p25", "p50", "p75", "p90", "max"):
        out[f"length_{q}"] = length[q]
    for ending in endings or sorted(report.get("endings", {})):
        rate(f"ending_{metric_slug(ending)}_rate", report.get("endings", {}).get(ending, 0))
    for row in report.get("strategies", []):
        rate(f"strategy_{metric_slug(row['policy'])}_win_rate", row["wins"], row["seat_games"])
        out[f"strategy_{metric_slug(row['policy'])}_mean_score"] = row["mean_score"]
    return out


# --- targets --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Condition:
    metric: str
    op: str          # < <= > >= = range
    lo: float
    hi: float = 0.0

    def holds(self, value: Any) -> bool:
        if value is None:
            return False
        return {"<": value < self.lo, "<=": value <= self.lo, ">": value > self.lo, ">=": value >= self.lo,
                "=": value == self.lo, "range": self.lo <= value <= self.hi}[self.op]

    def __str__(self) -> str:
        return f"{self.metric}={self.lo:g}..{self.hi:g}" if self.op == "range" else f"{self.metric}{self.op}{self.lo:g}"


def resolve_metric(name: str, metrics: Sequence[str], option: str) -> str:
    for candidate in (name, f"{name}_rate", f"{name}_mean"):
        if candidate in metrics:
            return candidate
    shown = ", ".join(m for m in metrics if not m.endswith(("_lo", "_hi")))
    raise CardgenError(f"{option}: no metric '{name}' in this game's results; choose from: {shown}")


# --- the result -------------------------------------------------------------------------------

@dataclass
class PointResult:
    index: int
    overrides: dict[str, Any]
    seed: int
    report: dict[str, Any]
    reused: bool = False


@dataclass
class SweepResult:
    spec: SweepSpec
    game_id: str
    players: int
    variant: str
    policies: list[str]
    points: list[PointResult]
    refused: list[tuple[dict[str, Any], str]]
    results_dir: Path
    ran: int = 0
    reused: int = 0
    elapsed: float = 0.0
    executor: str = ""
    targets: list[Condition] = field(default_factory=list)
    refused_why: list[str] = field(default_factory=list)  # each refused point's reason in words (no ids), for paper

    @property
    def endings(self) -> list[str]:
        return sorted({e for p in self.points for e in p.report.get("endings", {})})

    def rows(self) -> list[dict[str, Any]]:
        """One row per point: the point number, its overrides, every metric, whether it meets the target."""
        endings = self.endings
        out = []
        for p in self.points:
            row: dict[str, Any] = {"point": p.index + 1}
            row.update({v.path: p.overrides[v.path] for v in self.spec.varies})
            row.update(metrics_of(p.report, endings))
            if self.targets:
                row["target"] = all(c.holds(row.get(c.metric)) for c in self.targets)
            out.append(row)
        return out

    def metric_names(self) -> list[str]:
        rows = self.rows()
        skip = {"point", "target", *(v.path for v in self.spec.varies)}
        return [k for k in rows[0] if k not in skip] if rows else []


def primary_metric(result: SweepResult) -> str:
    names = result.metric_names()
    for name in ("success_rate", "seat_gap", "seat1_mean_score"):
        if name in names:
            return name
    return names[1] if len(names) > 1 else names[0]


def chart_metrics(result: SweepResult, metrics: Sequence[str]) -> list[str]:
    names = result.metric_names()
    chosen = [resolve_metric(m, names, "--metric") for m in metrics] or [primary_metric(result)]
    return chosen + [c.metric for c in result.targets if c.metric not in chosen]
