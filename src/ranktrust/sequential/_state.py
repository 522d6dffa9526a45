"""A watch that continues across reads: the state file that keeps the analysed items between them.

A live source is read again and again (a growing results file, a folder a harness writes into). Each read must
continue the *same* sequence of looks: the items analysed before are analysed first, with the same scores and
the same number of runs, and the settings that change the sequence (order, target, level, method, seed, ...)
stay as they were. :func:`continue_watch` feeds a :class:`~ranktrust.sequential.Watch` the matrix read now as
that continuation, checked against the state file, and writes the state back; ``ranktrust watch --items`` (or
``--order arrival``) calls it on every read.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from ..errors import DataError

if TYPE_CHECKING:  # pragma: no cover
    from ..data import ScoreMatrix
    from ._watch import Watch

__all__ = ["continue_watch", "read_items", "items_digest", "watch_settings"]

#: the version of the state file this module writes (4: settings keyed by Watch's parameter names; 3 and before:
#: by the command line's flags, read as the same names)
STATE_VERSION = 4

#: settings a state file records since 0.3, and their value in the arrival-order files written before
ADDED_SETTINGS: dict[str, Any] = {"order": "arrival", "n_runs": None}

#: a flag-keyed setting of a version-3 file whose parameter has another name (``rng``) or the opposite sense
_RENAMED = {"seed": "rng", "confidence": "confidence_level"}


def _api_settings(kept: dict[str, Any]) -> dict[str, Any]:
    """The settings of a state file keyed by :class:`Watch`'s parameter names (a version-3 file keys them by the
    command line's flags: a dash-prefixed name, its dashes as underscores, ``no_eliminate`` negated)."""
    out: dict[str, Any] = {}
    for key, v in kept.items():
        if not key.startswith("-"):
            out[key] = v
            continue
        name = key.lstrip("-").replace("-", "_")
        if name == "no_eliminate":
            out["eliminate"] = not v
        else:
            out[_RENAMED.get(name, name)] = v
    return out


def read_items(path: str | os.PathLike[str]) -> list[str]:
    """The item ids in the file ``path``, one per line (blank lines skipped); a duplicate is refused."""
    path = os.fspath(path)
    with open(path, encoding="utf-8") as fh:
        items = [ln.strip() for ln in fh if ln.strip()]
    if not items:
        raise DataError(f"{path}: no item ids (one per line)", code="no_items", data={"path": path})
    seen: dict[str, int] = {}
    for k, it in enumerate(items, 1):
        if it in seen:
            raise DataError(f"{path}: line {k}: item {it!r} is already on line {seen[it]}; list each item once",
                            code="duplicate_item", data={"path": path, "line": k, "item": it, "first": seen[it]})
        seen[it] = k
    return items


def items_digest(items: Sequence[str]) -> str:
    """A short fingerprint of the declared items (their ids in order), kept in the state file."""
    return hashlib.sha256("\n".join(items).encode("utf-8")).hexdigest()[:16]


def watch_settings(w: "Watch", items: Sequence[str] | None = None) -> dict[str, Any]:
    """The settings of ``w`` that change its sequence of looks, keyed by :class:`Watch`'s parameter names: a
    re-read must continue with the same ones. ``items``: the declared items (kept as their fingerprint; default:
    those ``w`` was given in the seeded order)."""
    target = w.target if w.target != "top" else f"top{w.k}"
    if items is None and w.order == "seeded":
        items = list(w._items)
    return {"order": w.order, "target": target, "confidence_level": w.confidence_level, "scope": w.scope,
            "method": w.method, "rule": w.rule, "best_method": w.best_method, "eliminate": w.eliminate,
            "final_look": w.final_look, "n_items": w.n_total if not w.fixed_items else None, "n_runs": w.n_runs,
            "score_range": list(w.score_range), "rng": w.seed,
            "items": items_digest(items) if items is not None and w.order != "dispatch" else None}


def _item_values(col: Any) -> list[float | None]:
    """An item's scores (models in sorted order; None where a model has none) as kept in the state file."""
    return [None if math.isnan(float(v)) else round(float(v), 12) for v in col]


def _same_item(old: list[float | None], new: list[float | None]) -> bool:
    """Every score kept is still there, unchanged (a model scored later, e.g. after it left play, is fine)."""
    return all(a is None or (b is not None and abs(a - b) <= 1e-9) for a, b in zip(old, new))


def _check_settings(path: str, kept: Any, now: Mapping[str, Any]) -> None:
    """Refuse a re-read whose sequence-changing settings differ from those the state file was started with
    (:data:`ADDED_SETTINGS`: the value of a setting that a state file written before it was kept stands for)."""
    if not isinstance(kept, dict):
        raise DataError(f"{path}: this state file does not record the settings its sequence was started with (an "
                        "earlier ranktrust); use a new state file to start a new sequence",
                        code="state_settings_unknown", data={"path": path})
    kept = _api_settings(kept)
    for name, v in now.items():
        if name not in kept and name in ADDED_SETTINGS:    # a state file from before the setting was kept
            kept = {**kept, name: ADDED_SETTINGS[name]}
        if name not in kept or kept[name] != v:
            was = kept.get(name)
            raise DataError(f"{path}: this sequence was started with {_shown(name, was)}, this run has "
                            f"{_shown(name, v)}; "
                            "a setting cannot change within a sequence: rerun with the first, or use a new state file "
                            "to start a new sequence", code="state_setting_changed",
                            data={"path": path, "setting": name, "was": was, "now": v, "kept": name in kept})


def _shown(name: str, v: Any) -> str:
    """A setting as the API writes it: ```n_items`=60``, ```n_items`` not given``."""
    return f"`{name}` not given" if v is None else f"`{name}`={v!r}"


def continue_watch(w: "Watch", m: "ScoreMatrix", path: str | os.PathLike[str], *,
                   settings: Mapping[str, Any] | None = None, sent: Sequence[str] | None = None) -> list[str]:
    """Feed ``m`` to ``w`` as the continuation of the sequence the state file ``path`` keeps (a new sequence when
    there is no such file), then write the state back; returns the items analysed, in their order.

    Every item the state file says was analysed must still be in ``m`` with the same scores and the same
    number of runs per model (a second run, an epoch appended with another run id, is refused: it would analyse
    the item again with another mean), and every setting that changes the sequence must be the same
    (``settings``; default :func:`watch_settings` of ``w``). With ``order="dispatch"``, ``sent`` is the list of
    items sent so far (it is given to :meth:`Watch.dispatch`) and the kept sending order must be its start.
    Arrival order feeds the kept items first, then the new ones in the input's order; a seeded or dispatch order
    is fixed, so the whole input is fed and the kept items are analysed first, as before.

    Every refusal is a :class:`~ranktrust.errors.DataError` with a code (``state_*``, ``docs/errors.md``)."""
    path = os.fspath(path)
    now = dict(watch_settings(w) if settings is None else settings)
    scores = m.data[:, :, 0]
    if m.n_runs > 1:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)    # a cell with no run: NaN, as intended
            scores = np.nanmean(m.data, axis=2)
    runs = (~np.isnan(m.data)).sum(axis=2)
    models = sorted(m.models)
    rows = [m.models.index(x) for x in models]
    pos = {it: k for k, it in enumerate(m.items)}
    kept: list[str] = []
    if os.path.exists(path):
        kept = _check_kept(path, now, models, sent, scores, runs, rows, pos)
    if sent is not None:
        w.dispatch(list(sent))
    if w.order == "arrival":
        fresh = [it for it in m.items if it not in set(kept)]
        if kept:
            w.update_matrix(m.select(items=kept))
        if fresh:
            w.update_matrix(m.select(items=fresh))
        order = w.item_order()
    else:
        w.update_matrix(m)
        order = w.analysed_items()
        if order[:len(kept)] != kept:     # cannot happen with unchanged scores and settings; never in silence
            raise DataError(f"{path}: the analysed items no longer start with the kept ones; the sequence cannot "
                            "continue (delete the state file to start over)", code="state_order_changed",
                            data={"path": path})
        order = order if len(order) >= len(kept) else kept
    payload: dict[str, Any] = {
        "version": STATE_VERSION, "models": models, "seed": w.seed, "settings": now, "order": order,
        "digests": {it: _item_values(scores[rows, pos[it]]) for it in order},
        "runs": {it: [int(x) for x in runs[rows, pos[it]]] for it in order}}
    if sent is not None:
        payload["sent"] = list(sent)
    tmp = f"{path}.partial"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(payload, fh)
        os.replace(tmp, path)
    except OSError as exc:
        raise DataError(f"{path}: cannot write the watch state ({exc.strerror}); keep the state file in a folder "
                        "you can write to", code="state_unwritable", data={"path": path, "error": exc.strerror}
                        ) from None
    return list(order)


def _check_kept(path: str, now: dict[str, Any], models: list[str],
                sent: Sequence[str] | None, scores: np.ndarray, runs: np.ndarray, rows: list[int],
                pos: dict[str, int]) -> list[str]:
    """The items the state file ``path`` kept, each checked against the input read now (see
    :func:`continue_watch`)."""
    try:
        with open(path, encoding="utf-8") as fh:
            st = json.load(fh)
        kept, digests = list(st["order"]), dict(st["digests"])
        kept_runs = dict(st.get("runs") or {})
        kept_sent = list(st.get("sent") or [])
        old_models = list(st["models"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError(f"{path}: not a watch state file ({exc}); delete it to start a new sequence",
                        code="state_unreadable", data={"path": path}) from None
    _check_settings(path, st.get("settings"), now)
    if old_models != models:
        raise DataError(f"{path}: the state was kept for models {', '.join(old_models)}, the input now has "
                        f"{', '.join(models)}; the sequence cannot continue (delete the state file to start a new "
                        "one)", code="state_models_changed", data={"path": path, "was": old_models, "now": models})
    if sent is not None:
        sent = list(sent)
        if sent[:len(kept_sent)] != kept_sent:
            k = next(k for k, (a, b) in enumerate(zip(kept_sent, sent + [None] * len(kept_sent))) if a != b)
            was_now = repr(sent[k]) if k < len(sent) else "nothing"
            raise DataError(f"{path}: the dispatch list changed: place {k + 1:,} was {kept_sent[k]!r}, the `items` "
                            f"file now has {was_now} there; the sending order is append-only (delete the state file "
                            "to start over)", code="state_dispatch_changed",
                            data={"path": path, "place": k + 1, "was": kept_sent[k],
                                  "now": sent[k] if k < len(sent) else None})
        if now.get("n_items") is None and len(sent) != len(kept_sent):
            raise DataError(f"{path}: the dispatch list grew from {len(kept_sent):,} to {len(sent):,} items; "
                            "without `n_items` the first list is the whole benchmark: declare `n_items` when "
                            "the list grows as items are sent (and use a new state file)", code="state_dispatch_grew",
                            data={"path": path, "was": len(kept_sent), "now": len(sent)})
    for k, it in enumerate(kept, 1):
        if it not in pos:
            raise DataError(f"{path}: item {it!r} (place {k:,} of the kept order) is no longer in the input: the "
                            "source shrank; the sequence cannot continue (delete the state file to start over)",
                            code="state_item_gone", data={"path": path, "item": it, "place": k})
        had = kept_runs.get(it)
        now_runs = [int(x) for x in runs[rows, pos[it]]]
        if had is not None:
            grew = [j for j, (a, b) in enumerate(zip(had, now_runs)) if a is not None and a and b != a]
            if grew:
                j = grew[0]
                raise DataError(f"{path}: item {it!r} (place {k:,} of the analysed order) was analysed with "
                                f"{had[j]} run(s) of {models[j]} and the input now has {now_runs[j]}: a later run "
                                "(epoch) cannot revise an analysed item. Declare the runs per item with `n_runs` "
                                "(each item then waits for all its runs) and a new state file, or leave the new "
                                "runs out", code="state_runs_changed",
                                data={"path": path, "item": it, "model": models[j], "was": had[j], "now": now_runs[j]})
        if not _same_item(digests[it], _item_values(scores[rows, pos[it]])):
            raise DataError(f"{path}: item {it!r} (place {k:,} of the kept order) has changed scores since it was "
                            "analysed; the sequence cannot continue (delete the state file to start over)",
                            code="state_scores_changed", data={"path": path, "item": it, "place": k})
    return kept
