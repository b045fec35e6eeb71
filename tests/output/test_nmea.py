"""GGA sentences (specification "Output Row"; DESIGN.md ruling "GGA number formats"), checked with
a real NMEA parser (pynmeagps, test-only)."""

import datetime

import numpy as np
import pytest
from pynmeagps import NMEAReader
from pynmeagps.exceptions import NMEAParseError

from navsense.output.nmea import (
    NmeaWriter,
    gga_sentence,
    gga_sentences,
    nmea_checksum,
    nmea_checksums,
    read_nmea,
    utc_hhmmss,
    utc_seconds_of_day,
)

MINUTE_DEG = 1.0 / 60.0


def fields(sentence):
    body, cs = sentence[1:].split("*")
    return body.split(","), cs


@pytest.mark.parametrize(
    "sentence",
    [
        # the GGA example of the NMEA 0183 literature (gpsd's "NMEA Revealed", Wikipedia)
        "$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47",
        # NovAtel OEM7 commands and logs reference manual, log GPGGA, example
        "$GPGGA,134658.00,5106.9792,N,11402.3003,W,2,09,1.0,1048.47,M,-16.27,M,08,AAAA*60",
        # Trimble receiver help, NMEA-0183 message GGA, example (a checksum with a letter)
        "$GPGGA,172814.0,3723.46587704,N,12202.26957864,W,2,6,1.2,18.893,M,-25.669,M,2.0,0031*4F",
    ],
)
def test_checksum_of_published_sentences(sentence):
    body, cs = sentence[1:].split("*")
    assert nmea_checksum(body) == cs


def test_layout_and_parse():
    s = gga_sentence(15 * 3600 + 0.1, 40.4715765, -86.9943737, 4, 23, 0.58, 217.0228, -33.627, 0.43)
    f, cs = fields(s)
    assert f == [
        "GNGGA",
        "150000.10",
        "4028.2945900",
        "N",
        "08659.6624220",
        "W",
        "4",
        "23",
        "0.58",
        "217.023",
        "M",
        "-33.627",
        "M",
        "0.4",
        "0001",
    ]
    assert cs == nmea_checksum(s[1 : s.index("*")]) and len(cs) == 2 and cs == cs.upper()
    msg = NMEAReader.parse(s)  # validates the checksum
    assert msg.msgID == "GGA" and msg.quality == 4 and msg.numSV == 23
    assert msg.lat == pytest.approx(40.4715765, abs=1e-9) and msg.lon == pytest.approx(
        -86.9943737, abs=1e-9
    )
    assert msg.time == datetime.time(15, 0, 0, 100000)
    assert msg.HDOP == 0.58 and msg.alt == 217.023 and msg.sep == -33.627
    assert msg.diffAge == 0.4 and int(msg.diffStation) == 1


def test_a_wrong_checksum_is_rejected_by_the_parser():
    s = gga_sentence(0.0, 1.0, 2.0, 1, 8, 1.0, 3.0, 4.0)
    bad = s[:-2] + ("00" if s[-2:] != "00" else "01")
    with pytest.raises(NMEAParseError):
        NMEAReader.parse(bad)


def test_hemispheres_and_degree_digits():
    f, _ = fields(gga_sentence(0.0, -5.5, 7.25, 1, 5, 1.2, 0.0, 0.0))
    assert f[2:6] == ["0530.0000000", "S", "00715.0000000", "E"]


@pytest.mark.parametrize(
    "lat,text",
    [
        (40.999999999999, "4100.0000000"),  # 59.99999999994' rounds up: carry into the degrees
        (40.9999999983, "4059.9999999"),
        (0.0, "0000.0000000"),
        (89.99999999999, "9000.0000000"),
    ],
)
def test_minute_rounding_carries(lat, text):
    f, _ = fields(gga_sentence(0.0, lat, 179.999999999999, 1, 5, 1.0, 0.0, 0.0))
    assert f[2] == text
    assert f[4] == "18000.0000000"


def test_time_rounding_and_midnight():
    assert utc_hhmmss(0.0) == "000000.00"
    assert utc_hhmmss(59.996) == "000100.00"
    assert utc_hhmmss(86399.996) == "000000.00"  # wraps to the next day
    assert utc_hhmmss(12 * 3600 + 34 * 60 + 56.784) == "123456.78"
    assert utc_seconds_of_day("2026-09-23T15:00:00Z") == 54000.0
    assert utc_seconds_of_day("2026-09-23T15:00:00.25+00:00") == 54000.25


def test_no_correction_leaves_age_and_station_empty():
    for age in (None, float("nan")):
        f, _ = fields(gga_sentence(0.0, 1.0, 1.0, 1, 9, 0.9, 10.0, -30.0, age))
        assert f[-2:] == ["", ""]
    msg = NMEAReader.parse(gga_sentence(0.0, 1.0, 1.0, 1, 9, 0.9, 10.0, -30.0))
    assert msg.diffAge == "" and msg.diffStation == ""


def test_no_fix_form():
    s = gga_sentence(54001.0, None, None, 0, 3, 99.99, None, None)
    f, _ = fields(s)
    assert f == ["GNGGA", "150001.00", "", "", "", "", "0", "03", "99.99", "", "", "", "", "", ""]
    msg = NMEAReader.parse(s)
    assert msg.quality == 0 and msg.lat == "" and msg.alt == ""


def test_writer_round_trip(tmp_path):
    sentences = [
        gga_sentence(54000.0 + k / 10, 40.0 + k * 1e-6, -87.0, 4, 20, 0.6, 200.0, -34.0, 0.3)
        for k in range(5)
    ]
    path = tmp_path / "gnss.nmea"
    with NmeaWriter(path) as w:
        w.write_sentences(sentences[:2])
        w.write_sentences([])
        w.write_sentences(sentences[2:])
    assert path.read_bytes().count(b"\r\n") == 5
    assert read_nmea(path) == sentences
    with open(path, "rb") as stream:  # the parser's own stream reader
        parsed = [msg for _, msg in NMEAReader(stream)]
    assert [m.lat for m in parsed] == pytest.approx([40.0 + k * 1e-6 for k in range(5)], abs=1e-9)
    with pytest.raises(FileExistsError):
        with NmeaWriter(path):
            pass


# ----------------------------------------------------------- vectorised sentences (gga_sentences)
NAN = float("nan")


@pytest.mark.parametrize(
    "args, sentence",
    [
        # written by the scalar implementation before gga_sentences (byte for byte the same since):
        # midnight wrap and a minute carry in both coordinates
        (
            (86399.995, 40.99999999999, -86.99999999999, 4, 7, 0.58, 217.0228, -33.627, 0.43),
            "$GNGGA,000000.00,4100.0000000,N,08700.0000000,W,4,07,0.58,217.023,M,-33.627,M,0.4,0001*55",
        ),
        # a hair south and east of 0/0; three-digit satellites; negative zero altitude; age 0.05
        (
            (86399.994999, -0.00000000083, 0.00000000084, 5, 123, 99.99, -0.0004, 0.0005, 0.05),
            "$GNGGA,235959.99,0000.0000000,S,00000.0000001,E,5,123,99.99,-0.000,M,0.001,M,0.1,0001*69",
        ),
        # a negative time of day; the pole and the antimeridian; no correction (NaN)
        (
            (-0.004, 89.999999999999, -179.9999999999999, 1, 0, 1.005, 9000.0, -100.0, NAN),
            "$GNGGA,000000.00,9000.0000000,N,18000.0000000,W,1,00,1.00,9000.000,M,-100.000,M,,*74",
        ),
        # halves of the last digit (binary values decide, as Python's formatting does)
        (
            (54000.125, 40.4715765, -86.9943737, 2, 9, 2.675, 1.0005, -0.0015, 0.25),
            "$GNGGA,150000.13,4028.2945900,N,08659.6624220,W,2,09,2.67,1.000,M,-0.002,M,0.2,0001*65",
        ),
        # the no-fix form with a correction age; a position without altitude
        (
            (54001.0, None, None, 0, 3, 99.99, None, None, 1.25),
            "$GNGGA,150001.00,,,,,0,03,99.99,,,,,1.2,0001*52",
        ),
        (
            (54001.0, 12.5, 100.0, 4, 12, 0.7, None, None, 0.15),
            "$GNGGA,150001.00,1230.0000000,N,10000.0000000,E,4,12,0.70,,,,,0.1,0001*59",
        ),
    ],
)
def test_sentences_written_before_vectorisation(args, sentence):
    assert gga_sentence(*args) == sentence


def random_epochs(rng, m):
    """Receiver-like inputs with the edge cases of the formats mixed in."""
    utc = rng.uniform(-10.0, 86410.0, m)
    utc[::7] = 86399.995 + rng.uniform(-0.01, 0.01, utc[::7].size)
    lat = rng.uniform(-90.0, 90.0, m)
    lon = rng.uniform(-180.0, 180.0, m)
    whole = rng.integers(-89 * 60, 89 * 60, m) / 60.0  # whole minutes, +- a few 1e-10 deg
    near = rng.random(m) < 0.4
    lat[near] = whole[near] + rng.choice(
        [0.0, 8.3e-10, -8.3e-10, 8.4e-10, -8.4e-10, 1e-12], near.sum()
    )
    lon[::5] = -lat[::5]
    fix = rng.choice([0, 1, 2, 4, 5], m)
    sats = rng.integers(0, 40, m)
    hdop = np.where(fix == 0, 99.99, np.round(rng.uniform(0.4, 30.0, m), 2))
    alt = rng.uniform(-50.0, 3000.0, m)
    sep = rng.uniform(-60.0, 60.0, m)
    age = np.where(rng.random(m) < 0.3, np.nan, rng.uniform(0.0, 30.0, m))
    return utc, lat, lon, fix, sats, hdop, alt, sep, age


def test_vectorised_equals_the_scalar_form_row_by_row():
    rng = np.random.default_rng(3)
    utc, lat, lon, fix, sats, hdop, alt, sep, age = random_epochs(rng, 3000)
    no_fix = fix == 0
    got = gga_sentences(utc, lat, lon, fix, sats, hdop, alt, sep, age, no_fix=no_fix)
    want = [
        gga_sentence(utc[k], None, None, fix[k], sats[k], hdop[k], None, None, age[k])
        if no_fix[k]
        else gga_sentence(utc[k], lat[k], lon[k], fix[k], sats[k], hdop[k], alt[k], sep[k], age[k])
        for k in range(len(utc))
    ]
    assert got == want
    # any cut of the epochs gives the same sentences; no rows, no sentences
    parts = []
    for a in range(0, 3000, 701):
        sl = slice(a, a + 701)
        parts += gga_sentences(
            utc[sl],
            lat[sl],
            lon[sl],
            fix[sl],
            sats[sl],
            hdop[sl],
            alt[sl],
            sep[sl],
            age[sl],
            no_fix=no_fix[sl],
        )
    assert parts == got
    assert (
        gga_sentences(
            utc[:0],
            lat[:0],
            lon[:0],
            fix[:0],
            sats[:0],
            hdop[:0],
            alt[:0],
            sep[:0],
            age[:0],
            no_fix=no_fix[:0],
        )
        == []
    )
    # every sentence parses, with its checksum
    for sentence in got[:200]:
        assert NMEAReader.parse(sentence).msgID == "GGA"


def test_no_fix_rows_ignore_their_position_values():
    s = gga_sentences(
        [54001.0, 54001.1],
        [np.nan, 40.0],
        [np.inf, -87.0],
        [0, 4],
        [3, 20],
        [99.99, 0.6],
        [np.nan, 200.0],
        [np.nan, -34.0],
        [np.nan, 0.3],
        no_fix=[True, False],
    )
    assert s == [
        gga_sentence(54001.0, None, None, 0, 3, 99.99, None, None),
        gga_sentence(54001.1, 40.0, -87.0, 4, 20, 0.6, 200.0, -34.0, 0.3),
    ]
    with pytest.raises(ValueError, match="finite"):
        gga_sentences([0.0], [np.nan], [0.0], [1], [5], [1.0], [0.0], [0.0])


def test_checksums_of_many_bodies_at_once():
    bodies = ["", "A", "GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", "GNGGA", ""]
    got = nmea_checksums(bodies)
    assert got.tolist() == [int(nmea_checksum(b), 16) for b in bodies]
    assert nmea_checksums([]).shape == (0,)


def test_gga_numbers_print_as_pythons_percent_format():
    """Quality %d, satellites %02d, HDOP %.2f, altitude and separation %.3f and age %.1f are
    Python's own %-format of each value (the ruling's formats), on halves of the last digit
    and values a hair either side of them, negative zeros and tiny negatives, large values,
    NaN and infinities, three-digit and negative counts; the checksum of what is printed."""
    rng = np.random.default_rng(17)
    m = 6000

    def near_halves(decimals, scale):
        k = rng.integers(-scale, scale, m) / 10.0**decimals
        half = 0.5 / 10.0**decimals
        x = k + rng.choice([half, -half, 0.0, 1e-13, -1e-13, half * 0.999999], m)
        x[::41] = rng.uniform(-1e7, 1e7, x[::41].size)  # 1e9 units and more
        x[::43] = -0.0
        x[::47] = -(10.0 ** -(decimals + 1))  # prints -0.00..
        x[::53] = np.nan
        x[::59] = rng.choice([np.inf, -np.inf], x[::59].size)
        return x

    alt, sep, hdop, age = (
        near_halves(3, 10**7),
        near_halves(3, 10**5),
        near_halves(2, 10**4),
        near_halves(1, 10**3),
    )
    quality = rng.integers(0, 12, m)
    sats = rng.integers(0, 150, m)
    sats[::37] = -rng.integers(1, 20, sats[::37].size)
    got = gga_sentences(np.zeros(m), 40.0, -87.0, quality, sats, hdop, alt, sep, age)
    for k, sentence in enumerate(got):
        f, cs = fields(sentence)
        assert cs == nmea_checksum(sentence[1:].split("*")[0])
        want_age = ["", ""] if np.isnan(age[k]) else [f"{age[k]:.1f}", "0001"]
        assert f[6:] == [
            f"{quality[k]:d}",  # Python's formatting (the same as its %-format)
            f"{sats[k]:02d}",
            f"{hdop[k]:.2f}",
            f"{alt[k]:.3f}",
            "M",
            f"{sep[k]:.3f}",
            "M",
            *want_age,
        ], k


def test_a_run_that_could_pass_the_year_9999_is_refused(tmp_path, capsys):
    """A route placed at 9999-12-31T23:59:50Z ran to exit 0 and its ZDA sentences of the next
    year read 0000 (the year written in four digits; found by the fuzz helper). A start after
    9998 is now one line, from the configuration, a truth log's metadata and navsense truth's
    --start-utc; 9998-12-31 runs."""
    from pathlib import Path

    from navsense.cli import main

    route = str(Path(__file__).parents[2] / "examples" / "route.waypoints.json")
    log = tmp_path / "late.parquet"
    argv = ["truth", "--track", route, "--out", str(log)]
    assert main([*argv, "--start-utc", "9999-12-31T23:59:50Z"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "navsense: error: --start-utc 9999-12-31T23:59:50Z is after 9998: a run's NMEA "
        "sentences and ISO 8601 times write a year of four digits"
    ]
    assert not log.exists()
    sim = ["simulate", "--scenario", "acre-loop", "--duration", "1", "--quiet"]
    assert main([*sim, "--set", "gnss.datum.start_utc=9999-01-01T00:00:00Z"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        'navsense: error: command line: gnss.datum.start_utc = "9999-01-01T00:00:00Z" is after 9998'
    )
    assert main([*argv, "--start-utc", "9998-12-31T23:59:50Z"]) == 0
    out = tmp_path / "run"
    assert main(["simulate", "--truth", str(log), "--quiet", "--out", str(out)]) == 0
    zda = [s for s in (out / "gnss.nmea").read_text().split() if s.startswith("$GNZDA")]
    assert zda[0].startswith("$GNZDA,235950.00,31,12,9998,")
    assert zda[-1].startswith("$GNZDA,000057.20,01,01,9999,"), zda[-1]


def test_a_gps_track_recorded_after_9998_is_refused_by_navsense_truth(tmp_path, capsys):
    """Found by the fuzz helper: a GPX track whose own times are in 9999 was written as a truth
    log (exit 0) that every navsense simulate then refused by its start ('late.parquet (Parquet
    metadata): gnss.datum.start_utc = ... is after 9998'). Now navsense truth refuses it, one
    line naming the track, nothing written; one of 9998 is written."""
    from navsense.cli import main

    def gpx(year: int) -> str:
        points = "".join(
            f'<trkpt lat="{40.4716 + 1e-5 * i:.7f}" lon="-86.9944">'
            f"<time>{year}-12-31T23:59:{i:02d}Z</time></trkpt>"
            for i in range(10)
        )
        return f"<gpx><trk><trkseg>{points}</trkseg></trk></gpx>"

    late = tmp_path / "late.gpx"
    late.write_text(gpx(9999))
    log = tmp_path / "late.parquet"
    assert main(["truth", "--track", str(late), "--out", str(log)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"navsense: error: {late}: its first time 9999-12-31T23:59:00Z is after 9998: a run's "
        "NMEA sentences and ISO 8601 times write a year of four digits (navsense simulate "
        "would refuse the log)"
    ]
    assert not log.exists()
    late.write_text(gpx(9998))
    assert main(["truth", "--track", str(late), "--out", str(log)]) == 0 and log.exists()
