"""The command line's JSON writer (``reporting._render.dumps_indented``) against ``json.dumps(indent=2)``, the text
it must equal, on the JSON of a 250-model arena (31,125 pairs: the size ``bench_arena.py``'s 2,000,000 battles give).

The arena's own to_dict() on small battles gives the layout; its rows are repeated to 250 models and every pair with
seeded numbers (the writer's cost depends on the rows and their values, not on how the ratings were fitted).

    .venv/bin/python bench/bench_json_writer.py

prints each writer's best of 5 CPU seconds, their ratio, and checks the texts are equal.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd

import ranktrust as rt
from ranktrust.reporting._render import dumps_indented


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


if __name__ == "__main__":
    d = arena_json()
    ref = json.dumps(d, indent=2, allow_nan=False)
    assert dumps_indented(d) == ref
    t_ref = best(lambda: json.dumps(d, indent=2, allow_nan=False))
    t = best(lambda: dumps_indented(d))
    print(f"{len(d['pairs']):,} pairs, {len(ref):,} characters: json.dumps(indent=2) {t_ref:.3f} CPU s, "
          f"dumps_indented {t:.3f} CPU s ({t_ref / t:.1f}x); the same text")
