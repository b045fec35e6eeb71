"""Input checks and shape handling shared by the geo modules (private).

Every public geo function takes numpy arrays or scalars and returns the broadcast shape of its
inputs: a Python or numpy scalar or a 0-d array gives a numpy float64 scalar, an (n,) array an
(n,) array. The output rank never depends on n.

The checks cost one vectorised test and one reduction in the common case (everything valid);
only when that fails does the slow path run to find and name the first bad element. The
kernels of the geo modules run on numpy arrays only (elementwise, so a point gets the same bits
alone or in a batch).
"""

from __future__ import annotations

import numpy as np

from navsense.errors import DatumError


def as_float(name: str, value) -> np.ndarray:
    """Return ``value`` as a float64 array, or raise DatumError naming ``name``."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DatumError(f"{name} must be a number or an array of numbers, got {value!r}") from exc
    return arr


def require_finite(name: str, arr: np.ndarray) -> None:
    """Raise DatumError if any element of ``arr`` is NaN or infinite, naming the first one."""
    if not np.isfinite(arr).all():
        bad = np.flatnonzero(~np.isfinite(arr.ravel()))[0]
        where = "" if arr.ndim == 0 else f" (element {int(bad)})"
        raise DatumError(f"{name} must be finite, got {float(arr.ravel()[bad])!r}{where}")


def require_range(name: str, arr: np.ndarray, low: float, high: float, unit: str = "") -> None:
    """Raise DatumError if any element of ``arr`` is NaN, infinite or outside [low, high]."""
    if ((arr >= low) & (arr <= high)).all():  # common case: one test (NaN fails it)
        return
    require_finite(name, arr)
    if arr.size:
        bad = (arr < low) | (arr > high)
        if np.any(bad):
            i = int(np.flatnonzero(bad.ravel())[0])
            where = "" if arr.ndim == 0 else f" (element {i})"
            u = f" {unit}" if unit else ""
            raise DatumError(
                f"{name} = {float(arr.ravel()[i])!r}{u}{where} is outside the allowed "
                f"domain [{low!r}, {high!r}]{u}"
            )


def shaped(arr: np.ndarray):
    """Return a 0-d array as a numpy float64 scalar and any other array unchanged."""
    return arr[()] if arr.ndim == 0 else arr


def utm_zone_array(zone) -> np.ndarray:
    """Validate UTM zone numbers (integers 1..60) and return them as an int64 array."""
    try:
        z = np.asarray(zone)
    except Exception as exc:  # pragma: no cover - np.asarray accepts nearly anything
        raise DatumError(f"UTM zone must be an integer 1..60, got {zone!r}") from exc
    if z.dtype == np.bool_ or not (
        np.issubdtype(z.dtype, np.integer) or np.issubdtype(z.dtype, np.floating)
    ):
        raise DatumError(f"UTM zone must be an integer 1..60, got {zone!r}")
    zf = z.astype(np.float64)
    bad = ~np.isfinite(zf) | (zf != np.round(zf)) | (zf < 1) | (zf > 60)
    if np.any(bad):
        v = float(zf.ravel()[int(np.flatnonzero(bad.ravel())[0])])
        text = str(int(v)) if np.isfinite(v) and v == round(v) else repr(v)
        raise DatumError(f"UTM zone must be an integer 1..60, got {text}")
    return zf.astype(np.int64)


def zone_int(zone):
    """A valid scalar UTM zone as a Python int (fast path), else ``utm_zone_array(zone)``.

    Returns an int for a Python/numpy integer or an integral float 1..60 (or a 0-d array of
    one); an int64 array for an array of zones; raises DatumError as utm_zone_array does.
    """
    if type(zone) is int and 1 <= zone <= 60:
        return zone
    z = utm_zone_array(zone)
    return int(z) if z.ndim == 0 else z
