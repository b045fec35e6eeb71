"""The statistics a campaign records per run: :mod:`navsense.stats`, re-exported.

One implementation serves the campaigns and ``navsense report``; it lives in
:mod:`navsense.stats` so that the report does not depend on the campaign package. These names
are the same objects (``navsense.campaign.stats.run_statistics is navsense.stats.run_statistics``).
"""

from navsense.stats import *  # noqa: F403
from navsense.stats import __all__  # noqa: F401
