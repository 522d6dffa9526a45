"""Figures: the ``"figure"`` entries of the one presentation registry (:mod:`ranktrust.reporting._registry`).

A figure function registers itself with ``@figure_for("package.module:ResultClass", ...)`` (the class named, not
imported: the figure modules import nothing from the analyses, so ``rt.plot`` loads no analysis and no analysis
loads matplotlib). Three readers use the entries:

- the notebook display (``reporting/_notebook.py``): a result shows its first figure;
- the HTML report (``reporting/_html.py``): every figure registered for the leaderboard report;
- :func:`~ranktrust.reporting.plots.save_figures` (``ranktrust report --plots``): every figure for the
  result given (the report's, for a report or a dict).

A new figure is one decorated function in the module of its domain; nothing else changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from .._registry import LEADERBOARD_REPORT, REGISTRY

__all__ = ["FigureSpec", "figure_for", "figures_for", "figures_registered", "report_figures"]


@dataclass(frozen=True)
class FigureSpec:
    """One figure: its function and how the report and the export name it.

    Attributes
    ----------
    name : str
        The function's name; the file stem :func:`save_figures` writes (``forest.png``).
    draw : callable
        ``draw(result_or_dict, **options) -> matplotlib.figure.Figure``.
    slot : str
        Its short id in the HTML report (the key of the template's ``figs``, the SVG id salt).
    trims : bool
        Whether it takes ``max_models`` (the long-list figures, cut to the top models in the report and
        the notebook).
    """

    name: str
    draw: Callable[..., Any]
    slot: str
    trims: bool = False

    def __call__(self, result: Any, *, max_models: int | None = None) -> Any:
        """The figure of ``result``; ``max_models`` applies to the figures that trim (else ignored)."""
        if self.trims and max_models is not None:
            return self.draw(result, max_models=max_models)
        return self.draw(result)


def figure_for(*types: str | type, slot: str, trims: bool = False,
               report: bool = True) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated figure function for the result classes in ``types``, after their earlier figures.

    ``report=True`` also registers it for the leaderboard report, whose ``to_dict()`` holds the
    section the figure reads. The function is returned unchanged.
    """
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        spec = FigureSpec(fn.__name__, fn, slot, trims)
        for t in types + ((LEADERBOARD_REPORT,) if report else ()):
            REGISTRY.add(t, "figure", spec, replace=False)
        return fn

    return register


def figures_for(result: Any) -> tuple[FigureSpec, ...]:
    """The figures registered for ``result``'s class (the nearest class in its MRO that has any)."""
    return REGISTRY.lookup(result, "figure")


def figures_registered(name: str) -> tuple[FigureSpec, ...]:
    """The figures registered for exactly the class ``name`` (``"package.module:Class"``), in order."""
    return REGISTRY.under(name, "figure")


def report_figures() -> tuple[FigureSpec, ...]:
    """The leaderboard report's figures, in report order."""
    return figures_registered(LEADERBOARD_REPORT)
