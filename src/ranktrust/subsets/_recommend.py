"""The micro-benchmark recommendation as structured fields (no sentences).

:func:`recommend` restates what the agreement curves of :func:`ranktrust.mdad` show: the smallest
size per method that reaches the target MDAD, the best (method, size), and what the smallest and
largest sizes show. The sentences are composed from these fields in the presentation layer
(``ranktrust.reporting.renderers._subsets.recommendation_sentences``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._agreement import pairs_at

__all__ = ["recommend", "SPARSE_BIN"]


#: target pairs the gap bin that decides a recommendation must hold (pooled over trials); with fewer, the MDAD
#: of that bin moves by several points from one seed to the next (SWE-bench's 7 targets gave
#: "use diversity with 10 items" off an 11-pair bin), so no size is recommended
SPARSE_BIN = 30


def num(x: Any) -> float | None:
    f = float(x)
    return f if np.isfinite(f) else None


def _status(x: float) -> str:
    """How an MDAD value reads: 'ok' (a gap), 'too few pairs' (NaN) or 'not reached' (inf), as in the rows."""
    return "ok" if np.isfinite(x) else "too few pairs" if np.isnan(x) else "not reached"


def _wider_below(agree: np.ndarray, pairs: np.ndarray, first: float, delta_bin: float, level: float,
                 min_pairs: int) -> np.ndarray:
    """Lower edges of the counted bins wider than ``first`` whose agreement is below ``level``."""
    edges = np.arange(len(agree)) * delta_bin
    counted = (pairs >= min_pairs) & ~np.isnan(agree)
    return edges[counted & (edges > first + 1e-12) & (agree < level)]


def recommend(methods: tuple[str, ...], sizes: np.ndarray, ev: dict[str, np.ndarray], target: float,
               level: float, min_pairs: int = 1, *, unseen: dict[str, np.ndarray] | None = None,
               ) -> dict[str, Any]:
    """The recommendation as structured fields: the smallest size per method reaching ``target``, the best
    (method, size), and what the smallest and largest sizes show (plain-words sentences are composed from
    these by ``ranktrust.reporting.renderers._subsets.recommendation_sentences``).

    Every field restates what the agreement curves in ``ev`` show (``agreement`` ``(M, S, n_bins)``, ``pairs``
    ``(n_bins,)``), under the same rule as ``mdad``: bins with fewer than ``min_pairs`` pairs are not counted,
    and ``best["wider_below"]`` counts the wider counted bins that fall below ``level``.

    A size is recommended only when the gap bin that decides it holds at least ``pairs_needed =
    max(min_pairs, SPARSE_BIN)`` target pairs; otherwise ``best`` is None and ``not_enough_pairs`` holds the
    (method, size) that would have been named, its MDAD, the pairs of its bin and ``pairs_needed``. Every
    other figure (``smallest_tested``, each ``methods`` entry, ``largest_tested``) carries whether its bin is
    that thin (``sparse`` and ``mdad_pairs``; in
    ``largest_tested``, under ``random`` and ``best``), so the sentences can say so.
    """
    point, lo, hi = ev["mdad"], ev["ci_low"], ev["ci_high"]
    mis, tau, agree, pairs = ev["misordered"], ev["kendall_tau"], ev["agreement"], ev["pairs"]
    db = float(ev["bin_edges"][1] - ev["bin_edges"][0]) if len(ev["bin_edges"]) > 1 else 1.0
    sz = sizes.tolist()
    smallest: dict[str, int | None] = {}
    for mi, meth in enumerate(methods):
        ok = np.flatnonzero(point[mi] <= target + 1e-12)
        smallest[meth] = int(sz[ok[0]]) if ok.size else None
    needed = max(int(min_pairs), SPARSE_BIN)

    def thin(mi: int, si: int) -> dict[str, Any]:
        """Pooled pairs of the bin point[mi, si] is read from, and whether they are fewer than ``needed``."""
        k = int(pairs_at(point[mi:mi + 1, si:si + 1], pairs, db)[0, 0])
        return {"mdad_pairs": k, "sparse": bool(np.isfinite(point[mi, si]) and k < needed)}

    rec: dict[str, Any] = {"target_mdad": float(target), "agreement_level": float(level), "min_pairs": int(min_pairs),
                           "pairs_needed": needed, "smallest_size": smallest, "best": None,
                           "measurable": not bool(np.isnan(point).all()), "smallest_tested": None, "methods": [],
                           "largest_tested": None, "fallback": None, "not_enough_pairs": None}
    if not rec["measurable"]:
        return rec
    # smallest size: what no method resolves
    p0 = point[:, 0]
    b0 = int(np.argmin(np.where(np.isnan(p0), np.inf, p0)))
    rec["smallest_tested"] = {
        "size": int(sz[0]), "method": methods[b0], "mdad": num(p0[b0]), **thin(b0, 0),
        "misordered": float(np.nanmean(mis[b0, 0]) if np.isfinite(p0[b0]) else
                            np.nanmin(np.nanmean(mis[:, 0], axis=-1))),
    }
    for mi, meth in enumerate(methods):
        k = smallest[meth]
        if k is not None:
            si = sz.index(k)
            rec["methods"].append({"method": meth, "reaches_target": True, "size": k, "mdad": num(point[mi, si]),
                                   "ci_low": num(lo[mi, si]), "ci_high": num(hi[mi, si]),
                                   "ci_status": [_status(lo[mi, si]), _status(hi[mi, si])], **thin(mi, si)})
        elif np.isfinite(point[mi]).any():
            si = int(np.argmin(np.where(np.isfinite(point[mi]), point[mi], np.inf)))
            rec["methods"].append({"method": meth, "reaches_target": False, "size": int(sz[si]),
                                   "mdad": num(point[mi, si]), **thin(mi, si)})
        else:
            rec["methods"].append({"method": meth, "reaches_target": False, "size": None, "mdad": None})
    last = point[:, -1]
    bl = int(np.argmin(np.where(np.isfinite(last), last, np.inf)))
    if "random" in methods and np.isfinite(last[bl]):
        r = methods.index("random")
        gap = last[r] - last[bl] if np.isfinite(last[r]) else np.nan
        rec["largest_tested"] = {"size": int(sz[-1]), "random_mdad": num(last[r]), "best_method": methods[bl],
                                 "best_mdad": float(last[bl]), "random_is_best": bool(r == bl or gap == 0),
                                 "random": thin(r, len(sz) - 1), "best": thin(bl, len(sz) - 1)}
    reach = [(sz.index(k), mi) for mi, k in enumerate(smallest.values()) if k is not None]
    if reach:
        si = min(s for s, _ in reach)
        cands = [mi for s, mi in reach if s == si]
        col = point[:, si]
        mi = min(cands, key=lambda i: col[i])
        if "random" in methods and methods.index("random") in cands:
            mi = methods.index("random")   # simplest method when it also reaches the target
        below = _wider_below(agree[mi, si], pairs, float(point[mi, si]), db, level, min_pairs)
        n_at = int(pairs_at(point[mi:mi + 1, si:si + 1], pairs, db)[0, 0])
        best: dict[str, Any] = {
            "method": methods[mi], "size": int(sz[si]), "mdad": float(point[mi, si]),
            "kendall_tau": float(np.nanmean(tau[mi, si])), "misordered": float(np.nanmean(mis[mi, si])),
            "mdad_pairs": n_at, "sparse": n_at < SPARSE_BIN,
            "wider_below": {"count": int(below.size), "max": float(below.max()) if below.size else None},
        }
        if unseen is not None:
            u = float(unseen["mdad"][mi, si])
            best["unseen_mdad"], best["unseen_status"] = num(u), _status(u)
        if n_at < needed:     # the deciding bin is too thin to name a size
            rec["not_enough_pairs"] = {"method": methods[mi], "size": int(sz[si]), "mdad": float(point[mi, si]),
                                       "mdad_pairs": n_at, "pairs_needed": needed}
        else:
            rec["best"] = best
    elif np.isfinite(last[bl]):
        rec["fallback"] = {"size": int(sz[-1]), "method": methods[bl], "mdad": float(last[bl])}
    return rec
