"""The inspect_ai early-stopping adapter, driven the way inspect drives it (inspect_ai itself is optional:
the EarlyStop directive is replaced by a stand-in, so this runs without it)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import numpy as np
import pytest

import ranktrust.sequential._inspect_adapter as ia
from ranktrust.sequential import Watch


def test_models_stop_when_out_and_everything_stops_when_decided(monkeypatch):
    monkeypatch.setattr(ia, "_early_stop", lambda id, epoch, reason, metadata: ("stop", id, reason))
    rng = np.random.default_rng(0)
    items = [f"s{i}" for i in range(3000)]
    p = {"m/strong": 0.85, "m/mid": 0.6, "m/weak": 0.2}
    w = Watch(list(p), items, rng=2)
    mgr = ia.WatchStopping(w, every=5)
    views = {m: mgr.for_model(m) for m in p}
    order = w.item_order()

    async def drive():
        for m, v in views.items():
            assert await v.start_task(SimpleNamespace(model=m), [], 1) == "ranktrust.watch"
        ran = {m: 0 for m in p}
        for it in order:
            for m, v in views.items():
                if await v.schedule_sample(it, 1) is None:
                    ran[m] += 1
                    val = "C" if rng.random() < p[m] else "I"
                    await v.complete_sample(it, 1, {"match": SimpleNamespace(score=SimpleNamespace(value=val))})
        return ran, await mgr.complete_task()

    ran, summary = asyncio.run(drive())
    assert summary["done"] and summary["best_set"] == ["m/strong"]
    assert ran["m/weak"] < ran["m/mid"] <= ran["m/strong"] < len(items)
    assert len(mgr.stopped) == 3 * len(items) - sum(ran.values())


def test_adapter_validation():
    w = Watch(["a", "b"], ["x"])
    with pytest.raises(TypeError, match="`watch` must be a ranktrust Watch"):
        ia.WatchStopping("w")
    with pytest.raises(ValueError, match="`every` must be an integer >= 1"):
        ia.WatchStopping(w, every=0)
    with pytest.raises(ValueError, match="is not one of the Watch's models"):
        asyncio.run(ia.WatchStopping(w).start_task(SimpleNamespace(model="c"), [], 1))


def test_the_manager_records_the_dispatch_order_and_feeds_a_dispatch_watch(monkeypatch):
    """schedule_sample is inspect's admission of a sample (its concurrency slot, before it runs): the manager
    records the first admission of each sample as the dispatch order, and a Watch(order='dispatch') analyses the
    results in that order whatever order they complete in (here: reversed within blocks of 16 in flight)."""
    monkeypatch.setattr(ia, "_early_stop", lambda id, epoch, reason, metadata: ("stop", id, reason))
    rng = np.random.default_rng(5)
    N = 600
    sent = [f"s{i}" for i in rng.permutation(N)]              # a shuffled dataset: the order inspect admits
    p = {"m/strong": 0.85, "m/weak": 0.45}
    X = {m: (rng.random(N) < q).astype(float) for m, q in p.items()}
    w = Watch(list(p), order="dispatch", n_items=N)
    mgr = ia.WatchStopping(w)
    views = {m: mgr.for_model(m) for m in p}

    async def drive():
        for m, v in views.items():
            await v.start_task(SimpleNamespace(model=m), [], 1)
        for b in range(0, N, 16):
            block = sent[b:b + 16]
            running = {m: [s for s in block if await views[m].schedule_sample(s, 1) is None] for m in p}
            for m in p:
                for s in reversed(running[m]):                # completes out of the sending order
                    await views[m].complete_sample(s, 1, {"x": X[m][int(s[1:])]})
        return await mgr.complete_task()

    summary = asyncio.run(drive())
    assert mgr.dispatch_order == summary["dispatch_order"] == sent[:len(mgr.dispatch_order)]
    assert summary["order"] == "dispatch" and summary["best_set"] == ["m/strong"]
    ref = Watch(list(p), sent, order="dispatch")               # the same results, completed in the sending order
    for s in sent:
        ref.update_many([(m, s, X[m][int(s[1:])]) for m in p])
    assert w.status().excluded == ref.status().excluded and w.status().items_seen == ref.status().items_seen
