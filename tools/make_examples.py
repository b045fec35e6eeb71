"""Write ``examples/drive.csv`` and its sidecar ``examples/drive.truth.json``.

    python tools/make_examples.py

The truth CSV is the first 1.5 s of the example route (``examples/route.waypoints.json``) on the
example site (``examples/site.json``), as ``navsense truth`` builds it, at the start time below:
the vehicle stands for 0.5 s, then moves off. The other example files are written by hand.
"""

from __future__ import annotations

from pathlib import Path

from navsense.site import load_site
from navsense.truth.io import write_truth
from navsense.truth.tracks import load_track, plan_track

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
START_UTC = "2026-05-04T09:30:00Z"
SECONDS = 1.5


def main() -> int:
    site = load_site(EXAMPLES / "site.json")
    track = load_track(EXAMPLES / "route.waypoints.json", site=site, start_utc=START_UTC)
    truth = plan_track(track, None).sample(120.0)
    truth = truth.slice(0, int(round(SECONDS * truth.rate_hz)) + 1)
    # the sidecar names the site file beside the log (a site may also be embedded in it)
    path = write_truth(truth, EXAMPLES / "drive.csv", site="site.json", start_utc=START_UTC)
    print(f"wrote {path} ({len(truth)} rows) and {path.with_name('drive.truth.json')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
