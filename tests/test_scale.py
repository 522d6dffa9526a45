"""Issue 14 (leaderboard scale): the faster engine, the blocked all-pairs and the sidecar
change no number. Reference values: tests/data/scale_golden.npz, made with the engine
before the rewrite (tests/reference/scale_golden.py)."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from ranktrust.data._matrix import ScoreMatrix
from ranktrust.ranking._stability import stability
from ranktrust.resample._engine import rank_order
from ranktrust.stats._blocked import all_pairs_blocked, read_parquet_matrix, write_parquet
from ranktrust.stats._paired import all_pairs

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "reference"))
import scale_golden  # noqa: E402
from conftest import assert_floats_close  # noqa: E402

FIELDS = ("i", "j", "n_items", "only_a", "only_b", "diff", "se", "ci_low", "ci_high", "p_value", "p_adjusted",
          "score", "order")


# keys of the golden file that are integers or shares of resamples (a count over the number of resamples):
# compared exactly; every other key is a float sum whose last bits depend on the CPU's kernels (conftest)
_EXACT_KEYS = ("rank_order", "p_first", "p_topk_order", "rank_distribution", "p_same_winner", "p_wins_half")


def _exact_key(key: str) -> bool:
    return key.startswith("rank_order") or key.rsplit("/", 1)[-1] in _EXACT_KEYS


def test_same_numbers_as_the_engine_before_issue_14():
    """Same numbers as the stored engine output: counts and shares exactly, float sums within a few ulps
    (tests/conftest.py FLOAT_ULPS: on an AMD EPYC with OpenBLAS DYNAMIC_ARCH seven keys differ by up to
    1.3 eps, e.g. sh/bin_few/shrinkage_se and rm/cont/*/matmul)."""
    ref = np.load(HERE / "data" / "scale_golden.npz")
    new = scale_golden.compute()
    assert sorted(ref.files) == sorted(new)
    exact = [k for k in ref.files if _exact_key(k)]
    assert {k.split("/")[0] for k in exact} >= {"rank_order", "st", "sh"}   # the split keeps its exact half
    differ = [k for k in exact if not np.array_equal(ref[k], new[k], equal_nan=True)]
    assert differ == []
    for k in ref.files:
        if not _exact_key(k):
            assert_floats_close(new[k], ref[k], err_msg=k)


def test_golden_comparison_fails_on_a_real_change():
    """The tolerance above is a few ulps, not a loophole: one resample mean moved by 1e-12 fails it."""
    ref = np.load(HERE / "data" / "scale_golden.npz")
    moved = ref["rm/cont/None/matmul"].copy()
    moved[3, 2] += 1e-12
    with pytest.raises(AssertionError):
        assert_floats_close(moved, ref["rm/cont/None/matmul"])


def _lex_ranks(means, keys):
    order = np.lexsort((keys, -means), axis=-1)
    r = np.empty_like(order)
    np.put_along_axis(r, order, np.arange(1, means.shape[-1] + 1), axis=-1)
    return r


@pytest.mark.parametrize("case", ["ties", "key_ties", "keys_near_1", "continuous", "one_model"])
def test_rank_order_is_lexsort(case):
    g = np.random.default_rng(0)
    for _ in range(30):
        b, m = int(g.integers(1, 40)), int(g.integers(1, 25)) if case != "one_model" else 1
        means = g.integers(0, 4, (b, m)) / 3.0 if case != "continuous" else g.normal(size=(b, m))
        keys = g.random((b, m))
        if case == "key_ties":
            keys = g.integers(0, 2, (b, m)) / 2.0
        if case == "keys_near_1":
            keys = 1.0 - g.integers(1, 3, (b, m)) * 2.0**-53
        assert np.array_equal(rank_order(means, keys), _lex_ranks(means, keys))
        assert np.array_equal(rank_order(means), _lex_ranks(means, np.zeros_like(means)))


def test_stability_without_rank_distributions_gives_the_same_figures():
    g = np.random.default_rng(1)
    s = (g.random((70, 150)) < 0.5).astype(float)   # many exact ties
    a = stability(s, sizes=[10, 60, "full"], n_resamples=300, rng=5, top_k=(1, 2, 3, 200))
    b = stability(s, sizes=[10, 60, "full"], n_resamples=300, rng=5, top_k=(1, 2, 3, 200), rank_distribution=False)
    assert b.rank_distribution is None
    assert np.array_equal(a.p_first, b.p_first)
    assert np.array_equal(a.p_topk_order, b.p_topk_order, equal_nan=True)
    assert "rank_distribution" not in b.to_dict()["by_size"][0]


def _same_table(a, b, exact):
    for f in FIELDS:
        x, y = np.asarray(getattr(a, f), float), np.asarray(getattr(b, f), float)
        if exact:
            assert np.array_equal(x, y, equal_nan=True), f
        else:
            np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-12, err_msg=f)
    assert (a.method, a.ci_method, a.binary, a.adjust, a.pairs_scope) == (b.method, b.ci_method, b.binary, b.adjust, b.pairs_scope)


@pytest.mark.parametrize("kind", ["binary", "continuous"])
@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("pairs", ["all", "adjacent"])
def test_blocked_all_pairs_equals_all_pairs(kind, missing, pairs):
    g = np.random.default_rng(2)
    s = (g.random((23, 650)) < g.uniform(0.2, 0.8, (23, 1))).astype(float) if kind == "binary" \
        else g.normal(size=(17, 400))
    if missing:
        holes = g.random(s.shape) < 0.1
        holes[:, :100] = False          # a complete block among incomplete ones
        s[holes] = np.nan
    m = ScoreMatrix.from_array(s)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # continuous: the blocked table is the paired t (block sums); all_pairs defaults to the betting interval
        _same_table(all_pairs(m, pairs=pairs, adjust="holm", method="t" if kind == "continuous" else "auto"),
                    all_pairs_blocked(m, block_items=100, pairs=pairs, adjust="holm"), exact=kind == "binary")


def test_blocked_all_pairs_from_parquet_row_groups(tmp_path):
    g = np.random.default_rng(3)
    s = (g.random((12, 333)) < 0.6).astype(float)
    m = ScoreMatrix.from_array(s, models=[f"m{k}" for k in range(12)])
    path = write_parquet(str(tmp_path / "scores.parquet"), s, models=m.models, block_items=50, dtype=np.int8)
    back = read_parquet_matrix(path)
    assert back.models == m.models and np.array_equal(back.scores, s)
    _same_table(all_pairs(m), all_pairs_blocked(path), exact=True)


def test_report_sidecar_keeps_the_json_small_and_changes_nothing_else(tmp_path):
    import pandas as pd

    import ranktrust as rt

    g = np.random.default_rng(4)
    m = ScoreMatrix.from_array((g.random((20, 200)) < g.uniform(0.3, 0.8, (20, 1))).astype(float))
    rep = rt.report(m, stability_n_resamples=200, quality=False, all_pairs=True)
    plain = rep.to_dict()
    path = tmp_path / "pairs.parquet"
    d = rep.to_dict(sidecar=str(path), max_pairs=7)
    assert d["sidecar"]["tables"] == {"pairs": 190, "rank_distribution": d["sidecar"]["tables"]["rank_distribution"]}
    assert d["pairs_truncated"] == {"shown": 7, "total": 190, "sidecar": str(path)}
    assert d["pairs"] == plain["pairs"][:7]
    assert {k: v for k, v in d.items() if k not in ("sidecar", "pairs_truncated", "pairs")} == \
        {k: v for k, v in plain.items() if k != "pairs"}
    df = pd.read_parquet(path)
    pairs = df[df["table"] == "pairs"]
    assert len(pairs) == 190
    np.testing.assert_array_equal(pairs["p_adjusted"].to_numpy(), rep.pairs_all.p_adjusted)
    rd = df[df["table"] == "rank_distribution"]
    first = rd[(rd["rank"] == 1) & (rd["size"] == m.n_items)].set_index("a")["p"]
    np.testing.assert_allclose(first.reindex(list(m.models)).fillna(0).to_numpy(), rep.stability.p_first[-1])


@pytest.mark.parametrize("span", [1, 2, 5, 15, 300])
@pytest.mark.parametrize("n_models", [1, 7, 16, 17, 100])
def test_packed_integer_sums_are_exact(span, n_models):
    """The packed integer kernels (8/16/32-bit lanes, and runs in 4-bit lanes first) give the
    exact sums of the drawn scores, with negative scores, padding lanes and short last runs."""
    from ranktrust.resample import _packed, _engine as engine

    g = np.random.default_rng(n_models * 1000 + span)
    s = g.integers(-3, span - 3, (n_models, 301)).astype(float)
    s[0, :2] = [-3, span - 4]                                   # the full span
    prep = engine.prepare(s)
    for k in (1, 2, 14, 15, 16, 200, 1000):
        idx = g.integers(0, 301, (37, k))
        want = s[:, idx].sum(axis=2).T
        bits = prep.lane_bits(k)
        if not bits:
            continue
        got = _packed.packed_sums(idx, prep.packed(bits), bits, n_models).astype(float) + k * prep.lo
        assert np.array_equal(got, want), (k, bits)
        if span <= 15:    # 4-bit runs, widened to 8-bit lanes (or 16-bit ones past 17 runs)
            run = 15 // max(span - 1, 1)
            got = _packed.packed_sums(idx, prep.nibbles(), 8, n_models, run).astype(float) + k * prep.lo
            assert np.array_equal(got, want), (k, "nibbles")


@pytest.mark.parametrize("k", [255, 256, 4000, 70_000])
def test_nibble_runs_widen_past_8_bit_lanes(k):
    """Runs of 4-bit lane sums widen to 16- and 32-bit lanes when a draw has more than 17 of
    them: the sums stay exact for 0/1 and 0..5 scores (a draw of 70,000 items of span 5 needs 32 bits)."""
    from ranktrust.resample import _packed, _engine as engine

    g = np.random.default_rng(k)
    for span, n_models in ((1, 33), (5, 17)):
        s = g.integers(0, span + 1, (n_models, 97)).astype(float)
        s[0, :2] = [0, span]
        prep = engine.prepare(s)
        idx = g.integers(0, 97, (3, k))
        got = _packed.packed_sums(idx, prep.nibbles(), 8, n_models, 15 // span)
        assert got.dtype.itemsize == (1 if k * span < 256 else 2 if k * span < 2**16 else 4)
        assert np.array_equal(got.astype(float), s[:, idx].sum(axis=2).T), (span, k)


def test_every_path_gives_the_same_means_on_integer_scores():
    from ranktrust.resample import resample_means

    g = np.random.default_rng(11)
    for s in ((g.random((9, 400)) < 0.5).astype(float), g.integers(-2, 9, (5, 400)).astype(float)):
        for size in (7, 200, 400, 3000):
            ref = resample_means(s, n_resamples=150, size=size, rng=1, path="matmul")
            assert np.array_equal(resample_means(s, n_resamples=150, size=size, rng=1, path="sparse"), ref)
            assert np.array_equal(resample_means(s, n_resamples=150, size=size, rng=1), ref)


@pytest.mark.parametrize("case", ["binary", "continuous", "few_cells", "groups"])
def test_threaded_counting_gives_the_same_numbers_as_one_task_at_a_time(case):
    """The in-process run draws and counts on helper threads (a block a row at a time, two
    count matrices in turn); each task run alone, as dask runs it, gives the same bits."""
    from ranktrust.resample import _engine as E

    g = np.random.default_rng(3)
    s = (g.random((6, 5000)) < 0.6).astype(float) if case != "continuous" else g.random((6, 5000))
    kw = dict(n_resamples=700, tie_keys=True, rng=9, path="matmul")
    if case == "few_cells":
        s, kw["size"] = s[:, :300], 5000          # block counts (under _ROW_COUNT_CELLS cells)
    if case == "groups":
        kw["groups"], kw["size"] = np.arange(5000) % 4100, 4500
    tasks, work = E.product_tasks(s, **kw)
    assert E._pipelined(work) and len(tasks) == 2   # a full product and a partial one
    threaded = list(E.run_products(tasks, work))
    alone = [E._product_means(*t, **work) for t in tasks]
    for (m1, k1), (m2, k2) in zip(threaded, alone):
        assert np.array_equal(m1, m2) and np.array_equal(k1, k2)


def test_integer_arrays_give_the_figures_of_their_float_copies():
    """stability() keeps an int8 matrix as it is (no float copy to check); the figures are the same."""
    g = np.random.default_rng(4)
    for s in ((g.random((9, 5000)) < 0.5).astype(np.int8), g.integers(-3, 6, (5, 300)), g.random((4, 50)) < 0.5):
        for kw in (dict(sizes=[30, "full"]), dict(sizes=[200], rank_distribution=False)):
            a = stability(s, n_resamples=200, rng=2, **kw).to_dict()
            assert a == stability(s.astype(float), n_resamples=200, rng=2, **kw).to_dict()


@pytest.mark.parametrize("cells,size,b,dtype", [(5000, 5000, 64, np.float32), (300, 5000, 37, np.float64),
                                                (20, 7, 5, np.float32)])
def test_block_counts_are_the_bincounts_of_the_block_draws(cells, size, b, dtype):
    """The count path sums sparse rows of the drawn items (several resamples per SciPy call, int32
    draws): the same counts as bincount of the (b, size) int64 draws the engine always made."""
    from ranktrust.resample import _engine as E

    ss = np.random.SeedSequence(7)
    idx = np.random.Generator(np.random.PCG64(ss)).integers(0, cells, size=(b, size))
    want = np.stack([np.bincount(row, minlength=cells) for row in idx]).astype(dtype)
    out = np.full((b, cells), np.nan, dtype=dtype)
    E._count_block(ss, b, cells, size, out)
    assert np.array_equal(out, want)


def test_report_keeps_tests_only_for_all_pairs_and_exact_intervals_where_shown(tmp_path):
    """The report's all-pairs table skips the exact intervals (most of its cost at scale); the
    pair table, the headline and the side file get them on demand: the numbers of all_pairs."""
    import pandas as pd

    import ranktrust as rt
    from ranktrust.reporting._headline import report_dict

    g = np.random.default_rng(8)
    m = ScoreMatrix.from_array((g.random((12, 300)) < g.uniform(0.3, 0.8, (12, 1))).astype(float))
    full = rt.all_pairs(m)
    rep = rt.report(m, stability=False, quality=False)
    assert rep.pairs_all.ci_method == "none" and rep.pairs.ci_method == "exact-mcnemar"
    ci = {(full.models[a], full.models[b]): (lo, hi) for a, b, lo, hi in zip(full.i, full.j, full.ci_low, full.ci_high)}
    for p in report_dict(rep)["pairs"]:
        lo, hi = ci[(p["a"], p["b"])] if (p["a"], p["b"]) in ci else tuple(-x for x in ci[(p["b"], p["a"])][::-1])
        assert (p["ci_low"], p["ci_high"]) == (lo, hi)
    h = report_dict(rep)["headline"]
    a, b = h["top"], h["runner_up"]
    lo, hi = ci[(a, b)] if (a, b) in ci else tuple(-x for x in ci[(b, a)][::-1])
    assert (h["ci_low"], h["ci_high"]) == (lo, hi)
    path = tmp_path / "pairs.parquet"
    rep.to_dict(sidecar=str(path))
    df = pd.read_parquet(path)
    pairs = df[df["table"] == "pairs"]
    assert np.array_equal(pairs["ci_low"].to_numpy(), full.ci_low) and np.array_equal(pairs["ci_high"].to_numpy(),
                                                                                      full.ci_high)
    assert rt.report(m, stability=False, quality=False, all_pairs=True).pairs_all.ci_method == "exact-mcnemar"


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork (POSIX)")
def test_threaded_counting_works_in_a_forked_child_after_the_parent_used_it():
    """A child forked after the parent ran the count threads makes its own pool (the parent's
    threads do not exist there; reusing that pool would wait forever)."""
    import multiprocessing as mp

    from ranktrust.resample import _engine as E

    s = (np.random.default_rng(0).random((6, 5000)) < 0.5).astype(float)
    tasks, work = E.product_tasks(s, n_resamples=200, rng=1, path="matmul")
    assert E._pipelined(work)
    want = np.concatenate([m for m, _ in E.run_products(tasks, work)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)   # Python 3.12+: fork of a threaded process
        with mp.get_context("fork").Pool(1) as pool:
            got = pool.apply_async(_threaded_means, (s,)).get(timeout=60)
    assert np.array_equal(got, want)


def _threaded_means(s):
    from ranktrust.resample import _engine as E

    tasks, work = E.product_tasks(s, n_resamples=200, rng=1, path="matmul")
    return np.concatenate([m for m, _ in E.run_products(tasks, work)])
