"""``python -m kernelxai.report``: see :mod:`kernelxai.report`."""

import sys

from ._cli import main

if __name__ == "__main__":   # importing this module (the API reference's build does) runs nothing
    sys.exit(main())
