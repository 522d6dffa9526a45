"""``rt.arena``: Bradley-Terry ratings of a preference leaderboard, honest intervals and simultaneous rank sets.

Method (docs/arena.md has the sources and the comparison with LMArena and Arena-Hard):

1. the battles are aggregated to one row per pair of models that met (weighted sums of outcomes), and the
   Bradley-Terry log-likelihood (a tie counts as half a win; or Davidson's tie model) is maximised by Newton's
   method on those sufficient statistics until the gradient of the mean log-likelihood is below 1e-12;
2. the covariance of the strengths is the cluster-robust sandwich ``H^-1 (sum_c S_c S_c') H^-1`` (clusters =
   prompts by default when the battles have them; else each battle is its own cluster) with the small-sample
   factor ``C / (C - 1)``; or, with ``method="bootstrap"``, the cluster bootstrap of the whole fit;
3. every pair is tested by a stepdown max-|t| over all ``M (M - 1) / 2`` contrasts (Romano & Wolf 2005, in
   the form of Mogstad, Romano, Shaikh & Wilhelm 2024), with ``n_resamples`` draws from ``N(0, V)`` (or the
   bootstrap draws): ``better[j, k]`` is its "j above k" claim, and the rank sets, tiers, "could be #1" and
   the headline all read that one relation.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from scipy import special

from .. import _random, _validate
from .._kernel import normal_quantile
from .._validate import Progress, SeedLike
from ..errors import DataError
from ..ranking._ranksets import layers
from ..results import Note
from . import _fit, _maxt
from ._input import Battles, battles_arrays
from ._result import NORMALISATION, ArenaResult, StyleControl

__all__ = ["arena", "ELO_SCALE", "ELO_MEAN", "TIES"]

#: Elo points per unit of natural-log strength: 400 / ln 10 (a 400-point gap is 10:1 odds)
ELO_SCALE = 400.0 / np.log(10.0)
#: the ratings' anchor: the mean rating of the models on the board
ELO_MEAN = 1000.0
TIES = ("half", "davidson")
METHODS = ("sandwich", "bootstrap")
#: below this many clusters the clustered sandwich is warned about (SmallSampleWarning)
_FEW_CLUSTERS = 20


#: the canonical battle columns ``cluster_by`` may name directly (data/battles/_canon.py)
_CANONICAL = ("model_a", "model_b", "score", "winner", "weight", "cluster", "judge", "user", "turn")
#: where each structured format reads its prompt ids from (the names `cluster_by` may use for them); Arena-Hard
#: says which of its two names (v2 ``uid``, v0.1 ``question_id``) in a ``prompt_column`` note, as tables do
_FORMAT_PROMPT = {"alpaca_eval": ("instruction",), "mt_bench": ("question_id",)}


def _prompt_names(df: Any) -> list[str]:
    """The source's own names of the column read as ``cluster`` (the prompt ids), first seen first."""
    names: list[str] = []
    for n in df.attrs.get("notes", []):
        got = [n["column"]] if n["code"] == "prompt_column" else (
            list(_FORMAT_PROMPT.get(n.get("format"), ())) if n["code"] == "read" else [])
        names += [g for g in got if g not in names]
    return names


#: the reader's notes that say what it left out or changed (its others describe the input: how many battles
#: each source holds, which column held the prompt ids)
_SAID = {"dropped": "rows", "inconsistent_as_tie": "judgments", "strong_verdicts": "games", "style_missing": "rows",
         "replicated_rows_collapsed": "rows", "skipped": None, "columns_ignored": None}


def reader_notes(df: Any) -> tuple[Note, ...]:
    """``read_battles``' notes (``df.attrs["notes"]``) that a reader of the ratings must know, as records
    ``battles_<code>`` (a count of zero says nothing and is left out), worded in reporting/. The notes of
    one kind from several files (a folder of 100 judgment files) are one record: ``source`` says how many
    files, ``sources`` lists them, and the counts are summed."""
    groups: dict[tuple, list[dict]] = {}
    for n in getattr(df, "attrs", {}).get("notes", ()):
        if not isinstance(n, dict) or n.get("code") not in _SAID:
            continue
        count = _SAID[n["code"]]
        if count is not None and not n.get(count):
            continue
        key = (n["code"], n.get("why"), n.get("format"), n.get("weight"), tuple(n.get("columns") or ()))
        groups.setdefault(key, []).append({k: v for k, v in n.items() if k != "code"})
    out = []
    for (code, *_), parts in groups.items():
        data = parts[0]
        if len(parts) > 1:
            data = {**data, "source": f"{len(parts)} files", "sources": [p["source"] for p in parts]}
            for k, v in parts[0].items():
                if isinstance(v, int) and not isinstance(v, bool) and k != "weight":
                    data[k] = sum(int(p[k]) for p in parts)
                elif isinstance(v, dict):   # the dropped note's reasons: {reason: count}
                    data[k] = {r: sum(int(p[k].get(r, 0)) for p in parts) for r in dict.fromkeys(
                        r for p in parts for r in p[k])}
        out.append(Note(f"battles_{code}", data))
    return tuple(out)


def _read(battles: Any, cluster_by: Any, reader: dict[str, Any]) -> Battles:
    """Paths (and a DataFrame given with a reader option) go through the data layer's ``read_battles``
    with ``reader`` (format, weight_strong, prompt, baseline); a DataFrame alone is taken as it is.

    ``cluster_by`` may name the source's own prompt-id column (``question_id``): the reader writes it to
    ``cluster``, and the result names it as the user did. A column of a battles table that the reader
    does not keep is read as the prompt ids (``prompt``), so clustering by it works too."""
    import os
    from dataclasses import replace

    is_path = isinstance(battles, (str, os.PathLike)) or (
        isinstance(battles, (list, tuple)) and battles and all(isinstance(p, (str, os.PathLike)) for p in battles))
    asked = reader["format"] != "auto" or reader["weight_strong"] is not False or reader["prompt"] is not None
    if not (is_path or asked):   # a DataFrame: read_battles' own notes, when it made it, reach the result too
        return replace(battles_arrays(battles, cluster_by=cluster_by), notes=reader_notes(battles))
    from ..data.battles import read_battles  # the data layer reads files

    own = cluster_by is not None and cluster_by != "auto" and cluster_by not in _CANONICAL
    if own:
        p = reader["prompt"]
        if p is not None and p != cluster_by:
            raise DataError(f"`cluster_by`={cluster_by!r} and `prompt`={p!r}: the clusters are the prompt ids "
                            f"(`prompt`), so name one column: `cluster_by`={p!r}, or drop `prompt`",
                            param="cluster_by")
        reader = {**reader, "prompt": cluster_by}
    try:
        df = read_battles(battles, **reader)   # its notes (what it left out or changed) reach the result
    except DataError as e:
        if own and e.param == "prompt" and "no prompt-id column" in e.message:
            cols = e.message.split("; columns: ", 1)[-1]
            raise DataError(f"`cluster_by`={cluster_by!r}: the battles have no such column (columns: {cols}); name "
                            "one of them, or give `cluster_by`='none' for per-battle intervals",
                            param="cluster_by") from None
        raise
    names = _prompt_names(df)
    if own and cluster_by not in names:
        where = f"their prompt ids are {', '.join(names)}" if names else "they have no prompt ids"
        raise DataError(f"`cluster_by`={cluster_by!r}: the battles have no such column ({where}); name it, or "
                        "give `cluster_by`='none' for per-battle intervals", param="cluster_by")
    bt = replace(battles_arrays(df, cluster_by="cluster" if own else cluster_by), notes=reader_notes(df))
    if bt.cluster_col == "cluster":
        label = cluster_by if own else (names[0] if len(names) == 1 else None)
        if label is not None:
            bt = replace(bt, cluster_col=label)
    return bt


def _connected(a: np.ndarray, b: np.ndarray, M: int, models: Sequence[str]) -> None:
    """``a``, ``b``: the pairs that met (the cells)."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    g = coo_matrix((np.ones(len(a)), (a, b)), shape=(M, M))
    k, lab = connected_components(g, directed=False)
    if k > 1:
        sizes = np.bincount(lab)
        small = np.flatnonzero(lab == np.argmin(sizes))
        names = ", ".join(repr(models[i]) for i in small[:5]) + (" ..." if len(small) > 5 else "")
        raise DataError(f"the battles split into {k} groups of models that never met each other (e.g. {names}): "
                        "ratings across groups are not comparable; rate each group on its own", param="battles")


def _separation(c: _fit.Cells, models: Sequence[str]) -> None:
    """The MLE exists only when every model both gained and lost points against the rest (ties count both)."""
    M = c.M
    got = np.bincount(c.A, weights=c.s, minlength=M) + np.bincount(c.B, weights=c.n - c.s, minlength=M)
    lost = np.bincount(c.A, weights=c.n - c.s, minlength=M) + np.bincount(c.B, weights=c.s, minlength=M)
    for arr, what in ((lost, "won every battle"), (got, "lost every battle")):
        bad = np.flatnonzero(arr <= 0)
        if len(bad):
            raise DataError(f"model {models[bad[0]]!r} {what} it played: its Bradley-Terry rating is infinite; "
                            "add battles or drop the model", param="battles")


def _style_features(bt: Battles) -> np.ndarray:
    sa, sb = bt.style_a, bt.style_b
    assert sa is not None and sb is not None
    bad = ~np.isfinite(sa) | ~np.isfinite(sb)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise DataError(f"`battles` row {i + 1}: style feature {bt.features[j]!r} is missing; fill it or drop the "
                        "row", param="battles")
    f = (sa - sb) / (sa + sb + 1.0)
    # scaled, not centred: a difference must change sign when model_a and model_b swap places
    rms = np.sqrt(np.mean(f * f, axis=0))
    if (rms == 0).any():
        j = int(np.flatnonzero(rms == 0)[0])
        raise DataError(f"style feature {bt.features[j]!r} never differs between the two sides: it cannot be "
                        "controlled for; drop its columns", param="style")
    return f / rms


def _fit_all(bt: Battles, ties: str, f: np.ndarray | None, cluster: np.ndarray | None, n_clusters: int,
             y: np.ndarray, w: np.ndarray, theta0: np.ndarray | None = None, want_cov: bool = True,
             c: _fit.Cells | None = None):
    """The fit (and its sandwich covariance over all parameters) on canonical battles (``c``: their cells)."""
    M = len(bt.models)
    a, b = bt.a, bt.b
    if c is None:
        c = _fit.cells(a, b, y, w, M)
    if f is not None:
        fit = _fit.fit_style(a, b, y, w, f, c, theta0)
    elif ties == "davidson":
        fit = _fit.fit_davidson(c, theta0)
    else:
        fit = _fit.fit_half(c, theta0)
    if not want_cov:
        return fit, c, None
    th = fit.theta
    if f is not None:
        p = special.expit(th[a] - th[b] + f @ fit.extra)
        r = w * (y - p)
        meat = _fit.meat_clusters(a, b, r, cluster if cluster is not None else np.arange(len(a)),
                                  n_clusters, M, r[:, None] * f)
    elif ties == "davidson":
        st, sphi = _fit.davidson_scores(th, float(fit.extra[0]), a, b, y)
        meat = _fit.meat_clusters(a, b, w * st, cluster if cluster is not None else np.arange(len(a)),
                                  n_clusters, M, (w * sphi)[:, None])
    elif cluster is None:
        meat = _fit.meat_cells(th, c)
    else:
        p = special.expit(th[c.A] - th[c.B])[c.index]
        meat = _fit.meat_clusters(a, b, w * (y - p), cluster, n_clusters, M)
    G = n_clusters
    meat = meat * (G / (G - 1.0) if G > 1 else 1.0)
    return fit, c, _fit.sandwich(fit.H, meat, M)


def _display_ranks(better: np.ndarray, rating: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    tier, order, _ = layers(better, rating)
    rank = np.empty(len(rating), dtype=np.int64)
    rank[order] = np.arange(1, len(rating) + 1)
    return rank, tier


def arena(
    battles: Any,
    *,
    baseline: str | None = None,
    ties: str = "half",
    cluster_by: str | None = "auto",
    style: bool | Sequence[str] = False,
    method: str = "sandwich",
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    rng: SeedLike = 0,
    progress: Progress = None,
    format: str = "auto",
    weight_strong: bool | float = False,
    prompt: str | None = None,
) -> ArenaResult:
    """Ratings of a preference leaderboard (battles or judge verdicts) with simultaneous rank sets.

    Parameters
    ----------
    battles : DataFrame or path(s)
        One row per battle (or judged game): ``model_a``, ``model_b``, ``score`` (1 = model_a wins,
        0 = model_b wins, 0.5 = tie; probabilities allowed) or ``winner`` (``model_a``, ``model_b``,
        ``tie``, ``tie (bothbad)``), optional ``weight`` (an analytic weight: Arena-Hard's strong verdict
        is *one* battle of weight 3), optional ``cluster`` (prompt id), ``judge``, and style counts
        ``style_a_<feature>``/``style_b_<feature>``. Paths are read with
        ``ranktrust.data.battles.read_battles`` and the reader options below (a DataFrame too when one
        of them is given).
    baseline : str, optional
        A model to report every model's win rate against (Arena-Hard, AlpacaEval):
        ``expit(theta_m - theta_baseline)`` with a delta-method interval; in a star design (every battle
        against the baseline) this is exactly the weighted share of wins (ties half) and its clustered
        interval. Otherwise (an Arena-Hard v2 folder mixes two baselines) it is the Bradley-Terry
        estimate from all battles: ``settings["baseline_star"]`` says which, and each model row's
        ``n_vs_baseline`` how many of its battles were against the baseline. When reading paths it is
        also the baseline of Arena-Hard v0.1 judgments, whose records name none.
    ties : {"half", "davidson"}, default: ``"half"``
        A tie as half a win (FastChat, arena-rank, Arena-Hard), or Davidson's (1970) tie model. When the
        scores are win/tie/loss, the other convention is fitted too and ``settings["ties_check"]`` says
        whether it orders the top three differently.
    cluster_by : str or None, default: ``"auto"``
        The column whose values are clusters for the sandwich (and the bootstrap): ``"auto"`` uses
        ``cluster`` (the prompt id) when present, else each battle is its own cluster; None: per battle.
    style : bool or sequence of str, default: ``False``
        Style control: the contextual Bradley-Terry model with the style features (all ``style_a_*``
        columns, or those named), each ``(a - b) / (a + b + 1)`` then scaled to unit root mean square (FastChat's feature,
        convention), fitted without a penalty. The covariance is the joint sandwich, so the ratings'
        intervals and rank sets include the uncertainty of the style coefficients.
    method : {"sandwich", "bootstrap"}, default: ``"sandwich"``
        Where the covariance comes from: the cluster-robust sandwich, or ``n_resamples`` cluster-bootstrap
        refits (whose draws then also give the max-|t| critical values).
    confidence_level : float, default: ``0.95``
        Of the intervals, and the joint level of the rank sets and pairwise claims.
    n_resamples : int, default: ``2000``
        Draws of the max-|t| statistic (or bootstrap refits with ``method="bootstrap"``).
    rng : None, int or numpy.random.Generator, default: ``0``
        Seeds the max-|t| draws and the bootstrap (reproducible unless None).
    progress : callable(done, total), optional
        Called after each bootstrap refit (``method="bootstrap"``); once at the end otherwise.
    format, weight_strong, prompt
        Reader options, passed to ``ranktrust.data.battles.read_battles`` (docs/formats/battles.md):
        the battles format (``"auto"``), the weight of a strong Arena-Hard verdict (``True`` = 3) and
        the column of prompt ids of a battles table.

    Returns
    -------
    ArenaResult

    Warns
    -----
    SmallSampleWarning
        Fewer than 20 clusters: the clustered intervals rest on a normal approximation that needs many.

    Notes
    -----
    Ratings are ``1000 + 400 / ln(10) * theta`` with ``sum(theta) = 0``: the mean rating is 1000, so a
    model's interval is relative to the board's mean; differences do not depend on the anchor.
    """
    ties = _validate.choice(ties, "ties", TIES)
    method = _validate.choice(method, "method", METHODS)
    level = _validate.confidence_level(confidence_level)
    n_resamples = _validate.count(n_resamples, "n_resamples", minimum=10)
    progress = _validate.progress(progress)
    if cluster_by is not None and not isinstance(cluster_by, str):
        raise TypeError(f"`cluster_by` must be a column name, 'auto' or None, got {cluster_by!r}")
    if isinstance(cluster_by, str) and cluster_by.lower() == "none":
        cluster_by = None
    seed_streams = _random.streams(rng, "maxt", "bootstrap")
    bt = _read(battles, cluster_by, {"format": format, "weight_strong": weight_strong, "prompt": prompt,
                                     "baseline": baseline})
    models = bt.models
    M = len(models)
    if M < 2:
        raise DataError(f"the battles name one model ({models[0]!r}): there is nothing to rank", param="battles")
    if baseline is not None and baseline not in models:
        import difflib

        close = difflib.get_close_matches(str(baseline), models, n=3)
        raise DataError(f"`baseline`={baseline!r} is not a model of the battles"
                        + (f" (did you mean {', '.join(map(repr, close))}?)" if close else ""), param="baseline")
    f = None
    feats: tuple[str, ...] = ()
    if style is not False:
        if bt.style_a is None:
            raise DataError("style control needs style counts: columns style_a_<feature> and style_b_<feature>",
                            param="style")
        if style is True:
            feats = bt.features
        else:
            want = tuple(style)  # type: ignore[arg-type]
            unknown = [x for x in want if x not in bt.features]
            if unknown or not want:
                raise DataError(f"`style`={list(want)!r}: the battles have the style features "
                                f"{', '.join(map(repr, bt.features))}", param="style")
            keep = [bt.features.index(x) for x in want]
            bt.style_a, bt.style_b, bt.features = bt.style_a[:, keep], bt.style_b[:, keep], want  # type: ignore[index]
            feats = want
        if ties == "davidson":
            raise DataError("`ties`='davidson' with style control is not available; use `ties`='half'",
                            param="ties")
    if ties == "davidson" and not bt.discrete:
        raise DataError("`ties`='davidson' needs win / tie / loss outcomes (scores 1, 0.5, 0); these battles have "
                        "probabilities: use `ties`='half'", param="ties")
    # canonical orientation: the lower model code first
    a, b, y, _, sw = _fit.canonical(bt.a, bt.b, bt.y)
    if bt.style_a is not None and style is not False:
        fa = np.where(sw[:, None], bt.style_b, bt.style_a)
        fb = np.where(sw[:, None], bt.style_a, bt.style_b)
        bt.style_a, bt.style_b = fa, fb
        f = _style_features(bt)
    bt.a, bt.b, bt.y = a, b, y
    w = bt.w
    c0 = _fit.cells(a, b, y, w, M)
    _connected(c0.A, c0.B, M, models)
    _separation(c0, models)
    cluster, G = bt.cluster, bt.n_clusters
    if cluster is not None and G < 2:
        raise DataError(f"`cluster_by`={bt.cluster_col!r}: every battle is in one cluster, so the clustered variance is "
                        "zero; cluster by a column with many values, or give `cluster_by`=None", param="cluster_by")
    if cluster is not None and G < _FEW_CLUSTERS:
        import warnings

        from ..errors import SmallSampleWarning

        warnings.warn(f"only {G} clusters in `cluster_by`={bt.cluster_col!r}: the clustered intervals and rank sets "
                      f"rest on a normal approximation that needs many clusters ({_FEW_CLUSTERS} or more)",
                      SmallSampleWarning, stacklevel=2)
    fit, c, Vfull = _fit_all(bt, ties, f, cluster, G, y, w, c=c0)
    theta = fit.theta
    draws = None
    if method == "bootstrap":
        from ..resample._engine import weights as boot_weights

        units = cluster if cluster is not None else np.arange(len(a))
        thetas = np.empty((n_resamples, M))
        gen = np.random.default_rng(seed_streams[1])
        for i in range(n_resamples):
            cw = boot_weights(G, n_resamples=1, rng=gen)[0]
            wb = w * cw[units]
            keep = wb > 0
            sub = Battles(models, a[keep], b[keep], y[keep], wb[keep], None, 0, None, None, None, (), bt.discrete)
            try:
                bf, _, _ = _fit_all(sub, ties, None if f is None else f[keep], None, 0, y[keep], wb[keep],
                                    theta0=theta, want_cov=False)
                thetas[i] = bf.theta
            except Exception:   # a resample where a model won or lost everything: its strength is unbounded
                thetas[i] = np.nan
            if progress is not None:
                progress(i + 1, n_resamples)
        ok = np.isfinite(thetas).all(axis=1)
        thetas = thetas[ok]
        draws = thetas - theta
        V = np.cov(draws, rowvar=False)
        n_failed = int((~ok).sum())
    else:
        V = Vfull[:M, :M]
        n_failed = 0
    sd = _maxt.stepdown(theta, V, n_draws=n_resamples if draws is None else len(draws),
                        rng=np.random.default_rng(seed_streams[0]), draws=draws)
    alpha = 1.0 - level
    z = normal_quantile(level)
    rating = ELO_MEAN + ELO_SCALE * theta
    se = ELO_SCALE * np.sqrt(np.maximum(np.diag(V), 0.0))
    ci_low, ci_high = rating - z * se, rating + z * se
    J, K = sd["J"], sd["K"]
    dif = ELO_SCALE * sd["diff"]
    dse = ELO_SCALE * sd["se"]
    flip = dif < 0
    pa = np.where(flip, K, J)
    pb = np.where(flip, J, K)
    adif = np.abs(dif)
    with np.errstate(divide="ignore", invalid="ignore"):
        pval = np.where(dse > 0, 2 * special.ndtr(-adif / dse), np.where(adif > 0, 0.0, 1.0))
    padj = np.asarray(sd["p_adjusted"])
    separated = (padj < alpha) & (adif > 0)
    better = np.zeros((M, M), dtype=bool)
    better[pa[separated], pb[separated]] = True
    rank_low = 1 + better.sum(axis=0)
    rank_high = M - better.sum(axis=1)
    rank, tier = _display_ranks(better, rating)
    ov_low = 1 + (ci_low[:, None] > ci_high[None, :]).sum(axis=0)
    ov_high = M - (ci_high[:, None] < ci_low[None, :]).sum(axis=0)
    n_battles = np.bincount(a, minlength=M) + np.bincount(b, minlength=M)
    wr = wr_lo = wr_hi = n_vs = None
    if baseline is not None:
        k0 = models.index(baseline)
        # which battles involve the baseline: all of them in a star design (the win rate is then the raw share)
        n_vs = np.bincount(np.where(a == k0, b, a)[(a == k0) | (b == k0)], minlength=M).astype(np.int64)
        n_vs[k0] = 0
        d = theta - theta[k0]
        vd = np.diag(V) + V[k0, k0] - 2 * V[:, k0]
        wr = special.expit(d)
        wse = wr * (1 - wr) * np.sqrt(np.maximum(vd, 0.0))
        wr_lo, wr_hi = np.clip(wr - z * wse, 0, 1), np.clip(wr + z * wse, 0, 1)
    style_res = None
    if f is not None:
        gV = Vfull[M:, M:]
        gse = np.sqrt(np.diag(gV))
        g = fit.extra
        raw_fit, _, raw_V = _fit_all(bt, "half", None, cluster, G, y, w, c=c0)
        raw_rating = ELO_MEAN + ELO_SCALE * raw_fit.theta
        raw_sd = _maxt.stepdown(raw_fit.theta, raw_V[:M, :M], n_draws=n_resamples,
                                rng=np.random.default_rng(seed_streams[0]))
        rsep = raw_sd["p_adjusted"] < alpha
        rb = np.zeros((M, M), dtype=bool)
        rfl = raw_sd["diff"] < 0
        rb[np.where(rfl, K, J)[rsep], np.where(rfl, J, K)[rsep]] = True
        raw_rank, _ = _display_ranks(rb, raw_rating)
        style_res = StyleControl(features=feats, gamma=g, se=gse, ci_low=g - z * gse, ci_high=g + z * gse,
                                 p_value=2 * special.ndtr(-np.abs(g) / gse), rating_raw=raw_rating,
                                 rank_raw=raw_rank)
    ties_check = None
    if f is None and bt.discrete and float(c.ties.sum()) > 0 and float((c.wins + c.losses).sum()) > 0:
        other = "davidson" if ties == "half" else "half"
        try:
            of, _, _ = _fit_all(bt, other, None, None, G, y, w, want_cov=False, c=c0)
            top = [models[k] for k in np.argsort(-theta, kind="stable")[:3]]
            otop = [models[k] for k in np.argsort(-of.theta, kind="stable")[:3]]
            ties_check = {"convention": other, "top": otop, "differs": top != otop,
                          "nu": float(np.exp(of.extra[0])) if other == "davidson" else None}
        except Exception:  # the other convention cannot be fitted (e.g. too few ties): no check
            ties_check = None
    order = np.argsort(rank)
    top = int(order[0])
    runner = int(order[1])
    pi = np.flatnonzero(((pa == top) & (pb == runner)) | ((pa == runner) & (pb == top)))[0]
    sign = 1.0 if pa[pi] == top else -1.0
    could = [models[k] for k in order if rank_low[k] == 1]
    ov_could = [models[k] for k in np.argsort(-rating, kind="stable") if ov_low[k] == 1]
    headline = {
        "top": models[top], "runner_up": models[runner], "separable": bool(separated[pi]),
        "diff": float(sign * adif[pi]), "ci_low": float(sign * adif[pi] - z * dse[pi]),
        "ci_high": float(sign * adif[pi] + z * dse[pi]), "p_value": float(pval[pi]), "p_adjusted": float(padj[pi]),
        "rank_low": int(rank_low[top]), "rank_high": int(rank_high[top]), "could_be_first": could,
        "overlap_could_be_first": ov_could,
    }
    settings = {
        "ties": ties, "cluster_by": bt.cluster_col, "n_clusters": int(G), "n_battles": int(len(a)),
        "total_weight": float(w.sum()), "weighted": bool((w != 1).any()), "method": method,
        "n_resamples": int(n_resamples), "failed_resamples": n_failed,
        "critical_value": float(np.quantile(sd["max_abs"], level)),
        "scale": "Elo: 400 / ln 10 points per unit of log-strength", "anchor": "mean rating of the models = 1000",
        "iterations": int(fit.iterations), "gradient": float(fit.gradient),
        "davidson_nu": float(np.exp(fit.extra[0])) if ties == "davidson" else None,
        "style_features": list(feats), "style_normalisation": NORMALISATION if feats else None,
        "ties_check": ties_check, "n_models": M,
    }
    if n_vs is not None:
        settings.update(baseline_battles=int(n_vs.sum()), baseline_star=bool(n_vs.sum() == len(a)))
    if progress is not None and method != "bootstrap":
        progress(1, 1)
    cov = ELO_SCALE ** 2 * V
    return ArenaResult(
        models=models, rating=rating, se=se, ci_low=ci_low, ci_high=ci_high, rank=rank, rank_low=rank_low,
        rank_high=rank_high, tier=tier, overlap_rank_low=ov_low, overlap_rank_high=ov_high,
        n_battles=n_battles.astype(np.int64), win_rate=wr, win_rate_ci_low=wr_lo, win_rate_ci_high=wr_hi,
        n_vs_baseline=n_vs,
        pair_a=pa, pair_b=pb, diff=adif, diff_ci_low=adif - z * dse, diff_ci_high=adif + z * dse, p_value=pval,
        p_adjusted=padj, separated=separated, better=better, covariance=cov, confidence_level=level,
        baseline=baseline, style=style_res, settings=settings, headline=headline,
        notes=tuple(n for n in bt.notes if feats or n.code != "battles_style_missing"),
    )
