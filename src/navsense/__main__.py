"""``python -m navsense`` runs the command line."""

try:
    from navsense._runtime.console import run
except KeyboardInterrupt:  # Ctrl-C before the command line's own handling: as in a command
    import sys

    print("navsense: interrupted", file=sys.stderr)
    sys.exit(130)

run()
