"""The magnetometer against NOAA's published WMM2025 values, the WMM package and its own stream."""

from pathlib import Path

import numpy as np
import orjson
import pytest

from conftest import circle_truth, layout_rows, stationary_truth
from navsense.config import load_config
from navsense.config.typed.mag import MagConfig
from navsense.errors import ConfigError
from navsense.geo import Georeference
from navsense.geo.earth import grid_convergence_deg, grid_enu_to_ned, ned_to_grid_enu
from navsense.rng import Pcg32
from navsense.rotation import quat_to_matrix, rotate
from navsense.sensors.magnetometer import (
    MAG_SEED_OFFSET,
    MAG_SEQUENCE,
    MagnetometerModel,
    main_field_ned_nt,
)
from navsense.truth.states import TruthStates
from navsense.vehicles import VEHICLES

pygeomag = pytest.importorskip("pygeomag")  # the run-time WMM package (a dependency)

POLARIS = VEHICLES["polaris"]
REFERENCE = Path(__file__).resolve().parents[1] / "reference" / "wmm2025_test_values.txt"

nT = 1.0  # field tolerances are written in nT
uT = 1000.0 * nT
deg = 1.0
arcsec = deg / 3600.0

START_UTC = "2026-09-23T15:00:00Z"  # the specification's gnss.datum.start_utc


def _cfg_dict(
    noise=True,
    seed=42,
    hz=50.0,
    noise_std_ut=0.3,
    hard=(0.0, 0.0, 0.0),
    soft=(1, 0, 0, 0, 1, 0, 0, 0, 1),
):
    overrides = {
        "seed": seed,
        "noise": noise,
        "mount_frame": "chassis",
        "delay_s": 0.05,
        "gnss": {"datum": {"start_utc": START_UTC}},
        "mag": {
            "enabled": True,
            "hz": hz,
            "noise_std_ut": noise_std_ut,
            "hard_iron_ut": list(hard),
            "soft_iron_matrix": list(soft),
        },
    }
    # an effective configuration: every key, the Maxxum's defaults under these
    return load_config(vehicle="maxxum", overrides=overrides)


def _cfg(**kw) -> MagConfig:
    """The typed section of :func:`_cfg_dict`."""
    return MagConfig.from_validated(_cfg_dict(**kw))


@pytest.fixture(scope="module")
def acre():
    return Georeference.acre(start_utc=START_UTC)


def _reference_rows(section):
    rows = []
    for line in REFERENCE.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        parts = line.split()
        if parts[0] == section:
            rows.append(tuple(float(x) for x in parts[1:]))
    return rows


# ----------------------------------------------------------------- NOAA's published values
@pytest.mark.parametrize(
    "row", _reference_rows("table6"), ids=lambda r: f"{r[0]}-{r[1]}km-{r[2]}-{r[3]}"
)
def test_wrapper_reproduces_the_wmm2025_report_table6(row):
    year, h_km, lat, lon, x, y, z, dec = row
    b = main_field_ned_nt(lat, lon, h_km * 1000.0, year)
    # published to 0.1 nT: a right answer is within 0.05 nT, plus rounding of the computation
    np.testing.assert_allclose(b, [x, y, z], rtol=0, atol=0.06 * nT)
    assert abs(np.degrees(np.arctan2(b[1], b[0])) - dec) <= 0.0051 * deg


@pytest.mark.parametrize(
    "row", _reference_rows("testvalues"), ids=lambda r: f"{r[0]}-{r[2]}-{r[3]}"
)
def test_wrapper_reproduces_the_wmm2025_test_values_file(row):
    year, h_km, lat, lon, x, y, z, dec = row
    b = main_field_ned_nt(lat, lon, h_km * 1000.0, year)
    np.testing.assert_allclose(b, [x, y, z], rtol=0, atol=0.51 * nT)  # published to 1 nT
    assert abs(np.degrees(np.arctan2(b[1], b[0])) - dec) <= 0.0051 * deg


def test_a_start_outside_the_models_years_is_a_config_error():
    with pytest.raises(ConfigError, match=r"start_utc.*1900\.0\.\.2030\.0"):
        main_field_ned_nt(40.0, -87.0, 0.0, 2031.2)
    for start in ("1899-12-31T23:00:00Z", "2030-01-01T00:00:00Z"):
        cfg = _cfg_dict()
        cfg["gnss"]["datum"]["start_utc"] = start
        with pytest.raises(ConfigError, match="outside the years the Earth's field models"):
            MagnetometerModel(MagConfig.from_validated(cfg), POLARIS, None)


# ------------------------------------------------------------------------ the ACRE site
def test_field_at_acre_matches_the_wmm_package_to_1_nt(acre):
    """Noise off, identity soft iron: the reading rotated back to geodetic N/E/D is the WMM's."""
    yaw = 0.7
    truth = stationary_truth(30, yaw_rad=yaw, position=(0.0, 0.0, 0.0))
    model = MagnetometerModel(_cfg(noise=False), POLARIS, acre)
    block = model.process(truth)
    r = quat_to_matrix(truth.q_xyzw[:1])
    b_enu_nt = rotate(r, block["magnetic_field_flu_ut"][:1])[0] * 1000.0  # R m, uT -> nT
    gamma = float(grid_convergence_deg(acre, np.zeros((1, 3)))[0])
    b_ned = grid_enu_to_ned(b_enu_nt, gamma)

    g = acre.enu_to_geodetic(np.zeros(3), 0.0)
    year = float(acre.decimal_year(0.0))
    direct = pygeomag.GeoMag(coefficients_file="wmm/WMM_2025.COF").calculate(
        glat=float(g["wgs84_lat_deg"]),
        glon=float(g["wgs84_lon_deg"]),
        alt=float(g["wgs84_height_m"]) / 1000.0,
        time=year,
    )
    np.testing.assert_allclose(b_ned, [direct.x, direct.y, direct.z], rtol=0, atol=1 * nT)
    # and at the issue's coordinates of the site (40.4715765 N, 86.9943737 W, NAD83) on 2026-09-23
    issue = pygeomag.GeoMag(coefficients_file="wmm/WMM_2025.COF").calculate(
        glat=40.4715765,
        glon=-86.9943737,
        alt=float(g["wgs84_height_m"]) / 1000.0,
        time=2026 + 265.625 / 365,
    )
    np.testing.assert_allclose(b_ned, [issue.x, issue.y, issue.z], rtol=0, atol=1 * nT)
    # a field of about 52 uT, dipping 67 deg, declination about 4.5 deg west
    assert 51.5 * uT < np.linalg.norm(b_ned) < 52.5 * uT
    assert -5.0 < np.degrees(np.arctan2(b_ned[1], b_ned[0])) < -4.0


def test_acre_field_agrees_with_noaas_own_python_module(acre):
    """Cross-check with NOAA's wmm-calculator where it is installed (optional, test only)."""
    wmm = pytest.importorskip("wmm")
    g = acre.enu_to_geodetic(np.zeros(3), 0.0)
    year = float(acre.decimal_year(0.0))
    calc = wmm.wmm_calc()
    calc.setup_time(dyear=year)
    calc.setup_env(
        float(g["wgs84_lat_deg"]),
        float(g["wgs84_lon_deg"]),
        float(g["wgs84_height_m"]),
        unit="m",
        msl=False,
    )
    out = calc.get_all()
    ours = main_field_ned_nt(g["wgs84_lat_deg"], g["wgs84_lon_deg"], g["wgs84_height_m"], year)
    np.testing.assert_allclose(
        ours, [out["x"][0], out["y"][0], out["z"][0]], rtol=0, atol=0.01 * nT
    )


def test_grid_convergence_of_the_acre_tile(acre):
    """EPSG:2968 (transverse Mercator, central meridian 87 deg 05' W): gamma ~ dlambda sin(phi)."""
    gamma = float(grid_convergence_deg(acre, np.zeros((1, 3)))[0])
    lat, lon = 40.4715765, -86.9943737
    approx = (lon + (87 + 5 / 60)) * np.sin(np.radians(lat))
    assert gamma > 0  # east of the central meridian grid north lies east of true north
    assert abs(gamma - approx) < 2 * arcsec
    pyproj = pytest.importorskip("pyproj")
    f = pyproj.Proj("EPSG:2968").get_factors(lon, lat)
    assert abs(gamma - f.meridian_convergence) < 0.5 * arcsec


def test_local_site_has_no_convergence_at_its_origin():
    local = Georeference.local(-33.87, 151.21, 40.0, start_utc=START_UTC)
    assert abs(float(grid_convergence_deg(local, np.zeros((1, 3)))[0])) < 1e-9
    model = MagnetometerModel(_cfg(noise=False), POLARIS, local)
    info = model.episode_info()["mag_field"]
    assert 11.0 < info["declination_deg"] < 14.0  # Sydney: about 12.8 deg east


def test_first_order_field_matches_the_wmm_away_from_the_origin_and_later(acre):
    """The expansion B0 + G p + Bdot t against a direct evaluation 2 km away, a week later."""
    model = MagnetometerModel(_cfg(noise=False), POLARIS, acre)
    p = np.array([1500.0, -1200.0, 3.0])
    t = 7 * 86400.0
    expanded = model.field.field_enu_nt(p[None, :], np.array([t]))[0]
    g = acre.enu_to_geodetic(p, t)
    b = main_field_ned_nt(
        g["wgs84_lat_deg"], g["wgs84_lon_deg"], g["wgs84_height_m"], float(acre.decimal_year(t))
    )
    gamma = float(grid_convergence_deg(acre, p[None, :], t)[0])
    np.testing.assert_allclose(expanded, ned_to_grid_enu(b, gamma), rtol=0, atol=0.05 * nT)
    # the expansion is not a constant: the field moved by nT over those 2 km and a week
    assert np.linalg.norm(expanded - model.field.b0_enu_nt) > 5 * nT


def test_ned_grid_rotations_are_inverse():
    b = np.array([[20000.0, -1500.0, 48000.0], [1.0, 2.0, 3.0]])
    np.testing.assert_allclose(
        grid_enu_to_ned(ned_to_grid_enu(b, 0.0577), 0.0577), b, rtol=0, atol=1e-9 * nT
    )
    np.testing.assert_array_equal(ned_to_grid_enu(b, 0.0)[0], [-1500.0, 20000.0, -48000.0])


# ----------------------------------------------------------------- errors and the stream
def test_heading_turns_the_horizontal_field_in_the_body(acre):
    """Level, heading north-east vs east: the reading is R^T B (a compass works)."""
    for yaw in (0.0, np.pi / 2, 2.0):
        truth = stationary_truth(5, yaw_rad=yaw, position=(0.0, 0.0, 0.0))
        m = MagnetometerModel(_cfg(noise=False), POLARIS, acre).process(truth)
        b = MagnetometerModel(_cfg(noise=False), POLARIS, acre).field.b0_enu_nt / 1000.0
        c, s = np.cos(yaw), np.sin(yaw)
        expected = [c * b[0] + s * b[1], -s * b[0] + c * b[1], b[2]]
        np.testing.assert_allclose(m["magnetic_field_flu_ut"][0], expected, rtol=0, atol=1e-9 * uT)


def test_hard_and_soft_iron_and_noise_are_the_streams_gaussians(acre):
    hard = (2.0, -1.5, 0.8)
    soft = (1.02, 0.01, 0.0, 0.01, 0.98, 0.02, 0.0, 0.02, 1.01)
    model = MagnetometerModel(_cfg(seed=7, hard=hard, soft=soft, noise_std_ut=0.3), POLARIS, acre)
    truth = stationary_truth(12, yaw_rad=0.3, position=(5.0, -3.0, 0.5))
    block = model.process(truth)
    clean = MagnetometerModel(_cfg(noise=False), POLARIS, acre).process(truth)
    m = block["sample_time_s"].size
    g = Pcg32(7 + MAG_SEED_OFFSET, MAG_SEQUENCE).gaussians(3 * m).reshape(m, 3)
    expected = clean["magnetic_field_flu_ut"] @ np.array(soft).reshape(3, 3).T + hard + 0.3 * g
    np.testing.assert_allclose(block["magnetic_field_flu_ut"], expected, rtol=0, atol=1e-9 * uT)


def test_white_noise_sigma(acre):
    sigma = 0.3
    n = 4000
    truth = stationary_truth(n, position=(0.0, 0.0, 0.0))
    noisy = MagnetometerModel(_cfg(hz=120, noise_std_ut=sigma), POLARIS, acre).process(truth)
    clean = MagnetometerModel(_cfg(hz=120, noise=False), POLARIS, acre).process(truth)
    e = (noisy["magnetic_field_flu_ut"] - clean["magnetic_field_flu_ut"]).ravel()
    # sd of a sample sd is sigma / sqrt(2 N); 4 of them
    assert abs(e.std() - sigma) < 4 * sigma / np.sqrt(2 * e.size)
    assert abs(e.mean()) < 4 * sigma / np.sqrt(e.size)


def test_noise_off_is_truth_and_draws_the_same_values(acre):
    on = MagnetometerModel(_cfg(hard=(5, 5, 5), soft=(2, 0, 0, 0, 2, 0, 0, 0, 2)), POLARIS, acre)
    off = MagnetometerModel(
        _cfg(noise=False, hard=(5, 5, 5), soft=(2, 0, 0, 0, 2, 0, 0, 0, 2)), POLARIS, acre
    )
    truth = circle_truth(100)
    block = off.process(truth)
    on.process(truth)
    assert on._rng.state == off._rng.state
    rows = np.searchsorted(truth.t_s, block["sample_time_s"])
    b_enu = off.field.field_enu_nt(truth.p_m[rows], truth.t_s[rows]) / 1000.0
    r = quat_to_matrix(truth.q_xyzw[rows])
    np.testing.assert_allclose(
        rotate(r, block["magnetic_field_flu_ut"]), b_enu, rtol=0, atol=1e-9 * uT
    )


def test_first_sample_at_t0_and_rate(acre):
    block = MagnetometerModel(_cfg(hz=20), POLARIS, acre).process(stationary_truth(240))
    assert block["sample_time_s"][0] == 0.0
    assert block["sample_time_s"].size == 40  # 2 s at 20 Hz


def test_without_a_georeference_the_field_is_that_of_the_acre_tile(acre):
    a = MagnetometerModel(_cfg(), POLARIS, None).field
    b = MagnetometerModel(_cfg(), POLARIS, acre).field
    np.testing.assert_array_equal(a.b0_enu_nt, b.b0_enu_nt)


# --------------------------------------------------------- batch = chunks = steps, rows
def _run(model, truth, size):
    rows = []
    for part in truth.chunks(size):
        block = model.process(part)
        rows.extend(layout_rows(model, block))
    return b"\n".join(orjson.dumps(r) for r in rows)


def test_batch_chunks_steps_give_identical_rows(acre):
    truth = circle_truth(700, radius_m=40.0)
    outs = [
        _run(MagnetometerModel(_cfg(hz=50), POLARIS, acre), truth, size)
        for size in (len(truth), 97, 1)
    ]
    assert outs[0] == outs[1] == outs[2]
    assert outs[0].count(b"\n") + 1 == 292  # 50 Hz over 700 / 120 s


def test_rows_layout(acre):
    model = MagnetometerModel(_cfg(), POLARIS, acre)
    rows = layout_rows(model, model.process(stationary_truth(3)))
    assert list(rows[0]) == ["magnetic_field_flu_ut"]
    assert len(rows[0]["magnetic_field_flu_ut"]) == 3
    assert all(round(x, 4) == x for x in rows[0]["magnetic_field_flu_ut"])
    assert layout_rows(model, model.process(stationary_truth(0))) == []
    empty = model.process(TruthStates.concatenate([stationary_truth(1)]).slice(0, 0))
    assert empty["magnetic_field_flu_ut"].shape == (0, 3)


def test_episode_info_names_the_model(acre):
    info = MagnetometerModel(_cfg(), POLARIS, acre).episode_info()["mag_field"]
    assert info["model"] == "WMM2025"
    assert info["package"].startswith("pygeomag")
    assert "uncertainty" not in info  # a WMM2025 run's episode.json keeps its bytes
    assert abs(info["grid_convergence_deg"] - 0.0577) < 0.0005
    orjson.dumps(info)


# ----------------------------------------------------------------- the configuration
def test_built_from_the_effective_configuration(acre):
    from navsense.config import apply_overrides, load_config

    cfg = load_config()
    assert cfg["mag"]["enabled"] is False  # off by default: the specification's run is unchanged
    cfg = apply_overrides(cfg, {"mag.enabled": True, "mag.hz": 10})
    block = MagnetometerModel(MagConfig.from_validated(cfg), POLARIS, acre).process(
        stationary_truth(120)
    )
    assert block["sample_time_s"].size == 10
    with pytest.raises(ConfigError, match=r"mag\.hz = 2400 is out of range 1\.\.2000"):
        apply_overrides(cfg, {"mag.hz": 2400})
    with pytest.raises(ConfigError, match=r"mag\.soft_iron_matrix"):
        apply_overrides(cfg, {"mag.soft_iron_matrix": [1, 0, 0, 0, 1, 0]})
