"""Helpers of the campaign tests: a short open-sky truth log, campaign files, the command line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from conftest import circle_truth
from navsense.commands import campaign as cli_campaign
from navsense.errors import NavsenseError
from navsense.truth.io import write_truth

PHYSICS_HZ = 120
OFFSET_M = (400.0, 300.0, 0.0)  # east of the farmstead: open sky, RTK fixed from the start


def write_open_sky_truth(path: Path, seconds: float = 20.0) -> Path:
    """A drive on a 30 m circle in open sky, ``seconds`` long, as a truth log (CSV or Parquet)."""
    truth = circle_truth(int(seconds * PHYSICS_HZ) + 1, radius_m=30.0, speed_mps=4.0)
    truth = type(truth)(
        truth.step0,
        truth.p_m + OFFSET_M,
        truth.q_xyzw,
        truth.v_mps,
        truth.w_radps,
        truth.c_m + OFFSET_M,
        truth.reset,
    )
    return write_truth(truth, path)


def write_campaign(path: Path, **data) -> Path:
    """A JSON campaign file with the given top-level keys."""
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


def campaign_cli(argv: list[str]) -> int:
    """``navsense campaign ...`` as navsense.cli.main runs it: NavsenseError -> exit code 2."""
    parser = argparse.ArgumentParser(prog="navsense")
    sub = parser.add_subparsers(dest="command")
    cli_campaign.add_parser(sub)
    args = parser.parse_args(["campaign", *argv])
    try:
        return args.func(args)
    except NavsenseError as exc:
        import sys

        print(f"navsense: error: {exc}", file=sys.stderr)
        return 2
