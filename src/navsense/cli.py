"""The ``navsense`` command line.

Every sub-command is a function returning an exit code. A :class:`navsense.errors.NavsenseError`
ends the command with one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from navsense import __version__
from navsense.errors import ConfigError, NavsenseError

__all__ = ["main", "build_parser"]


def _outage(text: str) -> list[float]:
    """``A:B`` -> [A, B] (the specification's -SensorGnssOutage=<start>:<end>)."""
    try:
        a, b = text.split(":")
        return [float(a), float(b)]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--gnss-outage {text!r} is not <start>:<end> in seconds, e.g. 120:180") from None


def _add_simulate(sub) -> None:
    p = sub.add_parser(
        "simulate", help="run the sensors over a truth log or an embedded scenario",
        description="Run the GNSS receiver, IMU and INS over a truth log (--truth) or an embedded "
                    "scenario (default: acre-loop) and write a run directory.")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--truth", metavar="FILE", help="truth log (.csv or .parquet)")
    src.add_argument("--scenario", metavar="NAME", help="embedded scenario (navsense scenarios)")
    p.add_argument("--site", metavar="NAME|FILE",
                   help="site of a truth log: an embedded site name or a site JSON file (default acre)")
    p.add_argument("--vehicle", choices=["polaris", "maxxum"],
                   help="vehicle profile and overlay (default: the scenario's, else polaris)")
    p.add_argument("--config", metavar="FILE", help="sensors.json to use (-SensorConfig=)")
    p.add_argument("--overlay", metavar="FILE", help="vehicle overlay (-PolarisSensorConfig=)")
    p.add_argument("--seed", type=int, help="seed of all noise streams (-SensorSeed=)")
    p.add_argument("--no-noise", action="store_true", help="all errors, biases and noise zero")
    p.add_argument("--no-imu", action="store_true", help="IMU off")
    p.add_argument("--no-gnss", action="store_true", help="GNSS receiver off")
    p.add_argument("--no-ins", action="store_true", help="INS off")
    p.add_argument("--delay", type=float, metavar="S", help="modelled latency delay_s (-SensorDelay=)")
    p.add_argument("--imu-hz", type=float, metavar="HZ", help="IMU rate (-SensorImuHz=)")
    p.add_argument("--gnss-hz", type=float, metavar="HZ", help="GNSS rate (-SensorGnssHz=)")
    p.add_argument("--gnss-start", choices=["converged", "cold"], help="-SensorGnssStart=")
    p.add_argument("--gnss-frame", choices=["wgs84_g2139", "nad83"], help="-SensorGnssFrame=")
    p.add_argument("--gnss-baseline-km", type=float, metavar="KM", help="-SensorGnssBaselineKm=")
    p.add_argument("--gnss-outage", type=_outage, action="append", metavar="A:B",
                   help="add a correction outage [A, B) in seconds (repeatable)")
    p.add_argument("--agent", type=int, default=0, metavar="K",
                   help="agent index: the INS seed adds 7919 K (ACRES Core)")
    p.add_argument("--out", metavar="DIR", help="run directory (default runs/<name>-<time>)")
    p.add_argument("--chunk-steps", type=int, default=None, metavar="N",
                   help="physics steps per processing chunk (output does not depend on it)")
    p.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    p.set_defaults(func=_run_simulate)


def _overrides(args) -> dict:
    o: dict = {}
    if args.seed is not None:
        o["seed"] = args.seed
    if args.no_noise:
        o["noise"] = False
    if args.no_imu:
        o["imu.enabled"] = False
    if args.no_gnss:
        o["gnss.enabled"] = False
    if args.no_ins:
        o["ins.enabled"] = False
    if args.delay is not None:
        o["delay_s"] = args.delay
    if args.imu_hz is not None:
        o["imu.hz"] = args.imu_hz
    if args.gnss_hz is not None:
        o["gnss.hz"] = args.gnss_hz
    if args.gnss_start is not None:
        o["gnss.start"] = args.gnss_start
    if args.gnss_frame is not None:
        o["gnss.datum.output_frame"] = args.gnss_frame
    if args.gnss_baseline_km is not None:
        o["gnss.corrections.baseline_km"] = args.gnss_baseline_km
    if args.gnss_outage:
        o["gnss.corrections.outages_s+"] = args.gnss_outage
    return o


def _resolve_site(spec: str | None):
    from navsense.site import embedded_site, load_site

    if spec is None:
        return embedded_site("acre")
    if spec.endswith(".json") or Path(spec).exists():
        return load_site(spec)
    return embedded_site(spec)


def _run_simulate(args) -> int:
    from navsense.config import load_config
    from navsense.output.rundir import default_run_dir
    from navsense.simulate import DEFAULT_CHUNK_STEPS, simulate
    from navsense.vehicles import vehicle_profile

    chunk_steps = args.chunk_steps or DEFAULT_CHUNK_STEPS
    if chunk_steps < 1:
        raise ConfigError(f"--chunk-steps {chunk_steps} must be >= 1")
    if args.agent < 0:
        raise ConfigError(f"--agent {args.agent} must be >= 0")
    if args.truth:
        from navsense.truth.io import iter_truth_chunks

        vehicle = vehicle_profile(args.vehicle or "polaris")
        site = _resolve_site(args.site)
        truth = iter_truth_chunks(args.truth, chunk_steps)
        label = Path(args.truth).stem
        source = {"truth": str(args.truth)}
        total = None
    else:
        from navsense.scenarios import load_scenario

        scenario = load_scenario(args.scenario or "acre-loop")
        vehicle = vehicle_profile(args.vehicle or scenario.vehicle.name)
        site = _resolve_site(args.site) if args.site else scenario.site
        truth = scenario.truth
        label = scenario.name
        source = {"scenario": scenario.name}
        total = len(truth)
    cfg = load_config(args.config, args.overlay, vehicle=vehicle.name, overrides=_overrides(args))
    out = Path(args.out) if args.out else default_run_dir("runs", label)
    summary = simulate(truth, cfg, vehicle, site, out, source=source, agent=args.agent,
                       chunk_steps=chunk_steps, total_steps=total, progress=not args.quiet)
    if not args.quiet:
        print(summary.text())
    return 0


def _add_scenarios(sub) -> None:
    p = sub.add_parser("scenarios", help="list the embedded scenarios")
    p.set_defaults(func=_run_scenarios)


def _run_scenarios(args) -> int:
    from navsense.scenarios import list_scenarios

    for s in list_scenarios():
        print(f"{s['name']:<16} {s['duration_s']:7.1f} s  {s['vehicle']:<8} site {s['site']:<8} "
              f"{s['description']}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of every sub-command."""
    parser = argparse.ArgumentParser(
        prog="navsense",
        description="Navigation sensor readings (GNSS receiver, IMU, INS) from truth motion.")
    parser.add_argument("--version", action="version", version=f"navsense {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_simulate(sub)
    _add_scenarios(sub)
    from navsense.config import cli_config

    cli_config.add_parser(sub)
    from navsense.geo import cli_geo

    cli_geo.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``navsense`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        func = getattr(args, "func", None)
        if func is None:
            # sub-commands registered by their own modules expose run(args)
            module = {"config": "navsense.config.cli_config", "geo": "navsense.geo.cli_geo"}[args.command]
            import importlib

            func = importlib.import_module(module).run
        return int(func(args) or 0)
    except NavsenseError as exc:
        print(f"navsense: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("navsense: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
