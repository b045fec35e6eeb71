"""Fuzz: estimates given to ``navsense score RUN_DIR ESTIMATE`` (TUM, CSV, a topic of an MCAP
bag) and its options at the edges.

The valid estimates (fixture ``score_bases``) are the base run's INS rows: TUM in site ENU and in
UTM, CSV in ENU with sigmas and in latitude/longitude with a covariance, and the run's own bag.
Each example scores one (damaged) estimate against a copy of the run's files that score reads
(episode.json, gnss.jsonl, truth.parquet) in a fresh folder; a success must leave a complete
score.json (a JSON object; NaN only as null) and nothing else but the score's own outputs.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st

from fuzz.fuzz_helpers import (
    SPECIAL_KINDS,
    Outcome,
    blob,
    check_outcome,
    csv_text_form,
    damaged_bytes,
    fuzz_settings,
    nasty_token,
    run_cli,
    scratch,
    special_path,
    tree,
)
from fuzz.test_fuzz_rundir import _make_run, damaged_run

#: What score reads of a run (the rest of the run directory is not needed).
RUN_FILES = ("episode.json", "gnss.jsonl", "truth.parquet")
#: The estimates of score_bases with the options they need.
ESTIMATES: dict[str, tuple[str, ...]] = {
    "est.tum": (),
    "est-utm.tum": ("--frame", "utm"),
    "est.csv": (),
    "est-geo.csv": (),
    "est.mcap": ("--topic", "/vehicle/odom"),
}
MCAP_TOPICS = ["/vehicle/odom", "/oxts/fix", "/sim/ground_truth/odom"]


def score_checked(
    folder: Path,
    bases,
    estimate: str,
    options=(),
    *,
    must_fail: bool = False,
    plots: bool = False,
    run: str = "run",
) -> Outcome:
    """``navsense score run ESTIMATE OPTIONS`` in ``folder`` (the run's files are copied into
    ``folder/run`` unless it is there), checked by check_outcome; a success must have written a
    complete score.json (RUN_DIR/score/ or --out)."""
    if not (folder / run).exists():
        (folder / run).mkdir()
        for name in RUN_FILES:
            shutil.copy(bases["run"] / name, folder / run / name)
    before = tree(folder)
    argv = ["score", run, estimate, *options] + ([] if plots else ["--no-plots"])
    outcome = run_cli(argv, folder)
    after = tree(folder)
    out = list(options)
    may_create = [run]
    if "--out" in out:
        may_create += Path(out[out.index("--out") + 1]).parts[:1]
    check_outcome(outcome, before, after, must_fail=must_fail, may_create=tuple(may_create))
    if outcome.code == 0:
        path = folder / (
            out[out.index("--out") + 1] if "--out" in out else f"{run}/score/score.json"
        )
        check_score_file(path, outcome)
    return outcome


def check_score_file(path: Path, outcome: Outcome) -> None:
    """A complete score.json: a flat JSON object with at least one scored epoch, numbers finite
    (a figure without data is null)."""
    text = outcome.describe()
    assert path.is_file(), f"no {path}: {text}"
    score = orjson.loads(path.read_bytes())
    assert isinstance(score, dict) and score.get("score_version") == 1, text
    assert score["epochs"] >= 1, text
    for key, value in score.items():
        assert not isinstance(value, (dict, list)), f"{key}: {text}"
        if isinstance(value, float):
            assert math.isfinite(value), f"{key} = {value}: {text}"


def _write(folder: Path, name: str, data: bytes | str) -> str:
    p = folder / name
    if isinstance(data, str):
        p.write_text(data, encoding="utf-8")
    else:
        p.write_bytes(data)
    return name


# ------------------------------------------------------------------------ damaged bytes
@fuzz_settings()
@given(data=st.data(), name=st.sampled_from(sorted(ESTIMATES)))
def test_an_estimate_damaged_byte_by_byte(bases, score_bases, data, name):
    damaged = data.draw(damaged_bytes(score_bases[name].read_bytes(), deep_text=b"1 "))
    options = ESTIMATES[name]
    if name.endswith(".mcap"):
        options = ("--topic", data.draw(st.sampled_from(MCAP_TOPICS)))
    with scratch() as folder:
        est = _write(folder, name, damaged)
        score_checked(folder, bases, est, options)


@fuzz_settings()
@given(data=st.data(), name=st.sampled_from(["est.csv", "est-geo.csv"]))
def test_a_csv_estimate_written_another_way(bases, score_bases, data, name):
    """Spaces, quotes, line ends, separators, case or column order of a CSV estimate (a
    column twice was scored with the first and the second left out unsaid)."""
    text = data.draw(csv_text_form(score_bases[name].read_bytes()))
    with scratch() as folder:
        est = _write(folder, name, text)
        score_checked(folder, bases, est, ESTIMATES[name])


# --------------------------------------------------------------------------- bad fields
def _table(path: Path) -> tuple[list[str], str, list[list[str]]]:
    """(header fields or [] for TUM, separator, rows of fields) of a base estimate."""
    lines = path.read_text(encoding="utf-8").splitlines()
    if path.suffix == ".csv":
        return lines[0].split(","), ",", [line.split(",") for line in lines[1:]]
    rows = [line.split(" ") for line in lines if not line.startswith("#")]
    return [], " ", rows


def _text(header: list[str], sep: str, rows: list[list[str]]) -> str:
    lines = ([",".join(header)] if header else []) + [sep.join(r) for r in rows]
    return "\n".join(lines) + "\n"


TEXT_ESTIMATES = ["est.tum", "est-utm.tum", "est.csv", "est-geo.csv"]


@fuzz_settings()
@given(
    name=st.sampled_from(TEXT_ESTIMATES),
    row=st.integers(0, 49),
    column=st.integers(0, 10),
    token=nasty_token(),
)
def test_an_estimate_with_a_bad_field(bases, score_bases, name, row, column, token):
    header, sep, rows = _table(score_bases[name])
    rows[row][column % len(rows[row])] = token
    with scratch() as folder:
        est = _write(folder, name, _text(header, sep, rows))
        score_checked(folder, bases, est, ESTIMATES[name])


@st.composite
def odd_estimate(draw, score_bases):
    """(file name, text, options, note): a base estimate that is well formed field by field but
    odd as a whole: no rows, one row, times unsorted, repeated, shifted out of the run, UNIX or
    huge; rows of the wrong length; zero or unnormalised quaternions; huge or zero sigmas; a
    covariance that is not positive definite; far away or at the edges of the earth."""
    name = draw(st.sampled_from(TEXT_ESTIMATES))
    header, sep, rows = _table(score_bases[name])
    kind = draw(
        st.sampled_from(
            [
                "rows",
                "unsorted",
                "duplicate",
                "shift",
                "scale time",
                "same time",
                "fields",
                "quaternion",
                "sigma",
                "position",
                "columns",
                "blank",
            ]
        )
    )
    i = draw(st.integers(0, len(rows) - 1))
    t = [float(r[0]) for r in rows]
    is_csv = bool(header)
    if kind == "rows":
        k = draw(st.sampled_from([0, 1, 2, 3]))
        rows = rows[i : i + k]
        note = f"{len(rows)} rows from {i}"
    elif kind == "unsorted":
        rows = draw(st.sampled_from([rows[::-1], rows[i:] + rows[:i]]))
        note = "unsorted"
    elif kind == "duplicate":
        j = draw(st.integers(0, len(rows) - 1))
        how = draw(st.sampled_from(["row", "time"]))
        if how == "row":
            rows.insert(i, list(rows[j]))
        else:
            rows[i][0] = rows[j][0]
        note = f"row {i} a duplicate {how} of row {j}"
    elif kind == "shift":
        d = draw(
            st.sampled_from(
                [-1e3, -3.0, -1.0, 1.5, 1.95, 2.5, 1e3, 1e9, 1e12, 1e17, -1e17, 1e300, -1e300]
                + ["unix", "unix+1e3", "unix-1e3"]
            )
        )
        if isinstance(d, str):
            offset = _start_unix_s_from(score_bases) + {"unix": 0, "unix+1e3": 1e3}.get(d, -1e3)
        else:
            offset = d
        for r, v in zip(rows, t, strict=True):
            r[0] = repr(v + offset)
        note = f"times + {d}"
    elif kind == "scale time":
        f = draw(st.sampled_from([1e-12, 1e-6, 1e3, -1.0, 1e300]))
        for r, v in zip(rows, t, strict=True):
            r[0] = repr(v * f)
        note = f"times * {f}"
    elif kind == "same time":
        for r in rows:
            r[0] = rows[i][0]
        note = "every time the same"
    elif kind == "fields":
        how = draw(st.sampled_from(["drop", "add", "empty row", "one field"]))
        if how == "drop":
            del rows[i][-1]
        elif how == "add":
            rows[i].append("0")
        elif how == "empty row":
            rows[i] = [""] * len(rows[i])
        else:
            rows[i] = rows[i][:1]
        note = f"row {i}: {how}"
    elif kind == "quaternion" and name != "est-geo.csv":
        q = draw(
            st.sampled_from(
                [
                    ("0", "0", "0", "0"),
                    ("0", "0", "0", "1.0001"),
                    ("0", "0", "0", "-1"),
                    ("1e-300", "0", "0", "0"),
                    ("1e300", "0", "0", "0"),
                    ("0", "0", "0", "5e-324"),
                ]
            )
        )
        which = draw(st.sampled_from(["one", "all"]))
        for r in rows if which == "all" else [rows[i]]:
            r[4:8] = q
        note = f"quaternion {q} ({which})"
    elif kind == "sigma" and is_csv:
        v = draw(st.sampled_from(["0", "1e-300", "1e-160", "1e160", "1e300", "-0", "-1e-9"]))
        which = draw(st.sampled_from(["one", "all"]))
        k = draw(st.integers(0, 5))
        first = 8 if name == "est.csv" else 4
        for r in rows if which == "all" else [rows[i]]:
            r[first + k % (len(r) - first)] = v
        note = f"covariance cell {k} = {v} ({which})"
    elif kind == "position":
        v = draw(
            st.sampled_from(
                ["90", "-90", "90.000001", "180", "-180", "360", "1e7", "-1e7", "1e17", "1e300"]
                + ["0", "-1e-300", "6.4e6", "1e9"]
            )
        )
        k = draw(st.integers(1, 3))
        which = draw(st.sampled_from(["one", "all"]))
        for r in rows if which == "all" else [rows[i]]:
            r[k] = v
        note = f"position field {k} = {v} ({which})"
    elif kind == "columns" and is_csv:
        how = draw(st.sampled_from(["permute", "drop", "duplicate", "rename", "unix"]))
        k = draw(st.integers(0, len(header) - 1))
        if how == "permute":
            order = draw(st.permutations(range(len(header))))
            header = [header[o] for o in order]
            rows = [[r[o] for o in order] for r in rows]
        elif how == "drop":
            del header[k]
            for r in rows:
                del r[k]
        elif how == "duplicate":
            header.append(header[k])
            for r in rows:
                r.append(r[k])
        elif how == "rename":
            header[k] = draw(st.sampled_from(["", "x_m", "t_s", "unix_time_s", "\u00e9", "qw "]))
        else:
            header[0] = "unix_time_s"
            start = _start_unix_s_from(score_bases)
            for r, v in zip(rows, t, strict=True):
                r[0] = repr(v + start)
        note = f"header {how} at {k}"
    elif kind == "blank" and is_csv:
        k = draw(st.integers(0, len(header) - 1))
        which = draw(st.sampled_from(["one", "all"]))
        for r in rows if which == "all" else [rows[i]]:
            r[k] = ""
        note = f"blank {header[k]} ({which})"
    else:
        note = "unchanged"
    options = ESTIMATES[name]
    return name, blob(_text(header, sep, rows).encode(), f"{name}: {kind}: {note}"), options


def _start_unix_s_from(score_bases) -> float:
    from navsense.output.ros2 import utc_ns

    episode = orjson.loads(
        (score_bases["est.mcap"].parent.parent / "run" / "episode.json").read_bytes()
    )
    return utc_ns(episode["start_utc"]) * 1e-9


@fuzz_settings(share=2.0)
@given(data=st.data())
def test_an_odd_estimate(bases, score_bases, data):
    name, text, options = data.draw(odd_estimate(score_bases))
    align = data.draw(st.sampled_from([(), (), ("--align", "se3"), ("--align", "sim3")]))
    with scratch() as folder:
        est = _write(folder, name, text)
        score_checked(folder, bases, est, (*options, *align))


def test_an_estimate_outside_the_run_is_refused(bases, score_bases):
    """Ruling (navsense.score.truth): an estimate none of whose stamps is inside the run ends in
    exit 2 naming both time spans."""
    header, sep, rows = _table(score_bases["est.tum"])
    for r in rows:
        r[0] = repr(float(r[0]) + 100.0)
    with scratch() as folder:
        est = _write(folder, "late.tum", _text(header, sep, rows))
        outcome = score_checked(folder, bases, est, must_fail=True)
        assert "inside the run" in outcome.err


# -------------------------------------------------------------------------------- MCAP
@fuzz_settings(share=0.6)
@given(
    topic=st.sampled_from(
        [None, "", "/nope", "/tf", "/tf_static", "/imu/data", "/vehicle/velocity", "/oxts/fix "]
        + ["/vehicle/odom\0", "\u00e9", "/" * 300]
    ),
)
def test_an_mcap_estimate_with_a_wrong_topic(bases, score_bases, topic):
    with scratch() as folder:
        shutil.copy(score_bases["est.mcap"], folder / "est.mcap")
        options = () if topic is None else ("--topic", topic)
        score_checked(folder, bases, "est.mcap", options, must_fail=True)


@fuzz_settings(share=0.6)
@given(data=st.data(), topic=st.sampled_from(MCAP_TOPICS))
def test_a_truncated_mcap_estimate(bases, score_bases, data, topic):
    raw = score_bases["est.mcap"].read_bytes()
    cut = data.draw(st.sampled_from([0, 4, 8, 9, 17, 64, 200]) | st.integers(0, len(raw) - 1))
    with scratch() as folder:
        est = _write(folder, "est.mcap", blob(raw[:cut], f"cut at byte {cut} of {len(raw)}"))
        score_checked(folder, bases, est, ("--topic", topic))


# ---------------------------------------------------------------------------- options
SCORE_OPTIONS: dict[str, list[str]] = {
    "--rpe-delta": ["0", "-0", "-1", "nan", "inf", "-inf", "1e300", "1e-300", "5e-324", "1e9"]
    + ["0.04", "0.01", "2", "x", ""],
    "--rpe-unit": ["m", "s", "x", ""],
    "--utm-zone": ["0", "61", "-1", "1", "60", "15", "16", "17", "1000", "x", "2" * 30],
    "--datum": ["nad83_2011", "nad83_harn", "wgs84_g2139", "nad83", "x"],
    "--frame": ["enu", "utm", "geodetic", "x"],
    "--point": ["ins", "antenna", "base_footprint", "x"],
    "--align": ["none", "se3", "sim3", "x"],
    "--format": ["tum", "csv", "mcap", "x"],
    "--topic": ["/vehicle/odom", "/oxts/fix", "", "/x"],
    "--out": [
        "out",
        "out/score.json",
        "out/deeper/score.json",
        ".",
        "",
        "run",
        "run/episode.json",
        "run/score",
        "ESTIMATE",
        "a\0b",
        "x" * 300 + ".json",
        "/dev/null",
        "/proc/version",
        "out.json/",
    ],
}


@fuzz_settings(share=2.0)
@given(
    name=st.sampled_from(sorted(ESTIMATES)),
    options=st.dictionaries(
        st.sampled_from(sorted(SCORE_OPTIONS)),
        st.sampled_from(sorted({v for vs in SCORE_OPTIONS.values() for v in vs}))
        | st.just("<own>"),
        min_size=1,
        max_size=3,
    ),
    own=st.data(),
)
def test_score_options_at_the_edges(bases, score_bases, name, options, own):
    argv: list[str] = list(ESTIMATES[name])
    for option, value in options.items():
        if value == "<own>" or own.draw(st.booleans()):
            value = own.draw(st.sampled_from(SCORE_OPTIONS[option]))
        if value == "ESTIMATE":
            value = name
        if option in argv:
            argv[argv.index(option) + 1] = value
        else:
            argv += [option, value]
    with scratch() as folder:
        shutil.copy(score_bases[name], folder / name)
        score_checked(folder, bases, name, argv)


@fuzz_settings(share=0.5)
@given(
    n=st.sampled_from([1, 2, 3, 4, 40]),
    shape=st.sampled_from(["point", "line", "plane", "tiny", "huge"]),
    align=st.sampled_from(["se3", "sim3"]),
)
def test_align_with_few_or_collinear_points(bases, score_bases, n, shape, align):
    """--align on estimates whose positions do not fix a rotation (one point, a line) or are at
    the edges of the numbers; the truth under them is the base run's circle."""
    rows = _table(score_bases["est.tum"])[2][:n]
    for k, r in enumerate(rows):
        x = {
            "point": (1.0, 2.0, 3.0),
            "line": (k, 2.0 * k, 0.0),
            "plane": (k, k * k, 0.0),
            "tiny": (1e-300 * k, 1e-300 * k * k, 0.0),
            "huge": (1e300 * k, 1e300 * k * k, 0.0),
        }[shape]
        r[1:4] = [repr(float(v)) for v in x]
    with scratch() as folder:
        est = _write(folder, "a.tum", _text([], " ", rows))
        score_checked(folder, bases, est, ("--align", align))


# ------------------------------------------------------------------- not a regular file
@fuzz_settings(share=0.6)
@given(kind=st.sampled_from(SPECIAL_KINDS), suffix=st.sampled_from([".tum", ".csv", ".mcap"]))
def test_an_estimate_that_is_not_a_readable_file(bases, kind, suffix):
    with scratch() as folder:
        path = special_path(folder, kind, suffix)
        options = ("--topic", "/vehicle/odom") if suffix == ".mcap" else ()
        score_checked(folder, bases, path.name, options, must_fail=True)


# ------------------------------------------------------------------ a damaged run directory
@fuzz_settings(share=0.5)
@given(data=st.data())
def test_score_of_a_damaged_run(bases, score_bases, data):
    base, changes = data.draw(damaged_run(bases))
    with scratch() as folder:
        _make_run(folder, base, changes)
        shutil.copy(score_bases["est.csv"], folder / "est.csv")
        score_checked(folder, bases, "est.csv")


# ---------------------------------------------------------------------------- plots
@st.composite
def scorable_estimate(draw, score_bases):
    """(text, options): est.csv changed in a way that still scores, at the edges of what the
    plots draw: one epoch, one epoch inside the run, no attitude, no covariance, an error of
    99 km, an alignment over 50 km, no RPE pair."""
    header, _, rows = _table(score_bases["est.csv"])
    kind = draw(
        st.sampled_from(
            ["one row", "one inside", "no attitude", "no covariance", "99 km", "se3", "no pair"]
        )
    )
    options: tuple[str, ...] = ()
    if kind == "one row":
        rows = rows[draw(st.integers(0, len(rows) - 1)) :][:1]
    elif kind == "one inside":
        for r in rows:
            r[0] = repr(float(r[0]) + 1.96)
    elif kind in ("no attitude", "no covariance"):
        names = ["qx", "qy", "qz", "qw"] if kind == "no attitude" else ["sigma_e_m"]
        drop = [header.index(n) for n in names]
        if kind == "no covariance":  # blank cells: no covariance at any epoch
            for r in rows:
                r[8:11] = ["", "", ""]
        else:
            header = [h for k, h in enumerate(header) if k not in drop]
            rows = [[v for k, v in enumerate(r) if k not in drop] for r in rows]
    elif kind in ("99 km", "se3"):
        for r in rows:
            r[1] = repr(float(r[1]) + (9.9e4 if kind == "99 km" else 5e4))
        options = ("--align", "se3") if kind == "se3" else ()
    else:
        options = ("--rpe-delta", "1e300")
    return blob(_text(header, ",", rows).encode(), kind), options


@fuzz_settings(share=0.25)
@given(data=st.data())
def test_plots_of_an_odd_estimate(bases, score_bases, data):
    """The score's plots of an estimate with one epoch, no attitude, a huge error ..."""
    text, options = data.draw(scorable_estimate(score_bases))
    with scratch() as folder:
        est = _write(folder, "est.csv", text)
        outcome = score_checked(folder, bases, est, options, plots=True)
        assert outcome.code == 0, outcome.describe()
        names = {p.name for p in (folder / "run" / "score").iterdir()}
        assert names == {"score.json", "score_error.png", "score_cdf.png"}, names


def test_the_base_estimates_score(bases, score_bases):
    """The seeds of the damage are valid: each scores, with its plots once."""
    for k, (name, options) in enumerate(ESTIMATES.items()):
        with scratch() as folder:
            shutil.copy(score_bases[name], folder / name)
            outcome = score_checked(folder, bases, name, options, plots=k == 0)
            assert outcome.code == 0, outcome.describe()
    for topic in MCAP_TOPICS:
        with scratch() as folder:
            shutil.copy(score_bases["est.mcap"], folder / "est.mcap")
            assert score_checked(folder, bases, "est.mcap", ("--topic", topic)).code == 0
