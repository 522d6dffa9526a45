"""``ranktrust`` entry point: a click group whose subcommands load lazily.

Each subcommand lives in its own module ``ranktrust.cli.<name>`` exposing a click
command named ``command``. Errors the user can cause (:class:`RanktrustError`)
print one line and exit with code 1; no traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from typing import Any

import click

from ..errors import RanktrustError

# name -> module; a module not yet present is simply not listed
COMMANDS: dict[str, str] = {
    "report": "report",
    "compare": "compare",
    "power": "power",
    "stability": "stability",
    "ranks": "ranks",
    "splithalf": "splithalf",
    "microbench": "microbench",
    "repeats": "repeats",
    "sensitivity": "sensitivity",
    "ingest": "ingest",
    "db": "db",
    "score": "score",
    "watch": "watch",
    "gate": "gate",
    "arena": "arena",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        out = []
        for name, mod in COMMANDS.items():
            if importlib.util.find_spec(f"{__package__}.{mod}") is not None:
                out.append(name)
        return out

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        mod = COMMANDS.get(name)
        if mod is None or importlib.util.find_spec(f"{__package__}.{mod}") is None:
            return None
        return importlib.import_module(f"{__package__}.{mod}").command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ranktrust")
def cli() -> None:
    """Which differences on an LLM leaderboard are real.

    Per-item results in (CSV, Parquet, JSONL, harness logs); intervals, paired
    tests, tiers, rank stability and power out.
    """


#: Python parameter names in API messages -> the command-line flag a terminal user types. Messages below
#: cli/ never name a flag (tests/test_layering.py checks it): they name the parameter in backticks, with the
#: value to give ("`align`='intersect'"), and cli_words turns that into "--align intersect".
FLAGS = {
    "confidence_level": "--confidence", "n_resamples": "--n-resamples", "sizes": "--sizes",
    "top_k": "--top-k", "size": "--size", "disagreement": "--disagreement", "gap": "--gap", "items": "--items",
    "align": "--align", "cluster": "--cluster-by", "source_models": "--source-models", "delta_bin": "--delta-bin",
    "rng": "--seed", "adjust": "--adjust", "stability_n_resamples": "--stability-n-resamples",
    "choose_n_confidence_level": "--choose-n-confidence",
    "seen_items": "--seen-items", "target_mdad": "--target-mdad", "min_pairs": "--min-pairs",
    "agreement_level": "--agreement-level", "power": "--power", "alpha": "--alpha", "task": "--task",
    "metric": "--metric", "errors": "--errors", "split": "--split", "dataset": "--dataset", "scale": "--scale",
    # reading: rt.read / Store.ingest
    "model": "--model-col", "item": "--item-col", "score": "--score-col", "group": "--group-col",
    "run": "--run-col", "condition": "--condition-col", "model_name": "--model-name", "binary": "--binary",
    "format": "--format", "replace": "--replace", "group_col": "--group-col",
    # analyses and output
    "by": "--by", "margin": "--margin", "pass_at": "--pass-at", "out": "--out",
    "alternative": "--alternative", "rank_method": "--rank-method", "methods": "--methods",
    "target_models": "--target-models", "target": "--target", "rule": "--rule", "scope": "--scope",
    "score_range": "--score-range",
    # ranktrust score (score_models)
    "questions": "--questions", "shots": "--shots", "dev": "--dev", "device": "--device", "seeds": "--seeds",
    "permutations": "--permutations", "flush_every": "--flush-every", "template": "--template",
}

#: a parameter with one particular value -> what a terminal user types for it
VALUE_FLAGS = {
    ("cluster", "True"): "--cluster-by COLUMN", ("cluster", "False"): "--no-groups",
    ("group", "None"): "--no-groups", ("group_col", ""): "--no-groups", ("resume", "False"): "--no-resume",
}

#: the API that a message names -> the command a terminal user runs for it
COMMAND_WORDS = {
    "Store.ingest": "ranktrust ingest FILES --db STORE", "rt.report": "ranktrust report", "rt.repeats": "ranktrust repeats",
    "rt.sensitivity": "ranktrust sensitivity", "rt.score_models": "ranktrust score",
}


def cli_words(message: str) -> str:
    """An API message in the terminal's words: "`align`='intersect'" -> "--align intersect",
    "`cluster`=False" -> "--no-groups", "`Store.ingest`" -> "`ranktrust ingest`"."""
    import re

    def sub(mm: "re.Match[str]") -> str:
        name, val = mm.group(1), mm.group(3)
        if "." in name:
            cmd = COMMAND_WORDS.get(name)
            return mm.group(0) if cmd is None or val is not None else f"`{cmd}`"
        if val is not None and (name, val.strip(chr(39) + chr(34))) in VALUE_FLAGS:
            return VALUE_FLAGS[(name, val.strip(chr(39) + chr(34)))]
        flag = FLAGS.get(name)
        if flag is None:
            return mm.group(0)
        if val is None:
            return flag
        val = val.strip(chr(39) + chr(34))
        return flag if val == "True" else f"{flag} {val}"

    return re.sub(r"`([\w.]+)`(=('[^']*'|\"[^\"]*\"|[^\s,;)]+))?", sub, message)


def _one_line_warning(message, category, filename, lineno, file=None, line=None):  # noqa: ANN001
    click.echo(f"warning: {cli_words(str(message))}", err=True)


def main(argv: list[str] | None = None) -> Any:
    import warnings

    # the one warning policy of every command: each distinct warning once, as one line on stderr
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        warnings.showwarning = _one_line_warning
        return _main(argv)


def _main(argv: list[str] | None) -> Any:
    try:
        return cli.main(args=argv, prog_name="ranktrust", standalone_mode=False)
    except RanktrustError as exc:
        click.echo(f"error: {cli_words(exc.message)}", err=True)
        sys.exit(1)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError" and getattr(exc, "ctx", None) is not None:
            click.echo(exc.ctx.get_help())
            sys.exit(0)
        # usage errors too: one line, exit 1, like every other error
        hint = ""
        if isinstance(exc, click.UsageError) and exc.ctx is not None:
            hint = f" (see '{exc.ctx.command_path} --help')"
        click.echo(f"error: {exc.format_message()}{hint}", err=True)
        sys.exit(1)
    except (KeyboardInterrupt, BrokenPipeError):
        sys.exit(130)
    except SystemExit:
        raise
    except (ValueError, OSError) as exc:
        # argument validation in the API raises ValueError with a clear message that names the parameter
        # in backticks (TypeError, a wrong type, cannot come from the command line and keeps its traceback)
        click.echo(f"error: {cli_words(str(exc))}", err=True)
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
