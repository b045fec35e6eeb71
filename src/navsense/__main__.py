"""``python -m navsense`` runs the command line."""

from navsense.console import run

run()
