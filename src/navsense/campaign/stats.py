"""The statistics a campaign records per run: :mod:`navsense.runs.stats`, re-exported.

One implementation serves the campaigns and ``navsense report``; it lives in
:mod:`navsense.runs.stats` so that the report does not depend on the campaign package. These names
are the same objects (``navsense.campaign.stats.run_statistics is navsense.runs.stats.run_statistics``).
"""

from navsense.runs.stats import *  # noqa: F403
from navsense.runs.stats import __all__  # noqa: F401
