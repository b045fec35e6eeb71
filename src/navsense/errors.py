"""The package's exceptions: one root, one subclass per kind of bad input.

The command line turns any :class:`NavsenseError` into one line on stderr and exit code 2.
Messages name the file, key or row, the value received and what is allowed.
"""


class NavsenseError(Exception):
    """Root of every error navsense raises on purpose."""


class ConfigError(NavsenseError, ValueError):
    """A configuration file, key or command-line option is invalid."""


class TruthError(NavsenseError, ValueError):
    """A truth log, track or waypoint file is malformed."""


class DatumError(NavsenseError, ValueError):
    """A coordinate is outside the domain of a projection or transformation."""


class FormatError(NavsenseError, ValueError):
    """An output or input file format is malformed."""


class DependencyError(NavsenseError, ImportError):
    """An optional dependency that a command needs is not installed (the message names the
    extra that brings it)."""


class StreamError(NavsenseError, ValueError):
    """A SensorStream called out of turn: closed, not a TruthStates, steps that do not follow
    the last ones, or another physics rate."""


class NavsenseWarning(UserWarning):
    """Input that navsense can use but that is probably not what the user meant (a track that
    asks more than a land vehicle can do). The command line prints it as one line on stderr."""
