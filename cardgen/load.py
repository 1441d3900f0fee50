"""Load a game folder (game.yaml + its card list) into the model, with file:line:column errors.

The card list is cards.yaml, or a spreadsheet (cards.csv, .xlsx, .ods; io/spreadsheet.py) that
becomes the same node tree with each value at its cell.

YAML is composed into nodes with the safe loader only, so every value keeps its position and
no tag can construct Python objects. The schema is checked here; nothing downstream sees YAML.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import yaml

from . import langs, sizes
from .errors import DataError
from .io import limits
from .io.paths import folder_file, package_root, portable_name_problem
from .io.reader import SchemaReader, display_path
from .io.spreadsheet import card_list_path, read_cards
from .model import (
    Card,
    CardType,
    Component,
    Decision,
    Deck,
    FieldSpec,
    Game,
    Location,
)

FIELD_KINDS = ("int", "str", "text", "enum", "bool")
# Keys of a card type that are not card fields.
TYPE_KEYS = {"id", "name", "count", "copies", "note"}


def bundled_games_dir() -> Path:
    return package_root() / "card_data"


def bundled_game_ids() -> list[str]:
    base = bundled_games_dir()
    return sorted(p.name for p in base.iterdir() if (p / "game.yaml").is_file())


def resolve_game_path(spec: str) -> Path:
    """Turn a bundled game id or a folder path into the game's folder."""
    path = Path(spec)
    if path.is_dir():
        path = path.resolve()  # 'a/b/..' names folder 'a': the game id is checked against the real name
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
    reader = SchemaReader()
    game_node = reader.read(folder_file(root, "game.yaml"))
    cards_path, cards_node = read_card_list(reader, root, game_node)
    reader.raise_if_any()
    game = _build_game(reader, root, game_node, cards_node, cards_path)
    reader.raise_if_any()
    assert game is not None
    return game


def read_card_list(r: SchemaReader, root: Path, game_node: yaml.Node | None) -> tuple[Path | None, yaml.Node | None]:
    """The game's card list (cards.yaml or one spreadsheet) and its node tree; its problems go to `r`.

    A spreadsheet's cells are typed by game.yaml's card_fields, so it is read with them; the
    node is None, with no problem of its own, when game.yaml is too broken to say (the loader
    reports game.yaml's problems).
    """
    try:
        path = card_list_path(root)
    except DataError as exc:
        r.problems.extend(exc.problems)
        return None, None
    if path.suffix == ".yaml":
        return path, r.read(path)
    if not isinstance(game_node, yaml.MappingNode):
        return path, None
    scratch = SchemaReader()  # card_fields' problems are reported once, by _build_game
    entries = scratch.mapping(game_node, "game.yaml", set(), None) or {}
    languages = scratch.languages = game_languages(scratch, entries)  # the field labels are texts in these
    specs = _field_specs(scratch, entries["card_fields"][1]) if "card_fields" in entries else {}
    id_format = scratch.scalar(entries["id_format"][1], "id_format", "str") if "id_format" in entries else None
    if scratch.problems:
        return path, None
    try:
        return path, read_cards(path, specs, id_format if id_format and _ID_FORMAT.match(id_format) else None, languages)
    except DataError as exc:
        r.problems.extend(exc.problems)
        return path, None


GAME_KEYS = {
    "id", "title", "players", "card_size", "id_format", "card_fields", "components", "parameters",
    "decisions", "claims", "engine", "source", "summary", "back", "labels", "languages",
    "decks",
}
GAME_REQUIRED = {"id", "title", "players", "card_fields"}
_ID_FORMAT = re.compile(r"^[^{}]*\{n(?::0?[1-9]d?)?\}[^{}]*$")


def _build_game(r: SchemaReader, root: Path, game_node: yaml.Node | None, cards_node: yaml.Node | None,
                cards_file: Path | None = None) -> Game | None:
    if game_node is None:
        return None
    g = r.mapping(game_node, "game.yaml", GAME_REQUIRED, GAME_KEYS)
    if g is None:
        return None
    r.languages = game_languages(r, g)  # before any text: each needs exactly these
    game_id = r.scalar(g["id"][1], "id", "str") if "id" in g else None
    declared_id = None
    if game_id is not None:
        bad = portable_name_problem(game_id, "game id")
        if bad:
            r.error(g["id"][1], f"{bad}; it names the output folder")
            game_id = None
        elif game_id != root.name and game_id in bundled_game_ids():
            # a bundled game's templates are found by its id, so a renamed copy would silently lose them
            r.error(g["id"][1], f"id '{game_id}' differs from the folder name '{root.name}'; make them the same (a copy of the "
                    f"bundled game '{game_id}' keeps that folder name and uses its bundled templates; "
                    f"`cardgen new {root.name} --from {game_id}` makes a renamed copy with its own)")
        elif game_id != root.name and root.name in bundled_game_ids():
            # named by this folder, the copy would take the bundled game's templates for what it lacks
            r.error(g["id"][1], f"id '{game_id}' differs from the folder name '{root.name}', which is a bundled game's id; "
                    f"rename the folder (e.g. '{game_id}-try')")
        elif game_id != root.name and portable_name_problem(root.name, "folder name") is None:
            # a copy to try a variant (`cp -r mygame mg-try`): the folder names it, so both build side by side
            declared_id, game_id = game_id, root.name
        elif game_id != root.name:
            r.error(g["id"][1], f"id '{game_id}' differs from the folder name '{root.name}', and "
                    f"{portable_name_problem(root.name, 'the folder name')}; rename the folder to '{game_id}'")
    title = r.text(g["title"][1], "title") if "title" in g else None
    min_p = max_p = None
    if "players" in g:
        p = r.mapping(g["players"][1], "players", {"min", "max"}, {"min", "max"})
        if p:
            min_p = r.scalar(p["min"][1], "players.min", "int", 1, limits.MAX_PLAYERS) if "min" in p else None
            max_p = r.scalar(p["max"][1], "players.max", "int", 1, limits.MAX_PLAYERS) if "max" in p else None
            if min_p is not None and max_p is not None and not (1 <= min_p <= max_p):
                r.error(g["players"][1], f"players: min {min_p} and max {max_p} must satisfy 1 <= min <= max")
    card_size = "poker"
    if "card_size" in g:
        given = r.scalar(g["card_size"][1], "card_size", "str")
        try:
            card_size = sizes.normalise(given) if given is not None else card_size
        except sizes.CardSizeError as exc:
            r.error(g["card_size"][1], str(exc))
    specs = _field_specs(r, g["card_fields"][1]) if "card_fields" in g else {}
    id_format = r.scalar(g["id_format"][1], "id_format", "str") if "id_format" in g else None
    if id_format is not None and not _ID_FORMAT.match(id_format):
        r.error(g["id_format"][1], f"id_format '{id_format}' is not usable; write the number as {{n}} or {{n:02d}} (width 1-9), e.g. 'LL{{n:02d}}'")
        id_format = None
    components = _components(r, g["components"][1]) if "components" in g else ()
    decisions = _decisions(r, g["decisions"][1]) if "decisions" in g else ()
    engine = r.scalar(g["engine"][1], "engine", "str") if "engine" in g else None
    # "cards.yaml" names the card list, whichever file holds it
    locations: dict[str, Location] = {"game.yaml": Location(display_path(root / "game.yaml"), 1, 1),
                                      "cards.yaml": Location(display_path(cards_file or root / "cards.yaml"), 1, 1)}
    if "languages" in g:
        locations["languages"] = r.where(g["languages"][0])
    if "engine" in g:
        locations["engine"] = r.where(g["engine"][0])
    parameters = _parameters(r, g, engine, locations)
    claims: tuple = ()
    if "claims" in g:
        items = r.sequence(g["claims"][1], "claims")
        claims = tuple(r.plain(item) for item in items or [])
    source = r.scalar(g["source"][1], "source", "str") if "source" in g else None
    summary = r.text(g["summary"][1], "summary") if "summary" in g else None
    back = r.plain(g["back"][1]) if "back" in g else {}
    labels = _labels(r, g["labels"][1], locations) if "labels" in g else {}

    if cards_node is None:
        return None
    # a spreadsheet has no total to check: its reader counts the rows
    has_total = cards_file is None or cards_file.suffix == ".yaml"
    declared_total, types, cards = _cards(r, cards_node, specs, id_format, has_total)
    decks = _decks(r, *g["decks"], types, card_size) if "decks" in g else ()
    if None in (game_id, title, min_p, max_p) or declared_total is None:
        return None
    return Game(
        id=game_id, title=title, min_players=min_p, max_players=max_p, card_size=card_size,
        root=root, field_specs=specs, card_types=types, cards=cards, declared_total=declared_total,
        components=components, parameters=parameters, decisions=decisions, claims=claims,
        engine=engine, source=source, summary=summary, back=back or {}, locations=locations,
        labels=labels, declared_id=declared_id, languages=r.languages, decks=decks,
    )


# --- languages: a small block of its own (game.yaml `languages:`) ---------------------------------

def game_languages(r: SchemaReader, g: dict) -> tuple[str, ...]:
    """game.yaml's `languages:` (problems recorded in `r`); a folder without it has langs.LANGUAGES."""
    if "languages" not in g:
        return langs.LANGUAGES
    items = r.sequence(g["languages"][1], "languages", langs.MAX_LANGUAGES)
    if items is None:
        return langs.LANGUAGES
    found: list[str] = []
    for item in items:
        code = r.scalar(item, "languages", "str")
        if code is None:
            continue
        problem = langs.code_problem(code)
        if problem:
            r.error(item, f"languages: {problem}")
        elif code in found:
            r.error(item, f"languages: '{code}' is listed twice; keep one")
        else:
            found.append(code)
    if not items:
        r.error(g["languages"][1], "languages is empty; list the languages the game is written in, e.g. [en]")
    return tuple(found) or langs.LANGUAGES


# --- decks: game.yaml `decks:` (kept apart from the other keys: one block to read) ---------------

DECK_KEYS = {"id", "name", "size", "types"}


def _decks(r: SchemaReader, key: yaml.Node, node: yaml.Node, types: tuple[CardType, ...], default_size: str) -> tuple[Deck, ...]:
    """The declared decks; every card type in exactly one of them, each problem at its line.

    A deck without `size` takes the game's card_size.
    """
    known = {t.id for t in types}
    decks: list[Deck] = []
    holder: dict[str, str] = {}  # card type -> the deck holding it
    ids: set[str] = set()
    for item in r.sequence(node, "decks", limits.MAX_CARD_TYPES) or []:  # a deck holds at least one type
        d = r.mapping(item, "deck", {"id", "name", "types"}, DECK_KEYS)
        if d is None or not {"id", "name", "types"} <= d.keys():
            continue
        deck_id = r.scalar(d["id"][1], "deck id", "str")
        if deck_id is None:
            continue
        bad = portable_name_problem(deck_id, "deck id")
        if bad:
            r.error(d["id"][1], f"{bad}; it names the deck's output files")
            continue
        if deck_id.lower() in ids:
            r.error(d["id"][1], f"deck id '{deck_id}' is used twice; give each deck its own id")
            continue
        ids.add(deck_id.lower())
        name = r.text(d["name"][1], f"deck '{deck_id}' name")
        size = default_size
        if "size" in d:
            given = r.scalar(d["size"][1], f"deck '{deck_id}' size", "str")
            try:
                size = sizes.normalise(given) if given is not None else size
            except sizes.CardSizeError as exc:
                r.error(d["size"][1], f"deck '{deck_id}': {exc}")
        held: list[str] = []
        for type_node in r.sequence(d["types"][1], f"deck '{deck_id}' types") or []:
            type_id = r.scalar(type_node, f"deck '{deck_id}' type", "str")
            if type_id is None:
                continue
            if type_id not in known:
                r.error(type_node, f"deck '{deck_id}': '{type_id}' is not a card type; use one of: {', '.join(t.id for t in types)}")
            elif type_id in holder:
                r.error(type_node, f"card type '{type_id}' is already in deck '{holder[type_id]}'; a card type belongs to exactly one deck, "
                                   f"remove it from one of them")
            else:
                holder[type_id] = deck_id
                held.append(type_id)
        if not held and "types" in d:
            r.error(d["types"][1], f"deck '{deck_id}' holds no card type; list its types (e.g. types: [{types[0].id if types else 'a-type'}]) or remove the deck")
        if name is not None:
            decks.append(Deck(deck_id, name, size, tuple(held), r.where(item)))
    left = [t.id for t in types if t.id not in holder]
    if left and types:
        r.error(key, f"card type(s) {', '.join(left)} are in no deck; add each to the types of one deck under 'decks:'")
    return tuple(decks)


def _labels(r: SchemaReader, node: yaml.Node, locations: dict[str, Location]) -> dict:
    """game.yaml `labels:` (kind -> value -> {ja, en}); `cardgen check` matches them to the enums."""
    from .words import read_labels

    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            locations[f"labels.{key.value}"] = r.where(key)
    return read_labels(r, node)


def _parameters(r: SchemaReader, g: dict, engine: str | None, locations: dict[str, Location]) -> dict[str, Any]:
    """Rule parameters, checked against the declaration of the engine that reads them.

    An engine module declares `PARAMETERS` (a `cardgen.io.schema.Map`); a missing, mistyped or
    out-of-range parameter is refused here at its line, so the engine never sees one.
    """
    from .io.schema import validate
    from .registry import EngineError, engine_by_name

    node = g["parameters"][1] if "parameters" in g else None
    declared = None
    if engine is not None:
        try:  # an engine not installed, or one whose code fails to import, is this line's error
            declared = engine_by_name(engine).PARAMETERS
        except EngineError as exc:
            r.error(g["engine"][1], str(exc))
            return {}
    if node is None:
        if declared is not None:
            r.error(g["engine"][1], f"engine '{engine}' needs rule parameters; add 'parameters:' (see its documentation)")
        return {}
    if not isinstance(node, yaml.MappingNode):
        r.error(node, "parameters must be a mapping of rule numbers (name: value)")
        return {}
    for key, value in node.value:
        locations[f"parameters.{key.value}"] = r.where(value)
    if declared is None:
        values = r.plain(node)
        return values if isinstance(values, dict) else {}
    values = validate(r, node, declared, "parameters")
    return values if isinstance(values, dict) else {}


def _field_specs(r: SchemaReader, node: yaml.Node) -> dict[str, FieldSpec]:
    entries = r.mapping(node, "card_fields", set(), None)
    specs: dict[str, FieldSpec] = {}
    for name, (key, value) in (entries or {}).items():
        if name in TYPE_KEYS:
            r.error(key, f"card_fields: '{name}' is a reserved key of card types; choose another field name")
            continue
        spec = r.mapping(value, f"card_fields.{name}", {"type"}, {"type", "values", "min", "max", "required", "required_when", "label", "label_kind"})
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
        required_when: dict[str, tuple[str, ...]] = {}
        if "required_when" in spec:
            for other, (okey, onode) in (r.mapping(spec["required_when"][1], f"card_fields.{name}.required_when", set(), None) or {}).items():
                wanted = r.plain(onode)
                wanted = wanted if isinstance(wanted, list) else [wanted]
                required_when[other] = tuple(str(w) for w in wanted)
        label_kind = r.scalar(spec["label_kind"][1], f"card_fields.{name}.label_kind", "str") if "label_kind" in spec else None
        at = r.where(spec["values"][1]) if "values" in spec else r.where(key)
        specs[name] = FieldSpec(name, kind, values, minimum, maximum, required, label, required_when, label_kind, at)
    return specs


def _components(r: SchemaReader, node: yaml.Node) -> tuple[Component, ...]:
    out = []
    for item in r.sequence(node, "components") or []:
        c = r.mapping(item, "component", {"id", "name"}, {"id", "name", "count", "note"})
        if not c or "id" not in c or "name" not in c:
            continue
        cid = r.scalar(c["id"][1], "component.id", "str")
        name = r.text(c["name"][1], "component.name")
        count = r.scalar(c["count"][1], "component.count", "int", 0, limits.MAX_INT) if "count" in c else None
        note = r.text(c["note"][1], "component.note") if "note" in c else None
        if cid and name:
            out.append(Component(cid, name, count, note))
    return tuple(out)


def _decisions(r: SchemaReader, node: yaml.Node) -> tuple[Decision, ...]:
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


def _field_value(r: SchemaReader, spec: FieldSpec, node: yaml.Node, what: str) -> Any:
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


def _read_fields(r: SchemaReader, entries: dict, specs: dict[str, FieldSpec], what: str) -> dict[str, Any]:
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


def _cards(r: SchemaReader, node: yaml.Node, specs: dict[str, FieldSpec], id_format: str | None, has_total: bool = True):
    top = r.mapping(node, "cards.yaml", {"total", "types"}, {"total", "types"})
    if top is None or "types" not in top:
        return None, (), ()
    declared_total = r.scalar(top["total"][1], "total", "int", 1, limits.MAX_CARDS) if "total" in top else None
    types: list[CardType] = []
    cards: list[Card] = []
    seen_types: dict[str, yaml.Node] = {}
    seen_cards: dict[str, yaml.Node] = {}
    for item in r.sequence(top["types"][1], "types", limits.MAX_CARD_TYPES) or []:
        t = r.mapping(item, "card type", {"id", "name", "count"}, None)
        if t is None or not {"id", "name", "count"} <= t.keys():
            continue
        type_id = r.scalar(t["id"][1], "card type id", "str")
        if type_id is None:
            continue
        bad = portable_name_problem(type_id, "card type id")
        if bad:
            r.error(t["id"][1], bad)
            continue
        if type_id in seen_types:
            r.error(t["id"][1], f"card type id '{type_id}' is used twice; each type needs its own id")
            continue
        seen_types[type_id] = item
        what = f"card type '{type_id}'"
        name = r.text(t["name"][1], f"{what} name")
        count = r.scalar(t["count"][1], f"{what} count", "int", 1, limits.MAX_CARDS)
        note = r.text(t["note"][1], f"{what} note") if "note" in t else None
        shared = _read_fields(r, t, specs, what)
        copies_nodes: list[yaml.Node] = []
        if "copies" in t:
            copies_nodes = r.sequence(t["copies"][1], f"{what} copies") or []
            if count is not None and len(copies_nodes) != count:
                r.error(t["count"][1], f"{what}: count is {count} but {len(copies_nodes)} copies are listed; make them agree")
        if name is None or count is None:
            continue
        if len(cards) + count > limits.MAX_CARDS:
            r.error(t["count"][1], f"{what}: the game would have more than {limits.MAX_CARDS:,} cards; that is the limit")
            break
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
                if spec.name in fields:
                    continue
                if spec.required:
                    r.error(copy_node, f"{what} copy {copy}: required field '{spec.name}' is missing; add it to the type or the copy")
                elif spec.required_when and all(str(fields.get(k)) in v for k, v in spec.required_when.items()):
                    cond = ", ".join(f"{k} is {'/'.join(v)}" for k, v in spec.required_when.items())
                    r.error(copy_node, f"{what} copy {copy}: field '{spec.name}' is required when {cond}; add it to the type or the copy")
            number = len(cards) + 1
            if explicit_id:
                card_id = explicit_id
            elif id_format:
                card_id = id_format.format(n=number)
            else:
                card_id = f"{type_id}-{copy}"
            bad = portable_name_problem(card_id, "card id")
            if bad:
                r.error(copy_node, f"{bad}; card ids name the PNG files")
                continue
            # case-insensitive: 'P1' and 'p1' would be one PNG file on macOS and Windows
            if card_id.lower() in seen_cards:
                r.error(copy_node, f"card id '{card_id}' is used twice (ids differing only in case count as the same file name); card ids must be unique")
            seen_cards[card_id.lower()] = copy_node
            cards.append(Card(card_id, type_id, copy, name, fields, r.where(copy_node)))
    if has_total and declared_total is not None and cards and declared_total != len(cards):
        r.error(top["total"][1], f"total is {declared_total} but the types add up to {len(cards)} cards; fix a count or the total")
    return declared_total, tuple(types), tuple(cards)
