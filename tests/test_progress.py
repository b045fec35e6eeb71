"""navsense.progress: the one progress bar (simulate, campaigns)."""

import io

from navsense.progress import Progress, format_duration


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_bar_is_redrawn_in_place_and_ended():
    out = _Terminal()
    bar = Progress("simulating", 200, stream=out)
    bar.update(50, " 25.0 %")
    bar.update(200, "100.0 %")
    bar.close()
    assert out.getvalue() == (
        f"\rsimulating [{'#' * 7:<30}]  25.0 %\rsimulating [{'#' * 30}] 100.0 %\n"
    )
    quiet = _Terminal()
    slow = Progress("simulating", 10, stream=quiet, delay_s=3600.0)  # a short run: silent
    slow.update(5, "half")
    slow.close()
    unknown = _Terminal()
    open_ended = Progress("simulating", None, stream=unknown)
    open_ended.update(1200, "1200 steps")
    assert unknown.getvalue() == "\rsimulating: 1200 steps" and quiet.getvalue() == ""


def test_elsewhere_nothing_or_a_line_a_tenth():
    log = io.StringIO()
    bar = Progress("campaign", 20, stream=log, log_lines=True)
    for k in range(1, 21):
        bar.update(k, f"{k}/20 runs")
    bar.close()
    assert log.getvalue().splitlines() == [f"campaign: {k}/20 runs" for k in range(2, 21, 2)]
    silent = io.StringIO()
    Progress("simulating", 20, stream=silent).update(20, "done")
    assert silent.getvalue() == ""
    assert (format_duration(75.4), format_duration(3725)) == ("01:15", "1:02:05")
