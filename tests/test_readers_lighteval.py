"""lighteval reader: the real details Parquet files, checked against the raw rows."""

from __future__ import annotations

import glob
import json
import os
import shutil

import pyarrow.parquet as pq
import pytest

import ranktrust as rt
from ranktrust.data._io import read_long
from ranktrust.data.readers._registry import ReadOptions
from ranktrust.errors import DataError


@pytest.fixture(scope="module")
def le_dir(harness_logs):
    return str(harness_logs / "lighteval" / "0.13.0")


@pytest.mark.parametrize("metric", ["acc", "acc_norm"])
def test_every_details_file_matches_raw(le_dir, metric):
    df = read_long(le_dir, options=ReadOptions(metric=metric))
    files = sorted(glob.glob(os.path.join(le_dir, "details", "**", "*.parquet"), recursive=True))
    assert len(files) == 3
    for f in files:
        seed = f.split(os.sep)[-3]
        (res,) = glob.glob(os.path.join(le_dir, "results", "opt", "models", "tinylm_t4", seed, "results_*.json"))
        with open(res) as fh:
            r = json.load(fh)
        model = r["config_general"]["model_config"]["model_name"]
        rows = pq.read_table(f).to_pylist()
        expected = {row["doc"]["id"]: float(row["metric"][metric]) for row in rows}
        got = df[df["model"] == model]
        assert dict(zip(got["item"], got["score"])) == expected
        assert dict(zip(got["item"], got["group"])) == {row["doc"]["id"]: row["doc"]["specific"]["subject"] for row in rows}
        agg = r["results"]["mcq_tiny_lighteval|0"][metric]
        assert got["score"].mean() == pytest.approx(agg, abs=1e-12)


def test_task_with_or_without_fewshot_suffix(le_dir):
    a = rt.read(le_dir, task="mcq_tiny_lighteval|0", metric="acc_norm")
    b = rt.read(le_dir, task="mcq_tiny_lighteval", metric="acc_norm")
    assert a.models == b.models and (a.scores == b.scores).all()
    assert list(a.scores.mean(axis=1)) == [0.15625, 0.25, 0.21875]


def test_missing_metric_and_model(le_dir, tmp_path):
    (f,) = glob.glob(os.path.join(le_dir, "details", "**", "seed1", "**", "*.parquet"), recursive=True)
    with pytest.raises(DataError, match=r"details_mcq_tiny_lighteval\|0_.*no metric 'f1'.*it has acc, acc_norm"):
        rt.read(f, metric="f1")
    q = tmp_path / os.path.basename(f)
    shutil.copyfile(f, q)
    with pytest.raises(DataError, match="no model name.*`model_name`='NAME'"):
        rt.read(str(q), metric="acc")
    assert rt.read(str(q), model_name="m", metric="acc").models == ("m",)
    # no results file beside the details: nothing says which metric is the task's own, so none is guessed
    with pytest.raises(DataError, match=r"2 metrics \(acc, acc_norm\), stored in alphabetical order.*"
                                        r"no results file.*choose one with `metric`='acc'"):
        rt.read(str(q), model_name="m")
