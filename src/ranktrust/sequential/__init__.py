"""Anytime-valid sequential evaluation: confidence sequences and a leaderboard that stops when separated.

``Watch`` takes results as they arrive and says, with an error guarantee that holds however often one looks,
which models can still be #1 (or in the top k), which pairs are decided, which cannot be told apart on this
benchmark, and which cells to score next; the analysis order is the declared items' seeded order, the order the
harness sent the items (``order="dispatch"``), or completion order (``order="arrival"``, valid only when latency
does not depend on the results). ``watch_replay`` replays a finished ScoreMatrix in random item orders.
See ``docs/watch.md``.

Outside :data:`__all__`, for the command line: ``parse_target`` (a stopping target such as ``"top3"`` as its kind and k).
"""

from __future__ import annotations

from ._cs import ConfidenceSequence, confidence_sequence, paired_confidence_sequence

__all__ = ["ConfidenceSequence", "confidence_sequence", "paired_confidence_sequence"]
from ._watch import Watch, WatchStatus, parse_target  # noqa: E402,F401  (parse_target: for the command line)

__all__ += ["Watch", "WatchStatus"]
from ._replay import ReplayResult, watch_replay  # noqa: E402

__all__ += ["ReplayResult", "watch_replay"]
from ._inspect_adapter import WatchStopping  # noqa: E402  (inspect_ai itself loads only when a log is read)

__all__ += ["WatchStopping"]
from ._state import continue_watch, items_digest, read_items, watch_settings  # noqa: E402

__all__ += ["continue_watch", "items_digest", "read_items", "watch_settings"]
