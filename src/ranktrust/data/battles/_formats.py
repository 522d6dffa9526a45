"""The battle formats: a plain battles table, Chatbot Arena ``clean_battle`` JSON, Arena-Hard-Auto
judgments, AlpacaEval annotations and MT-Bench pairwise judgments, each turned into the canonical
columns of :mod:`._canon` (sources and conventions: docs/formats/battles.md).
"""

from __future__ import annotations

import gzip
import json
import math
import os
import zlib
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from ...errors import ArgumentError, DataError, FormatError
from ..readers._util import iter_jsonl, load_json
from ._canon import (CONV_METADATA, PER_ITEM, STYLE_A, STYLE_B, WINNER_SCORES, BattleTable, Labels, Where, finish,
                     label_of, missing_text)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: columns tried, in order, for the prompt id when `prompt` is not given
CLUSTER_GUESSES = ("cluster", "question_id", "prompt_id", "uid")
JUDGE_COLUMNS = ("judge", "annotator", "judge_hash")
USER_COLUMNS = ("user", "user_id", "evaluation_session_id")
#: arena-human-preference-55k (Kaggle): one 0/1 column per outcome
ONE_HOT = {"winner_model_a": "model_a", "winner_model_b": "model_b", "winner_tie": "tie"}

#: Arena-Hard verdict -> (score of assistant A in that game, strong). v0.1 writes the first five;
#: v2's show_result also maps the mirrored spellings (``label_to_score`` in show_result.py @196f6b8).
ARENA_HARD_LABELS = {
    "A>>B": (1.0, True), "A>B": (1.0, False), "A=B": (0.5, False), "B>A": (0.0, False), "B>>A": (0.0, True),
    "A<<B": (0.0, True), "A<B": (0.0, False), "B=A": (0.5, False), "B<<A": (1.0, True), "B<A": (1.0, False),
}
MT_BENCH_LABELS = ("model_1", "model_2", "tie")


def _dropped(source: str, reasons: dict[str, int]) -> dict[str, Any]:
    return {"code": "dropped", "source": source, "rows": int(sum(reasons.values())),
            "reasons": {k: int(v) for k, v in reasons.items() if v}}


# ------------------------------------------------------------------------------------------- tables
def from_table(df: "pd.DataFrame", where: Where, *, cluster: str | None, fmt: str = "table",
               strong: float = 1.0, text: bool = True) -> BattleTable:
    """A battles table (``model_a, model_b, winner`` or ``score``, ...) in the canonical columns.

    ``strong`` > 1: the table is an Arena-Hard battles file whose strong verdicts are written ``strong``
    times; each game becomes one row again, with weight ``strong`` (:func:`_collapse_replicates`).
    ``text=False``: for a caller that rates from the codes (:func:`._canon.finish`); a table with a ``score``
    column then gets no ``winner`` labels made from it."""
    import pandas as pd

    cols = [str(c) for c in df.columns]
    df = df.set_axis(cols, axis=1).reset_index(drop=True)
    for need in ("model_a", "model_b"):
        if need not in cols and "model" in cols:
            raise DataError(PER_ITEM.format(source=where.source, columns=", ".join(map(repr, cols[:8]))),
                            param="source")
        if need not in cols:
            raise DataError(f"{where.source}: no {need!r} column (columns: {', '.join(map(repr, cols[:12]))}); a "
                            "battles table needs model_a, model_b and winner (or score): rename the columns",
                            param="source")
    used = {"model_a", "model_b"}
    out = pd.DataFrame({"model_a": df["model_a"], "model_b": df["model_b"]})
    score, winner = _outcome(df, cols, where, used, text=text)
    out["score"] = score
    if winner is not None:
        out["winner"] = winner
    if "weight" in cols:
        w = pd.to_numeric(df["weight"], errors="coerce")
        bad = w.isna().to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DataError(f"{where.at(i)}: weight {df['weight'].iloc[i]!r} is not a number; give every battle a "
                            "positive weight, or leave the column out (weight 1)", param="source")
        out["weight"] = w.to_numpy(dtype=np.float64)
        used.add("weight")
    else:
        out["weight"] = 1.0
    name = _cluster_column(cols, cluster, where)
    if name is not None:
        out["cluster"] = df[name]
        used.add(name)
    for target, names in (("judge", JUDGE_COLUMNS), ("user", USER_COLUMNS)):
        hit = next((c for c in names if c in cols), None)
        if hit is not None:
            out[target] = df[hit]
            used.add(hit)
    if "turn" in cols:
        out["turn"] = df["turn"]
        used.add("turn")
    notes: list[dict[str, Any]] = []
    style = [c for c in cols if c.startswith((STYLE_A, STYLE_B))]
    for c in style:
        out[c] = df[c]
    used.update(style)
    if "conv_metadata" in cols and not style:
        feats, missing = _conv_metadata(df["conv_metadata"], where)
        for k, v in feats.items():
            out[k] = v
        used.add("conv_metadata")
        if missing:
            notes.append({"code": "style_missing", "source": where.source, "rows": int(missing)})
    ignored = [c for c in cols if c not in used]
    if ignored:
        notes.append({"code": "columns_ignored", "source": where.source, "columns": ignored})
    if name is not None:      # the source's own name of the prompt ids, which `cluster_by` may use
        notes.append({"code": "prompt_column", "source": where.source, "column": name})
    else:                     # no prompt ids: rows repeating an earlier one in every column (replicates, copies)
        notes.append({"code": "duplicate_rows", "source": where.source, "rows": _duplicates(df, out)})
    notes.append(_dropped(where.source, {}))
    if strong != 1.0:
        if "weight" in used:
            raise DataError(f"{where.source}: `weight_strong` rebuilds the weights of an Arena-Hard battles file "
                            "(strong verdicts written several times); this table has its own `weight` column: "
                            "read it without `weight_strong`", param="weight_strong")
        out, where, note = _collapse_replicates(out, where, strong)
        notes.append(note)
    return finish(out, where, notes, fmt=fmt, records=len(df), text=text)


def _duplicates(df: "pd.DataFrame", out: "pd.DataFrame") -> int:
    """Rows identical to an earlier row in every column of the source (its canonical columns when a column
    holds values that cannot be compared, such as dicts)."""
    try:
        return int(df.duplicated().sum())
    except TypeError:
        return int(out.duplicated().sum())


def _collapse_replicates(out: "pd.DataFrame", where: Where, strong: float
                         ) -> "tuple[pd.DataFrame, Where, dict[str, Any]]":
    """Arena-Hard battles file -> one row per game: undo ``show_result.py``'s ``[output] * weight``.

    ``get_battles_from_judgment`` writes, per (question, model), game 1 then game 2, each once or ``strong``
    times (a strong verdict). So the rows of one (question, model_a, model_b) are contiguous, and either
    two runs of equal outcomes (one game each, 1 or ``strong`` rows long) or one run of 1, 2, 1 + strong,
    strong or 2 * strong rows (one or two games with the same outcome). Anything else is refused: the
    table was not written that way.
    """
    w = float(strong)
    if not w.is_integer() or w < 3:
        raise ArgumentError(f"`weight_strong`={strong!r} on a battles table: the rows of a strong verdict are "
                            "counted, so the weight must be a whole number >= 3 (Arena-Hard writes 3)",
                            param="weight_strong")
    k = int(w)
    if "cluster" not in out.columns:
        raise DataError(f"{where.source}: `weight_strong` on a battles table rebuilds Arena-Hard's games per "
                        "question, so it needs the question ids (a question_id column, or `prompt`)",
                        param="weight_strong")
    n = len(out)
    codes = [Labels.of(out[c]).codes for c in ("cluster", "model_a", "model_b")]
    score = np.asarray(out["score"], dtype=np.float64)
    change = np.zeros(n, dtype=bool)
    change[0] = True
    for c in codes:
        change[1:] |= c[1:] != c[:-1]
    starts = np.flatnonzero(change)
    keys = list(zip(*(c[starts] for c in codes)))
    if len(set(keys)) != len(keys):
        seen: set[tuple[int, ...]] = set()
        for st_, key in zip(starts, keys):
            if key in seen:
                raise DataError(f"{where.at(int(st_))}: the rows of question {out['cluster'].iloc[st_]!r}, "
                                f"{out['model_a'].iloc[st_]!r} against {out['model_b'].iloc[st_]!r} are not "
                                "together; `weight_strong` rebuilds games only from a battles file in the order "
                                "Arena-Hard's show_result.py wrote it", param="weight_strong")
            seen.add(key)
    ends = np.r_[starts[1:], n]
    single = {1: [1], 2: [1, 1], k: [k], 1 + k: [1, k], 2 * k: [k, k]}
    first, weight = [], []
    order_unknown = 0
    for b0, b1 in zip(starts, ends):
        runs = np.flatnonzero(np.r_[True, score[b0 + 1:b1] != score[b0:b1 - 1]]) + b0
        lengths = np.diff(np.r_[runs, b1])
        if len(runs) == 1 and int(lengths[0]) in single:
            games = single[int(lengths[0])]
            order_unknown += len(games) == 2 and games[0] != games[1]
            pos = [int(b0), int(b0) + games[0]]
        elif len(runs) == 2 and all(int(x) in (1, k) for x in lengths):
            games = [int(x) for x in lengths]
            pos = [int(r) for r in runs]
        else:
            raise DataError(f"{where.at(int(b0))}: question {out['cluster'].iloc[b0]!r}, {out['model_a'].iloc[b0]!r} "
                            f"against {out['model_b'].iloc[b0]!r} has runs of {', '.join(map(str, lengths))} equal "
                            f"rows: not two games written once or {k} times each (Arena-Hard's show_result.py); "
                            "read the file without `weight_strong`", param="weight_strong")
        for p, g in zip(pos, games):
            first.append(p)
            weight.append(float(g))
    first_arr = np.asarray(first, dtype=np.int64)
    res = out.iloc[first_arr].reset_index(drop=True)
    res["weight"] = np.asarray(weight)
    nums = (np.asarray(where.numbers)[first_arr] if where.numbers is not None else first_arr + where.offset)
    note = {"code": "replicated_rows_collapsed", "source": where.source, "rows": int(n), "games": len(first),
            "strong_games": int(sum(g == k for g in weight)), "weight": float(k),
            "game_order_unknown": int(order_unknown)}
    return res, Where(where.source, where.kind, nums), note


def _outcome(df: "pd.DataFrame", cols: list[str], where: Where, used: set[str], text: bool = True
             ) -> tuple[np.ndarray, Any]:
    """(score of model_a, winner label) from a ``score`` column, ``winner`` labels or one-hot columns;
    ``text=False``: no labels made from a ``score`` column (None)."""
    import pandas as pd

    if "score" in cols:
        raw = df["score"]
        s = pd.to_numeric(raw, errors="coerce")
        bad = s.isna().to_numpy()
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            what = "is missing" if missing_text(raw)[i] else f"{raw.iloc[i]!r} is not a number"
            raise DataError(f"{where.at(i)}: score {what} ({int(bad.sum())} such rows); a score is model_a's "
                            "result in [0, 1] (1 win, 0.5 tie, 0 loss): fix or drop the row", param="source")
        score = s.to_numpy(dtype=np.float64)
        used.add("score")
        if "winner" not in cols:
            return score, (label_of(score) if text else None)
        used.add("winner")
        w = Labels.of(df["winner"])
        labels = np.where(w.missing, "", np.append(w.text, None)[w.codes]).astype(object)
        want = _label_scores(w)
        known = ~np.isnan(want)
        unknown = ~known & (labels != "")
        if unknown.any():
            i = int(np.flatnonzero(unknown)[0])
            raise DataError(f"{where.at(i)}: winner {labels[i]!r} is not a known label ({', '.join(WINNER_SCORES)}, "
                            "or empty beside a probability score); fix or drop the row", param="source")
        clash = known & (want != score)
        if clash.any():
            i = int(np.flatnonzero(clash)[0])
            raise DataError(f"{where.at(i)}: winner {labels[i]!r} disagrees with score {score[i]:g} ("
                            f"{int(clash.sum())} such rows); keep one of the two columns, or fix the row",
                            param="source")
        return score, labels
    if "winner" in cols:
        used.add("winner")
        w = Labels.of(df["winner"])
        if w.missing.any():
            i = int(np.flatnonzero(w.missing)[0])
            raise DataError(f"{where.at(i)}: winner is missing ({int(w.missing.sum())} such rows); give each "
                            "battle's winner (model_a, model_b, tie or tie (bothbad)) or drop the row",
                            param="source")
        score = _label_scores(w)
        unknown = np.isnan(score)
        if unknown.any():
            i = int(np.flatnonzero(unknown)[0])
            raise DataError(f"{where.at(i)}: winner {w.text[w.codes[i]]!r} is not a known label ("
                            f"{', '.join(WINNER_SCORES)}; {int(unknown.sum())} such rows); fix or drop the row",
                            param="source")
        return score, w.values()
    if all(c in cols for c in ONE_HOT):
        used.update(ONE_HOT)
        hot = np.column_stack([pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=np.float64) for c in ONE_HOT])
        h = np.nan_to_num(hot, nan=-1.0)
        bad = ~np.isin(h, (0.0, 1.0)).all(axis=1) | (h.sum(axis=1) != 1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise DataError(f"{where.at(i)}: winner_model_a, winner_model_b and winner_tie must hold one 1 and two "
                            f"0s ({int(bad.sum())} such rows); fix or drop the row", param="source")
        lab = np.array(list(ONE_HOT.values()), dtype=object)[hot.argmax(axis=1)]
        return np.array([WINNER_SCORES[x] for x in ONE_HOT.values()])[hot.argmax(axis=1)], lab
    raise DataError(f"{where.source}: no outcome column: a battles table needs `winner` (model_a, model_b, tie, "
                    f"tie (bothbad)) or `score` (model_a's result in [0, 1]); columns: "
                    f"{', '.join(map(repr, cols[:12]))}", param="source")


def _label_scores(w: Labels) -> np.ndarray:
    """model_a's score for each row's winner label (NaN for an unknown or missing label)."""
    per = np.array([WINNER_SCORES.get(t, np.nan) for t in w.text] + [np.nan], dtype=np.float64)
    return per[w.codes]


def _cluster_column(cols: list[str], cluster: str | None, where: Where) -> str | None:
    if cluster is None:
        return next((c for c in CLUSTER_GUESSES if c in cols), None)
    if cluster == "":
        return None
    if cluster not in cols:
        raise DataError(f"{where.source}: no prompt-id column `prompt`={cluster!r}; columns: "
                        f"{', '.join(map(repr, cols[:12]))}", param="prompt", code="no_prompt_column",
                        data={"source": where.source, "column": cluster, "columns": list(cols)})
    return cluster


def _conv_metadata(meta: "pd.Series", where: Where) -> tuple[dict[str, np.ndarray], int]:
    """FastChat / LMArena ``conv_metadata`` -> raw per-side style counts (dict values summed, as FastChat)."""
    n = len(meta)
    out = {f"{side}{feat}": np.full(n, np.nan) for _, feat in CONV_METADATA for side in (STYLE_A, STYLE_B)}
    missing = 0
    for i, m in enumerate(meta.tolist()):
        if isinstance(m, str):
            try:
                m = json.loads(m)
            except json.JSONDecodeError:
                raise DataError(f"{where.at(i)}: conv_metadata is not valid JSON", param="source") from None
        if not isinstance(m, dict):
            missing += 1
            continue
        for key, feat in CONV_METADATA:
            for side, prefix in (("a", STYLE_A), ("b", STYLE_B)):
                v = m.get(key.format(side))
                if isinstance(v, dict):
                    v = sum(v.values())
                if v is not None:
                    out[f"{prefix}{feat}"][i] = v
    return out, missing


def from_clean_battle(path: str, *, cluster: str | None) -> BattleTable:
    """Chatbot Arena ``clean_battle_*.json``: a JSON array of battle records (FastChat clean_battle_data.py)."""
    import pandas as pd

    data = load_json(path, what="clean_battle file")
    if not isinstance(data, list):
        raise FormatError(f"{path}: a clean_battle file is a JSON array of battles; this one holds a "
                          f"{type(data).__name__}", param="format")
    bad = next((i for i, r in enumerate(data) if not isinstance(r, dict)), None)
    if bad is not None:
        raise DataError(f"{path}: record {bad + 1} is not a JSON object (a battle with model_a, model_b, winner)",
                        param="source")
    keep = ("model_a", "model_b", "winner", "score", "weight", "turn", "conv_metadata", *CLUSTER_GUESSES,
            *JUDGE_COLUMNS, *USER_COLUMNS)
    seen: dict[str, None] = {}
    for r in data:
        seen.update(dict.fromkeys(r))
    cols = {k: [r.get(k) for r in data] for k in keep if k in seen or k in ("model_a", "model_b")}
    df = pd.DataFrame(cols)
    res = from_table(df, Where(path, "record"), cluster=cluster, fmt="clean_battle")
    ignored = [k for k in seen if k not in cols]
    if ignored:
        res.table.attrs["notes"].insert(1, {"code": "columns_ignored", "source": path, "columns": ignored})
    return res


# ------------------------------------------------------------------------------------ Arena-Hard
def strong_weight(weight_strong: Any) -> float:
    """`weight_strong`: False -> 1, True -> 3 (Arena-Hard's default), or a number >= 1 (its ``--weight``)."""
    if weight_strong is False or weight_strong is None:
        return 1.0
    if weight_strong is True:
        return 3.0
    try:
        w = float(weight_strong)
    except (TypeError, ValueError):
        w = float("nan")
    if not math.isfinite(w) or w < 1:
        raise ArgumentError(f"`weight_strong` must be True (weight 3, as Arena-Hard), False (1) or a number >= 1; "
                            f"got {weight_strong!r}", param="weight_strong")
    return w


class _Rows:
    """The rows a JSON format's parser collects, each with the line or record it came from. :meth:`frame`
    adds the winner label each score stands for and drops the optional columns the source never fills
    (``cluster`` stays: a missing prompt id is an error of :func:`finish`)."""

    def __init__(self, *optional: str) -> None:
        self.cols: dict[str, list[Any]] = {k: [] for k in ("model_a", "model_b", "score", "weight", *optional)}
        self.optional = optional
        self.at: list[int] = []

    def add(self, at: int, **values: Any) -> None:
        if values.keys() != self.cols.keys():
            raise TypeError(f"a row needs exactly {', '.join(self.cols)}")   # a parser bug, not bad data
        for k, v in values.items():
            self.cols[k].append(v)
        self.at.append(at)

    def frame(self) -> "tuple[pd.DataFrame, np.ndarray]":
        import pandas as pd

        df = pd.DataFrame(self.cols)
        df.insert(3, "winner", label_of(np.asarray(df["score"], dtype=np.float64)))
        for c in self.optional:
            if c != "cluster" and df[c].isna().all():
                df = df.drop(columns=c)
        return df, np.asarray(self.at, dtype=np.int64)


def from_arena_hard(path: str, *, weight_strong: Any, baseline: str | None) -> BattleTable | None:
    """Arena-Hard-Auto judgments (``data/<bench>/model_judgment/<judge>/<model>.jsonl``, v0.1 and v2).

    One record per (question, model) with two games: in game 1 the baseline is assistant A, in game 2
    the positions are swapped (gen_judgment.py). Each game becomes one row with ``model_a`` = the
    baseline and ``model_b`` = the judged model, as Arena-Hard's own battles files have it; its score
    is the baseline's (game 1: the verdict's score of A; game 2: one minus it). A strong verdict
    (``A>>B``, ``B>>A``) is one row of weight 3 when `weight_strong` is true, never three rows.
    Unjudged games (score null) are left out as Arena-Hard leaves them out: v0.1 records
    (``question_id``) lose the game, v2 records (``uid``) the whole record. A record of the baseline judged
    against itself (the baseline's own file in a judgment folder) says nothing about the ranking and is left
    out; each kind is counted in the ``dropped`` note. A file that holds nothing else (the baseline's own
    judgment file) gives None: a folder skips it with a note, a file named alone is an error.
    """
    w_strong = strong_weight(weight_strong)
    rows = _Rows("cluster", "judge")
    dropped = {"unjudged_game": 0, "record_with_unjudged_game": 0, "baseline_against_itself": 0}
    keys: set[str] = set()
    strong = 0
    records = 0
    for lineno, rec in iter_jsonl(path):
        records += 1
        if not isinstance(rec, dict) or "games" not in rec or "model" not in rec:
            raise DataError(f"{path}: line {lineno}: not an Arena-Hard judgment (a record needs model and games)",
                            param="source")
        key = "uid" if "uid" in rec else "question_id"   # v2 and v0.1's names of the prompt id
        keys.add(key)
        qid = rec.get(key)
        base = rec.get("baseline")
        if base is None:       # v0.1: the baseline is in the judge config; a record that names one keeps it
            base = baseline    # (v2 folders mix two: o3-mini for hard prompts, gemini-2.0-flash for creative writing)
        if base is None:
            raise DataError(f"{path}: line {lineno}: the judgment names no baseline (Arena-Hard v0.1 keeps it in "
                            "its judge config); pass `baseline`, e.g. `baseline`='gpt-4-0314' (v0.1's default)",
                            param="baseline")
        if rec["model"] == base:   # the baseline's own judgment file (v0.1 folders hold one): no information
            dropped["baseline_against_itself"] += 1
            continue
        games = rec["games"]
        if not isinstance(games, list) or len(games) not in (1, 2):
            raise DataError(f"{path}: line {lineno}: `games` must list the 1 or 2 judged games of the record, "
                            f"got {type(games).__name__} of length {len(games) if isinstance(games, list) else '-'}",
                            param="source")
        labels = [g.get("score") if isinstance(g, dict) else None for g in games]
        if any(lab is None for lab in labels) and "uid" in rec:
            dropped["record_with_unjudged_game"] += 1
            continue
        for gi, lab in enumerate(labels):
            if lab is None:
                dropped["unjudged_game"] += 1
                continue
            if lab not in ARENA_HARD_LABELS:
                raise DataError(f"{path}: line {lineno}: game {gi + 1} has verdict {lab!r}, not one of "
                                f"{', '.join(ARENA_HARD_LABELS)}; fix the verdict, or set it to null to leave the "
                                "game out", param="source")
            s_a, is_strong = ARENA_HARD_LABELS[lab]
            s = s_a if gi == 0 else 1.0 - s_a          # game 2: the judged model is assistant A
            strong += is_strong
            rows.add(lineno, model_a=base, model_b=rec["model"], score=s, weight=w_strong if is_strong else 1.0,
                     cluster=qid, judge=rec.get("judge"))
    if records and dropped["baseline_against_itself"] == records:
        return None
    df, lines = rows.frame()
    notes = [{"code": "strong_verdicts", "source": path, "games": int(strong), "weight": w_strong},
             _dropped(path, dropped)]
    notes += [{"code": "prompt_column", "source": path, "column": k} for k in sorted(keys)]   # cluster_by's name
    return finish(df, Where(path, "line", lines), notes, fmt="arena_hard", records=records)


# ------------------------------------------------------------------------------------- AlpacaEval
def from_alpaca_eval(path: str) -> BattleTable:
    """AlpacaEval ``annotations.json``: ``generator_1`` (the baseline) is model_a, ``generator_2`` model_b.

    ``preference`` 1 = output_1 (the baseline) preferred, 2 = output_2 preferred, 1.5 (or 0, AlpacaEval's
    older spelling) a draw; weighted annotators give a probability in [1, 2]. The score of model_a is
    ``2 - preference``. Records without a preference are left out, as AlpacaEval leaves them out.
    """
    data = load_json(path, what="annotations file")
    if not isinstance(data, list):
        raise FormatError(f"{path}: AlpacaEval annotations are a JSON array of records; this one holds a "
                          f"{type(data).__name__}", param="format")
    rows = _Rows("cluster", "judge")
    dropped = {"no_preference": 0}
    for k, r in enumerate(data, 1):
        if not isinstance(r, dict):
            raise DataError(f"{path}: record {k} is not a JSON object", param="source")
        p = r.get("preference")
        if p is None or (isinstance(p, float) and math.isnan(p)):
            dropped["no_preference"] += 1
            continue
        try:
            p = float(p)
        except (TypeError, ValueError):
            raise DataError(f"{path}: record {k}: preference {r.get('preference')!r} is not a number (1 = "
                            "generator_1 preferred, 2 = generator_2, 1.5 = draw)", param="source") from None
        if p == 0.0:
            p = 1.5
        if not 1.0 <= p <= 2.0:
            raise DataError(f"{path}: record {k}: preference {p!r} is outside [1, 2] (1 = generator_1 preferred, "
                            "2 = generator_2, 1.5 or 0 = draw); fix or drop the record", param="source")
        rows.add(k, model_a=r.get("generator_1"), model_b=r.get("generator_2"), score=2.0 - p, weight=1.0,
                 cluster=r.get("instruction"), judge=r.get("annotator"))
    df, recs = rows.frame()
    return finish(df, Where(path, "record", recs), [_dropped(path, dropped)], fmt="alpaca_eval", records=len(data))


# ------------------------------------------------------------------------------------- MT-Bench
def from_mt_bench(path: str) -> BattleTable:
    """MT-Bench ``model_judgment/gpt-4_pair.jsonl`` (FastChat llm_judge): one row per pairwise judgment.

    ``g1_winner`` and ``g2_winner`` are the two position orders, both already named as ``model_1`` /
    ``model_2``. As FastChat's show_result.py: a tie in game 1 or two games that disagree is a tie;
    judgments with an ``error`` verdict are left out.
    """
    rows = _Rows("cluster", "judge", "turn")
    dropped = {"error_verdict": 0}
    inconsistent = 0
    records = 0
    for lineno, rec in iter_jsonl(path):
        records += 1
        if not isinstance(rec, dict) or "g1_winner" not in rec:
            if isinstance(rec, dict) and "score" in rec and "model" in rec:
                raise FormatError(f"{path}: line {lineno}: this is MT-Bench single-answer grading (one 1-10 score "
                                  "per answer), not pairwise judgments; read per-item scores with `rt.read`",
                                  param="format")
            raise DataError(f"{path}: line {lineno}: not an MT-Bench pairwise judgment (needs model_1, model_2, "
                            "g1_winner, g2_winner)", param="source")
        g1, g2 = rec.get("g1_winner"), rec.get("g2_winner")
        if g1 == "error" or g2 == "error":
            dropped["error_verdict"] += 1
            continue
        for g, name in ((g1, "g1_winner"), (g2, "g2_winner")):
            if g not in MT_BENCH_LABELS:
                raise DataError(f"{path}: line {lineno}: {name} {g!r} is not one of model_1, model_2, tie (or "
                                "error, which is left out); fix or drop the judgment", param="source")
        if g1 == "tie" or g1 != g2:
            s = 0.5
            inconsistent += g1 != g2
        else:
            s = 1.0 if g1 == "model_1" else 0.0
        judge = rec.get("judge")
        rows.add(lineno, model_a=rec.get("model_1"), model_b=rec.get("model_2"), score=s, weight=1.0,
                 cluster=rec.get("question_id"), judge="/".join(map(str, judge)) if isinstance(judge, list) else judge,
                 turn=rec.get("turn"))
    df, lines = rows.frame()
    notes = [{"code": "inconsistent_as_tie", "source": path, "judgments": int(inconsistent)},
             _dropped(path, dropped)]
    return finish(df, Where(path, "line", lines), notes, fmt="mt_bench", records=records)


# ---------------------------------------------------------------------------- files: sniffing, tables
TABLE_SUFFIXES = (".csv", ".csv.gz", ".tsv", ".tsv.gz", ".parquet", ".pq")
JSON_SUFFIXES = (".jsonl", ".jsonl.gz", ".ndjson", ".json", ".json.gz")
_HEAD = 1 << 22  # bytes read to sniff a JSON file's first record


def read_table_file(path: str, prompt: str | None, strong: float, text: bool = True) -> BattleTable:
    """A battles table from a CSV, TSV, Parquet or JSON-lines file (a JSON array is a clean_battle file).

    ``text=False`` (a caller that rates from the codes, :func:`._canon.finish`): a Parquet file's text columns
    ``model_a`` and ``model_b`` are read as their dictionaries (categorical: no text per row to make and
    hash), and the label columns made only where needed."""
    import pandas as pd

    if json_kind(path) == "array":
        return from_clean_battle(path, cluster=prompt)
    p = path.lower()
    if p.endswith((".parquet", ".pq")):
        try:
            df = pd.read_parquet(path, **({} if text else {"read_dictionary": _text_columns(path)}))
        except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for a bad file
            raise FormatError(f"{path}: not a readable Parquet file ({str(exc).splitlines()[0]})",
                              param="format") from None
        return from_table(df, Where(path, "row"), cluster=prompt, strong=strong, text=text)
    if p.endswith(JSON_SUFFIXES):
        lines, recs = [], []
        for lineno, rec in iter_jsonl(path):
            if not isinstance(rec, dict):
                raise DataError(f"{path}: line {lineno} is not a JSON object (one battle per line)", param="source")
            lines.append(lineno)
            recs.append(rec)
        return from_table(pd.DataFrame(recs), Where(path, "line", np.asarray(lines, dtype=np.int64)),
                          cluster=prompt, strong=strong)
    sep = "\t" if p.endswith((".tsv", ".tsv.gz")) else ","
    try:
        df = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False)
    except (UnicodeDecodeError, pd.errors.ParserError, EOFError, zlib.error, OSError) as exc:
        raise FormatError(f"{path}: not a readable {'TSV' if sep == chr(9) else 'CSV'} file "
                          f"({str(exc).splitlines()[0]})", param="format") from None
    return from_table(df, Where(path, "line", offset=2), cluster=prompt, strong=strong)


def _text_columns(path: str) -> list[str]:
    """The columns ``model_a`` and ``model_b`` of a Parquet file that hold text (read as dictionaries)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    return [c for c in ("model_a", "model_b") if c in schema.names
            and (pa.types.is_string(schema.field(c).type) or pa.types.is_large_string(schema.field(c).type))]


def per_item_table(path: str) -> bool:
    """A CSV/TSV whose header names ``model`` and no ``model_a``: a per-item score table."""
    if not path.lower().endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz")):
        return False
    first = head(path, 1 << 14).split(b"\n", 1)[0].decode("utf-8", errors="replace")
    cols = {c.strip().strip('"') for c in first.replace("\t", ",").split(",")}
    return "model" in cols and "model_a" not in cols


def head(path: str, size: int = _HEAD) -> bytes:
    """The first ``size`` bytes of a file (gunzipped); a damaged file is a FormatError."""
    try:
        with (gzip.open if path.lower().endswith(".gz") else open)(path, "rb") as fh:  # type: ignore[operator]
            return fh.read(size)
    except (EOFError, OSError, zlib.error) as exc:
        raise FormatError(f"{path}: the file cannot be read ({exc}); re-download or re-export it",
                          param="source") from None


def check_not_empty(path: str) -> None:
    """An empty file (nothing but blanks) is a DataError naming it."""
    if path.lower().endswith((".parquet", ".pq")):
        return
    if not head(path, 1 << 16).strip():
        raise DataError(f"{path}: the file is empty; expected one battle or judged game per row", param="source")


def json_kind(path: str) -> str | None:
    """'array' (a JSON array), 'lines' (JSON objects, one per line) or None."""
    if not path.lower().endswith(JSON_SUFFIXES):
        return None
    text = head(path, 1 << 12).lstrip()
    if text.startswith(b"["):
        return "array"
    if text.startswith(b"{"):
        return "lines"
    return None


def first_record(path: str) -> Any:
    """The first record of a JSON array or JSON-lines file (None when it cannot be parsed from the head)."""
    text = head(path).decode("utf-8", errors="replace").lstrip()
    dec = json.JSONDecoder()
    try:
        if text.startswith("["):
            body = text[1:].lstrip()
            return dec.raw_decode(body)[0] if body and not body.startswith("]") else None
        if text.startswith("{"):
            return json.loads(text.split("\n", 1)[0])
    except json.JSONDecodeError:
        return None
    return None


def json_format(path: str) -> str | None:
    """The battle format a JSON file's first record shows (``arena_hard``, ``mt_bench``, ``alpaca_eval``,
    ``clean_battle`` for an array of battles, ``table`` for JSON lines of battles), or None. The sniffers of
    the five formats share it; it is read once per file version."""
    st = os.stat(path)
    return _json_format(os.fspath(path), st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=64)
def _json_format(path: str, _size: int, _mtime: int) -> str | None:
    kind = json_kind(path)
    if kind is None:
        return None
    rec = first_record(path)
    if not isinstance(rec, dict):
        return None
    if "games" in rec and "model" in rec:
        return "arena_hard"
    if "g1_winner" in rec:
        return "mt_bench"
    if "generator_1" in rec and "preference" in rec:
        return "alpaca_eval"
    if "model_a" in rec and "model_b" in rec:
        return "clean_battle" if kind == "array" else "table"
    return None


def what_it_holds(path: str) -> str:
    """What a file that is in no battles format holds, for the error."""
    rec = first_record(path) if path.lower().endswith(JSON_SUFFIXES) else None
    if isinstance(rec, dict):
        if "model" in rec and "score" in rec and "judge" in rec:
            return "it looks like single-answer grading: one score per answer, read it with `rt.read`"
        return "its first record has keys " + ", ".join(map(repr, list(rec)[:8]))
    return "unrecognised content or file name"
