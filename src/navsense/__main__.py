"""``python -m navsense`` runs the command line."""

try:
    from navsense._runtime.console import run
except KeyboardInterrupt:  # Ctrl-C before the command line's own handling: as in a command
    import os
    import sys

    print("navsense: interrupted", file=sys.stderr)
    sys.stderr.flush()
    os._exit(130)  # not sys.exit: see navsense._runtime.process, "Stops"

run()
