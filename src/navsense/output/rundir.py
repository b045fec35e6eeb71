"""The run directory: written under a temporary name and renamed when complete.

A run that fails leaves no directory that looks complete: its files live in ``NAME.partial`` until
the last one is closed, and a failed run removes that folder (a run killed with SIGKILL, or a
machine that stops, leaves only ``NAME.partial``). An existing directory is never overwritten.

``NAME.partial`` holds a marker file (``.navsense-partial``: the writing process's id and host)
while the run writes it, removed just before the rename. A later run to the same ``NAME`` removes
a ``NAME.partial`` whose marker names a process of this host that has ended (a killed run's
leftovers); any other ``NAME.partial`` (a run still writing, another host's, or a directory of the
user's that happens to have the name) is refused with one line, never deleted.

:func:`check_out_dir` checks all of this, and that the directory can be created, before a run
starts (the CLI calls it before it reads the truth).
"""

from __future__ import annotations

import datetime as _dt
import os
import shutil
import socket
from pathlib import Path

import orjson

from navsense.errors import ConfigError

__all__ = ["RunDirectory", "default_run_dir", "check_out_dir", "PARTIAL_MARK"]

PARTIAL_MARK = ".navsense-partial"  # inside NAME.partial while a run writes it: "pid host"


def default_run_dir(base: str | Path, label: str) -> Path:
    """``base/label-YYYYmmdd-HHMMSS`` (a suffix -2, -3 ... when taken)."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path(base)
    candidate = base / f"{label}-{stamp}"
    k = 2
    while os.path.lexists(candidate) or os.path.lexists(_partial_of(candidate)):
        candidate = base / f"{label}-{stamp}-{k}"
        k += 1
    return candidate


def _partial_of(final: Path) -> Path:
    return final.with_name(final.name + ".partial")


def _stale(partial: Path) -> bool:
    """True when ``partial`` is a killed navsense run's leftovers: its marker names a process of
    this host that no longer runs."""
    try:
        pid_text, host = (partial / PARTIAL_MARK).read_text(encoding="ascii").split()
        pid = int(pid_text)
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    if host != socket.gethostname() or pid <= 0 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # it exists (another user's process)
        return False
    return False


def _name_error(final: Path, option: str) -> str | None:
    """Why the file system cannot hold ``final`` and ``final.partial`` (None: it can)."""
    name = final.name
    if not name or name in (".", ".."):
        return f"{option} {str(final)!r}: not a directory name"
    if "\0" in str(final):
        return f"{option} {str(final)!r}: a path cannot hold a NUL character"
    parent = final.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    try:
        name_max = os.pathconf(parent, "PC_NAME_MAX")
    except (OSError, ValueError):
        name_max = 255
    if len(os.fsencode(name + ".partial")) > name_max:
        return (
            f"{option} {final}: the name is {len(os.fsencode(name))} bytes; this file system "
            f"allows {name_max} (with the '.partial' suffix {name_max - 8})"
        )
    return None


def check_out_dir(path: str | Path, option: str = "--out") -> Path:
    """Refuse, before a run starts, an output directory the run could not create and rename.

    The path must not exist (not even as a dangling symlink), nor ``NAME.partial`` unless it is a
    killed run's leftovers (removed); the nearest existing parent must be a directory this process
    may write; the name must fit the file system. Returns the path. ConfigError (one line) if not.
    """
    if not os.fspath(path):  # Path('') is '.': the line named '.', which was not given
        raise ConfigError(f"{option} '': not a directory name; give the run directory")
    final = Path(path)
    reason = _name_error(final, option)
    if reason:
        raise ConfigError(reason)
    if os.path.lexists(final):
        what = "a dangling symbolic link" if not final.exists() else "exists already"
        raise ConfigError(f"{option} {final}: {what}; not overwriting it (choose another {option})")
    partial = _partial_of(final)
    if os.path.lexists(partial):
        if partial.is_dir() and not partial.is_symlink() and _stale(partial):
            shutil.rmtree(partial)
        else:
            raise ConfigError(
                f"{option} {final}: {partial} exists (a run writing it, or not navsense's); "
                f"not touching it: remove it or choose another {option}"
            )
    parent = final.parent
    while not os.path.lexists(parent) and parent != parent.parent:
        parent = parent.parent
    if not parent.exists():
        raise ConfigError(f"{option} {final}: {parent} is a dangling symbolic link")
    if not parent.is_dir():
        raise ConfigError(f"{option} {final}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"{option} {final}: cannot create it: {parent} is not writable")
    return final


class RunDirectory:
    """Context manager: ``with RunDirectory(path) as run: run.path / "imu.jsonl" ...``.

    An OSError while the run writes (a full disk, a file-size limit) is raised again naming the
    run directory; the partial folder is removed.
    """

    def __init__(self, path: str | Path) -> None:
        self.final = Path(path)
        self.path = _partial_of(self.final)
        self._made: list[Path] = []  # parents this run created (removed again if it fails)

    def __enter__(self) -> RunDirectory:
        check_out_dir(self.final)
        parent = self.path.parent
        while not os.path.lexists(parent) and parent != parent.parent:
            self._made.append(parent)
            parent = parent.parent
        self.path.mkdir(parents=True)
        try:
            (self.path / PARTIAL_MARK).write_text(
                f"{os.getpid()} {socket.gethostname()}\n", encoding="ascii"
            )
        except BaseException as exc:
            self._remove()
            named = self._named(exc)
            if named is not None:
                raise named from exc
            raise
        return self

    def _named(self, exc: BaseException) -> OSError | None:
        """A write's OSError that names no file (a full disk, a file-size limit), naming the
        run; None for any other exception."""
        if isinstance(exc, OSError) and exc.filename is None and exc.errno is not None:
            return OSError(
                exc.errno,
                f"{exc.strerror or os.strerror(exc.errno)} (while writing the run; nothing kept)",
                str(self.final),
            )
        return None

    def _remove(self) -> None:
        """Remove NAME.partial and the parents this run created, when they are empty (a failed
        run leaves no empty ``runs/`` behind)."""
        shutil.rmtree(self.path, ignore_errors=True)
        for parent in self._made:  # deepest first
            try:
                parent.rmdir()
            except OSError:  # not empty (another run's), or gone
                break

    def write_json(self, name: str, data: dict) -> None:
        """Write one JSON file (indented, keys in insertion order)."""
        (self.path / name).write_bytes(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            try:
                (self.path / PARTIAL_MARK).unlink()
                if os.path.lexists(self.final):  # appeared while the run wrote
                    raise ConfigError(
                        f"--out {self.final}: appeared while the run wrote; not overwriting it"
                    )
                self.path.rename(self.final)
                return
            except BaseException:
                self._remove()
                raise
        self._remove()
        named = self._named(exc)
        if named is not None:
            raise named from exc
