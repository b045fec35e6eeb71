"""``navsense config``: the effective sensor configuration on the command line.

``navsense config show [--config F] [--overlay F] [--vehicle polaris|maxxum] [options]`` prints the
effective configuration (specification "Parameters" after "Command-Line Options") as indented JSON;
``navsense config keys`` lists every key with its type, allowed values and where the range comes
from.

The sensor options mirror the specification's command-line options and are shared with
``navsense simulate`` through :func:`add_config_arguments` and :func:`config_from_args`:

========================  ==========================  ===============================
The order (specification "Command-Line Options"): the defaults, then the configuration file,
then the vehicle overlay, then the options (the named ones, then each ``--set`` in the order
given); a later layer wins. ``navsense config show --explain`` prints where each value came
from; a configuration-file value that the overlay replaces draws a warning line.

Errors are raised as :class:`~navsense.errors.ConfigError`; the main command line turns them into
one line on stderr and exit code 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass

import orjson

from navsense.config.defaults import VEHICLE_OVERLAYS
from navsense.config.load import (
    explain_config,
    load_config,
    parse_number,
    parse_outage,
    parse_set,
)
from navsense.config.schema import describe_keys, format_value

__all__ = [
    "add_parser",
    "run",
    "add_config_arguments",
    "overrides_from_args",
    "option_labels",
    "config_from_args",
]


def number(text: str) -> int | float:
    """argparse type: a finite number (its name appears in argparse's message)."""
    return parse_number(text)


def integer(text: str) -> int:
    """argparse type: an integer."""
    return int(text)


def name_list(text: str) -> list[str]:
    """argparse type: comma-separated names, upper case ("rmc,GGA" -> ["RMC", "GGA"]; "" -> [])."""
    return [name.strip().upper() for name in text.split(",") if name.strip()]


def system_list(text: str) -> list[str]:
    """argparse type: comma-separated system names, lower case ("GPS,beidou" -> ["gps",
    "beidou"])."""
    return [name.strip().lower() for name in text.split(",") if name.strip()]


def orbits_file(text: str) -> str:
    """argparse type: "synthetic", or a file's path made absolute (episode.json records it, and
    the report finds the file again from another directory)."""
    if text == "synthetic" or not text.strip():
        return text
    return os.path.abspath(os.path.expanduser(text))


# (option, type, metavar, dotted key, help): options that set one key to their value.
_VALUE_OPTIONS = (
    ("--seed", integer, "N", "seed", "seed of all noise streams"),
    ("--delay", number, "S", "delay_s", "modelled latency of the GNSS, IMU and INS rows, s"),
    (
        "--physics-hz",
        number,
        "HZ",
        "physics.hz",
        "physics clock, 50..2000 Hz (default 120; a truth log runs at its own rate)",
    ),
    ("--gnss-hz", number, "HZ", "gnss.hz", "GNSS epoch rate, 1 Hz up to the physics rate"),
    ("--imu-hz", number, "HZ", "imu.hz", "IMU sample rate, 1 Hz up to the physics rate"),
    ("--gnss-start", str, "MODE", "gnss.start", "GNSS start mode: converged or cold"),
    (
        "--gnss-frame",
        str,
        "FRAME",
        "gnss.datum.output_frame",
        "GNSS output frame: wgs84_g2139 or nad83",
    ),
    (
        "--gnss-baseline-km",
        number,
        "KM",
        "gnss.corrections.baseline_km",
        "distance to the RTK base station, 0..200 km",
    ),
    (
        "--receiver",
        str,
        "NAME",
        "gnss.receiver",
        "GNSS receiver grade: acres (the specification's) or a preset: phone, standalone, "
        "sbas, dgps, rtk, survey (docs/guide/receivers.md)",
    ),
    (
        "--gnss-orbits",
        orbits_file,
        "FILE",
        "gnss.orbits",
        "the satellites: a RINEX 2.x/3.0x navigation file (gzip too) whose broadcast "
        "ephemerides give the real sky at the run's time and place, or synthetic (default)",
    ),
    (
        "--gnss-systems",
        system_list,
        "LIST",
        "gnss.systems",
        "the systems the receiver may track, comma separated, of gps, galileo, glonass, "
        "beidou, qzss (default: all)",
    ),
    (
        "--nmea-sentences",
        name_list,
        "LIST",
        "gnss.nmea.sentences",
        "the sentences of gnss.nmea, comma separated, of RMC, VTG, GGA, GSA, GSV, GST, ZDA "
        '(default: all; "" for none)',
    ),
)

# (option, dotted key, help): the flags besides the sensors' that set one boolean key to false.
_OTHER_OFF_FLAGS = (
    ("--no-noise", "noise", "set every error, bias and noise of every sensor to zero"),
    (
        "--no-corrections",
        "gnss.corrections.enabled",
        "no correction stream at all (no correction age; the receiver is single at best)",
    ),
)


def _off_flags() -> list[tuple[str, str, str]]:
    """(option, dotted key, help) of the flags that set one boolean key to false: each sensor on
    by default (its switch ``--no-NAME`` in navsense.suite.SENSORS), then the others."""
    from navsense.suite import SENSORS

    flags = [
        (s.switch, f"{s.name}.enabled", f"turn {s.label} off")
        for s in SENSORS.values()
        if s.switch == f"--no-{s.name}"
    ]
    return [*flags, *_OTHER_OFF_FLAGS]


def _on_off_flags() -> list[tuple[str, str, str]]:
    """(option, dotted key, help) of the sensors off by default (their switch ``--NAME`` in
    navsense.suite.SENSORS: ``--mag`` / ``--no-mag`` ...)."""
    from navsense.suite import SENSORS

    return [
        (s.switch, f"{s.name}.enabled", f"{s.label} ({s.name}.jsonl)")
        for s in SENSORS.values()
        if s.switch == f"--{s.name}"
    ]


_OUTAGE_KEY = "gnss.corrections.outages_s+"
_SIGNAL_OUTAGE_KEY = "gnss.signal_outages_s+"


@dataclass(frozen=True)
class _Window:
    """One ``START:END`` as given, with the spelling of its option (for the error message)."""

    option: str
    text: str


class _AppendWindow(argparse.Action):
    """argparse action: append a :class:`_Window` to the list at ``dest``."""

    def __call__(self, parser, namespace, values, option_string=None):
        items = list(getattr(namespace, self.dest, None) or [])
        items.append(_Window(option_string or self.dest, str(values)))
        setattr(namespace, self.dest, items)


def _dest(option: str) -> str:
    return option.lstrip("-").replace("-", "_")


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--config``, ``--overlay``, ``--vehicle`` and the sensor options to ``parser``."""
    group = parser.add_argument_group("sensor configuration")
    group.add_argument(
        "--config",
        metavar="FILE",
        help="sensor configuration replacing the embedded sensors.json "
        "(a partial file keeps the defaults for the keys it leaves out)",
    )
    group.add_argument(
        "--overlay",
        metavar="FILE",
        help="vehicle overlay replacing the embedded one (sensors_polaris.json)",
    )
    group.add_argument(
        "--vehicle",
        choices=tuple(VEHICLE_OVERLAYS),
        help="vehicle whose embedded overlay applies (default: polaris)",
    )
    for option, kind, metavar, key, text in _VALUE_OPTIONS:
        group.add_argument(option, type=kind, metavar=metavar, help=f"{text} (sets {key})")
    for option, key, text in _off_flags():
        group.add_argument(option, action="store_true", help=f"{text} (sets {key} false)")
    for option, key, text in _on_off_flags():
        group.add_argument(
            option,
            action=argparse.BooleanOptionalAction,
            default=None,
            help=f"turn on (or off) {text} (sets {key})",
        )
    group.add_argument(
        "--corrections-outage",
        dest="gnss_outage",
        action=_AppendWindow,
        metavar="START:END",
        help="add one outage [START, END) in seconds of the RTK corrections only (the "
        "satellites stay); repeatable (sets gnss.corrections.outages_s)",
    )
    group.add_argument(
        "--gnss-outage",
        dest="gnss_outage",
        action=_AppendWindow,
        metavar="START:END",
        help="the same as --corrections-outage (its former name)",
    )
    group.add_argument(
        "--gnss-signal-outage",
        action=_AppendWindow,
        metavar="START:END",
        help="add one window [START, END) in seconds in which every satellite is lost "
        "(jamming, a tunnel): no fix, the RTK lock ends and is reacquired after it; "
        "repeatable (sets gnss.signal_outages_s)",
    )
    group.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        dest="set_values",
        help="set any configuration key (navsense config keys) over the configuration file "
        "and the vehicle overlay, as the options above do; VALUE is JSON or plain text "
        "(--set gnss.hz=5 --set ins.frame=wgs84_g2139); repeatable",
    )


def overrides_from_args(args: argparse.Namespace) -> dict:
    """The dotted-key overrides of the options that were given.

    Attributes missing from ``args`` are skipped, so a parser with only some of the options
    works; ``gnss_outage`` and ``gnss_signal_outage`` items may be ``"A:B"`` strings or already
    parsed pairs.
    """
    overrides: dict = {}
    for option, _kind, _metavar, key, _text in _VALUE_OPTIONS:
        value = getattr(args, _dest(option), None)
        if value is not None:
            overrides[key] = value
    for option, key, _text in _off_flags():
        if getattr(args, _dest(option), False):
            overrides[key] = False
    for option, key, _text in _on_off_flags():
        value = getattr(args, _dest(option), None)
        if value is not None:
            overrides[key] = bool(value)
    for dest, key, option in (
        ("gnss_outage", _OUTAGE_KEY, "--gnss-outage"),
        ("gnss_signal_outage", _SIGNAL_OUTAGE_KEY, "--gnss-signal-outage"),
    ):
        windows = getattr(args, dest, None)
        if windows:
            overrides[key] = [_window(item, option) for item in windows]
    for text in getattr(args, "set_values", None) or ():
        key, value = parse_set(text)
        before = overrides.pop(key, None)  # a later value wins, and is applied in its turn
        if key.endswith("+") and isinstance(before, list) and isinstance(value, list):
            value = before + value  # appended to a list: both are kept
        overrides[key] = value
    return overrides


def _window(item, option: str):
    """One outage window of an option as ``[start, end]``."""
    if isinstance(item, _Window):
        return parse_outage(item.text, item.option)
    if isinstance(item, (list, tuple)):
        return item
    return parse_outage(item, option)


def option_labels(args: argparse.Namespace) -> dict[str, str]:
    """``{dotted key: "option --gnss-hz"}``: the option that set each override of
    :func:`overrides_from_args` (the origins of ``navsense config show --explain``)."""
    labels: dict[str, str] = {}
    for option, _kind, _metavar, key, _text in _VALUE_OPTIONS:
        if getattr(args, _dest(option), None) is not None:
            labels[key] = f"option {option}"
    for option, key, _text in _off_flags():
        if getattr(args, _dest(option), False):
            labels[key] = f"option {option}"
    for option, key, _text in _on_off_flags():
        value = getattr(args, _dest(option), None)
        if value is not None:
            labels[key] = f"option {option if value else '--no-' + option[2:]}"
    for dest, key, option in (
        ("gnss_outage", _OUTAGE_KEY, "--corrections-outage"),
        ("gnss_signal_outage", _SIGNAL_OUTAGE_KEY, "--gnss-signal-outage"),
    ):
        if getattr(args, dest, None):
            labels[key] = f"option {option}"
    for text in getattr(args, "set_values", None) or ():
        key = parse_set(text)[0]
        before = labels.get(key) if key.endswith("+") else None
        labels[key] = "option --set" if before in (None, "option --set") else f"{before}, --set"
    return labels


def config_from_args(args: argparse.Namespace) -> dict:
    """The effective configuration for parsed options (see :func:`add_config_arguments`)."""
    return load_config(
        config_path=getattr(args, "config", None),
        overlay_path=getattr(args, "overlay", None),
        vehicle=getattr(args, "vehicle", None) or "polaris",
        overrides=overrides_from_args(args),
    )


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``config`` (actions ``show`` and ``keys``) on an argparse ``subparsers`` object."""
    parser = subparsers.add_parser(
        "config",
        help="show the effective sensor configuration",
        description="The sensor configuration: embedded sensors.json < --config < vehicle "
        "overlay < options.",
    )
    actions = parser.add_subparsers(dest="config_action", metavar="ACTION", required=True)
    show = actions.add_parser(
        "show",
        help="print the effective configuration as JSON",
        description="Print the effective sensor configuration as JSON.",
    )
    add_config_arguments(show)
    show.add_argument(
        "--explain",
        action="store_true",
        help="print each value with where it came from (default, configuration file, "
        "vehicle overlay, option) instead of the JSON",
    )
    actions.add_parser(
        "keys",
        help="list every key, its type and its allowed values",
        description="List every configuration key with its type, allowed values "
        "and where its range comes from.",
    )
    parser.set_defaults(func=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Run ``navsense config <action>``; returns the exit code. Raises ConfigError on bad input."""
    action = getattr(args, "config_action", None)
    if action == "show" and getattr(args, "explain", False):
        cfg, origins = explain_config(
            getattr(args, "config", None),
            getattr(args, "overlay", None),
            getattr(args, "vehicle", None) or "polaris",
            overrides_from_args(args),
            option_labels(args),
        )
        cfg, origins = _with_receiver(cfg, origins)
        sys.stdout.write(explain_text(cfg, origins))
        return 0
    if action == "show":
        cfg, _ = _with_receiver(config_from_args(args), {})
        sys.stdout.write(orjson.dumps(cfg, option=orjson.OPT_INDENT_2).decode() + "\n")
        return 0
    if action == "keys":
        columns = ("key", "type", "allowed", "range_from")
        rows = [dict(zip(columns, ("key", "type", "allowed", "range from"))), *describe_keys()]
        widths = [max(len(row[c]) for row in rows) for c in columns[:-1]]
        for row in rows:
            cells = [row[c].ljust(w) for c, w in zip(columns, widths)] + [row["range_from"]]
            sys.stdout.write("  ".join(cells).rstrip() + "\n")
        return 0
    sys.stderr.write("navsense config: choose an action: show or keys\n")
    return 2


def _with_receiver(cfg: dict, origins: dict[str, str]) -> tuple[dict, dict[str, str]]:
    """The configuration with a receiver preset's values (gnss.receiver; what the run uses and
    episode.json records), each value the preset set named as its origin."""
    from navsense.config.load import leaves
    from navsense.config.receiver import resolve_receiver
    from navsense.config.receiver_presets import PRESETS

    resolved, _ = resolve_receiver(cfg)
    if resolved is cfg:
        return cfg, origins
    name = cfg["gnss"]["receiver"]
    before = dict(leaves(cfg))
    label = f"receiver preset {name} ({PRESETS[name]['source']})"
    out = dict(origins)
    for key, value in leaves(dict(resolved)):
        if before[key] != value:
            out[key] = label
    return dict(resolved), out


def explain_text(cfg: dict, origins: dict[str, str]) -> str:
    """``KEY = VALUE  # ORIGIN`` lines, one a value of the effective configuration, in the
    schema's order, after a line stating the order of the layers."""
    from navsense.config.load import leaves

    lines = [
        (f"{key} = {format_value(value, limit=10_000)}", origins[key]) for key, value in leaves(cfg)
    ]
    width = min(max(len(text) for text, _ in lines), 60)
    out = [
        "# the order: defaults < configuration file (--config) < vehicle overlay "
        "(--overlay, else the vehicle's) < options (the named ones, then --set); later wins"
    ]
    out += [f"{text.ljust(width)}  # {origin}" for text, origin in lines]
    return "\n".join(out) + "\n"
