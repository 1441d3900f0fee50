"""Line breaking (Japanese kinsoku, BudouX phrases, English wrapping) and shrink-to-fit."""

from __future__ import annotations

import budoux
import pyphen
import pytest
from reportlab.pdfbase.pdfmetrics import stringWidth

from cardgen.fonts import register_fonts
from cardgen.text import NO_LINE_END, NO_LINE_START, Fitted, break_lines, fit_text, text_width

GOTHIC, MINCHO = register_fonts()
SIZE = 10.0


def em(n: float) -> float:
    """The width of n full-width characters at SIZE (IPAex full-width glyphs are 1 em)."""
    return stringWidth("あ", GOTHIC, SIZE) * n + 0.01


def widths_ok(lines, width, font=GOTHIC, size=SIZE, lang="ja"):
    """Every line within `width`, measured in the faces that set it in `lang` (an English text in
    the Gothic role is set in Liberation Sans: cardgen.fonts.face_of)."""
    return all(text_width(line, font, size, lang) <= width + 1e-6 for line in lines)


def en_width(text: str, size: float = SIZE) -> float:
    """The width of English `text` in the Gothic role, as it is set (Liberation Sans)."""
    return text_width(text, GOTHIC, size, "en")


# --- the kinsoku sets -------------------------------------------------------------------------

def test_sets_hold_the_jis_x_4051_characters():
    for ch in "、。，．・：；？！）」』】〕〉》ー々ゝゞ‼⁉ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ":
        assert ch in NO_LINE_START, ch
    for ch in ")]}｣,.!?:;":  # half-width closing brackets and punctuation
        assert ch in NO_LINE_START, ch
    for ch in "「『（【〔〈《([{｢":
        assert ch in NO_LINE_END, ch
    assert not (NO_LINE_START & NO_LINE_END)


@pytest.mark.parametrize("ch", sorted(NO_LINE_START))
def test_no_line_starts_with_a_forbidden_character(ch):
    # Five kana fill the line exactly, so a naive break would start line 2 with `ch`.
    text = "あいうえお" + ch + "かきくけこさしすせそ"
    lines = break_lines(text, GOTHIC, SIZE, em(5), "ja")
    assert len(lines) >= 2
    for line in lines[1:]:
        assert line and line[0] not in NO_LINE_START, lines
    assert "".join(lines) == text
    assert widths_ok(lines, em(5))


@pytest.mark.parametrize("ch", sorted(NO_LINE_END))
def test_no_line_ends_with_an_opening_bracket(ch):
    # The opener is the fifth character: it would end line 1; it must move to line 2.
    text = "あいうえ" + ch + "かきくけこさしすせそ"
    lines = break_lines(text, GOTHIC, SIZE, em(5), "ja")
    for line in lines[:-1]:
        assert line[-1] not in NO_LINE_END, lines
    assert lines[1].startswith(ch), lines
    assert "".join(lines) == text


def test_a_run_of_forbidden_characters_moves_with_its_word():
    # 「っ」「ー」「。」「」」 after the margin all stay off the line start: the last word moves.
    text = "あいうえおかきくけ「ちょっと待ってー。」と言った。"
    for n in range(4, 12):
        lines = break_lines(text, GOTHIC, SIZE, em(n), "ja")
        assert "".join(lines) == text
        assert widths_ok(lines, em(n))
        for line in lines[1:]:
            assert line[0] not in NO_LINE_START, (n, lines)
        for line in lines[:-1]:
            assert line[-1] not in NO_LINE_END, (n, lines)


def test_kinsoku_holds_on_real_card_text_at_every_width():
    texts = [
        "行動＞プレイヤー１人（あなたでもよい）を指定する。そのプレイヤーは、得点を持っているなら、そのうち１枚を選んで表（協力者）にする。",
        "迎撃エリアにいるとき、出撃フェイズに宣言できる。合計14以上の敵は戦死、13以下は撤退。その後この王子は戦死する。",
        "森のエルフがやってきた。『お花に水をやっておるのじゃ』じょうろの水の音はそれとなくお花摘みを連想させた。尿意+1",
        "ひなが「ピイ！」と鳴いた瞬間、驚いておもらししてしまった‥‥。",
    ]
    for text in texts:
        for n in range(4, 30):
            lines = break_lines(text, GOTHIC, SIZE, em(n), "ja")
            assert "".join(lines) == text
            assert widths_ok(lines, em(n)), (n, lines)
            assert all(line[0] not in NO_LINE_START for line in lines[1:]), (n, lines)
            assert all(line[-1] not in NO_LINE_END for line in lines[:-1]), (n, lines)
            # "‥‥" is never split
            assert not any(a.endswith("‥") and b.startswith("‥") for a, b in zip(lines, lines[1:]))


# --- BudouX phrases ---------------------------------------------------------------------------

def test_breaks_at_a_budoux_phrase_boundary_when_it_fits():
    text = "今日は天気です。"
    assert budoux.load_default_japanese_parser().parse(text) == ["今日は", "天気です。"]
    # Five characters fit ("今日は天気"), but the break goes between the phrases.
    lines = break_lines(text, GOTHIC, SIZE, em(5), "ja")
    assert lines == ["今日は", "天気です。"]


def test_phrase_breaks_never_split_a_phrase_that_fits_a_line():
    text = "そのプレイヤーは、得点を持っているなら、そのうち１枚を選んで表にする。"
    phrases = budoux.load_default_japanese_parser().parse(text)
    bounds = set()
    pos = 0
    for p in phrases:
        pos += len(p)
        bounds.add(pos)
    lines = break_lines(text, GOTHIC, SIZE, em(12), "ja")
    pos = 0
    for line in lines[:-1]:
        pos += len(line)
        assert pos in bounds, (lines, phrases)


def test_a_phrase_longer_than_the_line_breaks_between_characters():
    text = "アイウエオカキクケコサシスセソタチツ"  # one katakana phrase of 18 characters
    assert budoux.load_default_japanese_parser().parse(text) == [text]
    assert break_lines(text, GOTHIC, SIZE, em(6), "ja") == ["アイウエオカ", "キクケコサシ", "スセソタチツ"]
    # with small kana, kinsoku still applies inside the phrase
    text = "アクションポイントアクションポイント"
    lines = break_lines(text, GOTHIC, SIZE, em(6), "ja")
    assert "".join(lines) == text
    assert widths_ok(lines, em(6))
    assert all(line[0] not in NO_LINE_START for line in lines[1:])


def test_ascii_words_and_numbers_inside_japanese_stay_whole():
    text = "合計14以上の敵は戦死、13以下は撤退。"
    for n in range(3, 12):
        lines = break_lines(text, GOTHIC, SIZE, em(n), "ja")
        for a, b in zip(lines, lines[1:]):
            assert not (a[-1].isdigit() and b[0].isdigit()), lines


def test_explicit_newline_forces_a_break():
    assert break_lines("あいう\nえお", GOTHIC, SIZE, em(20), "ja") == ["あいう", "えお"]
    assert break_lines("one\n\ntwo", GOTHIC, SIZE, 500, "en") == ["one", "", "two"]


# --- English ----------------------------------------------------------------------------------

def greedy_line_count(text: str, width: float, size: float = SIZE) -> int:
    """How many lines filling each line with as many words as fit makes (the fewest there can be)."""
    count, line = 1, ""
    for word in text.split(" "):
        if line and en_width(f"{line} {word}", size) > width:
            count, line = count + 1, word
        else:
            line = f"{line} {word}" if line else word
    return count


def test_english_wraps_at_spaces_into_as_few_lines_as_a_greedy_fill():
    text = "Action > Choose a player (you may choose yourself). If that player has score cards, they choose one."
    width = 110
    lines = break_lines(text, GOTHIC, SIZE, width, "en")
    assert len(lines) > 2
    assert " ".join(lines) == text
    assert widths_ok(lines, width, lang="en")
    assert len(lines) == greedy_line_count(text, width)


# A card's text box: the greedy fill leaves "fame." alone on the last line.
RUNT = "Half of it was weeds, but she took it anyway. Quest complete. Gain 2 fame."


def test_a_paragraph_does_not_end_on_one_word_where_another_break_exists():
    width = en_width("Half of it was weeds, but she took it") + 1
    lines = break_lines(RUNT, GOTHIC, SIZE, width, "en")
    assert " ".join(lines) == RUNT
    assert widths_ok(lines, width, lang="en")
    assert len(lines) == greedy_line_count(RUNT, width) == 3  # no line more than the greedy fill
    assert len(lines[-1].split()) >= 2, lines
    assert not lines[0].endswith(" 2") and not any(line.endswith(" 2") for line in lines)  # "2 fame" kept together


def test_lines_are_evened_out_and_break_where_a_reader_pauses():
    text = "Got it! Quest complete. Gain 5 fame."
    width = en_width("Got it! Quest complete. Gain 5") + 1
    assert break_lines(text, GOTHIC, SIZE, width, "en") == ["Got it! Quest complete.", "Gain 5 fame."]


def test_fitting_keeps_the_size_and_line_count_while_avoiding_the_runt():
    width = en_width("Half of it was weeds, but she took it") + 1
    fitted = fit_text(RUNT, GOTHIC, width, 3 * SIZE * 1.25, SIZE, 6, "en")
    assert fitted.size == SIZE and len(fitted.lines) == 3 and not fitted.overflow
    assert len(fitted.lines[-1].split()) >= 2


def test_an_unavoidable_one_word_last_line_stays():
    # each word fills a line alone: no other break exists
    width = en_width("Extraordinary") + 1
    assert break_lines("Extraordinary adventures", GOTHIC, SIZE, width, "en") == ["Extraordinary", "adventures"]
    # each paragraph of an explicit "\n" is its own block
    assert break_lines("Gain 2 fame.\nEek!", GOTHIC, SIZE, 500, "en") == ["Gain 2 fame.", "Eek!"]


def test_a_word_longer_than_the_line_is_hyphenated_at_legal_points():
    lines = break_lines("a Supercalifragilisticexpialidocious b", GOTHIC, SIZE, 60, "en")
    assert "".join(line.removesuffix("-") for line in lines).replace(" ", "") == "aSupercalifragilisticexpialidociousb"
    assert widths_ok(lines, 60, lang="en")
    assert len(lines) >= 3
    word = "Supercalifragilisticexpialidocious"
    legal = set(pyphen.Pyphen(lang="en_US").positions(word))
    broken = [line for line in lines if line.endswith("-")]
    assert len(broken) >= 2
    cut = 0
    for line in broken:  # each break falls at a point the en_US patterns allow
        cut += len(line.removesuffix("-").split()[-1])
        assert cut in legal, (lines, sorted(legal))


def test_a_word_with_no_legal_point_is_broken_by_characters():
    lines = break_lines("a Qxzqxzqxzqxzqxzqxzqxzqxz b", GOTHIC, SIZE, 40, "en")
    assert "".join(lines).replace(" ", "") == "aQxzqxzqxzqxzqxzqxzqxzqxzb"
    assert widths_ok(lines, 40, lang="en")


# --- fitting ----------------------------------------------------------------------------------

def test_fit_text_keeps_the_size_when_it_fits():
    fitted = fit_text("Short text.", GOTHIC, 200, 40, 10, 6, "en")
    assert fitted == Fitted(("Short text.",), 10, 12.5, False)


def test_fit_text_shrinks_in_quarter_points_to_the_largest_size_that_fits():
    text = "行動＞プレイヤー１人（あなたでもよい）を指定する。そのプレイヤーは、得点を持っているなら、そのうち１枚を選んで表（協力者）にする。"
    width, height = 150.0, 45.0
    fitted = fit_text(text, GOTHIC, width, height, 10, 5, "ja")
    assert not fitted.overflow
    assert 5 <= fitted.size < 10
    assert ((10 - fitted.size) / 0.25) == int((10 - fitted.size) / 0.25)
    assert fitted.leading == pytest.approx(fitted.size * 1.25)
    assert len(fitted.lines) * fitted.leading <= height + 1e-6
    assert widths_ok(fitted.lines, width, size=fitted.size)
    assert "".join(fitted.lines) == text
    # one step larger does not fit
    bigger = fitted.size + 0.25
    lines = break_lines(text, GOTHIC, bigger, width, "ja")
    assert len(lines) * bigger * 1.25 > height


def test_fit_text_reports_overflow_at_the_floor_size():
    text = "This text is far too long for such a tiny box. " * 5
    fitted = fit_text(text, GOTHIC, 80, 20, 9, 6, "en")
    assert fitted.overflow
    assert fitted.size == 6
    assert len(fitted.lines) * fitted.leading > 20


def test_fit_text_leading_ratio_is_used():
    fitted = fit_text("a\nb", GOTHIC, 100, 100, 10, 10, "en", leading_ratio=1.5)
    assert fitted.leading == 15
    assert fitted.lines == ("a", "b")


# --- typographic punctuation --------------------------------------------------------------------

def _latin_face() -> str:
    import matplotlib
    from pathlib import Path
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    pdfmetrics.registerFont(TTFont("TestDejaVuSerif", str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSerif.ttf")))
    return "TestDejaVuSerif"


TYPED = "It's \"late\"... - go 'now' -- in the '90s."


def test_english_marks_are_set_typographically_where_the_face_has_latin_ones():
    assert break_lines(TYPED, _latin_face(), SIZE, 500, "en") == ["It’s “late”… – go ‘now’ – in the ’90s."]


def _ipaex_as_a_game_font() -> str:
    """IPAex Gothic registered under another name, as a game's own font is: no Latin face stands in for it."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    from cardgen.fonts import FONT_FILES, fonts_dir

    pdfmetrics.registerFont(TTFont("TestOwnIPAex", str(fonts_dir() / FONT_FILES[GOTHIC])))
    return "TestOwnIPAex"


def test_a_face_with_full_width_marks_changes_only_the_dash():
    # IPAex's quotes and ellipsis are full-width Japanese forms: an apostrophe one em wide is worse than a straight one
    own = _ipaex_as_a_game_font()
    assert break_lines(TYPED, own, SIZE, 500, "en") == ["It's \"late\"... – go 'now' – in the '90s."]
    assert fit_text(TYPED, own, 500, 50, SIZE, 6, "en").lines == ("It's \"late\"... – go 'now' – in the '90s.",)


def test_the_bundled_gothic_in_english_sets_its_marks_in_the_latin_face():
    # English in the Gothic role is set in Liberation Sans (fonts.face_of), which has Latin quotes
    assert break_lines(TYPED, GOTHIC, SIZE, 500, "en") == ["It’s “late”… – go ‘now’ – in the ’90s."]
    assert break_lines(TYPED, GOTHIC, SIZE, 500, "ja") == [TYPED]


def test_japanese_text_and_unspaced_hyphens_keep_their_marks():
    assert break_lines(TYPED, _latin_face(), SIZE, 500, "ja") == [TYPED]
    assert break_lines("rock-paper-scissors, -1, x -y", _latin_face(), SIZE, 500, "en") == ["rock-paper-scissors, -1, x -y"]


def test_quotes_open_and_close_across_styled_pieces():
    from cardgen.text import typographic_runs

    pieces = [("Say \"", False), ("hi", True), ("\" and 'bye'...", False)]
    assert typographic_runs(pieces, "en", _latin_face()) == [("Say “", False), ("hi", True), ("” and ‘bye’…", False)]


# --- number groups (issue 27: 「（4・|5）」 split across lines) -----------------------------------

@pytest.mark.parametrize("group", ["（4・5）", "（13・5）", "3～5", "１２", "10：30"])
def test_a_japanese_line_never_splits_a_group_of_numbers(group):
    text = f"ゴブリン退治{group}、古代遺跡の調査（5・5）、隊商の護衛{group}。"
    for n in range(6, 16):  # every measure: wherever the line would fall, it falls outside the group
        lines = break_lines(text, GOTHIC, SIZE, em(n), "ja")
        assert "".join(lines) == text
        joined = "|".join(lines)
        assert group in joined.replace("|", "") and joined.count(group) == 2, (n, lines)


def test_a_doubled_phrase_stays_whole():
    text = "卵にひびが！ 中から聞こえるコツコツという音に、気が気でない。"
    assert budoux.load_default_japanese_parser().parse("気が気でない。") == ["気が", "気でない。"]  # BudouX splits it
    for n in range(10, 30):
        lines = break_lines(text, GOTHIC, SIZE, em(n), "ja")
        assert "".join(lines) == text
        assert any("気が気でない" in line for line in lines), (n, lines)


def test_a_document_paragraph_does_not_end_on_a_character_or_two():
    from cardgen.text import break_spans

    text = "達成：気のいい竜だ。話せば判ってもらえた。依頼達成。名声6を獲得。"
    widths = [stringWidth(ch, GOTHIC, SIZE) for ch in text]
    for n in range(12, 30):
        spans = break_spans(text, widths, em(n), "ja", SIZE, justified=True)
        last = text[spans[-1].start:spans[-1].end]
        assert len(spans) == 1 or len(last) >= 4, (n, [text[s.start:s.end] for s in spans])
        assert not any(text[s.start:s.end].endswith("名声") for s in spans)  # 名声|6: the number stays with its noun


def test_a_dot_inside_a_katakana_word_joins_it_and_a_list_dot_separates():
    """「アクション・ポイント」 is one word; in 「ボスイベント・尿意ノルマ・確定報酬」 the dots are a list's."""
    word = "あなたは2アクション・ポイントを得る。"
    for n in range(12, 19):  # wide enough for 「2アクション・ポイント」 (11 em) on a line of its own
        assert not any(line.endswith("アクション・") for line in break_lines(word, GOTHIC, SIZE, em(n), "ja"))
    listed = "表は共通、裏（ボスイベント・尿意ノルマ・確定報酬）は1枚ごとに違う。"
    assert any(line.endswith("ボスイベント・") for n in range(12, 22) for line in break_lines(listed, GOTHIC, SIZE, em(n), "ja"))


def test_a_text_that_fits_its_measure_is_one_line_weighed_nowhere():
    """A text no wider than its measure is one line, and no break of it is weighed: BudouX never
    reads a Japanese one (most of a rulebook's cells, headings and short paragraphs fit)."""
    from cardgen import text as text_module
    from cardgen.text import LineSpan, break_spans

    text_module.phrase_boundaries.cache_clear()
    japanese = "山札の上から１枚引きます。"
    spans = break_spans(japanese, [10.0] * len(japanese), 10.0 * len(japanese), "ja", 10.0, justified=True)
    assert spans == [LineSpan(0, len(japanese), last=True)]
    assert text_module.phrase_boundaries.cache_info().misses == 0
    english = "  Draw one card.  "
    spans = break_spans(english, [5.0] * len(english), 5.0 * 14, "en", 10.0, balanced=True)
    assert spans == [LineSpan(2, 16, last=True)]
    # one point narrower, the Japanese text is weighed (and broken) as before
    spans = break_spans(japanese, [10.0] * len(japanese), 10.0 * len(japanese) - 1, "ja", 10.0, justified=True)
    assert len(spans) == 2 and text_module.phrase_boundaries.cache_info().misses == 1


def test_phrase_boundaries_are_budoux_own():
    """`phrase_boundaries` adds up BudouX's model itself (padding for its bounds checks): on every
    line of the bundled games' rules and cards, and on random strings of the characters its
    features are made of, it finds exactly the boundaries BudouX's `Parser.parse` finds."""
    import random
    from pathlib import Path

    from cardgen import text as text_module

    parser = budoux.load_default_japanese_parser()

    def budoux_bounds(text: str) -> frozenset[int]:
        ends, at = set(), 0
        for phrase in parser.parse(text):
            at += len(phrase)
            ends.add(at)
        return frozenset(e for e in ends if 0 < e < len(text))

    root = Path(__file__).resolve().parents[1] / "card_data"
    texts = [line for path in sorted(root.rglob("*")) if path.suffix in (".yaml", ".md", ".j2")
             for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rnd = random.Random(7)
    alphabet = "あいうかきくけこをにはが山札手引捨場、。「」（）・ー0123456789ABab カードアクション\u3000"
    texts += ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 50))) for _ in range(2000)]
    assert len(texts) > 3000
    wrong = [t for t in texts if text_module.phrase_boundaries.__wrapped__(t) != budoux_bounds(t)]
    assert wrong == []
    assert sum(len(budoux_bounds(t)) for t in texts) > 2000  # the texts really have phrases to find
