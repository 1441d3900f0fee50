"""The rules text's Markdown, split into blocks."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass
class Block:
    kind: str            # heading, para, item, table, note, directive
    text: str = ""
    level: int = 0
    marker: str = ""     # list marker ("-" or "3.")
    rows: list[list[str]] | None = None
    index: int = -1      # directive number
    line: int = 0


_BLOCK_RE = re.compile(r"^\s*@@BLOCK(\d+)@@\s*$")
_ITEM_RE = re.compile(r"^(\s*)(-|\*|\d+[.)])\s+(.*)$")


def _join(lines: list[str], lang: str) -> str:
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if line.endswith("\\"):  # explicit line break
            line = line[:-1].rstrip() + "\n"
        if out and not out.endswith("\n"):
            a, b = out[-1], line[0]
            if lang != "ja" or (a.isascii() and b.isascii()):
                out += " "
        out += line
    return out.rstrip("\n")


def parse_markdown(text: str, lang: str, nonce: str | None = None) -> list[Block]:
    """Split rendered Markdown into blocks (directive markers carry the builder's `nonce`)."""
    block_re = _BLOCK_RE if nonce is None else re.compile(rf"^\s*@@BLOCK(\d+)\.{re.escape(nonce)}@@\s*$")
    blocks: list[Block] = []
    lines = text.split("\n")
    i = 0
    para: list[str] = []
    para_line = 0

    def flush() -> None:
        nonlocal para
        if para:
            blocks.append(Block("para", _join(para, lang), line=para_line))
            para = []

    while i < len(lines):
        raw = lines[i]
        stripped = raw.strip()
        m_block = block_re.match(raw)
        if not stripped:
            flush()
            i += 1
            continue
        if m_block:
            flush()
            blocks.append(Block("directive", index=int(m_block.group(1)), line=i + 1))
            i += 1
            continue
        if stripped.startswith("#"):
            flush()
            level = len(stripped) - len(stripped.lstrip("#"))
            blocks.append(Block("heading", stripped[level:].strip(), level=level, line=i + 1))
            i += 1
            continue
        if stripped.startswith("|"):
            flush()
            rows = []
            aligns: list[str] = []
            start = i
            while i < len(lines) and lines[i].strip().startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if all(re.fullmatch(r":?-+:?", c) for c in cells):
                    aligns = ["right" if c.endswith(":") and not c.startswith(":") else
                              "center" if c.startswith(":") and c.endswith(":") else "left" for c in cells]
                else:
                    rows.append(cells)
                i += 1
            blocks.append(Block("table", rows=rows, line=start + 1, marker=",".join(aligns)))
            continue
        if stripped.startswith(">"):
            flush()
            note: list[str] = []
            start = i
            while i < len(lines) and lines[i].strip().startswith(">"):
                note.append(lines[i].strip()[1:].strip() or "\n")
                i += 1
            paras = "\n".join(note).split("\n\n")
            blocks.append(Block("note", "\n".join(_join(p.split("\n"), lang) for p in paras), line=start + 1))
            continue
        m_item = _ITEM_RE.match(raw)
        if m_item and not para:
            indent = len(m_item.group(1).replace("\t", "  "))
            item_lines = [m_item.group(3)]
            start = i
            i += 1
            while i < len(lines) and lines[i].strip() and not _ITEM_RE.match(lines[i]) \
                    and not block_re.match(lines[i]) and lines[i].startswith(" "):
                item_lines.append(lines[i])
                i += 1
            blocks.append(Block("item", _join(item_lines, lang), level=indent // 2, marker=m_item.group(2), line=start + 1))
            continue
        if not para:
            para_line = i + 1
        para.append(raw)
        i += 1
    flush()
    return blocks


