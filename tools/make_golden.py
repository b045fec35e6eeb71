"""Record the digests of the golden runs (tests/golden_runs.py) in tests/reference/.

Run only when an output is meant to change, and say so in the commit:
    python tools/make_golden.py
"""

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from golden_runs import GOLDEN_FILE, machine, run_all

with tempfile.TemporaryDirectory() as tmp:
    runs = run_all(Path(tmp))
GOLDEN_FILE.write_text(
    json.dumps({"machine": machine(), "runs": runs}, indent=1, sort_keys=True) + "\n"
)
print(f"wrote {GOLDEN_FILE}")
