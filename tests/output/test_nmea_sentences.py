"""RMC, VTG, GSA, GSV, GST and ZDA (navsense.output.nmea), checked against sentences published by
receiver makers and with a real NMEA parser (pynmeagps, test-only)."""

import datetime
import importlib

import numpy as np
import pytest
from pynmeagps import VALCKSUM, NMEAReader

from navsense.output.nmea import (
    SENTENCE_ORDER,
    NmeaWriter,
    gsa_sentences,
    gst_sentences,
    gsv_sentences,
    interleave,
    interleave_text,
    nmea_checksum,
    read_nmea,
    rmc_sentences,
    vtg_sentences,
    zda_sentences,
)

MINUTE_UNIT_DEG = 1e-7 / 60.0  # the last digit of ddmm.mmmmmmm


def parse(sentence):
    return NMEAReader.parse(sentence, validate=VALCKSUM)  # raises on a bad checksum


def fields(sentence):
    body, cs = sentence[1:].split("*")
    assert cs == nmea_checksum(body)
    return body.split(",")


# ------------------------------------------------------------------- published sentences
@pytest.mark.parametrize(
    "sentence",
    [
        # u-blox 8 / M8 receiver description, NMEA messages: examples
        "$GPRMC,083559.00,A,4717.11437,N,00833.91522,E,0.004,77.52,091202,,,A*57",
        "$GPVTG,77.52,T,,M,0.004,N,0.008,K,A*06",
        "$GPGSA,A,3,23,29,07,08,09,18,26,28,,,,,1.94,1.18,1.54*0D",
        "$GPGSV,3,1,10,23,38,230,44,29,71,156,47,07,29,116,41,08,09,081,36*7F",
        "$GPGST,082356.00,1.8,,,,1.7,1.3,2.2*7E",
        "$GPZDA,082710.00,16,09,2002,00,00*64",
        # a Hemisphere VS100 log (NOAA PSL, ATOMIC 2020 cruise, RHB gps02001420_raw.txt)
        "$GPGST,195959.00,0.30,0.36,0.26,283.74,0.26,0.36,0.68*68",
        "$GPGSV,3,1,12,03,09,280,,04,11,322,,08,11,209,35,14,68,160,42*70",
    ],
)
def test_checksums_of_published_sentences(sentence):
    body, cs = sentence[1:].split("*")
    assert nmea_checksum(body) == cs
    parse(sentence)


def test_vtg_and_zda_equal_the_published_examples():
    # u-blox's examples, byte for byte (their number formats are navsense's)
    assert vtg_sentences([77.52], [0.004], [0.008], ["A"], [True], talker="GP") == [
        "$GPVTG,77.52,T,,M,0.004,N,0.008,K,A*06"
    ]
    assert zda_sentences([8 * 3600 + 27 * 60 + 10.0], "2002-09-16", talker="GP") == [
        "$GPZDA,082710.00,16,09,2002,00,00*64"
    ]
    # without a fix the unit fields stay, as a u-blox F9 sends it (issue 29; the example of the
    # Fixposition SDK's NMEA parser, fixposition/fixposition-sdk fpsdk_common/src/parser/nmea.cpp)
    assert vtg_sentences([0.0], [0.0], [0.0], ["N"], [False]) == ["$GNVTG,,T,,M,,N,,K,N*32"]
    # a course not known (none yet) empties the course alone
    assert vtg_sentences([0.0], [0.004], [0.008], ["A"], [True], course_valid=[False]) == [
        "$GNVTG,,T,,M,0.004,N,0.008,K,A*31"
    ]


# ------------------------------------------------------------------- RMC
def test_rmc_fields_and_parse():
    utc = 15 * 3600 + 0.1
    s = rmc_sentences(
        [utc], "2026-09-23", [40.4715765], [-86.9943737], [12.3456], [77.5251], ["R"], [True]
    )
    assert len(s) == 1
    assert fields(s[0]) == [
        "GNRMC",
        "150000.10",
        "A",
        "4028.2945900",
        "N",
        "08659.6624220",
        "W",
        "12.346",
        "77.53",
        "230926",
        "",
        "",
        "R",
        "V",
    ]
    msg = parse(s[0])
    assert msg.msgID == "RMC" and msg.talker == "GN" and msg.status == "A"
    assert msg.lat == pytest.approx(40.4715765, abs=MINUTE_UNIT_DEG)
    assert msg.lon == pytest.approx(-86.9943737, abs=MINUTE_UNIT_DEG)
    assert msg.spd == 12.346 and msg.cog == 77.53
    assert msg.date == datetime.date(2026, 9, 23) and msg.time == datetime.time(15, 0, 0, 100000)
    assert msg.posMode == "R" and msg.navStatus == "V"


def test_rmc_without_a_fix_keeps_time_and_date():
    s = rmc_sentences(
        [54000.0], "2026-09-23", [np.nan], [np.nan], [np.nan], [np.nan], ["N"], [False]
    )
    assert s == [
        "$GNRMC,150000.00,V,,,,,,,230926,,,N,V*"
        + nmea_checksum("GNRMC,150000.00,V,,,,,,,230926,,,N,V")
    ]
    msg = parse(s[0])
    assert msg.status == "V" and msg.lat == "" and msg.spd == ""


def test_rmc_hemispheres_course_wrap_and_the_date_at_midnight():
    s = rmc_sentences(
        [86399.996, 86400.0 + 3600.0, 0.0],
        "2026-12-31",
        [-5.5, 0.0, 89.999999999999],
        [7.25, -0.5, -179.9999999999999],
        [0.0, 1000.0, 0.0004],
        [359.996, 0.004, 180.0],
        ["A", "D", "F"],
        True,
    )
    f = [fields(x) for x in s]
    assert f[0][1:10] == [
        "000000.00",
        "A",
        "0530.0000000",
        "S",
        "00715.0000000",
        "E",
        "0.000",
        "0.00",
        "010127",
    ]
    assert f[1][1] == "010000.00" and f[1][9] == "010127"  # the day after the start date
    assert f[1][3:7] == ["0000.0000000", "N", "00030.0000000", "W"]
    assert f[1][7:9] == ["1000.000", "0.00"]
    assert f[2][3:9] == ["9000.0000000", "N", "18000.0000000", "W", "0.000", "180.00"]
    assert [x[12] for x in f] == ["A", "D", "F"]


# ------------------------------------------------------------------- VTG
def test_vtg_fields():
    s = vtg_sentences([0.0, 123.456], [0.0, 1234.5678], [0.0, 2286.41], ["A", "R"], True)
    assert [fields(x)[1:] for x in s] == [
        ["0.00", "T", "", "M", "0.000", "N", "0.000", "K", "A"],
        ["123.46", "T", "", "M", "1234.568", "N", "2286.410", "K", "R"],
    ]
    msg = parse(s[1])
    assert msg.cogt == pytest.approx(123.46) and msg.sogn == pytest.approx(1234.568)
    assert msg.sogk == pytest.approx(2286.41) and msg.posMode == "R"


def test_numbers_print_as_python_formats():
    rng = np.random.default_rng(5)
    units = np.concatenate([rng.integers(0, 10**8, 2000), [0, 1, 9, 10, 99, 100, 999, 1000]])
    values = units / 1000.0
    s = vtg_sentences(np.zeros(units.size), values, values, ["A"] * units.size, True)
    got = [fields(x)[5] for x in s]
    assert got == [f"{v:.3f}" for v in values]


# ------------------------------------------------------------------- GST
def test_gst_fields_and_no_fix():
    s = gst_sentences(
        [54000.0, 54000.1],
        [0.0123, 1.0],
        [0.015, 1.0],
        [0.0149, 1.0],
        [0.0, 90.0],
        [[0.0149, 0.015, 0.0241], [1.0, 1.0, 1.0]],
        [True, False],
    )
    assert fields(s[0])[1:] == [
        "150000.00",
        "0.012",
        "0.015",
        "0.015",
        "0.0",
        "0.015",
        "0.015",
        "0.024",
    ]
    assert fields(s[1])[1:] == ["150000.10", "", "", "", "", "", "", ""]
    msg = parse(s[0])
    assert msg.stdLat == 0.015 and msg.stdLong == 0.015 and msg.stdAlt == 0.024
    assert msg.rangeRms == 0.012 and msg.orient == 0.0


# ------------------------------------------------------------------- ZDA
def test_zda_rolls_over_days_months_and_years():
    s = zda_sentences([86399.994, 86399.995, 2 * 86400.0 + 1.0], "2027-02-28")
    assert [fields(x)[1:5] for x in s] == [
        ["235959.99", "28", "02", "2027"],
        ["000000.00", "01", "03", "2027"],  # rounded to the hundredth: the next day
        ["000001.00", "02", "03", "2027"],
    ]
    assert parse(s[1]).year == 2027


# ------------------------------------------------------------------- GSA
def test_gsa_under_gn_equals_the_published_sentences():
    """Issue 29: GSA under the talker GN, the system in its last field (NMEA 4.10, u-blox F9):
    the examples of the Fixposition SDK's NMEA parser (fixposition/fixposition-sdk,
    fpsdk_common/src/parser/nmea.cpp), byte for byte, a GPS epoch with a fix and QZSS (5)
    without one."""
    prn = [3, 4, 6, 7, 9, 11, 19, 20, 26, 30, 31]
    lines, _ = gsa_sentences(np.ones((1, 11), bool), prn, [3], [0.79], [0.46], [0.64], "GN", 1)
    assert lines == ["$GNGSA,A,3,03,04,06,07,09,11,19,20,26,30,31,,0.79,0.46,0.64,1*0F"]
    lines, _ = gsa_sentences(np.zeros((1, 2), bool), [1, 2], [1], 99.99, 99.99, 99.99, "GN", 5)
    assert lines == ["$GNGSA,A,1,,,,,,,,,,,,,99.99,99.99,99.99,5*37"]
    msg = parse(lines[0])
    assert (msg.talker, msg.systemId, msg.navMode) == ("GN", "5", 1)


def test_gsa_lists_the_used_prns_twelve_a_sentence():
    used = np.zeros((3, 20), dtype=bool)
    used[0, [0, 2, 5]] = True
    used[1, :15] = True
    prn = np.arange(65, 85)  # GLONASS numbers
    lines, epoch = gsa_sentences(
        used, prn, [3, 3, 1], [1.5, 1.234, 99.99], [0.8, 0.705, 99.99], [1.2, 1.0, 99.99], "GL", 2
    )
    assert epoch.tolist() == [0, 1, 1, 2]
    f = [fields(x) for x in lines]
    assert f[0] == ["GLGSA", "A", "3", "65", "67", "70"] + [""] * 9 + ["1.50", "0.80", "1.20", "2"]
    assert f[1][3:15] == [str(p) for p in range(65, 77)]
    assert f[2][3:15] == ["77", "78", "79"] + [""] * 9
    assert f[1][15:] == ["1.23", "0.70", "1.00", "2"]  # rint(123.4), rint(70.5) = 70 (even)
    assert f[3] == ["GLGSA", "A", "1"] + [""] * 12 + ["99.99", "99.99", "99.99", "2"]
    msg = parse(lines[0])
    assert msg.navMode == 3 and msg.svid_01 == 65 and msg.svid_03 == 70 and msg.systemId == "2"
    assert msg.PDOP == 1.5 and msg.HDOP == 0.8 and msg.VDOP == 1.2


# ------------------------------------------------------------------- GSV
@pytest.mark.parametrize("in_view_count", [0, 1, 4, 5, 8, 12, 13])
def test_gsv_sentence_counts_and_satellites(in_view_count):
    k = 16
    rng = np.random.default_rng(in_view_count)
    in_view = np.zeros((1, k), dtype=bool)
    in_view[0, rng.choice(k, in_view_count, replace=False)] = True
    el = rng.uniform(0.0, 90.0, (1, k))
    az = rng.uniform(0.0, 360.0, (1, k))
    cn0 = np.where(rng.random((1, k)) < 0.3, np.nan, rng.uniform(20.0, 55.0, (1, k)))
    prn = np.arange(1, k + 1)
    lines, epoch = gsv_sentences(in_view, prn, el, az, cn0, "GA", 7)
    total = max(1, -(-in_view_count // 4))
    assert len(lines) == total and epoch.tolist() == [0] * total
    seen = []
    for j, line in enumerate(lines):
        msg = parse(line)
        assert msg.talker == "GA" and msg.msgID == "GSV" and msg.signalID == "7"
        assert (msg.numMsg, msg.msgNum, msg.numSV) == (total, j + 1, in_view_count)
        n_here = len(fields(line)) - 5
        assert n_here % 4 == 0 and n_here // 4 == min(4, in_view_count - 4 * j)
        for i in range(1, n_here // 4 + 1):
            seen.append(
                (
                    getattr(msg, f"svid_{i:02d}"),
                    getattr(msg, f"elv_{i:02d}"),
                    getattr(msg, f"az_{i:02d}"),
                    getattr(msg, f"cno_{i:02d}"),
                )
            )
    want = []
    for c in np.flatnonzero(in_view[0]):  # in PRN order
        snr = "" if np.isnan(cn0[0, c]) else int(np.rint(cn0[0, c]))
        want.append((int(prn[c]), int(np.rint(el[0, c])), int(np.rint(az[0, c])) % 360, snr))
    assert seen == want


def test_gsv_field_widths():
    lines, _ = gsv_sentences(
        [[True, True]], [5, 88], [[0.4, 89.6]], [[359.6, 7.0]], [[np.nan, 9.4]], "GL", 1
    )
    assert lines == [
        "$GLGSV,1,1,02,05,00,000,,88,90,007,09,1*"
        + nmea_checksum("GLGSV,1,1,02,05,00,000,,88,90,007,09,1")
    ]


# ------------------------------------------------------------------- epochs
def test_interleave_orders_by_epoch_then_group():
    a = (["a0", "a1", "a2"], np.array([0, 1, 2]))
    b = (["b0", "b0'", "b2"], np.array([0, 0, 2]))
    c = (["c1"], np.array([1]))
    assert interleave([a, b, c], 3) == ["a0", "b0", "b0'", "a1", "c1", "a2", "b2"]
    assert interleave([], 3) == []


def test_sentence_order_is_the_receivers():
    # u-blox: RMC, VTG, GGA, GSA, GSV, (GLL), GST, ZDA within an epoch; HDT (two antennas) first,
    # as a Hemisphere VS100 compass sends it
    assert SENTENCE_ORDER == ("HDT", "RMC", "VTG", "GGA", "GSA", "GSV", "GST", "ZDA")


def test_no_rows_no_sentences():
    assert rmc_sentences([], "2026-01-01", [], [], [], [], [], []) == []
    assert zda_sentences([], "2026-01-01") == []
    lines, epoch = gsv_sentences(
        np.zeros((0, 4), bool), [1, 2, 3, 4], *[np.zeros((0, 4))] * 3, "GP", 1
    )
    assert lines == [] and epoch.size == 0


# ------------------------------------------------------------------- several systems at once
def test_gsa_and_gsv_of_several_systems_at_once_are_each_systems_in_turn():
    """One call over the columns of three systems (the GNSS layout's) gives, epoch by epoch,
    the sentences of one call a system, in the order of the systems: counts, numbering,
    talkers and IDs per system (a system with none in view or used still has its sentence)."""
    rng = np.random.default_rng(3)
    m, sizes = 40, (9, 14, 6)
    k = sum(sizes)
    system = np.repeat(np.arange(3), sizes)
    in_view = rng.random((m, k)) < 0.6
    in_view[5, system == 1] = False  # a system with no satellite in view
    used = in_view & (rng.random((m, k)) < 0.8)
    used[7] = False
    el, az = rng.uniform(0, 90, (m, k)), rng.uniform(0, 360, (m, k))
    cn0 = np.where(rng.random((m, k)) < 0.2, np.nan, rng.uniform(20, 55, (m, k)))
    prn = np.concatenate([np.arange(1, 10), np.arange(65, 79), np.arange(1, 7)])
    dops = [rng.uniform(0.5, 3, m) for _ in range(3)]
    mode = rng.choice([1, 3], m)
    talkers, sys_ids, sig_ids = ["GP", "GL", "GA"], [1, 2, 3], [1, 1, 7]
    one = [system == s for s in range(3)]

    got = gsa_sentences(used, prn, mode, *dops, talkers, sys_ids, system)
    want = [
        gsa_sentences(used[:, c], prn[c], mode, *dops, t, i)
        for c, t, i in zip(one, talkers, sys_ids)
    ]
    assert interleave([got], m) == interleave(want, m)
    assert got[1].tolist() == sorted(np.concatenate([e for _, e in want]).tolist())

    got = gsv_sentences(in_view, prn, el, az, cn0, talkers, sig_ids, system)
    want = [
        gsv_sentences(in_view[:, c], prn[c], el[:, c], az[:, c], cn0[:, c], t, i)
        for c, t, i in zip(one, talkers, sig_ids)
    ]
    assert interleave([got], m) == interleave(want, m)
    assert any(line.startswith("$GLGSV,1,1,00,1*") for line in got[0])

    # the values read in place from wider matrices (the receiver's columns, in another order)
    wide = k + 5
    cols = rng.permutation(wide)[:k]
    el_w, az_w, cn0_w = (rng.uniform(0, 1, (m, wide)) for _ in range(3))
    for a, b in ((el_w, el), (az_w, az), (cn0_w, cn0)):
        a[:, cols] = b
    in_place = gsv_sentences(
        in_view, prn, el_w, az_w, cn0_w, talkers, sig_ids, system, columns=cols
    )
    assert in_place[0] == got[0] and np.array_equal(in_place[1], got[1])


def test_interleave_text_is_the_files_lines():
    a = (["$A0*00", "$A1*00"], np.array([0, 1]))
    b = gsv_sentences([[True], [False]], [5], [[10.0]] * 2, [[20.0]] * 2, [[40.0]] * 2, "GP", 1)
    text = interleave_text([a, b], 2)
    assert text == ("\r\n".join(interleave([a, b], 2)) + "\r\n").encode("ascii")
    assert text.split(b"\r\n")[0] == b"$A0*00" and text.count(b"\n") == 4
    assert interleave_text([], 2) == b""


def test_nmea_writer_writes_text_as_its_lines(tmp_path):
    lines = ["$GNZDA,000000.00,01,01,2026,00,00*71", "$GNZDA,000001.00,01,01,2026,00,00*70"]
    with NmeaWriter(tmp_path / "a.nmea") as w:
        w.write_text(interleave_text([(lines, np.array([0, 1]))], 2))
        w.write_sentences(lines[:1])
    assert read_nmea(tmp_path / "a.nmea") == lines + lines[:1]
    assert w.sentences_written == 3
    assert (tmp_path / "a.nmea").read_bytes().count(b"\r\n") == 3


@pytest.mark.parametrize("group", [4, 12])
def test_compact_by_runs_of_equal_rows_equals_row_by_row(group, monkeypatch):
    """The GSA and GSV layout of rows that come in runs of equal rows (satellites in view a
    chunk of epochs), built from each run's first row, equals the row-by-row build array for
    array: one to seven runs, one or several systems, rows with no entry, more entries than a
    sentence holds, a mask of no column."""
    from navsense.output.nmea import satellites as _sat

    monkeypatch.setattr(_sat, "_RUN_MIN_LENGTH", 1)  # the runs' build wherever there are runs
    rng = np.random.default_rng(group)
    for trial in range(200):
        m, k = int(rng.integers(16, 300)), int(rng.integers(0, 80))
        systems = int(rng.integers(1, 5))
        system = np.sort(rng.integers(0, systems, k)) if systems > 1 else None
        runs = int(rng.integers(1, 8))
        patterns = rng.random((runs, k)) < rng.random()
        starts = np.sort(rng.choice(np.arange(1, m), size=runs - 1, replace=False))
        mask = patterns[np.searchsorted(starts, np.arange(m), side="right")]
        if trial % 7 == 0:
            mask[:] = False
        got = _sat._compact(mask, group, system, systems)
        want = _sat._compact_rows(mask, group, system, systems)
        got_arrays = [*got[:3], *got[3], *got[4:]]
        want_arrays = [*want[:3], *want[3], *want[4:]]
        for g, w in zip(got_arrays, want_arrays):
            assert g.dtype == w.dtype and g.shape == w.shape and np.array_equal(g, w), trial


def test_times_and_dates_follow_their_arguments():
    """The time and date fields of RMC and ZDA: new times of the same shape, the same times
    under another date, a times array changed in place after its call, each prints its own."""
    t = np.array([0.0, 86399.996, 3600.25])
    a = zda_sentences(t, "2026-12-31")
    assert [s.split(",")[1:5] for s in a] == [
        ["000000.00", "31", "12", "2026"],
        ["000000.00", "01", "01", "2027"],
        ["010000.25", "31", "12", "2026"],
    ]
    b = zda_sentences(t, "2026-02-28")
    assert [s.split(",")[2:5] for s in b] == [["28", "02", "2026"], ["01", "03", "2026"]] + [
        ["28", "02", "2026"]
    ]
    t[0] = 7.0
    assert zda_sentences(t, "2026-02-28")[0].split(",")[1] == "000007.00"
    assert rmc_sentences(t + 1.0, "2026-02-28", 1.0, 1.0, 0.0, 0.0, "A", True)[0].split(",")[1] == (
        "000008.00"
    )
    assert zda_sentences(t[:2], "2026-02-28") == zda_sentences(t, "2026-02-28")[:2]


@pytest.mark.parametrize("room", [0, 2, 10**9])
def test_interleave_text_by_epoch_and_by_line_equal_the_epoch_order(room, monkeypatch):
    """Both matrices of interleave_text (a row an epoch, a row a line; _ROOM chooses) give the
    lines epoch by epoch, group by group, in each group's order: groups of strings and of
    sentence characters, of no line, of a line every epoch, of several lines in some epochs,
    crowded into one epoch; epochs without any line."""
    _il = importlib.import_module("navsense.output.nmea.interleave")  # the package's function
    monkeypatch.setattr(_il, "_ROOM", room)
    rng = np.random.default_rng(room % 97)
    for trial in range(60):
        m = int(rng.integers(1, 30))
        groups, want = [], []
        for j in range(int(rng.integers(1, 6))):
            kind = trial % 4 if j == 0 else int(rng.integers(0, 4))
            if kind == 0:
                epoch = np.arange(m)
            elif kind == 1:
                epoch = np.sort(rng.integers(0, m, int(rng.integers(0, 3 * m))))
            elif kind == 2:
                epoch = np.full(int(rng.integers(1, 9)), int(rng.integers(0, m)))
            else:
                epoch = np.zeros(0, dtype=np.int64)
            lines = [f"$G{j}{i},{'x' * int(rng.integers(0, 12))}*00" for i in range(epoch.size)]
            if rng.random() < 0.5 and lines:
                lines = zda_sentences(rng.uniform(0, 86400, epoch.size), "2026-01-01")
                groups.append((_il._chars_of_lines(lines), epoch))
            else:
                groups.append((lines, epoch))
            want += [(int(e), j, i, line) for i, (e, line) in enumerate(zip(epoch, lines))]
        text = "".join(line + "\r\n" for *_, line in sorted(want)).encode("ascii")
        assert interleave_text(groups, m) == text, trial
