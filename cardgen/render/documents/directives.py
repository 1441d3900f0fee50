"""The Jinja directives of a rules text (`{{ component_list() }}`, `{{ card_table() }}`, ...) and the
data helpers they use: each directive leaves a marker in the rendered text and builds its flowables
when the rulebook reaches the marker."""

from __future__ import annotations

import re
import sys
from typing import Any, Callable, Iterable, Sequence

from reportlab.platypus import CondPageBreak, Flowable, KeepTogether, PageBreak, Spacer, Table

from ... import words
from ...errors import DataError, Problem
from ...io import sandbox
from ...io.reader import SchemaReader, compose, display_path, read_text
from ...model import Card, CardType, Location, Text
from ...sizes import size_mm
from .figures import CardAnatomy, Figure, anatomy_boxes, _check_figures, _KEEP_LINES, figures_path
from .paragraph import TextBlock
from .table import KEEP_ROWS, callout, text_table
from .toc import _TocMark


class Directives:
    """The directive and data-helper half of the rulebook builder (see rulebook._Builder)."""

    def t(self, value: Any) -> str:
        if isinstance(value, Text):
            return value.get(self.lang)
        if isinstance(value, dict) and self.lang in value:
            return str(value[self.lang])
        return "" if value is None else str(value)

    # -- data helpers -------------------------------------------------------------------------
    def param(self, path: str) -> Any:
        head, *rest = str(path).split(".")
        value = self.game.param(head)
        for part in rest:
            if isinstance(value, dict):
                if part in value:
                    value = value[part]
                elif part.isdigit() and int(part) in value:
                    value = value[int(part)]
                else:
                    raise KeyError(f"{self.game.id}: rule parameter {path!r} has no {part!r}")
            elif isinstance(value, list) and part.isdigit():
                value = value[int(part)]
            else:
                raise KeyError(f"{self.game.id}: rule parameter {path!r} has no {part!r}")
        return value

    def card_type(self, type_id: str) -> CardType:
        try:
            return self.game.card_type(type_id)
        except KeyError:
            raise KeyError(f"{self.game.id}: no card type {type_id!r} in cards.yaml") from None

    def field_label(self, name: str) -> str:
        spec = self.game.field_specs.get(name)
        if spec is None:
            raise KeyError(f"{self.game.id}: no card field {name!r} in game.yaml card_fields")
        return words.field_label(self.game, name, self.lang)

    def value_text(self, field: str, value: Any, labels: dict) -> str:
        table = labels.get(field, {})
        if value in table:
            return self.t(table[value])
        spec = self.game.field_specs.get(field)
        if spec is not None and spec.kind == "enum" and value is not None:
            return words.field_value(self.game, field, value, self.lang)  # its label, never the id
        if isinstance(value, Text):
            return self.flowing(value.get(self.lang))
        if isinstance(value, bool):
            return "✓" if value else "–"
        return "" if value is None else str(value)

    def flowing(self, text: str) -> str:
        """A card's text as a paragraph: the line breaks it has for the card's narrow box go (a
        document sets it in its own measure), joined as the language joins words."""
        return re.sub(r"[ \t]*\n[ \t\u3000]*", "" if self.lang == "ja" else " ", text) if text else text

    def sep(self) -> str:
        return words.word("common.separator", self.lang, self.game)

    def id_ranges(self, cards: Sequence[Card]) -> str:
        ids = [c.id for c in cards]
        all_ids = [c.id for c in self.game.cards]
        pos = [all_ids.index(i) for i in ids]
        groups: list[list[int]] = []
        for p in pos:
            if groups and p == groups[-1][-1] + 1:
                groups[-1].append(p)
            else:
                groups.append([p])
        parts = [all_ids[g[0]] if len(g) == 1 else f"{all_ids[g[0]]}–{all_ids[g[-1]]}" for g in groups]
        return self.sep().join(parts)

    def players_text(self) -> str:
        g = self.game
        if g.min_players == g.max_players:
            return self.labels["players_value_one"].format(min=g.min_players)
        return self.labels["players_value"].format(min=g.min_players, max=g.max_players)

    def filter_types(self, types: Iterable[str] | None, where: dict | None) -> list[CardType]:
        chosen = [self.card_type(t) for t in types] if types else list(self.game.card_types)
        if where:
            chosen = [ct for ct in chosen
                      if all(any(c.get(k) == v for c in self.game.cards_of(ct.id)) for k, v in where.items())]
        return chosen

    # -- directives ---------------------------------------------------------------------------
    def directive(self, build: Callable[[], list[Flowable]]) -> str:
        self.directives.append((build, self._template_line()))
        return f"\n@@BLOCK{len(self.directives) - 1}.{self.nonce}@@\n"

    def _template_line(self) -> int:
        """The line of the rules text whose {{ }} is calling now (a directive's place, for its errors)."""
        template = self._rendering
        frame = sys._getframe(1)
        while frame is not None and template is not None:
            if frame.f_code.co_filename == "<template>":
                try:
                    return int(template.get_corresponding_lineno(frame.f_lineno))
                except (AttributeError, TypeError, ValueError):
                    return 1
            frame = frame.f_back
        return 1

    def context(self) -> dict[str, Any]:
        g = self.game
        b = self

        def name(type_id: str) -> str:
            return b.t(b.card_type(type_id).name)

        def count(type_id: str) -> int:
            return b.card_type(type_id).count

        def count_where(**where: Any) -> int:
            return sum(1 for c in g.cards if all(c.get(k) == v for k, v in where.items()))

        def field(type_id: str, field_name: str, copy: int = 1) -> Any:
            """A field's value on a card type (shared, or that of copy `copy`), in the book's language."""
            cards = g.cards_of(b.card_type(type_id).id)
            if not 1 <= copy <= len(cards):
                raise KeyError(f"{g.id}: card type {type_id!r} has no copy {copy}")
            value = cards[copy - 1].get(field_name)
            if value is None:
                raise KeyError(f"{g.id}: card type {type_id!r} has no field {field_name!r}")
            return b.t(value) if isinstance(value, Text) else value

        def cards_text(n: int) -> str:
            return b.labels["cards_unit"].format(n=n)

        def index_by(seq: Iterable[Any], key: str, value: str) -> dict:
            """{item[key]: item[value]} for a list of mappings (templates cannot mutate a dict)."""
            out = {}
            for x in seq:
                if not isinstance(x, dict) or key not in x or value not in x:
                    raise KeyError(f"index_by: every item needs '{key}' and '{value}'")
                out[x[key]] = x[value]
            return out

        def find(seq: Iterable[Any], **kw: Any) -> Any:
            for x in seq:
                if all(x.get(k) == v for k, v in kw.items()):
                    return x
            raise KeyError(f"find: nothing has {', '.join(f'{k}={v!r}' for k, v in kw.items())}")

        def decision_ref(did: str) -> str:
            if did not in b.decision_numbers:
                raise KeyError(f"{g.id}: no decision {did!r} in game.yaml decisions")
            return f"D{b.decision_numbers[did]}"

        return {
            "game": g, "lang": b.lang, "total": g.total, "t": b.t, "param": b.param, "name": name, "count": count,
            "count_where": count_where, "field": field, "cards": cards_text, "players": b.players_text(), "ref": decision_ref,
            "component_list": lambda **kw: b.directive(lambda: b.component_list(**kw)),
            "card_table": lambda **kw: b.directive(lambda: b.card_table(**kw)),
            "card_details": lambda **kw: b.directive(lambda: b.card_details(**kw)),
            "decisions": lambda: b.directive(b.decisions_list),
            "decision": b.inline_decision,
            "figure": lambda fig, **kw: b.directive(lambda: b.figure(fig, **kw)),
            "play_area_diagram": lambda **kw: b.directive(lambda: b.figure("play_area", **kw)),
            "setup_figure": lambda **kw: b.directive(lambda: b.figure("setup", **kw)),
            "card_anatomy": lambda card, boxes, **kw: b.directive(lambda: b.card_anatomy(card, boxes, **kw)),
            "appendix": lambda title="": b.directive(lambda: b.appendix(title)),
            "find": find, "index_by": index_by,
            "label": lambda kind, value: words.label(kind, value, b.lang, g),
            "pagebreak": lambda: b.directive(lambda: [PageBreak()]),
        }

    # -- generated parts ---------------------------------------------------------------------
    def cell(self, text: str, head: bool = False, align: str = "left", kind: str = "table") -> TextBlock:
        # a table cell is set ragged: justified, a narrow column shows gaps rather than an even edge
        return TextBlock(text, self.lang, self.ts(kind, all_strong=head, align=align, justify=False))

    def table(self, rows: list[list[Any]], header_rows: int = 1, widths: Sequence[float | None] | None = None,
              align: Sequence[str] | None = None, shade_rows: Sequence[int] = (), bold_rows: Sequence[int] = (),
              width: float | None = None) -> Table:
        """A table of text cells that fills the frame width; column widths follow the content."""
        return text_table(rows, lambda text, strong, al: self.cell(text, head=strong, align=al), self.col,
                          self.strong_font, width or self.frame_width, header_rows, widths, align, shade_rows, bold_rows,
                          keep=KEEP_ROWS)

    def component_list(self, group: str | None = None, group_labels: dict | None = None, ids: bool = True,
                       notes: bool = True) -> list[Flowable]:
        """Every card type with its count and card numbers, subtotals per group, the total, then other components."""
        L = self.labels
        ids = ids and self.game.numbered  # generated ids (sun-1) are no card numbers
        third = (L["ids_notes"] if ids else L["notes"]) if self.game.components else L["ids"]
        head = [L["card"], L["count"]] + ([third] if ids or self.game.components else [])
        width = len(head)
        rows: list[list[Any]] = [head]
        shade: list[int] = []
        bold: list[int] = []
        types = list(self.game.card_types)
        groups: list[tuple[str | None, list[CardType]]] = []
        labels: list[str | None] = []
        if group:
            for ct in types:
                value = self.game.cards_of(ct.id)[0].get(group)
                if not groups or groups[-1][0] != value:
                    groups.append((value, []))
                groups[-1][1].append(ct)
            labels = [None if value is None else self.value_text(group, value, {group: group_labels or {}}) for value, _ in groups]
        elif self.game.decks:  # the declared decks, each with its card size (they are printed apart)
            for deck in self.game.decks:
                groups.append((deck.id, [ct for ct in types if ct.id in deck.types]))
                w, h = size_mm(deck.card_size)
                labels.append(f"{self.t(deck.name)} ({w:g} × {h:g} mm)")
        else:
            groups = [(None, types)]
            labels = [None]
        for label, (_, members) in zip(labels, groups):
            if label is not None:
                n = sum(ct.count for ct in members)
                shade.append(len(rows))
                bold.append(len(rows))
                rows.append([label, L["cards_unit"].format(n=n)] + [""] * (width - 2))
            for ct in members:
                extra = [self.id_ranges(self.game.cards_of(ct.id)) if ids else ""] if width > 2 else []
                rows.append([self.t(ct.name), str(ct.count)] + extra)
        bold.append(len(rows))
        shade.append(len(rows))
        rows.append([L["card_total"],
                     L["cards_unit"].format(n=self.game.total)] + [""] * (width - 2))
        for comp in self.game.components:
            note = self.t(comp.note) if (notes and comp.note) else ""
            rows.append([self.t(comp.name), "—" if comp.count is None else str(comp.count), note][:width])
        t = self.table(rows, align=["left", "right", "left"], shade_rows=shade, bold_rows=bold)
        t.spaceBefore, t.spaceAfter = 2, 8
        return [t]

    def card_table(self, columns: Sequence[str] | None = None, types: Sequence[str] | None = None,
                   where: dict | None = None, labels: dict | None = None, headers: dict | None = None,
                   ids: bool = False, widths: dict | None = None, emphasis: Sequence[str] = (),
                   labelled: Sequence[str] = ()) -> list[Flowable]:
        """One row per card type (and per distinct text among its copies): name, count, values, texts.

        A column "a+b" stacks fields a and b in one cell; fields in `emphasis` are set in bold
        quotes (a declaration), fields in `labelled` get their label in front ("Success: ...").
        """
        labels = labels or {}
        headers = headers or {}
        ids = ids and self.game.numbered
        specs = self.game.field_specs
        if columns is None:
            columns = [n for n, s in specs.items() if s.kind != "text"] + [n for n, s in specs.items() if s.kind == "text"][:1]
        cols = [c.split("+") for c in columns]
        for c in cols:
            for f in c:
                self.field_label(f)
        text_fields = [f for c in cols for f in c if specs[f].kind == "text"]
        head = [self.labels["card"]] + [headers.get("+".join(c), self.field_label(c[0])) for c in cols] + [self.labels["count"]]
        if ids:
            head.append(self.labels["ids"])
        rows: list[list[Any]] = [head]
        aligns = ["left"] + ["left"] * len(cols) + ["right"] + (["left"] if ids else [])
        for ct in self.filter_types(types, where):
            cards = [c for c in self.game.cards_of(ct.id)
                     if not where or all(c.get(k) == v for k, v in where.items())]
            groups: dict[tuple, list[Card]] = {}
            for c in cards:
                key = tuple(self.t(c.get(f)) for f in text_fields)
                groups.setdefault(key, []).append(c)
            for members in groups.values():
                row: list[Any] = [self.t(ct.name)]
                for c in cols:
                    parts = []
                    for f in c:
                        values: list[str] = []
                        for m in members:
                            v = self.value_text(f, m.get(f), labels)
                            if v and v not in values:
                                values.append(v)
                        if values:
                            text = self.sep().join(values)
                            if f in emphasis:
                                text = f"**{('「' + text + '」') if self.lang == 'ja' else ('“' + text + '”')}**"
                            if f in labelled:
                                text = f"**{self.field_label(f)}**{'：' if self.lang == 'ja' else ': '}{text}"
                            parts.append(text)
                    row.append([self.cell(p) for p in parts] if len(parts) > 1 else (parts[0] if parts else "–"))
                row.append(str(len(members)))
                if ids:
                    row.append(self.id_ranges(members))
                rows.append(row)
        keys = ["name"] + ["+".join(c) for c in cols] + ["count"] + (["ids"] if ids else [])
        at = keys.index("count")
        if all(row[at] == "1" for row in rows[1:]):  # one card a row (each its own text): a column of 1s says nothing
            rows = [row[:at] + row[at + 1:] for row in rows]
            aligns, keys = aligns[:at] + aligns[at + 1:], keys[:at] + keys[at + 1:]
        fixed = [widths.get(k) for k in keys] if widths else None
        t = self.table(rows, align=aligns, widths=fixed)
        t.spaceBefore, t.spaceAfter = 2, 8
        return [t]

    def card_details(self, fields: Sequence[str], types: Sequence[str] | None = None, where: dict | None = None,
                     title: Sequence[str] = (), labels: dict | None = None, show_labels: bool = True) -> list[Flowable]:
        """A block per card type: its name, count and values, then each text field in full."""
        labels = labels or {}
        out: list[Flowable] = []
        for f in list(fields) + list(title):
            self.field_label(f)
        for ct in self.filter_types(types, where):
            cards = [c for c in self.game.cards_of(ct.id) if not where or all(c.get(k) == v for k, v in where.items())]
            bits = []
            for f in title:
                vals: list[str] = []
                for c in cards:
                    v = self.value_text(f, c.get(f), labels)
                    if v and v not in vals:
                        vals.append(v)
                if vals:
                    bits.append(f"{self.field_label(f)} {self.sep().join(vals)}")
            count = self.labels["copies_of"].format(n=len(cards))
            if self.lang == "ja":
                head = f"**{self.t(ct.name)}**　" + "　".join(bits + [count])
            else:
                head = f"**{self.t(ct.name)}**   " + "   ".join(bits + [f"×{count}"])
            out.append(CondPageBreak(3.5 * self.types["body"]["leading"]))
            out.append(TextBlock(head, self.lang, self.ts("body", space_before=6, color=self.col["ink"])))
            for f in fields:
                seen: list[str] = []
                for c in cards:
                    v = self.flowing(self.t(c.get(f)))
                    if v and v not in seen:
                        seen.append(v)
                for v in seen:
                    prefix = f"**{self.field_label(f)}**{'：' if self.lang == 'ja' else ': '}" if show_labels else ""
                    out.append(TextBlock(prefix + v, self.lang, self.ts("body", left=12, space_after=1)))
        return out

    def appendix(self, title: str) -> list[Flowable]:
        """The standard-deck appendix from the mapping hook, under its own heading when there is one."""
        content = appendix_flowables(self.game, self.lang)
        if not content:
            return []
        if not title:
            return [PageBreak(), *content]
        self.keys += 1
        return [PageBreak(), _TocMark(title, 1, f"h{self.keys}"), *content]

    def inline_decision(self, did: str) -> str:
        """`{{ decision('id') }}`: the ruling printed where the text calls it (and not in the list)."""
        if did not in self.inline_decisions:
            self.inline_decisions.append(did)
        return self.directive(lambda: self.decision_box(did))

    def decision_box(self, did: str) -> list[Flowable]:
        d = next((d for d in self.game.decisions if d.id == did), None)
        if d is None:
            raise KeyError(f"{self.game.id}: no decision {did!r} in game.yaml decisions")
        return [self._decision_table([d])]

    def _decision_table(self, decisions: Sequence[Any]) -> Table:
        rows = []
        for d in decisions:
            n = self.decision_numbers[d.id]
            head = f"{self.labels['decision']} D{n}"
            rows.append([
                TextBlock([(head, True)], self.lang, self.ts("small", color=self.col["accent"])),
                TextBlock(d.text.get(self.lang), self.lang, self.ts("small")),
            ])
        # one indent for every ruling of the book: the widest label any of them has ("裁定 D20"),
        # so a body never starts further right because its number has another digit
        widest = TextBlock([(f"{self.labels['decision']} D{len(self.game.decisions)}", True)], self.lang,
                           self.ts("small"))
        col0 = max([widest.natural_width()] + [r[0].natural_width() for r in rows]) + 16
        t = callout(rows, [col0, self.frame_width - col0], self.strong_font, self.col["decision_fill"],
                    self.col["decision_bar"], self.col["rule"])
        t.spaceBefore, t.spaceAfter = 4, 6
        return t

    def decisions_list(self) -> list[Flowable]:
        self.used_decisions_list = True
        if not self.game.decisions:
            return []
        # not naming `source:`: it is the project's file name for the rules, meaningless on paper
        intro = self.labels["decisions_intro"]
        rest = sorted((d for d in self.game.decisions if d.id not in self.inline_decisions),
                      key=lambda d: self.decision_numbers[d.id])
        if not rest:  # every ruling stands with the rule it concerns
            return []
        out: list[Flowable] = [TextBlock(intro, self.lang, self.ts("body", space_after=4))]
        out.append(self._decision_table(rest))
        return out

    def figures(self) -> dict:
        """The game's figures (rendered in the sandbox, then read through the schema reader), once per book."""
        if self._figures is not None:
            return self._figures
        path = figures_path(self.game)
        if path is None:
            raise KeyError(f"{self.game.id}: no figures; write templates/figures.yaml in the game folder")
        shown = display_path(path)
        # `+%}` keeps the line break after a block tag, so a YAML problem is at its line in the file
        source = _KEEP_LINES.sub("+%}", read_text(path, shown))
        rendered = sandbox.render(source, self.context(), Location(shown, 1, 1), "figure template")
        r = SchemaReader(self.game.languages)
        node = compose(rendered, shown)
        if node is None:
            raise DataError([Problem(Location(shown, 1, 1), "the figures file is empty; describe at least one figure")])
        figures = _check_figures(r, node, self.style["colours"], self.game)
        r.raise_if_any()
        self._figures = figures
        return figures

    def figure(self, name: str, caption: bool = True, max_card_mm: float | None = None) -> list[Flowable]:
        figures = self.figures()
        if name not in figures:
            raise KeyError(f"{self.game.id}: no figure {name!r} in the figures file (has: {', '.join(figures)})")
        if max_card_mm is not None and (not isinstance(max_card_mm, (int, float)) or isinstance(max_card_mm, bool)
                                        or not 3 <= max_card_mm <= 60):
            raise ValueError(f"figure {name!r}: max_card_mm must be a number of mm from 3 to 60")
        spec = figures[name]
        fig = Figure(spec, self.game, self.lang, self.style, self.fonts, max_card_mm or float(spec.get("card_mm", 15)))
        out: list[Flowable] = [fig]
        if caption and spec.get("caption"):
            self.counters_fig = getattr(self, "counters_fig", 0) + 1
            text = f"{self.labels['figure']} {self.counters_fig}　{self.t(spec['caption'])}" if self.lang == "ja" else \
                f"{self.labels['figure']} {self.counters_fig}. {self.t(spec['caption'])}"
            out.append(TextBlock(text, self.lang, self.ts("small", align="center", color=self.col["muted"], space_before=4, space_after=6)))
        return [Spacer(1, 4), KeepTogether(out)]


    def card_anatomy(self, card: str, boxes: Sequence[str], width_mm: float = 52.0) -> list[Flowable]:
        """A real front of `card` with numbered callouts to its layout `boxes`, in the order of the list that follows."""
        if not isinstance(width_mm, (int, float)) or isinstance(width_mm, bool) or not 20 <= width_mm <= 120:
            raise ValueError("card_anatomy: width_mm must be a number of mm from 20 to 120")
        found, chosen = anatomy_boxes(self.game, card, boxes)
        figure = CardAnatomy(self.game, found, chosen, self.lang, self.style, self.fonts, float(width_mm))
        return [Spacer(1, 4), figure, Spacer(1, 6)]


def appendix_flowables(game, lang: str) -> list[Flowable]:
    """The standard-deck reference appendix; [] for a game without a mapping.yaml."""
    from .standard_sheet import mapping_appendix_flowables

    return list(mapping_appendix_flowables(game, lang))
