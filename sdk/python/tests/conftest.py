from __future__ import annotations

import sys
from pathlib import Path

SDK = Path(__file__).resolve().parents[1]
REPO = SDK.parents[1]
FIXTURES = REPO / "test" / "fixtures"

# The tests exercise the checkout's source; test_install.py checks the installed package too.
sys.path.insert(0, str(SDK / "src"))
