"""The JSON writer and the report's ``to_dict()``, each against the code it replaced, in one process.

1. The command line's JSON writer (``reporting._render.dumps_indented``) against ``json.dumps(indent=2)``, the text
   it must equal, on the JSON of a 250-model arena (31,125 pairs: the size ``bench_arena.py``'s 2,000,000 battles
   give). The arena's own to_dict() on small battles gives the layout; its rows are repeated to 250 models and every
   pair with seeded numbers (the writer's cost depends on the rows and their values, not on how the ratings were
   fitted).
2. The default report's JSON text, ``dumps_indented(rt.report(m).to_dict())`` (what ``ranktrust report -f json``
   writes, less ``meta``), on GPQA (420 models x 448 items, /work/shared/data/gpqa_main_openllm.csv.gz where present,
   else a seeded 0/1 matrix of that size): today's code against the code before ``jsonable`` walked plain values
   without a call each, the report's model rows were built from whole columns and the writer tested a table's rows
   in one pass. The old code is kept below (``_old_jsonable``, ``_old_indented``, ``_old_model_rows``) and put in
   place of today's for the "old" timings; the report is built once, the texts must be equal.

    .venv/bin/python bench/bench_json_writer.py

prints each one's best of 5 (arena) or 15 (report) CPU seconds, their ratio, and checks the texts are equal.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import sys
import time
import warnings
from typing import Any

import numpy as np
import pandas as pd

import ranktrust as rt
from ranktrust.reporting import _render
from ranktrust.reporting._render import dumps_indented
from ranktrust.results import Result

GPQA = "/work/shared/data/gpqa_main_openllm.csv.gz"


def arena_json(M: int = 250, seed: int = 0) -> dict:
    g = np.random.default_rng(seed)
    models = ["ada", "bo", "cy", "dee"]
    a, b = g.integers(0, 4, 400), g.integers(0, 3, 400)
    b = np.where(b >= a, b + 1, b)
    battles = pd.DataFrame({"model_a": [models[i] for i in a], "model_b": [models[i] for i in b],
                            "score": (g.random(400) < 0.5).astype(float)})
    base = json.loads(json.dumps(rt.arena(battles, rng=0).to_dict()))

    def fill(row: dict, k: int) -> dict:
        return {key: float(g.normal()) if isinstance(v, float) else
                (k if isinstance(v, int) and not isinstance(v, bool) else (f"model-{k}" if isinstance(v, str) else v))
                for key, v in row.items()}

    return {"meta": {"format": 2, "kind": "arena"}, **base, "models": [fill(base["models"][0], k) for k in range(M)],
            "pairs": [fill(base["pairs"][0], k) for k in range(M * (M - 1) // 2)]}


def best(f, n: int = 5) -> float:
    ts = []
    for _ in range(n):
        t = time.process_time()
        f()
        ts.append(time.process_time() - t)
    return min(ts)


# ------------------------------------------------------------------ the old code, as it was
def _old_array_json(a: np.ndarray) -> Any:
    if a.dtype.kind == "f":
        fin = np.isfinite(a)
        if fin.all():
            return a.tolist()
        obj = a.astype(object)
        obj[~fin] = None
        return obj.tolist()
    if a.dtype.kind in "biu":
        return a.tolist()
    return [_old_jsonable(v) for v in a.tolist()]


def _old_jsonable(value: Any) -> Any:
    if value is None or isinstance(value, (str, bool, int)) and not isinstance(value, np.integer):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): _old_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_old_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _old_array_json(value)
    if isinstance(value, Result):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _old_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        f = float(value)
        return f if math.isfinite(f) else None
    return value


_PLAIN = frozenset((str, int, float, bool, type(None)))


def _old_plain(o: Any) -> bool:
    return len(o) > 0 and {type(v) for v in (o.values() if isinstance(o, dict) else o)} <= _PLAIN


def _old_indented(o: Any, depth: int) -> str:
    _encode = _render._encode
    is_list = isinstance(o, (list, tuple))
    if not (is_list or isinstance(o, dict)) or not o:
        return _encode(o, 0)
    ind, ind1 = "\n" + "  " * depth, "\n" + "  " * (depth + 1)
    if _old_plain(o):
        text = _encode(o, depth + 1)
        return text[0] + ind1 + text[1:-1] + ind + text[-1]
    if is_list and all(type(v) is dict and _old_plain(v) for v in o):
        ind2 = "\n" + "  " * (depth + 2)
        body = _encode(o, depth + 2)[2:-2].replace("}," + ind2 + "{", ind1 + "}," + ind1 + "{" + ind2)
        return "[" + ind1 + "{" + ind2 + body + ind1 + "}" + ind + "]"
    if is_list:
        body = [ind1 + _old_indented(v, depth + 1) for v in o]
    else:
        if not all(type(k) is str for k in o):
            raise TypeError("a key that is not text")
        body = [ind1 + json.encoder.encode_basestring_ascii(k) + ": " + _old_indented(v, depth + 1)
                for k, v in o.items()]
    return ("[" if is_list else "{") + ",".join(body) + ind + ("]" if is_list else "}")


def _old_dumps_indented(o: Any) -> str:
    try:
        return _old_indented(o, 0)
    except (TypeError, ValueError, RecursionError):
        return json.dumps(o, indent=2, allow_nan=False)


def _old_model_rows(self: Any, *, json: bool = False) -> list[dict[str, Any]]:
    iv = self.intervals
    order = self._order()
    tier_of = {}
    if self.tiers is not None:
        for k, mname in enumerate(self.tiers.models):
            tier_of[mname] = int(self.tiers.tier[k])
    rows = []
    for rank, k in enumerate(order, 1):
        name = iv.models[k]
        lo = hi = None
        if self.rank_sets is not None:
            lo, hi = int(self.rank_sets.rank_low[k]), int(self.rank_sets.rank_high[k])
        rows.append({"model": name, "n_items": int(iv.n_items[k]), "score": float(iv.score[k]),
                     "se": float(iv.se[k]), "ci_low": float(iv.ci_low[k]), "ci_high": float(iv.ci_high[k]),
                     "rank": rank, "tier": tier_of.get(name), "rank_low": lo, "rank_high": hi})
    return _old_jsonable(rows) if json else rows   # the old to_dict made the rows JSON-ready with jsonable


class _Old:
    """Puts the old code in place of today's while open: ``jsonable`` in every module that imported it, the
    report's model rows, and its headline (which built the whole table to read its first two rows)."""

    def __enter__(self) -> None:
        from ranktrust import results
        from ranktrust.leaderboard._result import LeaderboardReport

        new = results.jsonable
        self.mods = [m for m in list(sys.modules.values())
                     if getattr(m, "__name__", "").startswith("ranktrust") and getattr(m, "jsonable", None) is new]
        self.saved = (new, LeaderboardReport._model_rows, LeaderboardReport._headline)
        for m in self.mods:
            m.jsonable = _old_jsonable
        headline = self.saved[2]

        def old_headline(report: Any) -> dict[str, Any]:
            _old_model_rows(report)
            return headline(report)

        LeaderboardReport._model_rows, LeaderboardReport._headline = _old_model_rows, old_headline

    def __exit__(self, *exc: Any) -> None:
        from ranktrust.leaderboard._result import LeaderboardReport

        for m in self.mods:
            m.jsonable = self.saved[0]
        LeaderboardReport._model_rows, LeaderboardReport._headline = self.saved[1:]


def gpqa_matrix() -> tuple[rt.ScoreMatrix, str]:
    if os.path.exists(GPQA):
        return rt.read(GPQA), "GPQA 420 x 448"
    g = np.random.default_rng(0)
    p = g.uniform(0.25, 0.75, (420, 1))
    return (rt.ScoreMatrix.from_array((g.random((420, 448)) < p).astype(float),
                                      models=[f"model-{k}" for k in range(420)]), "seeded 0/1 420 x 448")


def report_case(n: int = 15) -> None:
    m, what = gpqa_matrix()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = rt.report(m)

    def new() -> str:
        return dumps_indented(r.to_dict())

    def old() -> str:
        with _Old():
            return _old_dumps_indented(r.to_dict())

    text = new()
    assert old() == text, "the old and the new code write different texts"
    d_new = r.to_dict()
    with _Old():
        d_old = r.to_dict()
    t_old = t_new = t_old_d = t_new_d = t_old_w = t_new_w = math.inf
    for _ in range(n):                  # interleaved: a burst of load on the machine falls on both
        t_old, t_new = min(t_old, best(old, 1)), min(t_new, best(new, 1))
        with _Old():
            t_old_d = min(t_old_d, best(r.to_dict, 1))
        t_new_d = min(t_new_d, best(r.to_dict, 1))
        t_old_w = min(t_old_w, best(lambda: _old_dumps_indented(d_old), 1))
        t_new_w = min(t_new_w, best(lambda: dumps_indented(d_new), 1))
    print(f"report JSON of {what}, {len(text):,} characters (best of {n}, CPU s):")
    print(f"  to_dict            old {t_old_d:.4f}  new {t_new_d:.4f}  ({t_old_d / t_new_d:.2f}x)")
    print(f"  dumps_indented     old {t_old_w:.4f}  new {t_new_w:.4f}  ({t_old_w / t_new_w:.2f}x)")
    print(f"  both, one call     old {t_old:.4f}  new {t_new:.4f}  ({t_old / t_new:.2f}x); the same text")


if __name__ == "__main__":
    d = arena_json()
    ref = json.dumps(d, indent=2, allow_nan=False)
    assert dumps_indented(d) == ref
    t_ref = best(lambda: json.dumps(d, indent=2, allow_nan=False))
    t = best(lambda: dumps_indented(d))
    print(f"{len(d['pairs']):,} pairs, {len(ref):,} characters: json.dumps(indent=2) {t_ref:.3f} CPU s, "
          f"dumps_indented {t:.3f} CPU s ({t_ref / t:.1f}x); the same text")
    report_case()
