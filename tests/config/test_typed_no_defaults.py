"""The typed configurations take no default of their own (issue 17 item 4): each default lives
once, in the table of keys (navsense.config.keys), and ``X.from_validated`` indexes the validated
configuration, so a configuration without a key is an error there, not a second default."""

import copy

import pytest

from navsense.config import load_config
from navsense.config.typed.configurable_imu import ConfigurableImuConfig
from navsense.config.typed.gnss import GnssConfig
from navsense.config.typed.imu import ImuConfig
from navsense.config.typed.ins import InsConfig


@pytest.mark.parametrize(
    "typed, path",
    [
        (ImuConfig, "imu.earth"),
        (ConfigurableImuConfig, "imu.earth"),
        (ConfigurableImuConfig, "imu.configurable"),
        (ConfigurableImuConfig, "imu.configurable.platform_ypr_deg"),
        (ConfigurableImuConfig, "imu.configurable.temperature_c"),
        (ConfigurableImuConfig, "imu.configurable.reference_temperature_c"),
        (ConfigurableImuConfig, "imu.configurable.gyro.bias_radps"),
        (InsConfig, "imu.earth"),
        (InsConfig, "ins.aiding"),
        (InsConfig, "ins.aiding_tau_s"),
        (InsConfig, "ins.drift"),
        (InsConfig, "ins.drift.tilt_sigma_deg"),
        (GnssConfig, "gnss.signal_outages_s"),
    ],
)
def test_a_key_left_out_is_not_defaulted_again(typed, path):
    cfg = load_config(overrides={"imu.model": "configurable"})
    typed.from_validated(cfg)  # the complete configuration converts
    partial = copy.deepcopy(cfg)
    *parents, leaf = path.split(".")
    block = partial
    for name in parents:
        block = block[name]
    del block[leaf]
    with pytest.raises(KeyError, match=leaf):
        typed.from_validated(partial)
