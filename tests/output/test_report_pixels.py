"""The report's figures drawn fast look exactly as drawn the plain way: each PNG, decoded, has
the pixels of matplotlib's own PNG of the same figure (navsense.output.png), for every figure
variant (the aided INS's, a site with overhead obstacles, a run without truth)."""

from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import numpy as np
import pytest

from navsense.config import load_config
from navsense.output.png import encode_png
from navsense.scenarios import load_scenario
from navsense.simulate import simulate
from navsense.vehicles import vehicle_profile

pytest.importorskip("matplotlib")


def _pixels(png: bytes) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


def _run(out: Path, overrides: dict | None = None, duration_s: float = 20.0) -> Path:
    scenario = load_scenario("acre-loop", duration_s=duration_s)
    simulate(
        scenario.truth,
        load_config(vehicle="polaris", overrides=overrides or {}),
        vehicle_profile("polaris"),
        scenario.site,
        out,
        source={"scenario": "acre-loop"},
    )
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict:
    """A plain run and an aided INS's run with a signal outage (the sky plot's two-line
    title), 20 s of acre-loop each."""
    base = tmp_path_factory.mktemp("pixels")
    return {
        "plain": _run(base / "plain"),
        "aided": _run(
            base / "aided",
            {"ins.aiding": "gnss", "gnss.signal_outages_s": [[10.0, 12.0]]},
        ),
    }


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _data(runs, name):
    """The run data of a variant: "plain", "aided", "no truth" (the plain run's, its truth
    dropped), "overhead" (the plain run's over the underpass site: overhead boxes)."""
    import orjson

    from navsense.runs import report

    data = report.read_run(runs["aided" if name == "aided" else "plain"])
    if name == "no truth":
        data.truth = data.gnss_truth_antenna_enu_m = data.gnss_error_enu_m = None
    if name == "overhead":
        site = orjson.loads((EXAMPLES / "underpass.site.json").read_bytes())
        data.episode = dataclasses.replace(data.episode, site=site)
    return data


# --------------------------------------------------------------------------------- encoder
@pytest.mark.parametrize("opaque", [True, False])
def test_encoded_png_decodes_to_the_image(opaque):
    """Random pixels (every byte difference of the Up filter, modulo 256) decode to themselves;
    an opaque image is RGB, a translucent one RGBA; the metadata are read back."""
    from PIL import Image

    rng = np.random.default_rng(7)
    rgba = rng.integers(0, 256, size=(37, 53, 4), dtype=np.uint8)
    if opaque:
        rgba[..., 3] = 255
    png = encode_png(rgba, dpi=100, text={"Software": "navsense test"})
    img = Image.open(io.BytesIO(png))
    assert img.mode == ("RGB" if opaque else "RGBA")
    assert np.array_equal(np.asarray(img.convert("RGBA")), rgba)
    assert img.info["Software"] == "navsense test"
    assert img.info["dpi"] == pytest.approx((100, 100), abs=0.01)


def test_encoder_refuses_what_is_not_rgba():
    with pytest.raises(ValueError, match="RGBA"):
        encode_png(np.zeros((4, 4, 3), dtype=np.uint8))


# --------------------------------------------------------------------------------- figures
def _plain_png(fig) -> bytes:
    """The figure as matplotlib writes it (savefig's PNG through Pillow): the old way."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


@pytest.mark.parametrize("name", ["plain", "aided", "no truth", "overhead"])
def test_report_figures_have_savefigs_pixels(runs, name, monkeypatch):
    """Every figure of the report, PNG as the report writes it, has the pixels of savefig's
    PNG of the same figure; the files are no bigger than 1.3 times savefig's (all 62 figures of
    11 runs together: the same size; one figure from 0.9 to 1.25 times)."""
    from navsense.runs import report_plots, report_sky

    data = _data(runs, name)
    plain: dict = {}
    real = report_plots._png

    def png(fig, title, caption, filename):
        got = real(fig, title, caption, filename)
        plain[filename] = _plain_png(fig)
        return got

    monkeypatch.setattr(report_plots, "_png", png)
    monkeypatch.setattr(report_sky, "_png", png)
    figures = [m(data) for m in report_plots.figure_makers()]
    drawn = {f.filename: f for f in figures if f is not None}
    expected = {"track.png", "fix_states.png", "sky.png", "imu.png"}
    expected |= {"ins_aided.png"} if name == "aided" else {"ins_error.png"}
    expected |= set() if name == "no truth" else {"gnss_error.png"}
    assert set(drawn) == expected
    for filename, fig in drawn.items():
        assert np.array_equal(_pixels(fig.png), _pixels(plain[filename])), filename
        assert len(fig.png) < 1.3 * len(plain[filename]), filename
        assert _pixels(fig.png).shape == (fig.height_px, fig.width_px, 4)


# ------------------------------------------------------------------------------------ sky
def _every_ray(antenna, site, foliage_block_path_m):
    """The sky plot's grid with every ray tested against every obstacle (the plain way)."""
    from navsense.runs.report_sky import _SKY_AZ_DEG, _SKY_EL_DEG
    from navsense.sky import obstruction as sky

    az, el = np.radians(_SKY_AZ_DEG), np.radians(_SKY_EL_DEG)
    ca, sa = np.cos(el)[None, :], np.sin(el)[None, :]
    d = np.stack(
        [
            np.sin(az)[:, None] * ca,
            np.cos(az)[:, None] * ca,
            np.broadcast_to(sa, (az.size, el.size)),
        ],
        axis=-1,
    )
    blocked = np.zeros(d.shape[:2], dtype=bool)
    for lo, hi in zip(site.box_min_m, site.box_max_m):
        blocked |= sky.ray_box_hit(antenna, d, lo, hi)
    for xy, b, t, r in zip(site.cyl_xy_m, site.cyl_base_m, site.cyl_top_m, site.cyl_radius_m):
        blocked |= sky.ray_cylinder_hit(antenna, d, xy, b, t, r)
    chord = np.zeros(d.shape[:2])
    for c, r in zip(site.crown_center_m, site.crown_radius_m):
        chord += sky.sphere_chord(antenna, d, c, r)
    blocked |= chord >= foliage_block_path_m
    return blocked, (chord > 0) & ~blocked


@pytest.mark.parametrize("site_name", ["acre", "underpass"])
def test_sky_grid_is_every_rays_test(site_name):
    """The sky plot's grid, testing each obstacle only on the azimuths that face it, is the
    grid of every ray against every obstacle: for antennas all over the site, beside, under
    and inside obstacles (a crown's, a bin's and a building's footprint), and far away."""
    from navsense.runs.report_sky import _sky_grid
    from navsense.site import embedded_site, load_site

    examples = Path(__file__).resolve().parents[2] / "examples"
    site = (
        embedded_site("acre")
        if site_name == "acre"
        else load_site(examples / "underpass.site.json")
    )
    rng = np.random.default_rng(3)
    antennas = [np.r_[rng.uniform(-120, 120, 2), rng.uniform(0.5, 4.0)] for _ in range(12)]
    for c, r in zip(site.crown_center_m[:2], site.crown_radius_m[:2]):
        antennas += [np.r_[c[:2] + [0.3 * r, 0.0], 1.8], np.r_[c[:2] + [r + 0.5, 0.0], 1.8]]
    for xy, r in zip(site.cyl_xy_m[:2], site.cyl_radius_m[:2]):
        antennas += [np.r_[xy + [r + 0.2, 0.0], 1.8]]
    for lo, hi in zip(site.box_min_m, site.box_max_m):
        antennas += [np.r_[(lo[:2] + hi[:2]) / 2, 1.0], np.r_[hi[:2] + 0.5, 2.0]]
    antennas += [np.array([900.0, -700.0, 2.0])]
    seen = np.zeros(2)
    for antenna in antennas:
        _, _, blocked, foliage = _sky_grid(antenna, site, 8.0)
        want_blocked, want_foliage = _every_ray(antenna, site, 8.0)
        assert np.array_equal(blocked, want_blocked), antenna
        assert np.array_equal(foliage, want_foliage), antenna
        seen += [blocked.any(), foliage.any()]
    assert seen[0] > 5 and (site_name == "underpass" or seen[1] > 5)  # the test saw obstacles


# ------------------------------------------------------------------------ settled texts
def _figures(data, report_plots) -> dict:
    return {f.filename: f for m in report_plots.figure_makers() if (f := m(data)) is not None}


@pytest.mark.parametrize("name", ["plain", "aided", "no truth"])
def test_settled_labels_and_titles_look_as_placed_by_matplotlib(runs, name, monkeypatch):
    """The y labels, empty labels and titles that report_plots._settle fixes in place after
    _fit_left are where matplotlib places them while drawing: every figure has the pixels of
    the same figure drawn without _settle."""
    from navsense.runs import report_kit, report_plots

    data = _data(runs, name)
    settled = _figures(data, report_plots)
    monkeypatch.setattr(report_kit, "_settle", lambda axes, shift_px, renderer: None)
    placed = _figures(data, report_plots)
    assert set(settled) == set(placed)
    for filename in settled:
        assert np.array_equal(_pixels(settled[filename].png), _pixels(placed[filename].png)), (
            filename
        )


def _stacked(top_ticks: bool, offset: bool, settle: bool, monkeypatch):
    from navsense.runs import report_kit, report_plots

    if not settle:
        monkeypatch.setattr(report_kit, "_settle", lambda axes, shift_px, renderer: None)
    fig = report_plots._new(6, 5)
    ax_a, ax_b = fig.subplots(2, 1, sharex=True)
    report_plots._place(fig, [ax_a, ax_b], 0.8)
    t = np.linspace(0.0, 100.0, 50)
    ax_a.plot(t, 1e5 + 0.1 * np.sin(t) if offset else np.sin(t))
    ax_b.plot(t, np.cos(t))
    ax_a.set_ylabel("upper (m)")
    ax_b.set_ylabel("lower\n(m)")
    ax_b.set_xlabel("time (s)")
    if top_ticks:
        ax_a.xaxis.tick_top()
        ax_a.xaxis.set_tick_params(labeltop=True)
    ax_a.set_title("A title over stacked axes")
    report_plots._fit_left(fig)
    settled = [report_kit._title_stays(ax, fig.canvas.get_renderer()) for ax in (ax_a, ax_b)]
    png = report_plots._png(fig, "t", "c", "t.png").png
    monkeypatch.undo()
    return settled, _pixels(png)


@pytest.mark.parametrize(("top_ticks", "offset"), [(False, False), (True, False), (False, True)])
def test_a_title_that_matplotlib_would_move_is_left_to_it(top_ticks, offset, monkeypatch):
    """A title over x tick labels on top, or beside an offset text of the y axis ("1e5"), is
    not fixed in place (matplotlib raises it clear of them): the figure looks the same with and
    without _settle either way, and the plain case is fixed (the fast path is taken)."""
    stays, fast = _stacked(top_ticks, offset, True, monkeypatch)
    _, plain = _stacked(top_ticks, offset, False, monkeypatch)
    assert stays == [not (top_ticks or offset), False]  # the lower axes has no title
    assert np.array_equal(fast, plain)


@pytest.mark.parametrize("name", ["plain", "overhead"])
def test_track_obstacles_look_as_added_by_add_patch(runs, name, monkeypatch):
    """The track's obstacles, added without updating the data limits (add_artist), look as
    added by add_patch: ACRE's buildings, bins and crowns, the underpass site's hatched decks."""
    from matplotlib.axes import Axes
    from matplotlib.patches import Patch

    from navsense.runs import report_plots

    data = _data(runs, name)
    fast = report_plots.track_figure(data)
    real = Axes.add_artist
    patches = []

    def add_artist(self, a):
        if isinstance(a, Patch):
            patches.append(a)
            return self.add_patch(a)
        return real(self, a)

    monkeypatch.setattr(Axes, "add_artist", add_artist)
    plain = report_plots.track_figure(data)
    assert len(patches) >= (3 if name == "overhead" else 30)
    assert np.array_equal(_pixels(fast.png), _pixels(plain.png))


def test_the_track_of_an_aided_ins_without_a_position_yet_draws_the_antennas_truth(
    runs, monkeypatch
):
    """An aided INS not yet initialised reports no position, so its point's truth is unknown
    (NaN throughout the 20 s run): the track figure draws the antenna's truth instead, without
    numpy's all-NaN warnings (the view's limits took NaN from them)."""
    import warnings

    import matplotlib.axes

    from navsense.runs import report_plots

    data = _data(runs, "aided")
    assert not np.isfinite(data.ins_truth_enu_m[:, :2]).any()
    labels = []
    plot = matplotlib.axes.Axes.plot

    def recording_plot(self, *args, **kwargs):
        labels.append(kwargs.get("label"))
        return plot(self, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "plot", recording_plot)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        fig = report_plots.track_figure(data)
    assert fig is not None and _pixels(fig.png).shape[:2] == (fig.height_px, fig.width_px)
    assert "truth (antenna)" in labels and "truth (INS point)" not in labels
