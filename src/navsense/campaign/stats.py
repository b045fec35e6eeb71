"""The statistics a campaign records per run: :mod:`navsense.stats`, re-exported.

One implementation serves the campaigns and ``navsense report``; it lives in
:mod:`navsense.stats` so that the report does not depend on the campaign package. These names
are the same objects (``navsense.campaign.stats.run_statistics is navsense.stats.run_statistics``).
"""

from navsense.stats import (
    EXPECTED_GAUSSIAN_FRACTIONS,
    GNSS_STATES,
    POSITION_GROUPS,
    RUN_TRUTH_FILE,
    STATISTICS_KEYS,
    STATISTICS_VERSION,
    TruthSource,
    find_truth,
    position_statistics,
    run_statistics,
    truth_at_steps,
)

__all__ = [
    "EXPECTED_GAUSSIAN_FRACTIONS",
    "GNSS_STATES",
    "POSITION_GROUPS",
    "RUN_TRUTH_FILE",
    "STATISTICS_KEYS",
    "STATISTICS_VERSION",
    "TruthSource",
    "find_truth",
    "position_statistics",
    "run_statistics",
    "truth_at_steps",
]
