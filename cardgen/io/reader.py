"""The one schema reader: every YAML or text file of a game folder is read through here.

Text is read with a size limit, decoded as UTF-8 (a bad byte is reported at its line and
column), and refused if it holds control characters. YAML is composed into nodes from
libyaml's event stream by an iterative composer that counts every value, alias expansions
included, and the nesting depth *while* composing, so an alias bomb or a deeply nested file
is refused before anything walks it. No tag can construct a Python object. Every problem is a
`Problem` at `file:line:column` that says what is wrong and what to do.
"""

from __future__ import annotations

import io
import math
import os
import re
from pathlib import Path
from typing import Any

import yaml
from yaml.constructor import SafeConstructor

from ..errors import DataError, Problem
from ..langs import LANGUAGES
from ..model import Location, Text
from . import limits

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# C0 controls but tab, LF and CR; DEL; C1 controls but NEL; surrogates; the two non-characters
# YAML forbids. Markdown gets the same rule: none of these belongs in a rulebook.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")


def control_character(text: str) -> re.Match[str] | None:
    """The first character of `text` that no file or rendered text of a game may hold, or None."""
    return _CONTROL.search(text)


def display_path(path: Path | str) -> str:
    """The path as a user should see it in a message: relative to the current folder if it can be."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return str(path)


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1) + 1
    return line, column


def read_text(path: Path, shown: str | None = None, max_bytes: int = limits.MAX_FILE_BYTES) -> str:
    """The text of a file of a game folder, or DataError at the offending position.

    Refuses a file that is missing, not a regular file, larger than `max_bytes`, not UTF-8,
    or holding control characters. A leading byte-order mark is dropped; CRLF becomes LF.
    """
    shown = shown or display_path(path)
    at = Location(shown, 1, 1)
    try:
        if not path.is_file():
            raise DataError([Problem(at, f"file is missing or not a regular file; create {path.name}")])
        size = path.stat().st_size
        if size > max_bytes:
            raise DataError([Problem(at, f"file is {size:,} bytes, more than the limit of {max_bytes:,}; split or shorten it")])
        with path.open("rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as exc:
        raise DataError([Problem(at, f"cannot read the file ({exc.strerror or exc}); check that it exists and is readable")]) from None
    if len(raw) > max_bytes:
        raise DataError([Problem(at, f"file is more than the limit of {max_bytes:,} bytes; split or shorten it")])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = raw[: exc.start].decode("utf-8", errors="replace")
        line, column = _position(good, len(good))
        raise DataError([Problem(Location(shown, line, column), f"not UTF-8 text (byte 0x{raw[exc.start]:02x}); save the file as UTF-8")]) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    bad = _CONTROL.search(text)
    if bad:
        line, column = _position(text, bad.start())
        raise DataError([Problem(Location(shown, line, column), f"control character U+{ord(bad.group()):04X} is not allowed in a text file; delete it")])
    return text


class _ComposeError(Exception):
    def __init__(self, mark: Any, message: str):
        super().__init__(message)
        self.mark = mark
        self.message = message


def compose(text: str, shown: str) -> yaml.Node | None:
    """Compose one YAML document into nodes whose marks name `shown`; DataError on any problem.

    Returns None for an empty document.
    """
    stream = io.StringIO(text)
    stream.name = shown  # the loader's marks then name the file as a message shows it
    loader = _Loader(stream)
    try:
        return _Composer(loader).document()
    except _ComposeError as exc:
        where = Location(shown, exc.mark.line + 1, exc.mark.column + 1) if exc.mark is not None else Location(shown, 1, 1)
        raise DataError([Problem(where, exc.message)]) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Location(shown, mark.line + 1, mark.column + 1) if mark else Location(shown, 1, 1)
        raise DataError([Problem(where, f"YAML syntax error: {exc.problem or exc.context}; fix the syntax at this position")]) from None
    except yaml.YAMLError as exc:
        raise DataError([Problem(Location(shown, 1, 1), f"YAML error: {exc}; fix the file")]) from None
    finally:
        loader.dispose()


class _Composer:
    """PyYAML's composer, iterative, with a budget of expanded values and a depth limit."""

    def __init__(self, loader: Any):
        self.loader = loader
        self.anchors: dict[str, yaml.Node] = {}
        self.sizes: dict[int, int] = {}  # expanded size of each finished collection node
        self.expanded = 0

    def _count(self, n: int, mark: Any) -> None:
        self.expanded += n
        if self.expanded > limits.MAX_YAML_NODES:
            raise _ComposeError(mark, f"the file expands to more than {limits.MAX_YAML_NODES:,} values (through aliases '*name' or sheer size); "
                                      f"write the values out or split the file")

    def document(self) -> yaml.Node | None:
        get = self.loader.get_event
        get()  # StreamStart
        if self.loader.check_event(yaml.StreamEndEvent):
            return None
        get()  # DocumentStart
        root = self._node()
        get()  # DocumentEnd
        if not self.loader.check_event(yaml.StreamEndEvent):
            event = get()
            raise _ComposeError(event.start_mark, "the file holds more than one YAML document ('---'); keep one")
        return root

    def _resolve(self, kind: type, value: Any, event: Any) -> str:
        tag = event.tag
        if tag is None or tag == "!":
            return self.loader.resolve(kind, value, event.implicit)
        return tag

    def _node(self) -> yaml.Node:
        # The marks are the loader's own: it reads a stream named `shown` (see `compose`).
        # Dispatch on the exact event type, as libyaml emits no subclasses; this loop runs once
        # per value of every file a game folder holds.
        stack: list[list[Any]] = []  # entries: [node, size, pending key of a mapping]
        get = self.loader.get_event
        anchors = self.anchors
        sizes = self.sizes
        scalar_event, alias_event = yaml.ScalarEvent, yaml.AliasEvent
        sequence_start, mapping_start = yaml.SequenceStartEvent, yaml.MappingStartEvent
        sequence_node, mapping_node, scalar_node = yaml.SequenceNode, yaml.MappingNode, yaml.ScalarNode
        max_depth = limits.MAX_YAML_DEPTH
        while True:
            event = get()
            kind = type(event)
            if kind is scalar_event:
                self._count(1, event.start_mark)
                node: yaml.Node = scalar_node(self._resolve(scalar_node, event.value, event), event.value, event.start_mark,
                                              event.end_mark, style=event.style)
                size = 1
                if event.anchor is not None:
                    anchors[event.anchor] = node
            elif kind is mapping_start or kind is sequence_start:
                self._count(1, event.start_mark)
                if len(stack) >= max_depth:
                    raise _ComposeError(event.start_mark, f"values are nested more than {max_depth} levels deep; flatten the data")
                if kind is sequence_start:
                    coll: yaml.Node = sequence_node(self._resolve(sequence_node, None, event), [], event.start_mark, None,
                                                    flow_style=event.flow_style)
                else:
                    coll = mapping_node(self._resolve(mapping_node, None, event), [], event.start_mark, None,
                                        flow_style=event.flow_style)
                if event.anchor is not None:
                    anchors[event.anchor] = coll
                stack.append([coll, 1, None])
                continue
            elif kind is alias_event:
                target = anchors.get(event.anchor)
                if target is None:
                    raise _ComposeError(event.start_mark, f"alias '*{event.anchor}' names no anchor '&{event.anchor}' defined before it; define it first")
                if any(entry[0] is target for entry in stack):
                    raise _ComposeError(event.start_mark, f"alias '*{event.anchor}' refers to a value that contains it; a value cannot contain itself")
                size = sizes.get(id(target), 1)
                self._count(size, event.start_mark)
                node = target
            elif kind is yaml.SequenceEndEvent or kind is yaml.MappingEndEvent:
                node, size, _ = stack.pop()
                node.end_mark = event.end_mark
                sizes[id(node)] = size
            else:  # pragma: no cover - libyaml emits nothing else inside a document
                raise _ComposeError(event.start_mark, "unexpected YAML structure; fix the syntax here")
            if not stack:
                return node
            parent = stack[-1]
            parent[1] += size
            if type(parent[0]) is sequence_node:
                parent[0].value.append(node)
            elif parent[2] is None:
                parent[2] = node
            else:
                parent[0].value.append((parent[2], node))
                parent[2] = None


def read_yaml(path: Path, shown: str | None = None) -> yaml.Node | None:
    """Read and compose a YAML file of a game folder; DataError at the position of any problem."""
    shown = shown or display_path(path)
    return compose(read_text(path, shown), shown)


_CONSTRUCTOR = SafeConstructor()


def construct_scalar(node: yaml.ScalarNode) -> Any:
    """The plain value of a scalar node; yaml.YAMLError for a tag that is not a plain type."""
    try:
        return _CONSTRUCTOR.construct_object(node)
    except (ValueError, OverflowError) as exc:  # e.g. an integer of more than 4,300 digits
        raise yaml.constructor.ConstructorError(None, None, f"not a usable value ({exc})", node.start_mark) from None
    finally:
        _CONSTRUCTOR.constructed_objects.clear()
        _CONSTRUCTOR.recursive_objects.clear()


def construct(node: yaml.Node) -> Any:
    """Plain Python values of a node (composed by `compose`, so finite and acyclic)."""
    if isinstance(node, yaml.MappingNode):
        out = {}
        for k, v in node.value:
            key = construct(k)
            if isinstance(key, (dict, list)):
                raise yaml.constructor.ConstructorError(None, None, "a key must be a plain value, not a mapping or list", k.start_mark)
            out[key] = construct(v)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [construct(item) for item in node.value]
    return construct_scalar(node)


def kind_of(node: yaml.Node) -> str:
    """How a node reads in a message: 'a mapping', 'a list', 'the value 'x''."""
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    value = node.value if len(node.value) <= 40 else node.value[:39] + "…"
    return f"the value {value!r}" if node.value != "" else "an empty value"


_ARTICLES = {"int": "a whole number", "str": "a non-empty string", "bool": "true or false", "number": "a number"}


def where(node: yaml.Node) -> Location:
    mark = node.start_mark
    # a node made from a spreadsheet cell carries its cell (io/spreadsheet.py), shown as `cards.xlsx:Cards!C7`
    return getattr(mark, "location", None) or Location(mark.name, mark.line + 1, mark.column + 1)


class SchemaReader:
    """Reads YAML files into nodes and collects problems with their positions.

    Every accessor returns None after recording a problem, so a caller reads on and the user
    sees every problem of a file at once.
    """

    def __init__(self, languages: tuple[str, ...] = LANGUAGES, optional: tuple[str, ...] = ()) -> None:
        self.problems: list[Problem] = []
        # the languages a text must be written in: the game's (game.yaml `languages:`); and those
        # it may be written in besides (the bundled words: ja and en, and fr and de where given)
        self.languages = tuple(languages)
        self.optional = tuple(optional)

    def read(self, path: Path, shown: str | None = None, *, empty_ok: bool = False) -> yaml.Node | None:
        shown = shown or display_path(path)
        try:
            node = read_yaml(path, shown)
        except DataError as exc:
            self.problems.extend(exc.problems)
            return None
        if node is None and not empty_ok:
            self.problems.append(Problem(Location(shown, 1, 1), "file is empty; it must hold a mapping (key: value)"))
        return node

    def where(self, node: yaml.Node) -> Location:
        return where(node)

    def error(self, node: yaml.Node | Location | None, message: str) -> None:
        at = node if isinstance(node, Location) or node is None else where(node)
        self.problems.append(Problem(at, message))

    def raise_if_any(self) -> None:
        if self.problems:
            raise DataError(list(self.problems))

    # --- typed accessors ---------------------------------------------------------------------

    def mapping(self, node: yaml.Node, what: str, required: set[str], allowed: set[str] | None) -> dict[str, tuple[yaml.Node, yaml.Node]] | None:
        if not isinstance(node, yaml.MappingNode):
            self.error(node, f"{what} must be a mapping (key: value), not {kind_of(node)}")
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

    def sequence(self, node: yaml.Node, what: str, max_items: int | None = None) -> list[yaml.Node] | None:
        if not isinstance(node, yaml.SequenceNode):
            self.error(node, f"{what} must be a list (lines starting with '- '), not {kind_of(node)}")
            return None
        if max_items is not None and len(node.value) > max_items:
            self.error(node, f"{what} has {len(node.value)} items, more than the limit of {max_items}; shorten it")
            return None
        return list(node.value)

    def scalar(self, node: yaml.Node, what: str, kind: str, lo: float | None = None, hi: float | None = None) -> Any:
        """A plain value of `kind` (int, str, bool, number); ints and numbers within [lo, hi]."""
        if not isinstance(node, yaml.ScalarNode):
            self.error(node, f"{what} must be {_ARTICLES[kind]}, not {kind_of(node)}")
            return None
        try:
            value = construct_scalar(node)
        except yaml.YAMLError as exc:
            problem = getattr(exc, "problem", None) or ""
            reason = problem if problem.startswith("not a usable value") else f"the tag {node.tag} is not allowed"
            self.error(node, f"{what}: {reason}; write a plain value")
            return None
        ok = {
            "int": isinstance(value, int) and not isinstance(value, bool),
            "str": isinstance(value, str) and value.strip() != "",
            "bool": isinstance(value, bool),
            "number": isinstance(value, (int, float)) and not isinstance(value, bool) and (isinstance(value, int) or math.isfinite(value)),  # a 400-digit int overflows isfinite
        }[kind]
        if not ok:
            shown = repr(node.value) if node.value != "" else "an empty value"
            self.error(node, f"{what} must be {_ARTICLES[kind]}, got {shown}")
            return None
        if kind in ("int", "number"):
            low = -limits.MAX_INT if lo is None else lo
            high = limits.MAX_INT if hi is None else hi
            if not low <= value <= high:
                self.error(node, f"{what} is {value}, outside {_fmt(low)}..{_fmt(high)}; use a value in that range")
                return None
        if kind == "str" and len(value) > limits.MAX_TEXT_CHARS:
            self.error(node, f"{what} is {len(value):,} characters long, more than the limit of {limits.MAX_TEXT_CHARS:,}; shorten it")
            return None
        return value

    def text(self, node: yaml.Node, what: str) -> Text | None:
        """A text in exactly the game's languages (`self.languages`)."""
        entries = self.mapping(node, what, required=set(), allowed=None)
        if entries is None:
            return None
        declared = ", ".join(self.languages)
        ok = True
        for lang, (key_node, _) in entries.items():
            if lang not in self.languages and lang not in self.optional:
                self.error(key_node, f"{what}: '{lang}' is not a language of this game (languages: [{declared}] in game.yaml); "
                                     f"remove the '{lang}' text or add {lang} to languages")
                ok = False
        values: dict[str, str] = {}
        for lang in self.languages:
            if lang not in entries:
                self.error(node, f"{what}: the '{lang}' text is missing; every text needs {declared} "
                                 f"(languages in game.yaml)")
                continue
            value = self.scalar(entries[lang][1], f"{what}.{lang}", "str")
            if value is not None:
                values[lang] = value.strip()
        if not ok or len(values) != len(self.languages):
            return None
        for lang in self.optional:
            if lang in entries:
                value = self.scalar(entries[lang][1], f"{what}.{lang}", "str")
                if value is None:
                    return None
                values[lang] = value.strip()
        return Text(**values)

    def plain(self, node: yaml.Node) -> Any:
        """Plain Python values of a node with no schema of its own."""
        try:
            return construct(node)
        except yaml.YAMLError as exc:
            self.error(getattr(exc, "problem_mark", None) and _loc(exc.problem_mark) or node,
                       f"only plain YAML values are allowed here ({getattr(exc, 'problem', exc)})")
            return None


def _loc(mark: Any) -> Location:
    return Location(mark.name, mark.line + 1, mark.column + 1)


def _fmt(value: float) -> str:
    return f"{value:g}" if isinstance(value, float) else f"{value}"
