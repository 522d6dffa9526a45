"""One vocabulary for the public API (issue #12, step 3), checked by introspection.

Every parameter of every public function in ``ranktrust.__all__`` (and of the constructors and
public methods of ``ScoreMatrix``, ``Store`` and ``Watch``) must be a name declared in
:data:`VOCABULARY`; an old spelling (``draws=``, ``splits=``, ``trials=``, ``seed=``...) fails
with the name to use instead. The shared names also have one type and one kind of default
everywhere (``n_resamples`` an int, ``confidence_level`` a level in (0, 1), ``rng`` a
``SeedLike``, ``progress`` ``None``, ``cluster`` ``False``, ``alternative`` ``'two-sided'``);
every function that loops takes ``progress``; the paired tests take ``alternative``.

The one validator module (``ranktrust._validate``) is tested here too: each validator once,
with its message.
"""

from __future__ import annotations

import inspect
import warnings
import re
from typing import Any, Callable

import numpy as np
import pytest

import ranktrust as rt
from ranktrust import _validate
from conftest import all_result_classes
from ranktrust.errors import ArgumentError, DataError, RanktrustError

# ------------------------------------------------------------------------------------ the table

#: every parameter name of the public API -> what it means (one name per concept)
VOCABULARY: dict[str, str] = {
    # shared concepts: one name, one type, everywhere
    "m": "the data: a ScoreMatrix (or anything rt.read takes)",
    "n_resamples": "every Monte Carlo count: bootstrap resamples, stability draws, split-half splits, "
                   "MDAD trials, watch replays",
    "confidence_level": "level of every interval, test and rank set, in (0, 1) (power keeps alpha, below)",
    "rng": "randomness: None, an int seed, a SeedSequence or a Generator (SeedLike); never seed=",
    "progress": "None or progress(done, total), on every function that loops",
    "cluster": "bool, default False: cluster by item groups (method='cluster' also clusters; needs groups)",
    "alternative": "'two-sided' | 'greater' | 'less' on the paired tests (as scipy.stats)",
    "sizes": "benchmark or subset sizes (a sequence)",
    "size": "one subset size (select_subset; the sizes of mdad)",
    "method": "which procedure of the function",
    "methods": "several procedures compared in one call (mdad's selection methods)",
    "adjust": "multiplicity adjustment: 'holm' | 'bonferroni' | 'bh' | 'none'",
    "batch": "chunk size of a vectorised loop (never changes the result)",
    "client": "dask client to run the resamples on (same numbers as in process)",
    "pair_table": "a PairTable already computed, reused",
    "pair": "two models (a, b)",
    "a": "first model of a pair (compare: positional)",
    "b": "second model of a pair; mcnemar_exact: discordant count b",
    "c": "discordant count c (mcnemar_exact), correct samples c (pass_at_k)",
    "n": "samples per item (pass_at_k)",
    "k": "pass@k's k (pass_at_k, pass_at_k_matrix) -- not a subset size",
    "p": "p-values (adjust_pvalues)",
    "interval": "the interval of a paired difference: 'auto' | 'exact' | 'wald'",
    "cluster_correction": "small-cluster correction: 'cr2' | 'cr1' | 'none'",
    "pairs": "which pairs: 'all' | 'adjacent'",
    "simultaneous": "report simultaneous (True) or marginal rank sets",
    "studentize": "bootstrap-t rank sets: True | False | 'auto'",
    "rank_method": "how rank sets are formed: 'pairs' | 'bootstrap'",
    "rank_distribution": "keep the (sizes, M, M) rank distribution",
    "top_k": "k values of 'the top k keep their order'",
    "ci_method": "interval method of a section (report) or of MDAD's CI (mdad)",
    # report: section toggles and section-prefixed settings (<section>_n_resamples is checked below)
    "all_pairs": "report: show every pair (a section toggle; shadows rt.all_pairs, see SHADOWING)",
    "tiers": "report: how tiers are formed (shadows rt.tiers, see SHADOWING)",
    "stability": "report: the rank-stability section on/off, or 'all' draws above 10 million cells (shadows rt.stability)",
    "split_half": "report: the split-half section on/off (shadows rt.split_half)",
    "microbench": "report: the MDAD section on/off",
    "quality": "report: data-quality notes on/off",
    "power_gaps": "report: gaps of the questions-needed table",
    "cluster_label": "report: the name of the grouping column, for the text",
    "title": "report title",
    "extra": "report: sections computed elsewhere",
    "stability_n_resamples": "report: n_resamples of the stability section",
    "split_half_n_resamples": "report: n_resamples of the split-half section",
    "microbench_n_resamples": "report: n_resamples (trials) of the MDAD section",
    "inference": "report: the Inference options (confidence level, adjust, cluster, ci_method, tiers, rank_method)",
    "resampling": "report: the Resampling options (stability, sizes, split_half and their n_resamples)",
    "sections": "report: the Sections options (all_pairs, power_gaps, microbench, quality, title)",
    # power: statsmodels' names
    "gap": "power: the gap to detect (fraction)",
    "items": "power: number of items; ScoreMatrix/Watch/select: item names",
    "disagreement": "power: share of items two models score differently",
    "alpha": "power only: the significance level of the test being planned (statsmodels' name)",
    "power": "power: the target power (shadows rt.power, see SHADOWING)",
    "binary": "0/1 scores (power's test; read: threshold to 0/1)",
    # micro-benchmarks
    "source": "source of the data (a path or frame); select_subset: the source models",
    "source_models": "mdad: models used to choose items (count or fraction)",
    "target_models": "mdad: models judged (count)",
    "seen_items": "mdad: the seen/unseen item split",
    "delta_bin": "mdad: width of the |gap| bins",
    "agreement_level": "mdad: agreement that defines MDAD (not a confidence level)",
    "target_mdad": "mdad: the MDAD the recommendation looks for",
    "min_pairs": "mdad: pairs a bin needs to count",
    "subset": "estimate: a Subset",
    "scores": "estimate: the scores to estimate from",
    "estimator": "estimate: which estimator",
    # runs
    "pass_at": "repeats: k values of pass@k (a sequence of ints)",
    "margin": "repeats/choose_n: accepted half-width (fraction)",
    "choose_n_confidence_level": "repeats: confidence_level of the choose_n rule",
    "n0": "run_until_enough: the first batch of runs",
    "max_runs": "run_until_enough: cap on runs",
    "produce_runs": "run_until_enough: the callback that produces runs",
    "by": "sensitivity: 'condition' | 'run'",
    # data quality
    "near_identical": "data_quality threshold", "min_kappa": "data_quality threshold",
    "min_items": "data_quality threshold", "person_fit": "data_quality: person-fit check on/off",
    "lz_threshold": "data_quality threshold", "min_corr_ratio": "data_quality threshold",
    "folds": "data_quality: cross-fitting folds",
    # reading and writing
    "format": "file format ('auto' sniffs)", "align": "alignment policy: 'error' | 'intersect' | 'pairwise'",
    "model": "model column (read) or one model's name", "item": "item column or one item's name",
    "score": "score column or one score", "group": "item-group column", "run": "run column or one run",
    "condition": "condition column", "task": "task to keep", "metric": "metric to keep",
    "errors": "what to do with bad rows", "model_name": "model name for a single-model file",
    "wide": "wide layout", "scale": "divide scores by this (100 for percentages)", "split": "split to keep",
    "dataset": "dataset to keep", "options": "ReadOptions", "folder": "output folder",
    "harness": "harness name to record", "timestamp": "time to record",
    # ScoreMatrix
    "data": "scores (models, items[, runs])", "models": "model names", "runs": "run labels",
    "groups": "item groups", "conditions": "condition labels", "dropped": "results dropped by alignment",
    "notes": "notes on the data", "provenance": "where the data came from", "item_meta": "per-item columns",
    "layout": "'long' | 'wide'", "policy": "an alignment policy",
    # Store
    "path": "a file path", "read_only": "open the store read-only", "paths": "files to ingest",
    "replace": "replace a file already ingested",
    # Watch / watch_replay
    "target": "what to decide: 'best' | 'topK' | 'ranks'", "scope": "'population' | 'benchmark'",
    "order": "Watch: the order items enter the analysis, 'seeded' (over declared items) | 'arrival'",
    "n_items": "Watch: the benchmark's number of items when they are not declared (its known size)",
    "declared": "Watch: whether `items` is the whole benchmark (False: the items read so far; size not declared)",
    "pair_tests": "Watch: also run every pair's test at the all-pairs level (default: only for target ranks)",
    "rule": "betting rule", "eliminate": "stop scoring models out of the target set",
    "final_look": "share of alpha for a fixed-n test at the last item (no elimination)",
    "best_method": "'portfolio' | 'pairs'", "score_range": "(low, high) of a score", "n_runs": "runs per item",
    "rows": "rows to add", "budget": "cells to propose", "next_budget": "cells to propose in the status",
    "max_pairs": "pairs to show",
    # json_schema
    "kind": "json_schema: the result type whose schema to give",
    # score_models
    "questions": "questions to score", "out": "results file", "batch_size": "questions per forward pass",
    "device": "torch device", "dtype": "torch dtype", "template": "prompt template", "shots": "few-shot examples",
    "dev": "few-shot pool", "permutations": "option orders", "resume": "skip rows already done",
    "flush_every": "seconds between writes", "on_error": "callback for a failing model", "db": "a store",
    "seeds": "score_models only: one run per seed (the run labels; each picks option orders and shots). A "
             "list of run labels, not a random stream, so it is not rng",
    # gate (release gate, issue 25)
    "candidate": "gate: the new model", "require": "gate: 'better' (PASS also needs one task shown better)",
    "tasks": "gate: the tasks to keep (a sequence of names)",
    "plan": "gate: also compute each task's detectable drop (exact power)",
    # arena (preference leaderboards)
    "battles": "arena: the battles table (DataFrame or paths)", "baseline": "arena: the model win rates are against",
    "ties": "arena: 'half' | 'davidson'", "cluster_by": "arena: the column of clusters ('auto', a name, or None)",
    "style": "arena: style control (True, or the feature names)",
    "weight_strong": "read_battles: weight of an Arena-Hard strong verdict (True = 3, as Arena-Hard; one row)",
    "prompt": "read_battles: the column of prompt ids (None = auto-detect, '' = none)",
    # judged scores (issue 35)
    "judge": "gold_corrected: the judge's scores (a ScoreMatrix, complete)",
    "gold": "gold_corrected: gold labels of the same models on a subset of the items (NaN = not labelled)",
    "games": "judge_audit: swapped games (g1_winner, g2_winner: each question judged in both orders)",
    "reference": "judge_audit: reference verdicts on the same battles as `battles`, line by line",
    "family": "judge_audit: the models of the judge's own family (named, never guessed)",
    "judge_col": "judge_audit: the column naming the judge (or the repeat) of each score in `scores`",
    "judges": "intervals: the runs are judges (or repeats): 'auto' | 'random' (two-way clustered by item and "
              "judge) | 'fixed' (clustered by item); None = runs averaged first",
    "battle_id": "arena with gold: the column matching a gold battle to its judged battle (None = `num`, then the "
                 "DataFrame index)",
    # reading
    "source_name": "read: what errors call a DataFrame's source (a file name), default 'DataFrame'",
    "line_numbers": "read: a DataFrame row's line in its file: an int added to its position, or 'index'",
    "task_col": "gate: the column of the files whose values are the tasks",
    # suite (issue 34)
    "weights": "suite: task weights of the mean-based rules ({task: w} or a sequence)",
    "normalise": "suite: 'random-baseline' rescales task scores above chance (Open LLM Leaderboard)",
    "chance": "suite: each task's chance level (for normalise)",
    "missing": "suite: a model without a task: 'error' | 'drop-model' | 'drop-task' | 'pairwise'",
}

#: old or foreign spellings -> the vocabulary's name
FORBIDDEN = {
    "draws": "n_resamples", "splits": "n_resamples", "trials": "n_resamples", "n_trials": "n_resamples",
    "n_splits": "n_resamples", "n_replays": "n_resamples", "n_boot": "n_resamples", "B": "n_resamples",
    "microbench_trials": "microbench_n_resamples", "seed": "rng", "random_state": "rng",
    "level": "confidence_level", "ci_level": "confidence_level", "conf_level": "confidence_level",
    "callback": "progress", "verbose": "progress",
}

#: (function, name): the one place a name is allowed, and why
ONLY_IN = {
    "alpha": {"power"},          # power keeps statsmodels' alpha; everything else takes confidence_level
    "seeds": {"score_models"},
    "k": {"pass_at_k", "pass_at_k_matrix"},  # pass@k's k; a subset size is `size`
}

#: parameters that share a public function's name (kept: renaming them costs more than it gives)
SHADOWING = {
    ("report", "all_pairs"): "a section toggle of the report; the report's own pipeline imports the function "
                             "under another name",
    ("report", "tiers"): "the report's tier method",
    ("report", "stability"): "a section toggle",
    ("report", "split_half"): "a section toggle",
    ("power", "power"): "statsmodels' solve_power keyword",
}

#: functions that loop (resample, split, select, score): they take progress(done, total)
LOOPING = {"bootstrap_ci", "rank_sets", "stability", "split_half", "mdad", "report", "score_models"}
#: the paired tests: they take alternative=
PAIRED_TESTS = {"compare", "all_pairs"}
_SECTION_COUNT = re.compile(r"^[a-z_]+_n_resamples$")
_SECTION_LEVEL = re.compile(r"^[a-z_]+_confidence_level$")


def _public_callables() -> list[tuple[str, Callable[..., Any]]]:
    out = []
    for name in rt.__all__:
        obj = getattr(rt, name)
        if isinstance(obj, type):
            if issubclass(obj, BaseException):
                continue
            out.append((name, obj.__init__))
            for attr, fn in inspect.getmembers(obj, inspect.isfunction):
                if not attr.startswith("_"):
                    out.append((f"{name}.{attr}", fn))
        elif callable(obj) and not inspect.ismodule(obj):
            out.append((name, obj))
    return out


def _params(fn: Callable[..., Any]) -> list[inspect.Parameter]:
    return [p for p in inspect.signature(fn).parameters.values()
            if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


PUBLIC = _public_callables()
IDS = [n for n, _ in PUBLIC]


def test_the_table_covers_the_api():
    names = {n for n, _ in PUBLIC}
    assert {"report", "stability", "split_half", "mdad", "compare", "Store.matrix", "Watch.update"} <= names
    assert not set(FORBIDDEN) & set(VOCABULARY)


@pytest.mark.parametrize("qual, fn", PUBLIC, ids=IDS)
def test_every_parameter_is_in_the_vocabulary(qual, fn):
    func = qual.split(".")[0] if qual[0].islower() else qual
    for p in _params(fn):
        assert p.name not in FORBIDDEN, f"{qual}({p.name}=): the vocabulary says {FORBIDDEN[p.name]!r}"
        assert p.name in VOCABULARY, (f"{qual}({p.name}=) is not in the vocabulary: use a declared name "
                                      "or declare it in tests/test_vocabulary.py with what it means")
        if p.name in ONLY_IN:
            assert func in ONLY_IN[p.name], f"{qual}({p.name}=) is allowed only in {sorted(ONLY_IN[p.name])}"
        if p.name in rt.__all__ and callable(getattr(rt, p.name)) and p.name != func.split(".")[0].lower():
            assert (func, p.name) in SHADOWING, f"{qual}({p.name}=) shadows the public function rt.{p.name}"
        if p.name == "power" and func == "power":
            assert ("power", "power") in SHADOWING


#: public functions whose rng default is still None, with the area that moves it to 0 (shrink only)
RNG_DEFAULT_TO_MOVE = {
    "watch_replay": "WATCH",
}


def _check_default(qual: str, p: inspect.Parameter) -> None:
    d = p.default
    ann = p.annotation if isinstance(p.annotation, str) else getattr(p.annotation, "__name__", str(p.annotation))
    if p.name == "n_resamples" or _SECTION_COUNT.match(p.name):
        assert isinstance(d, int) and not isinstance(d, bool) and d >= 1, f"{qual}: {p.name}={d!r}"
    elif p.name == "confidence_level" or _SECTION_LEVEL.match(p.name):
        assert isinstance(d, float) and 0 < d < 1, f"{qual}: {p.name}={d!r}"
    elif p.name == "rng":
        # one default (issue 23 §2): 0, reproducible unless asked otherwise (rng=None: fresh entropy)
        assert d == 0 and not isinstance(d, bool) or qual in RNG_DEFAULT_TO_MOVE, \
            f"{qual}: rng={d!r}; the one default is rng: SeedLike = 0"
        assert ann == "SeedLike", f"{qual}: rng is annotated {ann!r}; use ranktrust._validate.SeedLike"
    elif p.name == "cluster_correction":
        assert d == "cr2", f"{qual}: cluster_correction={d!r}; the one default is 'cr2'"
    elif p.name == "progress":
        assert d is None and ann == "Progress", f"{qual}: progress={d!r} ({ann}); use _validate.Progress = None"
    elif p.name == "cluster":
        assert d is False, f"{qual}: cluster={d!r}; the one rule is cluster: bool = False"
    elif p.name == "alternative":
        assert d == "two-sided", f"{qual}: alternative={d!r}"
    elif p.name == "batch":
        assert d is None, f"{qual}: batch={d!r}; the one rule is batch: int | None = None (automatic)"


@pytest.mark.parametrize("qual, fn", PUBLIC, ids=IDS)
def test_shared_names_have_one_type_and_default(qual, fn):
    for p in _params(fn):
        if p.default is not inspect.Parameter.empty or p.name in ("n_resamples",):
            _check_default(qual, p)


def test_compare_batch_default_keeps_the_numbers():
    """compare's batch=None is the automatic batch (1000 sign-flip draws); the p-value is the one
    batch=1000 gave, and every batch (odd ones on an odd number of items too) gives the same draws."""
    rng = np.random.default_rng(0)
    m = rt.ScoreMatrix.from_array(rng.random((2, 37)), models=["a", "b"])
    ps = {b: rt.compare(m, "a", "b", method="sign-flip", n_resamples=2999, batch=b, rng=1).p_value
          for b in (None, 1000, 8, 7, 1)}
    assert len(set(ps.values())) == 1, ps


@pytest.mark.parametrize("name", sorted(LOOPING))
def test_every_looping_function_takes_progress(name):
    assert "progress" in inspect.signature(getattr(rt, name)).parameters


@pytest.mark.parametrize("name", sorted(PAIRED_TESTS))
def test_paired_tests_take_alternative(name):
    assert "alternative" in inspect.signature(getattr(rt, name)).parameters


def test_a_new_old_spelling_fails():
    """The check itself catches `draws=` (so the test can fail)."""
    def stability_like(m, *, draws: int = 2000):  # noqa: ANN001, ANN202
        return None

    with pytest.raises(AssertionError, match="the vocabulary says 'n_resamples'"):
        test_every_parameter_is_in_the_vocabulary("stability_like", stability_like)


# ------------------------------------------------------------------------------------ validators


@pytest.mark.parametrize("bad, exc", [(0, ValueError), (1, ValueError), (95, ValueError), (-0.1, ValueError),
                                      ("high", TypeError), (True, TypeError), (None, TypeError)])
def test_confidence_level(bad, exc):
    assert _validate.confidence_level(0.9) == 0.9 and isinstance(_validate.confidence_level(np.float32(0.5)), float)
    with pytest.raises(exc, match=r"^`confidence_level` must be in the open interval \(0, 1\) \(0.95 for 95%\), "
                                  rf"got {re.escape(repr(bad))}$"):
        _validate.confidence_level(bad)


def test_count():
    assert _validate.count(np.int64(5), "n_resamples") == 5 and _validate.count(100.0, "n_resamples") == 100
    assert _validate.count(2, "n_resamples", minimum=2) == 2
    for bad in (0, -3, 2.5):
        with pytest.raises(ValueError, match=rf"^`n_resamples` must be an integer >= 1, got {re.escape(repr(bad))}$"):
            _validate.count(bad, "n_resamples")
    for bad in (True, "10", None):
        with pytest.raises(TypeError, match=r"^`n_resamples` must be an integer >= 1, got "):
            _validate.count(bad, "n_resamples")


def test_counts():
    assert _validate.counts([1, 5, np.int64(10)], "pass_at") == (1, 5, 10)
    with pytest.raises(TypeError, match=r"^`pass_at` must be a sequence of integers >= 1, got '1,5'$"):
        _validate.counts("1,5", "pass_at")
    for bad in ([], [0, 1], [1.5]):
        with pytest.raises(ValueError, match=r"^`pass_at` must be a sequence of integers >= 1, got "):
            _validate.counts(bad, "pass_at")


def test_probability():
    assert _validate.probability(0, "q") == 0.0 and _validate.probability(1, "q") == 1.0
    with pytest.raises(ValueError, match=r"^`q` must be in \(0, 1\], got 0$"):
        _validate.probability(0, "q", low_open=True)
    with pytest.raises(ValueError, match=r"^`q` must be in \[0, 1\], got 1.5 \(a share\)$"):
        _validate.probability(1.5, "q", hint=" (a share)")
    with pytest.raises(TypeError, match=r"^`q` must be in \[0, 1\], got 'x'$"):
        _validate.probability("x", "q")
    with pytest.raises(ValueError, match=r"^`q` must be in \[0, 1\], got nan$"):
        _validate.probability(float("nan"), "q")


def test_rng_and_seed():
    g = np.random.default_rng(3)
    assert _validate.rng(g) is g
    assert _validate.rng(7).integers(1000) == np.random.default_rng(7).integers(1000)
    assert isinstance(_validate.rng(None), np.random.Generator)
    assert isinstance(_validate.rng(np.random.SeedSequence(1)), np.random.Generator)
    for bad in (-1, 1.5, "0", True):   # a negative int is a wrong value (ArgumentError, a ValueError); the rest types
        with pytest.raises(ArgumentError if bad == -1 and bad is not True else TypeError,
                           match=r"^`rng` must be None, a non-negative int seed, a numpy SeedSequence "
                                 r"or a numpy Generator, got "):
            _validate.rng(bad)
    assert _validate.seed(5) == 5
    assert _validate.seed(np.random.default_rng(0)) == int(np.random.default_rng(0).integers(2**63 - 1))


@pytest.mark.parametrize("call, param", [
    (lambda: _validate.confidence_level(95), "confidence_level"),
    (lambda: _validate.count(0, "n_resamples"), "n_resamples"),
    (lambda: _validate.counts([0], "pass_at"), "pass_at"),
    (lambda: _validate.probability(2, "alpha"), "alpha"),
    (lambda: _validate.rng(-1), "rng"),
    (lambda: _validate.choice("x", "adjust", ("holm",)), "adjust"),
    (lambda: _validate.choices(["x"], "methods", ("a",)), "methods"),
    (lambda: rt.power(gap=0.02, disagreement=0.27, method="z"), None),
])
def test_a_wrong_value_is_an_argument_error(call, param):
    """Wrong values are ArgumentError: a ValueError for Python, a RanktrustError for the command line
    (one line, exit 1), with ``param`` naming the argument; wrong types stay TypeError (a bug there)."""
    with pytest.raises(ArgumentError) as info:
        call()
    assert isinstance(info.value, ValueError) and isinstance(info.value, RanktrustError)
    if param is not None:
        assert info.value.param == param
    with pytest.raises(TypeError) as t:
        _validate.count("10", "n_resamples")
    assert not isinstance(t.value, RanktrustError)


def test_choice_and_choices():
    assert _validate.choice("bh", "adjust", ("holm", "bh")) == "bh"
    with pytest.raises(ValueError, match=r"^`adjust` must be one of 'holm', 'bh', got 'fdr'$"):
        _validate.choice("fdr", "adjust", ("holm", "bh"))
    with pytest.raises(ValueError, match=r"^`adjust` must be one of 'holm', got \['holm'\]$"):
        _validate.choice(["holm"], "adjust", ("holm",))   # unhashable: still the one message
    assert _validate.choices(["a", "b"], "methods", "abc") == ("a", "b")
    with pytest.raises(TypeError, match=r"^`methods` must be a sequence of 'a', 'b', got 'a,b'$"):
        _validate.choices("a,b", "methods", "ab")
    with pytest.raises(ValueError, match=r"^`methods` must be a non-empty sequence of distinct values among "):
        _validate.choices(["a", "a"], "methods", "ab")


def test_alternative_and_progress():
    assert _validate.alternative("less") == "less"
    with pytest.raises(ValueError, match=r"^`alternative` must be one of 'two-sided', 'greater', 'less', "
                                         r"got 'larger'$"):
        _validate.alternative("larger")
    assert _validate.progress(None) is None and _validate.progress(print) is print
    with pytest.raises(TypeError, match=r"^`progress` must be None or a callable progress\(done, total\), got True$"):
        _validate.progress(True)


def test_cluster_one_rule_one_message():
    assert _validate.cluster(False, None) is False
    assert _validate.cluster(True, ("a", "b")) is True
    assert _validate.cluster(False, ("a",), method="cluster") is True
    with pytest.raises(TypeError, match=r"^`cluster` must be True or False, got None$"):
        _validate.cluster(None, None)
    msg = (r"^clustering needs item groups, but the data has none: read it with `group`=COLUMN "
           r"\(the column that groups the items\)$")
    with pytest.raises(DataError, match=msg) as info:
        _validate.cluster(True, None)
    assert info.value.param == "group"


def test_every_function_raises_the_same_cluster_error():
    """The same exception type and message wherever clustering is asked for without item groups."""
    s = (np.random.default_rng(0).random((3, 40)) < 0.6).astype(float)
    m = rt.ScoreMatrix.from_array(s)
    calls = {
        "intervals": lambda: rt.intervals(m, cluster=True),
        "compare": lambda: rt.compare(m, "model_0", "model_1", cluster=True),
        "all_pairs": lambda: rt.all_pairs(m, cluster=True),
        "bootstrap_ci": lambda: rt.stats.bootstrap_ci(m, cluster=True, n_resamples=10),
        "rank_sets": lambda: rt.rank_sets(m, method="bootstrap", cluster=True, n_resamples=10),
        "stability": lambda: rt.stability(m, cluster=True, n_resamples=10),
        "report": lambda: rt.report(m, cluster=True, stability=False, quality=False),
    }
    for name, call in calls.items():
        with pytest.raises(DataError, match="^clustering needs item groups, but the data has none"):
            call()


def test_one_sided_p_values_match_scipy():
    from scipy import stats

    g = np.random.default_rng(1)
    s = (g.random((2, 300)) < [[0.6], [0.5]]).astype(float)
    m = rt.ScoreMatrix.from_array(s, models=["a", "b"])
    b = int(((s[0] == 1) & (s[1] == 0)).sum())
    c = int(((s[0] == 0) & (s[1] == 1)).sum())
    x = g.normal(size=(2, 50)) + [[0.2], [0.0]]
    mc = rt.ScoreMatrix.from_array(x, models=["a", "b"])
    for alt in ("two-sided", "greater", "less"):
        assert rt.compare(m, "a", "b", alternative=alt).p_value == pytest.approx(
            stats.binomtest(b, b + c, 0.5, alternative=alt).pvalue, rel=1e-12)
        ref = stats.ttest_rel(x[0], x[1], alternative=alt).pvalue
        assert rt.compare(mc, "a", "b", alternative=alt, method="t").p_value == pytest.approx(ref, rel=1e-10)
        assert float(rt.all_pairs(mc, alternative=alt, method="t").p_value[0]) == pytest.approx(ref, rel=1e-10)
        # the sign-flip test agrees with the t test to Monte Carlo error
        sf = rt.compare(mc, "a", "b", method="sign-flip", alternative=alt, n_resamples=4000, rng=0).p_value
        assert abs(sf - ref) < 0.02
    # two-sided is the default and what 0.1 computed
    assert rt.compare(m, "a", "b").p_value == rt.compare(m, "a", "b", alternative="two-sided").p_value


def test_progress_is_called_as_done_total():
    """Every looping function reports progress(done, total): done never decreases and ends at total."""
    s = (np.random.default_rng(2).random((4, 120)) < [[0.7], [0.6], [0.5], [0.4]]).astype(float)
    m = rt.ScoreMatrix.from_array(s)
    calls = {
        "bootstrap_ci": lambda cb: rt.stats.bootstrap_ci(m, n_resamples=700, rng=0, progress=cb),
        "rank_sets": lambda cb: rt.rank_sets(m, method="bootstrap", n_resamples=700, rng=0, progress=cb),
        "rank_sets (pairs)": lambda cb: rt.rank_sets(m, progress=cb),
        "stability": lambda cb: rt.stability(m, sizes=[50], n_resamples=100, rng=0, progress=cb),
        "split_half": lambda cb: rt.split_half(m, n_resamples=100, rng=0, progress=cb),
        "report": lambda cb: rt.report(m, stability_n_resamples=50, quality=False, progress=cb),
    }
    for name, call in calls.items():
        seen: list[tuple[int, int]] = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rt.SmallSampleWarning)
            call(lambda done, total: seen.append((int(done), int(total))))
        assert seen, name
        dones = [d for d, _ in seen]
        assert dones == sorted(dones) and all(d <= t for d, t in seen), (name, seen)
        assert seen[-1][0] == seen[-1][1], (name, seen[-1])


# ------------------------------------------------------------------------------------ result fields

#: old spellings of a result field or JSON key -> the vocabulary's name (a field is read as its key)
FORBIDDEN_FIELDS = {
    "draws": "n_resamples", "splits": "n_resamples", "trials": "n_resamples", "n_trials": "n_resamples",
    "n_splits": "n_resamples", "n_replays": "n_resamples", "n_boot": "n_resamples", "k": "size",
}
#: (result class, name): the one place an otherwise forbidden field name is right, and why
FIELD_ONLY_IN = {("PassAtK", "k"): "pass@k's k (samples per estimate), not a subset size"}


def _attribute_names(cls: type) -> set[str]:
    """A result's fields and public properties: what a user reads off it."""
    import dataclasses

    names = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else set()
    return names | {n for n, v in inspect.getmembers(cls) if isinstance(v, property) and not n.startswith("_")}


def _check_result_names(cls: type) -> None:
    for name in _attribute_names(cls):
        if name in FORBIDDEN_FIELDS and (cls.__name__, name) not in FIELD_ONLY_IN:
            raise AssertionError(f"{cls.__name__}.{name}: the vocabulary says {FORBIDDEN_FIELDS[name]!r}")


@pytest.mark.parametrize("cls", all_result_classes(), ids=lambda c: c.__name__)
def test_result_fields_use_the_vocabulary(cls):
    """A Monte Carlo count is ``n_resamples`` and a subset size ``size`` on results too (not ``draws``,
    ``splits``, ``trials``, ``n_replays``, ``k``)."""
    _check_result_names(cls)


def test_json_keys_use_the_vocabulary():
    """No key of any command's JSON layout (the generated schema, rows included) is an old spelling."""
    allowed = {name for _cls, name in FIELD_ONLY_IN}
    found: list[str] = []

    def walk(node: Any, where: str) -> None:
        if isinstance(node, dict):
            for key in node.get("properties") or {}:
                if key in FORBIDDEN_FIELDS and key not in allowed:
                    found.append(f"{where}: {key!r} (use {FORBIDDEN_FIELDS[key]!r})")
            for key, v in node.items():
                walk(v, f"{where}/{key}")
        elif isinstance(node, list):
            for v in node:
                walk(v, where)

    walk(rt.json_schema(), "")
    assert not found, found


def test_an_old_result_field_spelling_fails():
    """The check itself catches a ``draws`` field and a ``k`` property (so the test can fail)."""
    import dataclasses

    from ranktrust.results import Result

    @dataclasses.dataclass(frozen=True, eq=False)
    class StabilityLike(Result):
        draws: int

    class SubsetLike(Result):
        @property
        def k(self) -> int:
            return 1

    with pytest.raises(AssertionError, match="StabilityLike.draws: the vocabulary says 'n_resamples'"):
        _check_result_names(StabilityLike)
    with pytest.raises(AssertionError, match="SubsetLike.k: the vocabulary says 'size'"):
        _check_result_names(SubsetLike)
