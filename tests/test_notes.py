"""reporting/_notes.py: the one place that words a Note record (issue 23 §1: analysis code writes no sentence).

Every code an analysis builds (``Note("code", ...)``, ``b.note("code", ...)`` anywhere under ``src/ranktrust``) has a
wording here, so no record reaches a reader as ``code: data``; ``worded`` adds the sentence to a JSON record.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from ranktrust.reporting._notes import NOTE_WORDS, note_text, worded
from ranktrust.results import Note

SRC = Path(__file__).resolve().parents[1] / "src" / "ranktrust"


def _codes_built() -> dict[str, str]:
    """code -> file:line of every Note("code", ...) / b.note("code", ...) in the package."""
    out: dict[str, str] = {}
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                    and isinstance(node.args[0].value, str):
                f = node.func
                name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                if name == "Note" or (name == "note" and isinstance(f, ast.Attribute)):
                    out.setdefault(node.args[0].value, f"{path.relative_to(SRC)}:{node.lineno}")
    return out


def test_every_code_an_analysis_builds_is_worded():
    built = _codes_built()
    # the scan finds the codes of this moves (a scan that finds nothing would pass vacuously)
    assert {"helm_mean", "helm_instances", "ragged_runs", "between_var_clipped", "single_run", "constant_item_means",
            "pooled_conditions", "no_detectable_gap", "prob_column", "zero_spread", "input"} <= set(built)
    missing = {c: where for c, where in built.items() if c not in NOTE_WORDS}
    assert not missing, f"codes without a wording in reporting/_notes.py: {missing}"


def test_worded_adds_the_sentence_and_keeps_the_record():
    rec = Note("single_run", {"model": "m"}).to_dict()
    assert worded(rec) == {**rec, "text": "m has a single run; its run sd and within-item variance are not defined"}
    assert worded([rec, "a sentence", {**rec, "text": "kept"}]) == [worded(rec), "a sentence", {**rec, "text": "kept"}]
    assert worded(None) is None
    assert note_text(Note("no_such_code", {"n": 3})) == "no_such_code: n 3"     # never silently dropped


@pytest.mark.parametrize("code, data, text", [
    # the sentences the readers, the matrix and rt.sensitivity wrote before these notes were records
    # (issue 23 §1): the same words, options in the API's words (the command line turns them into flags)
    ("harness_skipped", {"harness": "lighteval", "column": "task", "value": "mcq", "held": ["a", "b"]},
     "lighteval logs skipped: they hold no task 'mcq' (they hold a, b); read them with `task`='NAME'"),
    ("harness_unread", {"harness": "helm", "path": "logs", "error": "logs: no task 'x'"},
     "helm logs in logs skipped: logs: no task 'x'"),
    ("helm_other_splits", {"path": "p.json", "split": "test", "left_out": [["valid", 1]]},
     "p.json: 1 instance of other splits (1 valid) was left out; test was read (`split` chooses)"),
    ("helm_other_splits", {"path": "p.json", "split": "test", "left_out": [["train", 1200], ["valid", 3]]},
     "p.json: 1,203 instances of other splits (1,200 train, 3 valid) were left out; test was read (`split` chooses)"),
    ("helm_split_chosen", {"path": "p.json", "default": "test", "split": "valid", "n_instances": 1},
     "p.json: the run has no test split; its 1 valid instance was read (`split` chooses another)"),
    ("helm_split_chosen", {"path": "p.json", "default": "test", "split": "valid", "n_instances": 14},
     "p.json: the run has no test split; its 14 valid instances were read (`split` chooses another)"),
    ("swebench_errored", {"path": "r.json", "n_instances": 1, "how": "error_ids", "errors": "wrong"},
     "r.json: 1 instance errored in the harness (error_ids) and was scored unresolved (`errors`='wrong')"),
    ("swebench_errored", {"path": "logs", "n_instances": 2, "how": "empty_report", "errors": "drop"},
     "logs: 2 instances have an empty report.json (errored in the harness) and were left out (`errors`='drop')"),
    ("swebench_errored", {"path": "logs", "n_instances": 1, "how": "no_report", "errors": "wrong"},
     "logs: 1 instance has no report.json or an empty one (errored in the harness) and was scored unresolved "
     "(`errors`='wrong')"),
    ("swebench_unlisted_unresolved", {"path": "r.json", "n_absent": 396, "n_instances": 500,
                                      "dataset": "SWE-bench Verified"},
     "r.json: 396 of the 500 SWE-bench Verified instances are not in the results and were scored unresolved "
     "(`dataset`)"),
    ("swebench_not_submitted", {"path": "r.json", "n_unsent": 494, "total": 500},
     "r.json: 494 of the dataset's 500 instances were not submitted and are not in the matrix (`dataset` scores "
     "them as unresolved)"),
    ("swebench_not_submitted", {"path": "r.json", "n_unsent": 1, "total": 500},
     "r.json: 1 of the dataset's 500 instances was not submitted and is not in the matrix (`dataset` scores it as "
     "unresolved)"),
    ("swebench_missing_instances", {"path": "logs", "n_scored": 60, "run_report": "s.json", "n_listed": 500,
                                    "n_missing": 440},
     "logs: MISSING INSTANCES: only the 60 instances with a report.json are scored; instances whose evaluation "
     "did not finish have none and are not in the matrix (the run report s.json lists 500, so 440 are missing); "
     "read the run report beside them, or pass `dataset`='lite|verified|full' to score them as unresolved"),
    ("swebench_missing_instances", {"path": "logs", "n_scored": 1, "run_report": None, "n_listed": None,
                                    "n_missing": None},
     "logs: MISSING INSTANCES: only the one instance with a report.json is scored; instances whose evaluation "
     "did not finish have none and are not in the matrix (how many is unknown); read the run report beside "
     "them, or pass `dataset`='lite|verified|full' to score them as unresolved"),
    ("inspect_header_only", {"path": "h.json", "n_samples": None},
     "h.json holds only the header of an inspect log and no per-sample scores: skipped (`errors`='drop')"),
    ("eee_metric_chosen", {"path": "s.jsonl", "results": ["acc", "f1"], "chosen": "acc"},
     "s.jsonl: holds 2 results per sample (acc, f1); read 'acc', choose another with `metric`"),
    ("mixed_scoring", {"binary": ["a", "b"], "continuous": ["c", "d", "e", "f", "g", "h"]},
     "mixed scoring: 2 model(s) have only 0/1 scores ('a', 'b') while 6 have fractional scores ('c', 'd', 'e', "
     "'f', 'g' and 1 more); check that all were scored the same way. The table is analysed as continuous "
     "(betting intervals, no McNemar)"),
    ("conditions_missing", {"model": "m", "by": "prompt", "missing": ["p1", "p2"], "n_missing": 2},
     "m has no rows for prompt(s) p1, p2; those prompts are left out of the rankings, flips and stable scores"),
])
def test_reader_note_records_are_worded_as_the_readers_did(code, data, text):
    assert note_text(Note(code, data)) == text


def _sentence_notes(tree: ast.AST) -> list[int]:
    """Lines where a note is made a sentence: a string (f-string or literal) appended to, added to, inserted into
    or assigned as a list of something named ``notes`` (``notes.append(f"...")``, ``df.attrs["notes"] = [...]``)."""
    def named_notes(node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id.endswith("notes")
        if isinstance(node, ast.Attribute):
            return node.attr.endswith("notes")
        if isinstance(node, ast.Subscript):
            return isinstance(node.slice, ast.Constant) and str(node.slice.value).endswith("notes")
        return False

    def sentence(node: ast.AST | None) -> bool:
        if isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            return True
        if isinstance(node, (ast.List, ast.Tuple)):
            return any(sentence(e) for e in node.elts)
        if isinstance(node, ast.BinOp):
            return sentence(node.left) or sentence(node.right)
        if isinstance(node, ast.IfExp):
            return sentence(node.body) or sentence(node.orelse)
        return False

    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and named_notes(node.func.value) \
                and node.func.attr in ("append", "extend", "insert") and any(sentence(a) for a in node.args):
            out.append(node.lineno)
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(named_notes(t) for t in targets) and sentence(node.value):
                out.append(node.lineno)
    return sorted(out)


def test_no_analysis_or_reader_makes_a_note_a_sentence():
    """Issue 23 §1: a note is a Note record everywhere below the presentation layers (cli/, reporting/, plot):
    the readers' notes too, whose option names the command line used to rewrite in the sentence itself."""
    found = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC)
        if rel.parts[0] in ("cli", "reporting", "plot.py", "plots"):
            continue
        lines = _sentence_notes(ast.parse(path.read_text(encoding="utf-8")))
        if lines:
            found[str(rel)] = lines
    assert not found, f"notes made sentences (build a Note record, word it in reporting/_notes.py): {found}"
    # the scan sees each form it looks for
    bad = ('notes.append(f"{n} skipped")\nnotes += [f"{n} left out"]\ndf.attrs["notes"] = ["x"]\n'
           'p.notes.insert(0, "a" + b)\nnotes: list = [x if y else "z"]\nnotes.append(Note("ok"))\n')
    assert _sentence_notes(ast.parse(bad)) == [1, 2, 3, 4, 5]


def test_every_battles_reader_note_that_reaches_the_ratings_is_worded():
    """rt.arena makes ``battles_<code>`` records of the battles reader's notes (an f-string the scan above cannot
    see): each has a wording, and the reader builds each code it names."""
    from ranktrust.preference._core import _SAID

    src = "\n".join(p.read_text(encoding="utf-8") for p in (SRC / "data" / "battles").glob("*.py"))
    for code in _SAID:
        assert f"battles_{code}" in NOTE_WORDS, code
        assert f'"code": "{code}"' in src, f"the battles reader builds no {code!r} note"


def test_option_words_name_the_flags_only_inside_the_block():
    """The command line renders inside ``option_words(cli_words)``: a sentence naming an option in backticks
    reads in its words there, in the API's outside; a record's code and data are the same on both."""
    from ranktrust.reporting import option_words

    rec = Note("helm_split_chosen", {"path": "p.json", "default": "test", "split": "valid", "n_instances": 2})
    api = "p.json: the run has no test split; its 2 valid instances were read (`split` chooses another)"
    with option_words(lambda s: s.replace("`split`", "--split")):
        assert note_text(rec) == api.replace("`split`", "--split")
        assert note_text("see `split`") == "see --split"             # a sentence note (an older store's)
        assert note_text({**rec.to_dict(), "text": "kept"}) == "kept"   # a JSON record keeps its own text
        assert worded(rec.to_dict())["text"] == api.replace("`split`", "--split")
    assert note_text(rec) == api
