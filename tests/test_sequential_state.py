"""``ranktrust.sequential.continue_watch``: what ``ranktrust watch --items/--order arrival`` does with its state
file, from Python: a re-read continues the same sequence, and every refusal carries a code and data."""

from __future__ import annotations

import json

import numpy as np
import pytest

import ranktrust as rt
from ranktrust.sequential import Watch, continue_watch, items_digest, read_items, watch_settings


def _matrix(n: int, seed: int = 0, runs: int = 1) -> rt.ScoreMatrix:
    rng = np.random.default_rng(seed)
    p = np.array([0.8, 0.5, 0.45])[:, None, None]
    data = (rng.random((3, n, runs)) < p).astype(float)
    return rt.ScoreMatrix(data, ("A", "B", "C"), tuple(f"q{i}" for i in range(n)),
                          runs=tuple(f"r{k}" for k in range(runs)))


def test_a_reread_continues_the_sequence_and_reaches_the_same_status(tmp_path):
    """Half the items, then all of them, through the state file: the same status as all of them at once."""
    full = _matrix(120)
    state = tmp_path / "w.state"
    w = Watch(full.models, order="arrival", n_items=120)
    first = continue_watch(w, full.select(items=list(full.items[:60])), state)
    assert first == list(full.items[:60])
    kept = json.loads(state.read_text())
    assert kept["order"] == first and kept["settings"] == watch_settings(w)
    w2 = Watch(full.models, order="arrival", n_items=120)          # a new process: a fresh Watch
    order = continue_watch(w2, full, state)
    assert order[:60] == first and set(order) <= set(full.items)
    w3 = Watch(full.models, order="arrival", n_items=120)
    continue_watch(w3, full, tmp_path / "at-once.state")
    assert w2.status().to_dict() == w3.status().to_dict()


def test_a_changed_setting_is_refused_with_its_code_and_values(tmp_path):
    m = _matrix(40)
    state = tmp_path / "w.state"
    continue_watch(Watch(m.models, order="arrival", n_items=40), m, state)
    with pytest.raises(rt.DataError, match=r"started with `n_items`=40, this run has `n_items` not given") as info:
        continue_watch(Watch(m.models, order="arrival"), m, state)
    assert info.value.code == "state_setting_changed"
    assert {k: info.value.data[k] for k in ("setting", "was", "now")} == {"setting": "n_items", "was": 40, "now": None}


@pytest.mark.parametrize("change, code", [
    (lambda m: m.select(items=list(m.items[:20])), "state_item_gone"),
    (lambda m: rt.ScoreMatrix(1 - m.data, m.models, m.items, runs=m.runs), "state_scores_changed"),
    (lambda m: m.select(models=["A", "B"]), "state_models_changed"),
])
def test_a_changed_input_is_refused_with_its_code(tmp_path, change, code):
    m = _matrix(40)
    state = tmp_path / "w.state"
    continue_watch(Watch(m.models, order="arrival", n_items=40), m, state)
    after = change(m)
    with pytest.raises(rt.DataError) as info:
        continue_watch(Watch(after.models, order="arrival", n_items=40), after, state)
    assert info.value.code == code and info.value.data["path"] == str(state)


def test_a_state_file_of_the_command_line_before_version_4_is_read(tmp_path):
    """Version 3 keyed the settings by the command line's flags (``--no-eliminate`` negated, ``--seed`` for
    ``rng``): such a file continues, and a changed setting is still found."""
    m = _matrix(40)
    state = tmp_path / "w.state"
    w = Watch(m.models, order="arrival", n_items=40)
    continue_watch(w, m.select(items=list(m.items[:10])), state)
    old = json.loads(state.read_text())
    names = {"confidence_level": "--confidence", "rng": "--seed", "eliminate": "--no-eliminate"}
    old["settings"] = {names.get(k, "--" + k.replace("_", "-")): (not v if k == "eliminate" else v)
                       for k, v in old["settings"].items()}
    old["version"] = 3
    state.write_text(json.dumps(old))
    assert continue_watch(Watch(m.models, order="arrival", n_items=40), m, state)[:10] == list(m.items[:10])
    state.write_text(json.dumps(old))
    with pytest.raises(rt.DataError, match="`eliminate`=True, this run has `eliminate`=False"):
        continue_watch(Watch(m.models, order="arrival", n_items=40, eliminate=False), m, state)


def test_seeded_items_are_kept_by_their_fingerprint(tmp_path):
    """Another declared item list is another sequence: refused, naming the setting."""
    m = _matrix(30)
    state = tmp_path / "w.state"
    continue_watch(Watch(m.models, list(m.items)), m, state)
    assert json.loads(state.read_text())["settings"]["items"] == items_digest(list(m.items))
    other = list(reversed(m.items))
    with pytest.raises(rt.DataError) as info:
        continue_watch(Watch(m.models, other), m, state)
    assert (info.value.code, info.value.data["setting"]) == ("state_setting_changed", "items")


def test_not_a_state_file(tmp_path):
    bad = tmp_path / "w.state"
    bad.write_text("{}")
    m = _matrix(10)
    with pytest.raises(rt.DataError, match="not a watch state file") as info:
        continue_watch(Watch(m.models, order="arrival"), m, bad)
    assert info.value.code == "state_unreadable"


def test_read_items_and_its_fingerprint(tmp_path):
    f = tmp_path / "items.txt"
    f.write_text("q1\n\nq2\nq3\n")
    assert read_items(f) == ["q1", "q2", "q3"]
    assert items_digest(["q1", "q2", "q3"]) != items_digest(["q2", "q1", "q3"])
    f.write_text("q1\nq2\nq1\n")
    with pytest.raises(rt.DataError, match="line 3: item 'q1' is already on line 1") as info:
        read_items(f)
    assert (info.value.code, info.value.data["line"], info.value.data["first"]) == ("duplicate_item", 3, 1)
    f.write_text("\n")
    with pytest.raises(rt.DataError, match="no item ids") as info:
        read_items(f)
    assert info.value.code == "no_items"
