"""``rt.arena``: Bradley-Terry ratings of a preference leaderboard, honest intervals and simultaneous rank sets.

Method (docs/arena.md has the sources and the comparison with LMArena and Arena-Hard):

1. the battles are aggregated to one row per pair of models that met (weighted sums of outcomes), and the
   Bradley-Terry log-likelihood (a tie counts as half a win; or Davidson's tie model) is maximised by Newton's
   method on those sufficient statistics until the gradient of the mean log-likelihood is below 1e-12;
2. the covariance of the strengths is the cluster-robust sandwich ``H^-1 (sum_c S_c S_c') H^-1`` (clusters =
   prompts by default when the battles have them; else each battle is its own cluster) with a CR2-type
   small-cluster correction (each battle's score divided by ``sqrt(1 - leverage)`` of its cluster) and a t
   reference per contrast whose degrees of freedom follow the effective number of clusters of its two models;
   or, with ``method="bootstrap"``, the cluster bootstrap of the whole fit;
3. every pair is tested by a stepdown max-|t| over all ``M (M - 1) / 2`` contrasts (Romano & Wolf 2005, in
   the form of Mogstad, Romano, Shaikh & Wilhelm 2024), with ``n_resamples`` draws from ``N(0, V)`` (or the
   bootstrap draws), each |t| entering as its normal equivalent under its t reference: ``better[j, k]`` is
   its "j above k" claim, and the rank sets, tiers, "could be #1" and the headline all read that one relation.

The steps: ``_read`` -> ``_canonical_battles`` -> ``_refuse_degenerate`` -> ``_fit_all`` (fit and covariance)
-> ``_bootstrap`` (optional) -> ``_claims`` (stepdown) -> the result.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np
from scipy import special

from .. import _random, _validate
from .._kernel import normal_quantile, t_quantile
from .._validate import Progress, SeedLike
from ..errors import DataError, SolverError
from ..ranking import RankSets, Tiers, pair_index, rank_bounds, stepdown, t_tail, tiers_of
from ..results import Note
from ..stats import PairTable, ScoreIntervals
from . import _fit
from ._ppi import match_gold, ppi_bradley_terry
from ._input import Battles, battles_arrays
from ._result import NORMALISATION, ArenaRatings, ArenaResult, StyleControl

__all__ = ["arena", "ELO_SCALE", "ELO_MEAN", "TIES"]

#: Elo points per unit of natural-log strength: 400 / ln 10 (a 400-point gap is 10:1 odds)
ELO_SCALE = 400.0 / np.log(10.0)
#: the ratings' anchor: the mean rating of the models on the board
ELO_MEAN = 1000.0
TIES = ("half", "davidson")
#: how the pair table's ``p_adjusted`` and the rank sets are made: one stepdown max-|t| over all pairs
STEPDOWN = "maxt-stepdown"
METHODS = ("sandwich", "bootstrap")
CORRECTIONS = ("cr2", "cr1", "none")
#: below this many clusters the clustered sandwich is warned about (SmallSampleWarning)
_FEW_CLUSTERS = 20
#: a model whose effective number of clusters (or battles) is below this gets a note: its interval is approximate
_FEW_MODEL_CLUSTERS = 10


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

    is_path = isinstance(battles, (str, os.PathLike)) or (
        isinstance(battles, (list, tuple)) and battles and all(isinstance(p, (str, os.PathLike)) for p in battles))
    asked = reader["format"] != "auto" or reader["weight_strong"] is not False or reader["prompt"] is not None
    if not (is_path or asked):   # a DataFrame: read_battles' own notes, when it made it, reach the result too
        bt = replace(battles_arrays(battles, cluster_by=cluster_by), notes=reader_notes(battles))
        names = _prompt_names(battles) if hasattr(battles, "attrs") else []
        if bt.cluster_col == "cluster" and len(names) == 1:   # read_battles' table: the source's own name
            bt = replace(bt, cluster_col=names[0])
        if bt.cluster is None:
            dup = _noted_duplicates(battles)
            if dup is None and hasattr(battles, "duplicated"):
                try:
                    dup = int(battles.duplicated().sum())
                except TypeError:    # a column of dicts or lists (conv_metadata): rows cannot be compared
                    dup = None
            bt = replace(bt, duplicates=dup)
        return bt
    from ..data.battles import read_battle_table  # the data layer reads files (and codes the names once)

    own = cluster_by is not None and cluster_by != "auto" and cluster_by not in _CANONICAL
    if own:
        p = reader["prompt"]
        if p is not None and p != cluster_by:
            raise DataError(f"`cluster_by`={cluster_by!r} and `prompt`={p!r}: the clusters are the prompt ids "
                            f"(`prompt`), so name one column: `cluster_by`={p!r}, or drop `prompt`",
                            param="cluster_by")
        reader = {**reader, "prompt": cluster_by}
    try:
        # its notes (what it left out or changed) reach the result; text=False: the rating reads the codes, not the
        # label columns (one file's names as read, not made text per row)
        read = read_battle_table(battles, **reader, text=False)
    except DataError as e:
        if own and e.code == "no_prompt_column":
            cols = ", ".join(map(repr, e.data["columns"][:12]))
            raise DataError(f"`cluster_by`={cluster_by!r}: the battles have no such column (columns: {cols}); name "
                            "one of them, or give `cluster_by`='none' for per-battle intervals",
                            param="cluster_by", code="no_prompt_column",
                            data={**e.data, "column": cluster_by}) from None
        raise
    df = read.table
    names = _prompt_names(df)
    if own and cluster_by not in names:
        where = f"their prompt ids are {', '.join(names)}" if names else "they have no prompt ids"
        raise DataError(f"`cluster_by`={cluster_by!r}: the battles have no such column ({where}); name it, or "
                        "give `cluster_by`='none' for per-battle intervals", param="cluster_by")
    bt = replace(battles_arrays(df, cluster_by="cluster" if own else cluster_by, coded=read.codes), notes=reader_notes(df),
                 duplicates=_noted_duplicates(df))
    if bt.cluster_col == "cluster":
        label = cluster_by if own else (names[0] if len(names) == 1 else None)
        if label is not None:
            bt = replace(bt, cluster_col=label)
    return bt


def _noted_duplicates(df: Any) -> int | None:
    """The reader's count of rows identical to an earlier row (its ``duplicate_rows`` notes, summed), or None."""
    got = [int(n["rows"]) for n in getattr(df, "attrs", {}).get("notes", ())
           if isinstance(n, dict) and n.get("code") == "duplicate_rows"]
    return sum(got) if got else None


def _components(a: np.ndarray, b: np.ndarray, M: int) -> tuple[int, np.ndarray]:
    """(number of connected components, each model's component) of the graph with edges ``a[i] - b[i]``, the
    components numbered in the order of their lowest model (as scipy's ``connected_components`` numbers them):
    each model takes the lowest label among its neighbours', with pointer jumping, until nothing changes (no
    scipy.sparse.csgraph import, a quarter second of every command)."""
    lab = np.arange(M)
    while True:
        new = lab.copy()
        np.minimum.at(new, a, lab[b])
        np.minimum.at(new, b, lab[a])
        while True:                      # pointer jumping: a label's own label, down to a fixed point
            nxt = new[new]
            if np.array_equal(nxt, new):
                break
            new = nxt
        if np.array_equal(new, lab):
            break
        lab = new
    roots, comp = np.unique(lab, return_inverse=True)
    return len(roots), comp


def _connected(a: np.ndarray, b: np.ndarray, M: int, models: Sequence[str]) -> None:
    """``a``, ``b``: the pairs that met (the cells)."""
    k, lab = _components(a, b, M)
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


@dataclass(frozen=True)
class _Cov:
    """The covariance step: the fit, its sandwich over all parameters, and what each model's strength rests on."""

    fit: _fit.Fit
    V: np.ndarray                 # (P, P) sandwich over all parameters
    expo: _fit.Exposure
    df: np.ndarray                # per model: degrees of freedom of its t reference (inf: normal)


def _fit_all(bt: Battles, ties: str, f: np.ndarray | None, cluster: np.ndarray | None, n_clusters: int,
             y: np.ndarray, w: np.ndarray, theta0: np.ndarray | None = None, want_cov: bool = True,
             c: _fit.Cells | None = None, correction: str = "cr2"):
    """The fit (and its sandwich covariance over all parameters) on canonical battles (``c``: their cells).

    ``correction``: ``"cr2"`` divides each battle's score by ``sqrt(1 - l)`` (``l``: its cluster's leverage on
    the more exposed of its two models; :func:`_fit.exposure`) and gives each model a t reference with its
    effective number of clusters minus 1; ``"cr1"`` multiplies the meat by ``G / (G - 1)``; ``"none"``: CR0."""
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
    Ht = fit.H.copy()
    Ht[:M, :M] += 1.0 / M
    # a model's exposure to one cluster: its information there times the larger of its variance in the centred
    # fit (H^+; J/M adds 1/M on the all-ones direction, removed) and 1 / its own information (the centring
    # shrinks the first by about (1 - 1/M)^2 for a model that few battles reach)
    hdiag = np.maximum(np.diag(np.linalg.inv(Ht))[:M] - 1.0 / M, 1.0 / np.maximum(np.diag(fit.H)[:M], 1e-300))
    q = _fit.info_weights(th, a, b, w, extra=fit.extra if f is not None else None, f=f,
                          davidson_phi=float(fit.extra[0]) if ties == "davidson" and f is None else None)
    expo = _fit.exposure(a, b, q, cluster, n_clusters, hdiag)
    s = expo.scale if correction == "cr2" else None
    units = cluster if cluster is not None else np.arange(len(a))
    n_units = n_clusters if cluster is not None else len(a)
    if f is not None:
        p = special.expit(th[a] - th[b] + f @ fit.extra)
        r = w * (y - p) * (1.0 if s is None else s)
        meat = _fit.meat_clusters(a, b, r, units, n_units, M, r[:, None] * f, pairs=expo.pairs)
    elif ties == "davidson":
        st, sphi = _fit.davidson_scores(th, float(fit.extra[0]), a, b, y)
        k = w if s is None else w * s
        meat = _fit.meat_clusters(a, b, k * st, units, n_units, M, (k * sphi)[:, None], pairs=expo.pairs)
    elif cluster is None and s is None:
        meat = _fit.meat_cells(th, c)
    else:
        p = special.expit(th[c.A] - th[c.B])[c.index]
        meat = _fit.meat_clusters(a, b, w * (y - p) * (1.0 if s is None else s), units, n_units, M,
                                  pairs=expo.pairs)
    G = n_units
    if correction == "cr1":
        meat = meat * (G / (G - 1.0) if G > 1 else 1.0)
    V = _fit.sandwich(fit.H, meat, M)
    if correction == "cr2":
        df = np.where(expo.clusters >= 2, np.maximum(expo.effective - 1.0, 1.0), 0.0)
    else:
        df = np.full(M, np.inf)
    return fit, c, _Cov(fit, V, expo, df)


# ------------------------------------------------------------------------------------------------- steps
def _options(ties: str, method: str, confidence_level: float, n_resamples: int, progress: Progress,
             cluster_by: Any, cluster_correction: str) -> dict[str, Any]:
    ties = _validate.choice(ties, "ties", TIES)
    method = _validate.choice(method, "method", METHODS)
    level = _validate.confidence_level(confidence_level)
    n_resamples = _validate.count(n_resamples, "n_resamples", minimum=10)
    progress = _validate.progress(progress)
    correction = _validate.choice(cluster_correction, "cluster_correction", CORRECTIONS)
    if cluster_by is not None and not isinstance(cluster_by, str):
        raise TypeError(f"`cluster_by` must be a column name, 'auto' or None, got {cluster_by!r}")
    if isinstance(cluster_by, str) and cluster_by.lower() == "none":
        cluster_by = None
    return {"ties": ties, "method": method, "level": level, "n_resamples": n_resamples, "progress": progress,
            "correction": correction, "cluster_by": cluster_by}


def _canonical_battles(bt: Battles, style: Any, ties: str, baseline: str | None
                       ) -> tuple[Battles, np.ndarray | None, tuple[str, ...]]:
    """The battles written with the lower model code first (a new record), the style features (or None) and
    their names; every refusal about the models, the style and the tie model."""
    models = bt.models
    if len(models) < 2:
        raise DataError(f"the battles name one model ({models[0]!r}): there is nothing to rank", param="battles")
    if baseline is not None and baseline not in models:
        import difflib

        close = difflib.get_close_matches(str(baseline), models, n=3)
        raise DataError(f"`baseline`={baseline!r} is not a model of the battles"
                        + (f" (did you mean {', '.join(map(repr, close))}?)" if close else ""), param="baseline")
    feats: tuple[str, ...] = ()
    sa, sb = bt.style_a, bt.style_b
    if style is not False:
        if sa is None or sb is None:
            raise DataError("style control needs style counts: columns style_a_<feature> and style_b_<feature>",
                            param="style")
        if style is True:
            feats = bt.features
        else:
            want = tuple(style)
            unknown = [x for x in want if x not in bt.features]
            if unknown or not want:
                raise DataError(f"`style`={list(want)!r}: the battles have the style features "
                                f"{', '.join(map(repr, bt.features))}", param="style")
            keep = [bt.features.index(x) for x in want]
            sa, sb, feats = sa[:, keep], sb[:, keep], want
        if ties == "davidson":
            raise DataError("`ties`='davidson' with style control is not available; use `ties`='half'",
                            param="ties")
    if ties == "davidson" and not bt.discrete:
        raise DataError("`ties`='davidson' needs win / tie / loss outcomes (scores 1, 0.5, 0); these battles have "
                        "probabilities: use `ties`='half'", param="ties")
    a, b, y, _, sw = _fit.canonical(bt.a, bt.b, bt.y)
    f = None
    if feats:
        assert sa is not None and sb is not None
        sa, sb = np.where(sw[:, None], sb, sa), np.where(sw[:, None], sa, sb)
        out = replace(bt, a=a, b=b, y=y, style_a=sa, style_b=sb, features=feats)
        f = _style_features(out)
    else:
        out = replace(bt, a=a, b=b, y=y)
    return out, f, feats


def _refuse_degenerate(bt: Battles, c: _fit.Cells, *, auto: bool = False) -> None:
    """Boards whose ratings or uncertainty cannot be estimated: split graphs, a model that won or lost
    everything, every battle a tie, one cluster; and the warning of few clusters (``auto``: the prompt-id
    column was found, not named, so the warning names the column, not an option the user did not give)."""
    _connected(c.A, c.B, len(bt.models), bt.models)
    _separation(c, bt.models)
    if bool(np.all(bt.y == 0.5)):
        raise DataError(f"every one of the {len(bt.y)} battles is a tie: the ratings are all equal and ties alone "
                        "say nothing about how uncertain that is (the interval would have zero width); add "
                        "decided battles", param="battles")
    if bt.cluster is not None and bt.n_clusters < 2:
        raise DataError(f"`cluster_by`={bt.cluster_col!r}: every battle is in one cluster, so the clustered variance "
                        "is zero; cluster by a column with many values, or give `cluster_by`=None",
                        param="cluster_by")
    if bt.cluster is not None and bt.n_clusters < _FEW_CLUSTERS:
        import warnings

        from ..errors import SmallSampleWarning

        where = (f"the prompt-id column {bt.cluster_col!r} (found by `cluster_by`='auto')" if auto
                 else f"`cluster_by`={bt.cluster_col!r}")
        warnings.warn(SmallSampleWarning(
            f"only {bt.n_clusters} clusters in {where}: the clustered intervals "
            f"and rank sets are approximate below {_FEW_CLUSTERS} clusters (the small-cluster correction "
            "and its t reference make them conservative in the cases tested; `method`='bootstrap' is a "
            "check)", data={"n_clusters": int(bt.n_clusters), "column": bt.cluster_col, "auto": bool(auto)}),
            stacklevel=3)


def _bootstrap(bt: Battles, ties: str, f: np.ndarray | None, theta: np.ndarray, n_resamples: int,
               gen: np.random.Generator, progress: Progress) -> tuple[np.ndarray, int]:
    """Cluster-bootstrap refits: centred draws of the strengths and the number of refits that failed (a
    resample where a model won or lost everything has no finite rating)."""
    from ..resample import weights as boot_weights

    M = len(bt.models)
    a, b, y, w = bt.a, bt.b, bt.y, bt.w
    units = bt.cluster if bt.cluster is not None else np.arange(len(a))
    G = bt.n_clusters if bt.cluster is not None else len(a)
    thetas = np.empty((n_resamples, M))
    for i in range(n_resamples):
        cw = boot_weights(G, n_resamples=1, rng=gen)[0]
        wb = w * cw[units]
        keep = wb > 0
        sub = Battles(bt.models, a[keep], b[keep], y[keep], wb[keep], None, 0, None, None, None, (), bt.discrete)
        try:
            bf, _, _ = _fit_all(sub, ties, None if f is None else f[keep], None, 0, y[keep], wb[keep],
                                theta0=theta, want_cov=False)
            thetas[i] = bf.theta
        except (SolverError, np.linalg.LinAlgError):   # a model won or lost everything: unbounded strength
            thetas[i] = np.nan
        if progress is not None:
            progress(i + 1, n_resamples)
    ok = np.isfinite(thetas).all(axis=1)
    return thetas[ok] - theta, int((~ok).sum())


@dataclass(frozen=True)
class _Claims:
    """The stepdown and the intervals it goes with, on the log-strength scale."""

    J: np.ndarray
    K: np.ndarray
    diff: np.ndarray
    se: np.ndarray
    df: np.ndarray            # per pair
    q: np.ndarray             # per pair: the t quantile of its marginal interval
    p_value: np.ndarray
    p_adjusted: np.ndarray
    valid: np.ndarray
    critical: float
    floor: float | None
    n_draws: int


def _claims(theta: np.ndarray, V: np.ndarray, df_model: np.ndarray, valid_model: np.ndarray, level: float,
            n_draws: int, gen: np.random.Generator, draws: np.ndarray | None) -> _Claims:
    """Every pair's marginal t test and interval, and the stepdown max-|t| over all pairs (each |t| as its
    normal equivalent when its t reference has finite df). ``p_adjusted >= p_value`` always."""
    J, K = pair_index(len(theta))
    d = np.diag(V)
    dfp = _fit.welch_df(d[J], d[K], df_model[J], df_model[K])
    valid = valid_model[J] & valid_model[K]
    finite = np.isfinite(dfp)
    sd = stepdown(theta, V, n_draws=n_draws if draws is None else len(draws), rng=gen, draws=draws,
                        df=dfp if finite.any() else None, valid=valid)
    diff, se = sd["diff"], sd["se"]
    with np.errstate(divide="ignore", invalid="ignore"):
        traw = np.where(se > 0, diff / se, np.where(diff == 0, 0.0, np.inf))
    pval = np.where(valid, np.minimum(2 * np.exp(t_tail(traw, dfp)), 1.0), np.nan)
    padj = np.where(valid, np.fmax(np.asarray(sd["p_adjusted"]), pval), np.nan)
    q = np.asarray(t_quantile(level, dfp), dtype=float)
    if len(J) == 1:
        crit = float(q[0])
    else:
        crit = float(np.quantile(sd["max_abs"], level))
    return _Claims(J, K, diff, se, dfp, q, pval, padj, valid, crit, sd["floor"],
                   0 if len(J) == 1 else (n_draws if draws is None else len(draws)))


#: the smallest degrees of freedom of a win rate's rare-outcome t reference (coverage measured unchanged from 1 to
#: 3 at true win rates 0.977-0.998, with widths that stay near those of the data; bench/bench_arena_edges.py)
_WIN_RATE_MIN_DF = 3.0


def _rare_outcome_df(wr: np.ndarray, a: np.ndarray, b: np.ndarray, w: np.ndarray, k0: int) -> np.ndarray:
    """Per model, the Satterthwaite degrees of freedom of the variance of its win rate against ``k0`` when its
    battles with ``k0`` are Bernoulli-like at ``wr``: ``2 n p q / (1 - 4 p q)`` (``n`` = Kish's effective
    number of those battles, ``(sum w)^2 / sum w^2``). Near 0 or 1 the variance rests on a few rare outcomes
    (heavy-tailed: Bernoulli kurtosis ``(1 - 6pq) / pq + 3``), and so has few degrees of freedom; inf for
    models without battles against ``k0``."""
    M = len(wr)
    vs = (a == k0) | (b == k0)
    other = np.where(a == k0, b, a)[vs]
    s1 = np.bincount(other, w[vs], M)
    s2 = np.bincount(other, w[vs] ** 2, M)
    pq = wr * (1 - wr)
    with np.errstate(divide="ignore", invalid="ignore"):
        n = np.where(s2 > 0, s1 * s1 / s2, 0.0)
        df = np.where(n > 0, 2 * n * pq / np.maximum(1 - 4 * pq, 1e-12), np.inf)
    return np.maximum(df, _WIN_RATE_MIN_DF)


def _win_rates(bt: Battles, theta: np.ndarray, V: np.ndarray, df_model: np.ndarray, valid_model: np.ndarray,
               k0: int, level: float, rare_df: np.ndarray | None = None) -> ScoreIntervals:
    """Win rate against model ``k0``: ``expit(theta_m - theta_k0)`` with the interval of the log-odds
    difference, mapped through ``expit``: inside (0, 1) and asymmetric near its ends. Its t reference has the
    smaller of the contrast's degrees of freedom and ``rare_df`` (:func:`_rare_outcome_df`). ``se``: the delta
    method's; ``n_items``: each model's battles against ``k0`` (all of them in a star design)."""
    M = len(theta)
    a, b = bt.a, bt.b
    d = theta - theta[k0]
    vd = np.maximum(np.diag(V) + V[k0, k0] - 2 * V[:, k0], 0.0)
    dfp = _fit.welch_df(np.diag(V), np.full(len(d), V[k0, k0]), df_model, np.full(len(d), df_model[k0]))
    if rare_df is not None:
        dfp = np.minimum(dfp, rare_df)
    q = np.asarray(t_quantile(level, dfp), dtype=float)
    h = q * np.sqrt(vd)
    ok = valid_model & valid_model[k0]
    lo = np.where(ok, special.expit(d - h), np.nan)
    hi = np.where(ok, special.expit(d + h), np.nan)
    lo[k0] = hi[k0] = 0.5
    wr = special.expit(d)
    n_vs = np.bincount(np.where(a == k0, b, a)[(a == k0) | (b == k0)], minlength=M).astype(np.int64)
    n_vs[k0] = 0
    se = np.where(ok, wr * (1 - wr) * np.sqrt(vd), np.nan)
    return ScoreIntervals(models=bt.models, n_items=n_vs, score=wr, se=se,
                          ci_low=lo, ci_high=hi, method="bradley-terry", confidence_level=level,
                          clustered=bt.cluster is not None, df=dfp if np.isfinite(dfp).any() else None)


def _few_cluster_notes(bt: Battles, cov: _Cov, valid_model: np.ndarray, correction: str) -> list[Note]:
    """Models whose interval rests on few clusters (or battles), and models whose variance is not estimable."""
    out: list[Note] = []
    models = bt.models
    unit = "prompts" if bt.cluster is not None else "battles"
    bad = np.flatnonzero(~valid_model)
    if len(bad):
        out.append(Note("arena_not_estimable", {
            "models": [models[k] for k in bad], "clusters": [int(cov.expo.clusters[k]) for k in bad], "unit": unit,
            "column": bt.cluster_col}))
    few = np.flatnonzero(valid_model & (cov.expo.effective < _FEW_MODEL_CLUSTERS))
    if len(few):
        out.append(Note("arena_few_clusters_model", {
            "models": [models[k] for k in few], "clusters": [int(cov.expo.clusters[k]) for k in few],
            "effective": [float(cov.expo.effective[k]) for k in few],
            "df": [float(cov.df[k]) for k in few] if correction == "cr2" else None, "unit": unit,
            "column": bt.cluster_col, "correction": correction}))
    return out


def _per_battle_note(bt: Battles, asked_none: bool) -> Note | None:
    """No clustering: every battle is taken as independent; say it, with the count of rows that repeat another
    row exactly (judge replicates or copies, which per-battle intervals count as new information)."""
    if bt.cluster is not None:
        return None
    return Note("arena_per_battle", {"asked": asked_none, "duplicates": bt.duplicates, "battles": int(len(bt.a))})
def arena(
    battles: Any,
    *,
    baseline: str | None = None,
    ties: str = "half",
    cluster_by: str | None = "auto",
    style: bool | Sequence[str] = False,
    method: str = "sandwich",
    cluster_correction: str = "cr2",
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    rng: SeedLike = 0,
    progress: Progress = None,
    format: str = "auto",
    weight_strong: bool | float = False,
    prompt: str | None = None,
    gold: Any = None,
    battle_id: str | None = None,
) -> ArenaResult:
    """Ratings of a preference leaderboard (battles or judge verdicts) with simultaneous rank sets.

    Parameters
    ----------
    battles : DataFrame or path(s)
        One row per battle (or judged game): ``model_a``, ``model_b``, ``score`` (1 = model_a wins,
        0 = model_b wins, 0.5 = tie; probabilities allowed) or ``winner`` (``model_a``, ``model_b``,
        ``tie``, ``tie (bothbad)``), optional ``weight`` (an analytic weight: Arena-Hard's strong verdict
        is *one* battle of weight 3), optional prompt ids (the first of ``cluster``, ``question_id``,
        ``prompt_id``, ``uid``), ``judge``, and style counts ``style_a_<feature>``/``style_b_<feature>``.
        Paths are read with ``ranktrust.data.battles.read_battles`` and the reader options below (a
        DataFrame too when one of them is given).
    baseline : str, optional
        A model to report every model's win rate against (Arena-Hard, AlpacaEval):
        ``expit(theta_m - theta_baseline)``, its interval that of the log-odds difference mapped through
        ``expit`` (inside (0, 1), asymmetric near its ends); in a star design (every battle against the
        baseline) the estimate is exactly the weighted share of wins (ties half). Otherwise (an Arena-Hard
        v2 folder mixes two baselines) it is the Bradley-Terry estimate from all battles:
        ``settings["baseline_star"]`` says which, and each model row's ``n_vs_baseline`` how many of its
        battles were against the baseline. When reading paths it is also the baseline of Arena-Hard v0.1
        judgments, whose records name none.
    ties : {"half", "davidson"}, default: ``"half"``
        A tie as half a win (FastChat, arena-rank, Arena-Hard), or Davidson's (1970) tie model. When the
        scores are win/tie/loss, the other convention is fitted too and ``settings["ties_check"]`` says
        whether it orders the top three differently.
    cluster_by : str or None, default: ``"auto"``
        The column whose values are clusters for the sandwich (and the bootstrap): ``"auto"`` uses the
        prompt ids (the first of ``cluster``, ``question_id``, ``prompt_id``, ``uid``; the same for a
        DataFrame and a path) when present, else each battle is its own cluster and the result says so in a
        note; None: per battle.
    style : bool or sequence of str, default: ``False``
        Style control: the contextual Bradley-Terry model with the style features (all ``style_a_*``
        columns, or those named), each ``(a - b) / (a + b + 1)`` then scaled to unit root mean square (FastChat's feature,
        convention), fitted without a penalty. The covariance is the joint sandwich, so the ratings'
        intervals and rank sets include the uncertainty of the style coefficients.
    method : {"sandwich", "bootstrap"}, default: ``"sandwich"``
        Where the covariance comes from: the cluster-robust sandwich, or ``n_resamples`` cluster-bootstrap
        refits (whose draws then also give the max-|t| critical values).
    cluster_correction : {"cr2", "cr1", "none"}, default: ``"cr2"``
        The sandwich's small-cluster correction. ``"cr2"``: each battle's score divided by ``sqrt(1 - l)``,
        ``l`` the leverage of its cluster on the more exposed of its two models (a CR2-type bias reduction),
        and a t reference per contrast whose degrees of freedom follow the effective number of clusters its
        two models appear in (Welch-Satterthwaite over the two; each model's: Kish's effective number minus
        1), so a model seen on few prompts gets the wide interval it needs. ``"cr1"``: the meat times
        ``G / (G - 1)`` and the normal reference (the previous default); ``"none"``: neither.
    confidence_level : float, default: ``0.95``
        Of the intervals, and the joint level of the rank sets and pairwise claims.
    n_resamples : int, default: ``2000``
        Draws of the max-|t| statistic (or bootstrap refits with ``method="bootstrap"``); an adjusted
        p-value of no exceedance is reported as below ``1 / (n_resamples + 1)`` (``settings["p_adjusted_floor"]``).
        Two models: no draws (the adjusted p-value is the p-value).
    rng : None, int or numpy.random.Generator, default: ``0``
        Seeds the max-|t| draws and the bootstrap (reproducible unless None).
    progress : callable(done, total), optional
        Called after each bootstrap refit (``method="bootstrap"``); once at the end otherwise.
    format, weight_strong, prompt
        Reader options, passed to ``ranktrust.data.battles.read_battles`` (docs/formats/battles.md):
        the battles format (``"auto"``), the weight of a strong Arena-Hard verdict (``True`` = 3) and
        the column of prompt ids of a battles table.
    gold : DataFrame or path(s), optional
        People's verdicts on a random subset of the battles, when ``battles`` are a judge's verdicts on all of
        them: the ratings are then prediction-powered Bradley-Terry ratings of the people's verdicts (PPI++;
        ``ranktrust.judges.ppi_bradley_terry``), their rank sets from the same stepdown, and the result holds
        the judge-only and gold-only arenas beside them (``judge_only``, ``gold_only``). Per battle (not
        clustered); ``ties`` 'half', no style control, ``method`` 'sandwich' only. See docs/arena.md.
    battle_id : str, optional
        With ``gold``: the column that names a battle in both (default ``num`` where both have it, as in
        Chatzi et al.'s files; else the DataFrames' index). A gold battle must be a judged battle of the same
        two models (written either way round); one that is not, or an id that repeats, is refused naming its
        row.

    Returns
    -------
    ArenaResult

    Raises
    ------
    DataError
        Every battle a tie (the uncertainty is not estimable), a model that won or lost every battle, models
        that never met, one cluster, a per-item score table (not battles).

    Warns
    -----
    SmallSampleWarning
        Fewer than 20 clusters: the clustered intervals are approximate.
    DegenerateDataWarning
        A model whose variance is not estimable (all its battles in one cluster): its interval is NaN and
        none of its pairs is claimed (also a note, in every output).

    Notes
    -----
    Ratings are ``1000 + 400 / ln(10) * theta`` with ``sum(theta) = 0``: the mean rating is 1000, so a
    model's interval is relative to the board's mean; differences do not depend on the anchor.
    """
    o = _options(ties, method, confidence_level, n_resamples, progress, cluster_by, cluster_correction)
    reader = {"format": format, "weight_strong": weight_strong, "prompt": prompt, "baseline": baseline}
    if gold is not None:
        return _arena_gold(battles, gold, battle_id, o, reader, baseline, style, rng)
    if battle_id is not None:
        raise DataError("`battle_id` matches gold battles to judged ones: give `gold` too, or leave it out",
                        param="battle_id")
    ties, level, correction = o["ties"], o["level"], o["correction"]
    n_resamples, progress = o["n_resamples"], o["progress"]
    seed_streams = _random.streams(rng, "maxt", "bootstrap")
    # read -> canonical (a new record; the reader's is not changed)
    bt0 = _read(battles, o["cluster_by"], reader)
    bt, f, feats = _canonical_battles(bt0, style, ties, baseline)
    models, M = bt.models, len(bt.models)
    a, b, y, w = bt.a, bt.b, bt.y, bt.w
    c0 = _fit.cells(a, b, y, w, M)
    _refuse_degenerate(bt, c0, auto=o["cluster_by"] == "auto")
    cluster, G = bt.cluster, bt.n_clusters
    # fit -> covariance
    fit, c, cov = _fit_all(bt, ties, f, cluster, G, y, w, c=c0, correction=correction)
    theta = fit.theta
    draws = None
    n_failed = 0
    if o["method"] == "bootstrap":
        draws, n_failed = _bootstrap(bt, ties, f, theta, n_resamples, np.random.default_rng(seed_streams[1]),
                                     progress)
        V = np.cov(draws, rowvar=False)
        df_model = np.full(M, np.inf)
    else:
        V = cov.V[:M, :M]
        df_model = cov.df
    vdiag = np.diag(V)
    hscale = np.abs(np.diag(np.linalg.pinv(fit.H[:M, :M] + 1.0 / M)) - 1.0 / M)
    valid_model = (vdiag > 1e-10 * hscale) & (df_model > 0)
    notes = list(n for n in bt.notes if feats or n.code != "battles_style_missing")
    if not valid_model.all():
        import warnings

        from ..errors import DegenerateDataWarning

        bad = [models[k] for k in np.flatnonzero(~valid_model)]
        warnings.warn(f"the variance of {', '.join(map(repr, bad[:5]))}{' ...' if len(bad) > 5 else ''} is not "
                      "estimable (every battle of the model in one cluster): its interval is NaN and none of its "
                      "pairs is claimed; add battles on other prompts", DegenerateDataWarning, stacklevel=2)
    # stepdown over all pairs -> the house's result types
    claims = _claims(theta, V, df_model, valid_model, level, n_resamples, np.random.default_rng(seed_streams[0]),
                     draws)
    clustered = cluster is not None
    parts = _ranked(bt, theta, V, df_model, valid_model, level, claims, clustered)
    win_rates = None
    if baseline is not None:
        k0 = models.index(baseline)
        rare = (_rare_outcome_df(special.expit(theta - theta[k0]), a, b, w, k0)
                if correction == "cr2" and o["method"] == "sandwich" else None)
        win_rates = _win_rates(bt, theta, V, df_model, valid_model, k0, level, rare)
    style_res = None
    if f is not None:
        _, _, raw = _fit_all(bt, "half", None, cluster, G, y, w, c=c0, correction=correction)
        raw_claims = _claims(raw.fit.theta, raw.V[:M, :M], raw.df, valid_model, level, n_resamples,
                             np.random.default_rng(seed_streams[0]), None)
        raw_sets = _ranked(bt, raw.fit.theta, raw.V[:M, :M], raw.df, valid_model, level, raw_claims, clustered)
        style_res = _style_control(fit, cov, feats, level, raw_sets[0].score, raw_sets[2].rank)
    settings = _settings(bt, o, fit, df_model, valid_model, claims,
                         n_resamples, n_failed, feats, _ties_check(bt, ties, theta, c, c0) if f is None else None)
    if win_rates is not None:
        n_vs = win_rates.n_items
        settings.update(baseline_battles=int(n_vs.sum()), baseline_star=bool(n_vs.sum() == len(a)))
    if progress is not None and o["method"] != "bootstrap":
        progress(1, 1)
    pb_note = _per_battle_note(bt, asked_none=o["cluster_by"] is None)
    said = correction if o["method"] == "sandwich" else "bootstrap"
    notes += [*(() if pb_note is None else (pb_note,)), *_few_cluster_notes(bt, cov, valid_model, said)]
    ratings, pairs, rank_sets, tiers = parts
    return ArenaResult(ratings=ratings, pairs=pairs, rank_sets=rank_sets, tiers=tiers, win_rates=win_rates,
                       style=style_res, baseline=baseline, settings=settings, notes=tuple(notes))


def _ranked(bt: Battles, theta: np.ndarray, V: np.ndarray, df_model: np.ndarray, valid_model: np.ndarray,
            level: float, cl: _Claims, clustered: bool) -> tuple[ArenaRatings, PairTable, RankSets, Tiers]:
    """The ratings, the pair table, the rank sets and the tiers of one fit (natural-scale ``theta`` and ``V``)
    and its stepdown, on the Elo scale: the score path's result types."""
    models, M = bt.models, len(bt.models)
    rating = ELO_MEAN + ELO_SCALE * theta
    se = np.where(valid_model, ELO_SCALE * np.sqrt(np.maximum(np.diag(V), 0.0)), np.nan)
    qm = np.asarray(t_quantile(level, np.where(valid_model, df_model, 1.0)), dtype=float)
    ci_low, ci_high = rating - qm * se, rating + qm * se
    n_battles = (np.bincount(bt.a, minlength=M) + np.bincount(bt.b, minlength=M)).astype(np.int64)
    finite_df = bool(np.isfinite(df_model).any())
    ratings = ArenaRatings(
        models=models, n_items=n_battles, score=rating, se=se, ci_low=ci_low, ci_high=ci_high,
        method="bradley-terry", confidence_level=level, clustered=clustered,
        n_clusters=int(bt.n_clusters) if clustered else None, df=df_model if finite_df else None,
        covariance=ELO_SCALE ** 2 * V)
    J, K = cl.J, cl.K
    dif = ELO_SCALE * cl.diff
    dse = np.where(cl.valid, ELO_SCALE * cl.se, np.nan)
    flip = dif < 0
    pa, pb = np.where(flip, K, J), np.where(flip, J, K)
    adif = np.abs(dif)
    alpha = round(1.0 - level, 12)     # 0.05, not 0.050000000000000044: a p of 1/20 (19 draws) is not below it
    separated = cl.valid & (np.nan_to_num(cl.p_adjusted, nan=1.0) < alpha) & (adif > 0)
    better = np.zeros((M, M), dtype=bool)
    better[pa[separated], pb[separated]] = True
    met = np.bincount(np.minimum(bt.a, bt.b) * M + np.maximum(bt.a, bt.b), minlength=M * M)
    none = np.full(len(J), -1, dtype=np.int64)
    low, high = rank_bounds(better)
    with np.errstate(invalid="ignore"):   # LMArena's overlap rule on the same marginal intervals
        ov_low = 1 + (ci_low[:, None] > ci_high[None, :]).sum(axis=0)
        ov_high = M - (ci_high[:, None] < ci_low[None, :]).sum(axis=0)
    rank_sets = RankSets(
        models=models, scores=rating, rank=np.zeros(M, dtype=np.int64), rank_low=low, rank_high=high,
        marginal_low=ov_low, marginal_high=ov_high, simultaneous_low=low, simultaneous_high=high,
        confidence_level=level, simultaneous=True, n_resamples=int(cl.n_draws), better=better, dropped={},
        method=STEPDOWN, studentized=True, adjust=STEPDOWN, n_items=int(len(bt.a)))
    rank = np.empty(M, dtype=np.int64)     # the display position: by tier, then rating
    rank[rank_sets.order] = np.arange(1, M + 1)
    rank_sets = replace(rank_sets, rank=rank)
    pairs = PairTable(
        models=models, score=rating, order=rank_sets.order, i=pa, j=pb, n_items=met[J * M + K].astype(np.int64),
        only_a=none, only_b=none, diff=adif, se=dse, ci_low=adif - cl.q * dse, ci_high=adif + cl.q * dse,
        p_value=cl.p_value, p_adjusted=cl.p_adjusted, method="bradley-terry", adjust=STEPDOWN,
        pairs_scope="all", confidence_level=level, clustered=clustered, binary=False,
        ci_method="t" if finite_df else "normal")
    return ratings, pairs, rank_sets, tiers_of(rank_sets)


def _style_control(fit: _fit.Fit, cov: _Cov, feats: tuple[str, ...], level: float, raw_rating: np.ndarray,
                   raw_rank: np.ndarray) -> StyleControl:
    M = len(raw_rating)
    g = fit.extra
    gse = np.sqrt(np.diag(cov.V[M:, M:]))
    z = normal_quantile(level)
    return StyleControl(features=feats, gamma=g, se=gse, ci_low=g - z * gse, ci_high=g + z * gse,
                        p_value=2 * special.ndtr(-np.abs(g) / gse), rating_raw=raw_rating, rank_raw=raw_rank)


def _ties_check(bt: Battles, ties: str, theta: np.ndarray, c: _fit.Cells, c0: _fit.Cells) -> dict | None:
    """With win / tie / loss outcomes: the other tie convention's top three, and whether they differ."""
    if not (bt.discrete and float(c.ties.sum()) > 0 and float((c.wins + c.losses).sum()) > 0):
        return None
    other = "davidson" if ties == "half" else "half"
    try:
        of, _, _ = _fit_all(bt, other, None, None, bt.n_clusters, bt.y, bt.w, want_cov=False, c=c0)
    except SolverError:  # the other convention cannot be fitted (e.g. too few ties): no check
        return None
    models = bt.models
    top3 = [models[k] for k in np.argsort(-theta, kind="stable")[:3]]
    otop = [models[k] for k in np.argsort(-of.theta, kind="stable")[:3]]
    return {"convention": other, "top": otop, "differs": top3 != otop,
            "nu": float(np.exp(of.extra[0])) if other == "davidson" else None}


def _settings(bt: Battles, o: dict[str, Any], fit: _fit.Fit, df_model: np.ndarray,
              valid_model: np.ndarray, cl: _Claims, n_resamples: int, n_failed: int, feats: tuple[str, ...],
              ties_check: dict | None) -> dict[str, Any]:
    ties = o["ties"]
    return {
        "ties": ties, "cluster_by": bt.cluster_col, "n_clusters": int(bt.n_clusters), "n_battles": int(len(bt.a)),
        "total_weight": float(bt.w.sum()), "weighted": bool((bt.w != 1).any()), "method": o["method"],
        "cluster_correction": o["correction"],
        "n_resamples": int(n_resamples), "failed_resamples": n_failed,
        "critical_value": cl.critical, "p_adjusted_floor": cl.floor,
        "min_df": float(np.min(df_model[valid_model])) if valid_model.any() and np.isfinite(df_model).any() else None,
        "scale": "Elo: 400 / ln 10 points per unit of log-strength", "anchor": "mean rating of the models = 1000",
        "iterations": int(fit.iterations), "gradient": float(fit.gradient),
        "davidson_nu": float(np.exp(fit.extra[0])) if ties == "davidson" else None,
        "style_features": list(feats), "style_normalisation": NORMALISATION if feats else None,
        "ties_check": ties_check, "n_models": len(bt.models),
    }


# ------------------------------------------------------------------------------------------ gold battles
def _with_ids(src: Any, battle_id: str | None, reader: dict[str, Any], what: str) -> tuple[Any, np.ndarray, str]:
    """A battles table and each row's battle id, and what the ids are called: a DataFrame's ``battle_id``
    column, else its ``num``, else its index; a path's ``battle_id`` column (default ``num``), read by the
    battles reader in the place of the prompt ids (its rows travel with their ids through what it leaves
    out)."""
    if hasattr(src, "columns"):
        cols = [str(c) for c in src.columns]
        col = battle_id if battle_id is not None else ("num" if "num" in cols else None)
        if col is None:
            return src, np.asarray(src.index, dtype=object), "index"
        if col not in cols:
            raise DataError(f"`{what}` has no battle-id column {col!r} (columns: {', '.join(map(repr, cols[:12]))})",
                            param="battle_id")
        return src, np.asarray(src[col], dtype=object), col
    from ..data.battles import read_battles

    col = battle_id or "num"
    try:
        df = read_battles(src, **{**reader, "prompt": col})
    except DataError as e:
        if e.code != "no_prompt_column":
            raise
        raise DataError(f"{e.data['source']}: no battle-id column {col!r} (columns: "
                        f"{', '.join(map(repr, e.data['columns'][:12]))}); name it with `battle_id`",
                        param="battle_id") from None
    if "cluster" not in df.columns:
        raise DataError(f"`{what}`: its format carries no battle ids; give a battles table with a {col!r} column",
                        param="battle_id")
    return df.drop(columns="cluster"), np.asarray(df["cluster"], dtype=object), col


def _arena_gold(battles: Any, gold: Any, battle_id: str | None, o: dict[str, Any], reader: dict[str, Any],
                baseline: str | None, style: Any, rng: SeedLike) -> ArenaResult:
    """``rt.arena(judged, gold=human)``: prediction-powered Bradley-Terry ratings (the judge's verdicts on every
    battle, corrected by the people's on the gold subset), the same stepdown and parts as every arena, and the
    judge-only and gold-only arenas beside them."""
    if style is not False or o["method"] != "sandwich" or o["ties"] != "half":
        raise DataError("with `gold`, the ratings are prediction-powered Bradley-Terry with ties as half a win: "
                        "`style`, `method`='bootstrap' and `ties`='davidson' are not available", param="gold")
    level, n_resamples = o["level"], o["n_resamples"]
    judged, ids, label = _with_ids(battles, battle_id, reader, "battles")
    human, gids, _ = _with_ids(gold, battle_id if battle_id is not None else (label if label != "index" else None),
                               reader, "gold")
    bt = battles_arrays(judged, cluster_by=None)
    gt = battles_arrays(human, cluster_by=None)
    if (bt.w != 1).any() or (gt.w != 1).any():
        raise DataError("with `gold`, every battle counts once: the battles have weights; leave `weight` out",
                        param="gold")
    names, gnames = np.asarray(bt.models, dtype=object), np.asarray(gt.models, dtype=object)
    where, swapped = match_gold(ids, names[bt.a], names[bt.b], gids, gnames[gt.a], gnames[gt.b], label)
    canon, _, _ = _canonical_battles(bt, False, "half", baseline)
    M = len(bt.models)
    _connected(canon.a, canon.b, M, bt.models)
    # the gold verdict for model a of the judged row: flipped where the gold row names the two models the other
    # way round, and again where the canonical form swapped the judged row's sides
    gy = np.where(swapped, 1.0 - gt.y, gt.y)
    y = np.zeros(len(bt.a))
    y[where] = np.where(canon.a[where] != bt.a[where], 1.0 - gy, gy)
    bt = canon
    labelled = np.zeros(len(bt.a), dtype=bool)
    labelled[where] = True
    theta, V, lam = ppi_bradley_terry(bt.a, bt.b, bt.y, y, labelled, M)
    df_model = np.full(M, np.inf)
    valid = np.diag(V) > 0
    seed_streams = _random.streams(rng, "maxt", "bootstrap")
    claims = _claims(theta, V, df_model, valid, level, n_resamples, np.random.default_rng(seed_streams[0]), None)
    ratings, pairs, rank_sets, tiers = _ranked(bt, theta, V, df_model, valid, level, claims, clustered=False)
    win_rates = None
    if baseline is not None:
        win_rates = _win_rates(bt, theta, V, df_model, valid, bt.models.index(baseline), level)
    sub = {k: v for k, v in reader.items() if k != "baseline"}
    same = {"baseline": baseline, "cluster_by": o["cluster_by"], "cluster_correction": o["correction"],
            "confidence_level": level, "n_resamples": n_resamples, "rng": rng, **sub}
    judge_only = arena(battles, **same)
    try:
        gold_only = arena(gold, **same)
    except (DataError, SolverError) as e:   # a few gold battles need not rate every model (one won them all)
        gold_only, gold_only_error = None, e.code
    else:
        gold_only_error = None
    settings = {
        "ties": "half", "cluster_by": None, "n_clusters": int(len(bt.a)), "n_battles": int(len(bt.a)),
        "total_weight": float(len(bt.a)), "weighted": False, "method": "ppi", "cluster_correction": None,
        "n_resamples": int(n_resamples), "failed_resamples": 0, "critical_value": claims.critical,
        "p_adjusted_floor": claims.floor, "min_df": None,
        "scale": "Elo: 400 / ln 10 points per unit of log-strength", "anchor": "mean rating of the models = 1000",
        "iterations": None, "gradient": None, "davidson_nu": None, "style_features": [], "style_normalisation": None,
        "ties_check": None, "n_models": M,
        "gold": {"n_gold": int(len(where)), "lam": float(lam), "battle_id": label, "swapped": int(swapped.sum()),
                 "gold_only_error": gold_only_error},
    }
    if win_rates is not None:
        n_vs = win_rates.n_items
        settings.update(baseline_battles=int(n_vs.sum()), baseline_star=bool(n_vs.sum() == len(bt.a)))
    return ArenaResult(ratings=ratings, pairs=pairs, rank_sets=rank_sets, tiers=tiers, win_rates=win_rates,
                       style=None, baseline=baseline, settings=settings, notes=(), judge_only=judge_only,
                       gold_only=gold_only)
