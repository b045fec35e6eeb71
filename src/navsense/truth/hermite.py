"""Quintic Hermite interpolation: a C2 function from its value, slope and curvature at nodes.

On each interval [x_j, x_j+1], with h = x_j+1 - x_j and local t = (x - x_j) / h in [0, 1]::

    f(t) = c0 + c1 t + c2 t^2 + c3 t^3 + c4 t^4 + c5 t^5
    c0 = f_j,   c1 = h f'_j,   c2 = h^2 f''_j / 2
    c3 = 10 D - 4 E + A / 2,   c4 = -15 D + 7 E - A,   c5 = 6 D - 3 E + A / 2
    D = f_j+1 - c0 - c1 - c2,  E = h f'_j+1 - c1 - 2 c2,  A = h^2 f''_j+1 - 2 c2

so f, f' and f'' take the given values at both ends (the unique quintic that does). Used for the
arc-length inverse u(s) of waypoint paths and the distance travelled S(t) of tracks.
"""

from __future__ import annotations

import numpy as np

__all__ = ["QuinticHermite"]


class QuinticHermite:
    """The interpolant of values ``f``, slopes ``df`` and curvatures ``d2f`` at ``nodes``."""

    def __init__(self, nodes: np.ndarray, f: np.ndarray, df: np.ndarray, d2f: np.ndarray) -> None:
        h = np.diff(nodes)
        c0, c1, c2 = f[:-1], h * df[:-1], 0.5 * h**2 * d2f[:-1]
        delta = f[1:] - c0 - c1 - c2
        d_end = h * df[1:] - c1 - 2.0 * c2
        a_end = h**2 * d2f[1:] - 2.0 * c2
        c3 = 10.0 * delta - 4.0 * d_end + 0.5 * a_end
        c4 = -15.0 * delta + 7.0 * d_end - a_end
        c5 = 6.0 * delta - 3.0 * d_end + 0.5 * a_end
        self.nodes = nodes
        self.coef = np.stack([c0, c1, c2, c3, c4, c5], axis=1)
        self.h = h

    def interval(self, x: np.ndarray) -> np.ndarray:
        """The interval of each x (the first or last one outside the nodes)."""
        return np.clip(np.searchsorted(self.nodes, x, side="right") - 1, 0, len(self.h) - 1)

    def value_slope(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """f(x), f'(x) and the interval of each x."""
        j = self.interval(x)
        h = self.h[j]
        t = (x - self.nodes[j]) / h
        c = self.coef[j]
        f = c[:, 0] + t * (c[:, 1] + t * (c[:, 2] + t * (c[:, 3] + t * (c[:, 4] + t * c[:, 5]))))
        dfdt = c[:, 1] + t * (2 * c[:, 2] + t * (3 * c[:, 3] + t * (4 * c[:, 4] + t * 5 * c[:, 5])))
        return f, dfdt / h, j

    def derivatives(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """f(x), f'(x) and f''(x)."""
        f, df, j = self.value_slope(x)
        h = self.h[j]
        t = (x - self.nodes[j]) / h
        c = self.coef[j]
        d2fdt2 = 2 * c[:, 2] + t * (6 * c[:, 3] + t * (12 * c[:, 4] + t * 20 * c[:, 5]))
        return f, df, d2fdt2 / (h * h)
