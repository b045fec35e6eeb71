"""Progress on stderr: the one progress bar of navsense's long commands (simulate, campaigns).

On a terminal a bar is redrawn in place, ``LABEL [######                        ] TEXT``, once the
work has taken ``delay_s`` (a short run stays silent), and ended with a line break. Elsewhere (a
log file, CI) nothing is drawn, or with ``log_lines`` a line ``LABEL: TEXT`` at every tenth of
the work, at least every 30 s, and at the end. Without a known total the terminal shows
``LABEL: TEXT`` in place.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress", "format_duration"]

_WIDTH = 30  # characters of the bar
_LOG_EVERY_S = 30.0


class Progress:
    """``Progress(label, total)``; :meth:`update` with the work done and its text, then
    :meth:`close` (module docstring)."""

    def __init__(
        self,
        label: str,
        total: int | None,
        *,
        enabled: bool = True,
        delay_s: float = 0.0,
        log_lines: bool = False,
        stream: TextIO | None = None,
    ) -> None:
        self.stream = stream or sys.stderr
        self.label = label
        self.total = total
        self.tty = self.stream.isatty()
        self.enabled = enabled and (self.tty or log_lines)
        self.delay_s = delay_s
        self.t0 = time.perf_counter()
        self._last_line = self.t0
        self._last_tenth = 0
        self._shown = False

    @property
    def elapsed_s(self) -> float:
        """Seconds since the start."""
        return time.perf_counter() - self.t0

    def update(self, done: int, text: str = "") -> None:
        """Show ``done`` of the total with ``text`` beside the bar."""
        if not self.enabled:
            return
        now = time.perf_counter()
        frac = min(1.0, done / self.total) if self.total else None
        if self.tty:
            if now - self.t0 < self.delay_s:
                return
            self._shown = True
            if frac is None:
                self.stream.write(f"\r{self.label}: {text}")
            else:
                bar = "#" * int(_WIDTH * frac)
                self.stream.write(f"\r{self.label} [{bar:<{_WIDTH}}] {text}")
        else:
            tenth = int(10 * frac) if frac is not None else 0
            if tenth > self._last_tenth or now - self._last_line >= _LOG_EVERY_S or frac == 1.0:
                self.stream.write(f"{self.label}: {text}\n")
                self._last_tenth, self._last_line = tenth, now
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line (when one was drawn)."""
        if self._shown:
            self.stream.write("\n")
            self.stream.flush()
            self._shown = False


def format_duration(seconds: float) -> str:
    """``MM:SS``, or ``H:MM:SS`` from an hour."""
    s = round(seconds)
    if s >= 3600:
        return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{s // 60:02d}:{s % 60:02d}"
