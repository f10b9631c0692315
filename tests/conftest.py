import os
import sys
from pathlib import Path

import matplotlib
from hypothesis import settings

# tests run headless; notebooks set their own (inline) backend in the kernel
matplotlib.use("Agg")
sys.path.insert(0, str(Path(__file__).resolve().parent))

settings.register_profile("ci", max_examples=60, deadline=None)
settings.register_profile("dev", max_examples=40, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
