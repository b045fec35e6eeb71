"""Fuzz: GPS tracks (GPX, CSV) and waypoint routes (JSON) given to ``navsense truth --track``
and ``navsense simulate --track``; ``--smoothing-m`` and the other options of the command."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from fuzz.fuzz_helpers import (
    NASTY_NUMBERS,
    SPECIAL_KINDS,
    check_outcome,
    csv_text_form,
    damaged_bytes,
    entity_gpx,
    fuzz_settings,
    json_mutation,
    json_text,
    nasty_token,
    run_cli,
    scratch,
    simulate_checked,
    special_path,
    tree,
)


def _truth(folder, track, *options, must_fail=False):
    before = tree(folder)
    outcome = run_cli(["truth", "--track", track, "--out", "t.parquet", *options], folder)
    after = tree(folder)
    check_outcome(
        outcome, before, after, must_fail=must_fail, may_create=("t.parquet", "t.site.json")
    )
    if outcome.code == 0:
        from navsense.truth.io import read_truth

        rate = float(options[options.index("--rate-hz") + 1]) if "--rate-hz" in options else 120
        truth = read_truth(folder / "t.parquet", rate_hz=rate)  # a valid truth log
        assert len(truth) >= 3
    return outcome


def _simulate(folder, track, *options, must_fail=False):
    return simulate_checked(folder, ["--track", track], options, must_fail=must_fail)


# --------------------------------------------------------------------------- byte damage
@fuzz_settings()
@given(
    name=st.sampled_from(["track.gpx", "track.csv", "track-enu.csv", "route.json"]), data=st.data()
)
def test_a_track_file_damaged_byte_by_byte(bases, name, data):
    deep = {".gpx": b"<a>", ".csv": b'"', ".json": b"["}[name[name.rindex(".") :]]
    damaged = data.draw(damaged_bytes(bases[name].read_bytes(), deep_text=deep))
    with scratch() as folder:
        path = folder / ("t" + name[name.rindex(".") :])
        path.write_bytes(damaged)
        _truth(folder, path.name, must_fail=damaged.repeated_key)


# ---------------------------------------------------------------------- GPX at the edges
@st.composite
def gpx_points(draw):
    """Track points at the edges: poles, the antimeridian, huge jumps, equal or microsecond
    times, a year-long gap, out-of-range or non-numeric coordinates."""
    n = draw(st.sampled_from([0, 1, 2, 3, 4, 5, 20]))
    lat0 = draw(st.sampled_from([40.474, 89.9999, -89.9999, 90.0, 0.0, 60.0]))
    lon0 = draw(st.sampled_from([-86.99, 179.9999, -180.0, 180.0, 0.0]))
    dlat = draw(st.sampled_from([2e-5, 0.0, 1e-12, 7.0, -2e-5]))
    dlon = draw(st.sampled_from([1.5e-5, 0.0, 5e-4, 90.0]))
    dt = draw(st.sampled_from([1.0, 1e-6, 0.0, 60.0, -1.0]))
    pts = []
    for i in range(n):
        lat = lat0 + dlat * i
        lon = lon0 + dlon * i
        if lon > 180:
            lon -= 360
        t = 1.0e9 + dt * i
        pts.append([repr(lat), repr(lon), "180.0", t])
    if n and draw(st.booleans()):
        i = draw(st.integers(0, n - 1))
        j = draw(st.integers(0, 3))
        pts[i][j] = draw(nasty_token()) if j < 3 else draw(st.sampled_from([1e17, -1e12, 3.2e16]))
    if n > 2 and draw(st.booleans()):  # the last point much later
        pts[-1][3] = pts[-2][3] + draw(st.sampled_from([86400.0 * 365, 1e9, 36000.0, 21601.0]))
    return pts


def _iso(t) -> str:
    import datetime as dt

    try:
        return dt.datetime.fromtimestamp(float(t), dt.UTC).isoformat().replace("+00:00", "Z")
    except (OverflowError, ValueError, OSError):
        return str(t)


@fuzz_settings()
@given(points=gpx_points(), smoothing=st.sampled_from(["0", "0.5", "1e-300", "1e300", "1000"]))
def test_a_gpx_track_at_the_edges(points, smoothing):
    from xml.sax.saxutils import quoteattr

    body = "\n".join(
        f"<trkpt lat={quoteattr(str(a))} lon={quoteattr(str(b))}><ele>{c}</ele>"
        f"<time>{_iso(t)}</time></trkpt>"
        for a, b, c, t in points
    )
    with scratch() as folder:
        (folder / "t.gpx").write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="fuzz" '
            f'xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>\n{body}\n'
            "</trkseg></trk></gpx>\n",
            encoding="utf-8",
        )
        _truth(folder, "t.gpx", "--smoothing-m", smoothing)


@fuzz_settings(share=0.5)
@given(levels=st.integers(0, 9), where=st.sampled_from(["ele", "time", "name", "lat"]))
def test_a_gpx_track_with_entities(levels, where):
    """Internal entities that expand to 10 .. 10^10 characters (expat refuses an amplification
    beyond 100 after 8 MiB; until then the text of a point's element must be read in linear
    time: it was a quadratic += of 10-character pieces, minutes for a "billion laughs")."""
    with scratch() as folder:
        (folder / "t.gpx").write_text(entity_gpx(levels, where), encoding="utf-8")
        outcome = _truth(folder, "t.gpx")
        assert outcome.seconds < 20, outcome.describe()


# ---------------------------------------------------------------------- CSV at the edges
@fuzz_settings()
@given(
    row=st.integers(1, 20),
    column=st.integers(0, 3),
    token=nasty_token(),
    name=st.sampled_from(["track.csv", "track-enu.csv"]),
)
def test_a_csv_track_with_a_bad_field(bases, row, column, token, name):
    lines = bases[name].read_text().splitlines()
    fields = lines[row].split(",")
    fields[column] = token
    lines[row] = ",".join(fields)
    with scratch() as folder:
        (folder / "t.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        _truth(folder, "t.csv")


@fuzz_settings()
@given(data=st.data(), name=st.sampled_from(["track.csv", "track-enu.csv"]))
def test_a_csv_track_written_another_way(bases, data, name):
    """Spaces, quotes, line ends, separators, case or column order of a CSV track."""
    text = data.draw(csv_text_form(bases[name].read_bytes()))
    with scratch() as folder:
        (folder / "t.csv").write_bytes(text)
        _truth(folder, "t.csv")


@fuzz_settings()
@given(
    n=st.sampled_from([2, 4, 6]),
    step=st.sampled_from([1.0, 1e-6, 1e6, 1e9, 1e-300]),
    dt=st.sampled_from([1.0, 1e-6, 0.0, 1e6, 3.2e7, 1e-9]),
    origin=st.sampled_from([0.0, 1e7, -1e9, 1e300]),
)
def test_an_enu_csv_track_at_the_edges(n, step, dt, origin):
    rows = ["x_m,y_m,z_m,t_s"] + [
        f"{origin + step * i!r},{step * (i % 2)!r},0,{dt * i!r}" for i in range(n)
    ]
    with scratch() as folder:
        (folder / "t.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
        _truth(folder, "t.csv")


# -------------------------------------------------------------------- waypoint routes
@fuzz_settings()
@given(data=st.data())
def test_a_waypoint_route_with_changed_values(bases, data):
    doc = data.draw(json_mutation(json.loads(bases["route.json"].read_text())))
    with scratch() as folder:
        (folder / "t.json").write_text(json_text(doc.doc), encoding="utf-8")
        _truth(folder, "t.json")


@st.composite
def extreme_route(draw):
    """A route whose values are legal JSON numbers at the edges: a speed of 1e-9 m/s, a dwell of
    1e9 s, points 1000 km apart, a hold of ten hours, an acceleration of 1e-12."""
    pts = [{"enu_m": [400.0, 300.0, 0.0]}]
    for _ in range(draw(st.integers(1, 3))):
        d = draw(st.sampled_from([30.0, 1e-9, 1e6, 1e9]))
        point = {"enu_m": [pts[-1]["enu_m"][0] + d, 300.0, 0.0]}
        key = draw(st.sampled_from(["speed_mps", "t_s", "hold_s"]))
        point[key] = draw(st.sampled_from([5.0, 1e-9, 1e-300, 1e9, 36000.0, 0.0, -1.0]))
        if key == "hold_s":
            point["speed_mps"] = 5.0
        pts.append(point)
    route = {"rate_hz": 120, "points": pts}
    for key in ("dwell_s", "accel_mps2", "rate_hz"):
        if draw(st.booleans()):
            route[key] = draw(st.sampled_from(NASTY_NUMBERS + [36000.0, 1e-12, 1e6]))
    return route


@fuzz_settings()
@given(route=extreme_route())
def test_a_waypoint_route_at_the_edges(route):
    with scratch() as folder:
        text = json.dumps(route)
        (folder / "t.json").write_text(text, encoding="utf-8")
        _truth(folder, "t.json")


# -------------------------------------------------------------------- options and files
@fuzz_settings(share=0.5)
@given(
    option=st.sampled_from(
        ["--smoothing-m", "--rate-hz", "--stop-speed-mps", "--start-utc", "--bank", "--site"]
    ),
    value=st.one_of(nasty_token(), st.sampled_from(["1e-300", "1e300", "-1", "0", "5e-324"])),
)
def test_a_truth_option_at_the_edges(bases, option, value):
    with scratch() as folder:
        (folder / "t.csv").write_bytes(bases["track.csv"].read_bytes())
        _truth(folder, "t.csv", option, value)


@fuzz_settings(share=0.5)
@given(kind=st.sampled_from(SPECIAL_KINDS), suffix=st.sampled_from([".gpx", ".csv", ".json"]))
def test_a_track_that_is_not_a_readable_file(kind, suffix):
    with scratch() as folder:
        path = special_path(folder, kind, suffix)
        _truth(folder, path.name, must_fail=True)


@fuzz_settings(share=0.3)
@given(
    name=st.sampled_from(["track.gpx", "track.csv", "route.json"]),
    smoothing=st.sampled_from(["0", "0.3", "1e-300", "1e300"]),
)
def test_simulate_a_track(bases, name, smoothing):
    with scratch() as folder:
        (folder / name).write_bytes(bases[name].read_bytes())
        _simulate(folder, name, "--smoothing-m", smoothing)


def test_the_base_tracks_build(bases):
    for name in ("track.gpx", "track.csv", "track-enu.csv", "route.json"):
        with scratch() as folder:
            (folder / name).write_bytes(bases[name].read_bytes())
            assert _truth(folder, name).code == 0, name


@fuzz_settings(share=0.5)
@given(
    name=st.sampled_from(["track.csv", "route.json"]),
    rate=st.sampled_from(
        ["50", "2000", "49.999", "2000.001", "133.33333333333334", "1999.9999999", "50.000000001"]
        + ["120.00000000001", "400/3"]
    ),
    suffix=st.sampled_from([".parquet", ".csv"]),
    start=st.one_of(
        st.none(), st.sampled_from(["1970-01-01T00:00:00Z", "9998-12-31T23:59:30Z", "9999-06-01"])
    ),
)
def test_a_truth_log_at_the_edges_of_the_rate_runs(bases, name, rate, suffix, start):
    """navsense truth --rate-hz at the edges of 50..2000 Hz and fractional, to Parquet or CSV
    (its rate in its metadata or sidecar), --start-utc at the edges of four-digit years: one
    line and exit 2, or a truth log that navsense simulate runs (a good input works: no rate it
    writes is one simulate refuses)."""
    with scratch() as folder:
        (folder / name).write_bytes(bases[name].read_bytes())
        out = f"t{suffix}"
        argv = ["truth", "--track", name, "--out", out, "--rate-hz", rate]
        argv += [] if start is None else ["--start-utc", start]
        before = tree(folder)
        outcome = run_cli(argv, folder)
        check_outcome(outcome, before, tree(folder), may_create=(out, "t.truth.json"))
        if outcome.code == 0:
            low = ["--imu-hz", "20", "--gnss-hz", "5", "--set", "ins.hz=20", "--duration", "3"]
            simulate_checked(folder, ["--truth", out], low)
            assert (folder / "out" / "episode.json").is_file(), "the log it wrote did not run"
