"""The small synthetic inputs of the report's before/after JSON check (tests/test_report_golden.py).

``python tests/_report_inputs.py FOLDER`` writes them as CSV; the test writes them into a temporary folder.
Fixed seeds: the same bytes every time (the report's ``meta.input_hash`` depends on them).

- ``missing.csv``: 7 models x 240 items of 0/1 scores, item groups, about 6% of the (model, item) cells
  missing and one model scored on 180 items only (``--align pairwise``);
- ``continuous.csv``: 6 models x 150 items of scores in [0, 1] (a judge's grade), complete.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd


def missing_cells() -> pd.DataFrame:
    g = np.random.default_rng(20261201)
    n_models, n_items = 7, 240
    skill = np.linspace(0.45, 0.75, n_models)
    diff = g.normal(0, 1, n_items)
    p = 1 / (1 + np.exp(-(np.log(skill / (1 - skill))[:, None] - 0.6 * diff[None, :])))
    y = (g.random((n_models, n_items)) < p).astype(float)
    y[g.random((n_models, n_items)) < 0.06] = np.nan
    y[2, 180:] = np.nan
    rows = [(f"model-{k}", f"q{i:03d}", y[k, i], f"g{i % 4}") for k in range(n_models) for i in range(n_items)
            if np.isfinite(y[k, i])]
    return pd.DataFrame(rows, columns=["model", "item", "score", "group"])


def continuous() -> pd.DataFrame:
    g = np.random.default_rng(20261202)
    n_models, n_items = 6, 150
    base = np.linspace(0.5, 0.62, n_models)
    item = g.normal(0, 0.12, n_items)
    y = np.clip(base[:, None] + item[None, :] + g.normal(0, 0.15, (n_models, n_items)), 0, 1).round(4)
    rows = [(f"judge-{k}", f"t{i:03d}", y[k, i]) for k in range(n_models) for i in range(n_items)]
    return pd.DataFrame(rows, columns=["model", "item", "score"])


INPUTS = {"missing.csv": missing_cells, "continuous.csv": continuous}
#: the command-line options of each input's report
OPTIONS = {"missing.csv": ["--align", "pairwise", "--split-half"], "continuous.csv": ["--microbench"]}


def write(folder: Path) -> dict[str, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, make in INPUTS.items():
        path = folder / name
        make().to_csv(path, index=False)
        out[name] = path
    return out


def reference() -> None:
    """Re-make tests/data/report_ref/*.json with the current code (after listing the change in the CHANGELOG)."""
    import json
    import tempfile

    from conftest import run_cli_completed
    from test_report_json import REF, as_before

    with tempfile.TemporaryDirectory() as tmp:
        write(Path(tmp) / "inputs")
        for name, opts in OPTIONS.items():
            res = run_cli_completed("report", f"inputs/{name}", *opts, "--format", "json", "--seed", "7", cwd=Path(tmp))
            assert res.returncode == 0, res.stderr
            d = as_before(json.loads(res.stdout))
            (REF / name.replace(".csv", ".json")).write_text(json.dumps(d, separators=(",", ":"), allow_nan=False))


if __name__ == "__main__":
    if sys.argv[1:] == ["--reference"]:
        sys.path.insert(0, str(Path(__file__).parent))
        reference()
    else:
        print(write(Path(sys.argv[1])))
