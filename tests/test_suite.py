"""navsense.suite.SENSORS: the one list of sensors (issue 28 item 1).

Every module that lists sensors derives the list from the registry: no literal collection of
sensor names stands anywhere else in src, every record's "module:attr" names resolve to what
they should, and the lists that derive from it are the registry's.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import navsense
from navsense import suite
from navsense.suite import SENSORS, resolve

PACKAGE = Path(navsense.__file__).parent
SIX = ("gnss", "imu", "ins", "mag", "baro", "odom")


def _all_strings(node: ast.Tuple) -> bool:
    return all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts)


def literal_sensor_lists(source: str, names=SIX) -> list[int]:
    """Lines of the tuples, lists, sets and dict displays whose string items (or string first
    items of tuple items) are mostly sensor names (at least two, more than half of the strings):
    a literal list of sensors. Topic tables
    keyed by role ({"odom": ..., "fix": ..., "imu": ...}) have other strings and do not count."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = node.elts
        elif isinstance(node, ast.Dict):
            items = [k for k in node.keys if k is not None]
        else:
            continue
        # a string item, or the first item of a tuple item (("mag", spec), ("baro", spec)); a
        # tuple of strings alone is a key's path (("gnss", "receiver")), not a sensor's entry
        heads = [
            e.elts[0] if isinstance(e, ast.Tuple) and e.elts and not _all_strings(e) else e
            for e in items
        ]
        strings = [
            e.value for e in heads if isinstance(e, ast.Constant) and isinstance(e.value, str)
        ]
        hits = [s for s in strings if s in names]
        if len(hits) >= 2 and 2 * len(hits) > len(strings):
            found.append(node.lineno)
    return found


def test_the_scan_finds_the_lists_it_is_for():
    assert literal_sensor_lists('SENSOR_NAMES = ("gnss", "imu", "ins", "mag", "baro", "odom")')
    assert literal_sensor_lists('EXTRA = {"gnss": "gnss.nmea", "ins": "ins.frames"}')
    assert literal_sensor_lists('for s, spec in (("mag", A), ("baro", B), ("odom", C)): pass')
    assert literal_sensor_lists('COST = {"ins": 0.8, "gnss": 0.9, "imu": 0.27}')
    assert not literal_sensor_lists('T = {"odom": 1, "fix": 2, "imu": 3, "truth": 4, "tf": 5}')
    assert not literal_sensor_lists('if cfg["mag"]["enabled"]: pass')
    assert not literal_sensor_lists('LEFT_OUT = (("gnss", "receiver"), ("imu", "earth"))')


def test_no_literal_list_of_sensor_names_outside_the_suite():
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "suite.py":
            continue
        for line in literal_sensor_lists(path.read_text(encoding="utf-8")):
            bad.append(f"{path.relative_to(PACKAGE.parent)}:{line}")
    assert bad == []
    assert literal_sensor_lists((PACKAGE / "suite.py").read_text()) == []  # records, not lists


def test_the_six_sensors_in_output_order():
    assert tuple(SENSORS) == SIX
    for name, sensor in SENSORS.items():
        assert sensor.name == name
        assert sensor.switch in (f"--no-{name}", f"--{name}")
        assert sensor.cost("parquet") > 0 and sensor.cost("jsonl") > 0


def test_every_name_of_a_record_resolves():
    from navsense.config.schema import SCHEMA, Section
    from navsense.output.ros2.sensor_topics import SensorTopic

    for name, sensor in SENSORS.items():
        assert hasattr(resolve(sensor.config), "from_validated"), name
        assert isinstance(resolve(sensor.section), Section), name
        assert SCHEMA.fields[name] is resolve(sensor.section)
        assert callable(resolve(sensor.model)) and callable(resolve(sensor.layout))
        for topic in sensor.topics:
            assert isinstance(resolve(topic), SensorTopic), topic
        for frame in sensor.frames:
            assert frame.axes is None or callable(resolve(frame.axes))


def test_importing_the_suite_imports_nothing_of_navsense():
    code = (
        "import sys, navsense.suite; "
        "print(sorted(m for m in sys.modules if m.startswith('navsense')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['navsense', 'navsense.suite']"


def test_the_lists_derive_from_the_registry():
    """The models of a run, the switches, the schema's sections and the bag's sensors are the
    registry's, in its order."""
    import argparse

    from navsense.commands.config import add_config_arguments
    from navsense.config import load_config
    from navsense.config.schema import SCHEMA
    from navsense.output.ros2 import sensors_of_config

    assert list(SCHEMA.fields)[-len(SIX) :] == list(SIX)
    cfg = load_config(overrides={"mag.enabled": True, "odom.enabled": True})
    assert suite.enabled(cfg) == ["gnss", "imu", "ins", "mag", "odom"]
    assert sensors_of_config(cfg) == frozenset(suite.enabled(cfg))
    parser = argparse.ArgumentParser()
    add_config_arguments(parser)
    options = {o for action in parser._actions for o in action.option_strings}
    assert {s.switch for s in SENSORS.values()} <= options
    assert {"--no-mag", "--no-baro", "--no-odom"} <= options


def test_the_cost_split_reads_the_records(monkeypatch):
    """simulate._split_models splits by the records' costs: the Polaris suite in Parquet gives the
    INS here and GNSS + IMU to the worker (simulate's measured split); with the GNSS made the
    cheapest, the GNSS and IMU stay together on the side of the lighter load."""
    import dataclasses

    from navsense import simulate

    class M:
        def __init__(self, name):
            self.name = name

    monkeypatch.setattr(simulate.machine, "worker_processes", lambda: 1)
    monkeypatch.setattr(simulate, "fork_safe", lambda: True)
    models = [M("gnss"), M("imu"), M("ins")]

    def split():
        local, remote = simulate._split_models(models, "parquet", "processes")
        return [m.name for m in local], [m.name for m in remote]

    assert split() == (["ins"], ["gnss", "imu"])
    cheap = dataclasses.replace(SENSORS["gnss"], cost_parquet=0.01)
    monkeypatch.setitem(SENSORS, "gnss", cheap)
    assert split() == (["gnss", "imu"], ["ins"])


def test_an_empty_bag_names_the_switches_of_the_sensors_with_a_topic():
    from navsense.config import load_config
    from navsense.errors import FormatError
    from navsense.output.ros2 import BagPlan

    off = {"ins.enabled": False, "gnss.enabled": False, "imu.enabled": False}
    plan = BagPlan.of_config(load_config(overrides=off), "polaris", None, 120.0)
    with pytest.raises(FormatError, match=r"or turn on --mag, --baro or --odom\)$"):
        plan.check("run")
