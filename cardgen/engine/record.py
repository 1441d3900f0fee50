"""Game records: a seed (or a stacked deck order) plus the list of choices, and their replay.

A record is YAML:

    game: mygame
    players: 3
    variant: standard
    seed: 12345            # and/or deck_order: [LL07, LL19, ...]  (top first)
    actions:
    - [pick, 0]
    - [bid, 3]
    - [pass]
    ...

Actions are written as lists and read back as tuples. `replay` checks every choice for
legality and reports the first illegal one by its 1-based position. Optional `meta` holds
what the recorder knew (policies, the result it saw); a recorded result that differs from
the replayed one is reported as a mismatch.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import DataError, Problem
from ..files import write_atomic
from ..io import limits
from ..io.reader import SchemaReader, display_path, where as node_location
from ..io.schema import Bool, Int, List, OneOf, Str, validate
from ..load import load_game
from ..model import Game, Location
from ..registry import game_engine
from .core import Action, GameResult, IllegalAction, State, apply_moves

RECORD_KEYS = {"game", "players", "variant", "seed", "deck_order", "actions", "meta"}

try:  # the C dumper/loader is much faster for thousands of records
    _Dumper: Any = yaml.CSafeDumper
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Dumper = yaml.SafeDumper
    _Loader = yaml.SafeLoader


class RecordError(DataError):
    """A record file that cannot be read as a record."""


_SEED = Int(-(2 ** 63), 2 ** 63)
_WORD = OneOf((Int(-limits.MAX_INT, limits.MAX_INT), Str(), Bool()))
_ACTION = OneOf((_WORD, List(_WORD, 1, 16)))
MAX_RECORD_ACTIONS = 100_000  # every engine ends a game far sooner (Rules.max_actions)
# The declared shape of a record file; `meta` is read by `_meta`.
RECORD_FIELDS = {
    "game": Str(),
    "players": Int(1, limits.MAX_PLAYERS),
    "variant": Str(),
    "seed": _SEED,
    "deck_order": List(Str(), 1, limits.MAX_CARDS),
    "actions": List(_ACTION, 0, MAX_RECORD_ACTIONS),
}


@dataclass
class Record:
    game: str
    players: int
    variant: str = "standard"
    seed: int | None = None
    deck_order: list[str] | None = None
    actions: list[Any] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    # where each part was read from (a record loaded from a file): "record", "actions" (one per action)
    locations: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"game": self.game, "players": self.players, "variant": self.variant}
        if self.seed is not None:
            out["seed"] = self.seed
        if self.deck_order is not None:
            out["deck_order"] = list(self.deck_order)
        out["actions"] = [_to_plain(a) for a in self.actions]
        if self.meta:
            out["meta"] = _to_plain(self.meta)
        return out

    def to_yaml(self) -> str:
        # one move a line (block style), so that replay errors name the line of the move
        data = self.as_dict()
        actions = data.pop("actions")
        meta = data.pop("meta", None)
        order = data.pop("deck_order", None)
        text = yaml.dump(data, Dumper=_Dumper, default_flow_style=False, sort_keys=False, allow_unicode=True, width=120)
        if order is not None:
            text += yaml.dump({"deck_order": order}, Dumper=_Dumper, default_flow_style=None, sort_keys=False,
                              allow_unicode=True, width=120)
        text += "actions:" + ("\n" if actions else " []\n") + "".join(f"- {_scalar(a)}\n" for a in actions)
        if meta is not None:
            text += yaml.dump({"meta": meta}, Dumper=_Dumper, default_flow_style=None, sort_keys=False,
                              allow_unicode=True, width=120)
        return text


_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_.,:-]*\Z")
_SPECIAL = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"}


def _scalar(value: Any) -> str:
    """One action as a YAML scalar: a code as it is when that is safe, else quoted."""
    if isinstance(value, str) and _PLAIN.match(value) and value.lower() not in _SPECIAL and not value.endswith(":"):
        return value
    return json.dumps(value, ensure_ascii=False)


def _to_plain(value: Any) -> Any:
    if isinstance(value, Action):
        return value.encode()      # the action's stable string code
    if isinstance(value, tuple):
        return [_to_plain(v) for v in value]
    if isinstance(value, list):
        return [_to_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _to_plain(v) for k, v in value.items()}
    return value


def _to_action(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_to_action(v) for v in value)
    return value


def record_from_dict(data: Any, where: str = "record") -> Record:
    """Build a Record from parsed YAML, with errors that say what to fix."""
    if not isinstance(data, dict):
        raise RecordError(f"{where}: a record must be a mapping with game, players, seed or deck_order, and actions")
    unknown = sorted(set(map(str, data)) - RECORD_KEYS)
    if unknown:
        raise RecordError(f"{where}: unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(RECORD_KEYS))}")
    for key in ("game", "players", "actions"):
        if key not in data:
            raise RecordError(f"{where}: missing '{key}'")
    if not isinstance(data["game"], str):
        raise RecordError(f"{where}: 'game' must be a game id or folder")
    if not isinstance(data["players"], int) or isinstance(data["players"], bool):
        raise RecordError(f"{where}: 'players' must be a whole number")
    seed = data.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
        raise RecordError(f"{where}: 'seed' must be a whole number")
    deck_order = data.get("deck_order")
    if deck_order is not None and not (isinstance(deck_order, list) and all(isinstance(c, str) for c in deck_order)):
        raise RecordError(f"{where}: 'deck_order' must be a list of card ids, top first")
    if seed is None and deck_order is None:
        raise RecordError(f"{where}: give 'seed' or 'deck_order' so that the shuffle can be reproduced")
    actions = data["actions"]
    if not isinstance(actions, list):
        raise RecordError(f"{where}: 'actions' must be a list")
    meta = data.get("meta") or {}
    if not isinstance(meta, dict):
        raise RecordError(f"{where}: 'meta' must be a mapping")
    return Record(game=data["game"], players=data["players"], variant=str(data.get("variant", "standard")),
                  seed=seed, deck_order=deck_order, actions=[_to_action(a) for a in actions], meta=meta)


def load_record(path: str | Path, need_shuffle: bool = True) -> Record:
    """Read and validate a record file; RecordError at the file, line and column of any problem.

    The file goes through the schema reader (size, UTF-8, aliases and nesting are limited), its
    keys through the record's declared shape, and then against the game it names: a player
    count or variant the game cannot play and a deck order that is not the game's cards are
    refused at their line, so replay never sees a malformed record.
    """
    path = Path(path)
    shown = display_path(path)
    r = SchemaReader()
    node = r.read(path, shown)
    _raise_if_any(r)
    entries = r.mapping(node, "record", {"game", "players", "actions"}, RECORD_KEYS)
    _raise_if_any(r)
    assert entries is not None
    values: dict[str, Any] = {}
    for name, (_, value) in entries.items():
        values[name] = _meta(r, value) if name == "meta" else validate(r, value, RECORD_FIELDS[name], name)
    if need_shuffle and "seed" not in entries and "deck_order" not in entries:
        r.error(node, "record: give 'seed' or 'deck_order' so that the shuffle can be reproduced")
    _raise_if_any(r)
    record = Record(game=values["game"], players=values["players"], variant=values.get("variant", "standard"),
                    seed=values.get("seed"), deck_order=values.get("deck_order"),
                    actions=[_to_action(a) for a in values["actions"]], meta=values.get("meta") or {},
                    locations={"record": Location(shown, 1, 1),
                               "actions": [node_location(a) for a in entries["actions"][1].value]})
    _check_against_game(r, record, entries)
    _raise_if_any(r)
    return record


def _raise_if_any(r: SchemaReader) -> None:
    if r.problems:
        raise RecordError(list(r.problems))


def _meta(r: SchemaReader, node: Any) -> dict[str, Any] | None:
    """`meta`: anything the recorder knew; `result` and `policies`, which replay reads, are checked."""
    entries = r.mapping(node, "meta", set(), None)
    if entries is None:
        return None
    out: dict[str, Any] = {}
    for name, (_, value) in entries.items():
        if name == "result":
            result = r.mapping(value, "meta.result", set(), {"scores", "winners", "ending"})
            if result is None:
                continue
            got: dict[str, Any] = {}
            for key, (_, item) in result.items():
                got[key] = r.plain(item) if key == "ending" else validate(r, item, List(Int(-limits.MAX_INT, limits.MAX_INT), 0, limits.MAX_PLAYERS), f"meta.result.{key}")
            out[name] = got
        elif name == "policies":
            out[name] = validate(r, value, List(Str(), 1, limits.MAX_PLAYERS), "meta.policies")
        else:
            out[name] = r.plain(value)
    return out


def _check_against_game(r: SchemaReader, record: Record, entries: dict) -> None:
    """The player count, variant and deck order of `record` against the game it names."""
    game_node = entries["game"][1]
    try:
        game = load_game(record.game)
    except DataError as exc:
        r.error(game_node, f"the record's game '{record.game}' cannot be loaded: {exc.problems[0]}")
        return
    rules_class = game_engine(game)
    if rules_class is None:
        r.error(game_node, f"{game.id} has no rules engine, so its records cannot be replayed")
        return
    if record.players not in game.player_counts:
        r.error(entries["players"][1], f"players is {record.players}, but {game.id} is for "
                                       f"{game.min_players}–{game.max_players} players")
        return
    try:
        rules = rules_class(game, record.players, record.variant)
    except ValueError as exc:
        at = entries["variant"][1] if "variant" in entries else entries["players"][1]
        r.error(at, f"{game.id} cannot be set up for this record: {exc}; variants: {', '.join(rules_class.variants)}")
        return
    if record.deck_order is not None:
        node = entries["deck_order"][1]
        known = {card.id for card in game.cards}
        for item, card_id in zip(node.value, record.deck_order):
            if card_id not in known:
                r.error(item, f"deck_order: '{card_id}' is not a card of {game.id}; list the game's card ids, top first")
        if not r.problems:
            try:  # the engine knows how many of each card a stacked deck holds (a versus variant may use two sets)
                rules.new_initial_state(record.deck_order)
            except ValueError as exc:
                r.error(node, f"{exc}; list the game's card ids, top first")


def save_record(record: Record, path: str | Path) -> None:
    write_atomic(path, record.to_yaml().encode("utf-8"))


@dataclass
class ReplayReport:
    record: Record
    state: State | None
    applied: int                       # actions applied legally
    error_index: int | None = None     # 1-based position of the illegal action
    error: str | None = None
    finished: bool = False
    result: GameResult | None = None
    mismatch: str | None = None        # recorded result differs from the replayed one

    @property
    def ok(self) -> bool:
        return self.error is None and self.mismatch is None

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.record.game, "players": self.record.players, "variant": self.record.variant,
            "seed": self.record.seed, "actions": len(self.record.actions), "applied": self.applied,
            "ok": self.ok, "error_index": self.error_index, "error": self.error, "finished": self.finished,
            "mismatch": self.mismatch,
            "result": self.result.as_dict() if self.result else None,
            "state": self.state.summary() if self.state is not None else None,
        }


def replay(record: Record, game: Game | None = None, start: State | None = None) -> ReplayReport:
    """Replay a record, checking each action; never raises for an illegal action. `start` (a
    state built from a position, see cardgen.engine.position) replaces the record's new game:
    its actions are then applied from that position."""
    if game is None:
        game = load_game(record.game)
    rules_class = game_engine(game)
    if rules_class is None:
        raise RecordError(f"{game.id} has no rules engine, so its records cannot be replayed")
    source = record.locations.get("record")
    try:
        rules = rules_class(game, record.players, record.variant)
    except ValueError as exc:
        raise RecordError([Problem(source, f"record: {exc}")]) from None
    if start is not None:
        if start.rules.game.id != game.id or start.rules.players != record.players:
            raise RecordError([Problem(source, f"record: the position is {start.rules.game.id} for {start.rules.players} "
                                               f"player(s), the record {game.id} for {record.players}")])
        state = start
    else:
        try:
            state = rules.new_initial_state(record.deck_order)
        except ValueError as exc:
            raise RecordError([Problem(source, f"record: {exc}")]) from None
    lines = record.locations.get("actions") or []
    report = ReplayReport(record, state, 0)
    # Chance outcomes the record gives are applied; any it leaves out come from its seed.
    chance = random.Random(record.seed if record.seed is not None else 0)
    try:
        report.applied = apply_moves(state, record.actions, chance)
    except IllegalAction as exc:
        position = getattr(exc, "position", report.applied + 1)
        report.applied = position - 1       # every action before the illegal one was applied
        action = record.actions[position - 1]
        report.error_index = position
        report.error = f"action {position} ({_show(action)}): {exc}" + _at(lines, position)
        return report
    except (TypeError, ValueError):
        position = report.applied + 1
        report.error_index = position
        report.error = f"action {position}: not an action of this game" + _at(lines, position)
        return report
    if state.is_terminal():
        report.finished = True
        report.result = state.result()
        expected = record.meta.get("result") if isinstance(record.meta, dict) else None
        if isinstance(expected, dict):
            got = {"scores": list(report.result.scores), "winners": list(report.result.winners)}
            want = {k: list(expected[k]) for k in ("scores", "winners") if k in expected}
            if any(got[k] != v for k, v in want.items()):
                report.mismatch = f"the record says {want}, the replay gives {got}"
    return report


def _at(lines: list, position: int) -> str:
    return f" (at {lines[position - 1]})" if position <= len(lines) else ""


def _show(action: Any) -> str:
    return "[" + ", ".join(map(str, action)) + "]" if isinstance(action, tuple) else repr(action)


def format_replay(report: ReplayReport) -> str:
    """The replay as text: what happened, the final state and the scores."""
    r = report.record
    lines = [f"{r.game}: {r.players} players, variant {r.variant}, "
             + (f"seed {r.seed}" if r.seed is not None else "stacked deck")
             + f", {len(r.actions)} actions"]
    if report.error:
        lines.append(f"ILLEGAL: {report.error}")
        lines.append(f"state before action {report.error_index}:")
    elif report.finished:
        lines.append(f"replayed all {report.applied} actions: the game is over")
    else:
        lines.append(f"replayed all {report.applied} actions: the game is not over yet")
    if report.state is not None:
        lines.extend("  " + line for line in yaml.dump(report.state.summary(), Dumper=_Dumper, allow_unicode=True,
                                                     sort_keys=False, width=120).rstrip().splitlines())
    if report.result is not None:
        res = report.result
        lines.append("scores: " + ", ".join(f"seat {i + 1}: {s}" for i, s in enumerate(res.scores)))
        if res.success is not None:
            lines.append(f"{'success' if res.success else 'failure'}: {res.ending}")
        elif res.draw:
            lines.append("draw between seats " + ", ".join(str(s + 1) for s in res.winners))
        else:
            lines.append(f"winner: seat {res.winners[0] + 1}" + (f" ({res.ending})" if res.ending else ""))
    if report.mismatch:
        lines.append(f"MISMATCH: {report.mismatch}")
    return "\n".join(lines)
