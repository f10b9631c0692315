"""The command lines' argument parser: errors in one line (no usage block), a close option suggested.

``python -m kernelxai.check`` and ``python -m kernelxai.report`` refuse a bad option the same way:
one line on stderr naming it, "did you mean" when an option is close, and exit status 2.
"""

from __future__ import annotations

import argparse

from ._suggest import closest

__all__ = ["OneLineParser"]


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (no usage block), with a close option suggested."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")

    def parse_args(self, args=None, namespace=None):
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            options = [o for action in self._actions for o in action.option_strings]
            close = closest(extra[0], options) if extra[0].startswith("-") else []
            self.error(f"unrecognized arguments: {' '.join(extra)}"
                       + (f" (did you mean {close[0]!r}?)" if close else ""))
        return parsed
