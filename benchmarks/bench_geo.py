"""Throughput of navsense.geo against pyproj on the same points, in the same run.

Not a test. Run: ``PYTHONPATH=src python benchmarks/bench_geo.py [N]`` (default N = 100 000).

Rows:

* full chain: ``Georeference.acre().enu_to_geodetic`` (ENU grid -> HARN, NAD83(2011), heights,
  geoid, WGS84 (G2139) at per-point epochs: all ten outputs) against the PROJ pipeline of the
  same chain (affine, inverse tmerc, geogoffset, cart, inverse time-dependent Helmert, inverse
  cart; one output frame, WGS84), with per-point decimal-year times.
* UTM forward: ``utm.forward`` (E, N, convergence and scale) against pyproj's ``+proj=utm``
  (E, N only; poder_engsager) on the NAD83(2011) latitudes and longitudes of the same points.
* UTM inverse, likewise.

Each timing is the best of 15 runs, ours and pyproj's alternating so both see the same load
(absolute times on shared machines drift; the ratio within one run is the figure to read).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from navsense.geo import Georeference, utm


def best_of_interleaved(ours, theirs, repeats=15):
    """Best time of each, with the two runs alternating so both see the same machine load."""
    ours()
    theirs()  # warm-up
    best = [float("inf"), float("inf")]
    for _ in range(repeats):
        for i, fn in enumerate((ours, theirs)):
            t0 = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t0)
    return best


def main(n: int = 100_000) -> None:
    from pyproj import Transformer

    from geo.geo_helpers import chain_pipeline

    rng = np.random.default_rng(0)
    enu = np.column_stack(
        [rng.uniform(-3000, 3000, n), rng.uniform(-3000, 3000, n), rng.uniform(-30, 60, n)]
    )
    t = np.sort(rng.uniform(0.0, 3600.0, n))
    geo = Georeference.acre()
    ep = geo.decimal_year(t)
    g = geo.enu_to_geodetic(enu, t)
    lat, lon = g["nad83_2011_lat_deg"], g["nad83_2011_lon_deg"]
    e, nn, _, _ = utm.forward(lat, lon, 16)

    chain = Transformer.from_pipeline(chain_pipeline("wgs84"))
    tm = Transformer.from_pipeline("+proj=utm +zone=16 +ellps=WGS84 +algo=poder_engsager")
    x, y, z = (np.ascontiguousarray(enu[:, i]) for i in range(3))

    rows = [
        (
            "full chain ENU -> all frames",
            lambda: geo.enu_to_geodetic(enu, t),
            lambda: chain.transform(x, y, z, ep),
        ),
        ("UTM forward", lambda: utm.forward(lat, lon, 16), lambda: tm.transform(lon, lat)),
        (
            "UTM inverse",
            lambda: utm.inverse(e, nn, 16),
            lambda: tm.transform(e, nn, direction="INVERSE"),
        ),
    ]
    print(
        f"navsense.geo vs pyproj {__import__('pyproj').__version__} "
        f"(PROJ {__import__('pyproj').proj_version_str}), {n} points, best of 15 interleaved runs"
    )
    print(f"{'operation':32s} {'navsense pts/s':>15s} {'pyproj pts/s':>15s} {'ratio':>7s}")
    for name, ours, theirs in rows:
        a, b = best_of_interleaved(ours, theirs)
        print(f"{name:32s} {n / a:15,.0f} {n / b:15,.0f} {b / a:7.2f}")
    print("ratio = navsense throughput / pyproj throughput (> 1: navsense faster)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
