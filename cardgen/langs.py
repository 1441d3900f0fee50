"""The languages every text of a game is written in: the one list.

The schema reader requires a text in each, the build renders each, the CLI offers each, and
the words module (cardgen/words.py) holds every interface word in each. A `Text` in the model
has one field per language.
"""

from __future__ import annotations

LANGUAGES: tuple[str, ...] = ("ja", "en")
DEFAULT = "ja"  # the CLI's default --lang: the bundled games' sources are Japanese
