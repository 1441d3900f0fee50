"""Card sizes: the one place that knows the named sizes and the WxH grammar."""

from __future__ import annotations

import re

from .io import limits

CARD_SIZES_MM: dict[str, tuple[float, float]] = {
    "poker": (63.5, 88.9),
    "bridge": (57.15, 88.9),
    "mini": (44.0, 68.0),
    "euro": (59.0, 92.0),
    "tarot": (70.0, 120.0),
}
CARD_SIZE_NAMES = tuple(CARD_SIZES_MM)
_WXH = re.compile(r"^\s*(\d{1,4}(?:\.\d{1,3})?)\s*[xX×]\s*(\d{1,4}(?:\.\d{1,3})?)\s*$")
GRAMMAR = f"{', '.join(CARD_SIZE_NAMES)} or WxH in mm ({limits.MIN_CARD_MM:g} to {limits.MAX_CARD_MM:g}, e.g. 63x88)"


class CardSizeError(ValueError):
    """A card size that is not a name or a WxH within the limits; the message says why."""


def normalise(text: str) -> str:
    """A named size ('poker') or 'WxH' normalised ('63x88'); CardSizeError otherwise."""
    spec = str(text).strip().lower()
    if spec in CARD_SIZES_MM:
        return spec
    match = _WXH.match(spec)
    if not match:
        raise CardSizeError(f"card size {text!r} is unknown; use {GRAMMAR}")
    w, h = float(match.group(1)), float(match.group(2))
    for value in (w, h):
        if not limits.MIN_CARD_MM <= value <= limits.MAX_CARD_MM:
            raise CardSizeError(f"card size {text!r}: {value:g} mm is outside {limits.MIN_CARD_MM:g}..{limits.MAX_CARD_MM:g} mm; use {GRAMMAR}")
    return f"{match.group(1)}x{match.group(2)}"


def size_mm(text: str) -> tuple[float, float]:
    """(width, height) in mm of a card size; CardSizeError for one that `normalise` refuses."""
    spec = normalise(text)
    if spec in CARD_SIZES_MM:
        return CARD_SIZES_MM[spec]
    w, h = spec.split("x")
    return float(w), float(h)
