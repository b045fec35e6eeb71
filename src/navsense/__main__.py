"""``python -m navsense`` runs the command line."""

from navsense.cli import run

run()
