"""What serves the notebooks: parameters, results JSON and timing, recorded baselines and
``python -m kernelxai.check``, the routes table, and the exercise checks.

Takes the entry points; nothing in the library imports it.
"""

from ._reporting import default, resolve_parameters, save_results, timed

__all__ = ["default", "resolve_parameters", "save_results", "timed"]
