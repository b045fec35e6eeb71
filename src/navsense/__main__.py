"""``python -m navsense`` runs the command line."""

from navsense._runtime.console import run

run()
