"""The inspect_ai adapter in a real ``inspect_ai.eval``: three offline ``mockllm`` models, one task each.

Each model answers "A" (the target) with its own probability: the answer is a fixed hash of the model, the
question and the epoch, so the data are the same on every run. The mock outputs carry their token usage, so
mockllm never loads a tokenizer (which would need the network).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from conftest import require

from ranktrust.sequential import Watch
from ranktrust.sequential._inspect_adapter import MANAGER_NAME, WatchStopping

pytestmark = pytest.mark.filterwarnings("ignore:The 'initial' parameter is deprecated:DeprecationWarning")  # inspect's

STRONG, MID, WEAK = "mockllm/strong", "mockllm/mid", "mockllm/weak"


def _u(*parts: object) -> float:
    h = hashlib.blake2b("\x00".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(h, "little") / 2**64


@pytest.fixture(autouse=True)
def _needs_inspect():
    require("inspect_ai", install="pip install 'ranktrust[inspect]'")


def _answers(name: str, p: float):
    from inspect_ai.model import ModelOutput, ModelUsage

    def out(input, tools, tool_choice, config):  # mockllm's custom_outputs callable
        o = ModelOutput.from_content(model=name, content="A" if _u(name, input[-1].text) < p else "B")
        o.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)  # no tokenizer download
        return o

    return out


def _tag_epoch():
    from inspect_ai.solver import solver

    @solver
    def tag_epoch():
        async def solve(state, generate):
            state.user_prompt.text = f"{state.user_prompt.text} (epoch {state.epoch})"  # a fresh answer per epoch
            return state

        return solve

    return tag_epoch()


def _run(tmp_path, n: int, epochs: int, p: dict[str, float], dispatch: bool = False):
    from inspect_ai import Task, eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import match
    from inspect_ai.solver import generate

    ids = [f"q{i:03d}" for i in range(n)]
    if dispatch:    # a dataset shuffled once, in its own order; the Watch analyses the order inspect admits samples
        w = Watch(list(p), order="dispatch", n_items=n)
        samples = [Sample(id=ids[i], input=f"question {ids[i]}", target="A")
                   for i in np.random.default_rng(7).permutation(n)]
    else:
        w = Watch(list(p), ids, rng=0)
        samples = sorted((Sample(id=i, input=f"question {i}", target="A") for i in ids),
                         key=lambda s: w.position(s.id))
    mgr = WatchStopping(w)
    tasks = [Task(name=m.split("/")[1], dataset=MemoryDataset(samples), solver=[_tag_epoch(), generate()],
                  scorer=match(), model=get_model(m, custom_outputs=_answers(m, q)),
                  early_stopping=mgr.for_model(m), epochs=epochs)
             for m, q in p.items()]
    logs = eval(tasks, max_tasks=len(tasks), max_samples=4, log_dir=str(tmp_path), display="none")
    assert [lg.status for lg in logs] == ["success"] * len(p), [lg.error for lg in logs]
    by = {lg.eval.model: lg for lg in logs}
    assert set(by) == set(p)
    for m, lg in by.items():
        r = lg.results
        es = r.early_stopping
        assert es is not None and es.manager == MANAGER_NAME and es.metadata["model"] == m
        assert r.total_samples == n * epochs
        assert r.completed_samples == len(lg.samples) == n * epochs - len(es.early_stops)
        assert all(s.reason.startswith("ranktrust Watch:") and s.metadata == {"model": m} for s in es.early_stops)
        assert sorted((s.id, s.epoch) for s in es.early_stops) == sorted(
            (i, e) for mm, i, e in mgr.stopped if mm == m)
        # every scored sample reached the Watch, as run = epoch
        fed = sum(int(np.isfinite(a[w.models.index(m)]).sum()) for a in w._runs.values())
        assert fed == len(lg.samples)
        assert es.metadata["dispatch_order"] == mgr.dispatch_order[:len(es.metadata["dispatch_order"])]
    if dispatch:    # every task admits in the dataset's order, so the first admissions are that order
        assert mgr.dispatch_order == [s.id for s in samples][:len(mgr.dispatch_order)]
    return by, w


def test_live_eval_stops_excluded_models_and_certifies_the_best(tmp_path):
    by, w = _run(tmp_path, 300, 1, {STRONG: 0.9, MID: 0.55, WEAK: 0.25})
    scored = {m: len(lg.samples) for m, lg in by.items()}
    # decided well before the end: every model stops early; the weak one leaves first
    assert all(k < 300 for k in scored.values()), scored
    assert scored[WEAK] < scored[MID] and scored[WEAK] < scored[STRONG], scored
    assert sum(scored.values()) < 0.5 * 3 * 300, scored
    st = w.status()
    assert st.done and st.best_set == (STRONG,)
    last = [lg.results.early_stopping.metadata for lg in by.values() if lg.results.early_stopping.metadata["done"]]
    assert last and all(md["best_set"] == [STRONG] for md in last)


def test_live_eval_with_epochs_averages_runs(tmp_path):
    # with two epochs an item enters the analysis once both its runs are in (one anytime-valid sequence), so
    # nothing is decided in epoch 1; in epoch 2 the averaged items certify the best and the rest is cut short
    n = 80
    by, w = _run(tmp_path, n, 2, {STRONG: 0.9, MID: 0.65, WEAK: 0.2})
    st = w.status()
    assert w.n_runs == 2
    assert st.done and st.best_set == (STRONG,)
    ep = {m: [s.epoch for s in lg.samples] for m, lg in by.items()}
    for m in (STRONG, MID, WEAK):
        assert ep[m].count(1) == n, (m, ep[m])                                    # epoch 1 runs in full
    assert 0 < ep[STRONG].count(2) < n and ep[MID].count(2) < n, ep
    assert ep[WEAK].count(2) < ep[STRONG].count(2), ep                            # weak leaves first
    assert set(w._runs) == {"1", "2"}
    # the analysed items are those with both runs, each scored by the mean of its two runs
    s_i = w.models.index(STRONG)
    both = np.isfinite(w._runs["1"][s_i]) & np.isfinite(w._runs["2"][s_i])
    assert both.sum() == ep[STRONG].count(2) and st.items_seen <= both.sum()


def test_live_eval_in_dispatch_order(tmp_path):
    """order='dispatch': the manager records the order inspect admits the samples of a shuffled dataset (the same
    in every task), and the Watch analyses the results in that order, each waiting for the samples admitted
    before it, however the four in flight complete."""
    by, w = _run(tmp_path, 150, 1, {STRONG: 0.9, WEAK: 0.2}, dispatch=True)
    st = w.status()
    assert st.order == "dispatch" and st.done and st.best_set == (STRONG,)
    assert w.analysed_items() == w.item_order()[:st.items_seen]
    assert all(len(lg.samples) < 150 for lg in by.values())
