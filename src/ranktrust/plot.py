"""``import ranktrust.plot`` / ``rt.plot``: the plot functions (result in, matplotlib Figure out).

The functions live in the :mod:`ranktrust.reporting.plots` package (one module per domain); this module
re-exports its public names.
"""

from .reporting.plots import *  # noqa: F401,F403
from .reporting.plots import __all__  # noqa: F401
