"""The Japanese text style check behind `cardgen check` and `cardgen check --fix-style`.

Reference: JTF 日本語標準スタイルガイド（翻訳用） 3rd ed. The rules, for every Japanese text a
game prints (its YAML strings, `rules.ja.md`, the Japanese strings of its layout and playtest
templates):

- `width`: digits and Latin letters are half-width (JTF 2.1.8/2.1.9): 「0ポイント」, not 「０ポイント」.
  One width for every game, so the rulebook, the cards and the rulings agree.
- `bracket`: parentheses in a Japanese sentence are full-width (JTF 4.3.1): 「王（K）」, not 「王(K)」.
  A pair counts as Japanese when a Japanese character is inside it or touches it.
- `kana`: no half-width katakana (JTF 2.1.6): 「ｱﾘｽ」 is 「アリス」.
- `ellipsis`: the ellipsis is two three-dot leaders 「……」 (JTF 4.2.4), never 「...」 「・・・」 「···」
  or a single 「…」. English text writes "...": the bundled fonts draw 「…」 centred, Japanese style,
  so an English 「…」 or 「···」 prints as the Japanese one.
- `dash`: the long dash is two horizontal bars 「――」, never an em dash 「—」 or a lone 「―」.

Every finding is a warning at file:line:column. `fix_files` rewrites only the offending
characters of the files inside the game folder, so comments and formatting survive.

Only text that is printed is read: YAML string values (not keys or comments), Markdown outside
Jinja code, and the quoted strings inside Jinja code (`'（K）'`), never a URL or an expression.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

import jaconv
import yaml

from .errors import DataError
from .io import paths
from .io.reader import compose, display_path, read_text
from .model import Game, Location

# Japanese script: kana, CJK ideographs, the iteration mark, full-width punctuation of Japanese.
_JAPANESE = re.compile(r"[\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]")
_JAPANESE_LETTER = re.compile(r"[\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_FULL_ALNUM = re.compile(r"[０-９Ａ-Ｚａ-ｚ]+")
_HALF_KANA = re.compile(r"[\uff61-\uff9f]+")
_PAREN = re.compile(r"\(([^()\n]*)\)")
_PAREN_RUN = re.compile(r"\([^()\n]*\)(?:[+＋・、,]?\([^()\n]*\))*")
_ELLIPSIS_JA = re.compile(r"\.{3,}|[・･]{3,}|[·]{2,}|‥+|…+")
# The bundled fonts (IPAex) draw U+2026 centred, Japanese style, so English spells it "...".
_ELLIPSIS_EN = re.compile(r"…+|[·・･]{3}|⋯")
_DASH_JA = re.compile(r"[—―─]+")
# Jinja: expressions, statements, comments; inside code only quoted strings are printed text.
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
_JINJA_STRING = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"")
_MD_LINK_TARGET = re.compile(r"\]\([^)\n]*\)")
_INLINE_CODE = re.compile(r"`[^`\n]*`")

STYLE_FILES = ("game.yaml", "cards.yaml", "mapping.yaml")
# figures.yaml is a Jinja template that renders to YAML, not YAML: its text is the figures' captions,
# checked as rendered by the rulebook tests, not here.
TEMPLATE_FILES = ("layout.yaml", "playtest.yaml", "report.yaml")


@dataclass(frozen=True)
class Finding:
    """One style problem: where, which rule, what to write instead."""

    path: Path
    location: Location
    rule: str
    found: str
    replacement: str
    start: int  # character offsets in the file's text
    end: int

    @property
    def message(self) -> str:
        return f"style ({self.rule}): write 「{self.replacement}」 instead of 「{self.found}」 ({_WHY[self.rule]})"


_WHY = {
    "width": "digits and Latin letters are half-width in Japanese text, JTF 2.1.8",
    "bracket": "brackets are full-width in a Japanese sentence, JTF 4.3.1",
    "kana": "no half-width katakana, JTF 2.1.6",
    "ellipsis": "the ellipsis is 「……」 in Japanese, JTF 4.2.4",
    "ellipsis-en": "English text spells the ellipsis with full stops; the fonts draw 「…」 centred, Japanese style",
    "dash": "the long dash is 「――」 in Japanese",
}


def _is_japanese(text: str) -> bool:
    return bool(_JAPANESE.search(text))


def _printed_spans(text: str, start: int, end: int, markdown: bool, code: bool = False) -> Iterator[tuple[int, int]]:
    """The parts of text[start:end] that are printed: outside Jinja code, plus the quoted
    strings inside it; in Markdown not link targets or inline code. `code`: the whole span is
    one Jinja expression (a layout's `vars:` or `when:`), so only its quoted strings count."""
    if code:
        for literal in _JINJA_STRING.finditer(text, start, end):
            yield literal.start() + 1, literal.end() - 1
        return
    pos = start
    for match in _JINJA.finditer(text, start, end):
        yield from _plain_spans(text, pos, match.start(), markdown)
        if not match.group().startswith("{#"):
            for literal in _JINJA_STRING.finditer(text, match.start(), match.end()):
                yield literal.start() + 1, literal.end() - 1
        pos = match.end()
    yield from _plain_spans(text, pos, end, markdown)


def _plain_spans(text: str, start: int, end: int, markdown: bool) -> Iterator[tuple[int, int]]:
    if not markdown:
        yield start, end
        return
    pos = start
    skips = sorted([*_MD_LINK_TARGET.finditer(text, start, end), *_INLINE_CODE.finditer(text, start, end)], key=lambda m: m.start())
    for skip in skips:
        if skip.start() < pos:
            continue
        yield pos, skip.start() + (1 if skip.group().startswith("]") else 0)
        pos = skip.end()
    yield pos, end


def _findings_in(text: str, start: int, end: int, japanese: bool, strict: bool = False) -> Iterator[tuple[int, int, str, str]]:
    """(start, end, rule, replacement) for one printed span of `text`. `strict`: the text is
    known to be Japanese (a `ja:` value, rules.ja.md), so every bracket pair is in a Japanese
    sentence; otherwise a pair counts when Japanese is inside it or beside it."""
    chunk = text[start:end]
    for m in _FULL_ALNUM.finditer(chunk):
        yield start + m.start(), start + m.end(), "width", jaconv.z2h(m.group(), kana=False, ascii=True, digit=True)
    for m in _HALF_KANA.finditer(chunk):
        yield start + m.start(), start + m.end(), "kana", jaconv.h2z(m.group(), kana=True, ascii=False, digit=False)
    if not japanese:
        for m in _ELLIPSIS_EN.finditer(chunk):
            yield start + m.start(), start + m.end(), "ellipsis-en", "..."
        return
    for run in _PAREN_RUN.finditer(chunk):  # "(i)(ii)(iii)" is judged as one
        head = chunk[:run.start()]
        tail = chunk[run.end():]
        before = head.rstrip(" \t")[-1:]  # the nearest characters, past spaces
        after = tail.lstrip(" \t")[:1]
        # a Japanese word beside the brackets (not a Japanese quotation mark closing before an
        # English aside), or Japanese inside them
        if strict or _JAPANESE_LETTER.search(before + after) or _is_japanese(run.group()):
            # the spaces between a full-width bracket and Japanese go too (「合計 (a)」 -> 「合計（a）」)
            lead = len(head) - len(head.rstrip(" \t")) if _is_japanese(before) else 0
            trail = len(tail) - len(tail.lstrip(" \t")) if _is_japanese(after) else 0
            parens = list(_PAREN.finditer(run.group()))
            for i, m in enumerate(parens):
                open_at, close_at = start + run.start() + m.start(), start + run.start() + m.end()
                yield open_at - (lead if i == 0 else 0), open_at + 1, "bracket", "（"
                yield close_at - 1, close_at + (trail if i == len(parens) - 1 else 0), "bracket", "）"
    for m in _ELLIPSIS_JA.finditer(chunk):
        if m.group() != "……":
            yield start + m.start(), start + m.end(), "ellipsis", "……"
    for m in _DASH_JA.finditer(chunk):
        before = chunk[m.start() - 1] if m.start() > 0 else " "
        after = chunk[m.end()] if m.end() < len(chunk) else " "
        if before in " \t\n|" and after in " \t\n|":
            continue  # a dash standing alone (a table cell's "none") is a sign, not a sentence's dash
        if m.group() != "――":
            yield start + m.start(), start + m.end(), "dash", "――"


def _position(text: str, index: int) -> tuple[int, int]:
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def text_findings(path: Path, text: str, shown: str | None = None) -> list[Finding]:
    """Style findings of one file's text (YAML or Markdown by the file's suffix)."""
    shown = shown or display_path(path)
    markdown = path.suffix == ".md"
    regions: list[tuple[int, int, bool, bool, bool]] = []  # start, end, Japanese, known to be, Jinja code
    if markdown:
        known = ".ja." in path.name
        japanese = known or (".en." not in path.name and _is_japanese(text))
        regions.append((0, len(text), japanese, known, False))
    else:
        root = compose(text, shown)
        for node, code, key in _string_scalars(root):
            quoted = 1 if node.style in ("'", '"') else 0  # the YAML quotes are not text (nor a Jinja string)
            # a text's language is its key's ({ja: .., en: ..}); elsewhere, whether it has Japanese in it
            japanese = key != "en" and (key == "ja" or _is_japanese(node.value))
            regions.append((node.start_mark.index + quoted, node.end_mark.index - quoted, japanese, key == "ja", code))
    out: list[Finding] = []
    for start, end, japanese, strict, code in regions:
        for span_start, span_end in _printed_spans(text, start, end, markdown, code):
            for s, e, rule, replacement in _findings_in(text, span_start, span_end, japanese, strict):
                line, column = _position(text, s)
                out.append(Finding(path, Location(shown, line, column), rule, text[s:e], replacement, s, e))
    out.sort(key=lambda f: f.start)
    return out


# Keys whose values are Jinja expressions (layout.yaml `vars:` entries and a box's `when:`).
_EXPRESSION_PARENTS = {"vars"}
_EXPRESSION_KEYS = {"when"}


def _string_scalars(root: yaml.Node | None) -> Iterator[tuple[yaml.ScalarNode, bool, str | None]]:
    """Every scalar value (not a mapping key) whose value is text, each node once, whether it
    is a Jinja expression rather than text, and the key it is the value of."""
    stack: list[tuple[yaml.Node, bool, str | None]] = [(root, False, None)] if root is not None else []
    seen: set[int] = set()
    while stack:
        node, code, key_name = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            if node.tag == "tag:yaml.org,2002:str":
                yield node, code, key_name
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, False, None) for item in node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                name = getattr(key, "value", None)
                if name in _EXPRESSION_PARENTS and isinstance(value, yaml.MappingNode):
                    stack.extend((v, True, None) for _, v in value.value)
                    seen.add(id(value))
                else:
                    stack.append((value, name in _EXPRESSION_KEYS, name))


def style_files(game: Game) -> list[Path]:
    """The files of `game` whose text is printed: its data, rules and (own or bundled) templates."""
    # a file linked out of the folder is refused by the check that reads it; never quote it here
    files = [f for name in (*STYLE_FILES, "rules.ja.md", "rules.en.md")
             for f in [paths.inside(game.root, name)] if f is not None and f.is_file()]
    for name in TEMPLATE_FILES:
        found = paths.game_template(game, name)
        if found is not None:
            files.append(found)
    return files


def game_findings(game: Game) -> list[Finding]:
    """Every style finding in the game's printed text, in file order."""
    out: list[Finding] = []
    for path in style_files(game):
        try:
            out.extend(text_findings(path, read_text(path)))
        except DataError:
            continue  # a file that cannot be read or parsed is reported by the checks that read it
    return out


def fix_text(text: str, findings: Iterable[Finding]) -> str:
    """`text` with each finding's span replaced, nothing else touched."""
    out, pos = [], 0
    for finding in sorted(findings, key=lambda f: f.start):
        if finding.start < pos:
            continue
        out += [text[pos:finding.start], finding.replacement]
        pos = finding.end
    out.append(text[pos:])
    return "".join(out)


@dataclass(frozen=True)
class Fixed:
    path: Path
    count: int
    written: bool  # False: outside the game folder (a bundled template), reported only


def fix_files(game: Game) -> list[Fixed]:
    """Rewrite every file of the game folder that has findings; files elsewhere (the bundled
    templates a game uses) are listed, not written. Line endings and a byte-order mark are kept."""
    from .files import write_atomic

    done: list[Fixed] = []
    root = game.root.resolve()
    for path in style_files(game):
        try:
            text = read_text(path)
            findings = text_findings(path, text)
        except DataError:
            continue  # reported by the checks that read the file
        if not findings:
            continue
        inside = paths.inside(root, str(path.resolve().relative_to(root))) is not None if path.resolve().is_relative_to(root) else False
        if inside:
            raw = path.read_bytes()
            fixed = fix_text(text, findings)
            if b"\r\n" in raw:
                fixed = fixed.replace("\n", "\r\n")
            data = fixed.encode("utf-8")
            if raw.startswith(b"\xef\xbb\xbf"):
                data = b"\xef\xbb\xbf" + data
            write_atomic(path, data)
        done.append(Fixed(path, len(findings), inside))
    return done


__all__ = ["Finding", "Fixed", "fix_files", "fix_text", "game_findings", "style_files", "text_findings"]
