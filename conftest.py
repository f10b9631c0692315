"""pytest's settings for the whole checkout: the tests in tests/ and the docstring examples in kernelxai/.

Both run headless, so figures go to the Agg backend (notebooks set their own inline backend in
their kernel).
"""

import matplotlib

matplotlib.use("Agg")
