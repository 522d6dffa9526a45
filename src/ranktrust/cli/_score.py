"""``ranktrust score``: score local models on multiple-choice questions (needs ranktrust[score])."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import click

from ..errors import RanktrustError
from ._common import OUTPUT_FORMATS, command_line, progress_bar, render
from ._main import ApiOption


def _parse_model(arg: str) -> tuple[str | None, str]:
    """``PATH`` or ``NAME=PATH`` (a path that exists as given wins)."""
    if "=" in arg and not os.path.exists(arg):
        name, path = arg.split("=", 1)
        if name and path:
            return name, path
    return None, arg


def _parse_seeds(text: str) -> tuple[int, ...]:
    out = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part and not part.startswith("-"):
            a, b = part.split("-", 1)
            if not (a.isdigit() and b.isdigit()) or int(b) < int(a):
                raise click.BadParameter(f"{part!r} is not a range like 0-4", param_hint="--seeds")
            out.extend(range(int(a), int(b) + 1))
        elif part.isdigit():
            out.append(int(part))
        else:
            raise click.BadParameter(f"{part!r} is not a non-negative integer", param_hint="--seeds")
    if not out:
        raise click.BadParameter("give at least one seed, e.g. 0 or 0,1,2 or 0-4", param_hint="--seeds")
    return tuple(out)


def _ingest(db: str, path: str, task: str) -> dict[str, Any]:
    """Put the results file into the store (replacing its earlier rows, so a resumed run updates them)."""
    from ..data.readers import ReadOptions
    from ..data.store import Store

    with Store(db) as st:
        return st.ingest(path, format="table", options=ReadOptions(task=task), replace=True).to_dict()


@click.command("score")
@click.option("--model", "models", multiple=True, required=True, metavar="PATH",
              help="Local model directory (repeatable). NAME=PATH sets the name; default: the directory name.")
@click.option("--questions", required=True, metavar="FILE",
              help="Questions: JSONL, CSV, Parquet, or a datasets directory (save_to_disk).")
@click.option("--split", default=None, help="Split of a datasets directory (default: test).")
@click.option("--out", "results_out", default=None, metavar="FILE", cls=ApiOption, api="out",
              help="Results file: .parquet, .csv or .jsonl (appended to as rows come; a rerun resumes).")
@click.option("--db", default=None, metavar="STORE",
              help="Also add the results to this ranktrust DuckDB store (default --out: STORE's name + .score.parquet).")
@click.option("--task", default=None, help="Task name in the store (default: the questions file name).")
@click.option("--batch-size", default=8, show_default=True, type=int, help="Prompts per forward pass.")
@click.option("--device", default=None, help="cuda, cuda:1, cpu, ... (default: CUDA when available).")
@click.option("--dtype", type=click.Choice(["float32", "bfloat16", "float16"]), default="float32",
              show_default=True, help="Weights' dtype.")
@click.option("--shots", default=0, show_default=True, type=int, help="Solved dev questions before each question.")
@click.option("--dev", default=None, metavar="FILE", help="Dev questions the shots come from (with --shots).")
@click.option("--permutations", default=0, show_default=True, type=int,
              help="Option orders: perm0 (file order) ... perm{N-1} (random per item), one condition each.")
@click.option("--option-orders", type=click.Choice(["file", "cyclic"]), default=None,
              help="cyclic: rotate the choices so each sits in every position (conditions cyc0, cyc1, ...).")
@click.option("--seeds", default="0", show_default=True,
              help="Runs: comma-separated seeds or a range (0,1,2 or 0-4); they pick random orders and shots.")
@click.option("--template", "template_file", default=None, metavar="FILE", cls=ApiOption, api="template",
              help="Text file with the per-question block, using {question}, {choices}, {subject}.")
@click.option("--header", default=None, help="Prompt header; {about} = ' about <subject>'.")
@click.option("--no-resume", is_flag=True, help="Start the results file afresh instead of skipping done rows.")
@click.option("--flush-every", default=10.0, show_default=True, type=float,
              help="Seconds between rewrites of the results file.")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: when stderr is a terminal).")
@click.option("--format", "-f", "output_format", type=click.Choice(list(OUTPUT_FORMATS)),
              default="text", show_default=True,
              help="Format of the summary printed to stdout (--out names the results file).")
def command(models: tuple[str, ...], questions: str, split: str | None, results_out: str | None,
            db: str | None, task: str | None, batch_size: int,
            device: str | None, dtype: str, shots: int, dev: str | None, permutations: int,
            option_orders: str | None, seeds: str, template_file: str | None, header: str | None,
            no_resume: bool, flush_every: float, progress: bool | None, output_format: str) -> None:
    """Score local models on multiple-choice questions: per-item results for `ranktrust report`.

    One forward pass per question (no generation): the probability of each answer
    letter after "Answer:", the predicted letter, 0/1 correctness and the probability
    of the correct letter. Weights are local directories only (the hub is not used).

    \b
    ranktrust score --model /models/Qwen2.5-1.5B --model /models/gemma-2-2b \\
        --questions mmlu.jsonl --out results.parquet
    ranktrust report results.parquet
    """
    from ..data import input_hash
    from ..score import default_task_name, score_models

    if results_out is None:
        if db is None:
            raise click.UsageError("give --out FILE (and/or --db STORE)")
        results_out = os.path.splitext(db)[0] + ".score.parquet"

    parsed = [_parse_model(arg) for arg in models]
    spec: Any = [p for _, p in parsed]
    if any(n is not None for n, _ in parsed):
        spec = {}
        for n, p in parsed:
            n = n or os.path.basename(os.path.normpath(p)) or p
            if n in spec:
                raise click.UsageError(f"two --model options are named {n!r}; name them with NAME=PATH")
            spec[n] = p

    template: Any = None
    if template_file is not None or header is not None:
        template = {}
        if template_file is not None:
            try:
                with open(template_file, encoding="utf-8") as fh:
                    template["question"] = fh.read().rstrip("\n")
            except OSError as exc:
                raise RanktrustError(f"{template_file}: cannot read the template ({exc.strerror})") from None
        if header is not None:
            template["header"] = header.replace("\\n", "\n").replace("\\t", "\t")
    if option_orders == "cyclic":
        if permutations:
            raise click.UsageError("give --permutations N or --option-orders cyclic, not both")
        perms: Any = "cyclic"
    else:
        perms = permutations

    def on_error(name: str, msg: str) -> None:
        click.echo(f"error: {msg}", err=True)

    with progress_bar(None, "scoring", unit="q", enabled=progress, transient=False) as bar:
        res = score_models(
            spec, questions, out=results_out, batch_size=batch_size, device=device, dtype=dtype,  # type: ignore[arg-type]
            template=template, shots=shots, dev=dev, permutations=perms, seeds=_parse_seeds(seeds),
            resume=not no_resume, progress=bar, split=split, flush_every=flush_every, on_error=on_error,
        )
    if db is not None and os.path.exists(results_out):
        res = dataclasses.replace(res, stored=_ingest(db, results_out, task or default_task_name(questions)))
    n = len(spec)
    if res.failed and len(res.failed) >= n:
        # QA L9: nothing was scored, so there is no results file to point at and no table to print
        raise RanktrustError(f"every model failed ({', '.join(res.failed)}); nothing was scored"
                             + ("" if not os.path.exists(results_out) else f" ({results_out} holds only earlier runs)"))
    render(res, kind="score", fmt=output_format, out="-",
           input_hash=input_hash([questions] + ([dev] if dev else [])), command=command_line())
    if res.failed:
        raise RanktrustError(f"{len(res.failed)} of {n} models failed: {', '.join(res.failed)}; "
                             "the others' results are in " + results_out)
