"""The table of every document: text cells set as paragraphs, column widths from their content."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from reportlab.platypus import Flowable, Table, TableStyle

from .paragraph import TextBlock


# rows a rulebook's or sheet's table keeps together at a page break, above and below it
KEEP_ROWS = 2


def text_table(rows: list[list[Any]], cell: Callable[[str, bool, str], Flowable], colours: dict, font: str,
               width: float, header_rows: int = 1, widths: Sequence[float | None] | None = None,
               align: Sequence[str] | None = None, shade_rows: Sequence[int] = (),
               bold_rows: Sequence[int] = (), boxed: bool = False, row_height: float | None = None,
               spans: Sequence[tuple[int, int, int]] = (), pad: float = 4.0, keep: int = 0) -> Table:
    """A table of text cells that fills `width`; column widths follow the content.

    `cell(text, strong, align)` makes a cell's paragraph; a row value that is already a flowable
    (or a list of them) is used as it is. `colours` has rule, accent, header_fill, zebra_fill.
    A form to fill in (a score sheet) is `boxed` (every cell ruled, text centred vertically) with
    body rows `row_height` tall; `spans` are (row, first column, columns) cells spanning columns.
    `keep`: a page break leaves at least this many body rows under the heading row and on the
    next page (no header with a single row at the foot of a page), when the table has room to
    break at all."""
    avail = width
    n = max(len(r) for r in rows)
    align = list(align or ["left"] * n)
    cells: list[list[Any]] = []
    for ri, row in enumerate(rows):
        out = []
        for ci in range(n):
            value = row[ci] if ci < len(row) else ""
            if isinstance(value, Flowable) or isinstance(value, list):
                out.append(value)
            else:
                out.append(cell(str(value), ri < header_rows or ri in bold_rows, align[ci]))
        cells.append(out)
    col_w = column_widths(cells, avail, pad, widths)
    heights = [None if ri < header_rows else row_height for ri in range(len(cells))] if row_height else None
    t = Table(cells, colWidths=col_w, rowHeights=heights, repeatRows=header_rows, hAlign="LEFT")
    cmds = [
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE" if boxed else "TOP"),
        ("LEFTPADDING", (0, 0), (-1, -1), pad), ("RIGHTPADDING", (0, 0), (-1, -1), pad),
        ("TOPPADDING", (0, 0), (-1, -1), 2.5), ("BOTTOMPADDING", (0, 0), (-1, -1), 2.5),
    ]
    if boxed:
        cmds.append(("GRID", (0, 0), (-1, -1), 0.5, colours["rule"]))
    else:
        cmds += [
            ("LINEBELOW", (0, 0), (-1, -1), 0.35, colours["rule"]),
            ("LINEABOVE", (0, 0), (-1, 0), 0.8, colours["accent"]),
            ("LINEBELOW", (0, -1), (-1, -1), 0.8, colours["accent"]),
        ]
    body = len(cells) - header_rows
    if keep and body >= 2 * keep:  # a shorter table would have no place left to break
        cmds.append(("NOSPLIT", (0, 0), (-1, header_rows + keep - 1)))
        cmds.append(("NOSPLIT", (0, len(cells) - keep), (-1, -1)))
    for row, first, count in spans:
        cmds.append(("SPAN", (first, row), (first + count - 1, row)))
    if header_rows:
        cmds.append(("BACKGROUND", (0, 0), (-1, header_rows - 1), colours["header_fill"]))
    for r in shade_rows:
        cmds.append(("BACKGROUND", (0, r), (-1, r), colours["zebra_fill"]))
    t.setStyle(TableStyle([("FONTNAME", (0, 0), (-1, -1), font)] + cmds))
    return t


def column_widths(cells: list[list[Any]], avail: float, pad: float,
                  fixed: Sequence[float | None] | None) -> list[float]:
    n = len(cells[0])
    nat = [0.0] * n
    low = [0.0] * n
    for row in cells:
        for ci, c in enumerate(row):
            blocks = c if isinstance(c, list) else [c]
            for b in blocks:
                if isinstance(b, TextBlock):
                    nat[ci] = max(nat[ci], b.natural_width() + 2 * pad + 0.5)
                    low[ci] = max(low[ci], b.min_width() + 2 * pad + 0.5)
                else:
                    nat[ci] = max(nat[ci], avail / n)
                    low[ci] = max(low[ci], 30)
    widths = [0.0] * n
    if fixed:
        for ci, f in enumerate(fixed):
            if f:
                widths[ci] = f * avail if f <= 1 else f
    free = [ci for ci in range(n) if not widths[ci]]
    left = avail - sum(widths)
    if sum(nat[ci] for ci in free) <= left:
        extra = left - sum(nat[ci] for ci in free)
        # Give the spare room to the wide (text) columns, in proportion.
        wide = [ci for ci in free if nat[ci] > 0.2 * avail] or free
        total_wide = sum(nat[ci] for ci in wide) or 1
        for ci in free:
            widths[ci] = nat[ci] + (extra * nat[ci] / total_wide if ci in wide else 0)
        return widths
    # Too wide: narrow columns keep their natural width; the others share the rest so that a
    # column needing less than an equal share gets what it needs (water-filling).
    narrow = [ci for ci in free if nat[ci] <= 0.16 * avail]
    for ci in narrow:
        widths[ci] = nat[ci]
    wide = sorted((ci for ci in free if ci not in narrow), key=lambda c: nat[c])
    rest = left - sum(widths[ci] for ci in narrow)
    for k, ci in enumerate(wide):
        weight = sum(nat[c] ** 0.5 for c in wide[k:]) or 1
        share = rest * nat[ci] ** 0.5 / weight
        widths[ci] = max(low[ci], min(nat[ci], share))
        rest -= widths[ci]
    over = sum(widths) - avail
    if over > 0.5:  # minimums pushed it over: take it back from the widest columns
        for ci in sorted(wide, key=lambda c: -widths[c]):
            take = min(over, widths[ci] - low[ci])
            widths[ci] -= take
            over -= take
            if over <= 0.5:
                break
    return widths


def callout(rows: list[list[Flowable]], widths: Sequence[float], font: str, fill, bar, rule=None,
            bar_width: float = 2.2, pad: tuple[float, float, float, float] = (5, 5, 3, 3)) -> Table:
    """A boxed aside (a rulebook note, a list of rulings): rows of paragraphs on `fill`, a `bar` down
    its left edge, thin `rule` lines between rows; `pad` is left, right, top, bottom."""
    t = Table(rows, colWidths=list(widths), hAlign="LEFT")
    left, right, top, bottom = pad
    cmds = [
        ("FONTNAME", (0, 0), (-1, -1), font),  # never the non-embedded standard font
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("BACKGROUND", (0, 0), (-1, -1), fill),
        ("LINEBEFORE", (0, 0), (0, -1), bar_width, bar),
        ("LEFTPADDING", (0, 0), (-1, -1), left), ("RIGHTPADDING", (0, 0), (-1, -1), right),
        ("TOPPADDING", (0, 0), (-1, -1), top), ("BOTTOMPADDING", (0, 0), (-1, -1), bottom),
    ]
    if rule is not None:
        cmds.append(("LINEBELOW", (0, 0), (-1, -2), 0.3, rule))
    t.setStyle(TableStyle(cmds))
    return t
