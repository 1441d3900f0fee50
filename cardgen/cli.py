"""The `cardgen` command: thin click wrappers over library functions a test can call."""

from __future__ import annotations

import json
import sys

import click

from .checks import check_game
from .errors import CardgenError
from .export import to_csv, to_json
from .load import bundled_game_ids, load_game


class _Group(click.Group):
    """Turn CardgenError into a clear message and exit 1, never a traceback."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except CardgenError as exc:
            for problem in exc.problems:
                click.echo(f"error: {problem}", err=True)
            ctx.exit(1)


@click.group(cls=_Group)
@click.version_option(package_name="cardgen")
def cli() -> None:
    """Make print-and-play card games from YAML data, and check that they hold together."""


def games_or_all(specs: tuple[str, ...]) -> list[str]:
    return list(specs) if specs else bundled_game_ids()


@cli.command("list")
def list_games() -> None:
    """List the bundled games."""
    for game_id in bundled_game_ids():
        game = load_game(game_id)
        players = f"{game.min_players}" if game.min_players == game.max_players else f"{game.min_players}-{game.max_players}"
        click.echo(f"{game.id:<12} {game.title.en} / {game.title.ja}  ({players} players, {game.total} cards)")


@cli.command()
@click.argument("games", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", help="Output format.")
@click.option("--no-simulate", is_flag=True, help="Skip the random-simulation sweep.")
def check(games: tuple[str, ...], fmt: str, no_simulate: bool) -> None:
    """Check data, composition and rules of GAMES (ids or folders; default: all bundled)."""
    reports = [check_game(load_game(spec), simulate=not no_simulate) for spec in games_or_all(games)]
    if fmt == "json":
        click.echo(json.dumps([r.as_dict() for r in reports], ensure_ascii=False, indent=2))
    else:
        for report in reports:
            click.echo(f"{report.game_id}: {'ok' if report.ok else 'FAILED'}")
            for result in report.results:
                mark = "ok  " if result.ok else "FAIL"
                where = f" ({result.location})" if result.location and not result.ok else ""
                click.echo(f"  {mark} {result.id}: {result.message}{where}")
    if not all(r.ok for r in reports):
        sys.exit(1)


@cli.command()
@click.argument("game")
@click.option("--format", "fmt", type=click.Choice(["json", "csv"]), default="json", help="Output format.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to a file instead of stdout.")
def export(game: str, fmt: str, output: str | None) -> None:
    """Export one row per physical card of GAME as JSON or CSV."""
    loaded = load_game(game)
    text = to_json(loaded) if fmt == "json" else to_csv(loaded)
    if output:
        from .files import write_atomic

        write_atomic(output, text.encode("utf-8"))
    else:
        click.echo(text, nl=False)


def main() -> None:
    cli(prog_name="cardgen")


if __name__ == "__main__":
    main()
