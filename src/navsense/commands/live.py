"""``navsense live``: a run paced at real time (or ``--speed N`` times faster), served as it happens.

::

    navsense live [--scenario NAME | --truth FILE | --track FILE] [--duration S] [--speed N]
                  [--foxglove-port PORT | --no-foxglove] [--nmea-tcp PORT] [--nmea-pty [LINK]]
                  [--host ADDR] [--out DIR [--format jsonl|parquet] [--save-truth] [--mcap]]
                  [config options as navsense simulate] [--quiet]

The truth sources, the site, the vehicle and the configuration options are those of ``navsense
simulate`` (:func:`navsense.run.prepare_run`). Ctrl-C (or SIGTERM: a live server's normal end)
ends the run cleanly between two physics steps: the servers stop, the run directory (``--out``)
is written over the steps served, and the exit code is 0; a second one aborts at once (exit 130,
or 143 for SIGTERM; no run directory).
What is served: :mod:`navsense.live.server`.
"""

from __future__ import annotations

import argparse
import signal
import threading
from contextlib import contextmanager

__all__ = ["add_parser", "run"]


def _link_name(text: str) -> str:
    """--nmea-pty LINK: a file name; an empty one is refused (it meant "no link", as the
    option alone, and the run started; found by the fourth fuzz round)."""
    if not text:
        raise argparse.ArgumentTypeError("'' is not a link name (give none: the option alone)")
    return text


def add_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``live`` on an argparse ``subparsers`` object."""
    from navsense.cli import add_truth_source_arguments
    from navsense.commands.config import add_config_arguments
    from navsense.live.foxglove_out import DEFAULT_FOXGLOVE_PORT

    p = subparsers.add_parser(
        "live",
        help="serve a run as it happens: Foxglove WebSocket, NMEA over TCP or a pseudo-terminal",
        description="Run the sensors over a truth source at the pace of the wall clock (--speed "
        "times faster) and serve what they deliver as it is delivered: the ROS 2 topics of the "
        "bag and every sensor's rows on a Foxglove WebSocket server, the NMEA sentences of "
        "gnss.nmea over TCP and on a pseudo-terminal. Ctrl-C stops.",
    )
    add_truth_source_arguments(p)
    add_config_arguments(p)
    p.add_argument(
        "--agent",
        type=int,
        default=0,
        metavar="K",
        help="agent index: the INS seed adds 7919 K (ACRES Core)",
    )
    p.add_argument(
        "--speed",
        type=float,
        default=1.0,
        metavar="N",
        help="N times faster than real time (default 1)",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        metavar="ADDR",
        help="address the servers listen on (default 127.0.0.1; 0.0.0.0: every interface)",
    )
    fox = p.add_mutually_exclusive_group()
    fox.add_argument(
        "--foxglove-port",
        type=int,
        default=DEFAULT_FOXGLOVE_PORT,
        metavar="PORT",
        help=f"Foxglove WebSocket port (default {DEFAULT_FOXGLOVE_PORT}; 0: any free port)",
    )
    fox.add_argument("--no-foxglove", action="store_true", help="no Foxglove WebSocket server")
    p.add_argument(
        "--nmea-tcp",
        type=int,
        default=None,
        metavar="PORT",
        help="serve the NMEA sentences over TCP on PORT (0: any free port)",
    )
    p.add_argument(
        "--nmea-pty",
        nargs="?",
        const=True,  # the option alone (argparse would pass a str const through type)
        type=_link_name,
        default=None,
        metavar="LINK",
        help="serve the NMEA sentences on a pseudo-terminal (a serial receiver to gpsd); with "
        "LINK, also a symbolic link to it there",
    )
    p.add_argument(
        "--out",
        metavar="DIR",
        help="also write the run directory, as navsense simulate does, when the run ends",
    )
    p.add_argument(
        "--format",
        choices=["jsonl", "parquet"],
        default="jsonl",
        help="--out: rows as JSON Lines (default) or one Parquet file per sensor",
    )
    p.add_argument(
        "--save-truth",
        action="store_true",
        help="--out: also write the truth as truth.parquet (on with --track)",
    )
    p.add_argument("--mcap", action="store_true", help="--out: also write the ROS 2 bag ros2.mcap")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=run)
    return p


@contextmanager
def _stop_on_signals(stop):
    """SIGINT and SIGTERM set ``stop`` (a :class:`navsense.live.pacing.StopRequest`: the handler
    takes no lock; the run ends between two steps); a second one does what
    the signal did before (the command line's: KeyboardInterrupt, exit 130; SIGTERM, exit 143).
    Only in the main thread (elsewhere signals stay as they are)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict = {}

    def handler(signum, frame):
        if not stop.is_set():
            stop.set()
            return
        before = previous.get(signum)
        if callable(before):  # the command line's: raises, or holds the stop inside a region
            before(signum, frame)  # of navsense._runtime.process.stops_deferred (raised at its
            return  # end: the run directory's writes are never left half done)
        raise KeyboardInterrupt

    previous.update({sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)})
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _say(args, text: str) -> None:
    if not args.quiet:
        print(f"navsense live: {text}", flush=True)


def _check_host(host: str) -> None:
    """ConfigError unless ``host`` can be given to the servers' bind: an address or a host name
    (IDNA, at most 253 characters, no NUL) that resolves ("" is every interface): a name that
    does not was told by the bind as '--nmea-tcp 0: cannot listen on 999.1.1.1:0 (...); choose
    another port', advice that cannot help. Whether it is this machine's is said by the bind
    itself (one line naming the address)."""
    import socket

    from navsense.errors import ConfigError

    try:
        encoded = host.encode("idna")
    except UnicodeError as exc:
        raise ConfigError(f"--host {host[:80]!r}: not an address or host name ({exc})") from None
    if b"\0" in encoded or len(encoded) > 253:
        raise ConfigError(f"--host {host[:80]!r}: not an address or host name")
    try:
        socket.getaddrinfo(host or None, 0, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise ConfigError(
            f"--host {host[:80]!r}: not an address or a host name that resolves ({reason}); "
            "give an address of this machine, such as 127.0.0.1 or 0.0.0.0 (every interface)"
        ) from None


def run(args) -> int:
    """``navsense live``: the options checked, the run prepared, served paced, then written."""
    from navsense.cli import prepare_from_args
    from navsense.live.pacing import StopRequest, serve_paced
    from navsense.live.server import LiveServer
    from navsense.simulate import DEFAULT_CHUNK_STEPS

    pacer = _check_options(args)
    prepared = prepare_from_args(args)
    _check_nmea_served(args, prepared.cfg)
    finish = _bag_writer(prepared) if args.mcap else None
    if not args.no_foxglove:  # its messages carry the bag's stamps: the run's time must fit them
        from navsense.output.ros2 import BagPlan

        rate = float(prepared.cfg["physics"]["hz"])
        plan = BagPlan.of_config(prepared.cfg, prepared.vehicle.name, prepared.site, rate)
        plan.check_clock("the Foxglove server (--no-foxglove serves without it)")
    live = LiveServer(
        prepared.cfg,
        prepared.vehicle,
        prepared.site,
        agent=args.agent,
        host=args.host,
        foxglove_port=None if args.no_foxglove else args.foxglove_port,
        nmea_tcp_port=args.nmea_tcp,
        nmea_pty=args.nmea_pty,
        out_dir=args.out,
        source=prepared.source,
        output_format=args.format,
        save_truth=args.save_truth or prepared.save_truth,
        finish=finish,
        worker=False,  # the models' first call (1 to 2 s) comes before the clock starts
    )
    stop = StopRequest()  # set by a signal's handler: no lock (StopRequest)
    closed = False
    try:
        _announce(args, prepared, live)
        with _stop_on_signals(stop):
            result = serve_paced(
                prepared.truth_chunks(DEFAULT_CHUNK_STEPS), live, stop=stop, pacer=pacer
            )
            if result.stopped:
                _say(args, _stopped_at(live.last_t_s))
            closed = True  # a second Ctrl-C while the run directory is written aborts it
            summary = live.close(wait_until=None if result.stopped else pacer.wait_until)
    finally:
        stop.close()
        if not closed:  # an error, or a second Ctrl-C during the run: no run directory
            live.close(deliver=False, write=False)
    _say(args, f"served {result.steps} physics steps in {result.wall_s:.1f} s")
    if summary is not None:
        if args.mcap:
            _say(args, f"ROS 2 bag {summary.run_dir / 'ros2.mcap'}")
        if not args.quiet:
            print(summary.text())
    return 0


def _stopped_at(last_t_s: float | None) -> str:
    """The line of a stopped run: the time of its last step, or that none was fed (a stop
    before the first step: the time was None, and its format an internal error)."""
    if last_t_s is None:
        return "stopped before the first physics step"
    return f"stopped at t = {last_t_s:.2f} s"


def _check_options(args):
    """The options checked before the truth is read (each a ConfigError naming it, in this
    order: --agent, --speed, the run directory's options without --out, --host, the ports,
    --out, --nmea-pty's link); the pacer of --speed."""
    from navsense.cli import MAX_AGENT
    from navsense.errors import ConfigError
    from navsense.live.pacing import Pacer

    if args.agent < 0:
        raise ConfigError(f"--agent {args.agent} must be >= 0")
    if args.agent > MAX_AGENT:  # as simulate's
        raise ConfigError(f"--agent {args.agent} must be <= {MAX_AGENT}")
    pacer = Pacer(args.speed)  # checks --speed
    if args.out is None and (args.format != "jsonl" or args.save_truth or args.mcap):
        raise ConfigError(
            "--format, --save-truth and --mcap are about the run directory: add --out"
        )
    _check_host(args.host)
    for option, port in (("--foxglove-port", args.foxglove_port), ("--nmea-tcp", args.nmea_tcp)):
        if port is not None and not 0 <= port <= 65535:
            raise ConfigError(f"{option} {port} is not a port number (0 to 65535)")
    if args.out is not None:
        from navsense.output.rundir import check_out_dir

        check_out_dir(args.out)  # before the truth is read
    if args.nmea_pty is True:  # the option alone: a terminal without a link
        args.nmea_pty = ""
    if args.nmea_pty:
        from navsense.live.nmea_out import check_pty_link

        check_pty_link(args.nmea_pty)
    return pacer


def _check_nmea_served(args, cfg) -> None:
    """--nmea-tcp and --nmea-pty serve the lines of the run's gnss.nmea: with the GNSS receiver
    off, or no sentence chosen (gnss.nmea.sentences []), a port or a terminal that never says a
    word was served, exit 0. Refused, as simulate refuses --gnss-fix without the receiver."""
    from navsense.errors import ConfigError

    for option, given in (("--nmea-tcp", args.nmea_tcp), ("--nmea-pty", args.nmea_pty)):
        if given is None:
            continue
        if not cfg["gnss"]["enabled"]:
            raise ConfigError(
                f"{option}: no NMEA sentences to serve (the GNSS receiver is off: gnss.enabled "
                "false); turn it on or leave the option out"
            )
        if not cfg["gnss"]["nmea"]["sentences"]:
            raise ConfigError(
                f"{option}: no NMEA sentences to serve (gnss.nmea.sentences = []); choose some "
                "(--nmea-sentences GGA,RMC) or leave the option out"
            )


def _bag_writer(prepared):
    """--mcap: the bag's plan checked now (before the clock starts), and ``finish(path, final)``
    that writes ros2.mcap into the run directory before it is renamed into place."""
    from navsense.output.ros2 import BagPlan

    rate = float(prepared.cfg["physics"]["hz"])
    BagPlan.of_config(prepared.cfg, prepared.vehicle.name, prepared.site, rate).check("--mcap")

    def finish(path, final) -> None:
        from navsense.runs.export_mcap import write_mcap

        write_mcap(path, run_name=final.name)

    return finish


def _announce(args, prepared, live) -> None:
    """The lines that say what is run and where it is served (none with --quiet)."""
    length = (
        f"{prepared.total_steps / live.rate_hz:.1f} s"
        if prepared.total_steps is not None
        else "a truth log"
    )
    _say(args, f"{prepared.label} ({length}) at {args.speed:g}x real time; Ctrl-C stops")
    if live.foxglove is not None:
        fox = live.foxglove
        _say(args, f"Foxglove WebSocket ws://{fox.host}:{fox.port} ({len(fox.topics)} channels)")
    if live.nmea_tcp is not None:
        _say(args, f"NMEA over TCP {live.nmea_tcp.host}:{live.nmea_tcp.port}")
    if live.nmea_pty is not None:
        link = f" (link {live.nmea_pty.link})" if live.nmea_pty.link else ""
        _say(args, f"NMEA on the pseudo-terminal {live.nmea_pty.device}{link}")
