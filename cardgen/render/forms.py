"""Drawing once per file: a form XObject per thing a file shows many times (a shared back, an
icon, a piece of art, a pattern row, a figure's card, a suit), drawn the first time and placed by
name after. It lives below cards, print and documents because all of them use it."""

from __future__ import annotations

from typing import Any, Callable, Hashable


def form_once(c: Any, kind: str, key: Hashable, prefix: str, bbox: tuple[float, float, float, float],
              draw: Callable[[], None]) -> str:
    """The name of the form XObject on canvas `c` that holds what `draw` draws for `key`: drawn
    (inside `bbox`) the first time the key is asked for among the `kind` forms of this canvas, and
    named `prefix` with its number among them."""
    forms: dict[Hashable, str] = c.__dict__.setdefault(f"_cardgen_{kind}_forms", {})
    name = forms.get(key)
    if name is None:
        name = f"{prefix}{len(forms) + 1}"
        c.beginForm(name, *bbox)
        draw()
        c.endForm()
        forms[key] = name
    return name
