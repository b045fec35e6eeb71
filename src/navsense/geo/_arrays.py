"""Input checks and shape handling shared by the geo modules (private).

Every public geo function takes numpy arrays or scalars and returns the broadcast shape of its
inputs: a Python or numpy scalar or a 0-d array gives a numpy float64 scalar, an (n,) array an
(n,) array. The output rank never depends on n.

Speed (single points and batches):

* The checks cost one vectorised test and one reduction in the common case (everything valid);
  only when that fails does the slow path run to find and name the first bad element.
* The transforms' kernels are written once and run either on numpy arrays (a batch) or on
  Python/numpy float scalars (one point): the same sequence of IEEE operations (+ - * / and
  sqrt are correctly rounded in both) and the same numpy ufuncs for every transcendental
  function (numpy's ufuncs give an element the same bits in a 1-element call, a Python float
  call and a long array, which tests/geo checks). A point thus gets the same bits whether it
  comes alone or in a batch (DESIGN.md, "Batch = chunks = steps"), and a single point avoids
  the ~0.3 us overhead of every numpy call on a tiny array. ``SMALL_N`` is the number of
  points up to which a public function loops over the scalar kernel instead of running the
  array kernel.
* On one point the kernels' transcendental functions are :func:`on_floats` wrappers of the
  ufuncs: the ufunc's value (its bits) as a Python float, so the arithmetic that follows runs on
  Python floats (about 11 ns an operation) rather than numpy scalars (about 37 ns).
"""

from __future__ import annotations

import math

import numpy as np

from navsense.errors import DatumError


def on_floats(ufunc):
    """``ufunc`` for the kernels: arrays in, arrays out; a scalar in, a Python float out.

    The value is the ufunc's own (numpy float64 and Python float are both IEEE binary64), so a
    point keeps the bits it has in a batch; only the cost of the arithmetic after it changes.
    ``numpy.sqrt`` of a non-negative float is ``math.sqrt``: both are correctly rounded (IEEE
    754), so the bits are the same, at a third of the cost.
    """
    float64 = np.float64

    if ufunc is np.sqrt:

        def call(x):
            if type(x) is float and x >= 0.0:
                return math.sqrt(x)
            out = ufunc(x)
            return float(out) if type(out) is float64 else out
    else:

        def call(*args):
            out = ufunc(*args)
            return float(out) if type(out) is float64 else out

    call.__name__ = call.__qualname__ = ufunc.__name__
    call.__doc__ = f"numpy.{ufunc.__name__}, a Python float for a scalar (geo._arrays.on_floats)"
    return call


# numpy's ufuncs as the kernels call them (on_floats), once for every geo module and the
# sensor models' one-step paths
sin, cos, tan, sqrt, arctan, arctan2, sinh, cosh, arcsinh, arctanh, exp = (
    on_floats(f)
    for f in (
        np.sin,
        np.cos,
        np.tan,
        np.sqrt,
        np.arctan,
        np.arctan2,
        np.sinh,
        np.cosh,
        np.arcsinh,
        np.arctanh,
        np.exp,
    )
)


def one_epoch_values(values) -> list | None:
    """The values of one-epoch arrays (each of shape (1,)) as Python numbers, else None: the
    test and the unpacking of the models' one-step paths (CONTRACTS.md "One step")."""
    for v in values:
        if type(v) is not np.ndarray or v.shape != (1,):
            return None
    return [v.item() for v in values]


def as_float(name: str, value) -> np.ndarray:
    """Return ``value`` as a float64 array, or raise DatumError naming ``name``."""
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DatumError(f"{name} must be a number or an array of numbers, got {value!r}") from exc
    return arr


# Up to this many points, public functions run the scalar kernel once per point (faster than
# the array kernel's ~100 numpy calls on tiny arrays; the same bits either way, see above).
SMALL_N = 4


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


def finite_floats(**named) -> list[np.ndarray]:
    """Convert each keyword value to a float64 array and require it to be finite."""
    out = []
    for name, value in named.items():
        arr = as_float(name, value)
        require_finite(name, arr)
        out.append(arr)
    return out


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


def wrap(value: float, shape: tuple):
    """One value as the output of a public function of this broadcast shape (size 1)."""
    if not shape:
        return np.float64(value)
    if shape == (1,):
        return np.array([value], dtype=np.float64)
    return np.full(shape, value, dtype=np.float64)


def single(*values):
    """``(floats, shape)`` when every value is one number, else None (the caller's fast path).

    One number: a Python float or int (not bool), a numpy float64 scalar or a float64 array of
    size 1. ``shape`` is the broadcast shape of the values ((), (1,), (1, 1) ...). Values are
    not checked for finiteness.
    """
    out = []
    nd = 0
    for v in values:
        t = type(v)
        if t is float or t is np.float64 or t is int:
            out.append(float(v))
        elif t is np.ndarray and v.size == 1 and v.dtype == np.float64:
            out.append(v.item())
            nd = max(nd, v.ndim)
        else:
            return None
    return out, (1,) * nd
