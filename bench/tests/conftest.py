"""The benchmark's modules are scripts beside run.py, not a package: put them on the path."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
