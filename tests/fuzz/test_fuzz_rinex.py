"""Fuzz: RINEX navigation files given to ``navsense simulate --gnss-orbits`` (issue 29 item 1):
damaged bytes of a plain and a gzip-compressed file, a bad field, extreme well-formed values
(1e300, nan, a t_oe of another week, a year 9999), records cut short; a run ends with exit 0
and a complete run directory, or exit 2 and one line.

The base: ELKO's broadcast records of 2018-07-29 11:00 .. 13:00 (tests/data/rinex/, README.md
there), GPS, GLONASS, Galileo and BeiDou, a run at 12:00 UTC."""

from __future__ import annotations

import gzip
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from fuzz.fuzz_helpers import damaged_bytes, fuzz_settings, scratch, simulate_checked

RINEX = Path(__file__).parents[1] / "data" / "rinex" / "ELKO00USA_R_20182100000_01D_MN.rnx.gz"
START = "2018-07-29T12:00:00Z"
LINES = {"G": 8, "E": 8, "C": 8, "R": 4}


def _excerpt() -> bytes:
    """The header and the records with their epoch in 11:00 .. 13:00."""
    lines = gzip.decompress(RINEX.read_bytes()).decode("latin-1").splitlines(keepends=True)
    end = next(i for i, line in enumerate(lines) if "END OF HEADER" in line) + 1
    out = lines[:end]
    k = end
    while k < len(lines):
        n = LINES[lines[k][0]]
        if "2018 07 29 11" in lines[k] or "2018 07 29 12" in lines[k]:
            out += lines[k : k + n]
        k += n
    return "".join(out).encode("latin-1")


BASE = _excerpt()
OPTIONS = ("--duration", "2", "--no-imu", "--no-ins", "--set", f"gnss.datum.start_utc={START}")


def _simulate(folder: Path, name: str, *, must_fail: bool = False):
    return simulate_checked(
        folder,
        ["--scenario", "acre-loop"],
        [*OPTIONS, "--gnss-orbits", name],
        must_fail=must_fail,
    )


def test_the_base_runs(tmp_path):
    (tmp_path / "nav.rnx").write_bytes(BASE)
    assert _simulate(tmp_path, "nav.rnx").code == 0


@fuzz_settings(share=1.0)
@given(gz=st.booleans(), data=st.data())
def test_a_navigation_file_damaged_byte_by_byte(gz, data):
    damaged = data.draw(damaged_bytes(gzip.compress(BASE, mtime=0) if gz else BASE))
    with scratch() as folder:
        name = "nav.rnx.gz" if gz else "nav.rnx"
        (folder / name).write_bytes(damaged)
        _simulate(folder, name)


_FIELDS = ["1e300", "-1e300", "nan", "inf", "1.0E+999", "x", "", "9" * 19, "-0", "1_0", "0x10"]


@fuzz_settings(share=1.0)
@given(
    line=st.integers(min_value=10, max_value=BASE.count(b"\n") - 1),
    column=st.sampled_from([4, 23, 42, 61]),
    value=st.sampled_from(_FIELDS),
)
def test_a_field_set_to_an_extreme(line, column, value):
    lines = BASE.decode("latin-1").splitlines(keepends=True)
    text = lines[line]
    lines[line] = text[:column] + f"{value:>19.19}" + text[column + 19 :]
    with scratch() as folder:
        (folder / "nav.rnx").write_text("".join(lines), encoding="latin-1")
        _simulate(folder, "nav.rnx")


@fuzz_settings(share=0.5)
@given(
    epoch=st.sampled_from(
        ["9999 12 31 23 59 59", "1980 01 06 00 00 00", "2018 02 30 00 00 00", "2018 07 29 24 00 00"]
    ),
    record=st.integers(min_value=0, max_value=20),
)
def test_an_epoch_at_the_edges(epoch, record):
    lines = BASE.decode("latin-1").splitlines(keepends=True)
    firsts = [i for i, line in enumerate(lines) if line[:1] in LINES and line[1:3].isdigit()]
    i = firsts[record % len(firsts)]
    lines[i] = lines[i][:4] + epoch + lines[i][23:]
    with scratch() as folder:
        (folder / "nav.rnx").write_text("".join(lines), encoding="latin-1")
        _simulate(folder, "nav.rnx")


@fuzz_settings(share=0.5)
@given(
    receiver=st.sampled_from(["acres", "phone", "standalone", "sbas", "dgps", "rtk", "survey"]),
    systems=st.one_of(
        st.none(), st.sampled_from(["gps", "glonass", "qzss", "gps,galileo,beidou", "beidou"])
    ),
    start=st.sampled_from(
        [START, "2018-07-29T10:59:00Z", "2018-07-29T13:59:58Z", "2018-07-29T15:30:00Z"]
    ),
    extra=st.lists(
        st.sampled_from(
            [
                ("--set", "gnss.heading.baseline_m=1.5"),
                ("--gnss-start", "cold"),
                ("--no-corrections",),
                ("--gnss-hz", "20"),
                ("--mcap",),
                ("--format", "parquet"),
                ("--gnss-signal-outage", "0.5:1"),
            ]
        ),
        max_size=2,
        unique=True,
    ),
)
def test_a_receiver_preset_with_the_real_sky(receiver, systems, start, extra):
    """--receiver (every preset) with --gnss-orbits, the systems tracked (one the file lacks:
    qzss), a start at the edges of the file's two hours and beyond, with the dual-antenna
    heading, a cold start, no corrections, 20 Hz epochs, the bag, Parquet, a signal outage: one
    line and exit 2, or a complete run."""
    options = [*OPTIONS[:-1], f"gnss.datum.start_utc={start}", "--receiver", receiver]
    options += [] if systems is None else ["--gnss-systems", systems]
    options += [word for option in extra for word in option]
    with scratch() as folder:
        (folder / "nav.rnx").write_bytes(BASE)
        simulate_checked(
            folder,
            ["--scenario", "acre-loop"],
            [*options, "--gnss-orbits", "nav.rnx"],
            must_fail=systems == "qzss",
        )
