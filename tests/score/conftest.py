"""Fixtures of the score tests: one short run shared by the tests of a session."""

import pytest

from score.score_helpers import make_run


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory):
    """A 60 s open-sky circle with a correction outage, truth.parquet and ros2.mcap."""
    return make_run(tmp_path_factory.mktemp("score") / "run")
