"""The one Jinja environment every template of a game folder renders in.

Templates come from strangers, so they render in Jinja's `ImmutableSandboxedEnvironment`:
no attribute starting with an underscore, no mutation of the data, no file system (there is
no loader: a template is always a string the caller read through `cardgen.io.reader`). On top
of the sandbox, every way a template can build a large value is bounded *before* the value is
built: `range()`, string/list repetition and concatenation (`+`, `~`), `%` and `format` widths,
the string methods and filters that pad, repeat or join (`center`, `replace`, `join`,
`indent`, `wordwrap`, `batch`, ...), and big-number arithmetic; the output of one render is
capped, and every render and expression in the main thread has a wall-clock deadline, so a
template cannot hang or exhaust memory. Every error comes back as a `DataError` at the
template's file:line.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import math
import operator
import re
import signal
import threading
from contextvars import ContextVar
from typing import Any, Callable, Iterator, Mapping

import jinja2
from jinja2 import filters as jinja_filters
from jinja2.compiler import CodeGenerator
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEscapeFormatter, SandboxedFormatter, SecurityError
from jinja2.utils import generate_lorem_ipsum
from markupsafe import Markup

from ..errors import DataError, Problem
from ..model import Location
from . import limits
from .reader import control_character


class TemplateTimeout(Exception):
    """A template ran past MAX_TEMPLATE_SECONDS."""


def _range(*args: int) -> range:
    r = range(*args)
    if len(r) > limits.MAX_TEMPLATE_RANGE:
        raise SecurityError(f"range() of {len(r):,} items is more than the limit of {limits.MAX_TEMPLATE_RANGE:,}")
    return r


# --- sizes, checked before a value is built --------------------------------------------------------

_MAX_INT_BITS = 100_000  # a whole number of ~30,000 digits: far beyond any game's arithmetic


# What one render or expression has built so far, in characters (set by `render` and `evaluate`):
# each value is capped, and so is their sum, so a loop, a macro or a {% set %} block that builds
# one capped value after another stops too.
_BUILT: ContextVar[list[int] | None] = ContextVar("cardgen_template_built", default=None)
MAX_BUILT = 20 * limits.MAX_TEMPLATE_OUTPUT


def _bound(size: int, what: str) -> None:
    """Refuse a value of `size` characters before it is built, alone or with what the render built so far."""
    if size > limits.MAX_TEMPLATE_OUTPUT:
        raise SecurityError(f"{what} would make a value of {size:,} characters, more than the limit of "
                            f"{limits.MAX_TEMPLATE_OUTPUT:,}")
    built = _BUILT.get()
    if built is not None:
        built[0] += size
        if built[0] > MAX_BUILT:
            raise SecurityError(f"the template builds more than {MAX_BUILT:,} characters in all, the limit "
                                f"(in loops, blocks or macros)")


def _weight(value: Any, limit: int = limits.MAX_TEMPLATE_OUTPUT) -> int:
    """About how many characters `value` prints as, lists inside lists included, without printing it;
    counting stops past `limit`."""
    total = 0
    stack = [value]
    while stack and total <= limit:
        item = stack.pop()
        if isinstance(item, str):
            total += len(item)
        elif isinstance(item, bool) or item is None:
            total += 5
        elif isinstance(item, int):
            total += item.bit_length() * 30103 // 100_000 + 2  # its decimal digits
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 2 + 2 * len(item)
            stack.extend(item)
        elif isinstance(item, dict):
            total += 2 + 4 * len(item)
            stack.extend(item.keys())
            stack.extend(item.values())
        else:
            total += 24
    return total


def _finalize(value: Any) -> Any:
    """Every {{ value }} passes here before it is printed (into the output or a block's buffer)."""
    _bound(_weight(value), "a {{ }} value")
    return value


def _width(number: str) -> int:
    """A width or precision written in a format; an absurdly long one counts as over the limit."""
    return int(number) if len(number) <= 9 else limits.MAX_TEMPLATE_OUTPUT + 1


def _sized_total(items: list[Any], what: str, extra: int = 0) -> None:
    """Bound the joined length of `items` (as printed), stopping as soon as it is over."""
    total = extra
    for item in items:
        total += _weight(item)
        if total > limits.MAX_TEMPLATE_OUTPUT:
            break
    _bound(total, what)


# `%` conversions: flags, width (or *), precision (or *)
_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?[a-zA-Z%]")


def _percent(fmt: str, args: Any) -> None:
    """Bound `fmt % args` (the `%` operator and the `format` filter) by its widths and precisions."""
    size, star = len(fmt), False
    for width, precision in _PERCENT_SPEC.findall(fmt):
        for number in (width, precision):
            if number == "*":
                star = True
            elif number:
                size += _width(number)
    if star:  # `%*d`: the widths are arguments
        values = args if isinstance(args, tuple) else (args,)
        size += sum(abs(v) for v in values if isinstance(v, int) and not isinstance(v, bool))
    _bound(size + _weight(args), "a % format")  # and what the arguments print as ('%s%s' % (big, big))


_FORMAT_NUMBERS = re.compile(r"\d+")


class _BoundedFormat:
    """str.format in the sandbox, with each field's width and precision, and the total, bounded."""

    def format_field(self, value: Any, format_spec: str) -> Any:
        self._size = getattr(self, "_size", 0) + sum(_width(n) for n in _FORMAT_NUMBERS.findall(format_spec))
        _bound(self._size, "a {} format")
        result = super().format_field(value, format_spec)  # type: ignore[misc]
        self._size += len(result)
        _bound(self._size, "a {} format")
        return result


class _Formatter(_BoundedFormat, SandboxedFormatter):
    pass


class _EscapeFormatter(_BoundedFormat, SandboxedEscapeFormatter):
    pass


def _str_method(env: "jinja2.Environment", value: Any) -> Callable[..., Any] | None:
    """A bounded stand-in for a method of a string that can make a much longer string, or None."""
    name = getattr(value, "__name__", "")
    text = getattr(value, "__self__", None)
    if not isinstance(text, str) or not callable(value):
        return None
    if name in ("format", "format_map"):
        def format_(*args: Any, **kwargs: Any) -> str:
            if name == "format_map":
                if kwargs or len(args) != 1:
                    raise TypeError("format_map() takes exactly one argument")
                args, kwargs = (), args[0]
            formatter = _EscapeFormatter(env, escape=text.escape) if isinstance(text, Markup) else _Formatter(env)
            return type(text)(formatter.vformat(text, args, kwargs))
        return format_
    if name in ("center", "ljust", "rjust", "zfill"):
        def pad(width: int, *rest: Any) -> str:
            _bound(width, f"{name}()")
            return value(width, *rest)
        return pad
    if name == "expandtabs":
        def expandtabs(tabsize: int = 8) -> str:
            _bound(len(text) + text.count("\t") * max(tabsize, 0), "expandtabs()")
            return value(tabsize)
        return expandtabs
    if name == "replace":
        def replace(old: str, new: str, count: int = -1) -> str:
            _bound(_replaced_size(text, old, new, count), "replace()")
            return value(old, new, count)
        return replace
    if name == "join":
        def join(iterable: Any) -> str:
            items = list(iterable)
            _sized_total(items, "join()", len(text) * max(len(items) - 1, 0))
            return value(items)
        return join
    if name == "translate":
        def translate(table: Any) -> str:
            longest = max((len(v) for v in getattr(table, "values", lambda: ())() if isinstance(v, str)), default=1)
            _bound(len(text) * max(longest, 1), "translate()")
            return value(table)
        return translate
    return None


def _replaced_size(text: str, old: Any, new: Any, count: int | None) -> int:
    old, new = str(old), str(new)
    found = text.count(old) if old else len(text) + 1
    if count is not None and count >= 0:
        found = min(found, count)
    return len(text) + found * (len(new) - len(old))


class _BoundedCodeGenerator(CodeGenerator):
    def visit_Const(self, node: Any, frame: Any) -> None:
        # Jinja writes a constant as its repr, and a float literal past the float range (1e999)
        # folds to inf, whose repr is not Python: the compiled template would fail with NameError
        value = node.as_const(frame.eval_ctx)
        if isinstance(value, float) and not math.isfinite(value):
            self.fail("a number too large to hold; write a smaller one", node.lineno)
        super().visit_Const(node, frame)

    def visit_Concat(self, node: Any, frame: Any) -> None:
        # Jinja writes str_join((a, b)); write environment.concat((a, b)), which measures first
        self.write("environment.concat((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")


class _Sandbox(ImmutableSandboxedEnvironment):
    code_generator_class = _BoundedCodeGenerator
    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def unsafe_undefined(self, obj: Any, attribute: str) -> Any:
        # Jinja returns an Undefined here, which a lenient template would print as nothing;
        # a template that reaches for internals is refused loudly in every mode.
        raise SecurityError(f"access to attribute {attribute!r} of {type(obj).__name__!r} object is not allowed")

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        # Jinja's hook for str.format, reached by every attribute or item lookup of a method
        return _str_method(self, value)

    def call_binop(self, context: Any, op: str, left: Any, right: Any) -> Any:
        if op == "%":
            if isinstance(left, str):
                _percent(left, right)
            return operator.mod(left, right)
        if op == "**":
            if isinstance(right, (int, float)) and abs(right) > 64:
                raise SecurityError("an exponent above 64 is not allowed in a template")
            if isinstance(left, int) and isinstance(right, int) and left.bit_length() * max(right, 0) > _MAX_INT_BITS:
                raise SecurityError(f"a number of more than {_MAX_INT_BITS:,} bits is not allowed in a template")
            return operator.pow(left, right)
        if op == "*":
            if isinstance(left, int) and isinstance(right, int) and left.bit_length() + right.bit_length() > _MAX_INT_BITS:
                raise SecurityError(f"a number of more than {_MAX_INT_BITS:,} bits is not allowed in a template")
            for seq, count in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(count, int) and not isinstance(count, bool):
                    # by what it prints as: [[1] * 1000000] * 1000000 is a short list of a long one
                    _bound(max(len(seq), _weight(seq)) * max(count, 0), "repetition")
        elif op == "+" and isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
            _bound(_weight(left) + _weight(right), "+")
        return operator.mul(left, right) if op == "*" else operator.add(left, right)

    def concat(self, parts: Any) -> str:
        """`a ~ b ~ c` (the compiled template calls this instead of Jinja's str_join), and the output
        of a {% set %} block, a macro or a {% filter %} block (Jinja's `environment.concat`): bounded."""
        parts = list(parts)
        _sized_total(parts, "~")
        return "".join(map(str, parts))


# --- filters that pad, repeat or join, bounded before they run -------------------------------------

def _center(value: str, width: int = 80) -> str:
    _bound(width, "center")
    return jinja_filters.do_center(value, width)


def _indent(s: str, width: int | str = 4, first: bool = False, blank: bool = False) -> str:
    step = len(width) if isinstance(width, str) else int(width)
    _bound(len(str(s)) + (str(s).count("\n") + 1) * max(step, 0), "indent")
    return jinja_filters.do_indent(s, width, first, blank)


@jinja2.pass_environment
def _wordwrap(environment: Any, s: str, width: int = 79, break_long_words: bool = True, wrapstring: str | None = None,
              break_on_hyphens: bool = True) -> str:
    s = str(s)
    lines = min(len(s) + 1, len(s) // max(int(width), 1) + len(s.split()) + s.count("\n") + 1)
    _bound(len(s) + lines * len(wrapstring if wrapstring is not None else environment.newline_sequence), "wordwrap")
    return jinja_filters.do_wordwrap(environment, s, width, break_long_words, wrapstring, break_on_hyphens)


@jinja2.pass_eval_context
def _replace(eval_ctx: Any, s: str, old: str, new: str, count: int | None = None) -> str:
    _bound(_replaced_size(str(s), old, new, count), "replace")
    return jinja_filters.do_replace(eval_ctx, s, old, new, count)


@jinja2.pass_eval_context
def _join(eval_ctx: Any, value: Any, d: str = "", attribute: str | int | None = None) -> str:
    items = list(value)  # measured, then joined: a generator can be read once
    if attribute is not None:
        items = list(map(jinja_filters.make_attrgetter(eval_ctx.environment, attribute), items))
    _sized_total(items, "join", len(str(d)) * max(len(items) - 1, 0))
    return jinja_filters.do_join(eval_ctx, items, d)


def _format(value: str, *args: Any, **kwargs: Any) -> str:
    _percent(str(value), kwargs or args)
    return jinja_filters.do_format(value, *args, **kwargs)


@jinja2.pass_environment
def _sum(environment: Any, iterable: Any, attribute: str | int | None = None, start: Any = 0) -> Any:
    items = list(iterable)
    if isinstance(start, (str, list, tuple)):  # summing sequences concatenates them
        values = items if attribute is None else list(map(jinja_filters.make_attrgetter(environment, attribute), items))
        _bound(len(start) + sum(len(v) if isinstance(v, (str, list, tuple)) else 1 for v in values), "sum")
    return jinja_filters.do_sum(environment, items, attribute, start)


def _batch(value: Any, linecount: int, fill_with: Any = None) -> Any:
    if fill_with is not None:
        _bound(int(linecount), "batch")
    return jinja_filters.do_batch(value, linecount, fill_with)


def _slice(value: Any, slices: int, fill_with: Any = None) -> Any:
    _range(int(slices))
    return jinja_filters.do_slice(value, slices, fill_with)


@jinja2.pass_eval_context
def _tojson(eval_ctx: Any, value: Any, indent: int | None = None) -> Any:
    if indent is not None and (len(indent) if isinstance(indent, str) else int(indent)) > 64:
        raise SecurityError("tojson with an indent above 64 is not allowed in a template")
    return jinja_filters.do_tojson(eval_ctx, value, indent)


@jinja2.pass_eval_context
def _urlize(eval_ctx: Any, value: str, trim_url_limit: int | None = None, nofollow: bool = False,
            target: str | None = None, rel: str | None = None, extra_schemes: Any = None) -> str:
    _bound(len(str(value)) * (1 + len(str(target or "")) + len(str(rel or ""))), "urlize")
    return jinja_filters.do_urlize(eval_ctx, value, trim_url_limit, nofollow, target, rel, extra_schemes)


def _lipsum(n: int = 5, html: bool = True, min: int = 20, max: int = 100) -> str:
    _bound(int(n) * int(max) * 12, "lipsum()")
    return generate_lorem_ipsum(n, html, min, max)


_BOUNDED_FILTERS = {"center": _center, "indent": _indent, "wordwrap": _wordwrap, "replace": _replace, "join": _join,
                    "format": _format, "sum": _sum, "batch": _batch, "slice": _slice, "tojson": _tojson, "urlize": _urlize}


def _make(strict: bool) -> jinja2.Environment:
    env = _Sandbox(
        finalize=_finalize,
        undefined=jinja2.StrictUndefined if strict else jinja2.Undefined,
        autoescape=False, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False,
    )
    env.globals["range"] = _range
    env.globals["lipsum"] = _lipsum
    env.filters.update(_BOUNDED_FILTERS)
    return env


# Strict: documents (an unknown name is an error). Lenient: card layouts, whose `when:` and texts
# may test fields that some cards lack.
STRICT = _make(strict=True)
LENIENT = _make(strict=False)


def environment(strict: bool = True) -> jinja2.Environment:
    """The shared sandbox (strict: unknown names are errors). Add filters per render through the context."""
    return STRICT if strict else LENIENT


@contextlib.contextmanager
def deadline(seconds: float = limits.MAX_TEMPLATE_SECONDS) -> Iterator[None]:
    """Raise TemplateTimeout in the block after `seconds` (main thread only; elsewhere a no-op)."""
    if threading.current_thread() is not threading.main_thread() or signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        yield
        return

    def expire(signum: int, frame: Any) -> None:
        raise TemplateTimeout()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _at(origin: Location, lineno: int | None) -> Location:
    return Location(origin.path, origin.line + max((lineno or 1) - 1, 0), origin.column if (lineno or 1) == 1 else 1)


_UNDEFINED_NAME = re.compile(r"^'([^']+)' is undefined$")


def _undefined_hint(message: str, context: Mapping[str, Any] | None) -> str:
    """What to write instead of an unknown name: the nearest defined name (difflib) and the helpers there are."""
    match = _UNDEFINED_NAME.match(message)
    if match is None or not context:
        return "check the name (it is not defined here)"
    names = sorted(name for name in context if not name.startswith("_"))
    near = difflib.get_close_matches(match.group(1), names, n=1)
    helpers = [name for name in names if callable(context[name])]
    said = f"did you mean '{near[0]}'?" if near else "check the name (it is not defined here)"
    return said + (f"; the helpers here are {', '.join(f'{h}()' for h in helpers)}" if helpers else "")


def template_problem(exc: BaseException, origin: Location, what: str = "template",
                     context: Mapping[str, Any] | None = None) -> Problem:
    """A Problem at the file:line of a template error, saying what to do (`context`: the names it could use)."""
    lineno = getattr(exc, "lineno", None)
    if isinstance(exc, TemplateTimeout):
        return Problem(origin, f"{what} takes longer than {limits.MAX_TEMPLATE_SECONDS:g} s to render; simplify its loops")
    if isinstance(exc, SecurityError):
        return Problem(_at(origin, _runtime_line(exc) or lineno), f"{what}: not allowed in a template ({exc}); templates may only read the game's data")
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return Problem(_at(origin, lineno), f"{what}: template syntax error: {exc.message}; fix the {{{{ }}}} or {{% %}} here")
    if isinstance(exc, jinja2.UndefinedError):
        return Problem(_at(origin, _runtime_line(exc) or lineno), f"{what}: {exc.message}; {_undefined_hint(str(exc.message), context)}")
    message = str(exc) or type(exc).__name__
    return Problem(_at(origin, _runtime_line(exc) or lineno), f"{what}: {message}; fix the template here")


def _runtime_line(exc: BaseException) -> int | None:
    """The template line a runtime error happened on, read from the traceback Jinja rewrote."""
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


RUNTIME_ERRORS = (jinja2.TemplateError, SecurityError, TemplateTimeout, ArithmeticError, ValueError, TypeError,
                  KeyError, IndexError, AttributeError, RecursionError, OverflowError, MemoryError)


# Jinja's lexer and parser can fail outside TemplateSyntaxError: a 5,000-digit number literal
# (ValueError from int()), or nesting deep enough to exhaust the recursion limit.
COMPILE_ERRORS = (jinja2.TemplateSyntaxError, ValueError, OverflowError, RecursionError, MemoryError)


def _long_number_line(source: str) -> int | None:
    match = re.search(r"\d{4000,}", source)
    return source.count("\n", 0, match.start()) + 1 if match else None


def compile_template(source: str, origin: Location, what: str = "template", strict: bool = True) -> jinja2.Template:
    """Compile `source` in the sandbox; DataError at its file:line on a syntax error."""
    try:
        template = _compiled(str(source), strict)
    except COMPILE_ERRORS as exc:
        if isinstance(exc, ValueError) and not isinstance(exc, jinja2.TemplateSyntaxError):
            exc.lineno = _long_number_line(source)  # type: ignore[attr-defined]  # the lexer gives none
        raise DataError([template_problem(exc, origin, what)]) from None
    return template


@functools.lru_cache(maxsize=1024)
def _compiled(source: str, strict: bool) -> jinja2.Template:
    """A compiled template is immutable and compiling is most of a short text's cost (a playtest
    sheet renders the same `{{ n }}` labels on every scratch page): compile each source once."""
    template = environment(strict).from_string(source)
    template._cardgen_source = source  # type: ignore[attr-defined]  # to point at an escape in a message
    return template


def compile_expression(source: str, origin: Location, what: str = "expression", strict: bool = False) -> Callable[..., Any]:
    """Compile a Jinja expression (a layout's `when:` or `vars:`); DataError on a syntax error."""
    try:
        return environment(strict).compile_expression(source)
    except COMPILE_ERRORS as exc:
        raise DataError([template_problem(exc, origin, what)]) from None


def render(template: jinja2.Template | str, context: dict[str, Any], origin: Location, what: str = "template",
           strict: bool = True) -> str:
    """Render a template (or source) in the sandbox, within the output cap and deadline."""
    if isinstance(template, str):
        template = compile_template(template, origin, what, strict)
    parts: list[str] = []
    size = 0
    built = _BUILT.set([0])
    try:  # every render has the deadline: an expression alone can be slow (a filter chain over 10,000 items)
        with deadline():
            for chunk in template.generate(context):
                size += len(chunk)
                if size > limits.MAX_TEMPLATE_OUTPUT:
                    raise SecurityError(f"output longer than {limits.MAX_TEMPLATE_OUTPUT:,} characters")
                parts.append(chunk)
    except DataError:
        raise
    except RUNTIME_ERRORS as exc:
        raise DataError([template_problem(exc, origin, what, context)]) from None
    finally:
        _BUILT.reset(built)
    text = "".join(parts)
    bad = control_character(text)
    if bad is not None:  # the source was checked when read; an escape ('\x07') makes one at render time
        raise DataError([Problem(_escape_at(template, bad.group(), origin),
                                 f"{what}: the rendered text holds control character U+{ord(bad.group()):04X} "
                                 f"(written as an escape in a {{{{ }}}} expression?); delete it")])
    return text


def _escape_at(template: jinja2.Template, char: str, origin: Location) -> Location:
    """Where the source spells `char` as a string escape (\\x07, \\u0007, \\a, \\0 ...), else the origin."""
    source = getattr(template, "_cardgen_source", None)
    code = ord(char)
    named = {0: r"\\0", 7: r"\\a", 8: r"\\b", 11: r"\\v", 12: r"\\f"}
    pattern = rf"\\x{code:02x}|\\u{code:04x}|\\U{code:08x}|\\0*{code:o}(?![0-7])" + (f"|{named[code]}" if code in named else "")
    match = re.search(pattern, source, re.I) if source and code < 0x10000 else None
    if match is None:
        return origin
    line = source.count("\n", 0, match.start())
    column = match.start() - (source.rfind("\n", 0, match.start()) + 1) + 1
    return Location(origin.path, origin.line + line, column if line else origin.column + column - 1)


def evaluate(expression: Callable[..., Any], context: dict[str, Any], origin: Location, what: str = "expression") -> Any:
    """Evaluate a compiled expression with the same error handling as `render`."""
    built = _BUILT.set([0])
    try:
        with deadline():
            return expression(**context)
    except DataError:
        raise
    except RUNTIME_ERRORS as exc:
        raise DataError([template_problem(exc, origin, what)]) from None
    finally:
        _BUILT.reset(built)
