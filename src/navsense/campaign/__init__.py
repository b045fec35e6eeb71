"""Monte Carlo campaigns: truth sources x vehicles x agents x parameter sweeps x seeds, on Dask.

A campaign file (TOML or JSON, :mod:`navsense.campaign.spec`) lists the truth sources (embedded
scenarios, scenario files, truth logs, GPS tracks and routes), the seeds, the parameter sweep (configuration overrides,
as a grid or a list of points), the vehicles and agents, and whether to keep every run directory
or only its statistics. Each run has a stable id ``p<point>-s<seed>-<hash>``.

::

    navsense campaign run sweep.toml --out camp/                   # local Dask cluster, one worker a core
    navsense campaign run sweep.toml --out camp/ --workers 0       # serially, without Dask
    navsense campaign run sweep.toml --out camp/ --scheduler tcp://10.0.0.5:8786
    navsense campaign summary camp/                                # mean, std, p5, p50, p95 per sweep point
    navsense campaign rerun camp/ p003-s0042-1a2b3c4d5e            # the run's directory again, compared

Scaling out: start a scheduler and workers anywhere (``dask scheduler`` on one machine,
``dask worker tcp://HOST:8786 --nthreads 1`` on each machine, with navsense installed) and give
``--scheduler tcp://HOST:8786``; the truth logs and, with ``keep = "runs"``, the campaign
directory must be at the same paths for the workers (a shared file system). Results are written
by the command as runs finish; an interrupted campaign resumes where it stopped when run again
with the same ``--out``.

Modules: :mod:`.spec` (the campaign file), :mod:`.runner` (executing runs, resume, rerun),
:mod:`.stats` (``run_statistics(run_dir)``: GNSS and INS error statistics of one run directory),
:mod:`.summary` (statistics.parquet, summary.parquet/csv) (the command: navsense.commands.campaign).
Dask (``dask[distributed]``) is needed only to run on Dask; everything else uses numpy and pyarrow.
"""

from navsense.campaign.spec import Campaign, load_campaign
from navsense.campaign.stats import STATISTICS_KEYS, run_statistics

__all__ = ["Campaign", "load_campaign", "run_statistics", "STATISTICS_KEYS"]
