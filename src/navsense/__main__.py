"""``python -m navsense`` runs the command line."""

import sys

from navsense.cli import main

sys.exit(main())
