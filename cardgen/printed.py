"""How numbers, ranges and sizes look on paper: one style each, for every page cardgen prints.

A share is `40 %` (a space before the sign, as the words files write `95 %`), a range joins
its ends with an en dash and no spaces (`0.21–0.40`, `OH001–OH020`), a minus is the minus
sign (−), and a size is `63.5 × 88.9 mm`. Both languages use the same forms.
"""

from __future__ import annotations

DASH = "–"    # between the ends of a range
MINUS = "−"   # U+2212: a negative number on paper
TIMES = "×"   # between the sides of a size


def number(value: float, decimals: int | None = None) -> str:
    """`value` with `decimals` places (None: up to two, trailing zeros dropped), minus as −."""
    text = f"{value:.{decimals}f}" if decimals is not None else f"{value:.2f}".rstrip("0").rstrip(".")
    return text.replace("-", MINUS)


def percent(share: float, decimals: int = 0, signed: bool = False) -> str:
    """A share (0.4) as printed: '40 %'; `signed` adds '+' to a gain."""
    text = f"{share * 100:+.{decimals}f}" if signed else f"{share * 100:.{decimals}f}"
    return text.replace("-", MINUS) + " %"


def span(low: str, high: str) -> str:
    """A range from two printed ends: 'low–high'."""
    return f"{low}{DASH}{high}"


def size(width: float, height: float, unit: str = "mm") -> str:
    """A width and height as printed: '63.5 × 88.9 mm'."""
    return f"{number(width)} {TIMES} {number(height)}" + (f" {unit}" if unit else "")
