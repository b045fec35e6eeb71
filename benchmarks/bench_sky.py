"""Sky-view benchmark: GNSS epochs per second for one hour at 10 Hz (36 000 epochs).

Stages, each timed alone: the constellation's lines of sight, the mask, the obstruction
classification (culling and ray tests), the counts, both DOPs (used and open sky), the reflector
and multipath indices. The site is the embedded ``acre`` site when it exists, otherwise a
synthetic farm of 31 obstacles (6 buildings, 6 grain bins, a windbreak of 19 crowns). The
antenna drives a figure-of-eight over the obstacles' bounding box (beside, inside and clear of
them).

Absolute times drift on shared machines; the figure to compare across runs is the ratio to a
baseline run in the same process: the bare-numpy floor of ``benchmarks/floor_numpy.py``
(one hour of IMU at 120 Hz and GNSS at 10 Hz, no sky view) when it is found, timed here too.

Usage: PYTHONPATH=src python benchmarks/bench_sky.py [--epochs 36000] [--repeat 3]
"""

from __future__ import annotations

import argparse

import numpy as np

from floor import best_of, floor_seconds
from navsense.sensors.gnss.dop import dop
from navsense.sensors.gnss.multipath import multipath_index, reflector_index
from navsense.site import Site, embedded_site, embedded_sites
from navsense.sky.constellation import Constellation
from navsense.sky.obstruction import classify, counts, used_mask

SITE_LAT_DEG, SITE_LON_DEG, SITE_H_M = 40.4700, -86.9920, 185.0  # a mid-latitude site


def synthetic_site() -> Site:
    """A farm yard: buildings, grain bins and a windbreak (31 obstacles)."""
    boxes = [  # min, max (garage first)
        ([-10.0, -8.0, 0.0], [10.0, 8.0, 6.0]),
        ([30.0, -20.0, 0.0], [70.0, -5.0, 9.0]),
        ([30.0, 15.0, 0.0], [55.0, 35.0, 7.5]),
        ([-60.0, 20.0, 0.0], [-35.0, 30.0, 5.0]),
        ([-70.0, -40.0, 0.0], [-45.0, -15.0, 11.0]),
        ([80.0, 30.0, 0.0], [95.0, 60.0, 6.5]),
    ]
    bins = [
        (x, -60.0, 0.0, h, r)
        for x, h, r in (
            (-20.0, 18.0, 5.0),
            (-5.0, 18.0, 5.0),
            (10.0, 22.0, 6.0),
            (26.0, 22.0, 6.0),
            (42.0, 14.0, 4.0),
            (55.0, 14.0, 4.0),
        )
    ]
    crowns = [
        (x, 80.0, 7.0 + (i % 3), 4.0 + 0.5 * (i % 2))
        for i, x in enumerate(np.linspace(-90.0, 90.0, 19))
    ]
    cyl = np.array(bins)
    crn = np.array(crowns)
    return Site(
        name="synthetic-farm",
        georeference=None,
        box_min_m=np.array([b[0] for b in boxes]),
        box_max_m=np.array([b[1] for b in boxes]),
        cyl_xy_m=cyl[:, :2].copy(),
        cyl_base_m=cyl[:, 2].copy(),
        cyl_top_m=cyl[:, 3].copy(),
        cyl_radius_m=cyl[:, 4].copy(),
        crown_center_m=crn[:, :3].copy(),
        crown_radius_m=crn[:, 3].copy(),
    )


def loop_antenna(t_s: np.ndarray, site: Site) -> np.ndarray:
    """A 300 s figure-of-eight over the site's obstacles (their bounding box plus 10 m), antenna
    2.15 m up: beside, under and inside the obstacles and in the open."""
    xy = np.concatenate(
        [site.box_min_m[:, :2], site.box_max_m[:, :2], site.cyl_xy_m, site.crown_center_m[:, :2]]
    )
    lo, hi = xy.min(axis=0) - 10.0, xy.max(axis=0) + 10.0
    mid, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    ang = 2.0 * np.pi * t_s / 300.0
    return np.column_stack(
        [
            mid[0] + half[0] * np.sin(ang),
            mid[1] + half[1] * np.sin(2.0 * ang),
            np.full(t_s.size, 2.15),
        ]
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=36_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--synthetic", action="store_true", help="the synthetic farm even if acre exists"
    )
    args = ap.parse_args()

    use_acre = "acre" in embedded_sites() and not args.synthetic
    site = embedded_site("acre") if use_acre else synthetic_site()
    n_obst = len(site.box_min_m) + len(site.cyl_xy_m) + len(site.crown_center_m)
    t = np.arange(args.epochs) * 0.1
    ant = loop_antenna(t, site)
    const = Constellation(
        42, {"gps": True, "galileo": True, "glonass": True}, SITE_LAT_DEG, SITE_LON_DEG, SITE_H_M
    )

    times = {}
    times["lines of sight"], los = best_of(lambda: const.los_enu(t), args.repeat)
    times["mask"], vis = best_of(lambda: const.visible(los, 10.0), args.repeat)
    times["obstruction"], status = best_of(
        lambda: classify(ant, los, vis, site, 1.5, 8.0, 10.0), args.repeat
    )
    times["counts"], cnt = best_of(lambda: counts(status), args.repeat)
    times["dop used + open sky"], _ = best_of(
        lambda: (dop(los, used_mask(status)), dop(los, vis)), args.repeat
    )
    times["reflector + multipath"], _ = best_of(
        lambda: multipath_index(
            cnt["satellites_near_obstruction"],
            cnt["satellites_foliage"],
            cnt["satellites_used"],
            reflector_index(ant, site, 60.0),
        ),
        args.repeat,
    )
    total = sum(times.values())

    print(
        f"site {site.name}: {len(site.box_min_m)} boxes, {len(site.cyl_xy_m)} cylinders, "
        f"{len(site.crown_center_m)} crowns ({n_obst} obstacles); {const.nsat} satellites; "
        f"{args.epochs} epochs; best of {args.repeat}"
    )
    for name, sec in times.items():
        print(f"  {name:24s} {sec * 1e3:9.1f} ms   {args.epochs / sec:12,.0f} epochs/s")
    print(f"  {'sky view total':24s} {total * 1e3:9.1f} ms   {args.epochs / total:12,.0f} epochs/s")
    share = {s: np.mean(status[vis] == s) for s in range(1, 5)}
    print(
        f"  tracked per epoch {vis.sum(1).mean():.1f}; of them clear {share[1]:.1%}, "
        f"near {share[2]:.1%}, foliage {share[3]:.1%}, blocked {share[4]:.1%}"
    )
    floor = floor_seconds()
    if floor is not None:
        print(
            f"  baseline floor_numpy.py 3600 s (whole process): {floor:.2f} s; "
            f"sky view / floor = {total / floor:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
