"""Umeyama alignment of the estimate to the truth: SE(3) or Sim(3), as evo does.

Umeyama, S. (1991): "Least-squares estimation of transformation parameters between two point
patterns", IEEE PAMI 13(4). For estimate positions x_i and truth positions y_i (i = 1..n)::

    mu_x = 1/n sum x_i,   mu_y = 1/n sum y_i                                 (34), (35)
    sigma_x^2 = 1/n sum |x_i - mu_x|^2                                       (36)
    Sigma_xy = 1/n sum (y_i - mu_y)(x_i - mu_x)^T = U D V^T   (SVD)           (38)
    S = I, or diag(1, 1, -1) when det(U) det(V) < 0                           (43)
    R = U S V^T                                                               (40)
    c = tr(D S) / sigma_x^2  (Sim(3));  c = 1  (SE(3))                        (42)
    t = mu_y - c R mu_x                                                       (41)

and the aligned estimate is ``x' = c R x + t``, its attitude ``q' = q_R q`` and its covariance
``C' = c^2 R C R^T`` (evo's ``align`` with ``correct_scale`` for Sim(3); it aligns the
positions of every epoch that is scored). The alignment is fitted on all of them, before the
per-fix-state and per-window breakdown.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navsense.errors import ConfigError
from navsense.rotation import quat_multiply

__all__ = ["ALIGNMENTS", "Alignment", "umeyama"]

ALIGNMENTS = ("none", "se3", "sim3")
#: Points "lie on one line" when the second singular value of Sigma_xy is at most this times the
#: first (a straight drive with centimetres of lateral motion is about 1e-7).
COLLINEAR_RATIO = 1e-12


@dataclass(frozen=True)
class Alignment:
    """x' = scale R x + t: ``rotation`` (3, 3), ``translation_m`` (3,), ``scale``."""

    kind: str
    rotation: np.ndarray
    translation_m: np.ndarray
    scale: float

    @property
    def rotation_deg(self) -> float:
        """The rotation angle of R, deg."""
        c = (np.trace(self.rotation) - 1.0) / 2.0
        return float(np.degrees(np.arccos(np.clip(c, -1.0, 1.0))))

    def positions(self, p: np.ndarray) -> np.ndarray:
        return self.scale * (p @ self.rotation.T) + self.translation_m

    def attitudes(self, q: np.ndarray | None) -> np.ndarray | None:
        if q is None or self.kind == "none":
            return q
        from scipy.spatial.transform import Rotation

        q_r = Rotation.from_matrix(self.rotation).as_quat()  # x, y, z, w
        return quat_multiply(np.broadcast_to(q_r, q.shape), q)

    def covariances(self, cov: np.ndarray | None) -> np.ndarray | None:
        if cov is None or self.kind == "none":
            return cov
        r = self.rotation
        return self.scale**2 * (r @ cov @ r.T)


def umeyama(x: np.ndarray, y: np.ndarray, kind: str) -> Alignment:
    """The alignment of positions x (n, 3) onto y (n, 3) (module docstring); ``kind`` none,
    se3 or sim3. ConfigError when the points do not fix a rotation (fewer than 3, or all on
    one line: :data:`COLLINEAR_RATIO`)."""
    if kind not in ALIGNMENTS:
        raise ConfigError(f"--align {kind!r} is not one of {', '.join(ALIGNMENTS)}")
    if kind == "none":
        return Alignment("none", np.eye(3), np.zeros(3), 1.0)
    n = x.shape[0]
    mu_x, mu_y = x.mean(axis=0), y.mean(axis=0)  # (34), (35)
    dx, dy = x - mu_x, y - mu_y
    sigma2_x = float(np.sum(dx * dx)) / n  # (36)
    cov_xy = dy.T @ dx / n  # (38)
    u, d, vt = np.linalg.svd(cov_xy)
    if (
        n < 3
        or not np.isfinite(d).all()
        or not d[1] > COLLINEAR_RATIO * d[0]
        or not sigma2_x > 0.0  # spread below the float's resolution (squares underflow)
    ):
        raise ConfigError(
            f"--align {kind}: the estimate's {n} positions lie on one line or point; they do "
            "not fix a rotation (use --align none)"
        )
    s = np.eye(3)
    if np.linalg.det(u) * np.linalg.det(vt) < 0.0:  # (43)
        s[2, 2] = -1.0
    r = u @ s @ vt  # (40)
    c = float(np.trace(np.diag(d) @ s)) / sigma2_x if kind == "sim3" else 1.0  # (42)
    t = mu_y - c * (r @ mu_x)  # (41)
    return Alignment(kind, r, t, c)
