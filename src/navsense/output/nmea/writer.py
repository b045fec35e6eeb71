"""The ``gnss.nmea`` file: :class:`NmeaWriter` writes sentences, one a line (CR LF);
:func:`read_nmea` reads them back."""

from __future__ import annotations

from pathlib import Path

from navsense.output.appendfile import AppendFile
from navsense.output.nmea.text import LINE_END

__all__ = ["NmeaWriter", "read_nmea"]


class NmeaWriter(AppendFile):
    """Write sentences to ``path``, one a line (CR LF); a context manager that never overwrites.

    Like :class:`navsense.output.jsonl.JsonlWriter`, it relies on the run directory for atomicity.
    """

    def __init__(self, path: str | Path) -> None:
        super().__init__(path)
        self.sentences_written = 0

    def write_sentences(self, sentences: list[str]) -> None:
        """Write a block of sentences (each without its line ending)."""
        if not sentences:
            return
        self.append((LINE_END.join(sentences) + LINE_END).encode("ascii"))
        self.sentences_written += len(sentences)

    def write_text(self, text: bytes) -> None:
        """Write a block of whole lines, each ending in CR LF (:func:`interleave_text`)."""
        self.append(text)
        self.sentences_written += text.count(b"\n")


def read_nmea(path: str | Path) -> list[str]:
    """The sentences of a file written by :class:`NmeaWriter` (line endings removed)."""
    with open(path, "rb") as f:
        return [line.decode("ascii").rstrip("\r\n") for line in f if line.strip()]
