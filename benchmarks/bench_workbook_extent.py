"""CPU time of the workbook extent scan (cardgen/io/spreadsheet.py) as a sheet grows: linear, bounded.

    python benchmarks/bench_workbook_extent.py [--repeat 5] [--cells 40000]

Times `_check_workbook_extent` (what every read of a cards.xlsx runs before calamine sees it) on
an xlsx whose sheet holds N, then 8 N, well-formed cells in its `<extLst>` (where no reader takes
them as cells: the scan must still read past them), and on the issue's 300,000 unclosed `<c `
tags. A linear scan takes 8 times as long for 8 times the cells, a quadratic one 64 times; the
floor is 16. The unclosed tags must be refused in under a second (the old scan: minutes).
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from cardgen.errors import DataError  # noqa: E402
from cardgen.io.spreadsheet import _check_workbook_extent  # noqa: E402

FLOOR = 16.0  # the ratio for 8 x the cells: 8 is linear, 64 quadratic
UNCLOSED_SECONDS = 1.0

SHEET = (b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
         b'<row r="1"><c r="A1" t="inlineStr"><is><t>type</t></is></c></row></sheetData><extLst>{body}</extLst></worksheet>')


def workbook(path: Path, body: bytes) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/worksheets/sheet1.xml", SHEET.replace(b"{body}", body))
    path.write_bytes(buffer.getvalue())
    return path


def cpu_seconds(path: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.process_time()
        try:
            _check_workbook_extent(path, path.name)
        except DataError:
            pass
        times.append(time.process_time() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cells", type=int, default=40_000)
    args = parser.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        small = workbook(Path(folder) / "small.xlsx", b'<c r="A1"/>' * args.cells)
        large = workbook(Path(folder) / "large.xlsx", b'<c r="A1"/>' * (8 * args.cells))
        unclosed = workbook(Path(folder) / "unclosed.xlsx", b"<c " * 300_000)
        cpu_seconds(small, 1)  # warm-up
        t_small, t_large, t_unclosed = (cpu_seconds(p, args.repeat) for p in (small, large, unclosed))
    ratio = t_large / max(t_small, 1e-9)
    print(f"{args.cells:,} cells: {t_small * 1000:.1f} ms; {8 * args.cells:,} cells: {t_large * 1000:.1f} ms "
          f"(median CPU of {args.repeat}); ratio {ratio:.1f} (linear 8, quadratic 64; floor {FLOOR:g})")
    print(f"300,000 unclosed <c tags: {t_unclosed * 1000:.1f} ms (floor {UNCLOSED_SECONDS * 1000:.0f} ms)")
    return 0 if ratio <= FLOOR and t_unclosed <= UNCLOSED_SECONDS else 1


if __name__ == "__main__":
    sys.exit(main())
