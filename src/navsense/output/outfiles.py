"""Output files of the commands that write one file: checked before any work, named in errors.

:func:`check_out_file` refuses, before a command reads its input, an output file it could not
write or would overwrite; :func:`naming` makes an OSError that names no file (a full disk, a
file-size limit: ``write()`` raises ``[Errno 28]`` without a path) name the file being written,
so the command line's one line says where.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from navsense.errors import ConfigError, NavsenseError
from navsense.jsonfile import file_kind

__all__ = ["check_out_file", "name_max", "naming"]


def name_max(folder: str | os.PathLike) -> int:
    """The longest file name ``folder``'s file system takes, bytes (255 where it does not say)."""
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        return 255


def check_out_file(
    path: str | os.PathLike,
    option: str = "--out",
    force: bool | None = None,
    error: type[NavsenseError] = ConfigError,
    reads: Sequence[tuple[str, str | os.PathLike]] = (),
) -> Path:
    """``path`` as a Path if a command may write it: its folder exists and is writable, the name
    fits the file system, and it is neither a directory nor a device, a pipe or a socket (nor a
    link to one); an existing file is refused unless ``force`` (None: the command has no
    --force), a symbolic link even then, and never the file that the
    command reads (``reads``: its option and path; --force would replace the input with what
    is made of it). ``error`` (ConfigError) naming ``option`` otherwise."""
    text = os.fspath(path)
    if not text or "\0" in text:
        raise error(f"{option} {text!r}: not a file name")
    if text.endswith(("/", os.sep)):  # Path() drops it: x.mcap/ became the file x.mcap
        raise error(f"{option} {text}: ends with '/', a folder's name; give a file name")
    out = Path(text)
    if os.path.isdir(out):
        raise error(f"{option} {out}: is a directory; give a file name")
    if os.path.islink(out) and force:
        raise error(
            f"{option} {out}: is a symbolic link; --force replaces a regular file only (a link "
            "may lead anywhere, /dev/stdout among them): remove it or give another name"
        )
    kind = _kind_there(out)
    if kind and kind != "a directory":
        raise error(
            f"{option} {out}: is {kind}, not a regular file; give a file name (the file is "
            "written beside it and renamed into place, which would replace it)"
        )
    if os.path.lexists(out) and not force:
        what = "is a dangling symbolic link" if not out.exists() else "exists"
        if force is None:
            raise error(f"{option} {out}: {what}; not overwriting it (remove it or choose another)")
        raise error(f"{option} {out} {what}; use --force to replace it")
    for source_option, source in reads:
        same = False
        with contextlib.suppress(OSError, ValueError):  # a source that is not there: its own error
            same = os.path.exists(out) and os.path.samefile(out, source)
        if same:
            raise error(f"{option} {out} is the {source_option} file that it is made from")
    folder = out.parent
    if not folder.exists():
        raise error(f"{option} {out}: the folder {folder} does not exist")
    if not folder.is_dir():
        raise error(f"{option} {out}: {folder} is not a directory")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise error(f"{option} {out}: the folder {folder} is not writable")
    longest = name_max(folder)
    # writers use a temporary name beside it: ".NAME.PID.partial" (up to 17 more bytes)
    if len(os.fsencode(out.name)) + 17 > longest:
        raise error(
            f"{option} {out}: the name is {len(os.fsencode(out.name))} bytes; this file system "
            f"allows {longest - 17} here"
        )
    return out


def _kind_there(path: Path) -> str:
    """:func:`navsense.jsonfile.file_kind` of ``path`` (or of the file a link there leads to),
    "" when nothing is there. With --force, ``--out /dev/null`` (or /dev/stdout, a link to the
    process's output) was replaced by a regular file, for every process of the machine when run
    as root (seen)."""
    try:
        return file_kind(os.stat(path).st_mode)
    except (OSError, ValueError):  # not there, or a dangling link: the callers' own checks
        return ""


@contextlib.contextmanager
def naming(path: str | os.PathLike) -> Iterator[None]:
    """Raise an OSError that names no file again naming ``path``."""
    try:
        yield
    except OSError as exc:
        if exc.filename is not None or exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror or os.strerror(exc.errno), os.fspath(path)) from exc
