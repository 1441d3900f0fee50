"""The rules text's Markdown, split into blocks, parsed by markdown-it-py (CommonMark + tables).

The rules text is untrusted: raw HTML is never rendered (it stays literal text), the rendered
text has a size limit, and lists nest at most `MAX_LIST_DEPTH` deep (markdown-it-py's own
`maxNesting` bounds every other nesting). A block's `line` is its first line in the rendered text.

Blocks: heading (level 1–6), para, item (a list item: level = nesting depth from 0, marker "-"/"*"
or "3." as written; "" for a further paragraph of an item), table (rows of cell texts; `marker`
is the columns' alignments, comma separated), note (a `>` quote, its paragraphs joined by
newlines), directive (a marker line left by a Jinja directive; `index` is its number).
Inline, `**strong**` and `*emphasis*` both become `**...**` (the paragraph's one emphasis, bold);
code spans and link texts stay as text; a backslash at a line's end is a line break ("\\n").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from markdown_it import MarkdownIt
from markdown_it.token import Token

#: The largest rendered rules text (characters) a rulebook accepts.
MAX_CHARS = 1_000_000
#: The deepest list nesting (a bullet inside a bullet inside ...).
MAX_LIST_DEPTH = 6
#: markdown-it-py's bound on nested block and inline tokens (deeper input stays text).
MAX_NESTING = 20


class MarkdownLimit(ValueError):
    """The rules text goes past one of the limits above; `line` is where (1-based, rendered text)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


@dataclass
class Block:
    kind: str            # heading, para, item, table, note, directive
    text: str = ""
    level: int = 0
    marker: str = ""     # list marker ("-" or "3."), or the table's column alignments
    rows: list[list[str]] | None = None
    index: int = -1      # directive number
    line: int = 0


_NESTED_ITEM = re.compile(r"^( +)(?=(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$))", re.M)


def _parser() -> MarkdownIt:
    # "commonmark" with html off: a tag in the rules text is printed as the characters typed.
    md = MarkdownIt("commonmark", {"html": False, "maxNesting": MAX_NESTING, "linkify": False, "typographer": False})
    return md.enable("table")


_MD = _parser()


def _joins_with_space(before: str, after: str, lang: str) -> bool:
    """Source lines of one paragraph join with a space in English, and in Japanese only between Latin text."""
    if not before or not after:
        return False
    return lang != "ja" or (before[-1].isascii() and after[0].isascii())


def inline_text(token: Token, lang: str) -> str:
    """An inline token's children as paragraph text: `**` around emphasis, "\\n" for a hard break."""
    out = ""
    depth = 0
    pending_soft = False
    for child in token.children or []:
        kind = child.type
        if kind in ("strong_open", "em_open"):
            depth += 1
            piece = "**" if depth == 1 else ""
        elif kind in ("strong_close", "em_close"):
            depth -= 1
            piece = "**" if depth == 0 else ""
        elif kind == "softbreak":
            pending_soft = True
            continue
        elif kind == "hardbreak":
            out = out.rstrip(" ") + "\n"
            pending_soft = False
            continue
        elif kind == "image":
            piece = "".join(c.content for c in child.children or [])
        elif kind in ("text", "code_inline", "html_inline"):
            piece = child.content
        else:  # link_open / link_close: the link's text is kept, the address dropped
            piece = ""
        if pending_soft and piece:
            visible = out.replace("**", "")
            if _joins_with_space(visible, piece.replace("**", "") or piece, lang):
                out += " "
            pending_soft = False
        out += piece
    return out.strip(" ")


def _align(token: Token) -> str:
    style = str(token.attrs.get("style", "")) if token.attrs else ""
    if "right" in style:
        return "right"
    if "center" in style:
        return "center"
    return "left"


def parse_markdown(text: str, lang: str, nonce: str | None = None) -> list[Block]:
    """Split rendered Markdown into blocks (directive markers carry the builder's `nonce`)."""
    if len(text) > MAX_CHARS:
        raise MarkdownLimit(1, f"the rules text renders to {len(text):,} characters; the limit is {MAX_CHARS:,}")
    marker = rf"@@BLOCK(\d+)\.{re.escape(nonce)}@@" if nonce is not None else r"@@BLOCK(\d+)@@"
    # A directive's marker is a block of its own, wherever its {{ }} stood: blank lines around it.
    text = re.sub(rf"^[ \t]*({marker})[ \t]*$", r"\n\1\n", text, flags=re.M)
    marker_re = re.compile(rf"^{marker}$")
    # A rules text nests a list by indenting its marker two spaces, under "- " and "1. " alike
    # (CommonMark wants the parent's content column, 3 under "1. "): a marker's indent counts double.
    text = _NESTED_ITEM.sub(lambda m: m.group(1) * 2, text)
    # Lines in `text` shifted by the blank lines added above: map back to the rendered text's lines.
    original_line = _line_map(text, marker_re)

    tokens = _MD.parse(text)
    blocks: list[Block] = []
    lists: list[str] = []           # "-" or "." / ")" of each open list
    item_marker: list[str | None] = []  # the marker of each open item, None once its first paragraph is out
    note: list[str] | None = None
    quotes = 0                      # open `>` quotes (nested ones fold into the outer note)
    note_line = 0
    table: list[list[str]] | None = None
    aligns: list[str] = []
    table_line = 0

    def line_of(token: Token) -> int:
        return original_line(token.map[0]) if token.map else 1

    for i, tok in enumerate(tokens):
        kind = tok.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            if len(lists) >= MAX_LIST_DEPTH:
                raise MarkdownLimit(line_of(tok), f"lists nest more than {MAX_LIST_DEPTH} deep; flatten the list")
            lists.append(tok.markup)
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif kind == "list_item_open":
            item_marker.append(f"{tok.info}{tok.markup}" if tok.info else tok.markup)
        elif kind == "list_item_close":
            item_marker.pop()
        elif kind == "blockquote_open":
            quotes += 1
            if note is None:
                note, note_line = [], line_of(tok)
        elif kind == "blockquote_close":
            quotes -= 1
            if note is not None and quotes == 0:
                blocks.append(Block("note", "\n".join(p for p in note if p), line=note_line))
                note = None
        elif kind == "table_open":
            table, aligns, table_line = [], [], line_of(tok)
        elif kind == "tr_open" and table is not None:
            table.append([])
        elif kind in ("th_open", "td_open") and table is not None:
            if kind == "th_open":
                aligns.append(_align(tok))
        elif kind == "inline" and table is not None and tokens[i - 1].type in ("th_open", "td_open"):
            table[-1].append(inline_text(tok, lang))
        elif kind == "table_close" and table is not None:
            blocks.append(Block("table", rows=table, line=table_line, marker=",".join(aligns)))
            table = None
        elif kind in ("code_block", "fence"):
            # Indented lines are not code in a rulebook: they are text, as a paragraph.
            content = " ".join(line.strip() for line in tok.content.splitlines() if line.strip())
            _add_text(blocks, content, note, item_marker, lists, line_of(tok))
        elif kind == "inline":
            opener = tokens[i - 1]
            line = line_of(opener)
            if opener.type == "heading_open" and note is None:
                blocks.append(Block("heading", inline_text(tok, lang), level=int(opener.tag[1]), line=line))
                continue
            found = marker_re.match(tok.content.strip())
            if found and note is None and not lists:
                blocks.append(Block("directive", index=int(found.group(1)), line=line))
                continue
            _add_text(blocks, inline_text(tok, lang), note, item_marker, lists, line)
    return blocks


def _add_text(blocks: list[Block], text: str, note: list[str] | None, item_marker: list[str | None],
              lists: list[str], line: int) -> None:
    """A paragraph: into the open note, as a list item (its first paragraph, or a further one), or on its own."""
    if note is not None:
        note.append(text)
    elif item_marker:
        blocks.append(Block("item", text, level=len(lists) - 1, marker=item_marker[-1] or "", line=line))
        item_marker[-1] = None
    else:
        blocks.append(Block("para", text, line=line))


def _line_map(text: str, marker_re: re.Pattern) -> Callable[[int], int]:
    """0-based line in the padded text -> 1-based line in the rendered text (before padding)."""
    lines = text.split("\n")
    mapping: list[int] = []
    original = 0
    k = 0
    while k < len(lines):
        # Each marker line was turned into "", marker, "": the blank pair adds two lines.
        if k + 2 < len(lines) and lines[k] == "" and marker_re.match(lines[k + 1]) and lines[k + 2] == "":
            mapping.extend([original + 1] * 3)
            original += 1
            k += 3
            continue
        mapping.append(original + 1)
        original += 1
        k += 1

    def original_line(index: int) -> int:
        return mapping[index] if 0 <= index < len(mapping) else original

    return original_line
