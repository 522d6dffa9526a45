"""``import ranktrust.plot`` / ``rt.plot``: the plot functions (result in, matplotlib Figure out).

The functions live in :mod:`ranktrust.reporting.plots`; this module re-exports them.
"""

from .reporting.plots import *  # noqa: F401,F403
from .reporting.plots import __all__  # noqa: F401
