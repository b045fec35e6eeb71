"""Fuzz: site files (``simulate --site``), configuration files (``--config``, ``--overlay``,
``config show``) and the geo command's CSV (``geo --in``)."""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from fuzz.fuzz_helpers import (
    SPECIAL_KINDS,
    check_outcome,
    csv_text_form,
    damaged_bytes,
    fuzz_settings,
    json_mutation,
    json_text,
    nasty_token,
    nasty_value,
    run_cli,
    scratch,
    simulate_checked,
    special_path,
    tree,
)


def _simulate(bases, folder, *options, must_fail=False):
    (folder / "truth.csv").write_bytes(bases["truth.csv"].read_bytes())
    return simulate_checked(folder, ["--truth", "truth.csv"], options, must_fail=must_fail)


# --------------------------------------------------------------------------------- sites
@fuzz_settings()
@given(name=st.sampled_from(["site.json", "site-local.json"]), data=st.data())
def test_a_site_file_with_changed_values(bases, name, data):
    doc = data.draw(json_mutation(json.loads(bases[name].read_text())))
    with scratch() as folder:
        (folder / "s.json").write_text(json_text(doc.doc), encoding="utf-8")
        _simulate(bases, folder, "--site", "s.json")


@fuzz_settings()
@given(data=st.data())
def test_a_site_file_damaged_byte_by_byte(bases, data):
    damaged = data.draw(damaged_bytes(bases["site-local.json"].read_bytes(), deep_text=b"["))
    with scratch() as folder:
        (folder / "s.json").write_bytes(damaged)
        _simulate(bases, folder, "--site", "s.json", must_fail=damaged.repeated_key)


@fuzz_settings()
@given(
    lat=st.sampled_from([48.1, 90.0, -90.0, 89.99999, 0.0, 91.0]),
    lon=st.sampled_from([11.6, 180.0, -180.0, 179.99999, 0.0, 540.0]),
    height=st.sampled_from([520.0, -1e4, 1e7, 0.0]),
    kind=st.sampled_from(["local", "acre", "utm", None]),
    utm_zone=st.sampled_from([None, 1, 16, 32, 60, 61, 0]),
)
def test_a_site_at_the_edges_of_the_earth_and_of_its_utm_zone(
    bases, lat, lon, height, kind, utm_zone
):
    """A local site at a pole, on the antimeridian, far from the INS's UTM zone."""
    site = {"name": "edge", "buildings": [], "grain_bins": [], "tree_crowns": []}
    if kind is not None:
        site["georeference"] = {"kind": kind, "lat_deg": lat, "lon_deg": lon, "height_m": height}
    else:
        site["georeference"] = None
    with scratch() as folder:
        (folder / "s.json").write_text(json.dumps(site), encoding="utf-8")
        options = ["--site", "s.json"]
        if utm_zone is not None:
            (folder / "c.json").write_text(json.dumps({"ins": {"utm_zone": utm_zone}}))
            options += ["--config", "c.json"]
        _simulate(bases, folder, *options)


# -------------------------------------------------------------------------- configuration
@st.composite
def config_document(draw, base):
    """The effective configuration (every key) with values changed, or the small base file."""
    if draw(st.booleans()):
        return draw(json_mutation(base))
    from navsense.config import load_config

    return draw(json_mutation(load_config()))


@fuzz_settings(share=2.0)
@given(data=st.data(), as_overlay=st.booleans())
def test_a_configuration_with_changed_values(bases, data, as_overlay):
    doc = data.draw(config_document(json.loads(bases["config.json"].read_text())))
    with scratch() as folder:
        (folder / "c.json").write_text(json_text(doc.doc), encoding="utf-8")
        _simulate(bases, folder, "--overlay" if as_overlay else "--config", "c.json")


@fuzz_settings()
@given(data=st.data())
def test_a_configuration_damaged_byte_by_byte(bases, data):
    damaged = data.draw(damaged_bytes(bases["config.json"].read_bytes(), deep_text=b'{"a":'))
    with scratch() as folder:
        (folder / "c.json").write_bytes(damaged)
        before = tree(folder)
        outcome = run_cli(["config", "show", "--config", "c.json"], folder)
        check_outcome(outcome, before, tree(folder), must_fail=damaged.repeated_key)


@st.composite
def override(draw):
    """A real dotted key and a JSON value at the edges."""
    from navsense.config import load_config

    def keys(node, prefix=""):
        for k, v in node.items():
            if isinstance(v, dict):
                yield from keys(v, f"{prefix}{k}.")
            else:
                yield f"{prefix}{k}"

    key = draw(st.sampled_from(sorted(keys(load_config()))))
    return key, draw(nasty_value())


@fuzz_settings(share=2.0)
@given(kv=override())
def test_one_configuration_key_at_the_edges(bases, kv):
    """A file that sets one key (every key of ``config keys``) to a value of the wrong kind or at
    an extreme: refused with the key's name, or a run whose rows are all numbers."""
    key, value = kv
    doc: dict = {}
    node = doc
    *parents, last = key.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    with scratch() as folder:
        (folder / "c.json").write_text(json_text(doc), encoding="utf-8")
        outcome = _simulate(bases, folder, "--config", "c.json")
        if outcome.code == 2:
            assert last in outcome.err or "c.json" in outcome.err, outcome.describe()


#: numbers at the edges of the newer features' keys (a band against half the physics rate, a
#: filter's edge near 0 Hz, a baseline below a millimetre)
_EDGE_HZ = [0, 1e-300, 1e-9, 0.0999, 0.1, 0.10000001, 0.2, 1, 25, 59.9, 59.95, 59.99999, 60, 500]
_edge = st.one_of(st.sampled_from(_EDGE_HZ), st.floats(-1e3, 1e4), nasty_value())
_triple = st.one_of(st.lists(_edge, min_size=3, max_size=3), nasty_value())
_sine = st.one_of(
    st.fixed_dictionaries(
        {"hz": _edge}, optional={"accel_mps2": _triple, "gyro_radps": _triple, "x": _edge}
    ),
    nasty_value(),
)
_order = st.one_of(
    st.fixed_dictionaries({"order": _edge, "accel_mps2": _triple}, optional={"hz": _edge}),
    nasty_value(),
)
FEATURE_KEYS = {
    "imu.vibration.random_band_hz": st.lists(_edge, min_size=2, max_size=2),
    "imu.vibration.random_rms_g": _triple,
    "imu.vibration.random_psd_g2_per_hz": _triple,
    "imu.vibration.sines": st.lists(_sine, max_size=3),
    "imu.vibration.engine_orders": st.lists(_order, max_size=3),
    "imu.vibration.engine_order": _edge,
    "imu.vibration.engine_idle_rpm": _edge,
    "imu.vibration.engine_rpm_per_mps": _edge,
    "imu.vibration.engine_accel_mps2": _triple,
    "imu.vibration.preset": st.sampled_from(
        ["none", "car_paved_road", "tractor_field", "mil_std_810h_cwv", "truck", ""]
    ),
    "imu.model": st.just("configurable"),
    "imu.preset": st.sampled_from(["none", "bmi088", "adis16465", "kvh1750"]),
    "imu.configurable.bandwidth_hz": _edge,
    "imu.configurable.deltas": st.sampled_from(["basilisk", "integrated"]),
    "imu.hz": _edge,
    "gnss.heading.baseline_m": st.one_of(st.sampled_from([0, 1e-300, 0.0099, 0.01, 1, 100]), _edge),
    "gnss.heading.antenna2_flu_m": st.one_of(st.none(), _triple),
    "gnss.heading.sigma_deg_at_1m": _edge,
    "gnss.heading.rtk_float": st.booleans(),
    "gnss.nmea.sentences": st.sampled_from([["HDT"], ["GGA", "HDT"], []]),
    "baro.preset": st.sampled_from(["none", "bmp388", "bmp390", "x"]),
    "mag.preset": st.sampled_from(["none", "uncalibrated", "calibrated", "x"]),
    "ins.imu_grade": st.sampled_from(["none", "consumer_mems", "tactical", "navigation", "x"]),
    # the run's time at the edges of the bag's clock (1970 .. 2262) and of four-digit years
    "gnss.datum.start_utc": st.sampled_from(
        [
            "0001-01-01T00:00:00Z",
            "1900-01-01T00:00:00Z",
            "1969-12-31T23:59:59Z",
            "1970-01-01T00:00:00Z",
            "2262-04-09T23:47:16Z",
            "2262-04-12T00:00:00Z",
            "9998-12-31T23:59:59Z",
            "9999-12-31T23:59:59Z",
        ]
    ),
}


@fuzz_settings()
@given(
    pairs=st.lists(
        st.sampled_from(sorted(FEATURE_KEYS)).flatmap(
            lambda k: st.tuples(st.just(k), FEATURE_KEYS[k])
        ),
        min_size=1,
        max_size=4,
    ),
    extra=st.lists(
        st.sampled_from(["--baro", "--mag", "--no-ins", "--no-noise", "--mcap"]), max_size=2
    ),
)
def test_the_newer_features_keys_together(bases, pairs, extra):
    """The keys of the vibration (a band with a level, sines and engine orders of odd shapes,
    presets), the configurable IMU's filter, the dual-antenna heading and the error presets,
    several at once at their edges (a key's limit often depends on another: the band on the
    physics rate once a level is set): one line naming a key or the option, or a complete
    run. Found: a band 1e-8 Hz wide, a filter at 1e-9 Hz, a 1e-300 m baseline."""
    options = [*extra]
    for key, value in pairs:
        options += ["--set", f"{key}={json_text(value)}"]
    with scratch() as folder:
        outcome = _simulate(bases, folder, *options)
        if outcome.code == 2:  # names a key (one a preset set, too) or an option
            named = re.search(r"\b(imu|gnss|baro|mag|ins|physics)\.[a-z]|--[a-z]", outcome.err)
            assert named, outcome.describe()


SET_TEXTS = [
    "[" * 3000 + "]" * 3000,  # deeper than json.loads recurses
    "[" * 100_000,
    '{"a": 1, "a": 2}',
    "[1e400, 0, 0]",
    "",
    " 5 ",
    "5\n",
    '"5"',
    "NaN",
    "-Infinity",
    "0x10",
]


@fuzz_settings()
@given(
    kv=override(),
    text=st.one_of(st.none(), st.sampled_from(SET_TEXTS), nasty_token()),
    command=st.sampled_from(["simulate", "config"]),
)
def test_one_set_option_at_the_edges(bases, kv, text, command):
    """``--set KEY=VALUE`` (every key) with VALUE the JSON of a value at the edges, or text that
    is no JSON, JSON nested too deep or an object with a key twice: refused naming the key or
    the option, or a run whose rows are all numbers."""
    key, value = kv
    option = f"{key}={json_text(value) if text is None else text}"
    with scratch() as folder:
        if command == "config":
            before = tree(folder)
            outcome = run_cli(["config", "show", "--set", option], folder)
            check_outcome(outcome, before, tree(folder))
        else:
            outcome = _simulate(bases, folder, "--set", option)
        if outcome.code == 2:
            assert key.split(".")[-1] in outcome.err or "--set" in outcome.err, outcome.describe()


@fuzz_settings(share=0.5)
@given(kind=st.sampled_from(SPECIAL_KINDS), option=st.sampled_from(["--config", "--site"]))
def test_a_configuration_or_site_that_is_not_a_readable_file(bases, kind, option):
    with scratch() as folder:
        path = special_path(folder, kind, ".json")
        _simulate(bases, folder, option, path.name, must_fail=True)


# ---------------------------------------------------------------------------- geo --in
@fuzz_settings()
@given(data=st.data(), source=st.sampled_from(["enu", "wgs84", "utm"]))
def test_a_geo_csv_damaged(bases, data, source):
    how = data.draw(st.sampled_from(["bytes", "field", "form"]))
    if how == "bytes":
        damaged = data.draw(damaged_bytes(bases["points.csv"].read_bytes(), deep_text=b'"'))
    elif how == "form":
        damaged = data.draw(csv_text_form(bases["points.csv"].read_bytes()))
    else:
        lines = bases["points.csv"].read_text().splitlines()
        row = data.draw(st.integers(1, len(lines) - 1))
        fields = lines[row].split(",")
        fields[data.draw(st.integers(0, 2))] = data.draw(nasty_token())
        lines[row] = ",".join(fields)
        damaged = ("\n".join(lines) + "\n").encode()
    with scratch() as folder:
        (folder / "p.csv").write_bytes(damaged)
        before = tree(folder)
        argv = ["geo", "--from", source, "--in", "p.csv", "--out", "o.csv"]
        if source == "utm":
            argv += ["--zone", "16"]
        outcome = run_cli(argv, folder)
        check_outcome(outcome, before, tree(folder), may_create=("o.csv",))
