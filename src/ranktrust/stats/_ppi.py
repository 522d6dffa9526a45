"""Gold-corrected means of judged scores (prediction-powered inference): estimators, influence, covariance.

A judge (an LLM grader, an automatic metric) scores every item; a person labels a random subset. Three
estimators of each model's mean *gold* score use both, and each gives, besides its estimate, the item-level
contributions ``w`` (``N x M``) of its linearisation, so ``w.T @ w`` is the covariance of the estimates of all
models at once: pairs, rank sets and every paired difference come from that one matrix. They are returned in
two parts, ``w_judge`` (the judge's share, over all items) and ``w_label`` (the labels' share, zero off the
labelled items), whose variances scale as ``1/N`` and ``1/n``: the label budget is read off them. Where items
come in groups (``group_codes``), the influence terms are summed within each group before they are squared
(the cluster-robust sandwich, with the ``G / (G - 1)`` factor and ``G - 1`` degrees of freedom).

``ppi++`` (Angelopoulos, Duchi & Zrnic 2023, "PPI++", arXiv:2311.01453), for any judge score::

    theta_j = lambda_j * mean_all(f_j) + mean_L(Y_j - lambda_j f_j)

with the judge's mean over all ``N`` items and the rectifier over the ``n`` labelled ones. Taking the judge's
mean over all items (the labelled ones included), the variance is smallest at the regression slope
``lambda_j = Cov_L(Y_j, f_j) / Var_all(f_j)``; ``lambda = 0`` is the gold-only mean, ``lambda = 1`` classic
PPI. The interval is ``theta +- t_{n-1} se``.

``stratified`` (0/1 judge and 0/1 gold): the judge's verdict splits the items into two strata, and::

    theta_j = q_j a_j + (1 - q_j) b_j,   q_j = share of all items the judge passes,
    a_j = P_L(Y = 1 | f = 1),  b_j = P_L(Y = 1 | f = 0)

(post-stratification on the judge; PPI with the calibrated judge ``E[Y | f]`` as its prediction). Its interval
takes ``a`` and ``b`` with half a success and half a failure added to each stratum (``(k + 1/2) / (n + 1)``,
the pseudo-counts of the Agresti–Coull family for linear combinations of proportions, Price & Bonett 2004),
which keeps it away from zero width near 0 and 1 and lifts coverage at 100 labels from 0.91-0.93 (the Wald
PPI interval) to at least 0.938 over the grid of ``bench/bench_judge.py``.

``rogan-gladen`` (0/1 judge and 0/1 gold): the judge's sensitivity and specificity measured on the labelled
items correct its pass rate, ``theta = (q + sp - 1) / (se + sp - 1)`` (Rogan & Gladen 1978; the correction of
Lee et al., arXiv:2511.21140), with the delta-method interval that counts the calibration set's uncertainty.
Unstable when ``se + sp`` is near 1 (the judge carries no information): refused below ``se + sp = 1.05``.

:func:`gold_fit` takes a judge's :class:`~ranktrust.ScoreMatrix` and a gold one (the same models and items,
NaN or absent where not labelled), checks them, and returns every model's estimate, the covariance of all
estimates and the judge-only and gold-only answers beside them: what ``rt.intervals``, ``rt.compare``,
``rt.all_pairs`` and ``rt.report`` take with ``gold=``, and what ``ranktrust.judges.gold_corrected`` puts
through its stepdown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import _validate
from .._kernel import is_binary, normal_quantile, t_quantile
from ..errors import ArgumentError, DataError

__all__ = ["ppi_plus", "stratified", "rogan_gladen", "HALF", "METHODS", "MIN_LABELS", "MIN_INFORMATION",
           "model_intervals", "GoldFit", "gold_fit", "gold_method"]

#: pseudo-count added to each stratum's successes and failures for the interval of the stratified estimator
HALF = 0.5
#: the estimators ``method`` names (``auto``: ``stratified`` for 0/1 judge and gold, else ``ppi++``)
METHODS = ("auto", "ppi++", "stratified", "rogan-gladen")
#: below this many labelled items no interval is given
MIN_LABELS = 10
#: rogan-gladen: refused where sensitivity + specificity - 1 is below this
MIN_INFORMATION = 0.05


def ppi_plus(f: np.ndarray, y: np.ndarray, labelled: np.ndarray, *, lam: Any = None) -> dict[str, np.ndarray]:
    """PPI++ (power-tuned) mean of every model.

    ``f``: judge scores ``(N, M)``, complete. ``y``: gold ``(N, M)``, read only where ``labelled``.
    ``labelled``: bool ``(N,)``. ``lam``: a fixed weight (0: the gold-only mean; 1: classic PPI) instead of the
    tuned one. Returns ``estimate, lam, w_judge, w_label`` and ``centre`` (= estimate).
    """
    N = f.shape[0]
    L = np.asarray(labelled, dtype=bool)
    n = int(L.sum())
    fL, yL = f[L], y[L]
    fbar = f.mean(axis=0)
    if lam is None:
        vf = f.var(axis=0, ddof=1)
        cov = ((yL - yL.mean(axis=0)) * (fL - fL.mean(axis=0))).sum(axis=0) / max(n - 1, 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            lam = np.where(vf > 0, cov / vf, 0.0)
    else:
        lam = np.broadcast_to(np.asarray(lam, dtype=float), fbar.shape).copy()
    r = yL - lam * fL
    est = lam * fbar + r.mean(axis=0)
    wj = lam * (f - fbar) / N
    wl = np.zeros_like(f)
    wl[L] = (r - r.mean(axis=0)) / n
    return {"estimate": est, "centre": est, "lam": lam, "w_judge": wj, "w_label": wl}


def _binary_parts(f: np.ndarray, y: np.ndarray, labelled: np.ndarray) -> tuple:
    """``N, L, fL, yL, q``: the number of items, the labelled mask, the labelled judge and gold scores, and the
    judge's pass rate over all items (what both 0/1 estimators start from)."""
    L = np.asarray(labelled, dtype=bool)
    return f.shape[0], L, f[L], y[L], f.mean(axis=0)


def stratified(f: np.ndarray, y: np.ndarray, labelled: np.ndarray) -> dict[str, np.ndarray]:
    """Post-stratified mean on a 0/1 judge's verdict (see the module docstring).

    ``estimate``: with the strata's raw shares; ``centre`` and ``w``: with the pseudo-counts (the interval's).
    Also ``q, a, b`` (raw) and ``n1, n0`` (labelled items the judge passed / failed).
    """
    N, L, fL, yL, q = _binary_parts(f, y, labelled)
    n1 = fL.sum(axis=0)
    n0 = L.sum() - n1
    k1 = (fL * yL).sum(axis=0)
    k0 = ((1 - fL) * yL).sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        a_raw = np.where(n1 > 0, k1 / n1, 0.0)
        b_raw = np.where(n0 > 0, k0 / n0, 0.0)
    est = q * a_raw + (1 - q) * b_raw
    a = (k1 + HALF) / (n1 + 2 * HALF)
    b = (k0 + HALF) / (n0 + 2 * HALF)
    centre = q * a + (1 - q) * b
    # influence: (a - b)(f_i - q) / N over all items, and each stratum's residual over its labelled items.
    # Each labelled residual is shrunk towards its variance with the pseudo-counts: the stratum's sum of squares
    # is k(1-a)^2 + (n-k)a^2 = n a(1-a) at the raw share; with a pseudo-count share it is at least that.
    wj = (a - b) * (f - q) / N
    wl = np.zeros_like(f)
    wl[L] = np.where(fL == 1, q * (yL - a) / (n1 + 2 * HALF), (1 - q) * (yL - b) / (n0 + 2 * HALF))
    # the pseudo-observations' own share of the variance (half a success and half a failure per stratum)
    extra = (q ** 2 * HALF * ((1 - a) ** 2 + a ** 2) / (n1 + 2 * HALF) ** 2
             + (1 - q) ** 2 * HALF * ((1 - b) ** 2 + b ** 2) / (n0 + 2 * HALF) ** 2)
    return {"estimate": est, "centre": centre, "w_judge": wj, "w_label": wl, "extra": extra, "q": q, "a": a_raw,
            "b": b_raw, "n1": n1, "n0": n0}


def rogan_gladen(f: np.ndarray, y: np.ndarray, labelled: np.ndarray) -> dict[str, np.ndarray]:
    """The sensitivity/specificity correction of a 0/1 judge's pass rate (see the module docstring)."""
    N, L, fL, yL, q = _binary_parts(f, y, labelled)
    npos = yL.sum(axis=0)
    nneg = L.sum() - npos
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.where(npos > 0, (fL * yL).sum(axis=0) / npos, np.nan)
        sp = np.where(nneg > 0, ((1 - fL) * (1 - yL)).sum(axis=0) / nneg, np.nan)
        J = se + sp - 1
        est = (q + sp - 1) / J
    wj = (f - q) / (N * J)
    wl = np.zeros_like(f)
    with np.errstate(divide="ignore", invalid="ignore"):
        wl[L] = np.nan_to_num(np.where(yL == 1, -est / J * (fL - se) / npos, (1 - est) / J * ((1 - fL) - sp) / nneg))
    return {"estimate": est, "centre": est, "w_judge": wj, "w_label": wl, "se_judge": se, "sp_judge": sp, "q": q}


_ESTIMATORS = {"ppi++": ppi_plus, "stratified": stratified, "rogan-gladen": rogan_gladen}


def _cluster_sum(w: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """``(G, M)``: the rows of ``w`` summed within each item group."""
    _, inv = np.unique(codes, return_inverse=True)
    out = np.zeros((int(inv.max()) + 1, w.shape[1]))
    np.add.at(out, inv, w)
    return out


def model_intervals(f: np.ndarray, y: np.ndarray, labelled: np.ndarray, method: str, level: float, *,
                    covariance: bool = False, group_codes: np.ndarray | None = None,
                    lam: Any = None) -> dict[str, Any]:
    """Every model's estimate and interval (columns of ``f``, ``y``: items x models) by ``method``.

    Adds to the estimator's output ``se, ci_low, ci_high, var_judge, var_label, df`` and, with ``covariance``, the
    ``covariance`` of all models' estimates (``M x M``; the per-model figures need only its diagonal, which is
    all ``bench/bench_judge.py`` computes for its thousands of replicate columns). With ``group_codes`` (one per
    item) the influence terms are summed within each group (cluster-robust, ``G / (G - 1)``, t with ``G - 1``
    df). ``lam``: a fixed PPI++ weight (``ppi++`` only).
    """
    L = np.asarray(labelled, dtype=bool)
    n = int(L.sum())
    est = ppi_plus(f, y, L, lam=lam) if method == "ppi++" else _ESTIMATORS[method](f, y, L)
    extra = est.get("extra", 0.0)
    if group_codes is not None:
        cj = _cluster_sum(est["w_judge"], group_codes)
        cw = _cluster_sum(est["w_label"], group_codes)
        G = cj.shape[0]
        c = G / max(G - 1, 1)
        var_judge = (cj ** 2).sum(axis=0) * c
        var_label = (cw ** 2).sum(axis=0) * c + extra
        w = (cj + cw) * math.sqrt(c)
        var = (w ** 2).sum(axis=0) + extra
        df = float(G - 1)
    else:
        c = n / max(n - 1, 1)        # the labels' part from n residuals: the usual n - 1
        var_judge = (est["w_judge"] ** 2).sum(axis=0)
        var_label = (est["w_label"] ** 2).sum(axis=0) * c + extra
        w = est["w_judge"] + est["w_label"] * np.sqrt(c)
        var = var_judge + var_label + 2 * (est["w_judge"] * est["w_label"]).sum(axis=0)
        df = float(n - 1) if method == "ppi++" else math.inf
    if covariance:
        V = w.T @ w
        if "extra" in est:
            V[np.diag_indices_from(V)] += est["extra"]
        est["covariance"] = V
        var = np.diag(V).copy()
    se = np.sqrt(np.clip(var, 0, None))
    q = float(t_quantile(level, df)) if math.isfinite(df) else normal_quantile(level)
    lo, hi = est["centre"] - q * se, est["centre"] + q * se
    if is_binary(y[L]):
        lo, hi = np.clip(lo, 0, 1), np.clip(hi, 0, 1)
    est.update(se=se, ci_low=lo, ci_high=hi, var_judge=var_judge, var_label=var_label, df=df)
    return est


# ------------------------------------------------------------------------------ ScoreMatrix level
def _gold_matrix(judge: Any, gold: Any) -> np.ndarray:
    """The gold labels as an ``(M, N)`` array in the judge's model and item order (NaN = not labelled)."""
    from ..data import ScoreMatrix

    if not isinstance(gold, ScoreMatrix):
        raise TypeError(f"`gold` must be a ScoreMatrix of the same models and items, got {type(gold).__name__}")
    known_m, known_i = set(judge.models), set(judge.items)
    extra_m = [x for x in gold.models if x not in known_m]
    extra_i = [x for x in gold.items if x not in known_i]
    if extra_m or extra_i:
        what = (f"model{'s' if len(extra_m) > 1 else ''} {', '.join(map(repr, extra_m[:3]))}" if extra_m else
                f"item{'s' if len(extra_i) > 1 else ''} {', '.join(map(repr, extra_i[:3]))}")
        more = len(extra_m or extra_i) - 3
        raise DataError(f"`gold` has {what}{f' and {more} more' if more > 0 else ''}, which the judge's scores do "
                        "not have: gold labels pair with judged items of the same models", param="gold")
    out = np.full((judge.n_models, judge.n_items), np.nan)
    mi = {x: k for k, x in enumerate(judge.models)}
    ii = {x: k for k, x in enumerate(judge.items)}
    rows = np.array([mi[x] for x in gold.models], dtype=np.intp)
    cols = np.array([ii[x] for x in gold.items], dtype=np.intp)
    out[np.ix_(rows, cols)] = gold.scores
    return out


def _labelled_items(gold: np.ndarray, models: tuple[str, ...], items: tuple[str, ...]) -> np.ndarray:
    has = ~np.isnan(gold)                     # (M, N)
    some, every = has.any(axis=0), has.all(axis=0)
    bad = np.flatnonzero(some & ~every)
    if bad.size:
        i = bad[0]
        missing = [models[j] for j in np.flatnonzero(~has[:, i])]
        raise DataError(
            f"item {items[i]!r} has a gold label for some models but not for {', '.join(map(repr, missing[:3]))}"
            f"{' and more' if len(missing) > 3 else ''} ({bad.size} such items): the labelled items must be the same "
            "for every model; label those models too or leave the item unlabelled for all", param="gold")
    return every


def gold_method(method: str, f: np.ndarray, yL: np.ndarray) -> str:
    """``method`` resolved for judge scores ``f`` and labels ``yL`` (``auto``: ``stratified`` for 0/1, else
    ``ppi++``); the 0/1 estimators refuse other scores."""
    method = _validate.choice(method, "method", METHODS)
    binary = is_binary(f) and is_binary(yL)
    if method == "auto":
        return "stratified" if binary else "ppi++"
    if method in ("stratified", "rogan-gladen") and not binary:
        raise ArgumentError(f"`method`={method!r} needs 0/1 judge scores and 0/1 gold labels; "
                            "use `method`='ppi++' for other scores", param="method")
    return method


@dataclass(frozen=True)
class GoldFit:
    """Every model's gold-corrected estimate, the covariance of all of them, and the answers beside them.

    ``score, se, ci_low, ci_high`` (M,): the estimate and its interval; ``covariance`` (M, M); ``df``: of the t
    reference (``inf``: normal); ``lam``: PPI++'s weights (None for the 0/1 estimators); ``var_judge`` and
    ``var_label``: the two parts of each variance (``A / N`` and ``B / n``); ``labelled``: the mask (N,);
    ``gold_labels``: (M, N), NaN off the labelled items; ``group_codes``: the item groups summed over (None
    when not clustered). The judge-only and gold-only answers beside it are the score path's, on ``judge`` and
    on ``gold_labels`` (``rt.intervals`` with ``gold`` gives them).
    """

    models: tuple[str, ...]
    method: str
    confidence_level: float
    score: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    covariance: np.ndarray
    df: float
    lam: np.ndarray | None
    var_judge: np.ndarray
    var_label: np.ndarray
    labelled: np.ndarray
    n_items: int
    n_labelled: int
    clustered: bool
    n_clusters: int | None
    gold_labels: np.ndarray
    group_codes: np.ndarray | None

    def pair(self, j: int, k: int) -> tuple[float, float]:
        """``(diff, se)`` of ``score[j] - score[k]`` from the joint covariance."""
        V = self.covariance
        return (float(self.score[j] - self.score[k]),
                float(math.sqrt(max(V[j, j] + V[k, k] - 2 * V[j, k], 0.0))))


def gold_fit(judge: Any, gold: Any, *, method: str = "auto", confidence_level: float = 0.95,
             cluster: bool = False, lam: Any = None) -> GoldFit:
    """Check ``judge`` and ``gold`` (ScoreMatrix) and estimate every model's mean gold score (see the module
    docstring). ``cluster``: sum the influence terms within ``judge.groups``. ``lam``: a fixed PPI++ weight."""
    from ..data import ScoreMatrix

    if not isinstance(judge, ScoreMatrix):
        raise TypeError(f"the judge's scores must be a ScoreMatrix, got {type(judge).__name__}")
    level = _validate.confidence_level(confidence_level)
    f_mn = np.asarray(judge.scores, dtype=float)
    if np.isnan(f_mn).any():
        j, i = np.argwhere(np.isnan(f_mn))[0]
        raise DataError(f"the judge did not score model {judge.models[j]!r} on item {judge.items[i]!r}: the judge's "
                        "scores must be complete (gold-corrected means read the judge on every item)", param="gold")
    y_mn = _gold_matrix(judge, gold)
    L = _labelled_items(y_mn, judge.models, judge.items)
    n, N = int(L.sum()), judge.n_items
    if n == 0:
        raise DataError("`gold` holds no label (every cell is NaN): label a random subset of the items",
                        param="gold")
    if n < MIN_LABELS:
        raise DataError(f"{n} labelled item{'s' if n != 1 else ''}: gold-corrected intervals need at least "
                        f"{MIN_LABELS} (label a random subset of the items)", param="gold")
    if n == N:
        raise DataError("every item is labelled: there is nothing for the judge to add; use the gold labels as the "
                        "scores", param="gold")
    f, y = f_mn.T, np.nan_to_num(y_mn.T)
    how = gold_method(method, f, y[L])
    if lam is not None and how != "ppi++":
        raise ArgumentError(f"`lam` is PPI++'s weight; `method`={how!r} has none", param="lam")
    codes = None
    if cluster:
        if judge.groups is None:
            raise DataError("`cluster`=True needs item groups; these scores have none", param="cluster")
        codes = np.asarray(judge.group_codes)
        if np.unique(codes[L]).size < 2:
            raise DataError("the labelled items fall in fewer than 2 item groups: a clustered interval needs labels "
                            "in at least 2 groups", param="gold")
    est = model_intervals(f, y, L, how, level, covariance=True, group_codes=codes, lam=lam)
    if how == "rogan-gladen":
        info = est["se_judge"] + est["sp_judge"] - 1
        if not np.all(info >= MIN_INFORMATION):
            k = int(np.flatnonzero(~(info >= MIN_INFORMATION))[0])
            raise DataError(f"the judge's sensitivity + specificity - 1 for {judge.models[k]!r} is "
                            f"{info[k]:.3g} on the labelled items: too little information to correct; "
                            "use `method`='stratified'", param="method")
    return GoldFit(
        models=tuple(judge.models), method=how, confidence_level=level, score=est["estimate"], se=est["se"],
        ci_low=est["ci_low"], ci_high=est["ci_high"], covariance=est["covariance"], df=est["df"],
        lam=est["lam"] if how == "ppi++" else None, var_judge=est["var_judge"], var_label=est["var_label"],
        labelled=L, n_items=N, n_labelled=n,
        clustered=bool(cluster), n_clusters=int(np.unique(codes).size) if codes is not None else None,
        gold_labels=y_mn, group_codes=codes,
    )
