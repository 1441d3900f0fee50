"""The build cache: outputs kept on disk under a hash of exactly what they are made from, so a
rebuild redraws only what changed.

    OUT/.cache/<game>/<sha256 key>     one entry per output: a face PNG, a TTS sheet, a PDF

(beside the game's outputs, not among them: OUT/<game>/ holds only what a build writes, and a
build that fails writes nothing there)

A key is a SHA-256 of the inputs an output reads (`Keys`): for a face, its card's data and the
sizes its texts are set at (shared with the other cards a text box is drawn on), side, language, pixel size, bleed,
dpi, the game's files other than its card list and rules, the bundled templates and fonts,
and cardgen's own code; for a whole document, the files it reads.  The cache is bounded
(`MAX_BYTES`, oldest entries go first) and untrusted: an entry that is not a regular file,
too big, or whose checksum fails is a miss (and is deleted), never an error.  Delete the
folder to clear it; `cardgen build --no-cache` neither reads nor writes it.

An output folder is not the user's own (a shared drive, an archive that shipped
`output/.cache`, anyone who can write there), so every entry carries an HMAC-SHA256 of its key
and its bytes under a secret that only this user's account holds (`user_secret`, 32 random
bytes in `$CARDGEN_CACHE_HOME`, else `$XDG_CACHE_HOME/cardgen/`, else `~/.cache/cardgen/`,
made 0600 on first use).  An entry moved to another key, rewritten with a checksum, or made
with another secret (a cache folder copied from elsewhere) is a miss; when the secret cannot
be read or made safely, the cache is off and the build draws everything.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import hmac
import json
import os
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from . import __version__

CACHE_DIR = ".cache"
MAX_BYTES = 1 << 30  # the whole cache of one game
MAX_ENTRY_BYTES = 256 << 20
MAX_TREE_FILES = 20_000  # files of a game folder that are hashed; beyond that the rest count by name, size and time
MAX_HASHED_BYTES = 512 << 20  # a file bigger than any input cardgen reads counts by size and time too
_MAGIC = b"cardgen-cache-2\n"  # -1 entries carried a plain SHA-256 anyone could recompute
_MAC_BYTES = 32
SECRET_FILE = "cache-secret"
SECRET_BYTES = 32
HOME_ENV = "CARDGEN_CACHE_HOME"  # the folder of the secret (tests point it at a temporary one)
_KEY_CHARS = frozenset("0123456789abcdef")
# Files of a game folder that the card faces do not read (the rulebooks' sources).
_NOT_FACES = ("rules.",)
_CARD_LISTS = ("cards.",)  # cards.yaml, cards.csv, ...: card data enters keys as loaded, per type


def digest(*parts: Any) -> str:
    """A SHA-256 hex key of `parts` in a stable encoding (see `stable`)."""
    if all(_plain(p) for p in parts):  # most keys are strings, numbers and pairs of them: no walk needed
        text = json.dumps(parts, ensure_ascii=False, separators=(",", ":"))
    else:
        text = json.dumps([stable(p) for p in parts], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_PLAIN = (str, int, float, bool, type(None))


def _plain(value: Any) -> bool:
    """Whether json encodes `value` exactly as `stable` would (so `digest` may skip the walk)."""
    return type(value) in _PLAIN or (type(value) in (tuple, list) and all(type(v) in _PLAIN for v in value))


def stable(value: Any) -> Any:
    """`value` as JSON-able data that depends only on its content (never on a source line)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: stable(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "location"}
    if isinstance(value, Mapping):
        return [[str(k), stable(v)] for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))]
    if isinstance(value, (list, tuple)):
        return [stable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def read_regular(path: Path, limit: int, private: bool = False) -> bytes | None:
    """The bytes of the regular file at `path`, opened without following a link; None when there
    is none to open (missing, or a link); ValueError when it is not a regular file, is bigger than
    `limit`, cannot be read, or (with `private`) is not this user's own file closed to others."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            raise ValueError(f"{path}: not a regular file of at most {limit} bytes")
        # POSIX: owned by this user and closed to others (Windows keeps a profile's files to its user by ACL)
        if private and os.name == "posix" and (info.st_uid != os.getuid() or info.st_mode & 0o077):
            raise ValueError(f"{path}: not this user's own private file")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise ValueError(f"{path}: {exc}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise ValueError(f"{path}: grew past {limit} bytes")
    return data


# --- the user's secret ---------------------------------------------------------------------------

def user_cache_home() -> Path:
    """The user's own cardgen folder, which holds the cache secret."""
    if os.environ.get(HOME_ENV):
        return Path(os.environ[HOME_ENV])
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "cardgen"


def user_secret() -> bytes | None:
    """This user's cache secret, made on first use; None when it cannot be read or made safely
    (then nothing is cached)."""
    return _secret_in(str(user_cache_home()))


@functools.lru_cache(maxsize=8)
def _secret_in(home: str) -> bytes | None:
    path = Path(home) / SECRET_FILE
    found = _read_secret(path)
    if found is not None:
        return found
    try:
        os.makedirs(home, mode=0o700, exist_ok=True)
        temporary = path.with_name(f".{SECRET_FILE}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        try:
            with os.fdopen(fd, "wb", closefd=False) as handle:
                handle.write(secrets.token_bytes(SECRET_BYTES))
                handle.flush()
                os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temporary, path)  # never replaces a secret another build made meanwhile
        except FileExistsError:
            pass
        except OSError:  # no hard links here: a rename, which at worst replaces a secret made a moment ago
            if not path.exists():
                os.replace(temporary, path)
        finally:
            if os.path.lexists(temporary):
                os.unlink(temporary)
    except OSError:
        return None
    return _read_secret(path)


def _read_secret(path: Path) -> bytes | None:
    """The secret in `path` if it is this user's own regular file, unreadable by others."""
    try:
        data = read_regular(path, SECRET_BYTES, private=True)
    except ValueError:
        return None
    return data if data is not None and len(data) == SECRET_BYTES else None


class Cache:
    """A folder of entries, each `_MAGIC + HMAC(secret, key, data) + data`, named by its key."""

    def __init__(self, folder: Path, max_bytes: int = MAX_BYTES, secret: bytes | None = None):
        self.folder = Path(folder)
        self.max_bytes = max_bytes
        self._secret = secret if secret is not None else user_secret()
        # a planted link would send our writes elsewhere, and without a secret nothing can be trusted: no caching
        self.off = self._secret is None or self.folder.is_symlink() or self.folder.parent.is_symlink()
        self.hits = 0
        self.misses = 0

    def _mac(self, key: str, data: bytes) -> bytes:
        """The entry's tag: binds its bytes to its key (no swapping) under the user's secret (no forging)."""
        assert self._secret is not None
        mac = hmac.new(self._secret, _MAGIC + key.encode("ascii") + b"\0", hashlib.sha256)
        mac.update(data)
        return mac.digest()

    def _path(self, key: str) -> Path:
        if len(key) != 64 or not set(key) <= _KEY_CHARS:
            raise ValueError(f"not a cache key: {key!r}")
        return self.folder / key

    def get(self, key: str) -> bytes | None:
        """The entry's bytes, or None when it is absent or anything about it is wrong."""
        path = self._path(key)
        if self.off:
            self.misses += 1
            return None
        try:
            blob = read_regular(path, MAX_ENTRY_BYTES + len(_MAGIC) + _MAC_BYTES)
        except ValueError:
            blob = b""  # a folder, a device or an oversized file where the entry goes: wrong
        if blob is None:
            self.misses += 1
            return None
        end = len(_MAGIC) + _MAC_BYTES
        head, tag, data = blob[:len(_MAGIC)], blob[len(_MAGIC):end], blob[end:]
        if head != _MAGIC or not hmac.compare_digest(self._mac(key, data), tag):
            self.misses += 1
            self._discard(path)
            return None
        try:
            os.utime(path)  # recently used: pruned last
        except OSError:
            pass
        self.hits += 1
        return data

    def put(self, key: str, data: bytes) -> None:
        """Keep `data` under `key`; a full disk or unwritable folder only means no caching."""
        if len(data) > MAX_ENTRY_BYTES or self.off:
            return
        from .files import write_atomic

        path = self._path(key)
        blob = _MAGIC + self._mac(key, data) + data
        try:
            write_atomic(path, blob)
        except OSError:
            # something planted where the entry goes (an empty folder): cleared, and one more try
            self._discard(path)
            try:
                write_atomic(path, blob)
            except OSError:
                pass

    def get_json(self, key: str) -> Any:
        data = self.get(key)
        if data is None:
            return None
        try:
            return json.loads(data.decode("utf-8"))
        except ValueError:
            return None

    def put_json(self, key: str, value: Any) -> None:
        self.put(key, json.dumps(value, ensure_ascii=False, sort_keys=True).encode("utf-8"))

    def prune(self) -> int:
        """Delete the least recently used entries until the cache is within `max_bytes`, and anything
        that is not an entry; how many went.  Call it holding the output lock."""
        if self.off:
            return 0
        try:
            entries = []
            for entry in os.scandir(self.folder):
                info = entry.stat(follow_symlinks=False)
                entries.append((info.st_mtime_ns, info.st_size, Path(entry.path), stat.S_ISREG(info.st_mode)))
        except OSError:
            return 0
        removed = 0
        total = sum(size for _, size, _, regular in entries if regular)
        for _, size, path, regular in sorted(entries, key=lambda e: e[0]):
            if not (len(path.name) == 64 and set(path.name) <= _KEY_CHARS):
                self._discard(path)  # not an entry: a killed build's temporary file, or something planted
                total -= size if regular else 0
                removed += 1
                continue
            if regular and total <= self.max_bytes:
                continue
            self._discard(path)  # oldest first; anything that is not a regular file goes anyway
            total -= size if regular else 0
            removed += 1
        return removed

    @staticmethod
    def _discard(path: Path) -> None:
        try:
            if path.is_dir() and not path.is_symlink():
                path.rmdir()  # a folder planted where an entry goes: removed when empty, else left (never read)
            else:
                path.unlink()
        except OSError:
            pass


def cache_for(out_dir: Path, game_id: str) -> Cache:
    return Cache(Path(out_dir) / CACHE_DIR / game_id)


# --- what outputs read ----------------------------------------------------------------------------

@functools.lru_cache(maxsize=4096)
def _file_digest(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                h.update(block)
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    return h.hexdigest()


def tree_files(root: Path, skip: Iterable[Path] = ()) -> dict[str, str]:
    """{relative path: content digest} of the files under `root`, not following links and
    skipping hidden names and the folders in `skip` (an output folder inside the game folder)."""
    root = Path(root)
    skipped = {os.path.realpath(p) for p in skip}
    out: dict[str, str] = {}
    if not root.is_dir():
        return out
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__"
                         and os.path.realpath(os.path.join(folder, d)) not in skipped)
        for name in sorted(files):
            if name.startswith("."):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):
                out[rel] = "link" if stat.S_ISLNK(info.st_mode) else "other"
            elif len(out) >= MAX_TREE_FILES or info.st_size > MAX_HASHED_BYTES:
                out[rel] = f"size {info.st_size} mtime {info.st_mtime_ns}"
            else:
                out[rel] = _file_digest(path, info.st_size, info.st_mtime_ns)
    return out


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """cardgen's version and its own source, so a changed renderer never reuses an old drawing."""
    return digest(__version__, tree_files(Path(__file__).resolve().parent))


class Keys:
    """The cache keys of one game's outputs for one set of build options."""

    def __init__(self, game, options):
        from .io.paths import bundled_templates, package_root

        skip = [Path(options.out_dir)]
        game_files = tree_files(game.root, skip)
        bundled = {f"templates/{k}": v for k, v in tree_files(bundled_templates()).items()}
        bundled.update({f"fonts/{k}": v for k, v in tree_files(package_root() / "fonts").items()})
        files = {**{f"game/{k}": v for k, v in game_files.items() if not k.startswith(_CARD_LISTS)}, **bundled}
        face_files = {k: v for k, v in files.items()
                      if not (k.startswith("game/") and k[5:].startswith(_NOT_FACES)) and not k.startswith("templates/rulebook/")}
        self.game = game
        self.options = options
        self.code = code_digest()
        self.files = digest(self.code, files)  # everything but the card list
        self.face_files = digest(self.code, face_files)
        self.cards = digest([(c.id, c.type_id, c.copy, c.name, c.fields) for c in game.cards], game.card_types)
        self._card = {c.id: c for c in game.cards}
        self._type_entry = {t.id: t for t in game.card_types}

    def _own(self, card_id: str, side: str, card_size, lang: str) -> Any:
        """What a face's drawing reads of the card list: its own card and type, and the sizes its
        text boxes are set at (a box's size is shared by every card it is drawn on, so another
        card's longer text can shrink this face: the sizes say so without keying on them all)."""
        from .errors import DataError
        from .render.cards.card import text_sizes

        card = self._card[card_id]
        try:
            sizes: Any = text_sizes(self.game, card, side, lang, tuple(card_size))
        except (DataError, KeyError, ValueError, TypeError):
            sizes = None  # drawing the face reports the problem where it belongs
        return (card.id, card.type_id, card.copy, card.name, card.fields, self._type_entry.get(card.type_id),
                self.game.total, sizes)

    def face(self, card_id: str, side: str, group: str | None, card_size, bleed: float, lang: str, cmyk: bool) -> str:
        """A face's drawing: its own card, the sizes its texts are set at, the layout and other
        files, and the page it is drawn on (size, bleed, language, colour). A shared back
        (`group`, see card.back_group) is the same for every card of its group."""
        card = ("shared back", group) if side == "back" and group is not None else self._own(card_id, side, card_size, lang)
        return digest("face", self.face_files, card, side, list(card_size), bleed, lang, cmyk, cmyk and self.options.keep_small_colour,
                      self.options.corner_index)

    def deck(self, kind: str) -> str:
        """A file with every face (home sheets, print-shop PDF): every card and every option."""
        return digest(kind, self.face_files, self.cards, self._options)

    def document(self, kind: str, reads_cards: bool) -> str:
        """A document: the game's files, and the card list only when it reads more than the count."""
        cards = self.cards if reads_cards else len(self.game.cards)
        return digest(kind, self.files, cards, self._options)

    @functools.cached_property
    def _options(self) -> Any:
        return {k: v for k, v in stable(self.options).items() if k not in ("out_dir", "outputs", "cache", "calibration")}


class WrittenFiles:
    """Output files as their own cache: for each drawing key, the SHA-256 of the bytes written for
    it to the file `path_of(name)` under OUT/ (one small index entry), instead of a second copy
    of every file.

    A hit reads the file back and checks its digest, so a file that was changed, replaced or
    removed since is drawn again. Used for the face PNGs, hundreds of files per game, where a
    copy in the cache cost a second file write each on a cold build. Thread-safe for `made`
    (encoder threads call it); `save` keeps only the keys this build asked for.
    """

    def __init__(self, store: Cache, name: str, path_of: Callable[[str], Path]):
        self.store = store
        self.path_of = path_of
        self.index_key = digest("written files", name)
        found = store.get_json(self.index_key)
        self.known: dict[str, str] = ({k: v for k, v in found.items() if isinstance(k, str) and isinstance(v, str)}
                                      if isinstance(found, dict) else {})
        self.now: dict[str, str] = {}
        self.drawn = 0

    def get(self, key: str, name: str) -> bytes | None:
        """The bytes of file `name` if they are what was written for `key`, else None."""
        want = self.known.get(key)
        if want is None:
            return None
        try:
            data = read_regular(self.path_of(name), MAX_ENTRY_BYTES)
        except ValueError:
            return None
        if data is None or hashlib.sha256(data).hexdigest() != want:
            return None
        self.now[key] = want
        return data

    def made(self, key: str, data: bytes) -> None:
        """`data` was drawn for `key` (and is being written to its file)."""
        self.now[key] = hashlib.sha256(data).hexdigest()
        self.drawn += 1

    def save(self) -> None:
        if self.now != self.known:
            self.store.put_json(self.index_key, self.now)


@dataclass(frozen=True)
class FaceCache:
    """Where raster outputs may be cached (the `raster.FaceCache` protocol says what raster needs):
    `store` has get/put of bytes, and `faces` maps (card id, side) to the key of that face's
    drawing in the print-shop PDF."""

    store: Any
    faces: Mapping[tuple[str, str], str]
    made: dict = field(default_factory=dict)  # images rendered afresh, by kind ("TTS image"), for the build to report

    def key(self, card_id: str, side: str, *how: Any) -> str:
        return digest(self.faces[(card_id, side)], *how)

    def image(self, cards: Sequence[tuple[str, str]], *how: Any) -> str:
        """The key of an image made of these faces (a TTS sheet), drawn `how`."""
        return digest([self.faces[c] for c in cards], *how)


class BuildCache:
    """One game's cache during one build: what was read from it and what had to be drawn."""

    def __init__(self, game, options):
        self.store = cache_for(options.out_dir, game.file_stem)  # a declared deck keeps its own
        self.keys = Keys(game, options)
        self.drawn: list[str] = []  # outputs made afresh, for `cardgen watch` to say what it rebuilt

    def document(self, name: str, draw) -> bytes:
        """`draw()`'s bytes, from the cache when the document's inputs are unchanged."""
        key = self.keys.document(name, reads_cards=True)
        data = self.store.get(key)
        if data is None:
            data = draw()
            self.store.put(key, data)
            self.drawn.append(name)
        return data

    def deck(self, name: str, draw) -> tuple[bytes, Any]:
        """(bytes, notes) of a file drawing every face: `draw()` returns both, and the notes (what the
        faces reported while drawn: overflows, text sizes) are kept beside the bytes."""
        key = self.keys.deck(name)
        notes = self.store.get_json(digest(key, "notes"))
        data = self.store.get(key) if notes is not None else None
        if data is None:
            data, notes = draw()
            self.store.put(key, data)
            self.store.put_json(digest(key, "notes"), notes)
            self.drawn.append(name)
        return data, notes

    def faces(self, labels, card_size, bleed: float, lang: str, cmyk: bool):
        """A FaceCache for the print-shop PDF's pages `labels`."""
        keys = {(card_id, side): self.keys.face(card_id, side, group, card_size, bleed, lang, cmyk) for _, card_id, side, group in labels}
        return FaceCache(self.store, keys)
