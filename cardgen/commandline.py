"""What every `cardgen` command shares, kept out of cli.py so a test can call it: defaults from a
`cardgen.toml`, completion of the game argument, colour and verbosity, JSON of what a build wrote."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import click
from click.core import ParameterSource
from click.shell_completion import CompletionItem

from .errors import CardgenError, Problem
from .load import bundled_game_ids
from .model import Location

CONFIG_NAME = "cardgen.toml"
# The options a cardgen.toml may set, by their option name; each is validated as the option is.
CONFIG_KEYS = ("paper", "preset", "lang", "out")
_PARAM_OF_KEY = {"out": "out_dir"}  # the key is the option's name, the function argument differs


# --- defaults from cardgen.toml ---------------------------------------------------------------

def find_config(specs: tuple[str, ...] | list[str], cwd: Path | None = None) -> Path | None:
    """The cardgen.toml beside the first game folder named (in the folder that holds it), else in
    the current folder (for bundled ids). None when there is none."""
    for spec in specs:
        folder = Path(spec)
        if folder.is_dir():
            candidate = folder.resolve().parent / CONFIG_NAME
            return candidate if candidate.is_file() else None
    candidate = (cwd or Path.cwd()) / CONFIG_NAME
    return candidate if candidate.is_file() else None


def _key_line(text: str, key: str) -> tuple[int, int]:
    """Line and column of `key =` inside [tool.cardgen] (tomllib gives no positions)."""
    section = False
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            section = re.fullmatch(r"\[\s*tool\s*\.\s*cardgen\s*\]", stripped.split("#")[0].strip()) is not None
        elif section and re.match(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=", line):
            return number, len(line) - len(line.lstrip()) + 1
    return 1, 1


def read_config(path: Path) -> dict[str, tuple[object, Location]]:
    """The [tool.cardgen] table of `path`: key -> (value, where it is written)."""
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"at line (\d+), column (\d+)", str(exc))
        line, column = (int(found.group(1)), int(found.group(2))) if found else (1, 1)
        raise CardgenError([Problem(Location(str(path), line, column),
                                    f"not valid TOML ({str(exc).split(' (at')[0]}); fix the syntax")])
    table = data.get("tool", {}).get("cardgen", {})
    if not isinstance(table, dict):
        raise CardgenError([Problem(Location(str(path), *_key_line(text, "cardgen")),
                                    "[tool.cardgen] must be a table; write it as a [tool.cardgen] section")])
    found = {}
    for key, value in table.items():
        where = Location(str(path), *_key_line(text, key))
        if key not in CONFIG_KEYS:
            raise CardgenError([Problem(where, f"'{key}' is not a setting of [tool.cardgen]; "
                                               f"use one of {', '.join(CONFIG_KEYS)}")])
        found[key] = (value, where)
    return found


def apply_config(ctx: click.Context, specs: tuple[str, ...] | list[str]) -> None:
    """Fill the options of ctx's command that the command line left at their default from the
    cardgen.toml beside the game, each converted and checked as the option itself would be."""
    path = find_config(specs)
    if path is None:
        return
    params = {p.name: p for p in ctx.command.params}
    for key, (value, where) in read_config(path).items():
        name = _PARAM_OF_KEY.get(key, key)
        param = params.get(name)
        if param is None or ctx.get_parameter_source(name) not in (ParameterSource.DEFAULT, None):
            continue  # the command has no such option, or the command line set it
        try:
            converted = param.type_cast_value(ctx, value)
            if param.callback is not None:
                converted = param.callback(ctx, param, converted)
        except click.BadParameter as exc:
            raise CardgenError([Problem(where, f"{key} = {value!r}: {exc.message}")]) from None
        if key == "out" and not Path(converted).is_absolute():
            converted = str(path.parent / converted)  # relative to the cardgen.toml, wherever the command runs
        ctx.params[name] = converted


class ConfiguredCommand(click.Command):
    """A command whose GAME/GAMES argument decides which cardgen.toml fills its defaults."""

    def invoke(self, ctx: click.Context):
        specs = ctx.params.get("games") or ((ctx.params["game"],) if ctx.params.get("game") else ())
        apply_config(ctx, tuple(specs))
        return super().invoke(ctx)


# --- shell completion -------------------------------------------------------------------------

def complete_game(ctx: click.Context | None, param: click.Parameter | None, incomplete: str) -> list[CompletionItem]:
    """Bundled game ids, and folders (game folders first) that start with what is typed."""
    items = [CompletionItem(game_id, help="bundled game") for game_id in bundled_game_ids() if game_id.startswith(incomplete)]
    if "/" in incomplete:  # a path: list the folder it is in
        head, prefix = incomplete.rsplit("/", 1)
        base, shown_as = Path(head or "/"), (lambda name: f"{head}/{name}")
    else:
        base, prefix, shown_as = Path("."), incomplete, (lambda name: name)
    try:
        folders = [p for p in base.iterdir() if p.is_dir() and p.name.startswith(prefix) and not p.name.startswith(".")]
    except OSError:
        folders = []
    folders.sort(key=lambda p: (not (p / "game.yaml").is_file(), p.name))  # game folders first
    items += [CompletionItem(shown_as(p.name), help="game folder" if (p / "game.yaml").is_file() else None) for p in folders]
    return items


# --- colour and verbosity ---------------------------------------------------------------------

MARK_COLOURS = {"FAIL": "red", "warn": "yellow"}


def mark(text: str) -> str:
    """A check mark (FAIL, warn) in its colour; click.echo drops the colour off a terminal or under NO_COLOR."""
    colour = MARK_COLOURS.get(text.strip())
    return click.style(text, fg=colour, bold=True if text.strip() == "FAIL" else None) if colour else text


def colour_setting(environ: dict[str, str] | os._Environ = os.environ) -> bool | None:
    """False when NO_COLOR is set to anything non-empty (https://no-color.org), else click decides (a terminal)."""
    return False if environ.get("NO_COLOR") else None


def verbosity(ctx: click.Context | None = None) -> int:
    """-q: -1, nothing: 0, -v: 1, from the top `cardgen` options (of the running command by default)."""
    root = (ctx or click.get_current_context()).find_root()
    return root.obj.get("verbosity", 0) if isinstance(root.obj, dict) else 0


# --- JSON of a build --------------------------------------------------------------------------

def build_as_dict(result) -> dict:
    """What one game's build wrote and skipped (with why), for `build --format json`."""
    return {"game": result.game_id, "out_dir": str(result.out_dir), "cards": result.cards, "sheets": result.sheets,
            "files": [str(f) for f in result.files], "drawn": list(result.drawn),
            "skipped": list(result.skipped), "removed": list(result.removed), "overflows": len(result.overflows),
            "warnings": ([result.sheet_warning] if result.sheet_warning else []) + result.k_only_warnings(),
            **({"decks": [build_as_dict(deck) for deck in result.decks]} if result.decks else {})}  # a game's declared decks


def report_run_as_dict(pair) -> dict:
    """One run of a balance report (its ReportRun and its simulation's as_dict), for `report --format json`."""
    run, result = pair
    return {"title": run.title, "players": run.players, "policies": list(run.policies), "variant": run.variant,
            "rotate": run.rotate, "result": result}


WEIGHT_STEPS = 1000  # a weighted bar's length: its ETA is click's, over estimated seconds


def weighted_steps(bar, total: float):
    """A progress callback that takes work in any unit (estimated seconds) and moves `bar`
    (of WEIGHT_STEPS) by its share of `total`, so the bar's ETA follows the clock."""
    done = [0.0]

    def step(amount: float) -> None:
        done[0] += amount
        target = min(WEIGHT_STEPS, round(done[0] / total * WEIGHT_STEPS)) if total > 0 else WEIGHT_STEPS
        if target > bar.pos:
            bar.update(target - bar.pos)

    return step
