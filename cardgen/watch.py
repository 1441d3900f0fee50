"""`cardgen watch PATH`: build once, then rebuild on every save in the game folder (or in the
bundled templates it uses), redrawing only what the change touches (the build cache,
cardgen/cache.py), and keep `OUT/<game>/preview.html` current.

`Watcher.rebuild` is one rebuild (a test calls it directly); `watch` is the loop around it.  A
mistake in the data (DataError, any CardgenError) is printed and shown on the preview page, and
the watcher keeps running; the next save that fixes it rebuilds.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable

from .build import BuildOptions, build_game, check_build, make_options, with_target
from .errors import CardgenError
from .load import load_game

DEBOUNCE_MS = 50  # a save's burst of events is one rebuild; small, so the preview follows within 2 s

# What editors and office programs write beside the file being saved, never an input: Office lock
# files (~$cards.xlsx), Vim swap files (.cards.yaml.swp, .swo, .swx; 4913, Vim's write test),
# backups (cards.yaml~), Emacs locks (.#cards.yaml, also hidden) and `sed -i` temporaries (sedAbC123).
_TEMPORARY = re.compile(r"~\$.*|.*\.sw[a-p]|.*~|\.#.*|sed[A-Za-z0-9]{6}|4913|.*\.tmp")


def is_temporary(path: str | Path) -> bool:
    """Whether a file name is an editor's or office program's temporary or lock file."""
    return _TEMPORARY.fullmatch(Path(path).name) is not None


def watch_options(out_dir: str, lang: str, allow_overflow: bool = False, preset: str | None = None, paper: str = "a4",
                  imposition: str = "duplex", card_size: str | None = None) -> BuildOptions:
    """The build options of `cardgen watch`: the same as `cardgen build` with the same values."""
    options = make_options(out_dir, paper, card_size, lang=lang, allow_overflow=allow_overflow, imposition=imposition)
    return with_target(options, preset, outputs_given=False) if preset is not None else options


@dataclass
class Watcher:
    """Rebuilds one game (a bundled id or a folder) into `options.out_dir`."""

    spec: str
    options: BuildOptions
    echo: Callable[[str], None] = print
    game_id: str | None = None
    title: str = ""
    root: Path | None = None
    language: Any = None  # the preview page's language (preview.PageLanguage), once the game has loaded
    last_cards: list = field(default_factory=list)  # the last good build's preview, shown under an error
    digests: dict[str, str | None] = field(default_factory=dict)  # path -> digest of its bytes when last named

    def really_changed(self, paths: Iterable[str | Path]) -> list[str]:
        """The names of the input files among `paths` whose bytes differ from when they were last seen
        (a save without an edit, or an editor's temporary file, names nothing)."""
        names = set()
        for path in paths:
            if not self.wanted(str(path)):
                continue
            try:
                digest: str | None = hashlib.sha256(Path(path).read_bytes()).hexdigest()
            except OSError:  # deleted, or a folder
                digest = None
            key = os.path.realpath(path)
            if key not in self.digests or self.digests[key] != digest:
                names.add(Path(path).name)
            self.digests[key] = digest
        return sorted(names)

    def rebuild(self, changed: Iterable[str | Path] = ()) -> bool:
        """Build once (after `changed` files); print one line saying what was redrawn and how long it took.

        Returns whether the build passed; a CardgenError is printed and put on the preview page.
        """
        from .preview import page_language, write_page

        names = self.really_changed(changed)
        started = time.perf_counter()
        try:
            game = load_game(self.spec)
            lang = self.options.lang or game.languages[0]
            self.game_id, self.title, self.root = game.id, game.title.get(lang), game.root
            self.language = page_language(game, lang) if lang in game.languages else None
            if not self.digests:  # the first build: what the files hold now, so a later save without an edit names nothing
                self.really_changed(p for p in game.root.rglob("*") if p.is_file() and self.wanted(str(p)))
            check_build(game, self.options)
            drawn = []
            if "png" in self.options.outputs and len(self.options.outputs) > 1:
                # First the faces and preview.html (the print-shop PDF and the changed PNGs), so the
                # page shows the change at once; then the rest, which reads that PDF from the cache.
                drawn = build_game(game, replace(self.options, outputs=("png",))).drawn
            result = build_game(game, self.options)
        except Exception as exc:  # a long-running watcher reports even a bug and waits for the next save
            if isinstance(exc, CardgenError):
                problems = [str(p) for p in exc.problems]
            elif os.environ.get("CARDGEN_DEBUG"):
                raise
            else:
                problems = [f"internal error: {type(exc).__name__}: {exc} (a bug in cardgen, not in your data)"]
            message = "\n".join(problems)
            self.echo(f"{_clock()} {_what(names)}build failed:\n" + "\n".join(f"  error: {p}" for p in problems))
            game_id = self.game_id or Path(self.spec).name
            try:
                write_page(Path(self.options.out_dir) / game_id, self.title or game_id, self.last_cards, error=message,
                           language=self.language)
            except (OSError, CardgenError) as write_error:
                self.echo(f"  (preview.html not written: {write_error})")
            return False
        if result.preview:
            self.last_cards = result.preview
        drawn = _merge_drawn(drawn, result.drawn)
        seconds = time.perf_counter() - started
        self.echo(f"{_clock()} {_what(names)}rebuilt {', '.join(drawn) if drawn else 'nothing (unchanged)'} "
                  f"in {seconds:.2f} s")
        return True

    def paths(self) -> list[Path]:
        """What to watch: the game folder and the bundled templates."""
        from .io.paths import bundled_templates

        roots = [self.root] if self.root is not None else [Path(self.spec)]
        templates = bundled_templates()
        if templates.is_dir():
            roots.append(templates)
        return [p for p in roots if p.is_dir()]

    def wanted(self, path: str) -> bool:
        """Whether a changed path is an input: not our own output, not a hidden or temporary file."""
        out = os.path.realpath(self.options.out_dir)
        real = os.path.realpath(path)
        if real == out or real.startswith(out + os.sep):
            return False
        return not is_temporary(path) and not any(part.startswith(".") for part in Path(path).parts[-2:])


def watch(spec: str, options: BuildOptions, echo: Callable[[str], None] = print,
          stop_event=None, rust_timeout: int | None = None) -> Watcher:
    """Build, then rebuild on every change until Ctrl-C (KeyboardInterrupt) or `stop_event` is set."""
    import watchfiles

    watcher = Watcher(spec, options, echo)
    watcher.rebuild()
    from .preview import own_page

    page = own_page(watcher.language) if watcher.language is not None else "preview.html"
    preview = Path(options.out_dir) / (watcher.game_id or Path(spec).name) / page
    echo(f"watching {', '.join(str(p) for p in watcher.paths())}; preview: {preview} (Ctrl-C stops)")
    for changes in watchfiles.watch(*watcher.paths(), watch_filter=lambda change, path: watcher.wanted(path),
                                    debounce=DEBOUNCE_MS, step=DEBOUNCE_MS, stop_event=stop_event,
                                    rust_timeout=rust_timeout if rust_timeout is not None else 5000, yield_on_timeout=False):
        watcher.rebuild(path for _, path in changes)
    return watcher


def _merge_drawn(*parts: list[str]) -> list[str]:
    """One list of what was drawn: names once, counts ("8 PNG") added, nothing that says 0."""
    out: dict[str, int | None] = {}
    for item in (i for part in parts for i in part):
        number, _, what = item.partition(" ")
        if number.isdigit():
            out[what] = (out.get(what) or 0) + int(number)
        else:
            out.setdefault(item, None)
    return [what if n is None else f"{n} {what}" for what, n in out.items() if n != 0]


def _clock() -> str:
    return time.strftime("%H:%M:%S")


def _what(names: list[str]) -> str:
    if not names:
        return ""
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    return f"{shown} changed: "
