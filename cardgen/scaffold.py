"""`cardgen new NAME`: a game folder that checks and builds as it is, for a designer to change.

Without `--from` it is a small sample game (three card types, a layout of its own whose image
box draws the sample SVG art of `art/`, an icon of `icons/` inside a card text, rules in Japanese
and English, a standard-deck mapping); with `--from GAME` it is a
copy of a bundled game's folder, with the bundled templates that game uses copied into its own
`templates/` and its id changed to NAME, so nothing still depends on the bundled game's id.
`--cards csv|xlsx` keeps the card list in a spreadsheet instead of cards.yaml.

`--engine` also writes, beside the folder, an installable package NAME-rules/ with the sample
game's rules (cardgen/assets/rules_package: an engine on cardgen.engine.api registered under the
entry point NAME, a bot, tests calling cardgen.testing, a README), and names it in game.yaml.
"""

from __future__ import annotations

import json
import re
import shutil
from importlib import resources
from pathlib import Path

from .errors import CardgenError
from .io import paths
from .io.spreadsheet import CARD_LISTS
from .langs import LANGUAGES, MAX_LANGUAGES, code_problem
from .load import bundled_games_dir, bundled_game_ids, load_game

CARD_FORMATS = ("yaml", "csv", "xlsx")
# The files of a game's own templates/ that `--from` copies (each found by paths.game_template).
OWN_TEMPLATES = ("layout.yaml", "playtest.yaml", "report.yaml", "figures.yaml", "style.yaml", "words.yaml")


def new_game(target: str | Path, from_game: str | None = None, cards: str = "yaml", engine: bool = False,
             languages: tuple[str, ...] | None = None) -> Path:
    """Write a new game folder at `target` (its name is the game id); return the folder. With
    `engine`, also its rules package `<id>-rules/` beside it (see rules_package_path). The sample
    is written in `languages` (default: ja and en)."""
    folder = Path(target)
    game_id = folder.name
    bad = paths.portable_name_problem(game_id, "game name")
    if bad:
        raise CardgenError(f"{bad}; the folder name is the game's id")
    if cards not in CARD_FORMATS:
        raise CardgenError(f"--cards {cards!r} is unknown; use one of {', '.join(CARD_FORMATS)}")
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise CardgenError(f"{folder}: already exists and is not an empty folder; choose another name or remove it")
    if languages is not None:
        if from_game is not None:
            raise CardgenError(f"--languages writes the sample game in those languages, and --from {from_game} copies a game "
                               "in its own; use one of them")
        if not languages:
            raise CardgenError("--languages is empty; give one or more codes, e.g. --languages en or --languages fr,en")
        for code in languages:
            if code_problem(code):
                raise CardgenError(f"--languages: {code_problem(code)}")
        if len(set(languages)) != len(languages) or len(languages) > MAX_LANGUAGES:
            raise CardgenError(f"--languages {','.join(languages)}: name each language once, at most {MAX_LANGUAGES}")
    if from_game is not None and from_game not in bundled_game_ids():
        raise CardgenError(f"--from {from_game}: no such bundled game; use one of {', '.join(bundled_game_ids())}")
    package = rules_package_path(folder)
    if engine:
        if from_game is not None:
            raise CardgenError(f"--engine writes the rules of the sample game, and --from {from_game} copies a game that "
                               "has its own engine; use one of them")
        if package.exists():
            raise CardgenError(f"{package}: already exists; choose another name or remove it")
    # built in a hidden folder beside it, under the game's own name (so it loads), then moved
    # into place: the folder appears whole, or not at all
    scratch = folder.parent / f".{game_id}.new"
    if scratch.exists():
        shutil.rmtree(scratch)
    staging = scratch / game_id
    try:
        scratch.mkdir(parents=True)
        if from_game is None:
            _write_sample(staging, game_id, languages or LANGUAGES)
        else:
            _copy_bundled(staging, from_game, game_id)
        if cards != "yaml":
            _card_list_as(staging, cards)
        if engine:  # after the card list is converted: the game loads only once its engine is installed
            _name_engine(staging, game_id)
            _write_rules_package(scratch / package.name, game_id)
        if folder.exists():
            folder.rmdir()
        staging.rename(folder)
        if engine:
            (scratch / package.name).rename(package)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return folder


def _copy_bundled(folder: Path, source_id: str, game_id: str) -> None:
    shutil.copytree(bundled_games_dir() / source_id, folder)
    source = load_game(source_id)
    own = folder / paths.GAME_TEMPLATES
    for name in OWN_TEMPLATES:
        found = paths.game_template(source, name)
        if found is not None:
            own.mkdir(exist_ok=True)
            shutil.copyfile(found, own / name)
    game_yaml = folder / "game.yaml"
    text = game_yaml.read_text(encoding="utf-8")
    renamed, count = re.subn(rf"(?m)^id:[ \t]*['\"]?{re.escape(source_id)}['\"]?[ \t]*$", f"id: {game_id}", text)
    if count != 1:
        raise CardgenError(f"{source_id}: cannot find the line 'id: {source_id}' in its game.yaml to rename it")
    game_yaml.write_text(renamed, encoding="utf-8")


def _card_list_as(folder: Path, fmt: str) -> None:
    """Replace the folder's cards.yaml by the same card list as cards.<fmt>."""
    from .export import to_csv, to_xlsx

    game = load_game(folder)
    (folder / "cards.yaml").unlink()
    if fmt == "csv":
        (folder / "cards.csv").write_text(to_csv(game), encoding="utf-8")
    else:
        (folder / "cards.xlsx").write_bytes(to_xlsx(game))
    assert sum((folder / name).exists() for name in CARD_LISTS) == 1


def rules_package_path(folder: Path) -> Path:
    """Where `--engine` writes the game's rules package: `<id>-rules/` beside the game folder."""
    return folder.parent / f"{folder.name}-rules"


def rules_module_name(game_id: str) -> str:
    """The Python package of a game's rules: `<id>_rules`, with what an identifier cannot hold
    replaced by `_` (a game id may hold hyphens and start with a digit)."""
    name = re.sub(r"\W", "_", game_id.lower())
    return f"{'game_' if name[0].isdigit() else ''}{name}_rules"


def _name_engine(folder: Path, game_id: str) -> None:
    """game.yaml names the engine and gives its rule parameters; the rules text says how it plays."""
    with open(folder / "game.yaml", "a", encoding="utf-8") as out:
        out.write(ENGINE_KEYS.format(id=game_id))
    (folder / paths.GAME_TEMPLATES / "report.yaml").write_text(SAMPLE_REPORT, encoding="utf-8")
    for name, plain, in_turn in RULES_IN_TURN:
        path = folder / name
        path.write_text(path.read_text(encoding="utf-8").replace(plain, in_turn), encoding="utf-8")


def _write_rules_package(package: Path, game_id: str) -> None:
    module = rules_module_name(game_id)
    templates = resources.files("cardgen") / "assets" / "rules_package"
    files = {"pyproject.toml": "pyproject.toml.tmpl", "README.md": "README.md.tmpl",
             f"src/{module}/__init__.py": "init.py.tmpl", f"src/{module}/rules.py": "rules.py.tmpl",
             "tests/test_rules.py": "test_rules.py.tmpl"}
    for name, template in files.items():
        text = (templates / template).read_text(encoding="utf-8")
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("__GAME__", game_id).replace("__MODULE__", module), encoding="utf-8")


def _write_sample(folder: Path, game_id: str, languages: tuple[str, ...] = LANGUAGES) -> None:
    (folder / paths.GAME_TEMPLATES).mkdir(parents=True)
    (folder / "art").mkdir()
    (folder / "icons").mkdir()
    rules = {"ja": SAMPLE_RULES_JA, "en": SAMPLE_RULES_EN, "fr": SAMPLE_RULES_FR, "de": SAMPLE_RULES_DE}
    files = {
        "game.yaml": _localise(SAMPLE_GAME.format(id=game_id), languages),
        "cards.yaml": _localise(SAMPLE_CARDS, languages),
        **{f"rules.{lang}.md": rules.get(lang, SAMPLE_RULES_EN) for lang in languages},
        "mapping.yaml": _localise(SAMPLE_MAPPING, languages),
        f"{paths.GAME_TEMPLATES}/layout.yaml": SAMPLE_LAYOUT,
        "art/sun.svg": SAMPLE_ART.format(fill="#E8A33D", shape='<circle cx="50" cy="50" r="30"/>'),
        "art/moon.svg": SAMPLE_ART.format(fill="#5B6C9A", shape='<path d="M62 18a34 34 0 1 0 0 64a27 27 0 1 1 0-64z"/>'),
        "icons/sun.svg": SAMPLE_ICON,
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")


SAMPLE_GAME = """\
# {id}: a new game made by `cardgen new`. Change anything; `cardgen check {id}` says what is wrong
# and where. The format of this file and of cards.yaml: card_data/SCHEMA.md in cardgen.
id: {id}
<<languages>>title: <<title>>
players: {{min: 2, max: 4}}
card_size: poker
summary:
<<summary>>
card_fields:
  power: {{type: int, min: 1, max: 9, required: true, label: <<power>>}}
  suit: {{type: enum, values: [sun, moon], required: true, label: <<suit>>}}
  ability: {{type: text, label: <<ability>>}}
labels:
  suit:
    sun: <<sun>>
    moon: <<moon>>
components:
  - {{id: rules, name: <<rulebook>>, count: 1}}
"""

# The sample's texts in the languages cardgen ships words for; a game in another language gets
# the English ones to translate. (French has an accented card name, so the Latin font is seen.)
SAMPLE_TEXTS: dict[str, dict[str, str]] = {
    "title": {"ja": "新しいゲーム", "en": "A New Game", "fr": "Un nouveau jeu", "de": "Ein neues Spiel"},
    "summary": {"ja": "太陽と月のカードで強さを比べる、小さなサンプルゲームです。",
                "en": "A small sample game in which suns and moons compare their strength.",
                "fr": "Un petit jeu d’exemple où soleils et lunes comparent leur force.",
                "de": "Ein kleines Beispielspiel, in dem Sonnen und Monde ihre Stärke vergleichen."},
    "power": {"ja": "強さ", "en": "Power", "fr": "Force", "de": "Stärke"},
    "suit": {"ja": "種類", "en": "Suit", "fr": "Couleur", "de": "Farbe"},
    "ability": {"ja": "能力", "en": "Ability", "fr": "Capacité", "de": "Fähigkeit"},
    "sun": {"ja": "太陽", "en": "Sun", "fr": "Soleil", "de": "Sonne"},
    "moon": {"ja": "月", "en": "Moon", "fr": "Lune", "de": "Mond"},
    "eclipse": {"ja": "日食", "en": "Eclipse", "fr": "Éclipse", "de": "Finsternis"},
    "eclipse_ability": {"ja": "出したとき、:sun:のカード1枚を捨てる。", "en": "When played, discard one :sun: card.",
                        "fr": "Quand elle est jouée, défaussez une carte :sun:.",
                        "de": "Wenn gespielt, wirf eine :sun:-Karte ab."},
    "rulebook": {"ja": "ルール説明書", "en": "rulebook", "fr": "livret de règles", "de": "Spielregel"},
    "has_ability": {"ja": "能力があるため", "en": "it has an ability", "fr": "elle a une capacité", "de": "sie hat eine Fähigkeit"},
}
_PLACE = re.compile(r"<<(\w+)>>")
_NEEDS_QUOTES = re.compile(r"[{}\[\],]|: | #|:$|^[\s:!&*|>'\"%@`?#-]|\s$")  # what a plain YAML flow scalar cannot hold


def _in(key: str, lang: str) -> str:
    texts = SAMPLE_TEXTS[key]
    return texts.get(lang, texts["en"])


def _flow(key: str, languages: tuple[str, ...]) -> str:
    """A sample text as a YAML flow mapping, {ja: 太陽, en: Sun}, quoting what YAML would misread."""
    def shown(text: str) -> str:
        return json.dumps(text, ensure_ascii=False) if _NEEDS_QUOTES.search(text) else text
    return "{" + ", ".join(f"{lang}: {shown(_in(key, lang))}" for lang in languages) + "}"


def _localise(template: str, languages: tuple[str, ...]) -> str:
    """A sample file with each <<key>> as that text in `languages` (<<summary>> as block lines,
    <<languages>> as game.yaml's `languages:` line, which a game in the default pair leaves out)."""
    def one(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "languages":
            return "" if languages == LANGUAGES else f"languages: [{', '.join(languages)}]\n"
        if key == "summary":
            return "\n".join(f"  {lang}: {_in(key, lang)}" for lang in languages)
        return _flow(key, languages)
    return _PLACE.sub(one, template)

# What `--engine` adds to game.yaml.
ENGINE_KEYS = """\
# The rules engine: the entry point {id} of the installed package {id}-rules (beside this
# folder; `pip install -e {id}-rules`). Its parameters are the numbers the rules read.
engine: {id}
parameters:
  hand: 3            # cards dealt to each player
"""

# The balance report's runs (`cardgen report`), with the bots of the rules package.
SAMPLE_REPORT = """\
# Balance report runs (`cardgen report`): title, players, policies (one for every seat, or one
# per seat), rotate (shift the policies one seat each game), games (a run without it plays 2000;
# `cardgen report --games N` sizes the whole report). The policies are the bots of the rules
# package (POLICIES in its rules.py) and the search agents every engine has.
runs:
  - title: {ja: 貪欲方針とランダム方針, en: "Greedy against random"}
    players: 2
    policies: [greedy, random]
    rotate: true
  - title: {ja: ランダム方針の4人（比較用）, en: "Four random bots (baseline)"}
    players: 4
    policies: [random]
  - title: {ja: 探索するプレイヤーと貪欲方針, en: "A searching player against greedy bots"}
    players: 3
    policies: ["ismcts:30:greedy", greedy, greedy]
    rotate: true
    games: 200
"""

# With an engine the sample is played in turn, as its rules code plays it: (file, old, new).
RULES_IN_TURN = (
    ("rules.ja.md", "2. 全員が同時に1枚を出し、**強さ**が最も大きいカードを出した人がそのカードを全部もらいます。",
     "2. 最初のプレイヤーから順番に1枚ずつ出し、**強さ**が最も大きいカードを出した人（同じなら先に出した人）がそのカードを全部もらい、次の1枚を最初に出します。"),
    ("rules.en.md", "2. Everyone plays one card at once; whoever played the highest **power** takes all of them.",
     "2. In turn, starting with the first player, each plays one card; whoever played the highest **power** takes all of them "
     "(the first played wins a tie) and plays first next."),
)

SAMPLE_CARDS = """\
# One entry per card type; `count` copies of each. Fields are declared in game.yaml.
total: 12
types:
  - id: sun
    name: <<sun>>
    count: 5
    suit: sun
    copies: [{power: 1}, {power: 3}, {power: 5}, {power: 7}, {power: 9}]
  - id: moon
    name: <<moon>>
    count: 5
    suit: moon
    copies: [{power: 2}, {power: 4}, {power: 6}, {power: 8}, {power: 9}]
  - id: eclipse
    name: <<eclipse>>
    count: 2
    suit: moon
    power: 5
    # :sun: is an icon inside the text: icons/sun.svg of this folder (or a bundled icon: :star:, :heart: ...)
    ability: <<eclipse_ability>>
"""

SAMPLE_LAYOUT = """\
# The card faces of this game: boxes placed in mm on the card (W and H are its width and
# height). Text is a Jinja template over the card's fields. See the bundled layouts in
# cardgen's templates/ for more (icons, backs, strings, vars).
include: [common/backs.yaml]

colours:
  paper: "#FFFDF8"
  ink: "#2B2B2B"
  soft_ink: "#6B6B6B"
  sun: "#E8A33D"
  sun_tint: "#FBEBD0"
  moon: "#5B6C9A"
  moon_tint: "#E3E7F1"

cards:
  - front:
      - {name: paper, kind: rect, at: full, fill: paper, bleed: true}
      - {name: band, kind: rect, at: [0, 0, W, 16], fill: "{{ card.suit }}_tint", bleed: true}
      - {name: power, kind: text, at: [4, 3.5, 12, 10], text: "{{ card.power }}", font: mincho, size: 20, align: center, valign: middle, colour: "{{ card.suit }}", bold: true}
      - {name: name, kind: text, at: [17, 3.5, "W-21", 10], text: "{{ name }}", font: mincho, size: 14, min_size: 8, valign: middle, colour: ink, bold: true}
      # the picture: a file of art/ named by the card's suit (PNG, JPEG or SVG; replace them with yours)
      - {name: art, kind: image, at: [6, 20, "W-12", 36], src: "art/{{ card.suit }}.svg", fit: cover, radius: 2.5}
      - {name: art_frame, kind: rect, at: [6, 20, "W-12", 36], stroke: "{{ card.suit }}", stroke_width: 0.6, radius: 2.5}
      - {name: ability, kind: text, at: [6, 60, "W-12", 18], text: "{{ card.ability or '' }}", size: 9, min_size: 6.5, leading: 1.32, colour: ink}
"""

SAMPLE_RULES_JA = """\
# 新しいゲーム

{{ players }}人で遊ぶ、{{ total }}枚のカードのサンプルゲームです。このファイルを書き換えて、あなたのゲームのルールにしてください。

## 内容物

{{ component_list() }}

## 遊び方

1. カードをよく混ぜ、各プレイヤーに3枚ずつ配ります。
2. 全員が同時に1枚を出し、**強さ**が最も大きいカードを出した人がそのカードを全部もらいます。
3. 手札がなくなったら、もらったカードの多い人の勝ちです。
"""

SAMPLE_RULES_EN = """\
# A New Game

A sample game for {{ players }} players with {{ total }} cards. Rewrite this file into the rules of your game.

## Components

{{ component_list() }}

## How to play

1. Shuffle the cards and deal three to each player.
2. Everyone plays one card at once; whoever played the highest **power** takes all of them.
3. When the hands are empty, whoever took the most cards wins.
"""

SAMPLE_RULES_FR = """\
# Un nouveau jeu

Un jeu d’exemple pour {{ players }} joueurs avec {{ total }} cartes. Réécrivez ce fichier avec les règles de votre jeu.

## Matériel

{{ component_list() }}

## Déroulement

1. Mélangez les cartes et distribuez-en trois à chaque joueur.
2. Tout le monde joue une carte en même temps ; celui qui a joué la plus grande **force** les remporte toutes.
3. Quand les mains sont vides, celui qui a remporté le plus de cartes gagne.
"""

SAMPLE_RULES_DE = """\
# Ein neues Spiel

Ein Beispielspiel für {{ players }} Personen mit {{ total }} Karten. Schreibt diese Datei zu den Regeln eures Spiels um.

## Spielmaterial

{{ component_list() }}

## Spielablauf

1. Mischt die Karten und gebt jeder Person drei.
2. Alle spielen gleichzeitig eine Karte; wer die höchste **Stärke** gespielt hat, bekommt alle.
3. Sind die Hände leer, gewinnt, wer die meisten Karten bekommen hat.
"""

SAMPLE_MAPPING = """\
# Playing this game with a standard deck (format: card_data/MAPPING.md in cardgen).
decks: 1
value_field: power
suits:
  field: suit
  map:
    sun: {suit: H, name: <<sun>>}
    moon: {suit: S, name: <<moon>>}
types:
  eclipse: {print: true, reason: <<has_ability>>}
"""

# An inline icon is drawn in the text's colour, whatever colours the file has.
SAMPLE_ICON = """\
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="100" height="100">
  <circle cx="50" cy="50" r="22"/>
  <g stroke="#000" stroke-width="8" stroke-linecap="round">
    <path d="M50 6v14M50 80v14M6 50h14M80 50h14M19 19l10 10M71 71l10 10M19 81l10-10M71 29l10-10"/>
  </g>
</svg>
"""

SAMPLE_ART = """\
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="100" height="100">
  <rect width="100" height="100" rx="8" fill="#FFFDF8"/>
  <g fill="{fill}">{shape}</g>
</svg>
"""
