"""Where files a game names may come from: its own folder, or the bundled templates. Nothing else.

The one template lookup: a game's own file is looked for in `<game>/templates/<name>`, then in
the bundled `templates/<game id>/<name>` (rulebook figures and style:
`templates/rulebook/figures/<game id>.yaml`, `templates/rulebook/style.<game id>.yaml`),
which is how the bundled games, and a copy of one of their folders, find their layouts;
a shared file (`include: [common/parts.yaml]`) in `<game>/templates/<path>`, then in the
bundled `templates/<path>`. A name that is absolute, climbs out with `..`, or resolves outside
its root through a symbolic link is refused.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path, PurePosixPath

from ..errors import DataError, Problem
from ..model import Game, Location
from . import limits
from .reader import display_path

GAME_TEMPLATES = "templates"  # a game's own templates live in <game folder>/templates/

# A portable file-name part: letters, digits, '.', '_' and '-', not starting with '.' or '-'.
_PORTABLE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._-]*$")
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)), *(f"lpt{i}" for i in range(1, 10))}


@lru_cache(maxsize=1)
def package_root() -> Path:
    """Where the bundled card_data/, templates/ and fonts/ are (source tree or wheel); fixed for the
    life of a process, so worked out once."""
    here = Path(__file__).resolve().parent.parent
    bundled = here / "_bundled"
    return bundled if bundled.is_dir() else here.parent


def bundled_templates() -> Path:
    return package_root() / "templates"


def portable_name_problem(name: str, what: str) -> str | None:
    """Why `name` cannot be part of an output file name on every system, or None if it can."""
    if not name:
        return f"{what} is empty"
    if len(name) > limits.MAX_ID_CHARS:
        return f"{what} '{name[:20]}…' is {len(name)} characters long; use at most {limits.MAX_ID_CHARS}"
    if not _PORTABLE.match(name) or name.endswith("."):
        return f"{what} '{name}' may use only letters A-Z a-z, digits, '.', '_' and '-' (not first, and no '.' last), so it can name a file"
    if name.split(".")[0].lower() in _RESERVED:
        return f"{what} '{name}' is a reserved file name on Windows; choose another"
    return None


def relative_parts(name: str) -> tuple[str, ...] | None:
    """The parts of a relative path that stays inside its root, or None (absolute, '..', empty)."""
    if not name or "\\" in name or "\x00" in name:
        return None
    path = PurePosixPath(name)
    if path.is_absolute() or any(part in ("..", "") for part in path.parts) or name.startswith("~"):
        return None
    parts = tuple(p for p in path.parts if p != ".")
    return parts or None


def inside(root: Path, name: str) -> Path | None:
    """`root/name` if it stays inside `root` once symbolic links are resolved, else None."""
    parts = relative_parts(name)
    if parts is None:
        return None
    base = root.resolve()
    candidate = base.joinpath(*parts)
    try:
        resolved = candidate.resolve()
    except (OSError, RuntimeError):
        return None
    if resolved != base and base not in resolved.parents:
        return None
    return candidate


def refuse(name: str, at: Location | None, what: str) -> DataError:
    return DataError([Problem(at, f"{what} '{name}' is outside the game folder; name a file inside the game folder "
                                  f"(relative, without '..') or a bundled template")])


# Where the bundled templates keep a game's file, when not at `<game id>/<name>`.
_BUNDLED_PLACE = {"figures.yaml": "rulebook/figures/{id}.yaml", "style.yaml": "rulebook/style.{id}.yaml"}


def game_template(game: Game, name: str) -> Path | None:
    """A game's own template file (`layout.yaml`, `playtest.yaml`, `report.yaml`, `style.yaml`,
    `figures.yaml`): `<game>/templates/<name>` first, then the bundled one for the game's id."""
    bundled = _BUNDLED_PLACE.get(name, "{id}/" + name).format(id=game.id)
    for root, rel in ((game.root / GAME_TEMPLATES, name), (bundled_templates(), bundled)):
        found = inside(root, rel) if root.is_dir() else None
        if found is not None and found.is_file():
            return found
    return None


def shared_template(game: Game, name: str, at: Location | None = None, what: str = "template") -> Path | None:
    """A shared template file named relative to a templates root (`common/parts.yaml`).

    DataError for a name that would leave its root; None when no root holds it.
    """
    if relative_parts(name) is None:
        raise refuse(name, at, what)
    for root in (game.root / GAME_TEMPLATES, bundled_templates()):
        if not root.is_dir():
            continue
        found = inside(root, name)
        if found is not None and found.is_file():
            return found
    return None


def game_file(game: Game, name: str, at: Location | None = None, what: str = "file") -> Path:
    """A file inside the game folder (art, icons, fonts); DataError if the name leaves the folder."""
    found = inside(game.root, name)
    if found is None:
        raise refuse(name, at, what)
    return found


def folder_file(root: Path, name: str) -> Path:
    """`root/name`, a file cardgen itself names (game.yaml, cards.csv, rules.en.md); DataError at
    that file, quoting nothing of it, when it resolves outside the folder through a symbolic link."""
    found = inside(root, name)
    if found is None:
        raise DataError([Problem(Location(display_path(root / name), 1, 1),
                                 f"{name} resolves outside the game folder (a symbolic link?); "
                                 f"replace it with a file in the folder")])
    return found
