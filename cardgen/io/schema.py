"""Declared shapes for YAML values, checked by the schema reader with file:line problems.

An engine declares its rule parameters with these (`PARAMETERS = Map({"rounds": Int(1, 50)})`),
and spec files (report, playtest, records) declare theirs, so a missing, mistyped or
out-of-range value is refused at its line and nothing downstream sees it::

    validate(reader, node, Map({"rounds": Int(1, 50), "mode": Str(("a", "b"))}, optional={"mode"}), "parameters")
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import yaml

from . import limits
from .reader import SchemaReader, construct_scalar, kind_of


class Spec:
    """A declared shape; `describe()` says it in a message."""

    def describe(self) -> str:  # pragma: no cover - overridden
        return "a value"


@dataclass(frozen=True)
class Int(Spec):
    lo: int = -limits.MAX_INT
    hi: int = limits.MAX_INT

    def describe(self) -> str:
        return f"a whole number {self.lo}..{self.hi}"


@dataclass(frozen=True)
class Num(Spec):
    lo: float = -limits.MAX_INT
    hi: float = limits.MAX_INT

    def describe(self) -> str:
        return f"a number {self.lo:g}..{self.hi:g}"


@dataclass(frozen=True)
class Bool(Spec):
    def describe(self) -> str:
        return "true or false"


@dataclass(frozen=True)
class Str(Spec):
    choices: tuple[str, ...] = ()

    def describe(self) -> str:
        return f"one of: {', '.join(self.choices)}" if self.choices else "a non-empty string"


@dataclass(frozen=True)
class Text(Spec):
    """{ja: ..., en: ...}; validates to a plain dict (use reader.text for a model Text)."""

    def describe(self) -> str:
        return "a text in each of the game's languages"


@dataclass(frozen=True)
class List(Spec):
    item: Spec
    min_items: int = 0
    max_items: int = 1000

    def describe(self) -> str:
        return f"a list of {self.item.describe()}"


@dataclass(frozen=True)
class Map(Spec):
    """A mapping with known keys; every key is required unless listed in `optional`."""

    fields: Mapping[str, Spec]
    optional: frozenset[str] | set[str] = field(default_factory=frozenset)

    def describe(self) -> str:
        return f"a mapping with keys {', '.join(self.fields)}"


@dataclass(frozen=True)
class Dict(Spec):
    """A mapping whose keys and values each follow one shape (`{3: 8, 4: 0}`)."""

    key: Spec
    value: Spec
    max_items: int = 1000

    def describe(self) -> str:
        return f"a mapping of {self.key.describe()} to {self.value.describe()}"


@dataclass(frozen=True)
class OneOf(Spec):
    """The first of several shapes that fits (for example a number or `none`)."""

    options: tuple[Spec, ...]

    def describe(self) -> str:
        return " or ".join(o.describe() for o in self.options)


@dataclass(frozen=True)
class Anything(Spec):
    """Any plain value (use sparingly: only where nothing downstream relies on the shape)."""

    def describe(self) -> str:
        return "any plain value"


def fits(node: yaml.Node, spec: Spec, like: SchemaReader | None = None) -> bool:
    """Whether `node` has `spec`'s shape (no problems recorded); texts in the languages of the reader `like`."""
    probe = SchemaReader() if like is None else SchemaReader(like.languages, like.optional)
    validate(probe, node, spec, "value")
    return not probe.problems


def validate(r: SchemaReader, node: yaml.Node, spec: Spec, what: str) -> Any:
    """The plain value of `node` checked against `spec`; None after recording problems in `r`."""
    if isinstance(spec, Int):
        return r.scalar(node, what, "int", spec.lo, spec.hi)
    if isinstance(spec, Num):
        value = r.scalar(node, what, "number", spec.lo, spec.hi)
        return value
    if isinstance(spec, Bool):
        return r.scalar(node, what, "bool")
    if isinstance(spec, Str):
        value = r.scalar(node, what, "str")
        if value is not None and spec.choices and value not in spec.choices:
            r.error(node, f"{what} '{value}' is not one of: {', '.join(spec.choices)}")
            return None
        return value
    if isinstance(spec, Text):
        text = r.text(node, what)
        return None if text is None else text.as_dict()
    if isinstance(spec, List):
        items = r.sequence(node, what, spec.max_items)
        if items is None:
            return None
        if len(items) < spec.min_items:
            r.error(node, f"{what} needs at least {spec.min_items} item(s), has {len(items)}")
            return None
        values = [validate(r, item, spec.item, f"{what}[{i + 1}]") for i, item in enumerate(items)]
        return None if any(v is None for v in values) else values
    if isinstance(spec, Map):
        entries = r.mapping(node, what, set(spec.fields) - set(spec.optional), set(spec.fields))
        if entries is None:
            return None
        out = {}
        ok = True
        for name, (_, value_node) in entries.items():
            value = validate(r, value_node, spec.fields[name], f"{what}.{name}")
            ok = ok and value is not None
            out[name] = value
        return out if ok and set(spec.fields) - set(spec.optional) <= out.keys() else None
    if isinstance(spec, Dict):
        if not isinstance(node, yaml.MappingNode):
            r.error(node, f"{what} must be a mapping (key: value), not {kind_of(node)}")
            return None
        if len(node.value) > spec.max_items:
            r.error(node, f"{what} has {len(node.value)} entries, more than the limit of {spec.max_items}")
            return None
        out = {}
        ok = True
        for key_node, value_node in node.value:
            key = validate(r, key_node, spec.key, f"{what} key")
            value = validate(r, value_node, spec.value, f"{what}.{getattr(key_node, 'value', '?')}")
            if key is None or value is None:
                ok = False
                continue
            if key in out:
                r.error(key_node, f"{what}: key '{key}' appears twice; keep one")
                ok = False
            out[key] = value
        return out if ok else None
    if isinstance(spec, OneOf):
        for option in spec.options:
            if fits(node, option, r):
                return validate(r, node, option, what)
        r.error(node, f"{what} must be {spec.describe()}, not {kind_of(node)}")
        return None
    if isinstance(spec, Anything):
        return r.plain(node)
    raise TypeError(f"unknown spec {spec!r}")  # a programming error, not a data error


__all__ = ["Spec", "Int", "Num", "Bool", "Str", "Text", "List", "Map", "Dict", "OneOf", "Anything", "validate", "fits",
           "construct_scalar"]
