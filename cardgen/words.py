"""Every word cardgen prints that is not a game's own text, and the labels of enum values.

Two questions, one module:

- ``word(key, lang, game=None, **fields)``: an interface word ("rulebook.contents",
  "report.summary"), from `templates/common/words.yaml`, or from the game folder's own
  `templates/words.yaml` when it overrides that word. `{name}` placeholders are filled from
  `fields` (a plain substitution, never `str.format`, so a game's override cannot reach
  attributes).
- ``label(kind, value, lang, game=None)``: how a value is printed instead of its internal id.
  `kind` is a label group: an enum field's label kind (its name unless `card_fields.<f>.label_kind`
  names another, e.g. alice's `event_colour` uses `colour`), `ending` (what
  `GameResult.ending` can be) or `policy` (bot names). Looked up in the game's game.yaml
  `labels:` section, then (endings) the game's `parameters.endings` titles, then the bundled
  labels of words.yaml. A value with no label is returned as it is: `cardgen check` reports
  every enum value without a label as an error (``missing_labels``), so a checked game never
  prints an id.

Helpers for the common cases: ``field_label(game, name, lang)`` (the label of a card field),
``field_value(game, name, value, lang)`` (a card field's value as printed) and
``policy_label`` (a policy spec such as ``ismcts:200`` with its settings).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import yaml

from .agent_settings import counted
from .errors import Problem
from .io.paths import bundled_templates, game_template
from .io.reader import SchemaReader, display_path
from .langs import LANGUAGES, MAX_LANGUAGES, SUPPORTED, code_problem
from .memo import Memo
from .model import Game, Location, Text

WORDS_FILE = "common/words.yaml"
# Which command prints each group of words, so `check` names the words a declared language lacks at
# the place that asks for them: `cardgen build` prints these (cards, sheets, rulebook, standard sheet,
# tuck box, playtest kit, preview, TTS), asked for by game.yaml's `languages:`; a game with an engine
# also has `cardgen report` (the report group and the policies' labels, asked for by its report.yaml)
# and `cardgen sweep` (the sweep group, asked for by game.yaml's `engine:`). Every group ships in
# each of `SUPPORTED`.
BUILD_GROUPS = ("common", "preview", "rulebook", "art", "sheet", "checklist", "calibration", "tuckbox", "standard", "playtest", "tts")
REPORT_GROUPS = ("report",)
SWEEP_GROUPS = ("sweep",)
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


class Words:
    """One words file read: `words` by dotted key and `labels` by kind and value."""

    def __init__(self, words: Mapping[str, Text], labels: Mapping[str, Mapping[str, Text]]):
        self.words = dict(words)
        self.labels = {kind: dict(values) for kind, values in labels.items()}


def _read_words_file(path: Path, *, allow_labels: bool, known: Words | None) -> Words:
    """Read a words file; DataError listing every problem at file:line:column.

    `known` (the bundled words) restricts an override: only existing keys, and only the
    placeholders the bundled word has.
    """
    r = SchemaReader(LANGUAGES, optional=tuple(lang for lang in SUPPORTED if lang not in LANGUAGES))
    root = r.read(path)
    r.raise_if_any()
    sections = {"words", "labels"} if allow_labels else {"words"}
    top = r.mapping(root, "words file", set(), sections) or {}
    words: dict[str, Text] = {}
    if "words" in top:
        for group, (_, group_node) in (r.mapping(top["words"][1], "words", set(), None) or {}).items():
            for name, (key_node, value_node) in (r.mapping(group_node, f"words.{group}", set(), None) or {}).items():
                key = f"{group}.{name}"
                text = _exact_text(r, value_node, f"words.{key}", required=() if known is not None else LANGUAGES)
                if text is None:
                    continue
                if known is not None:
                    if key not in known.words:
                        r.error(key_node, f"words.{key} is not a word cardgen prints; check the spelling "
                                          f"(the bundled words are in templates/{WORDS_FILE})")
                        continue
                    allowed = set(_PLACEHOLDER.findall(known.words[key].get(LANGUAGES[0])))
                    for lang in text.languages:
                        problem = _placeholder_problem(text.get(lang), allowed)
                        if problem:
                            r.error(value_node, f"words.{key}.{lang}: {problem}")
                words[key] = text
    labels = read_labels(r, top["labels"][1]) if "labels" in top else {}
    r.raise_if_any()
    return Words(words, labels)


def _exact_text(r: SchemaReader, node: yaml.Node, what: str, required: tuple[str, ...]) -> Text | None:
    """A word in each language it is given in, kept exactly as written: a word may need its own
    leading space (" (seats rotate every game)") or be a separator (", "), which
    `SchemaReader.text` strips. The bundled words need `required` (ja and en); a game's own
    words.yaml may give any language (a language cardgen has no words for, or one word it
    words differently), at most `MAX_LANGUAGES` of them."""
    entries = r.mapping(node, what, set(required), None)
    if entries is None or not set(required) <= set(entries):
        return None
    values: dict[str, str | None] = {}
    for lang, (key_node, value_node) in list(entries.items())[:MAX_LANGUAGES + 1]:
        problem = code_problem(lang)
        if problem or len(values) == MAX_LANGUAGES:
            r.error(key_node, f"{what}: {problem or f'more than {MAX_LANGUAGES} languages'}")
            return None
        values[lang] = r.scalar(value_node, f"{what}.{lang}", "str")
    return None if None in values.values() or not values else Text(**values)  # type: ignore[arg-type]


def _placeholder_problem(template: str, allowed: set[str]) -> str | None:
    """Why an override's `template` is unsafe or unusable: a placeholder the word does not
    have, or a brace that is not `{name}` (`{n.__class__}`, `{0}`), which `str.format` would
    evaluate; None when it is fine."""
    shown = ", ".join("{" + a + "}" for a in sorted(allowed)) or "no placeholder"
    extra = sorted(set(_PLACEHOLDER.findall(template)) - allowed)
    if extra:
        return f"'{{{extra[0]}}}' is not a field of this word; it may use {shown}"
    if "{" in _PLACEHOLDER.sub("", template) or "}" in _PLACEHOLDER.sub("", template):
        return f"braces may only hold a field name ({shown}), not expressions; write the word without other braces"
    return None


def read_labels(r: SchemaReader, node: yaml.Node, what: str = "labels") -> dict[str, dict[str, Text]]:
    """A `labels:` section (kind -> value -> {ja, en}); problems recorded in `r`."""
    out: dict[str, dict[str, Text]] = {}
    for kind, (_, kind_node) in (r.mapping(node, what, set(), None) or {}).items():
        values: dict[str, Text] = {}
        for value, (_, text_node) in (r.mapping(kind_node, f"{what}.{kind}", set(), None) or {}).items():
            text = r.text(text_node, f"{what}.{kind}.{value}")
            if text is not None:
                values[value] = text
        out[kind] = values
    return out


@lru_cache(maxsize=1)
def bundled() -> Words:
    """The bundled words and labels (templates/common/words.yaml)."""
    return _read_words_file(bundled_templates() / WORDS_FILE, allow_labels=True, known=None)


@lru_cache(maxsize=64)
def _override(path: str, mtime_ns: int) -> Words:
    return _read_words_file(Path(path), allow_labels=False, known=bundled())


# Where each loaded game's words file is (None: it has none). A Game is a snapshot of its folder
# (`cardgen watch` loads a new one on a change), and a build asks for words hundreds of times:
# the lookup resolves paths, so it is done once per game, not per word.
_WORDS_PATH = Memo(256)


def game_words(game: Game | None) -> Words | None:
    """The game folder's own templates/words.yaml, if it has one (bundled games do not)."""
    if game is None:
        return None
    path = _WORDS_PATH(("words.yaml",), lambda: game_template(game, "words.yaml"), (game,))
    if path is None:
        return None
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        return None
    return _override(str(path), mtime)


def fill(template: str, fields: Mapping[str, Any]) -> str:
    """`template` with each `{name}` replaced by `fields[name]`; an unknown name stays as written."""
    return _PLACEHOLDER.sub(lambda m: str(fields[m.group(1)]) if m.group(1) in fields else m.group(0), template)


def word(key: str, lang: str, game: Game | None = None, **fields: Any) -> str:
    """The interface word `key` ("group.name") in `lang`, with `{name}` placeholders filled.

    KeyError for a key no words file has (a programming error: every key the code asks for is
    in the bundled file, which the tests read in full).
    """
    return fill(_lookup(key, lang, game), fields)


def _lookup(key: str, lang: str, game: Game | None) -> str:
    """The word `key` in `lang`: the game's own words.yaml first, then the bundled words (a
    language neither has falls back as `Text.get` does; `missing_words` reports it)."""
    own = game_words(game)
    text = own.words.get(key) if own is not None else None
    if text is not None and text.has(lang):
        return text.get(lang)
    return bundled().words[key].get(lang)


def has_word(key: str, lang: str, game: Game | None = None) -> bool:
    own = game_words(game)
    text = own.words.get(key) if own is not None else None
    return (text is not None and text.has(lang)) or bundled().words[key].has(lang)


def missing_words(game: Game) -> list[Problem]:
    """For each declared language, the interface words that neither cardgen nor the game's own
    words.yaml has, at the place that asks for them: the words a build prints (BUILD_GROUPS) at
    game.yaml's `languages:`; for a game with an engine, the balance report's words and bot labels
    at its report.yaml, the sweep's words at game.yaml's `engine:`."""
    places = [(BUILD_GROUPS, game.where("languages") or game.where("game.yaml"), "languages", "the outputs print")]
    if game.engine is not None:
        engine_at = game.where("engine") or game.where("game.yaml")
        report = game_template(game, "report.yaml")
        report_at = Location(display_path(report), 1, 1) if report is not None else engine_at
        places += [(REPORT_GROUPS, report_at, "report.yaml" if report is not None else "engine", "cardgen report prints"),
                   (SWEEP_GROUPS, engine_at, "engine", "cardgen sweep prints")]
    problems = []
    for lang in game.languages:
        for groups, at, what, printed in places:
            missing = [key for key in bundled().words if key.split(".")[0] in groups and not has_word(key, lang, game)]
            if missing:
                problems.append(Problem(at, f"{what}: cardgen has no {lang} words for {len(missing)} word(s) {printed} "
                                            f"({_listed(missing)}); add them under words: in the game's templates/words.yaml "
                                            f"(the keys and the English words are in cardgen's templates/{WORDS_FILE})"))
            if groups is REPORT_GROUPS:
                labels = [f"policy.{name}" for name in bundled().labels.get("policy", {})
                          if not find_label("policy", name, game).has(lang)]  # type: ignore[union-attr]
                if labels:
                    problems.append(Problem(at, f"{what}: cardgen has no {lang} labels for {len(labels)} bot(s) {printed} "
                                                f"({_listed(labels)}); add labels: {{policy: {{{labels[0].split('.', 1)[1]}: "
                                                f"{{{lang}: ...}}}}}} to game.yaml"))
    return problems


def _listed(keys: list[str], most: int = 12) -> str:
    return ", ".join(keys[:most]) + (f" and {len(keys) - most} more" if len(keys) > most else "")


def group(name: str, lang: str, game: Game | None = None) -> dict[str, str]:
    """Every word of group `name` ("rulebook") in `lang`, unfilled, for code that fills them
    itself. Safe to `str.format`: an override holds only the bundled word's `{name}` fields."""
    own = game_words(game)
    prefix = f"{name}."
    out = {key[len(prefix):]: text.get(lang) for key, text in bundled().words.items() if key.startswith(prefix)}
    if own is not None:
        out.update({key[len(prefix):]: text.get(lang) for key, text in own.words.items() if key.startswith(prefix) and text.has(lang)})
    return out


def text(key: str, game: Game | None = None, **fields: Any) -> Text:
    """The word `key` in every language of the game (without a game: the default pair), as a model Text."""
    languages = game.languages if game is not None else LANGUAGES
    return Text(**{lang: word(key, lang, game, **fields) for lang in languages})


def find_label(kind: str, value: Any, game: Game | None = None) -> Text | None:
    """The label of `value` in label group `kind`, or None when nothing labels it."""
    value = str(value)
    if game is not None:
        own = game.labels.get(kind, {}).get(value)
        if own is not None:
            return own
        if kind == "ending":
            from_endings = _ending_title(game, value)
            if from_endings is not None:
                return from_endings
    return bundled().labels.get(kind, {}).get(value)


def label(kind: str, value: Any, lang: str, game: Game | None = None) -> str:
    """`value` as printed in `lang`: its label, or the value itself when it has none
    (`cardgen check` fails for an enum value without a label)."""
    found = find_label(kind, value, game)
    if found is None and kind == "policy":
        return policy_label(str(value), lang, game)
    return found.get(lang) if found is not None else str(value)


def policy_label(spec: str, lang: str, game: Game | None = None) -> str:
    """A policy spec as printed: its label with the settings in brackets, the iteration count
    and the rollout bot in words ('ismcts:40:greedy' -> 'information-set MCTS (40 iterations,
    greedy rollouts)'); a setting that is not one of these is shown as it is."""
    name, _, settings = spec.partition(":")
    found = find_label("policy", name, game)
    shown = found.get(lang) if found is not None else name
    if not settings:
        return shown
    parts = []
    for index, part in enumerate(settings.split(":")):
        if index == 0 and part.isdigit():
            parts.append(word(f"common.{counted(name)}", lang, game, n=part))
        elif index == 1 and part:
            parts.append(word("common.rollouts", lang, game, policy=label("policy", part, lang, game)))
        else:
            parts.append(part)
    inside = word("common.separator", lang, game).join(parts)
    return f"{shown}（{inside}）" if lang == "ja" else f"{shown} ({inside})"


def _ending_title(game: Game, ending: str) -> Text | None:
    """A named ending of `parameters.endings` (requiem's happy/void/bad): its kind and title."""
    endings = game.parameters.get("endings") if isinstance(game.parameters, Mapping) else None
    for entry in endings if isinstance(endings, list) else ():
        if not isinstance(entry, Mapping) or entry.get("id") != ending:
            continue
        title, kind = entry.get("title"), entry.get("kind")
        if not isinstance(title, Mapping):
            return None
        parts = {}
        for lang in game.languages:
            t = str(title.get(lang, ""))
            k = str(kind.get(lang, "")) if isinstance(kind, Mapping) else ""
            parts[lang] = (f"{k}「{t}」" if lang == "ja" else f"{k}: {t}") if k else t
        return Text(**parts)
    return None


def label_kind(game: Game, field_name: str) -> str:
    """The label group of a card field's values (its own name unless it names another)."""
    spec = game.field_specs.get(field_name)
    return (spec.label_kind or field_name) if spec is not None else field_name


def field_label(game: Game, field_name: str, lang: str) -> str:
    """The printed name of a card field (`card_fields.<f>.label`)."""
    spec = game.field_specs.get(field_name)
    return spec.label.get(lang) if spec is not None and spec.label is not None else field_name


def field_value(game: Game, field_name: str, value: Any, lang: str) -> str:
    """A card field's value as printed: enum values by label, texts in `lang`, booleans as words."""
    spec = game.field_specs.get(field_name)
    if isinstance(value, Text):
        return value.get(lang)
    if isinstance(value, bool):
        return word("common.yes" if value else "common.no", lang, game)
    if spec is not None and spec.kind == "enum":
        return label(label_kind(game, field_name), value, lang, game)
    return str(value)


def parameter_label(game: Game, path: str, lang: str) -> str:
    """A rule parameter or card override as printed (sweep axes, headers, refused points):
    `cards.<type>.count` -> the type's name and 'count', `cards.<type>.<field>` -> the type's
    name and the field's label, a rule parameter -> its label in game.yaml `labels: {parameter:
    {path: ...}}`, else its path in words (underscores and dots as spaces and ›), never the id."""
    parts = path.split(".")
    if len(parts) == 3 and parts[0] == "cards":
        card_type = next((t for t in game.card_types if t.id == parts[1]), None)
        if card_type is not None:
            what = word("common.count", lang, game) if parts[2] == "count" else field_label(game, parts[2], lang)
            return word("common.of_type", lang, game, type=card_type.name.get(lang), what=what.replace("_", " "))
    found = find_label("parameter", path, game)
    if found is not None:
        return found.get(lang)
    return " › ".join(part.replace("_", " ") for part in parts)


def missing_labels(game: Game) -> list[Problem]:
    """Every enum value of the game's declared card fields without a label, at the field's
    line, and every label of a field's kind that names no value of that field (a misspelling)."""
    problems = []
    for name, spec in game.field_specs.items():
        if spec.kind != "enum":
            continue
        kind = spec.label_kind or name
        at = spec.location or game.where("game.yaml")
        missing = [v for v in spec.values if find_label(kind, v, game) is None]
        if missing:
            example = "{" + ", ".join(f"{lang}: ..." for lang in game.languages) + "}"
            problems.append(Problem(at, f"card_fields.{name}: value(s) {', '.join(missing)} have no label; add "
                                        f"labels: {{{kind}: {{{missing[0]}: {example}}}}} to game.yaml so no id is printed"))
        for lang in game.languages:  # a bundled label (colours) in a language cardgen has no words for
            untranslated = [v for v in spec.values if v not in missing and not find_label(kind, v, game).has(lang)]  # type: ignore[union-attr]
            if untranslated:
                problems.append(Problem(at, f"card_fields.{name}: cardgen has no {lang} label for {', '.join(untranslated)}; "
                                            f"add labels: {{{kind}: {{{untranslated[0]}: {{{lang}: ...}}}}}} to game.yaml"))
    kinds: dict[str, set[str]] = {}
    for name, spec in game.field_specs.items():
        if spec.kind == "enum":
            kinds.setdefault(spec.label_kind or name, set()).update(spec.values)
    for kind, values in game.labels.items():
        if kind in kinds:
            unknown = sorted(set(values) - kinds[kind])
            if unknown:
                at = game.where(f"labels.{kind}") or game.where("game.yaml")
                problems.append(Problem(at, f"labels.{kind}: {', '.join(unknown)} is not a value of any field labelled '{kind}' "
                                            f"({', '.join(sorted(kinds[kind]))}); check the spelling"))
    return problems


__all__ = ["word", "has_word", "missing_words", "group", "text", "label", "find_label", "policy_label", "field_label", "field_value",
           "label_kind", "missing_labels", "parameter_label", "read_labels", "fill", "bundled", "game_words", "Words"]
