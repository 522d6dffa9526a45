"""The report's notes in words: one sentence per :class:`~ranktrust.results.Note` record.

The analysis records what the reader must know as ``{"code": ..., "data": {...}}`` (the JSON keeps the
record); this module is the one place that words it, with every number through :mod:`.fmt`.
:func:`note_text` takes the record (or its JSON); a code without a wording here prints its data.
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Callable, Iterator

from . import _fmt as fmt
from .._text import SWEBENCH_ERRORED_HOW

__all__ = ["note_text", "NOTE_WORDS", "worded", "option_words"]

#: how a sentence names an option of the API: None keeps the API's words (```split`` chooses``); the command line
#: sets its own while it renders (``cli_words``: "--split chooses"), as it does for errors and warnings
_OPTION_WORDS: contextvars.ContextVar[Callable[[str], str] | None] = contextvars.ContextVar("option_words",
                                                                                           default=None)


@contextlib.contextmanager
def option_words(words: Callable[[str], str]) -> Iterator[None]:
    """Within the block, :func:`note_text` passes every sentence that names an API option in backticks through
    ``words`` (the command line's ``cli_words``), so that the text, Markdown, HTML and JSON ``"text"`` of a note
    name the running command's flags while the record (``code``, ``data``) stays the same."""
    token = _OPTION_WORDS.set(words)
    try:
        yield
    finally:
        _OPTION_WORDS.reset(token)


def _dropped(d: dict[str, Any]) -> str:
    by = list((d.get("by_model") or {}).items())
    shown = ", ".join(f"{k} {fmt.count(v)}" for k, v in by[:5])
    more = f" and {len(by) - 5} more models" if len(by) > 5 else ""
    return f"align=intersect dropped {fmt.count(d['total'])} (model, item) results: {shown}{more}"


def _similar(d: dict[str, Any]) -> str:
    group, pairs = d["models"], d["pairs"]
    if len(group) == 2:
        p = pairs[0]
        what = (f"have identical per-item results on all {fmt.count(p['n_items'])} items they share" if p["identical"]
                else f"agree on {fmt.probability(p['agreement'])} of the {fmt.count(p['n_items'])} items they share "
                     f"(differ on {fmt.count(p['n_differ'])}; kappa {fmt.number(p['kappa'], 2)})")
        return (f"{group[0]} and {group[1]} {what}: a duplicate upload, one run under two names, or two models that "
                "give the same answers; they are not independent evidence.")
    lo = min(p["agreement"] for p in pairs)
    items = sorted({p["n_items"] for p in pairs})
    span = fmt.count(items[0]) if len(items) == 1 else f"{fmt.count(items[0])}-{fmt.count(items[-1])}"
    what = ("identical per-item results" if all(p["identical"] for p in pairs) else
            f"identical or near-identical per-item results (pairs agree on at least {fmt.probability(lo)} "
            "of the items they share)")
    return (f"{len(group)} models have {what} on {span} items: {', '.join(group)}. Rows like these come from "
            "duplicate uploads, one run under several names, or models that give the same answer to every item "
            "(e.g. always the first option); they are not independent evidence.")


def _no_detectable_gap(d: dict[str, Any]) -> str:
    return (f"no possible gap is detectable: with {fmt.plural(d['items'], 'item')} and disagreement q = "
            f"{fmt.plain(d['disagreement'])} even the largest possible gap (q) gives the exact McNemar test only "
            f"{fmt.percent(d['best_power'])} power (target {fmt.percent(d['power'])})")


def _is(n: int) -> str:
    return "is" if n == 1 else "are"


def _was(n: int) -> str:
    return "was" if n == 1 else "were"


def _pooled_subjects(d: dict[str, Any]) -> str:
    total, counts = d["n_subjects"], [(str(m), int(n)) for m, n in d["per_model"]]
    if len({n for _, n in counts}) == 1:
        who = (f"each of the {fmt.count(len(counts))} models has {fmt.count(total)}" if len(counts) > 1
               else f"model {counts[0][0]!r} has {fmt.count(total)}")
    else:
        who = "; ".join(f"{m!r} {fmt.count(n)} of {fmt.count(total)}" for m, n in counts)
    what = {"helm": "HELM runs", "lm_eval": "lm-eval subtasks"}.get(d["harness"], f"{d['harness']} files")
    return (f"task {d['task']!r} is read from {what} stored one per subject, pooled into one leaderboard: the "
            f"subject is each item's group and prefixes its id (subject/id); subjects per model: {who}")


def _only(n: int) -> str:
    return "only that one is" if n == 1 else f"only those {fmt.count(n)} are"


#: the notes of the results over runs (``rt.repeats``, ``rt.variance_components``) and of ``rt.power``
_RESULT_WORDS: dict[str, Callable[[dict[str, Any]], str]] = {
    "ragged_runs": lambda d: (f"{d['model']}: runs score between {fmt.count(d['min_items'])} and "
                              f"{fmt.count(d['max_items'])} items (ragged); each item's mean uses the runs that "
                              "scored it"),
    "between_var_clipped": lambda d: (
        f"{d['model']}: the unbiased between-item variance estimate is {fmt.significant(d['estimate'])} (below 0 "
        "by sampling noise: the item means vary no more than the run-to-run noise explains); reported as 0 "
        "(between_item_var_raw keeps the estimate)"),
    "single_run": lambda d: f"{d['model']} has a single run; its run sd and within-item variance are not defined",
    "constant_item_means": lambda d: (
        f"{d['model']}: every item has the same mean over runs ({fmt.significant(d['value'])}), so the CI is not "
        "defined (a zero-width interval would claim certainty)"),
    "pooled_conditions": lambda d: (f"runs pooled over {fmt.count(d['n_conditions'])} conditions; the score is the "
                                    "mean over conditions and seeds (`rt.sensitivity` compares the conditions "
                                    "themselves)"),
    "prob_column": lambda d: "scored with the 'prob' column (probability of the correct answer)",
    "no_detectable_gap": _no_detectable_gap,
    # a reader's checks of its input (HELM: stats.json against the per-instance file)
    "helm_instances": lambda d: (
        f"{d['path']}: HELM reports {fmt.plural(d['reported'], 'instance')} ({d['split']}) but {d['file']} holds "
        f"{fmt.count(d['n_instances'])}; "
        + ("only that one is" if d["n_instances"] == 1 else f"only those {fmt.count(d['n_instances'])} are")
        + " scored (a trimmed or partial run?)"),
    "helm_mean": lambda d: (
        f"{d['path']}: HELM reports {d['metric']} ({d['split']}) = {fmt.reported(d['reported'])}, but "
        + ("the one per-instance value read is" if d["n_values"] == 1 else
           f"the {fmt.count(d['n_values'])} per-instance values read average")
        + f" {fmt.reported(d['mean'])}; check that the run's instances are all there"),
    "helm_perturbed": lambda d: (f"{d['path']}: {fmt.plural(d['n_perturbed'], 'perturbed instance')} "
                                 f"{_was(d['n_perturbed'])} left out (only unperturbed ones are read)"),
    # SWE-bench: what a results file says against what it lists (the reader's records)
    "swebench_not_evaluated": lambda d: (
        f"{d['path']}: {fmt.count(d['n_left_out'])} of the {fmt.count(d['n_submitted'])} submitted predictions "
        f"{_was(d['n_left_out'])} not evaluated in this run (in no completed/empty-patch/error list; the run covered "
        f"{fmt.count(d['run_total'])} instances) and {_is(d['n_left_out'])} left out"),
    "swebench_total": lambda d: (
        f"{d['path']}: the file says total {fmt.count(d['total'])} but lists {fmt.plural(d['n_listed'], 'instance')}; "
        + ("that one was" if d["n_listed"] == 1 else f"the {fmt.count(d['n_listed'])} listed were") + " read"),
    "swebench_passed": lambda d: (
        f"{d['path']}: the file says {fmt.count(d['passed'])} passed but lists "
        f"{fmt.plural(d['n_resolved'], 'resolved instance')}; the listed instances were read"),
    "swebench_skipped_files": lambda d: (
        f"{d['path']}: {fmt.plural(d['n_files'], 'JSON file')} that mention{'s' if d['n_files'] == 1 else ''} "
        f"'resolved' {_is(d['n_files'])} not SWE-bench results and {_was(d['n_files'])} skipped "
        f"(e.g. {d['example']})"),
    "swebench_task_list": lambda d: (
        f"{d['path']}: the instance list ({fmt.count(d['n_instances'])}) is taken from {d['task_list']}"
        + ("" if not d["n_unlisted"] else
           "; the one instance the results file does not list is scored unresolved" if d["n_unlisted"] == 1 else
           f"; the {fmt.count(d['n_unlisted'])} instances the results file does not list are scored unresolved")),
    "swebench_reports_checked": lambda d: (
        f"{d['path']}: "
        + (f"the {fmt.count(d['n_reports'])} per-instance report.json files" if d["n_reports"] > 1 else
           "the one per-instance report.json file")
        + f" of {d['model']} {_was(d['n_reports'])} checked against the run report {d['run_report']}, which lists "
        "every instance, and not read a second time"
        + (f"; {fmt.count(d['n_disagree'])} {'disagrees' if d['n_disagree'] == 1 else 'disagree'} with it (e.g. "
           f"{d['disagree_example']})" if d["n_disagree"] else "")
        + (f"; {fmt.count(d['n_absent'])} {_is(d['n_absent'])} not in it (e.g. {d['absent_example']})"
           if d["n_absent"] else "")),
    "swebench_no_report": lambda d: (
        f"{d['path']}: {fmt.count(d['n_missing'])} of the {fmt.count(d['n_instances'])} instances in "
        f"{d['task_list']} {'has' if d['n_missing'] == 1 else 'have'} no report.json (their evaluation did not "
        "finish: the harness counts them as errors)"),
    # inspect and Every Eval Ever logs: samples errored (scored as wrong or dropped, by `errors`) or left unscored
    "samples_errored": lambda d: (
        f"{fmt.count(d['n_samples'])} sample{'' if d['n_samples'] == 1 else 's'} errored in {d['path']} and "
        f"{_was(d['n_samples'])} {'scored as wrong' if d['errors'] == 'wrong' else 'dropped'}: "
        + ", ".join(d["samples"])),
    "samples_nan": lambda d: (
        f"{fmt.plural(d['n_samples'], 'sample')} in {d['path']} {'has' if d['n_samples'] == 1 else 'have'} no value "
        f"(NaN) for {d['score']} and {_was(d['n_samples'])} left out, as inspect leaves "
        f"{'it' if d['n_samples'] == 1 else 'them'} out of its metrics: " + ", ".join(d["samples"])),
    # the store: another inspect log of a model already stored, its epochs numbered after the stored runs
    "inspect_runs_renumbered": lambda d: (
        f"model {d['model']!r} (task {d['task']}) already has "
        + ("run 1" if d["n_before"] == 1 else f"runs 1-{d['n_before']}") + f" from other inspect logs: {d['file']} is "
        "stored as " + (f"run {d['first_run']}" if d["first_run"] == d["last_run"] else
                        f"runs {d['first_run']}-{d['last_run']}")),
    "pooled_subjects": _pooled_subjects,
    "inspect_separate_runs": lambda d: (
        f"{fmt.count(len(d['logs']))} inspect logs of model {d['model']!r} (task {d['task']}) are read as separate "
        "runs: " + ", ".join(f"{g['file']} " + (f"run {g['first_run']}" if g["first_run"] == g["last_run"] else
                                                 f"runs {g['first_run']}-{g['last_run']}") for g in d["logs"])),
    # a log or samples file holding fewer samples than its harness reports (a trimmed or partial run)
    "inspect_sample_count": lambda d: (
        f"{d['path']}: the log header reports {fmt.count(d['reported'])} samples"
        + ("" if d.get("completed") is None else f" ({fmt.count(d['completed'])} completed)")
        + f" but the log holds {fmt.count(d['n_samples'])}; " + _only(d["n_samples"])
        + " scored (a trimmed or partial log?)"),
    "lm_eval_sample_count": lambda d: (
        f"{d['path']}: the results file {d['results_file']} reports {fmt.count(d['reported'])} samples for "
        f"{d['task']!r} but this samples file holds {fmt.count(d['n_samples'])}; " + _only(d["n_samples"])
        + " scored (a trimmed or partial samples file?)"),
    "eee_aggregate_rows": lambda d: (f"{d['path']}: the aggregate {d['aggregate']} says {fmt.count(d['total_rows'])} "
                                     f"records but the file holds {fmt.count(d['n_records'])}"),
    # MT-Bench single grading, single-grade judgment files and promptfoo results (data/readers/_mtbench.py, ...)
    "mtbench_no_rating": lambda d: (
        f"{d['path']}: {fmt.plural(d['n_lines'], 'judgment')} with no rating (score -1, FastChat's 'no rating': the "
        f"judge wrote no [[rating]]) {_was(d['n_lines'])} left out, as FastChat's show_result leaves "
        f"{'it' if d['n_lines'] == 1 else 'them'} out (" + ", ".join(f"{m} {fmt.count(n)}" for m, n in d["per_model"])
        + "; line" + ("" if len(d["lines"]) == 1 else "s") + " " + ", ".join(map(fmt.count, d["lines"]))
        + (" ..." if d["n_lines"] > len(d["lines"]) else "") + ")"
        + (f"; {fmt.plural(d['n_items_left_out'], '(question, turn) item')} had no other judgment and "
           f"{_is(d['n_items_left_out'])} missing" if d["n_items_left_out"] else "")),
    "mtbench_judged_twice": lambda d: (
        f"{d['path']}: model {d['model']!r} has {fmt.plural(d['n_items'], '(question, turn) item')} judged more than "
        f"once ({fmt.count(d['n_judgments'])} judgments, e.g. {d['example']}); each item's score is the mean of its "
        f"judgments, so {d['model']!r} scores {fmt.number(d['item_mean'], 4)} on the 1-10 scale over "
        f"{fmt.count(d['n_items_total'])} items, where FastChat's show_result averages rows: "
        f"{fmt.number(d['fastchat_mean'], 6)} over {fmt.count(d['fastchat_rows'])} rows ("
        + "; ".join(f"turn {t}: {fmt.number(m, 6)} over {fmt.count(n)}" for t, m, n in d["fastchat_turns"]) + ")"),
    "judge_no_score": lambda d: (
        f"{d['path']}: {fmt.plural(d['n_lines'], 'judgment')} with no score (null: the judge wrote no [[rating]]) "
        f"{_was(d['n_lines'])} left out (`errors`='drop'), as the bench's show_result.py leaves "
        f"{'it' if d['n_lines'] == 1 else 'them'} out (" + ", ".join(f"{m} {fmt.count(n)}" for m, n in d["per_model"])
        + "; line" + ("" if len(d["lines"]) == 1 else "s") + " " + ", ".join(map(fmt.count, d["lines"]))
        + (" ..." if d["n_lines"] > len(d["lines"]) else "") + f"); {fmt.count(d['n_scored'])} scored lines read"),
    "promptfoo_prompts": lambda d: (
        f"{d['path']}: the file has {fmt.count(len(d['prompts']))} prompts, so each provider-and-prompt column is a "
        "model '<provider> [prompt N]': " + "; ".join(f"prompt {k} = {lab!r}" for k, lab in d["prompts"])),
    "promptfoo_errored": lambda d: (
        f"{d['path']}: {fmt.plural(sum(n for _, n in d['per_model']), 'result')} errored in promptfoo and "
        f"{_was(sum(n for _, n in d['per_model']))} "
        + ("counted as failed (`errors`='wrong'), as promptfoo's pass rate counts them" if d["errors"] == "wrong"
           else "left out (`errors`='drop')") + ": " + ", ".join(f"{m} {fmt.count(n)}" for m, n in d["per_model"])),
    "promptfoo_count": lambda d: (
        f"{d['path']}: promptfoo reports {fmt.count(d['reported'])} tests for {d['model']!r} but the file holds "
        f"{fmt.count(d['n_results'])} results for it (a trimmed file?)"),
    "promptfoo_tests_missing": lambda d: (
        f"{d['path']}: the config lists {fmt.count(d['n_config'])} tests but the file holds results for "
        f"{fmt.count(d['n_read'])} (a run cut short or filtered?); the scores are over the tests that ran"),
    # the notes that name the option to change what was read, in the API's words (```split`` chooses``): the
    # command line turns those into its flags (``--split``)
    "harness_skipped": lambda d: (
        f"{d['harness']} logs skipped: they hold no {d['column']} {d['value']!r} (they hold "
        f"{', '.join(d['held'])}); read them with `{d['column']}`='NAME'"),
    "harness_unread": lambda d: f"{d['harness']} logs in {d['path']} skipped: {d['error']}",
    "helm_other_splits": lambda d: _helm_other_splits(d),
    "helm_split_chosen": lambda d: (
        f"{d['path']}: the run has no {d['default']} split; its {fmt.count(d['n_instances'])} {d['split']} "
        f"{'instance was' if d['n_instances'] == 1 else 'instances were'} read (`split` chooses another)"),
    "swebench_errored": lambda d: _swebench_errored(d),
    "swebench_unlisted_unresolved": lambda d: (
        f"{d['path']}: {fmt.count(d['n_absent'])} of the {fmt.count(d['n_instances'])} {d['dataset']} instances "
        f"{_is(d['n_absent'])} not in the results and {_was(d['n_absent'])} scored unresolved (`dataset`)"),
    "swebench_not_submitted": lambda d: (
        f"{d['path']}: {fmt.count(d['n_unsent'])} of the dataset's {fmt.count(d['total'])} instances "
        f"{_was(d['n_unsent'])} not submitted and {_is(d['n_unsent'])} not in the matrix (`dataset` scores "
        f"{'it' if d['n_unsent'] == 1 else 'them'} as unresolved)"),
    "swebench_missing_instances": lambda d: (
        f"{d['path']}: MISSING INSTANCES: only "
        + ("the one instance" if d["n_scored"] == 1 else f"the {fmt.count(d['n_scored'])} instances")
        + f" with a report.json {_is(d['n_scored'])} scored; instances whose evaluation did not finish have none "
        "and are not in the matrix ("
        + ("how many is unknown" if d["run_report"] is None else
           f"the run report {d['run_report']} lists {fmt.count(d['n_listed'])}, so {fmt.count(d['n_missing'])} "
           f"{_is(d['n_missing'])} missing")
        + "); read the run report beside them, or pass `dataset`='lite|verified|full' to score them as "
        "unresolved"),
    "inspect_header_only": lambda d: (
        f"{d['path']} holds only the header of an inspect log and no per-sample scores"
        + ("" if d["n_samples"] is None else f" (its header reports {fmt.count(d['n_samples'])} samples)")
        + ": skipped (`errors`='drop')"),
    "eee_metric_chosen": lambda d: (
        f"{d['path']}: holds {fmt.count(len(d['results']))} results per sample ({', '.join(d['results'][:8])}"
        f"{' ...' if len(d['results']) > 8 else ''}); read {d['chosen']!r}, choose another with `metric`"),
    # what a harness reader chose or left out (the metric, models without details, cut runs, an index)
    "metric_chosen": lambda d: (
        f"{d['harness']} task {d['task']!r} has {fmt.count(len(d['metrics']))} metrics ({', '.join(d['metrics'][:8])}"
        f"{' ...' if len(d['metrics']) > 8 else ''}); read {d['chosen']!r}, "
        + {"config_tasks": "the task's first declared metric (config_tasks in the results file)",
           "results": "the first metric the results file reports for the task"}.get(d["rule"], "the harness's own")
        + "; choose another with `metric`"),
    "lighteval_no_details": lambda d: (
        f"model {d['model']!r} has results for {', '.join(map(repr, d['tasks'][:5]))}"
        f"{' ...' if len(d['tasks']) > 5 else ''} in {d['results_file']} but no details file (details_<task>_*.parquet)"
        ", so it has no per-item scores and is not in the comparison"),
    "lm_eval_limited": lambda d: (
        f"{d['path']}: the run scored {fmt.count(d['n_samples'])}"
        + ("" if d.get("original") is None else f" of the {fmt.count(d['original'])}")
        + f" documents of {d['task']!r}"
        + ("" if d.get("limit") is None else f" (lm-eval was run with limit {fmt.plain(d['limit'])})")
        + "; the scores are of those only, not of the whole task"),
    "lm_eval_filter_blocks": lambda d: (
        f"{d['path']}: the lines name no filter (lm-eval before 0.4.7); filter {d['filter']!r} is block "
        f"{d['block']} of {fmt.count(len(d['filters']))}, in the order of the task's filter_list in the results file "
        f"({', '.join(d['filters'])})"),
    "lm_eval_pooled_filters": lambda d: (
        f"the subtasks of {d['task']!r} pooled for model {d['model']!r} were read with different filters ("
        + "; ".join(f"{t}: {', '.join(f)}" for t, f in d["filters"][:6]) + (" ..." if len(d["filters"]) > 6 else "")
        + "): their scores come from different answer extractions"),
    "inspect_partial": lambda d: (
        f"{d['path']}: "
        + ("" if d.get("status") in (None, "success") else f"the run's status is {d['status']!r}; ")
        + f"it scored {fmt.count(d['n_samples'])}"
        + ("" if d.get("dataset_samples") is None else f" of the dataset's {fmt.count(d['dataset_samples'])}")
        + f" {'sample' if d['n_samples'] == 1 else 'samples'}"
        + ("" if d.get("limit") is None else f" (run with limit {d['limit']})")
        + "; the scores are of those only"),
    "inspect_index_skipped": lambda d: (
        f"{d['path']} is inspect's log index (logs.json: the headers of the folder's logs, no per-sample scores): "
        "skipped, the logs it lists are read themselves"),
    # the matrix and rt.sensitivity
    "mixed_scoring": lambda d: (
        f"mixed scoring: {fmt.count(len(d['binary']))} model(s) have only 0/1 scores ({_names(d['binary'])}) while "
        f"{fmt.count(len(d['continuous']))} have fractional scores ({_names(d['continuous'])}); check that all were "
        "scored the same way. The table is analysed as continuous (betting intervals, no McNemar)"),
    # what the battles reader left out or changed (rt.arena's notes; the reader's own records, per source)
    "battles_dropped": lambda d: (
        f"{d['source']}: left out "
        + ", ".join(fmt.plural(int(n), *_BATTLE_DROPS.get(k, (k.replace('_', ' '), None))) for k, n in
                    d["reasons"].items())),
    "battles_inconsistent_as_tie": lambda d: (
        f"{d['source']}: {fmt.plural(d['judgments'], 'judgment')} whose two position orders disagree "
        f"{'counts' if d['judgments'] == 1 else 'count'} as a tie (as FastChat's show_result.py)"),
    "battles_strong_verdicts": lambda d: (
        f"{d['source']}: {fmt.plural(d['games'], 'strong verdict')} (A>>B, B>>A) "
        + (f"weighted {fmt.plain(d['weight'])}" if d["weight"] != 1 else
           "counted as one win each; `weight_strong`=3 weights them 3, as Arena-Hard's show_result.py")),
    "battles_replicated_rows_collapsed": lambda d: (
        f"{d['source']}: {fmt.plural(d['rows'], 'row')} are {fmt.plural(d['games'], 'game')} written several times "
        f"(Arena-Hard's show_result.py writes a strong verdict {fmt.plain(d['weight'])} times): each game is one "
        f"row, its {fmt.plural(d['strong_games'], 'strong verdict')} weighted {fmt.plain(d['weight'])}"
        + (f"; the game order of {fmt.plural(d['game_order_unknown'], 'pair')} could not be told"
           if d.get("game_order_unknown") else "")),
    "battles_skipped": lambda d: (
        f"{d['source']}: skipped, "
        + ("every record is the baseline judged against itself (its own judgment file; no information on the "
           "ranking)" if d.get("why") == "baseline_against_itself" else
           "a per-item score table (model, item, score), not battles: rank it with `rt.report`"
           if d.get("why") == "per_item" else
           "not a battle file" if d.get("format") is None else f"a {d['format']} file, not the format asked")),
    "battles_columns_ignored": lambda d: f"{d['source']}: columns not read: {', '.join(map(str, d['columns']))}",
    "battles_style_missing": lambda d: (
        f"{d['source']}: {fmt.plural(d['rows'], 'battle')} {'has' if d['rows'] == 1 else 'have'} no style "
        "features (conv_metadata)"),
    # rt.arena's own notes: what its intervals rest on
    "arena_per_battle": lambda d: (
        ("`cluster_by`=None: " if d["asked"] else "the battles have no prompt ids (no cluster, question_id, "
                                                  "prompt_id or uid column): ")
        + "each battle is taken as independent. If a prompt was judged more than once, or battles share prompts, "
        "the intervals are too narrow and pairs are claimed too often (one verdict judged 3 times: a quarter of "
        "boards with a false claim in docs/arena.md's test); give the prompt ids"
        + ("" if d.get("duplicates") is None else
           f". {fmt.count(d['duplicates'])} of the {fmt.count(d['battles'])} rows repeat an earlier row in every "
           "column" + (" (with so few columns, identical battles cannot be told from copies)" if d["duplicates"]
                       else ""))),
    "arena_not_estimable": lambda d: (
        ("model " if len(d["models"]) == 1 else "models ") + _names(d["models"])
        + f": every {'battle' if d['unit'] == 'battles' else 'battle of the model'} is in one "
        + ("prompt" if d["unit"] == "prompts" else "cluster")
        + ", so the variance of the rating is not estimable: its interval is n/a and none of its pairs is claimed; "
        "add battles on other prompts"),
    "arena_few_clusters_model": lambda d: (
        ("model " if len(d["models"]) == 1 else "models ")
        + ", ".join(f"{m!r} ({fmt.count(n)} {d['unit']})" for m, n in zip(d["models"][:6], d["clusters"][:6]))
        + (f" and {fmt.count(len(d['models']) - 6)} more" if len(d["models"]) > 6 else "")
        + ": the interval rests on few "
        + d["unit"]
        + (" and uses a t reference with their effective number minus 1 degrees of freedom (small-cluster "
           "correction, docs/arena.md); it is approximate there and wide by design" if d.get("df") is not None else
           " and is approximate" + (" (the cluster bootstrap with so few clusters)" if d.get("correction") ==
                                    "bootstrap" else " (no small-cluster correction: `cluster_correction`='cr2' "
                                                     "gives one)"))),
    "conditions_missing": lambda d: (
        f"{d['model']} has no rows for {d['by']}(s) {', '.join(d['missing'])}"
        + (f" and {fmt.count(d['n_missing'] - len(d['missing']))} more" if d["n_missing"] > len(d["missing"]) else "")
        + f"; those {d['by']}s are left out of the rankings, flips and stable scores"),
}


#: the reasons of the battles reader's ``dropped`` note: (what one is, what several are)
_BATTLE_DROPS = {
    "unjudged_game": ("unjudged game (score null, as Arena-Hard leaves it out)",
                      "unjudged games (score null, as Arena-Hard leaves them out)"),
    "record_with_unjudged_game": ("record with an unjudged game (v2: the whole record, as Arena-Hard)",
                                  "records with an unjudged game (v2: the whole records, as Arena-Hard)"),
    "baseline_against_itself": ("record of the baseline judged against itself (no information on the ranking)",
                                "records of the baseline judged against itself (no information on the ranking)"),
    "no_preference": ("annotation with no preference", "annotations with no preference"),
    "error_verdict": ("judgment with an error verdict (as FastChat leaves it out)",
                      "judgments with an error verdict (as FastChat leaves them out)"),
}


def _helm_other_splits(d: dict[str, Any]) -> str:
    k = sum(int(n) for _, n in d["left_out"])
    what = ", ".join(f"{fmt.count(int(n))} {sp}" for sp, n in d["left_out"])
    return (f"{d['path']}: {fmt.plural(k, 'instance')} of other splits ({what}) {_was(k)} left out; {d['split']} was "
            "read (`split` chooses)")


def _swebench_errored(d: dict[str, Any]) -> str:
    n = d["n_instances"]
    return (f"{d['path']}: {fmt.plural(n, 'instance')} {SWEBENCH_ERRORED_HOW[d['how']][0 if n == 1 else 1]} and {_was(n)} "
            + ("scored unresolved (`errors`='wrong')" if d["errors"] == "wrong" else "left out (`errors`='drop')"))


def _names(names: list[str], k: int = 5) -> str:
    """Up to ``k`` names quoted, then how many more."""
    return ", ".join(repr(n) for n in names[:k]) + (f" and {fmt.count(len(names) - k)} more" if len(names) > k else "")


def _misfit(d: dict[str, Any]) -> str:
    why = []
    if "pattern" in d["reason"]:
        why.append(f"its per-item pattern does not fit its overall score of {fmt.probability(d['accuracy'])} "
                   f"(lz* = {fmt.number(d['lz_star'], 1)}, {fmt.number(abs(d['lz_star_z']), 1)} robust SDs below the "
                   f"other models; its results correlate {fmt.number(d['difficulty_corr'], 2)} with how the other "
                   f"models do on each item, where a healthy row of its ability would show "
                   f"{fmt.number(d['expected_corr'], 2)})")
    if "lost" in d["reason"]:
        why.append(f"its {fmt.probability(d['accuracy'])} right answers look like those of a healthy row scoring "
                   f"{fmt.probability(d['ceiling_accuracy'])} that kept only {fmt.probability(d['ceiling'])} of them, "
                   f"whatever the item, where healthy rows of its ability keep {fmt.probability(d['healthy_ceiling'])} "
                   f"({fmt.number(abs(d['ceiling_z']), 1)} SDs below; "
                   f"{fmt.number(abs(d['ceiling_z_rel']), 1)} robust SDs below the other models)")
    if "score" in d["reason"]:
        why.append(f"it has far fewer right answers ({fmt.probability(d['accuracy'])}) than a healthy row of any "
                   f"ability the other models' results allow ({fmt.probability(d['expected_accuracy'])} at the "
                   f"ability estimated for it; {fmt.number(abs(d['score_z']), 1)} SDs below)")
    return (f"{d['model']}: {' and '.join(why)}: this row looks like a broken or mislabelled run (answers joined to "
            "the wrong items, a wrong answer key, a harness that lost answers, or random output); check it before "
            "trusting its rank.")


#: code -> the function that words a record's data
NOTE_WORDS: dict[str, Callable[[dict[str, Any]], str]] = {
    "input": lambda d: str(d["text"]),
    "warning": lambda d: str(d["text"]),
    "dropped": _dropped,
    "runs": lambda d: (f"scores are means over {fmt.count(d['n_runs'])} runs per item (the repeats section shows "
                       "how much they vary from run to run)"),
    "intransitive": lambda d: ("the paired tests are not transitive here (each pair uses its own shared items): a "
                               "cycle of 'found better' was broken at the highest score, so a displayed rank may "
                               "leave its range"),
    "adjust_not_joint": lambda d: (f"with adjust={d['adjust']} the rank ranges and tiers do not hold jointly: an "
                                   "ordering is false at a controlled rate (bh) or per pair (none), not with joint "
                                   "confidence"),
    "resampled_shared_items": lambda d: (
        f"stability and split-half resample the {fmt.count(d['shared'])} items every model has (of "
        f"{fmt.count(d['n_items'])}); scores, pairs, tiers and rank ranges use each model's (pair's) own items"),
    "no_shared_items": lambda d: ("no item is scored by every model: stability and split-half are skipped (scores, "
                                  "pairs, tiers and rank ranges use each model's, or pair's, own items)"),
    "tiers_adjacent": lambda d: ("tiers=adjacent: a new tier starts where a model differs from the next one down; "
                                 "this is not transitive (two models far apart can share a tier, and a tier can hold "
                                 "a pair the tests separate); the rank ranges are the joint statement"),
    "microbench_too_few_models": lambda d: (
        f"the micro-benchmark section needs at least 5 models (2 to select items, 3 to check them on); this "
        f"leaderboard has {fmt.count(d['n_models'])}, so it is left out"),
    "zero_spread": lambda d: (
        ("model " if len(d["models"]) == 1 else "models ")
        + ", ".join(f"{name!r} (all {fmt.plain(v)})" for name, v in zip(d["models"], d["values"]))
        + ": every item has the same score (zero spread), so a normal-theory (CLT or t) interval of "
        + ("it" if len(d["models"]) == 1 else "them") + " would have zero width; where one is used its SE and "
        "CI are NaN"),
    "similar_models": _similar,
    "misfit": _misfit,
    "person_fit_sampled": lambda d: (
        f"the person fit (lz*, ceilings, score z) used {fmt.count(d['items'])} of the {fmt.count(d['n_items'])} "
        f"items, drawn at random (the matrix has {fmt.count(d['cells'])} cells, above "
        f"{fmt.count(d['above_cells'])}): a healthy row's figures keep their distribution, a broken row's are about "
        f"{fmt.number(d['factor'], 1)} times nearer 0 than on every item, so a subtle misfit can go unflagged. "
        "`person_fit`='all' (in a report `quality`='all') uses every item, slower"),
    "stability_sampled": lambda d: (
        f"rank stability redrew the benchmark {fmt.count(d['n_resamples'])} times per size, not "
        f"{fmt.count(d['asked'])} (the matrix has {fmt.count(d['cells'])} cells, above {fmt.count(d['above_cells'])}): "
        "each of its probabilities p has a Monte Carlo standard error of sqrt(p (1 - p) / "
        f"{fmt.count(d['n_resamples'])}), at most {fmt.number(100 * d['se_bound'], 1)} percentage points"
        + (f" ({fmt.number(100 * d['max_se'], 1)} for the least certain figure here)" if d.get("max_se") is not None
           else "")
        + ". `stability`='all' draws all of them, slower"),
    "cluster_edge": lambda d: (
        ("model " if len(d["models"]) == 1 else "models ") + ", ".join(map(repr, d["models"][:6]))
        + (f" and {fmt.count(len(d['models']) - 6)} more" if len(d["models"]) > 6 else "")
        + f": the clustered {fmt.percent(d['confidence_level'])} interval is approximate, a score of at most "
        f"{fmt.percent(d['band'])} or at least {fmt.percent(1 - d['band'])} from only {fmt.count(d['n_clusters'])} "
        "item groups (fewer than "
        f"{fmt.count(d['min_clusters'])}): near a bound the groups' scores are skewed and many hold no success (or "
        f"no failure), so their spread and skew are poorly estimated and the interval can cover less than "
        f"stated (a 95% interval covered as little as {fmt.plain(d['coverage_low'])} in simulations, "
        "docs/statistics.md). More groups give a firm interval; `cluster`=False describes these groups only"),
    "judges_fixed": lambda d: (
        f"the {fmt.count(d['n_judges'])} judges (the runs) were taken as fixed"
        + (f" (fewer than {fmt.count(d['min_judges'])}, so `judges`='auto' did)" if d["judges"] == "auto" else "")
        + ": each interval covers the mean over these judges, clustered by item (or item group); it does not count how another "
        "set of judges would score (`judges`='random', two-way clustering by item and judge, needs about "
        f"{fmt.count(d['min_judges'])} judges or more to be firm; docs/judges.md)"),
    "watch_arrival_latency": lambda d: (
        "`order`='arrival' analyses items in the order their results complete: valid only when that order does not "
        "depend on the results. It does when latency depends on correctness (a wrong answer that takes longer: "
        "reasoning, retries, timeouts), and a true best model is then excluded far more often than the level says "
        "(docs/watch.md). Use `order`='dispatch' with `items` listing the items in the order the harness sent them"),
    # rt.suite
    "suite_dropped_models": lambda d: (
        f"{fmt.plural(d['n_models'], 'model')} without results on every task left out (`missing`='drop-model'): "
        f"{_names(d['models'])}; {fmt.plural(d['n_kept'], 'model')} ranked"),
    "suite_dropped_tasks": lambda d: (
        f"{fmt.plural(d['n_tasks'], 'task')} without results for every model left out (`missing`='drop-task'): "
        f"{_names(d['tasks'])}; {fmt.plural(d['n_kept'], 'task')} kept"),
    "suite_missing_pairwise": lambda d: (
        f"{fmt.count(d['n_missing'])} of {fmt.count(d['n_cells'])} (task, model) cells are missing; each model is "
        "aggregated over its own tasks and the rank rules rank the models present on each task (`missing`="
        "'pairwise'), so two models' aggregates may rest on different tasks"),
    "suite_task_intersect": lambda d: (
        f"task {d['task']!r}: `align`='intersect' dropped {fmt.count(d['total'])} (model, item) results; "
        f"{fmt.plural(d['n_items'], 'item')} kept"),
    "suite_one_task": lambda d: (
        f"the suite has one task ({d['task']!r}): there is nothing to aggregate, and a new task's rank cannot be "
        "predicted from one task (give one matrix per task, or name the column that holds the tasks with `task_col`)"),
    "suite_few_items": lambda d: (
        f"{fmt.plural(d['n_tasks'], 'task')} with fewer than {fmt.count(d['limit'])} "
        + ("items or item groups" if d["clustered"] else "items")
        + f" (the fewest: {fmt.count(d['fewest'])}): {_names(d['tasks'])}. Redrawing so few items understates how "
        "much their scores could vary (a task of one item looks certain), so scope (a) is approximate for them; "
        "with equal `weights` each still counts as much as any other task. Give such tasks a smaller weight, or "
        "leave them out with `tasks`"),
    "suite_unclustered_tasks": lambda d: (
        f"{fmt.plural(d['n_tasks'], 'task')} without item groups resampled by item: {_names(d['tasks'])}"),
    "suite_rank_rule_bounds": lambda d: (
        f"the {d['rule']} rule is a step function of the task scores, so its verdicts come from bounds: the task "
        "orderings that hold on every task together (one max-t over every task and pair) bound each model's "
        "aggregate, and a model is found better only when its lower bound clears the other's upper bound; the "
        "intervals are those bounds and there are no p-values. This is conservative: `rule`='mean' separates more"),
    "suite_rules_point_only": lambda d: (
        f"with {fmt.count(d['n_models'])} models (over {fmt.count(d['limit'])}) the other rules are shown by their "
        "top model only, without their possible winners (their bounds hold every task's orderings of every pair, "
        "which grows with the square of the models)"),
    **_RESULT_WORDS,
}


def note_text(note: Any) -> str:
    """The sentence of one note: a :class:`~ranktrust.results.Note`, its JSON record, or (an older
    report's JSON) the sentence itself; an option is named in the API's words unless :func:`option_words`
    says otherwise (a JSON record's own ``"text"`` is kept as it is)."""
    if isinstance(note, str):
        return _in_option_words(note)
    if isinstance(note, dict):
        if note.get("text"):
            return str(note["text"])
        code, data = note.get("code"), note.get("data") or {}
    else:
        code, data = note.code, dict(note.data)
    word = NOTE_WORDS.get(str(code))
    if word is None:
        return f"{code}: " + ", ".join(f"{k} {v}" for k, v in data.items())
    return _in_option_words(word(data))


def _in_option_words(text: str) -> str:
    words = _OPTION_WORDS.get()
    return words(text) if words is not None and "`" in text else text


def worded(notes: Any) -> Any:
    """A JSON list of note records (or one record) with each record's sentence added as ``"text"``: what the
    JSON of a report, ``repeats`` and ``power`` holds (the record stays, for machines; a string or a record that
    has its text already is kept as it is)."""
    if isinstance(notes, list):
        return [worded(n) for n in notes]
    if isinstance(notes, dict) and "text" not in notes and "code" in notes:
        return {**notes, "text": note_text(notes)}
    return notes


def worded_payload(d: dict[str, Any], headline: Callable[[dict[str, Any]], str] | None = None) -> dict[str, Any]:
    """A copy of a result's JSON ``d`` with each note's sentence beside its record (the top-level ``"notes"`` and
    those of each section) and, given ``headline`` (``fn(d) -> str``), the sentence in ``headline["text"]`` of a
    ``"headline"`` that has none: what every output of a result starts from."""
    d = dict(d)
    for k, v in d.items():
        if k == "notes" and isinstance(v, list):
            d[k] = worded(v)
        elif isinstance(v, dict) and isinstance(v.get("notes"), list):
            d[k] = {**v, "notes": worded(v["notes"])}
    h = d.get("headline")
    if isinstance(h, dict) and "text" not in h and headline is not None:
        d["headline"] = {**h, "text": headline(d)}
    return d
