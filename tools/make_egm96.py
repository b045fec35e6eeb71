"""Build ``src/navsense/geo/data/egm96_15.npz`` from PROJ-data's ``egm96_15.gtx``.

    python tools/make_egm96.py [GTX_OR_DEB]     # default /tmp/debs/proj-data_9.1.1-1_all.deb

The source is NGA's EGM96 geoid undulation on a 15' grid (WW15MGH), as PROJ-data 9.1.1 ships it
(``usr/share/proj/egm96_15.gtx`` in Debian's ``proj-data_9.1.1-1_all.deb``). GTX: a 40-byte
big-endian header (lat0, lon0, dlat, dlon as float64 degrees, rows, cols as int32), then rows x
cols float32 metres, rows from south to north, each row west to east.

Stored compactly and exactly recoverable to 1 mm: the undulation rounded to whole millimetres
(the largest change is 0.5 mm, checked here), each row as its first value (int32, mm) and the
differences along longitude (int16, mm: the largest step between neighbours is 7.5 m), in a
compressed .npz (1.5 MB instead of 4.2 MB). ``navsense.geo.geoid`` rebuilds the grid with an
integer cumulative sum, so the values are the rounded millimetres exactly.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "navsense" / "geo" / "data" / "egm96_15.npz"
DEFAULT_SOURCE = Path("/tmp/debs/proj-data_9.1.1-1_all.deb")
GTX_IN_DEB = "usr/share/proj/egm96_15.gtx"
GTX_SHA256 = "c02a6eb70a7a78efebe5adf3ade626eb75390e170bb8b3f36136a2c28f5326a0"


def read_gtx(path: Path) -> tuple[np.ndarray, np.ndarray, bytes]:
    """(header (lat0, lon0, dlat, dlon) degrees, grid (rows, cols) float64 metres, raw bytes)."""
    raw = path.read_bytes()
    head = np.frombuffer(raw[:32], ">f8").astype(np.float64)
    rows, cols = (int(v) for v in np.frombuffer(raw[32:40], ">i4"))
    if len(raw) != 40 + 4 * rows * cols:
        raise SystemExit(f"{path}: {len(raw)} bytes, expected {40 + 4 * rows * cols}")
    grid = np.frombuffer(raw[40:], ">f4").reshape(rows, cols).astype(np.float64)
    return head, grid, raw


def main(argv: list[str]) -> int:
    source = Path(argv[0]) if argv else DEFAULT_SOURCE
    with tempfile.TemporaryDirectory() as tmp:
        gtx = source
        if source.suffix == ".deb":
            subprocess.run(["dpkg-deb", "-x", str(source), tmp], check=True)
            gtx = Path(tmp) / GTX_IN_DEB
        head, grid, raw = read_gtx(gtx)
    digest = hashlib.sha256(raw).hexdigest()
    if digest != GTX_SHA256:
        print(f"warning: {gtx} has SHA-256 {digest}, not PROJ-data 9.1.1's {GTX_SHA256}")
    mm = np.round(grid * 1000.0).astype(np.int64)
    loss_m = float(np.max(np.abs(mm / 1000.0 - grid)))
    steps = np.diff(mm, axis=1)
    if np.abs(steps).max() > np.iinfo(np.int16).max:
        raise SystemExit("a step along longitude does not fit int16 millimetres")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        OUT,
        header_deg=head,  # lat0, lon0, dlat, dlon
        first_mm=mm[:, 0].astype(np.int32),
        steps_mm=steps.astype(np.int16),
        source_sha256=np.array(digest),
    )
    print(
        f"wrote {OUT} ({OUT.stat().st_size} bytes) from {gtx.name} (SHA-256 {digest}); "
        f"grid {grid.shape[0]} x {grid.shape[1]}, header {head.tolist()}, "
        f"rounding to 1 mm changes a value by at most {loss_m * 1000:.3f} mm"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
