"""The command line's commands, one module a command (``navsense geo``: :mod:`.geo`, ...):
each parses its options (``add_parser``), calls one function of the library and leaves its one
error line to :func:`navsense.cli.main`. A command imports only its own modules, lazily
(start-up); the library packages hold no command line."""
