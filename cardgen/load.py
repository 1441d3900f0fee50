"""Load a game folder (game.yaml + cards.yaml) into the model, with file:line:column errors.

YAML is composed into nodes with the safe loader only, so every value keeps its position and
no tag can construct Python objects. The schema is checked here; nothing downstream sees YAML.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import yaml

from .errors import DataError, Problem
from .model import (
    LANGUAGES,
    Card,
    CardType,
    Component,
    Decision,
    FieldSpec,
    Game,
    Location,
    Text,
)

CARD_SIZES = ("poker", "bridge", "mini", "euro", "tarot")
FIELD_KINDS = ("int", "str", "text", "enum", "bool")
# Keys of a card type that are not card fields.
TYPE_KEYS = {"id", "name", "count", "copies", "note"}


def package_root() -> Path:
    """Where the bundled card_data/, templates/ and fonts/ are (source tree or wheel)."""
    here = Path(__file__).resolve().parent
    bundled = here / "_bundled"
    return bundled if bundled.is_dir() else here.parent


def bundled_games_dir() -> Path:
    return package_root() / "card_data"


def bundled_game_ids() -> list[str]:
    base = bundled_games_dir()
    return sorted(p.name for p in base.iterdir() if (p / "game.yaml").is_file())


def resolve_game_path(spec: str) -> Path:
    """Turn a bundled game id or a folder path into the game's folder."""
    path = Path(spec)
    if path.is_dir():
        if not (path / "game.yaml").is_file():
            raise DataError(f"{path}: not a game folder (no game.yaml in it); pass a folder that holds game.yaml and cards.yaml")
        return path
    if os.sep not in spec and "/" not in spec:
        candidate = bundled_games_dir() / spec
        if (candidate / "game.yaml").is_file():
            return candidate
    known = ", ".join(bundled_game_ids())
    raise DataError(f"{spec}: no such game; use a bundled game id ({known}) or the path of a folder holding game.yaml")


def load_game(spec: str | Path) -> Game:
    """Load and validate a game by bundled id or folder path; raise DataError listing every problem."""
    root = resolve_game_path(str(spec))
    reader = _Reader()
    game_node = reader.read(root / "game.yaml")
    cards_node = reader.read(root / "cards.yaml")
    reader.raise_if_any()
    game = _build_game(reader, root, game_node, cards_node)
    reader.raise_if_any()
    assert game is not None
    return game


class _Reader:
    """Reads YAML files into nodes and collects problems with their positions."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.files: dict[int, str] = {}

    def read(self, path: Path) -> yaml.Node | None:
        shown = _display_path(path)
        if not path.is_file():
            self.problems.append(Problem(Location(shown, 1, 1), f"file is missing; create {path.name} (see card_data/SCHEMA.md)"))
            return None
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            self.problems.append(Problem(Location(shown, 1, 1), f"not UTF-8 text ({exc.reason}); save the file as UTF-8"))
            return None
        try:
            node = yaml.compose(text, Loader=yaml.SafeLoader)
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            where = Location(shown, mark.line + 1, mark.column + 1) if mark else Location(shown, 1, 1)
            self.problems.append(Problem(where, f"YAML syntax error: {exc.problem}; fix the syntax at this position"))
            return None
        if node is None:
            self.problems.append(Problem(Location(shown, 1, 1), "file is empty; it must hold a mapping (key: value)"))
            return None
        self._tag_files(node, shown)
        return node

    def _tag_files(self, node: yaml.Node, shown: str) -> None:
        self.files[id(node)] = shown
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                self._tag_files(key, shown)
                self._tag_files(value, shown)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                self._tag_files(item, shown)

    def where(self, node: yaml.Node) -> Location:
        mark = node.start_mark
        return Location(self.files.get(id(node), mark.name), mark.line + 1, mark.column + 1)

    def error(self, node: yaml.Node, message: str) -> None:
        self.problems.append(Problem(self.where(node), message))

    def raise_if_any(self) -> None:
        if self.problems:
            raise DataError(self.problems)

    # --- typed accessors; each returns None after recording a problem -------------------

    def mapping(self, node: yaml.Node, what: str, required: set[str], allowed: set[str] | None) -> dict[str, tuple[yaml.Node, yaml.Node]] | None:
        if not isinstance(node, yaml.MappingNode):
            self.error(node, f"{what} must be a mapping (key: value), not {_kind(node)}")
            return None
        entries: dict[str, tuple[yaml.Node, yaml.Node]] = {}
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            if name is None:
                self.error(key, f"{what}: keys must be plain words")
                continue
            if name in entries:
                self.error(key, f"{what}: key '{name}' appears twice; keep one")
                continue
            if allowed is not None and name not in allowed:
                hint = ", ".join(sorted(allowed))
                self.error(key, f"{what}: unknown key '{name}'; allowed keys are: {hint}")
                continue
            entries[name] = (key, value)
        for name in sorted(required - entries.keys()):
            self.error(node, f"{what}: missing required key '{name}'; add it")
        return entries

    def sequence(self, node: yaml.Node, what: str) -> list[yaml.Node] | None:
        if not isinstance(node, yaml.SequenceNode):
            self.error(node, f"{what} must be a list (lines starting with '- '), not {_kind(node)}")
            return None
        return list(node.value)

    def scalar(self, node: yaml.Node, what: str, kind: str) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            self.error(node, f"{what} must be {_article(kind)}, not {_kind(node)}")
            return None
        try:
            value = _construct(node)
        except yaml.YAMLError:
            self.error(node, f"{what}: the tag {node.tag} is not allowed; write a plain value")
            return None
        ok = {
            "int": isinstance(value, int) and not isinstance(value, bool),
            "str": isinstance(value, str) and value.strip() != "",
            "bool": isinstance(value, bool),
            "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        }[kind]
        if not ok:
            shown = repr(node.value) if node.value != "" else "an empty value"
            self.error(node, f"{what} must be {_article(kind)}, got {shown}")
            return None
        return value

    def text(self, node: yaml.Node, what: str) -> Text | None:
        entries = self.mapping(node, what, required=set(), allowed=set(LANGUAGES))
        if entries is None:
            return None
        values: dict[str, str] = {}
        for lang in LANGUAGES:
            if lang not in entries:
                self.error(node, f"{what}: the '{lang}' text is missing; every text needs both ja and en")
                continue
            value = self.scalar(entries[lang][1], f"{what}.{lang}", "str")
            if value is not None:
                values[lang] = value.strip()
        if len(values) != len(LANGUAGES):
            return None
        return Text(**values)

    def plain(self, node: yaml.Node) -> Any:
        """Convert a node with no schema (rule parameters, claims) to plain Python values."""
        try:
            return _construct(node)
        except yaml.YAMLError as exc:
            self.error(node, f"only plain YAML values are allowed here ({getattr(exc, 'problem', exc)})")
            return None


def _construct(node: yaml.Node) -> Any:
    if isinstance(node, yaml.MappingNode):
        return {_construct(k): _construct(v) for k, v in node.value}
    if isinstance(node, yaml.SequenceNode):
        return [_construct(item) for item in node.value]
    return yaml.SafeLoader(" ").construct_object(node)


def _kind(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return f"the value {node.value!r}" if node.value != "" else "an empty value"


def _article(kind: str) -> str:
    return {"int": "a whole number", "str": "a non-empty string", "bool": "true or false", "number": "a number"}[kind]


def _display_path(path: Path) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


GAME_KEYS = {
    "id", "title", "players", "card_size", "id_format", "card_fields", "components", "parameters",
    "decisions", "claims", "engine", "source", "summary", "back",
}
GAME_REQUIRED = {"id", "title", "players", "card_fields"}


def _build_game(r: _Reader, root: Path, game_node: yaml.Node | None, cards_node: yaml.Node | None) -> Game | None:
    if game_node is None or cards_node is None:
        return None
    g = r.mapping(game_node, "game.yaml", GAME_REQUIRED, GAME_KEYS)
    if g is None:
        return None
    game_id = r.scalar(g["id"][1], "id", "str") if "id" in g else None
    if game_id is not None and game_id != root.name:
        r.error(g["id"][1], f"id '{game_id}' differs from the folder name '{root.name}'; make them the same")
    title = r.text(g["title"][1], "title") if "title" in g else None
    min_p = max_p = None
    if "players" in g:
        p = r.mapping(g["players"][1], "players", {"min", "max"}, {"min", "max"})
        if p:
            min_p = r.scalar(p["min"][1], "players.min", "int") if "min" in p else None
            max_p = r.scalar(p["max"][1], "players.max", "int") if "max" in p else None
            if min_p is not None and max_p is not None and not (1 <= min_p <= max_p):
                r.error(g["players"][1], f"players: min {min_p} and max {max_p} must satisfy 1 <= min <= max")
    card_size = "poker"
    if "card_size" in g:
        card_size = r.scalar(g["card_size"][1], "card_size", "str") or "poker"
        if card_size not in CARD_SIZES and not _is_wxh(card_size):
            r.error(g["card_size"][1], f"card_size '{card_size}' is unknown; use one of {', '.join(CARD_SIZES)} or WxH in mm (e.g. 63x88)")
    specs = _field_specs(r, g["card_fields"][1]) if "card_fields" in g else {}
    id_format = r.scalar(g["id_format"][1], "id_format", "str") if "id_format" in g else None
    components = _components(r, g["components"][1]) if "components" in g else ()
    decisions = _decisions(r, g["decisions"][1]) if "decisions" in g else ()
    parameters = r.plain(g["parameters"][1]) if "parameters" in g else {}
    if "parameters" in g and not isinstance(parameters, dict):
        r.error(g["parameters"][1], "parameters must be a mapping of rule numbers (name: value)")
        parameters = {}
    claims: tuple = ()
    if "claims" in g:
        items = r.sequence(g["claims"][1], "claims")
        claims = tuple(r.plain(item) for item in items or [])
    engine = r.scalar(g["engine"][1], "engine", "str") if "engine" in g else None
    source = r.scalar(g["source"][1], "source", "str") if "source" in g else None
    summary = r.text(g["summary"][1], "summary") if "summary" in g else None
    back = r.plain(g["back"][1]) if "back" in g else {}

    declared_total, types, cards = _cards(r, cards_node, specs, id_format)
    if None in (game_id, title, min_p, max_p) or declared_total is None:
        return None
    return Game(
        id=game_id, title=title, min_players=min_p, max_players=max_p, card_size=card_size,
        root=root, field_specs=specs, card_types=types, cards=cards, declared_total=declared_total,
        components=components, parameters=parameters, decisions=decisions, claims=claims,
        engine=engine, source=source, summary=summary, back=back or {},
    )


def _is_wxh(text: str) -> bool:
    parts = text.lower().split("x")
    try:
        return len(parts) == 2 and all(float(p) > 0 for p in parts)
    except ValueError:
        return False


def _field_specs(r: _Reader, node: yaml.Node) -> dict[str, FieldSpec]:
    entries = r.mapping(node, "card_fields", set(), None)
    specs: dict[str, FieldSpec] = {}
    for name, (key, value) in (entries or {}).items():
        if name in TYPE_KEYS:
            r.error(key, f"card_fields: '{name}' is a reserved key of card types; choose another field name")
            continue
        spec = r.mapping(value, f"card_fields.{name}", {"type"}, {"type", "values", "min", "max", "required", "label"})
        if spec is None or "type" not in spec:
            continue
        kind = r.scalar(spec["type"][1], f"card_fields.{name}.type", "str")
        if kind not in FIELD_KINDS:
            if kind is not None:
                r.error(spec["type"][1], f"card_fields.{name}.type '{kind}' is unknown; use one of {', '.join(FIELD_KINDS)}")
            continue
        values: tuple[str, ...] = ()
        if kind == "enum":
            if "values" not in spec:
                r.error(value, f"card_fields.{name}: an enum needs 'values: [..]'")
                continue
            items = r.sequence(spec["values"][1], f"card_fields.{name}.values") or []
            values = tuple(str(r.scalar(i, f"card_fields.{name}.values", "str")) for i in items)
        minimum = r.scalar(spec["min"][1], f"card_fields.{name}.min", "int") if "min" in spec else None
        maximum = r.scalar(spec["max"][1], f"card_fields.{name}.max", "int") if "max" in spec else None
        required = bool(r.scalar(spec["required"][1], f"card_fields.{name}.required", "bool")) if "required" in spec else False
        label = r.text(spec["label"][1], f"card_fields.{name}.label") if "label" in spec else None
        specs[name] = FieldSpec(name, kind, values, minimum, maximum, required, label)
    return specs


def _components(r: _Reader, node: yaml.Node) -> tuple[Component, ...]:
    out = []
    for item in r.sequence(node, "components") or []:
        c = r.mapping(item, "component", {"id", "name"}, {"id", "name", "count", "note"})
        if not c or "id" not in c or "name" not in c:
            continue
        cid = r.scalar(c["id"][1], "component.id", "str")
        name = r.text(c["name"][1], "component.name")
        count = r.scalar(c["count"][1], "component.count", "int") if "count" in c else None
        note = r.text(c["note"][1], "component.note") if "note" in c else None
        if cid and name:
            out.append(Component(cid, name, count, note))
    return tuple(out)


def _decisions(r: _Reader, node: yaml.Node) -> tuple[Decision, ...]:
    out = []
    seen: set[str] = set()
    for item in r.sequence(node, "decisions") or []:
        d = r.mapping(item, "decision", {"id", "text"}, {"id", "text"})
        if not d or "id" not in d or "text" not in d:
            continue
        did = r.scalar(d["id"][1], "decision.id", "str")
        if did in seen:
            r.error(d["id"][1], f"decision id '{did}' is used twice; ids must be unique")
        seen.add(did)
        text = r.text(d["text"][1], f"decision {did}")
        if did and text:
            out.append(Decision(did, text, r.where(item)))
    return tuple(out)


def _field_value(r: _Reader, spec: FieldSpec, node: yaml.Node, what: str) -> Any:
    if spec.kind == "text":
        return r.text(node, what)
    if spec.kind == "enum":
        value = r.scalar(node, what, "str")
        if value is not None and value not in spec.values:
            r.error(node, f"{what} '{value}' is not one of: {', '.join(spec.values)}")
            return None
        return value
    value = r.scalar(node, what, spec.kind)
    if value is not None and spec.kind == "int":
        if spec.minimum is not None and value < spec.minimum:
            r.error(node, f"{what} is {value}, below the minimum {spec.minimum}")
        if spec.maximum is not None and value > spec.maximum:
            r.error(node, f"{what} is {value}, above the maximum {spec.maximum}")
    return value


def _read_fields(r: _Reader, entries: dict, specs: dict[str, FieldSpec], what: str) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name, (key, value) in entries.items():
        if name in TYPE_KEYS:
            continue
        spec = specs.get(name)
        if spec is None:
            known = ", ".join(sorted(specs)) or "(none declared)"
            r.error(key, f"{what}: unknown field '{name}'; declare it under card_fields in game.yaml or use one of: {known}")
            continue
        fields[name] = _field_value(r, spec, value, f"{what}.{name}")
    return fields


def _cards(r: _Reader, node: yaml.Node, specs: dict[str, FieldSpec], id_format: str | None):
    top = r.mapping(node, "cards.yaml", {"total", "types"}, {"total", "types"})
    if top is None or "types" not in top:
        return None, (), ()
    declared_total = r.scalar(top["total"][1], "total", "int") if "total" in top else None
    types: list[CardType] = []
    cards: list[Card] = []
    seen_types: dict[str, yaml.Node] = {}
    seen_cards: dict[str, yaml.Node] = {}
    for item in r.sequence(top["types"][1], "types") or []:
        t = r.mapping(item, "card type", {"id", "name", "count"}, None)
        if t is None or not {"id", "name", "count"} <= t.keys():
            continue
        type_id = r.scalar(t["id"][1], "card type id", "str")
        if type_id is None:
            continue
        if type_id in seen_types:
            r.error(t["id"][1], f"card type id '{type_id}' is used twice; each type needs its own id")
            continue
        seen_types[type_id] = item
        what = f"card type '{type_id}'"
        name = r.text(t["name"][1], f"{what} name")
        count = r.scalar(t["count"][1], f"{what} count", "int")
        note = r.text(t["note"][1], f"{what} note") if "note" in t else None
        shared = _read_fields(r, t, specs, what)
        copies_nodes: list[yaml.Node] = []
        if "copies" in t:
            copies_nodes = r.sequence(t["copies"][1], f"{what} copies") or []
            if count is not None and len(copies_nodes) != count:
                r.error(t["count"][1], f"{what}: count is {count} but {len(copies_nodes)} copies are listed; make them agree")
        if name is None or count is None:
            continue
        if count < 1:
            r.error(t["count"][1], f"{what}: count must be at least 1")
            continue
        types.append(CardType(type_id, name, count, shared, note, r.where(item)))
        for copy in range(1, count + 1):
            own: dict[str, Any] = {}
            explicit_id = None
            copy_node = copies_nodes[copy - 1] if copy - 1 < len(copies_nodes) else item
            if copy - 1 < len(copies_nodes):
                c = r.mapping(copy_node, f"{what} copy {copy}", set(), None)
                if c is None:
                    continue
                if "id" in c:
                    explicit_id = r.scalar(c["id"][1], f"{what} copy {copy} id", "str")
                own = _read_fields(r, {k: v for k, v in c.items() if k != "id"}, specs, f"{what} copy {copy}")
            fields = {**shared, **own}
            for spec in specs.values():
                if spec.required and spec.name not in fields:
                    r.error(copy_node, f"{what} copy {copy}: required field '{spec.name}' is missing; add it to the type or the copy")
            number = len(cards) + 1
            if explicit_id:
                card_id = explicit_id
            elif id_format:
                try:
                    card_id = id_format.format(n=number)
                except (KeyError, IndexError, ValueError):
                    r.error(item, f"id_format '{id_format}' is invalid; use a format with {{n}}, e.g. 'LL{{n:02d}}'")
                    return declared_total, (), ()
            else:
                card_id = f"{type_id}-{copy}"
            if card_id in seen_cards:
                r.error(copy_node, f"card id '{card_id}' is used twice; card ids must be unique")
            seen_cards[card_id] = copy_node
            cards.append(Card(card_id, type_id, copy, name, fields, r.where(copy_node)))
    if declared_total is not None and cards and declared_total != len(cards):
        r.error(top["total"][1], f"total is {declared_total} but the types add up to {len(cards)} cards; fix a count or the total")
    return declared_total, tuple(types), tuple(cards)
