"""Write outputs atomically, so a failed or interrupted run leaves earlier files whole; lock an
output folder so two builds into it never interleave."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Iterator

from .errors import CardgenError

TEMP_SUFFIX = ".tmp"
LOCK_NAME = ".cardgen.lock"


def write_atomic(path: str | Path, data: bytes) -> Path:
    """Write bytes to a temporary file beside `path`, then rename it over `path`."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=TEMP_SUFFIX, dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; outputs are ordinary files
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target


def remove_temp_files(folder: Path) -> int:
    """Delete temporary files that a killed run left in `folder` and its png/ and tts/ (call under the lock)."""
    removed = 0
    for sub in (folder, folder / "png", folder / "tts"):
        if not sub.is_dir():
            continue
        for path in sub.iterdir():
            if path.name.startswith(".") and path.name.endswith(TEMP_SUFFIX) and path.is_file():
                path.unlink(missing_ok=True)
                removed += 1
    return removed


@contextlib.contextmanager
def output_lock(out_dir: str | Path, wait_message: str | None = None) -> Iterator[None]:
    """Hold an exclusive lock on OUT/ (OUT/.cardgen.lock); wait, saying so once, while another build holds it."""
    folder = Path(out_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle = open(folder / LOCK_NAME, "a+b")
    except (FileExistsError, NotADirectoryError):
        raise CardgenError(f"--out {out_dir}: a file stands where the output folder should be; move it away or choose another --out") from None
    except OSError as exc:
        raise CardgenError(f"--out {out_dir}: cannot use this folder ({exc.strerror or exc}); choose another --out") from None
    try:
        try:
            import fcntl
        except ImportError:  # Windows: no advisory locks here; builds into one folder are the user's to avoid
            yield
            return
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(wait_message or f"waiting for another cardgen build writing into {out_dir} ...", file=sys.stderr, flush=True)
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
    finally:
        handle.close()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
