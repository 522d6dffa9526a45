"""inspect-ai reader: every real log (.eval zstd and deflate, .json), checked against the raw JSON."""

from __future__ import annotations

import glob
import json
import struct
import zipfile

import numpy as np
import pytest

import ranktrust as rt
from ranktrust.data.io import read_long
from ranktrust.errors import DataError, FormatError

VALUE = {"C": 1.0, "I": 0.0}


def _member(path, name):
    """Read a zip member by hand (zstd = method 93 via pyarrow), independent of the reader."""
    zf = zipfile.ZipFile(path)
    info = zf.getinfo(name)
    if info.compress_type != 93:
        return zf.read(name)
    import pyarrow as pa

    with open(path, "rb") as fh:
        fh.seek(info.header_offset)
        nlen, elen = struct.unpack("<HH", fh.read(30)[26:30])
        fh.seek(info.header_offset + 30 + nlen + elen)
        raw = fh.read(info.compress_size)
    return pa.Codec("zstd").decompress(raw, decompressed_size=info.file_size).to_pybytes()


def _raw(path):
    """(model, {(id, epoch): score or None for errored})."""
    if path.endswith(".eval"):
        header = json.loads(_member(path, "header.json"))
        zf = zipfile.ZipFile(path)
        samples = [json.loads(_member(path, n)) for n in zf.namelist() if n.startswith("samples/")]
    else:
        with open(path) as fh:
            header = json.load(fh)
        samples = header["samples"]
    out = {}
    for s in samples:
        key = (s["id"], str(s["epoch"]))
        out[key] = None if s.get("error") else VALUE[s["scores"]["choice"]["value"]]
    return header["eval"]["model"], out


def _logs(harness_logs):
    return sorted(glob.glob(str(harness_logs / "inspect_ai" / "*" / "*")))


def test_every_log_matches_raw(harness_logs):
    logs = _logs(harness_logs)
    assert len(logs) == 8
    for path in logs:
        model, raw = _raw(path)
        df = read_long(path, options=__import__("ranktrust.data.readers._registry", fromlist=["x"]).ReadOptions(errors="drop"))
        got = {(i, r): s for i, r, s in zip(df["item"], df["run"], df["score"])}
        assert got == {k: v for k, v in raw.items() if v is not None}, path
        assert set(df["model"]) == {model} and set(df["task"]) == {"mcq_tiny"}
        assert set(df["metric"]) == {"accuracy"}


def test_headline_numbers(harness_logs):
    expect = {"hSZvkf5": 0.0, "nVEZESB": 0.0, "Rs5AySw": 0.78125, "3gXNZS8": 0.78125,
              "HBTL9Vz": 0.2708333333333333, "E3QMeiy": 0.0}
    for key, mean in expect.items():
        (path,) = glob.glob(str(harness_logs / "inspect_ai" / "*" / f"*{key}*"))
        m = rt.read(path)
        assert m.scores.mean() == pytest.approx(mean, abs=1e-12), path
    (noisy,) = glob.glob(str(harness_logs / "inspect_ai" / "*" / "*HBTL9Vz*"))
    m = rt.read(noisy, metric="accuracy")
    assert m.n_runs == 3 and m.runs == ("1", "2", "3") and m.n_items == 32   # epochs become runs
    (old,) = glob.glob(str(harness_logs / "inspect_ai" / "0.3.120" / "*.eval"))
    assert zipfile.ZipFile(old).infolist()[0].compress_type == 8
    assert rt.read(old).n_runs == 2
    assert set(rt.read(old).groups) == {"arithmetic", "geography", "science"}


@pytest.mark.parametrize("key", ["NwprEcX", "L2CrEdU"])
def test_errored_samples_are_counted_never_silent(harness_logs, key):
    (path,) = glob.glob(str(harness_logs / "inspect_ai" / "*" / f"*{key}*"))
    with pytest.raises(DataError, match=r"2 of 32 samples errored \(geo-03 \(epoch 1\), sci-06 \(epoch 1\)\).*--errors wrong.*--errors drop"):
        rt.read(path)
    _, raw = _raw(path)
    ok = [v for v in raw.values() if v is not None]
    m = rt.read(path, errors="drop")
    assert m.n_items == 30 and m.scores.mean() == pytest.approx(np.mean(ok)) == pytest.approx(0.7333333333)
    assert len(m.notes) == 1 and "2 samples errored" in m.notes[0] and "dropped" in m.notes[0]
    w = rt.read(path, errors="wrong")
    assert w.n_items == 32 and w.scores.mean() == pytest.approx(sum(ok) / 32)
    i = w.items.index("geo-03")
    assert w.scores[0, i] == 0.0 and "scored as wrong" in w.notes[0]


def test_unknown_log_version(harness_logs, tmp_path):
    (path,) = glob.glob(str(harness_logs / "inspect_ai" / "*" / "*3gXNZS8*.json"))
    obj = json.load(open(path))
    obj["version"] = 7
    p = tmp_path / "log.json"
    p.write_text(json.dumps(obj))
    with pytest.raises(FormatError, match=r"log.json: inspect log format version 7 \(inspect_ai 0.3.285\).*known: 1, 2"):
        rt.read(str(p))


def test_missing_model_and_missing_scorer(harness_logs, tmp_path):
    (path,) = glob.glob(str(harness_logs / "inspect_ai" / "*" / "*3gXNZS8*.json"))
    obj = json.load(open(path))
    del obj["eval"]["model"]
    p = tmp_path / "log.json"
    p.write_text(json.dumps(obj))
    with pytest.raises(DataError, match="names no model.*--model-name"):
        rt.read(str(p))
    assert rt.read(str(p), model_name="oracle").models == ("oracle",)
    with pytest.raises(DataError, match="sample arith-01 .epoch 1. has no score 'f1'; it has choice"):
        rt.read(str(p), model_name="x", metric="f1")


def test_same_run_as_eval_and_json_names_both_files(harness_logs, tmp_path):
    """A folder holding one run as a .eval and as a .json copy: the duplicate error names both files
    (not 'row 32'), and either file alone reads."""
    import shutil

    (ev,) = glob.glob(str(harness_logs / "inspect_ai" / "0.3.285" / "*Rs5AySw*.eval"))
    (js,) = glob.glob(str(harness_logs / "inspect_ai" / "0.3.285" / "*3gXNZS8*.json"))
    for p in (ev, js):
        shutil.copy(p, tmp_path)
    a, b = sorted(f.split("/")[-1] for f in (ev, js))
    with pytest.raises(DataError) as exc:
        rt.read(str(tmp_path))
    msg = str(exc.value)
    assert (f"model 'mockllm/oracle-75', item 'arith-01', run '1' appears in both {a} and {b}: "
            "the same run logged twice? pass only one of them (32 such rows)") in msg
    assert "row 32" not in msg and len(msg.splitlines()) == 1
    # the rows carry their file, and the directory read tags every row
    df = read_long(str(tmp_path))
    assert set(df["source"].map(lambda s: s.split("/")[-1])) == {a, b}
    # the same with the two files given explicitly (rt.read adds `source` itself)
    with pytest.raises(DataError, match=r"appears in both .*\.eval and .*\.json: the same run logged twice"):
        rt.read([ev, js])
    assert rt.read(ev).scores.mean() == pytest.approx(0.78125)
    # one log alone: no source column, nothing changes
    assert "source" not in read_long(ev).columns


def test_real_folder_with_copies_names_files(harness_logs):
    """The QA case: the 0.3.285 folder holds three runs twice (.eval + .json)."""
    with pytest.raises(DataError, match=r"run '1' appears in both \S+\.eval and \S+\.json: the same run logged "
                                        r"twice\? pass only one of them \(94 such rows, across 3 pairs of files\)"):
        rt.read(str(harness_logs / "inspect_ai" / "0.3.285"), errors="drop")


def test_duplicates_within_one_file_keep_the_row_message(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("model,item,score\nA,q1,1\nA,q1,0\n")
    q = tmp_path / "e.csv"
    q.write_text("model,item,score\nB,q1,1\n")
    with pytest.raises(DataError, match=r"duplicate row for model 'A', item 'q1'"):
        rt.read([p, q])
