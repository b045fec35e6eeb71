"""The golden runs: configurations whose every output byte must not change in a refactor.

``python tools/make_golden.py`` records the SHA-256 of every file these runs write into
``tests/reference/golden_outputs.json``; ``tests/test_golden_outputs.py`` runs them again and
compares. The digests hold on the machine that recorded them (numpy's SIMD exp/log/atan may
differ in the last bit on another CPU, DESIGN.md "Determinism"), so the file also records numpy's
version and the CPU features numpy dispatches to, and the test skips elsewhere.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

REFERENCE = Path(__file__).parent / "reference"
GOLDEN_FILE = REFERENCE / "golden_outputs.json"

CONFIGURABLE_IMU = {"imu": {"model": "configurable", "preset": "adis16465"}}

# name -> (simulate options, export options or None); {tmp} is the test's folder
RUNS: dict[str, tuple[list[str], list[str] | None]] = {
    "default_jsonl": (["--scenario", "acre-loop"], ["--gnss-fix", "--raw-imu"]),
    "default_parquet": (["--scenario", "acre-loop", "--format", "parquet"], None),
    "truth_log_resets": (["--truth", "{tmp}/resets.csv", "--mag", "--baro", "--odom"], None),
    "track_extras": (
        ["--track", str(REFERENCE / "track_acre_field.csv"), "--mag", "--baro", "--odom"],
        None,
    ),
    "track_local_site": (["--track", str(REFERENCE / "track_paris_loop.gpx")], None),
    "configurable_imu": (
        ["--scenario", "acre-loop", "--config", "{tmp}/configurable.json", "--no-gnss", "--no-ins"],
        None,
    ),
}


def machine() -> dict:
    """What the digests depend on besides navsense: numpy's version and dispatched CPU features."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as features
    except ImportError:  # pragma: no cover - numpy < 2
        from numpy.core._multiarray_umath import __cpu_features__ as features
    return {"numpy": np.__version__, "cpu_features": sorted(k for k, v in features.items() if v)}


def write_inputs(tmp: Path) -> None:
    """The truth log with resets (the first 40 s of acre-loop, teleported twice) and the
    configurable-IMU configuration file."""
    from navsense.scenarios import load_scenario

    truth = load_scenario("acre-loop").truth.slice(0, 4800)
    p, c = truth.p_m.copy(), truth.c_m.copy()
    reset = truth.reset.copy()
    for k, shift in ((1500, (30.0, -20.0, 0.0)), (3601, (-12.5, 8.0, 0.0))):
        p[k:] += shift
        c[k:] += shift
        reset[k] = True
    cols = [truth.t_s, *p.T, *truth.q_xyzw.T, *truth.v_mps.T, *truth.w_radps.T, *c.T]
    header = (
        "t_s,px_m,py_m,pz_m,qx,qy,qz,qw,vx_mps,vy_mps,vz_mps,wx_radps,wy_radps,wz_radps,"
        "cx_m,cy_m,cz_m,reset"
    )
    lines = [header]
    for i in range(len(truth)):
        lines.append(",".join(repr(float(col[i])) for col in cols) + f",{int(reset[i])}")
    (tmp / "resets.csv").write_text("\n".join(lines) + "\n")
    (tmp / "configurable.json").write_text(json.dumps(CONFIGURABLE_IMU))


def digests(run_dir: Path) -> dict[str, str]:
    """SHA-256 of every file in a run directory (episode.json without its volatile keys)."""
    out = {}
    for path in sorted(run_dir.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if path.name == "episode.json":
            data = _stable_episode(data)
        out[str(path.relative_to(run_dir))] = hashlib.sha256(data).hexdigest()
    return out


def _stable_episode(data: bytes) -> bytes:
    """episode.json less what changes from run to run or with the checkout (paths, version)."""
    episode = json.loads(data)
    for key in ("navsense_version", "created_utc", "wall_s"):
        episode.pop(key, None)
    source = episode.get("source")
    if isinstance(source, dict):
        for key, value in source.items():
            if isinstance(value, str):  # a path of the test's folder: keep its name
                source[key] = Path(value).name
    return json.dumps(episode, sort_keys=True).encode()


def run_all(tmp: Path) -> dict[str, dict[str, str]]:
    """Run every golden configuration in ``tmp`` and return their digests."""
    from navsense.cli import main

    write_inputs(tmp)
    result = {}
    for name, (options, export) in RUNS.items():
        out = tmp / name
        argv = [
            "simulate",
            *[o.format(tmp=tmp) for o in options],
            "--out",
            str(out),
            "--quiet",
            "--workers",
            "threads",
        ]
        code = main(argv)
        if code:
            raise RuntimeError(f"golden run {name} failed with exit code {code}")
        if export is not None:
            code = main(["export", "mcap", str(out), *export])
            if code:
                raise RuntimeError(f"golden export {name} failed with exit code {code}")
        result[name] = digests(out)
    return result
