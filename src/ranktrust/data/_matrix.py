"""ScoreMatrix: the one shape every statistic in ranktrust reads.

A ScoreMatrix holds per-item scores of several models as a float array of shape
``(n_models, n_items, n_runs)`` (``NaN`` = not scored), with labels for models,
items and runs, an optional group label per item (e.g. the MMLU subject, used for
clustered standard errors and cluster resampling), an optional condition label per
run (option order, prompt variant, ...), and optional item metadata.

Most statistics use :attr:`ScoreMatrix.scores`, the ``(n_models, n_items)`` mean
over runs. With a single run (the common case) that is just the data.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Literal, Sequence

import numpy as np

from .._kernel import is_binary, nan_mean
from ..errors import ArgumentError, DataError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..results import Note

__all__ = ["ScoreMatrix", "AlignPolicy"]

AlignPolicy = Literal["error", "intersect", "pairwise"]


def _labels(values: Iterable[Any], what: str) -> tuple[str, ...]:
    out = tuple(str(v) for v in values)
    if len(set(out)) != len(out):
        seen: set[str] = set()
        dup = next(v for v in out if v in seen or seen.add(v))  # type: ignore[func-returns-value]
        raise DataError(f"duplicate {what} label {dup!r}: every {what} needs a unique name")
    return out


@dataclass(frozen=True, eq=False)
class ScoreMatrix:
    """Per-item scores of several models, optionally with runs and conditions.

    Parameters
    ----------
    data : ndarray, shape (n_models, n_items) or (n_models, n_items, n_runs)
        Scores as floats; ``NaN`` marks a (model, item, run) that was not scored.
    models, items : sequence of str
        Unique labels.
    runs : sequence of str, optional
        Labels of the run axis (seed / sample index). Default ``("0",)`` per run.
    groups : sequence of str, optional
        One group label per item (subject, passage, repository ...).
    conditions : sequence of str, optional
        One condition label per run (option order, prompt variant ...).
    item_meta : pandas.DataFrame, optional
        Extra per-item columns, indexed by item label.
    source : str, optional
        Where the data came from (a file name), used in messages and reports.
    dropped : dict, optional
        What alignment dropped: ``{model: n_items_dropped}``; reported to the user.
    notes : tuple of Note (or str), optional
        Things the reader did that the user must be told (3 samples errored and were scored as wrong);
        reports print them. The readers give :class:`~ranktrust.results.Note` records (``samples_errored``,
        ``helm_mean``, ``swebench_total``, ...; the list is in ``Note``'s docstring), worded by
        ``ranktrust.reporting.note_text`` in the API's words (```task`='NAME'``), which the command line
        turns into its flags (``--task NAME``). A sentence is kept as it is (a store written by 0.2.0).
    provenance : dict, optional
        What was scored for each model when read from files: ``{model: {"harness", "task",
        "split", "metric", "files"}}`` (values ``None`` where the input does not say).

    Notes
    -----
    The matrix is immutable: methods return new matrices. The arrays are made
    read-only.
    """

    data: np.ndarray
    models: tuple[str, ...]
    items: tuple[str, ...]
    runs: tuple[str, ...] = ()
    groups: tuple[str, ...] | None = None
    conditions: tuple[str, ...] | None = None
    item_meta: Any = None
    source: str | None = None
    dropped: dict[str, int] = field(default_factory=dict)
    notes: tuple[Note | str, ...] = ()
    provenance: dict[str, dict] = field(default_factory=dict)

    def __post_init__(self) -> None:
        data = np.asarray(self.data, dtype=np.float64)
        if data.ndim == 2:
            data = data[:, :, None]
        if data.ndim != 3:
            raise DataError(
                f"score data must have shape (models, items) or (models, items, runs); got {data.shape}"
            )
        if np.isinf(data).any():
            m, i, _ = np.argwhere(np.isinf(data))[0]
            raise DataError(
                f"score for model {self.models[m]!r}, item {self.items[i]!r} is infinite; "
                "scores must be finite numbers (use NaN for not scored)"
            )
        with np.errstate(invalid="ignore"):
            huge = np.abs(data) > 1e6
        if huge.any():
            m, i, _ = np.argwhere(huge)[0]
            raise DataError(
                f"score {data[m, i, _]:g} for model {self.models[m]!r}, item {self.items[i]!r} is far outside "
                "[0, 1]; scores are fractions (divide percentages by 100)"
            )
        models = _labels(self.models, "model")
        items = _labels(self.items, "item")
        runs = _labels(self.runs, "run") if self.runs else tuple(str(r) for r in range(data.shape[2]))
        if data.shape != (len(models), len(items), len(runs)):
            raise DataError(
                f"score data has shape {data.shape} but there are {len(models)} models, "
                f"{len(items)} items and {len(runs)} runs"
            )
        groups = None if self.groups is None else tuple(str(g) for g in self.groups)
        if groups is not None and len(groups) != len(items):
            raise DataError(f"`groups` has {len(groups)} labels for {len(items)} items")
        conditions = None if self.conditions is None else tuple(str(c) for c in self.conditions)
        if conditions is not None and len(conditions) != len(runs):
            raise DataError(f"`conditions` has {len(conditions)} labels for {len(runs)} runs")
        data = data.copy() if data is self.data else data
        data.setflags(write=False)
        object.__setattr__(self, "data", data)
        object.__setattr__(self, "models", models)
        object.__setattr__(self, "items", items)
        object.__setattr__(self, "runs", runs)
        object.__setattr__(self, "groups", groups)
        object.__setattr__(self, "conditions", conditions)
        object.__setattr__(self, "dropped", dict(self.dropped))
        object.__setattr__(self, "notes", tuple(self.notes))

    # ------------------------------------------------------------------ shape
    @property
    def n_models(self) -> int:
        return self.data.shape[0]

    @property
    def n_items(self) -> int:
        return self.data.shape[1]

    @property
    def n_runs(self) -> int:
        return self.data.shape[2]

    @property
    def shape(self) -> tuple[int, int, int]:
        return self.data.shape  # type: ignore[return-value]

    @property
    def scores(self) -> np.ndarray:
        """``(n_models, n_items)`` scores: the mean over runs (NaN where no run scored)."""
        if self.n_runs == 1:
            return self.data[:, :, 0]
        out = nan_mean(self.data, axis=2)
        out.setflags(write=False)
        return out

    # the data is read-only: these are computed once per matrix (a report asks each many times; on
    # 1,000 x 14,000 each look is a pass over 14 million cells)
    @functools.cached_property
    def is_binary(self) -> bool:
        """True when every scored value is 0 or 1."""
        return is_binary(self.data)

    @functools.cached_property
    def is_complete(self) -> bool:
        """True when every model has a score on every item (in the mean over runs)."""
        return not bool(np.isnan(self.scores).any())

    @property
    def group_codes(self) -> np.ndarray | None:
        """Integer code per item for :attr:`groups` (``None`` without groups)."""
        if self.groups is None:
            return None
        _, codes = np.unique(np.asarray(self.groups, dtype=object), return_inverse=True)
        return codes.astype(np.intp)

    @property
    def group_labels(self) -> tuple[str, ...] | None:
        if self.groups is None:
            return None
        return tuple(str(g) for g in np.unique(np.asarray(self.groups, dtype=object)))

    def index_of(self, model: str) -> int:
        """Row of ``model``; raises :class:`DataError` naming close matches."""
        try:
            return self.models.index(model)
        except ValueError:
            import difflib

            close = difflib.get_close_matches(model, self.models, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else (
                f"; models are {', '.join(repr(m) for m in self.models[:5])}"
                + (" ..." if self.n_models > 5 else "")
            )
            raise DataError(f"unknown model {model!r}{hint}", code="unknown_model",
                            data={"model": model, "close": close}) from None

    # ------------------------------------------------------------ transforms
    def _replace(self, **kw: Any) -> "ScoreMatrix":
        base = dict(
            data=self.data, models=self.models, items=self.items, runs=self.runs,
            groups=self.groups, conditions=self.conditions, item_meta=self.item_meta,
            source=self.source, dropped=self.dropped, notes=self.notes, provenance=self.provenance,
        )
        base.update(kw)
        return ScoreMatrix(**base)

    def select(
        self,
        *,
        models: Sequence[str | int] | None = None,
        items: Sequence[str | int] | np.ndarray | None = None,
        runs: Sequence[str | int] | None = None,
    ) -> "ScoreMatrix":
        """A new matrix restricted to the given models, items and/or runs (labels or positions)."""

        def idx(sel: Any, labels: tuple[str, ...], what: str) -> np.ndarray:
            if sel is None:
                return np.arange(len(labels))
            sel = np.asarray(sel)
            if sel.dtype == bool:
                return np.flatnonzero(sel)
            if sel.dtype.kind in "iu":
                return sel.astype(np.intp)
            pos = {l: k for k, l in enumerate(labels)}
            out = []
            for s in sel.tolist():
                if s not in pos:
                    raise DataError(f"unknown {what} {s!r}")
                out.append(pos[s])
            return np.asarray(out, dtype=np.intp)

        mi = idx(models, self.models, "model")
        ii = idx(items, self.items, "item")
        ri = idx(runs, self.runs, "run")
        data = self.data[np.ix_(mi, ii, ri)]
        meta = self.item_meta
        if meta is not None:
            meta = meta.iloc[ii]
        return self._replace(
            data=data,
            models=[self.models[k] for k in mi],
            items=[self.items[k] for k in ii],
            runs=[self.runs[k] for k in ri],
            groups=None if self.groups is None else [self.groups[k] for k in ii],
            conditions=None if self.conditions is None else [self.conditions[k] for k in ri],
            item_meta=meta,
            provenance={self.models[k]: self.provenance[self.models[k]] for k in mi
                        if self.models[k] in self.provenance},
        )

    def align(self, policy: AlignPolicy = "error") -> "ScoreMatrix":
        """Apply a policy for models scored on different item sets.

        ``"error"`` (default) raises :class:`DataError` naming the models and how many
        items each misses; ``"intersect"`` keeps the items every model has and records in
        :attr:`dropped` how many items were dropped for each model; ``"pairwise"`` keeps
        the NaNs (each model's interval uses its own items, each pair its shared items).
        """
        if policy not in ("error", "intersect", "pairwise"):
            raise ArgumentError(
                f"`align` must be 'error', 'intersect' or 'pairwise', got {policy!r}", param="align"
            )
        scored = ~np.isnan(self.scores)
        if scored.all() or policy == "pairwise":
            return self
        missing = (~scored).sum(axis=1)
        has = scored.sum(axis=1)
        if policy == "error":
            bad = [
                f"{self.models[k]!r} has {has[k]}" for k in np.flatnonzero(missing)
            ]
            where = f" in {self.source}" if self.source else ""
            raise DataError(
                f"models are scored on different items{where}: {self.n_items} items in all, but "
                + "; ".join(bad[:5]) + (f" (and {len(bad) - 5} more)" if len(bad) > 5 else "")
                + ". Use `align`='intersect' to keep only the shared items, "
                "or `align`='pairwise' to compare each pair on the items it shares", param="align",
                code="items_misaligned", data={"source": self.source, "n_items": self.n_items,
                                               "scored": {self.models[k]: int(has[k]) for k in np.flatnonzero(missing)}}
            )
        keep = scored.all(axis=0)
        if not keep.any():
            raise DataError("no item is scored for every model; `align`='intersect' would keep nothing", param="align",
                            code="no_shared_items")
        # items dropped from each model's own scored set
        dropped = {
            self.models[k]: int(has[k] - keep.sum()) for k in range(self.n_models) if has[k] > keep.sum()
        }
        out = self.select(items=np.flatnonzero(keep))
        return out._replace(dropped={**self.dropped, **dropped})

    def drop_models(self, models: Sequence[str]) -> "ScoreMatrix":
        keep = [m for m in self.models if m not in set(models)]
        return self.select(models=keep)

    # ---------------------------------------------------------- constructors
    @classmethod
    def from_array(
        cls,
        scores: Any,
        *,
        models: Sequence[str] | None = None,
        items: Sequence[str] | None = None,
        groups: Sequence[str] | None = None,
    ) -> "ScoreMatrix":
        """Build from a ``(models, items[, runs])`` array; labels default to positions."""
        a = np.asarray(scores, dtype=np.float64)
        models = models if models is not None else [f"model_{k}" for k in range(a.shape[0])]
        items = items if items is not None else [str(k) for k in range(a.shape[1])]
        return cls(a, tuple(models), tuple(items), groups=None if groups is None else tuple(groups))

    @classmethod
    def from_long(
        cls,
        df: "pd.DataFrame",
        *,
        model: str = "model",
        item: str = "item",
        score: str = "score",
        group: str | None = None,
        run: str | None = None,
        condition: str | None = None,
        source: str | None = None,
    ) -> "ScoreMatrix":
        """Build from a long table, one row per (model, item[, run/condition]).

        Columns ``group`` (e.g. ``"subject"``), ``run`` and ``condition`` are optional;
        when present they are used (``group=None`` auto-detects a ``subject`` or
        ``group`` column; pass ``group=""`` to ignore it). Other columns that take one
        value per item become :attr:`item_meta`.
        """
        from ._long import matrix_from_long

        return matrix_from_long(
            cls, df, model=model, item=item, score=score, group=group, run=run,
            condition=condition, source=source,
        )

    @classmethod
    def from_wide(
        cls,
        df: "pd.DataFrame",
        *,
        item: str | None = None,
        group: str | None = None,
        source: str | None = None,
    ) -> "ScoreMatrix":
        """Build from a wide table: one row per item, one column per model.

        ``item`` names the item-id column (default: the index); ``group`` an optional
        group column. Every other column must be a model's numeric scores.
        """
        from ._long import matrix_from_wide

        return matrix_from_wide(cls, df, item=item, group=group, source=source)

    def to_frame(self, layout: str = "long") -> "pd.DataFrame":
        """The results as a pandas DataFrame: ``"long"`` (one row per model, item and run; the
        layout :func:`ranktrust.read` takes back) or ``"wide"`` (one row per item, one column per
        model, the mean over runs; NaN = not scored)."""
        if layout == "long":
            return self.to_long()
        if layout != "wide":
            raise ArgumentError(f"`layout` must be 'long' or 'wide', got {layout!r}", param="layout")
        import pandas as pd

        df = pd.DataFrame(np.asarray(self.scores).T, columns=list(self.models))
        df.insert(0, "item", list(self.items))
        if self.groups is not None:
            df.insert(1, "group", list(self.groups))
        return df

    def to_long(self) -> "pd.DataFrame":
        """The matrix as a long DataFrame ``model, item, run[, condition][, group], score``
        (NaN cells omitted)."""
        import pandas as pd

        m, i, r = np.nonzero(~np.isnan(self.data))
        out = {
            "model": np.asarray(self.models, dtype=object)[m],
            "item": np.asarray(self.items, dtype=object)[i],
            "run": np.asarray(self.runs, dtype=object)[r],
        }
        if self.conditions is not None:
            out["condition"] = np.asarray(self.conditions, dtype=object)[r]
        if self.groups is not None:
            out["group"] = np.asarray(self.groups, dtype=object)[i]
        out["score"] = self.data[m, i, r]
        return pd.DataFrame(out)

    # ------------------------------------------------------------- display
    def __repr__(self) -> str:
        extra = []
        if self.n_runs > 1:
            extra.append(f"{self.n_runs} runs")
        if self.groups is not None:
            g = len(set(self.groups))
            extra.append(f"{g} group{'s' if g != 1 else ''}")
        if self.conditions is not None:
            extra.append(f"{len(set(self.conditions))} conditions")
        missing = int(np.isnan(self.scores).sum())
        if missing:
            extra.append(f"{missing} missing")
        tail = (", " + ", ".join(extra)) if extra else ""
        return f"<ScoreMatrix {self.n_models} models x {self.n_items} items{tail}>"

    def _repr_html_(self) -> str:  # pragma: no cover - display only
        import html

        s = self.scores
        rows = "".join(
            f"<tr><td>{html.escape(m)}</td><td>{int((~np.isnan(s[k])).sum())}</td>"
            f"<td>{np.nanmean(s[k]) * 100:.2f}</td></tr>"
            for k, m in enumerate(self.models[:50])
        )
        return (
            f"<p>{html.escape(repr(self))}</p><table><thead><tr><th>model</th><th>items</th>"
            f"<th>mean ×100</th></tr></thead><tbody>{rows}</tbody></table>"
        )
