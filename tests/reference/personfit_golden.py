"""Writes tests/data/personfit_golden.npz: ``data_quality``'s person-fit figures on seeded boards, made with the
code before the person fit's iterative fits were sped up (commit 950d6f9: ``scipy.special.expit`` in every fit,
the ceiling fit in blocks of 64 rows of one fold), so that tests/test_quality_personfit.py can check that the
faster code gives the same figures within the fits' convergence tolerances.

    PYTHONPATH=<checkout of 950d6f9>/src python tests/reference/personfit_golden.py tests/data/personfit_golden.npz
"""

import sys

import numpy as np

#: the figures compared (``DataQuality`` attributes)
FIELDS = ("person_fit", "person_fit_z", "ability", "difficulty_corr", "expected_corr", "corr_z", "expected_accuracy",
          "score_z", "score_z_rel", "ceiling", "healthy_ceiling", "ceiling_z", "ceiling_z_rel", "ceiling_lz",
          "ceiling_accuracy")


def boards() -> dict:
    """Seeded 2PL boards (name -> (scores, data_quality keywords)): 5 folds, missing cells, leave-one-out, 2 folds;
    each with a few broken rows (a shuffled row, a row that lost half its right answers, random answers)."""
    out = {}
    for name, (n, k, seed, holes, kw) in {
        "folds5": (60, 300, 1, 0.0, {}),
        "holes": (45, 240, 2, 0.05, {}),
        "loo": (25, 200, 3, 0.0, {}),
        "folds2": (80, 260, 4, 0.0, {"folds": 2}),
    }.items():
        g = np.random.default_rng(seed)
        theta = g.normal(size=(n, 1))
        a, b = g.lognormal(0, 0.3, size=k), g.normal(size=k)
        y = (g.random((n, k)) < 1 / (1 + np.exp(-(a * theta - b)))).astype(float)
        y[1] = g.permutation(y[1])                               # answers joined to the wrong items
        y[2] = np.where(g.random(k) < 0.5, 0.0, y[2])            # a harness that lost half the right answers
        y[3] = (g.random(k) < y[3].mean()).astype(float)         # random answers at the row's accuracy
        if holes:
            y[g.random(y.shape) < holes] = np.nan
        out[name] = (y, kw)
    return out


def compute() -> dict:
    import ranktrust as rt

    res = {}
    for name, (y, kw) in boards().items():
        m = rt.ScoreMatrix.from_array(y, models=[f"m{i}" for i in range(y.shape[0])],
                                      items=[f"q{j}" for j in range(y.shape[1])])
        q = rt.data_quality(m, rng=0, **kw)
        for f in FIELDS:
            res[f"{name}/{f}"] = np.asarray(getattr(q, f), dtype=np.float64)
        res[f"{name}/misfit"] = np.asarray([int(s[1:]) for s in q.misfit], dtype=np.int64)
    return res


if __name__ == "__main__":
    np.savez_compressed(sys.argv[1], **compute())
