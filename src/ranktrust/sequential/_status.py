"""What a watched leaderboard reports: :class:`WatchStatus`, and the small helpers the Watch and the replay share
(the target parser, the seeded item keys)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..results import Note, Result

__all__ = ["WatchStatus", "item_keys", "parse_target"]


def _f(x: Any) -> float | None:
    """A plain float for JSON (None for NaN or infinity)."""
    x = float(x)
    return x if np.isfinite(x) else None


def parse_target(target: str) -> tuple[str, int]:
    """``"best"`` -> ("best", 1); ``"top3"`` / ``"top-3"`` -> ("top", 3); ``"ranks"`` -> ("ranks", 0)."""
    t = str(target).strip().lower()
    if t in ("best", "top1", "top-1"):
        return "best", 1
    if t in ("ranks", "rank-sets", "pairs"):
        return "ranks", 0
    mt = re.fullmatch(r"top-?(\d+)", t)
    if mt and int(mt.group(1)) >= 1:
        k = int(mt.group(1))
        return ("best", 1) if k == 1 else ("top", k)
    from ..errors import ArgumentError

    raise ArgumentError(f"`target` must be 'best', 'topK' (e.g. 'top3') or 'ranks', got {target!r}")


def item_keys(items: Sequence[str], seed: int) -> np.ndarray:
    """A place in the analysis order for each item: a hash of the seed and the label (stable as items arrive)."""
    out = np.empty(len(items), dtype=np.uint64)
    for i, it in enumerate(items):
        h = hashlib.blake2b(f"{seed}\x00{it}".encode(), digest_size=8).digest()
        out[i] = int.from_bytes(h, "little")
    return out


@dataclass(frozen=True, eq=False)
class WatchStatus(Result):
    """Where a watched leaderboard stands.

    Attributes
    ----------
    target : str
        ``"best"``, ``"topK"`` or ``"ranks"``.
    scope : str
        ``"population"`` (items are a sample; with replacement) or ``"benchmark"`` (this finite benchmark;
        without replacement).
    confidence_level : float
    models : tuple of str
    items_seen : int
        Items analysed: the length of the analysed prefix of the analysis order (groups with ``unit="cluster"``).
    items_total : int or None
        The declared benchmark size N (items, or groups with ``unit="cluster"``); None when not declared.
    cells_scored : int
        Model x item cells the analysis used (models out of play are not scored after they leave).
    scores : ndarray
        Each model's mean over the items it was scored on in the prefix.
    best_set : tuple of str
        Models that can still be #1 (target ``best``), in the top k (``topK``), or whose rank set contains 1.
    excluded : list of dict
        ``{"model", "at_item"}``: when each model left the target set.
    rank_low, rank_high : ndarray of int
        Rank ranges from the target's certified statements: for ``best``/``topK`` a model out of the set ranks
        below k (``rank_low = k + 1``) and, once exactly k models are left, they rank 1..k; for ``ranks`` the
        simultaneous rank sets (every pair in both directions, closed testing: e-Holm).
    decided : list of dict
        ``{"a", "b", "winner", "at_item"}`` for every pair certified under the all-pairs family.
    open_pairs, unresolvable_pairs : list of [a, b]
        Pairs that still matter for the target and are undecided; those among them that cannot be separated
        even if every remaining item went one way (they are not worth more spending).
    next : list of dict
        ``{"model", "item"}`` cells to score next.
    done : bool
        Nothing more to learn: the target is decided, or every open pair is unresolvable.
    target_decided : bool
        The target is certified (``done`` without it: the models left cannot be told apart).
    order : str
        ``"seeded"`` (declared items in a seeded order), ``"dispatch"`` (items in the order the harness sent them,
        each waiting for every item sent before it) or ``"arrival"`` (append-only in the order items complete;
        the guarantee rests on that order not depending on the results, which latency that depends on
        correctness breaks: see ``notes``).
    waiting_for : tuple of dict
        ``{"item", "position", "missing"}``: the next items of the order that block the analysis (position in the
        seeded or dispatch order, None with arrival order) and the models in play they lack; with dispatch order,
        results for an item not yet sent wait too (``{"item", "position": None, "missing": [], "sent": False}``).
    held_back : int
        Results received on items not yet analysed.
    items_received : int
        Items (groups) with a result or declared.
    unit : str
        ``"item"``, or ``"cluster"`` when whole item groups are the sampling unit.
    state_file : str or None
        Where the analysed order is kept between reads (``ranktrust watch --order arrival`` or ``--items``); None
        otherwise.
    notes : tuple of Note
        What the reader must know about the guarantee: ``watch_arrival_latency`` with ``order="arrival"``
        (valid only when completion order does not depend on the results; ``order="dispatch"`` is the remedy).
    """

    target: str
    scope: str
    method: str
    confidence_level: float
    models: tuple[str, ...]
    items_seen: int
    items_total: int | None
    cells_scored: int
    scores: np.ndarray
    best_set: tuple[str, ...]
    excluded: list[dict[str, Any]]
    rank_low: np.ndarray
    rank_high: np.ndarray
    decided: list[dict[str, Any]]
    open_pairs: list[list[str]]
    unresolvable_pairs: list[list[str]]
    next: list[dict[str, str]]
    done: bool
    seed: int
    pairs: list[dict[str, Any]]
    n_items: np.ndarray | None = None
    waiting_for: tuple[dict[str, Any], ...] = ()
    unit: str = "item"
    order: str = "seeded"
    target_decided: bool = False
    held_back: int = 0
    items_received: int = 0
    final_look: float = 0.0
    state_file: str | None = None
    notes: tuple[Note, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target, "scope": self.scope, "method": self.method,
            "confidence_level": self.confidence_level, "items_seen": self.items_seen,
            "items_total": self.items_total, "cells_scored": self.cells_scored,
            "best_set": list(self.best_set), "done": self.done,
            "decided": self.decided, "open_pairs": self.open_pairs,
            "unresolvable_pairs": self.unresolvable_pairs, "next": self.next,
            "excluded": self.excluded,
            "models": [{"model": m, "score": _f(self.scores[i]),
                        "n_items": int(self.n_items[i]) if self.n_items is not None else None,
                        "rank_low": int(self.rank_low[i]),
                        "rank_high": int(self.rank_high[i])} for i, m in enumerate(self.models)],
            "pairs": self.pairs, "seed": self.seed, "waiting_for": list(self.waiting_for), "unit": self.unit,
            "order": self.order, "target_decided": self.target_decided, "held_back": self.held_back,
            "items_received": self.items_received, "final_look": self.final_look,
            "state_file": self.state_file, "notes": [n.to_dict() for n in self.notes],
        }
