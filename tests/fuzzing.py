"""Seeded mutations of the bundled game folders, and a runner that holds cardgen to its trust rules.

A game folder is untrusted input (DESIGN.md, "Trust"). For any folder, however broken:

- no command prints a traceback, and every exit code is 0, 1 (refused, with a message) or 2
  (usage);
- `check` and `build` end within a time limit;
- no code from the folder runs (the Jinja and YAML payloads here try to create a CANARY file);
- nothing is written outside `--out`, and nothing outside the folder appears in any output;
- `check` passing means `build` passes.

A case is (game, seed): `make_case` copies `card_data/<game>` (and, for some seeds, the game's
templates into `<game>/templates/`) and applies a few mutations chosen by `random.Random` seeded
with the case, so a case id reproduces exactly:

    python benchmarks/fuzz_game_folders.py --case ohanatsumi-17 --keep /tmp/case

`run_case` runs the commands in a forked child (warm imports, so hundreds of cases run in a minute,
and a hard time limit: the child dumps its Python stack with faulthandler and is killed), or with
`mode="subprocess"` as `python -m cardgen` processes. Both the pytest suite and the benchmark
script import this module.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path

try:  # tests.fuzzing under pytest; plain `fuzzing` for benchmarks/fuzz_game_folders.py
    from . import fuzz_surfaces
except ImportError:
    import fuzz_surfaces  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parent.parent
GAMES = ("llll", "requiem", "alice", "ohanatsumi", "art_game")
# art_game (images, inline icons, a layout of its own) is the fixture of the art tests
SOURCES = {"art_game": REPO / "tests" / "fixtures" / "art_game"}
GAME_FILES = ("game.yaml", "cards.yaml", "cards.csv", "mapping.yaml", "rules.ja.md", "rules.en.md")
SURFACE_SHARE = 0.4  # cases that also mutate a spreadsheet, SVG, image or font (tests/fuzz_surfaces.py)
TEMPLATE_FILES = ("layout.yaml", "playtest.yaml", "report.yaml")
CANARY = "CANARY"
FAST_OUTPUTS = ("sheets", "shop", "rules", "standard", "playtest")
SLOW_OUTPUTS = FAST_OUTPUTS + ("png", "tts")
EXIT_CODES = {0, 1, 2}
# Text that must never leak into an output or a message (from /etc/passwd, the usual include target).
OUTSIDE_MARKERS = ("root:x:0:0", "/bin/bash", "/usr/sbin/nologin", "daemon:x:")

JINJA_PAYLOADS = (
    "{{ cycler.__init__.__globals__.os.popen('touch CANARY').read() }}",
    "{{ joiner.__init__.__globals__.os.system('touch CANARY') }}",
    "{{ lipsum.__globals__['os'].popen('touch CANARY').read() }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ self.__init__.__globals__.__builtins__.open('/etc/passwd').read() }}",
    "{% include '/etc/passwd' %}",
    "{% include '../../../../../../etc/passwd' %}",
    "{% extends '/etc/passwd' %}",
    "{% import '/etc/passwd' as x %}",
    "{{ 'A' * 1000000000 }}",
    "{% for i in range(1000000000) %}x{% endfor %}",
    "{{ range(1000000000) | list | length }}",
    "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}",
    "{{ 9 ** 9 ** 9 }}",
    "{{ config }}{{ request }}",
    "{{",
    "{% if %}",
    "{% for %}",
    "{{ card.__class__.__init__.__globals__ }}",
    "{{ game.root }}",
)
YAML_CODE_PAYLOADS = (
    "!!python/object/apply:os.system ['touch CANARY']",
    "!!python/object/apply:subprocess.check_output [['touch', 'CANARY']]",
    "!!python/name:os.system",
    "!!binary AAAA",
    "!!set {a, b}",
    "!!timestamp 2001-12-14",
    "!!float .nan",
    "!!int 0x7fffffffffffffffffffffff",
    "&x [*x]",
    "*undefined_alias",
)
BAD_NUMBERS = (
    lambda n: f'"{n}"', lambda n: f"-{n}", lambda n: "0", lambda n: "-1", lambda n: "1000000000000",
    lambda n: "-1000000000000", lambda n: "9" * 5000, lambda n: "1" + "0" * 4400, lambda n: f"{n}.5",
    lambda n: "1e308", lambda n: "1e999", lambda n: ".nan", lambda n: ".inf", lambda n: "-.inf",
    lambda n: "null", lambda n: "true", lambda n: "~", lambda n: "0x10", lambda n: "0o17", lambda n: "1_000",
    lambda n: "[]", lambda n: "{}", lambda n: f"[{n}]", lambda n: "2147483648", lambda n: "''",
)
CONTROL_CHARS = ("\x00", "\x07", "\x1b", "\x08", "\x7f", "\x85", "\u2028", "\u2029", "\ufeff", "\ufffe", "\x0c",
                 "\x1b[2J", "\r", "\u202e", "\ud800")
INVALID_UTF8 = (b"\xff", b"\xfe\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe3\x81", b"\x80",
                b"\xc0\xaf")
BAD_IDS = ("P/1", "P\\1", "..", ".", "", "CON", "nul.txt", "a b", "-x", "x.", "日本語", "\u202eabc", "../../x",
           "/etc/passwd", "LL01", "%s%s%n", "{0}", "{{ 7*7 }}", "x" * 300, "y" * 100_000)
BAD_SIZES = ("100000x100000", "0x0", "-63x88", "63x-88", "1x1", "63.5x", "x", "nan x nan", "infxinf", "1e9x1e9",
             "63,5x88,9", "63x88x10", "poker poker", "", "TAROT", "3000x3000", "20x300", "300x20")
BAD_ID_FORMATS = ("LL{n:0300000000d}", "LL{n.foo}", "LL{n!r}", "LL{0}", "LL{n:>100000}", "{n}{n}", "LL", "{",
                  "LL{n:,}", "LL{n.__class__}", "LL{n:99999999999999999999d}", "{n:02d}/{n}", "../{n}",
                  "{n[0]}", "{n:010d}", "%d", "LL{n:02d}" + "x" * 300)


@dataclass
class Case:
    game: str
    seed: int
    mutations: list[str] = field(default_factory=list)

    @property
    def id(self) -> str:
        return f"{self.game}-{self.seed}"


# ---------------------------------------------------------------------------------------------
# Mutations. Each takes (rng, text: bytes) and returns (new bytes, what it did).

def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _join(lines: list[bytes]) -> bytes:
    return b"\n".join(lines)


def _pick_line(rng: random.Random, lines: list[bytes], pattern: bytes | None = None) -> int | None:
    idx = [i for i, line in enumerate(lines) if line.strip() and (pattern is None or re.search(pattern, line))]
    return rng.choice(idx) if idx else None


def m_delete_line(rng, data):
    lines = _lines(data)
    i = _pick_line(rng, lines)
    if i is None:
        return data, "delete-line: none"
    del lines[i]
    return _join(lines), f"delete line {i + 1}"


def m_duplicate_line(rng, data):
    lines = _lines(data)
    i = _pick_line(rng, lines)
    if i is None:
        return data, "duplicate-line: none"
    lines.insert(i, lines[i])
    return _join(lines), f"duplicate line {i + 1}"


def m_swap_lines(rng, data):
    lines = _lines(data)
    if len(lines) < 2:
        return data, "swap-lines: none"
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return _join(lines), f"swap lines {i + 1} and {j + 1}"


_NUMBER = re.compile(rb"(?<![\w.#{$-])(\d+)(?![\w.])")


def m_number(rng, data):
    lines = _lines(data)
    candidates = [(i, m) for i, line in enumerate(lines) for m in _NUMBER.finditer(line.split(b"#")[0])]
    if not candidates:
        return data, "number: none"
    i, m = rng.choice(candidates)
    k = rng.randrange(len(BAD_NUMBERS))
    new = BAD_NUMBERS[k](m.group(1).decode()).encode()
    lines[i] = lines[i][: m.start(1)] + new + lines[i][m.end(1):]
    return _join(lines), f"line {i + 1}: number {m.group(1).decode()} -> {new[:30].decode()}"


_KEY = re.compile(rb"^(\s*)(?:- )?([A-Za-z_][\w-]*):")


def m_remove_key(rng, data):
    """Remove a `key:` line and the block indented under it."""
    lines = _lines(data)
    i = _pick_line(rng, lines, rb"^\s*(?:- )?[A-Za-z_][\w-]*:")
    if i is None:
        return data, "remove-key: none"
    m = _KEY.match(lines[i])
    indent = len(m.group(1))
    end = i + 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
        end += 1
    if lines[i].lstrip().startswith(b"- "):  # keep the list item itself: drop only the key's line
        end = i + 1
    del lines[i:end]
    return _join(lines), f"remove key {m.group(2).decode()} (line {i + 1}, {end - i} lines)"


def m_control(rng, data):
    # Work on bytes: an earlier mutation may have left invalid UTF-8 that no codec round-trips.
    # Insert at a character boundary (never before a UTF-8 continuation byte).
    starts = [i for i in range(len(data) + 1) if i == len(data) or not 0x80 <= data[i] <= 0xBF]
    pos = rng.choice(starts)
    ch = rng.choice(CONTROL_CHARS)
    out = data[:pos] + ch.encode("utf-8", "surrogatepass") + data[pos:]
    line = data[:pos].count(b"\n") + 1
    return out, f"line {line}: insert control {ch.encode('unicode_escape').decode()}"


def m_control_in_comment(rng, data):
    lines = _lines(data)
    i = _pick_line(rng, lines, rb"#")
    ch = rng.choice(("\x00", "\x07", "\x1b")).encode()
    if i is None:
        lines.insert(0, b"# comment " + ch)
        i = 0
    else:
        lines[i] = lines[i] + b" # note " + ch
    return _join(lines), f"line {i + 1}: control {ch!r} in a comment"


def m_invalid_utf8(rng, data):
    pos = rng.randrange(len(data) + 1)
    bad = rng.choice(INVALID_UTF8)
    return data[:pos] + bad + data[pos:], f"byte {pos}: insert invalid UTF-8 {bad!r}"


def m_bom(rng, data):
    return b"\xef\xbb\xbf" + data, "add BOM"


def m_crlf(rng, data):
    if rng.random() < 0.5:
        return data.replace(b"\n", b"\r\n"), "CRLF line ends"
    return data.replace(b"\n", b"\r"), "CR line ends"


def m_tabs(rng, data):
    lines = _lines(data)
    idx = [i for i, line in enumerate(lines) if line.startswith(b"  ")]
    if not idx:
        return data.replace(b" ", b"\t", 1), "tab"
    for i in rng.sample(idx, min(len(idx), rng.randint(1, 3))):
        lines[i] = b"\t" + lines[i][2:]
    return _join(lines), "tabs for indentation"


def m_truncate(rng, data):
    pos = rng.randrange(len(data) + 1) if data else 0
    return data[:pos], f"truncate at byte {pos}"


def m_empty(rng, data):
    return rng.choice((b"", b"\n", b"---\n", b"~\n", b"[]\n", b"42\n", b"'just a string'\n", b"--- a\n--- b\n")), "empty or scalar document"


def _bomb(depth: int, name: str = "a") -> list[bytes]:
    out = [f"{name}0: &{name}0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]".encode()]
    for d in range(1, depth + 1):
        refs = ", ".join([f"*{name}{d - 1}"] * 9)
        out.append(f"{name}{d}: &{name}{d} [{refs}]".encode())
    return out


def m_alias_bomb(rng, data):
    depth = rng.randint(9, 10)
    lines = _lines(data)
    pos = rng.choice(("end", "start"))
    if pos == "end":
        lines += _bomb(depth)
    else:
        lines[0:0] = _bomb(depth)
    return _join(lines), f"alias bomb depth {depth} at {pos}"


def m_merge_bomb(rng, data):
    lines = [b"m0: &m0 {a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, i: 9}"]
    for d in range(1, 10):
        refs = ", ".join(f"k{j}: *m{d - 1}" for j in range(9))
        lines.append(f"m{d}: &m{d} {{{refs}}}".encode())
    return data + b"\n" + _join(lines) + b"\n", "merge/alias mapping bomb depth 9"


def m_deep_nesting(rng, data):
    depth = rng.choice((50, 1000, 100_000))
    return data + b"\ndeep: " + b"[" * depth + b"]" * depth + b"\n", f"nesting depth {depth}"


def m_yaml_payload(rng, data):
    lines = _lines(data)
    i = _pick_line(rng, lines, rb"^\s*(?:- )?[A-Za-z_][\w-]*: \S")
    payload = rng.choice(YAML_CODE_PAYLOADS).encode()
    if i is None:
        lines.append(b"x: " + payload)
        return _join(lines), f"append yaml payload {payload.decode()}"
    key_end = lines[i].index(b": ") + 2
    lines[i] = lines[i][:key_end] + payload
    return _join(lines), f"line {i + 1}: value -> {payload.decode()}"


def m_jinja(rng, data):
    payload = rng.choice(JINJA_PAYLOADS).encode()
    lines = _lines(data)
    # inside a quoted YAML value, or a plain line of Markdown
    i = _pick_line(rng, lines, rb'(text|ja|en|label|title): ')
    if i is not None and rng.random() < 0.7:
        head = lines[i][: lines[i].index(b": ") + 2]
        lines[i] = head + b'"' + payload.replace(b'"', b"'") + b'"'
        return _join(lines), f"line {i + 1}: jinja {payload.decode()}"
    i = rng.randrange(len(lines) + 1)
    lines.insert(i, payload)
    return _join(lines), f"line {i + 1}: jinja line {payload.decode()}"


def m_long_string(rng, data):
    lines = _lines(data)
    i = _pick_line(rng, lines, rb"^\s*(?:- )?[A-Za-z_][\w-]*: \S")
    if i is None:
        return data, "long-string: none"
    n = rng.choice((300, 5000, 200_000, 3_000_000))
    filler = rng.choice(("x", "あ", "W", "x " * 1, "\u0301"))
    key_end = lines[i].index(b": ") + 2
    lines[i] = lines[i][:key_end] + b'"' + (filler * n).encode() + b'"'
    return _join(lines), f"line {i + 1}: value -> {n} x {filler!r}"


def m_bad_id(rng, data):
    lines = _lines(data)
    i = _pick_line(rng, lines, rb"^\s*(?:- )?(?:- )?(id|[A-Za-z_]+_id): ")
    if i is None:
        i = _pick_line(rng, lines, rb"^\s*(?:- )?(id|[A-Za-z_][\w]*):")
        if i is None:
            return data, "bad-id: none"
    bad = rng.choice(BAD_IDS)
    key_end = lines[i].index(b":") + 1
    lines[i] = lines[i][:key_end] + b" " + json.dumps(bad).encode()
    return _join(lines), f"line {i + 1}: id -> {bad[:40]!r}"


def m_card_size(rng, data):
    size = rng.choice(BAD_SIZES)
    if b"card_size:" in data:
        return re.sub(rb"card_size:.*", b"card_size: " + json.dumps(size).encode(), data, count=1), f"card_size {size!r}"
    return data + b"\ncard_size: " + json.dumps(size).encode() + b"\n", f"card_size {size!r}"


def m_id_format(rng, data):
    fmt = rng.choice(BAD_ID_FORMATS)
    if b"id_format:" in data:
        return re.sub(rb"id_format:.*", b"id_format: " + json.dumps(fmt).encode(), data, count=1), f"id_format {fmt[:40]!r}"
    return data + b"\nid_format: " + json.dumps(fmt).encode() + b"\n", f"id_format {fmt[:40]!r}"


def m_players(rng, data):
    new = rng.choice(("{min: 1, max: 1000000}", "{min: 0, max: 0}", "{min: 5, max: 2}", "{min: -1, max: 4}",
                      "{max: 4}", "4", "{min: 1000000000000, max: 1000000000000}", "[3, 4]", "{min: 3, max: 4, x: 1}"))
    if b"players:" in data:
        return re.sub(rb"^players:.*", b"players: " + new.encode(), data, count=1, flags=re.M), f"players {new}"
    return data, "players: none"


def m_count(rng, data):
    lines = _lines(data)
    i = _pick_line(rng, lines, rb"^\s*(?:- )?(count|copies|total|decks):")
    if i is None:
        return data, "count: none"
    new = rng.choice(("1000000000000", "1000000", "2001", "0", "-1", "1.5", '"3"', "null"))
    key_end = lines[i].index(b":") + 1
    lines[i] = lines[i][:key_end] + b" " + new.encode()
    return _join(lines), f"line {i + 1}: count -> {new}"


def m_include(rng, data):
    target = rng.choice(("/etc/passwd", "../x.yaml", "../../../../../../etc/passwd", "../cards.yaml", "~/.bashrc",
                         "common/../../../../etc/passwd", "/proc/self/environ", "C:\\Windows\\win.ini",
                         "common/backs.yaml\x00.txt", "", "common", "/dev/zero", "/dev/urandom"))
    line = b"include: [" + json.dumps(target).encode() + b"]"
    if re.search(rb"^include:.*$", data, re.M):
        return re.sub(rb"^include:.*$", line.replace(b"\\", b"\\\\"), data, count=1, flags=re.M), f"include {target!r}"
    return line + b"\n" + data, f"include {target!r}"


def m_id_clash(rng, data):
    """Give two card types ids that clash as file names (P/1 vs P_1, P1 vs p1)."""
    lines = _lines(data)
    idx = [i for i, line in enumerate(lines) if re.match(rb"^\s*- id: ", line)]
    if len(idx) < 2:
        return data, "id-clash: none"
    a, b = rng.sample(idx, 2)
    pair = rng.choice((("P/1", "P_1"), ("P1", "p1"), ("a.b", "a_b"), ("x", "x"), ("CON", "con"), ("A-1", "A_1")))
    for i, new in ((a, pair[0]), (b, pair[1])):
        lines[i] = lines[i][: lines[i].index(b"id:") + 3] + b" " + json.dumps(new).encode()
    return _join(lines), f"lines {a + 1},{b + 1}: ids {pair}"


GENERIC = (m_delete_line, m_duplicate_line, m_swap_lines, m_number, m_number, m_remove_key, m_remove_key,
           m_control, m_control_in_comment, m_invalid_utf8, m_bom, m_crlf, m_tabs, m_truncate, m_empty,
           m_alias_bomb, m_merge_bomb, m_deep_nesting, m_yaml_payload, m_jinja, m_long_string, m_bad_id)
SPECIFIC = {
    "game.yaml": (m_card_size, m_id_format, m_players, m_number, m_remove_key),
    "cards.yaml": (m_count, m_id_clash, m_bad_id, m_long_string),
    "mapping.yaml": (m_remove_key, m_number),
    "rules.ja.md": (m_jinja, m_jinja, m_invalid_utf8),
    "rules.en.md": (m_jinja, m_jinja, m_invalid_utf8),
    "templates/layout.yaml": (m_include, m_include, m_jinja, m_alias_bomb),
    "templates/playtest.yaml": (m_jinja, m_count),
    "templates/report.yaml": (m_remove_key, m_number),
}


def make_case(game: str, seed: int | None, dest: Path) -> tuple[Case, Path]:
    """Copy `game` into `dest/<game>` and mutate it deterministically; return the case and folder.

    Seed None: the unmutated game (the harness's own control)."""
    rng = random.Random(f"{game}:{seed}")
    case = Case(game, seed if seed is not None else -1)
    folder = dest / game
    shutil.copytree(SOURCES.get(game, REPO / "card_data" / game), folder)
    if seed is None:
        return case, folder
    files = list(GAME_FILES)
    if rng.random() < 0.4 and not (folder / "templates").exists():
        (folder / "templates").mkdir()
        for name in TEMPLATE_FILES:
            source = REPO / "templates" / game / name
            if source.is_file():
                shutil.copyfile(source, folder / "templates" / name)
                files.append(f"templates/{name}")
        case.mutations.append("copied templates/")
    if (folder / "templates" / "layout.yaml").exists() and "templates/layout.yaml" not in files:
        files.append("templates/layout.yaml")
    if rng.random() < (2 * SURFACE_SHARE if game in SOURCES else SURFACE_SHARE):  # on the pristine files, which it may read
        case.mutations.append(fuzz_surfaces.mutate(rng, folder))
    files = [name for name in files if (folder / name).exists()]
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3))):
        name = rng.choice(files)
        path = folder / name
        ops = GENERIC + SPECIFIC.get(name, ()) * 2
        op = rng.choice(ops)
        data = path.read_bytes() if path.exists() else b""
        new, what = op(rng, data)
        if rng.random() < 0.08:
            path.unlink(missing_ok=True)
            case.mutations.append(f"{name}: deleted")
            continue
        path.write_bytes(new)
        case.mutations.append(f"{name}: {what}")
    return case, folder


# ---------------------------------------------------------------------------------------------
# Running commands with a hard time limit.

@dataclass
class Step:
    args: list[str]
    exit_code: int | None  # None: killed (time limit)
    output: str
    exception: str | None  # formatted traceback of an exception that escaped the command
    seconds: float

    @property
    def command(self) -> str:
        return "cardgen " + " ".join(self.args)


@dataclass
class Finding:
    case: str
    kind: str  # traceback, hang, exit-code, check-pass-build-fail, canary, wrote-outside, leak, harness
    command: str
    detail: str
    signature: str
    mutations: list[str] = field(default_factory=list)

    def render(self, lines: int = 12) -> str:
        tail = "\n".join(self.detail.rstrip().splitlines()[-lines:])
        muts = "; ".join(self.mutations)
        return f"[{self.case}] {self.kind}: {self.command}\n  mutations: {muts}\n" + _indent(tail, "    ")


def _indent(text: str, pad: str) -> str:
    return "\n".join(pad + line for line in text.splitlines())


def warm_up() -> None:
    """Import what the commands import, so forked children start warm."""
    try:
        import cardgen.cli  # noqa: F401
        import cardgen.build  # noqa: F401
        import cardgen.checks  # noqa: F401
        import cardgen.render.documents.rulebook  # noqa: F401
        import cardgen.render.print.sheet  # noqa: F401
        import cardgen.render.documents.playtest  # noqa: F401
        import cardgen.render.documents.standard_sheet  # noqa: F401
        import cardgen.render.print.printshop  # noqa: F401
        import cardgen.render.cards.raster  # noqa: F401
    except Exception:  # a broken import shows up as a finding in every case instead
        pass


def _child_run(commands: list[list[str]], cwd: Path, result_path: Path, stray_path: Path, limit: float,
               stop_unless_zero: bool, env: dict[str, str] | None) -> None:
    """In the forked child: run the commands one by one through click's CliRunner."""
    import faulthandler

    stray = os.open(stray_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(stray, 1)
    os.dup2(stray, 2)
    os.setsid()
    faulthandler.dump_traceback_later(limit, exit=True, file=stray)
    _limit_memory()  # 3 GB: a memory bomb ends as MemoryError (a finding), not as a swapping machine
    os.chdir(cwd)
    steps = []
    try:
        from click.testing import CliRunner

        from cardgen.cli import cli

        for args in commands:
            started = time.monotonic()
            runner = CliRunner(env=env)
            result = runner.invoke(cli, args, catch_exceptions=True)
            exc = None
            if result.exception is not None and not isinstance(result.exception, SystemExit):
                exc = "".join(traceback.format_exception(*result.exc_info))
            code = result.exit_code
            steps.append(asdict(Step(args, code, result.output[-20000:], exc, time.monotonic() - started)))
            Path(result_path).write_text(json.dumps(steps))
            if stop_unless_zero and code != 0:
                break
    except BaseException:
        steps.append(asdict(Step(["<harness>"], None, "", traceback.format_exc(), 0.0)))
        Path(result_path).write_text(json.dumps(steps))


def run_commands(commands: list[list[str]], cwd: Path, limit: float = 20.0, mode: str = "fork",
                 stop_unless_zero: bool = True, env: dict[str, str] | None = None) -> tuple[list[Step], bool, str]:
    """Run cardgen commands (argument lists) in `cwd` within `limit` seconds in all.

    Returns (steps, timed_out, stray) where stray is what the child wrote to its real stdout and
    stderr (for a hang: the faulthandler stack of every thread).
    """
    harness = Path(tempfile.mkdtemp(prefix="cardgen-harness-"))
    try:
        if mode == "subprocess":
            return _run_subprocess(commands, cwd, limit, stop_unless_zero, env)
        result_path, stray_path = harness / "result.json", harness / "stray.txt"
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # child
            try:
                _child_run(commands, cwd, result_path, stray_path, limit, stop_unless_zero, env)
            finally:
                os._exit(0)
        deadline = time.monotonic() + limit + 5
        timed_out = False
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                timed_out = True
                _kill_group(pid)
                os.waitpid(pid, 0)
                break
            time.sleep(0.01)
        steps = [Step(**s) for s in json.loads(result_path.read_text())] if result_path.exists() else []
        stray = stray_path.read_text(errors="replace") if stray_path.exists() else ""
        if "Timeout (" in stray and "Thread" in stray:  # faulthandler fired: the limit was hit
            timed_out = True
        if not timed_out and len(steps) < len(commands) and not (steps and steps[-1].exit_code != 0 and stop_unless_zero):
            # the child died without finishing (a crash in C code, os._exit, the memory limit)
            steps.append(Step(["<child died>"], None, stray[-4000:], f"child ended early: {status}\n{stray[-4000:]}", 0.0))
        return steps, timed_out, stray
    finally:
        shutil.rmtree(harness, ignore_errors=True)


def _kill_group(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except OSError:
            pass


def _limit_memory() -> None:
    import resource

    try:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
    except (ValueError, OSError):
        pass


def _run_subprocess(commands, cwd, limit, stop_unless_zero, env):
    steps: list[Step] = []
    deadline = time.monotonic() + limit
    full_env = {**os.environ, **(env or {})}
    for args in commands:
        started = time.monotonic()
        try:
            proc = subprocess.run([sys.executable, "-m", "cardgen", *args], cwd=cwd, env=full_env,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                  timeout=max(1.0, deadline - started), start_new_session=True,
                                  preexec_fn=_limit_memory)
        except subprocess.TimeoutExpired as exc:
            out = (exc.output or b"").decode("utf-8", "replace")
            steps.append(Step(args, None, out[-20000:], None, time.monotonic() - started))
            return steps, True, out
        out = proc.stdout.decode("utf-8", "replace")
        exc_text = out[out.index("Traceback (most recent call last)"):] if "Traceback (most recent call last)" in out else None
        steps.append(Step(args, proc.returncode, out[-20000:], exc_text, time.monotonic() - started))
        if stop_unless_zero and proc.returncode != 0:
            break
    return steps, False, ""


# ---------------------------------------------------------------------------------------------
# Snapshots: nothing may be written outside --out.

def snapshot(*roots: Path, exclude: tuple[Path, ...] = ()) -> dict[str, tuple[int, int]]:
    seen: dict[str, tuple[int, int]] = {}
    excluded = {str(p.resolve()) for p in exclude}
    for root in roots:
        if not root.exists():
            continue
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in excluded]
            for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
                p = os.path.join(dirpath, name)
                try:
                    st = os.lstat(p)
                except OSError:
                    continue
                seen[p] = (st.st_size, st.st_mtime_ns)
            for d in dirnames:
                seen[os.path.join(dirpath, d) + "/"] = (0, 0)
    return seen


def changed(before: dict, after: dict) -> list[str]:
    out = []
    for p, v in after.items():
        if p not in before:
            out.append(f"created {p}")
        elif before[p] != v and not p.endswith("/"):
            out.append(f"modified {p}")
    out += [f"deleted {p}" for p in before if p not in after]
    return sorted(out)


def find_canaries(*roots: Path) -> list[str]:
    hits = []
    for root in roots:
        for dirpath, _dirs, files in os.walk(root):
            hits += [os.path.join(dirpath, f) for f in files if f == CANARY]
    return hits


def outputs_text(out_dir: Path) -> str:
    """Everything written under out_dir as text (PDF text is compressed: the check is on names and
    uncompressed streams; messages are checked separately)."""
    chunks = []
    for dirpath, _dirs, files in os.walk(out_dir):
        for f in files:
            try:
                chunks.append(Path(dirpath, f).read_bytes()[:2_000_000].decode("latin-1"))
            except OSError:
                pass
    return "\n".join(chunks)


# ---------------------------------------------------------------------------------------------
# One case.

_FRAME = re.compile(r'File "([^"]+)", line (\d+),? in (\S+)')


def exception_signature(text: str) -> str:
    """'ValueError at cardgen/load.py:123 in _field_specs' from a traceback or faulthandler dump."""
    frames = _FRAME.findall(text)
    if "most recent call first" in text:  # a faulthandler dump: innermost frame first
        frames = frames[::-1]
    own = [f for f in frames if "/cardgen/" in f[0] and "/tests/" not in f[0]]
    frame = (own or frames or [("?", "?", "?")])[-1]
    where = f"{_short(frame[0])}:{frame[1]} in {frame[2]}"
    if frames and frames[-1] is not frame and frames[-1][0].startswith("<") and not frames[-1][0].startswith("<frozen"):  # in a template
        where = f"{frames[-1][0]}:{frames[-1][1]} via {where}"
    last = [line for line in text.strip().splitlines() if line.strip()]
    exc_type = "?"
    for line in reversed(last):
        m = re.match(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Iteration|Fault)?)(:|$)", line)
        if m and not line.startswith(" "):
            exc_type = m.group(1)
            break
    return f"{exc_type} at {where}"


def _short(path: str) -> str:
    i = path.find("/cardgen/")
    return path[i + 1:] if i >= 0 else path


def _normalise(message: str) -> str:
    message = re.sub(r"/[\w./+-]+", "<path>", message)
    message = re.sub(r"\d+", "#", message)
    return message[:160]


def run_case(game: str, seed: int | None, slow: bool = False, limit: float | None = None, mode: str = "fork",
             keep: Path | None = None, debug: bool = True) -> tuple[Case, list[Finding], list[Step]]:
    """Make case (game, seed), run check then build, and return what broke the rules."""
    base = Path(tempfile.mkdtemp(prefix=f"cardgen-fuzz-{game}-{seed}-")) if keep is None else keep
    try:
        base.mkdir(parents=True, exist_ok=True)
        (base / "games").mkdir(exist_ok=True)
        cwd = base / "cwd"
        cwd.mkdir(exist_ok=True)
        out = base / "out"
        case, folder = make_case(game, seed, base / "games")
        outputs = SLOW_OUTPUTS if slow else FAST_OUTPUTS
        check_args = ["check", str(folder), "--no-simulate"]
        build_args = ["build", str(folder), "--out", str(out)]
        for o in outputs:
            build_args += ["--only", o]
        limit = limit if limit is not None else (90.0 if slow else 20.0)
        before = snapshot(base, REPO / "card_data", REPO / "templates", exclude=(out,))
        # CARDGEN_DEBUG=1: an internal error (exit 3) re-raises, so the finding has its traceback
        steps, timed_out, stray = run_commands([check_args, build_args], cwd, limit=limit, mode=mode,
                                               env={"CARDGEN_DEBUG": "1"} if debug else None)
        after = snapshot(base, REPO / "card_data", REPO / "templates", exclude=(out,))
        findings = judge(case, steps, timed_out, stray, before, after, base, out)
        return case, findings, steps
    finally:
        if keep is None:
            shutil.rmtree(base, ignore_errors=True)


def run_case_pristine(game: str, slow: bool = False) -> tuple[Case, list[Finding], list[Step]]:
    return run_case(game, None, slow=slow)  # type: ignore[arg-type]


def judge(case: Case, steps: list[Step], timed_out: bool, stray: str, before: dict, after: dict,
          base: Path, out: Path) -> list[Finding]:
    found: list[Finding] = []

    def add(kind, command, detail, signature):
        found.append(Finding(case.id, kind, command, detail, signature, list(case.mutations)))

    for step in steps:
        text = step.output
        if step.exception:
            add("traceback", step.command, step.exception, exception_signature(step.exception))
        elif "Traceback (most recent call last)" in text:
            tb = text[text.index("Traceback (most recent call last)"):]
            add("traceback", step.command, tb, exception_signature(tb))
        elif step.exit_code == 3 and "internal error" in text:
            first = next((line for line in text.splitlines() if line.startswith("internal error")), "")
            add("internal-error", step.command, text, _normalise(first))
        elif step.exit_code is not None and step.exit_code not in EXIT_CODES:
            add("exit-code", step.command, text, f"exit {step.exit_code}")
        for marker in OUTSIDE_MARKERS:
            if marker in text:
                add("leak", step.command, text, f"outside text {marker!r} in the output")
                break
        internal = _INTERNALS.search(text)
        if internal:
            add("unreadable", step.command, text, f"a message shows internals: {_normalise(internal.group())}")
    if timed_out:  # the result file holds the steps that finished: the next one hung
        hung = "build" if steps and steps[-1].exit_code == 0 else "check"
        where = exception_signature(stray) if _FRAME.search(stray) else "no stack"
        add("hang", f"cardgen {hung} (time limit)", _stack_head(stray), f"hang at {where}")
    if len(steps) >= 2 and steps[0].exit_code == 0 and steps[1].exit_code not in (0, None) and not steps[1].exception:
        first = next((line for line in steps[1].output.splitlines() if line.startswith("error")), steps[1].output[-200:])
        add("check-pass-build-fail", steps[1].command, steps[1].output, f"build refused: {_normalise(first)}")
    canaries = find_canaries(base, Path(os.getcwd()))
    if canaries:
        add("canary", "check/build", "\n".join(canaries), "code ran: CANARY created")
        for c in canaries:
            Path(c).unlink(missing_ok=True)
    diff = changed(before, after)
    if diff:
        add("wrote-outside", "check/build", "\n".join(diff[:20]), "wrote outside --out: " + _normalise(diff[0].split(" ")[0]))
    if out.exists():
        leaked = [m for m in OUTSIDE_MARKERS if m in outputs_text(out)]
        if leaked:
            add("leak", "build", f"outputs contain {leaked}", "outside text in the outputs")
    return found


# What a message must never show a user: Python object reprs, C source positions, zipfile's reprs.
_INTERNALS = re.compile(r"<[\w.]+ object at 0x[0-9a-f]+>|<ZipInfo filename=|\bsrc/\w+\.c:\d+|_fp_str")


def _stack_head(stray: str) -> str:
    """The main thread's innermost frames of a faulthandler dump, innermost last (as in a traceback)."""
    lines = stray.splitlines()
    start = next((i for i, line in enumerate(lines) if "most recent call first" in line), None)
    if start is None:
        return stray[-3000:] or "(no stack)"
    frames = []
    for line in lines[start + 1:]:
        if not line.startswith("  File"):
            break
        frames.append(line)
    return "\n".join(["Timeout: innermost frame last"] + frames[:14][::-1])


def group(findings: list[Finding]) -> dict[str, list[Finding]]:
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f"{f.kind}: {f.signature}", []).append(f)
    return dict(sorted(groups.items(), key=lambda kv: -len(kv[1])))


def report(findings: list[Finding], examples: int = 1, lines: int = 14) -> str:
    parts = []
    for key, items in group(findings).items():
        cases = ", ".join(f.case for f in items[:12]) + (" ..." if len(items) > 12 else "")
        parts.append(f"=== {len(items)} x {key}\n  cases: {cases}")
        for f in items[:examples]:
            parts.append(f.render(lines))
    return "\n".join(parts)


def repro(case_id: str) -> str:
    return f"python benchmarks/fuzz_game_folders.py --case {case_id} --keep /tmp/{case_id}"


def _run_one(job: tuple[str, int, bool, str]) -> tuple[str, list[Finding], float, list[int | None]]:
    game, seed, slow, mode = job
    started = time.monotonic()
    case, findings, steps = run_any(game, seed, slow=slow, mode=mode)
    return case.id, findings, time.monotonic() - started, [s.exit_code for s in steps]


def cases(count: int, start: int = 0, games: tuple[str, ...] = GAMES) -> list[tuple[str, int]]:
    """`count` cases spread over the games: (game, seed) for seeds start, start+1, ..."""
    out = []
    seed = start
    while len(out) < count:
        for game in games:
            if len(out) < count:
                out.append((game, seed))
        seed += 1
    return out


def run_many(jobs: list[tuple[str, int]], workers: int = 2, slow: bool = False, mode: str = "fork",
             progress=None) -> tuple[list[Finding], dict]:
    """Run cases in `workers` forked worker processes; return the findings and statistics."""
    import concurrent.futures
    import multiprocessing

    warm_up()
    stats = {"cases": 0, "check_ok": 0, "build_ok": 0, "seconds": 0.0, "slowest": (0.0, "")}
    findings: list[Finding] = []
    work = [(g, s, slow, mode) for g, s in jobs]
    if workers <= 1:
        results = map(_run_one, work)
        pool = None
    else:
        pool = concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
        results = pool.map(_run_one, work, chunksize=1)
    try:
        for case_id, found, seconds, codes in results:
            stats["cases"] += 1
            stats["check_ok"] += bool(codes and codes[0] == 0)
            stats["build_ok"] += bool(len(codes) > 1 and codes[1] == 0)
            stats["seconds"] += seconds
            if seconds > stats["slowest"][0]:
                stats["slowest"] = (seconds, case_id)
            findings += found
            if progress:
                progress(case_id, found, seconds)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    return findings, stats


# ---------------------------------------------------------------------------------------------
# Beyond the game folder (issue 26): a hostile build cache beside the outputs, and hostile
# command-line options (--scheduler, --vary).  Case ids: `cache:<game>-<seed>`, `options-<seed>`.
#
# A cache case builds the pristine game without the cache (the reference) and with it, damages
# OUT/.cache/<game>/ and png/ with seeded mutations (swapped, forged, foreign-signed, truncated,
# linked entries ...), and builds again: the rebuild must exit 0 with outputs byte-identical to
# the reference, whatever the cache held.  An options case runs one `simulate`/`sweep` with a
# hostile option: exit 0, 1 or 2 within the time limit, never a traceback.

CACHE_OUTPUTS = ("sheets", "rules", "tuckbox", "png")
CACHE_GAMES = ("alice", "llll")
SURFACES = tuple(f"cache:{g}" for g in CACHE_GAMES) + ("options",)
_OLD_MAGIC = b"cardgen-cache-1\n"
_HEADER = 48  # format line (16 bytes) and checksum or tag (32)


def _entries(cache_dir: Path) -> list[Path]:
    return sorted(p for p in cache_dir.iterdir() if p.is_file() and not p.is_symlink()) if cache_dir.is_dir() else []


def _payload(path: Path) -> bytes:
    return path.read_bytes()[_HEADER:]


def _sign_foreign(path: Path, data: bytes, rng: random.Random) -> None:
    """`data` signed as a valid entry under another user's secret."""
    from cardgen.cache import Cache

    Cache(path.parent, secret=rng.randbytes(32)).put(path.name, data)


def cm_swap(rng, cache_dir, png_dir):
    entries = _entries(cache_dir)
    if len(entries) < 2:
        return "swap: too few entries"
    chosen = rng.sample(entries, rng.randint(2, len(entries)))
    blobs = [p.read_bytes() for p in chosen]
    for path, blob in zip(chosen, blobs[1:] + blobs[:1]):
        path.write_bytes(blob)
    return f"swapped {len(chosen)} entries in a ring"


def cm_forge(rng, cache_dir, png_dir):
    entries = _entries(cache_dir)
    if len(entries) < 2:
        return "forge: too few entries"
    target, source = rng.sample(entries, 2)
    data = _payload(source)
    how = rng.choice(("old checksum", "new header, plain checksum", "foreign secret"))
    if how == "old checksum":
        target.write_bytes(_OLD_MAGIC + hashlib.sha256(data).digest() + data)
    elif how == "new header, plain checksum":
        target.write_bytes(target.read_bytes()[:16] + hashlib.sha256(data).digest() + data)
    else:
        _sign_foreign(target, data, rng)
    return f"forged {target.name[:8]} with {source.name[:8]}'s data ({how})"


def cm_foreign_folder(rng, cache_dir, png_dir):
    """Every entry re-signed under another secret, each holding another's data: a shipped cache."""
    entries = _entries(cache_dir)
    datas = [_payload(p) for p in entries]
    secret_rng = random.Random(rng.random())
    for path, data in zip(entries, datas[1:] + datas[:1]):
        _sign_foreign(path, data, secret_rng)
    return f"the whole cache signed by another user ({len(entries)} entries)"


def cm_png_index(rng, cache_dir, png_dir):
    """Two PNG files swapped and the index of their digests forged to match."""
    pngs = sorted(png_dir.glob("*.png")) if png_dir.is_dir() else []
    if len(pngs) < 2:
        return "png index: too few PNG files"
    one, two = rng.sample(pngs, 2)
    a, b = one.read_bytes(), two.read_bytes()
    one.write_bytes(b)
    two.write_bytes(a)
    da, db = hashlib.sha256(a).hexdigest(), hashlib.sha256(b).hexdigest()
    for path in _entries(cache_dir):
        data = _payload(path)
        if not (data.startswith(b"{") and da.encode() in data):
            continue
        try:  # an entry may start with a JSON header and go on in binary: only a whole JSON object is the index
            index = json.loads(data)
        except ValueError:
            continue
        if isinstance(index, dict):
            index = {k: {da: db, db: da}.get(v, v) for k, v in index.items()}
            forged = json.dumps(index, sort_keys=True).encode()
            if rng.random() < 0.5:
                path.write_bytes(_OLD_MAGIC + hashlib.sha256(forged).digest() + forged)
            else:
                _sign_foreign(path, forged, rng)
    return f"swapped {one.name} and {two.name}, index forged"


def cm_damage(rng, cache_dir, png_dir):
    entries = _entries(cache_dir)
    if not entries:
        return "damage: no entries"
    path = rng.choice(entries)
    blob = path.read_bytes()
    how = rng.choice(("flip", "truncate", "random", "empty", "header only", "huge"))
    if how == "flip" and blob:
        i = rng.randrange(len(blob))
        blob = blob[:i] + bytes([blob[i] ^ 0xFF]) + blob[i + 1:]
    elif how == "truncate":
        blob = blob[:rng.randrange(len(blob) + 1)]
    elif how == "random":
        blob = rng.randbytes(rng.choice((1, 47, 48, 49, 4096)))
    elif how == "empty":
        blob = b""
    elif how == "header only":
        blob = blob[:_HEADER]
    elif how == "huge":
        with open(path, "wb") as handle:  # sparse: bigger than an entry may be, without using the disk
            handle.truncate(300 << 20)
        return f"{path.name[:8]}: huge (sparse)"
    path.write_bytes(blob)
    return f"{path.name[:8]}: {how}"


def cm_plant(rng, cache_dir, png_dir):
    """Something that is not an entry where an entry is, or beside the entries."""
    entries = _entries(cache_dir)
    how = rng.choice(("link to /etc/passwd", "link to another entry", "folder", "fifo", "junk name", "cache is a link"))
    if how == "cache is a link":
        elsewhere = cache_dir.parent / "elsewhere"
        if cache_dir.is_dir() and not cache_dir.is_symlink():
            cache_dir.rename(elsewhere)
            cache_dir.symlink_to(elsewhere)
        return how
    if how == "junk name":
        (cache_dir / rng.choice(("..x", ".tmp", "A" * 64, "0" * 63, "x" * 255))).write_bytes(rng.randbytes(64))
        return how
    if not entries:
        return f"{how}: no entries"
    path = rng.choice(entries)
    path.unlink()
    if how == "link to /etc/passwd":
        path.symlink_to("/etc/passwd")
    elif how == "link to another entry":
        others = [e for e in entries if e != path]
        path.symlink_to(others[0] if others else "/etc/passwd")
    elif how == "folder":
        path.mkdir()
        (path / "inside").write_bytes(b"x")
    elif how == "fifo" and hasattr(os, "mkfifo"):
        os.mkfifo(path)
    return f"{path.name[:8]}: {how}"


CACHE_MUTATIONS = (cm_swap, cm_swap, cm_forge, cm_forge, cm_forge, cm_foreign_folder, cm_png_index, cm_png_index,
                   cm_damage, cm_damage, cm_plant)

_reference_outputs: dict[str, dict[str, bytes]] = {}  # per worker process: the no-cache build of each game


def _output_files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()} \
        if folder.is_dir() else {}


def run_cache_case(game: str, seed: int, mode: str = "fork", keep: Path | None = None,
                   limit: float = 120.0) -> tuple[Case, list[Finding], list[Step]]:
    """Build, damage the cache with seeded mutations, build again; the rebuild must exit 0 and
    write exactly what a build without the cache writes."""
    rng = random.Random(f"cache:{game}:{seed}")
    case = Case(f"cache:{game}", seed)
    base = Path(tempfile.mkdtemp(prefix=f"cardgen-fuzz-cache-{game}-{seed}-")) if keep is None else keep
    try:
        base.mkdir(parents=True, exist_ok=True)
        cwd = base / "cwd"
        cwd.mkdir(exist_ok=True)
        folder = base / "games" / game
        if not folder.exists():
            shutil.copytree(REPO / "card_data" / game, folder)
        out, ref = base / "out", base / "ref"
        env = {"CARDGEN_DEBUG": "1", "CARDGEN_CACHE_HOME": str(base / "home")}
        build = ["build", str(folder)] + [a for o in CACHE_OUTPUTS for a in ("--only", o)]
        first = [build + ["--out", str(out)]]
        if game not in _reference_outputs:
            first.insert(0, build + ["--out", str(ref), "--no-cache"])
        before = snapshot(base / "games", REPO / "card_data", REPO / "templates")
        steps, timed_out, stray = run_commands(first, cwd, limit=limit, mode=mode, env=env)
        if game not in _reference_outputs and steps and steps[0].exit_code == 0:
            _reference_outputs[game] = _output_files(ref / game)
        findings = judge(case, steps, timed_out, stray, {}, {}, base, out)
        if findings or any(s.exit_code != 0 for s in steps) or len(steps) < len(first):
            if not findings:
                findings.append(Finding(case.id, "harness", "build", steps[-1].output if steps else stray,
                                        "the pristine game did not build", list(case.mutations)))
            return case, findings, steps
        for _ in range(rng.choice((1, 1, 2, 3))):
            op = rng.choice(CACHE_MUTATIONS)
            case.mutations.append(op(rng, out / ".cache" / game, out / game / "png"))
        again, timed_out, stray = run_commands([build + ["--out", str(out)]], cwd, limit=limit, mode=mode, env=env)
        after = snapshot(base / "games", REPO / "card_data", REPO / "templates")
        findings = judge(case, again, timed_out, stray, before, after, base, out / game)
        if again and again[0].exit_code not in (0, None) and not findings:
            findings.append(Finding(case.id, "cache-build-fail", again[0].command, again[0].output,
                                    "a damaged cache failed the build: " + _normalise(again[0].output[-160:]),
                                    list(case.mutations)))
        elif again and again[0].exit_code == 0:
            got, want = _output_files(out / game), _reference_outputs.get(game, {})
            if got != want:
                differ = sorted(k for k in set(got) | set(want) if got.get(k) != want.get(k))
                findings.append(Finding(case.id, "cache-trusted", again[0].command, "differ: " + ", ".join(differ[:10]),
                                        "a rebuild wrote what a damaged cache held", list(case.mutations)))
        return case, findings, steps + again
    finally:
        if keep is None:
            shutil.rmtree(base, ignore_errors=True)


# Scheduler addresses: malformed (a usage error), and well formed but with nothing, or nothing
# Dask, behind them (an error within Dask's connect timeout, set short for the fuzzer).
SCHEDULERS = ("foo", "file:///etc/passwd", "tcp://[::1", "tcp://127.0.0.1:99999", "ucx://127.0.0.1:8786", "", " ",
              "tcp://127.0.0.1:0", "tcp://" + "a" * 300 + ":1", "tcp://a..b:1", "inproc://x", "tcp://127.0.0.1:8786/x",
              "TCP://127.0.0.1:1", "tcp://127.0.0.1:１２", "\x00tcp://127.0.0.1:1", "tcp://127.0.0.1:1", "tcp://[::1]:1",
              "tls://127.0.0.1:1", "tcp://localhost:1", "tcp://-x:1", "tcp://127.0.0.1:-1", "tcp://[zz]:1",
              "tcp://127.0.0.1:" + "9" * 400, "tcp://" + "1." * 2000 + "1:1")
VARY_PATHS = {"alice": ("cards.red_place.count", "memo_limit", "cards.alice_red.fame", "cards.red_place.copies.1.x",
                        "cards..count", "cards.red_place", "parameters.memo_limit", "x" * 500, "日本.count", "a=b")}
HUGE = "9" * 400


def _vary_values(rng: random.Random) -> str:
    """A --vary value text: small and valid, or hostile (huge, long, malformed)."""
    small = (f"{rng.randint(-3, 3)}..{rng.randint(0, 5)}", f"0..1:{rng.choice(('0.5', '0.25', '0', '-1', '1e-9'))}",
             ",".join(str(rng.randint(-5, 9)) for _ in range(rng.randint(1, 4))), "true,false", "1,,2", "..", "1..",
             "nan..inf", "1e5..1e6", "½", "\x00", "1..2:", "0x10..0x20", "1_000..1_001", "-0..0", " 1 .. 3 ")
    hostile = (f"0..{HUGE}", f"0.1..{HUGE}:0.5", f"{HUGE}..{HUGE}", f"-{HUGE}..0", f"0..1:0.{'0' * 400}1",
               ",".join(str(i) for i in range(rng.choice((1001, 20_000)))), HUGE, f"{HUGE}.5", "1e308,1e309",
               "0..1000000", "," * 5000, "1" * 5000, "1..2:" + HUGE)
    return rng.choice(small if rng.random() < 0.5 else hostile)


def option_args(rng: random.Random, out: Path) -> tuple[list[str], str]:
    """One seeded `cardgen simulate|sweep` command with a hostile --scheduler or --vary."""
    if rng.random() < 0.4:
        address = rng.choice(SCHEDULERS)
        if rng.random() < 0.3:  # a random edit of a well-formed address
            chars = list("tcp://127.0.0.1:1")
            i = rng.randrange(len(chars))
            chars[i:i + 1] = rng.choice(([], [chr(rng.randint(0, 0x2FF))], ["::"], ["]"], ["%"]))
            address = "".join(chars)
        command = rng.choice((["simulate", "alice", "--games", "2"],
                              ["sweep", "alice", "--vary", "memo_limit=2..3", "--games", "1", "--no-report", "--out", str(out)]))
        return command + ["--executor", "dask", "--scheduler", address], f"--scheduler {address[:60]!r}"
    path = rng.choice(VARY_PATHS["alice"])
    vary = f"{path}={_vary_values(rng)}"
    args = ["sweep", "alice", "--vary", vary, "--games", "1", "--workers", "1", "--out", str(out)]
    if rng.random() < 0.3:
        args += ["--vary", f"cards.alice_black.count={_vary_values(rng)}"]
    if rng.random() < 0.2:
        args += ["--samples", rng.choice(("1", "3", "0", "100000", HUGE))]
    if rng.random() < 0.8:
        args.append("--no-report")
    return args, f"--vary {vary[:60]!r}"


def run_option_case(seed: int, mode: str = "fork", keep: Path | None = None,
                    limit: float = 20.0) -> tuple[Case, list[Finding], list[Step]]:
    rng = random.Random(f"options:{seed}")
    case = Case("options", seed)
    base = Path(tempfile.mkdtemp(prefix=f"cardgen-fuzz-options-{seed}-")) if keep is None else keep
    try:
        cwd = base / "cwd"
        cwd.mkdir(parents=True, exist_ok=True)
        args, what = option_args(rng, base / "out")
        case.mutations.append(what)
        env = {"CARDGEN_DEBUG": "1", "CARDGEN_CACHE_HOME": str(base / "home"),
               "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "3s"}
        before = snapshot(REPO / "card_data", REPO / "templates")
        steps, timed_out, stray = run_commands([args], cwd, limit=limit, mode=mode, env=env)
        after = snapshot(REPO / "card_data", REPO / "templates")
        return case, judge(case, steps, timed_out, stray, before, after, base, base / "out"), steps
    finally:
        if keep is None:
            shutil.rmtree(base, ignore_errors=True)


def run_any(game: str, seed: int | None, slow: bool = False, mode: str = "fork",
            keep: Path | None = None) -> tuple[Case, list[Finding], list[Step]]:
    """A case of any kind by its name: a bundled game's folder, `cache:<game>` or `options`."""
    if game.startswith("cache:"):
        return run_cache_case(game.split(":", 1)[1], seed or 0, mode=mode, keep=keep)
    if game == "options":
        return run_option_case(seed or 0, mode=mode, keep=keep)
    return run_case(game, seed, slow=slow, mode=mode, keep=keep)
