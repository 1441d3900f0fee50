"""Overrides of a game's rule parameters and cards, validated like `cardgen check`, never written.

An override is `PATH=VALUE`:

- `rounds`, `event_urge.max`, `link_bonus.3.bonus`, `parameters.rounds`: a rule parameter in
  game.yaml (nested mappings with dots; list items by 1-based number);
- `cards.TYPE.count`: how many copies of a card type (0 removes the type); the declared total
  follows. A type that lists its copies keeps its first N, or repeats them in order to reach N;
- `cards.TYPE.FIELD`: a card field on the type and on every copy of it that sets the field;
- `cards.TYPE.copies.N.FIELD`: a field of copy N (1-based).

The overrides are applied to the parsed YAML of the game's files in memory and the game is built
by the same loader as `check` (the engine's declared PARAMETERS, card fields, counts and the
declared total), then the engine's setup checks run (`check_game` without the simulation). So a
point that `check` would refuse is refused here, with the override named.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from ..errors import CardgenError
from ..io.limits import MAX_CARDS
from ..io.paths import folder_file
from ..io.reader import SchemaReader
from ..load import resolve_game_path
from ..model import Game
from ..sweep_result import MAX_SHOWN, Vary, format_overrides, show_value

_TAGS = {bool: "tag:yaml.org,2002:bool", int: "tag:yaml.org,2002:int", float: "tag:yaml.org,2002:float",
         str: "tag:yaml.org,2002:str"}
_NAME = re.compile(r"^[A-Za-z0-9_.\-]+$")
# The most values one --vary takes (a range's or a list's), counted before a value is made: every
# value is at least one point to check and simulate, and each point's check takes tens of ms.
MAX_VALUES = 1_000


# --- values ---------------------------------------------------------------------------------

def parse_value(text: str) -> Any:
    """One value as written on the command line: true/false, a whole number, a number, or a word."""
    t = text.strip()
    if t.lower() in ("true", "false"):
        return t.lower() == "true"
    try:
        return int(t)
    except ValueError:
        pass
    try:
        value = float(t)
        if math.isfinite(value):
            return value
    except ValueError:
        pass
    return t


def parse_values(text: str, what: str) -> list[Any]:
    """`3..8` (whole numbers, both ends included), `0..1:0.25` (with a step), `6,8,10`, or one value."""
    text = text.strip()
    if not text:
        raise CardgenError(f"{what}: no values; write e.g. 3..8, 0..1:0.25 or 6,8,10")
    shown = text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + "…"
    m = re.fullmatch(r"(-?[0-9]+(?:\.[0-9]*)?)\.\.(-?[0-9]+(?:\.[0-9]*)?)(?::([0-9]+(?:\.[0-9]*)?))?", text)
    if m:
        lo, hi = parse_value(m.group(1)), parse_value(m.group(2))
        step = parse_value(m.group(3)) if m.group(3) else 1
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (lo, hi, step)) or step <= 0:
            raise CardgenError(f"{what}: '{shown}' is not a range; write LOW..HIGH or LOW..HIGH:STEP with numbers and a positive step")
        # counted exactly on the numbers as written: a 400-digit end overflows a float
        low, high, by = (Fraction(t) for t in (m.group(1), m.group(2), m.group(3) or "1"))
        if high < low:
            raise CardgenError(f"{what}: range {shown} runs backwards; write {m.group(2)}..{m.group(1)}"
                               if shown == text else f"{what}: range {shown} runs backwards; write the higher end last")
        count = math.floor((high - low) / by) + 1
        if count > MAX_VALUES:
            raise CardgenError(f"{what}: range {shown} has more than {MAX_VALUES:,} values; use a bigger step or a narrower range")
        if all(isinstance(v, int) for v in (lo, hi, step)):
            return list(range(lo, hi + 1, step))
        return [round(lo + i * step, 10) for i in range(count)]
    if text.count(",") >= MAX_VALUES:
        raise CardgenError(f"{what}: the list {shown} has more than {MAX_VALUES:,} values; give fewer")
    values = [parse_value(part) for part in text.split(",")]
    if any(v == "" for v in values):
        raise CardgenError(f"{what}: an empty value in '{shown}'")
    return values


def parse_vary(spec: str) -> Vary:
    if "=" not in spec:
        raise CardgenError(f"--vary {spec}: write PARAMETER=VALUES, e.g. --vary rounds=6,8,10 or --vary cards.maid.count=8..12")
    path, text = (part.strip() for part in spec.split("=", 1))
    if not path or not _NAME.match(path) or ".." in path or path.startswith(".") or path.endswith("."):
        raise CardgenError(f"--vary {spec}: '{path}' is not a parameter path; use names and dots, e.g. event_urge.max or cards.maid.count")
    values = parse_values(text, f"--vary {path}")
    if len(set(map(repr, values))) != len(values):
        raise CardgenError(f"--vary {path}: a value is given twice in '{text}'")
    return Vary(path, tuple(values), text)


def split_path(path: str) -> tuple[bool, list[str]]:
    """(True, the parts after `cards.`) for a card path, (False, the parameter's parts, without
    a leading `parameters.`) for a rule parameter."""
    parts = path.split(".")
    if parts[0] == "cards":
        return True, parts[1:]
    return False, parts[1:] if parts[0] == "parameters" else parts


def point_key(overrides: dict[str, Any]) -> str:
    """A name for one point that depends on its overrides alone (not on its place in the sweep)."""
    canonical = json.dumps(sorted(overrides.items()), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


# --- YAML nodes -----------------------------------------------------------------------------

def _scalar(value: Any, like: yaml.Node | None, mark: yaml.Mark) -> yaml.ScalarNode:
    text = ("true" if value else "false") if isinstance(value, bool) else repr(value) if isinstance(value, float) else str(value)
    start = like.start_mark if like is not None else mark
    end = like.end_mark if like is not None else mark
    return yaml.ScalarNode(_TAGS[type(value)], text, start, end)


def _find(mapping: yaml.MappingNode, name: str) -> int | None:
    for i, (key, _value) in enumerate(mapping.value):
        if isinstance(key, yaml.ScalarNode) and key.value == name:
            return i
    return None


def _set_path(node: yaml.Node, parts: list[str], value: Any, what: str) -> None:
    """Set the value at `parts` below `node`, creating missing mapping keys (the loader judges them)."""
    head, rest = parts[0], parts[1:]
    if isinstance(node, yaml.SequenceNode):
        if not head.isdigit() or not 1 <= int(head) <= len(node.value):
            raise CardgenError(f"{what}: '{head}' is not an item of that list; use 1..{len(node.value)}")
        i = int(head) - 1
        if rest:
            _set_path(node.value[i], rest, value, what)
        else:
            node.value[i] = _scalar(value, node.value[i], node.start_mark)
        return
    if not isinstance(node, yaml.MappingNode):
        raise CardgenError(f"{what}: '{head}' is below a single value, which has no parts; check the path")
    i = _find(node, head)
    if i is None:
        key = yaml.ScalarNode(_TAGS[str], head, node.start_mark, node.start_mark)
        child: yaml.Node = yaml.MappingNode("tag:yaml.org,2002:map", [], node.start_mark, node.start_mark) if rest else _scalar(value, None, node.start_mark)
        node.value.append((key, child))
        if rest:
            _set_path(child, rest, value, what)
        return
    key, child = node.value[i]
    if rest:
        _set_path(child, rest, value, what)
    else:
        node.value[i] = (key, _scalar(value, child if isinstance(child, yaml.ScalarNode) else None, child.start_mark))


def _types(cards_node: yaml.Node) -> yaml.SequenceNode:
    if isinstance(cards_node, yaml.MappingNode):
        i = _find(cards_node, "types")
        if i is not None and isinstance(cards_node.value[i][1], yaml.SequenceNode):
            return cards_node.value[i][1]
    raise CardgenError("cards.yaml has no list of types to override")


def _type_ids(types: yaml.SequenceNode) -> list[str]:
    out = []
    for item in types.value:
        if isinstance(item, yaml.MappingNode):
            i = _find(item, "id")
            if i is not None and isinstance(item.value[i][1], yaml.ScalarNode):
                out.append(item.value[i][1].value)
    return out


def _value_of(mapping: yaml.MappingNode, name: str) -> yaml.Node | None:
    i = _find(mapping, name)
    return None if i is None else mapping.value[i][1]


def _card_target(cards_node: yaml.Node, parts: list[str], what: str) -> tuple[yaml.SequenceNode, int, list[str]]:
    """The card type a `cards.` path names: (the types, its index, the rest of the path); a
    CardgenError when the path names no type or no changeable part of one (whatever the value)."""
    types = _types(cards_node)
    ids = _type_ids(types)
    if len(parts) < 2:
        raise CardgenError(f"{what}: write cards.TYPE.count, cards.TYPE.FIELD or cards.TYPE.copies.N.FIELD")
    type_id, rest = parts[0], parts[1:]
    if type_id not in ids:
        raise CardgenError(f"{what}: no card type '{type_id}'; the types are: {', '.join(ids)}")
    if rest[0] in ("id", "name"):
        raise CardgenError(f"{what}: a card type's {rest[0]} is not a balance number; it cannot be varied")
    if rest[0] != "copies" and len(rest) != 1:
        raise CardgenError(f"{what}: write cards.{type_id}.FIELD (a card field) or cards.{type_id}.copies.N.FIELD")
    return types, ids.index(type_id), rest


def _override_cards(cards_node: yaml.Node, parts: list[str], value: Any, what: str) -> None:
    types, index, rest = _card_target(cards_node, parts, what)
    type_id = parts[0]
    item = types.value[index]
    if rest == ["count"]:
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_CARDS:
            raise CardgenError(f"{what}: a count must be a whole number from 0 to {MAX_CARDS:,}, not {show_value(value)}")
        count_node = _value_of(item, "count")
        old = int(count_node.value) if isinstance(count_node, yaml.ScalarNode) and count_node.value.isdigit() else None
        if old is None:
            raise CardgenError(f"{what}: card type '{type_id}' has no plain count to change")
        total_i = _find(cards_node, "total")
        if total_i is not None:
            key, total_node = cards_node.value[total_i]
            if isinstance(total_node, yaml.ScalarNode) and total_node.value.isdigit():
                cards_node.value[total_i] = (key, _scalar(int(total_node.value) + value - old, total_node, total_node.start_mark))
        if value == 0:
            del types.value[index]
            return
        _set_path(item, ["count"], value, what)
        copies = _value_of(item, "copies")
        if isinstance(copies, yaml.SequenceNode) and copies.value and len(copies.value) != value:
            listed = copies.value
            copies.value = [listed[i] if i < len(listed) else copy.deepcopy(listed[i % len(listed)]) for i in range(value)]
        return
    if rest[0] == "copies":
        _set_path(item, rest, value, what)
        return
    field = rest[0]
    _set_path(item, [field], value, what)
    copies = _value_of(item, "copies")
    if isinstance(copies, yaml.SequenceNode):
        for entry in copies.value:
            if isinstance(entry, yaml.MappingNode) and _find(entry, field) is not None:
                _set_path(entry, [field], value, what)


# --- the game with overrides ----------------------------------------------------------------

class Refused(CardgenError):
    """A point whose overrides the game's validation refuses; the message names the override
    (and the checks, by id), `why` says what is wrong in words only, for paper."""

    def __init__(self, message: str, why: str = ""):
        super().__init__(message)
        self.why = why or message


class GameSource:
    """A game's files read once; `build(overrides)` is the game with the overrides applied."""

    def __init__(self, spec: str | Path):
        self.root = resolve_game_path(str(spec))
        reader = SchemaReader()
        self._game_node = reader.read(folder_file(self.root, "game.yaml"))
        from .. import load

        self._cards_file, self._cards_node = load.read_card_list(reader, self.root, self._game_node)
        reader.raise_if_any()
        digest = hashlib.sha256()
        for path in (self.root / "game.yaml", self._cards_file):
            digest.update(path.read_bytes())
        self.digest = digest.hexdigest()
        self.base = self.build({})

    def check_path(self, path: str) -> None:
        """CardgenError naming `--vary PATH` when the path names nothing in this game, whatever
        its values: no such card type, or a rule parameter the game's engine does not declare.
        Said once, before any point is built, rather than as every point's refusal."""
        what = f"--vary {path}"
        is_card, parts = split_path(path)
        if is_card:
            _card_target(self._cards_node, parts, what)
            return
        if not self.base.engine:
            return
        from ..engine import engine_by_name
        from ..io.schema import Map

        spec = getattr(engine_by_name(self.base.engine), "PARAMETERS", None)
        for depth, part in enumerate(parts):
            if not isinstance(spec, Map):
                return  # a list item or a table entry: the loader judges it with its value
            if part not in spec.fields:
                where = ("the game's rule parameters have" if depth == 0 else f"parameter {'.'.join(parts[:depth])} has")
                raise CardgenError(f"{what}: {where} no '{part}'; "
                                   f"{'they are' if depth == 0 else 'its parts are'}: {', '.join(spec.fields)}")
            spec = spec.fields[part]

    def build(self, overrides: dict[str, Any], *, check: bool = True) -> Game:
        """The game with `overrides`; Refused naming the override when the loader or a check refuses it."""
        from .. import load

        game_node = copy.deepcopy(self._game_node)
        cards_node = copy.deepcopy(self._cards_node)
        for path, value in overrides.items():
            what = f"{path}={show_value(value)}"
            is_card, parts = split_path(path)
            try:
                if is_card:
                    _override_cards(cards_node, parts, value, what)
                else:
                    params = _value_of(game_node, "parameters") if isinstance(game_node, yaml.MappingNode) else None
                    if params is None:
                        raise CardgenError(f"{what}: the game has no rule parameters to override")
                    _set_path(params, parts, value, what)
            except Refused:
                raise
            except CardgenError as exc:
                raise Refused(str(exc)) from None
        reader = SchemaReader()
        game = load._build_game(reader, self.root, game_node, cards_node, self._cards_file)
        if reader.problems or game is None:
            shown = "; ".join(str(p) for p in reader.problems[:4]) or "the game could not be built"
            raise Refused(f"{format_overrides(overrides)}: refused by the game's data rules: {shown}",
                          "; ".join(p.message for p in reader.problems[:4])
                          or "the game could not be built")
        if check:
            from ..checks import check_game

            failed = [r for r in check_game(game, simulate=False).results if not r.ok]
            if failed:
                shown = "; ".join(f"{r.id}: {r.message}" for r in failed[:4])
                raise Refused(f"{format_overrides(overrides)}: refused by the game's checks: {shown}",
                              "; ".join(r.message for r in failed[:4]))
        return game
