"""GNSS receiver benchmark: epochs per second for one hour at 10 Hz (36 000 epochs).

The truth is the embedded scenario ``acre-loop`` repeated for an hour (the ``acre`` site's
buildings, grain bins and windbreak; the garage at each lap's start and end), run through
:class:`navsense.sensors.gnss.receiver.GnssReceiver` with the default configuration of the
Polaris. Timed, each on its own:

- ``process``: the whole receiver (sky view, DOP, indices, corrections, fix states, errors,
  datum chain, GGA sentences) in one call over the hour, and again in chunks of 60 s;
- ``fix-state loop``: the per-epoch Python loop alone (navsense.sensors.gnss.fixstate);
- ``rows``: the gnss.jsonl row dicts (navsense.output.layouts.gnss, the GGA sentences included),
  and ``orjson``: their serialisation.

Absolute times drift on shared machines; compare runs by the ratio to a baseline timed in the
same run: the bare-numpy floor ``benchmarks/floor_numpy.py`` (one hour of IMU at 120 Hz and
GNSS at 10 Hz, whole process) when it is found.

Usage: PYTHONPATH=src python benchmarks/bench_gnss.py [--duration 3600] [--repeat 3]
"""

from __future__ import annotations

import argparse

import numpy as np
import orjson

from floor import best_of, floor_seconds
from navsense.config import load_config
from navsense.config.typed.gnss import GnssConfig
from navsense.output.columns import rows_from_columns
from navsense.output.layouts import layout_for
from navsense.scenarios import load_scenario
from navsense.sensors.gnss.fixstate import FixMachineState, run_fix_states
from navsense.sensors.gnss.receiver import GnssReceiver

CHUNK_S = 60.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=3600.0, help="seconds of truth")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    sc = load_scenario("acre-loop", duration_s=args.duration)
    truth = sc.truth
    cfg = load_config(vehicle=sc.vehicle.name)
    georef = sc.site.make_georeference(cfg["gnss"]["datum"]["start_utc"], cfg["gnss"]["datum"])

    def make():
        return GnssReceiver(GnssConfig.from_validated(cfg), sc.vehicle, sc.site, georef)

    def whole():
        return make().process(truth)

    def chunked():
        rx = make()
        n = int(round(CHUNK_S * truth.rate_hz))
        return [rx.process(part) for part in truth.chunks(n)]

    times = {}
    times["process (one call)"], block = best_of(whole, args.repeat)
    times["process (60 s chunks)"], _ = best_of(chunked, args.repeat)
    m = block["sample_time_s"].size

    rx = make()
    c = rx.config.fix
    rng = np.random.default_rng(0)
    fix_inputs = dict(
        t_s=block["sample_time_s"],
        dt_s=block["dt_s"],
        n_used=block["satellites_used"],
        n_clear=block["satellites_clear"],
        pdop=block["pdop"],
        multipath_index=block["multipath_index"],
        age_s=block["correction_age_s"],
        slip_uniform=rng.uniform(size=m),
        g_t=rng.normal(size=m),
    )
    times["fix-state loop"], _ = best_of(
        lambda: run_fix_states(c, FixMachineState.initial(c), **fix_inputs), args.repeat
    )
    layout = layout_for(rx)
    times["rows"], rows = best_of(lambda: rows_from_columns(layout.columns(block), m), args.repeat)
    times["orjson"], _ = best_of(lambda: b"\n".join(orjson.dumps(r) for r in rows), args.repeat)

    counts = {
        name: int(np.count_nonzero(block["fix"] == code))
        for code, name in (
            (0, "no_fix"),
            (1, "single"),
            (2, "dgps"),
            (5, "rtk_float"),
            (4, "rtk_fixed"),
        )
    }
    n_obst = len(sc.site.box_min_m) + len(sc.site.cyl_xy_m) + len(sc.site.crown_center_m)
    print(
        f"acre-loop, {args.duration:.0f} s of truth ({len(truth)} steps), {m} GNSS epochs, "
        f"{n_obst} obstacles; best of {args.repeat}"
    )
    for name, sec in times.items():
        print(f"  {name:24s} {sec * 1e3:9.1f} ms   {m / sec:12,.0f} epochs/s")
    end_to_end = times["process (one call)"] + times["rows"] + times["orjson"]
    print(
        f"  {'process + rows + orjson':24s} {end_to_end * 1e3:9.1f} ms   {m / end_to_end:12,.0f} epochs/s"
    )
    print("  fix states: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    floor = floor_seconds(args.duration)
    if floor is not None:
        print(
            f"  baseline floor_numpy.py {args.duration:.0f} s (whole process): {floor:.2f} s; "
            f"GNSS process + rows + orjson / floor = {end_to_end / floor:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
