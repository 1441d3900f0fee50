"""The one Jinja environment every template of a game folder renders in.

Templates come from strangers, so they render in Jinja's `ImmutableSandboxedEnvironment`:
no attribute starting with an underscore, no mutation of the data, no file system (there is
no loader: a template is always a string the caller read through `cardgen.io.reader`). On top
of the sandbox: `range()` and string/list repetition are capped, the output of one render is
capped, and a render in the main thread has a wall-clock deadline, so a template cannot hang
or exhaust memory. Every error comes back as a `DataError` at the template's file:line.
"""

from __future__ import annotations

import contextlib
import functools
import operator
import re
import signal
import threading
from typing import Any, Callable, Iterator

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError

from ..errors import DataError, Problem
from ..model import Location
from . import limits


class TemplateTimeout(Exception):
    """A template ran past MAX_TEMPLATE_SECONDS."""


def _range(*args: int) -> range:
    r = range(*args)
    if len(r) > limits.MAX_TEMPLATE_RANGE:
        raise SecurityError(f"range() of {len(r):,} items is more than the limit of {limits.MAX_TEMPLATE_RANGE:,}")
    return r


class _Sandbox(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**", "+"})

    def unsafe_undefined(self, obj: Any, attribute: str) -> Any:
        # Jinja returns an Undefined here, which a lenient template would print as nothing;
        # a template that reaches for internals is refused loudly in every mode.
        raise SecurityError(f"access to attribute {attribute!r} of {type(obj).__name__!r} object is not allowed")

    def call_binop(self, context: Any, op: str, left: Any, right: Any) -> Any:
        if op == "**":
            if isinstance(right, (int, float)) and abs(right) > 64:
                raise SecurityError("an exponent above 64 is not allowed in a template")
            return operator.pow(left, right)
        result_len = None
        if op == "*":
            for seq, count in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and isinstance(count, int):
                    result_len = len(seq) * max(count, 0)
        elif op == "+" and isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
            result_len = len(left) + len(right)
        if result_len is not None and result_len > limits.MAX_TEMPLATE_OUTPUT:
            raise SecurityError(f"a value of {result_len:,} items is more than the limit of {limits.MAX_TEMPLATE_OUTPUT:,}")
        return operator.mul(left, right) if op == "*" else operator.add(left, right)


def _make(strict: bool) -> jinja2.Environment:
    env = _Sandbox(
        undefined=jinja2.StrictUndefined if strict else jinja2.Undefined,
        autoescape=False, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False,
    )
    env.globals["range"] = _range
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


def template_problem(exc: BaseException, origin: Location, what: str = "template") -> Problem:
    """A Problem at the file:line of a template error, saying what to do."""
    lineno = getattr(exc, "lineno", None)
    if isinstance(exc, TemplateTimeout):
        return Problem(origin, f"{what} takes longer than {limits.MAX_TEMPLATE_SECONDS:g} s to render; simplify its loops")
    if isinstance(exc, SecurityError):
        return Problem(_at(origin, _runtime_line(exc) or lineno), f"{what}: not allowed in a template ({exc}); templates may only read the game's data")
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return Problem(_at(origin, lineno), f"{what}: template syntax error: {exc.message}; fix the {{{{ }}}} or {{% %}} here")
    if isinstance(exc, jinja2.UndefinedError):
        return Problem(_at(origin, _runtime_line(exc) or lineno), f"{what}: {exc.message}; check the name (it is not defined here)")
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
    # Only statements ({% for %}, {% macro %}, ...) can run long: range() and repetition are
    # capped, so a template of {{ expressions }} alone needs no deadline (and no timer syscalls).
    template._cardgen_statements = "{%" in source  # type: ignore[attr-defined]
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
    timed = getattr(template, "_cardgen_statements", True)
    try:
        with deadline() if timed else contextlib.nullcontext():
            for chunk in template.generate(context):
                size += len(chunk)
                if size > limits.MAX_TEMPLATE_OUTPUT:
                    raise SecurityError(f"output longer than {limits.MAX_TEMPLATE_OUTPUT:,} characters")
                parts.append(chunk)
    except DataError:
        raise
    except RUNTIME_ERRORS as exc:
        raise DataError([template_problem(exc, origin, what)]) from None
    return "".join(parts)


def evaluate(expression: Callable[..., Any], context: dict[str, Any], origin: Location, what: str = "expression") -> Any:
    """Evaluate a compiled expression with the same error handling as `render`."""
    try:  # an expression has no statements: its cost is bounded by the caps (see compile_template)
        return expression(**context)
    except DataError:
        raise
    except RUNTIME_ERRORS as exc:
        raise DataError([template_problem(exc, origin, what)]) from None
