"""Shared look of every figure: palette, markers, tier colours, label sizes, axis helpers.

Also the small readers every figure uses (a result or its dict, a report's section, a fraction as
points) and :class:`NothingToPlot`, the one error a figure raises when its input has nothing to draw.
Figures are created without ``pyplot`` (Agg canvas), so nothing is shown and no global figure state
is kept.

References
----------
.. [1] Okabe, M. and Ito, K., "Color Universal Design (CUD): how to make figures and presentations that
   are friendly to colorblind people" (2008): the palette used here.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

import matplotlib

matplotlib.use("Agg", force=False)

from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.ticker import LogFormatter  # noqa: E402


class NothingToPlot(ValueError):
    """The input has nothing this figure draws (a report without the section, a result of another kind).

    The message starts with "nothing to plot:" and is one line. :func:`save_figures` and the HTML report
    skip a figure that raises it.
    """


#: Okabe-Ito colour-blind-safe palette [1]_ (blue first; yellow last because it is faint on white).
OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#F0E442")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
MAX_LABEL = 42


# --------------------------------------------------------------------------- helpers

def as_dict(result: Any) -> dict[str, Any]:
    if isinstance(result, dict):
        return result
    to_dict = getattr(result, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    raise TypeError(f"`result` must be a result object with to_dict() or a dict, got {type(result).__name__}")


def report_section(d: dict[str, Any], key: str, marker: str, what: str) -> Any:
    """``d[key]`` when ``d`` is a whole report, else ``d`` itself when it holds ``marker``."""
    if isinstance(d.get(key), dict):
        return d[key]
    if marker in d:
        return d
    raise NothingToPlot(f"nothing to plot: the result has no `{key}` section (or `{marker}` key) for the {what}")


def num(x: Any) -> float:
    return float("nan") if x is None else float(x)


def pts(x: Any) -> float:
    """A fraction as points (0.718 -> 71.8); None -> NaN."""
    return num(x) * 100.0


def short(name: Any, n: int = MAX_LABEL) -> str:
    """A name as a figure shows it: control and bidirectional characters escaped (as in the terminal), cut
    to ``n`` characters."""
    from ..._text import display_name

    s = display_name(name)
    return s if len(s) <= n else s[: n - 1] + "…"


def new_figure(width: float, height: float) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    fig.rt_tooltips = {}  # type: ignore[attr-defined]
    return fig


def tip(fig: Figure, artist: Any, kind: str, text: str) -> None:
    tips: dict[str, str] = fig.rt_tooltips  # type: ignore[attr-defined]
    gid = f"rt-{kind}-{len(tips)}"
    artist.set_gid(gid)
    tips[gid] = text


def row_height(n: int) -> float:
    return 0.24 if n <= 60 else 0.17


def label_size(n: int) -> float:
    return 9.0 if n <= 60 else 7.0


#: Tier colours: Okabe-Ito without black (unreadable as text on dark backgrounds, and the tier label
#: is drawn in it) and without the faint yellow: tiers 1-6. Tiers 7 and on get colours of their own
#: (:func:`tier_colour`), so no two tiers of one figure share a colour however many there are.
TIER_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7")
#: colour of a model without a tier
NO_TIER_COLOUR = "#555555"
_MORE_TIERS: list[str] = []
_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0
#: lightness of tiers 7, 8, 9, ... in turn: dark enough for a bold label on white, never black
_TIER_LIGHTNESS = (0.34, 0.46, 0.28, 0.40)


def _more_tier_colour(k: int) -> str:
    """Colour of tier ``7 + k``: hues by the golden-ratio sequence (each new hue falls in the widest gap
    left, so neighbours differ), lightness cycling through four levels; a colour already taken (by
    tiers 1-6, the no-tier grey or an earlier tier) is darkened one step until it is new."""
    import colorsys

    taken = {*TIER_COLOURS, NO_TIER_COLOUR, "#000000", "#F0E442"}
    while len(_MORE_TIERS) <= k:
        i = len(_MORE_TIERS)
        hue = (0.13 + i * _GOLDEN) % 1.0
        light = _TIER_LIGHTNESS[i % len(_TIER_LIGHTNESS)]
        while True:
            r, g, b = colorsys.hls_to_rgb(hue, light, 0.72)
            c = "#{:02X}{:02X}{:02X}".format(*(round(255 * v) for v in (r, g, b)))
            if c not in taken and c not in _MORE_TIERS:
                break
            light = light - 1 / 255 if light > 0.2 else 0.5   # stays within 0.2-0.5 (readable, not black)
            hue = (hue + 1e-3) % 1.0 if light == 0.5 else hue
        _MORE_TIERS.append(c)
    return _MORE_TIERS[k]


def tier_colour(tier: Any) -> str:
    """The colour of a tier (1 = first): the six of :data:`TIER_COLOURS`, then a new colour for each
    further tier (never one of an earlier tier); grey for no tier (None or below 1)."""
    if tier is None or int(tier) < 1:
        return NO_TIER_COLOUR
    t = int(tier)
    return TIER_COLOURS[t - 1] if t <= len(TIER_COLOURS) else _more_tier_colour(t - len(TIER_COLOURS) - 1)


def score_axis_limits(ax: Any, values: Iterable[Any]) -> None:
    """Keep a score axis (points) within 0–100 and at least 2 points wide.

    Matplotlib pads the data range both ways, so a model at 0 (or 100) gives an axis past the bound,
    and an all-zero leaderboard gives an axis from -0.04 to 0.04. Scores are fractions shown as points,
    so nothing can lie outside 0–100: the view is widened to 2 points and shifted inside the bounds
    (a 2% margin keeps the dots off the spine).
    """
    vals = [v for v in (num(x) for x in values) if math.isfinite(v)]
    if not vals or min(vals) < 0 or max(vals) > 100:
        return
    lo, hi = ax.get_xlim()
    span = max(hi - lo, 2.0)
    mid = (lo + hi) / 2
    lo, hi = mid - span / 2, mid + span / 2
    pad = 0.02 * span
    if lo < -pad:
        lo, hi = -pad, hi + (-pad - lo)
    if hi > 100 + pad:
        lo, hi = max(-pad, lo - (hi - 100 - pad)), 100 + pad
    ax.set_xlim(lo, hi)


def plain_log_axis(axis: Any, values: Iterable[float]) -> None:
    """Log axis with plain-number tick labels (30, 100, 1,000) at the given values."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    vals = sorted({float(v) for v in values if v and math.isfinite(float(v)) and float(v) > 0})
    axis.set_major_locator(FixedLocator(vals))
    axis.set_minor_locator(NullLocator())
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:,.0f}" if v >= 1 else f"{v:g}"))


class PlainLogFormatter(LogFormatter):
    """Log-axis labels as plain numbers with thousands separators (2,000), on the ticks matplotlib picks."""

    def _num_to_string(self, x: float, vmin: float, vmax: float) -> str:
        return f"{x:,.0f}" if x >= 1 else f"{x:g}"


def alpha_of(d: dict[str, Any], default: float = 0.05) -> float:
    cl = (d.get("settings") or {}).get("confidence_level") or d.get("confidence_level")
    return 1.0 - float(cl) if cl else default


def take_rows(rows: list[dict[str, Any]], max_models: int | None, empty: str) -> tuple[list, int]:
    """The first ``max_models`` rows and their total; no rows is a one-line NothingToPlot."""
    if not rows:
        raise NothingToPlot(f"nothing to plot: {empty}")
    return (rows if max_models is None else rows[:max_models]), len(rows)


def model_figure(rows: list[dict[str, Any]], max_models: int | None, empty: str) -> tuple[list, int, Figure, Any]:
    """The first ``max_models`` rows, their total, and a figure one row tall per model."""
    rows, total = take_rows(rows, max_models, empty)
    fig = new_figure(8.0, 1.3 + row_height(len(rows)) * len(rows))
    return rows, total, fig, fig.add_subplot()

def section_rows(d: dict[str, Any], section: str, key: str, what: str) -> list[dict[str, Any]]:
    src = d.get(section) if isinstance(d.get(section), dict) else d
    rows = src.get(key) if isinstance(src, dict) else None
    if not rows:
        raise NothingToPlot(f"nothing to plot: the result has no `{key}` rows for the {what}")
    return list(rows)


def by_method(rows: Iterable[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        out.setdefault(str(r.get("method")), []).append(r)
    return out



# --------------------------------------------------------------------------- fonts for any name

_CHARMAPS: dict[str, frozenset[int]] = {}
#: names whose characters no installed font has were drawn as boxes: said once per process
_WARNED_MISSING: set[str] = set()


def _charmap(path: str) -> frozenset[int]:
    if path not in _CHARMAPS:
        from matplotlib.ft2font import FT2Font

        try:
            _CHARMAPS[path] = frozenset(FT2Font(path).get_charmap())
        except (OSError, RuntimeError, ValueError):   # a font FreeType cannot read: it covers nothing
            _CHARMAPS[path] = frozenset()
    return _CHARMAPS[path]


def _figure_text(fig: Figure) -> str:
    from matplotlib.text import Text

    parts = [t.get_text() for t in fig.findobj(Text)]
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            parts += [t.get_text() for t in axis.get_ticklabels()]
    return "".join(parts)


def missing_glyphs(fig: Figure) -> set[str]:
    """The characters of the figure's text that the default font (DejaVu Sans) does not have."""
    from matplotlib import font_manager

    have = _charmap(font_manager.findfont(font_manager.FontProperties(family="DejaVu Sans")))
    return {ch for ch in _figure_text(fig) if ord(ch) not in have and not ch.isspace()}


def fallback_families(chars: set[str]) -> tuple[list[str], set[str]]:
    """Installed font families that have ``chars`` (greedy, most characters first), and the characters no
    installed font has."""
    from matplotlib import font_manager

    need = {ord(c) for c in chars}
    by_family: dict[str, frozenset[int]] = {}
    for f in font_manager.fontManager.ttflist:
        if need and not f.name.startswith("Last Resort"):   # its "glyphs" are boxes naming the block
            cover = _charmap(f.fname) & need
            if cover:
                by_family[f.name] = by_family.get(f.name, frozenset()) | cover
    out: list[str] = []
    while need and by_family:
        fam, cover = max(by_family.items(), key=lambda kv: len(kv[1] & need))
        if not cover & need:
            break
        out.append(fam)
        need -= cover
        del by_family[fam]
    return out, {chr(c) for c in need}


class glyph_fallback:
    """Draw ``fig`` with fonts that have its characters (CJK, emoji, ... names), without matplotlib's one warning
    per missing glyph: installed fonts that have them are added after DejaVu Sans; what no font has is kept
    in ``self.missing`` (drawn as boxes in raster output; the inline SVG keeps text, which the browser draws)."""

    def __init__(self, fig: Figure) -> None:
        self.fig = fig
        self.missing: set[str] = set()

    def __enter__(self) -> "glyph_fallback":
        import warnings

        chars = missing_glyphs(self.fig)
        fams: list[str] = []
        if chars:
            fams, self.missing = fallback_families(chars)
        self._rc = matplotlib.rc_context(
            {"font.sans-serif": ["DejaVu Sans", *fams, *matplotlib.rcParams["font.sans-serif"]]} if fams else {})
        self._rc.__enter__()
        self._warn = warnings.catch_warnings()
        self._warn.__enter__()
        warnings.filterwarnings("ignore", message=r"Glyph \d+ .*missing from (current )?font", category=UserWarning)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._warn.__exit__(*exc)
        self._rc.__exit__(*exc)


def say_missing_once(missing: set[str]) -> None:
    """One warning per process for the characters no installed font has (instead of one per glyph)."""
    import warnings

    new = "".join(sorted(set(missing) - _WARNED_MISSING))
    if not new:
        return
    _WARNED_MISSING.update(new)
    shown = " ".join(new[:12]) + (" …" if len(new) > 12 else "")
    warnings.warn(f"no installed font has the characters {shown} (in model names): the PNG/PDF figures draw them "
                  "as boxes; install a font that has them (e.g. Noto Sans CJK, Noto Emoji), or use the SVG "
                  "figures or the HTML report, which the browser draws with its own fonts", UserWarning,
                  stacklevel=3)
