"""The command line's commands, one module a command (``navsense geo``: :mod:`.geo`, ...):
each parses its options (``add_parser``), calls one function of the library and leaves its one
error line to :func:`navsense.cli.main`. A command imports only its own modules, lazily
(start-up); the library packages hold no command line."""

from __future__ import annotations

import argparse


def run_directory(text: str) -> str:
    """argparse type of a RUN_DIR argument: an empty name is refused as given (``Path('')`` is
    ``.``, which would be read as the working folder and named so in the error line)."""
    if text == "":
        raise argparse.ArgumentTypeError("'' is not a directory name; give a run directory")
    return text


def file_name(text: str) -> str:
    """argparse type of an input file argument: an empty name is refused as given."""
    if text == "":
        raise argparse.ArgumentTypeError("'' is not a file name; give a file")
    return text
