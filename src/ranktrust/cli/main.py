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


def _one_line_warning(message, category, filename, lineno, file=None, line=None):  # noqa: ANN001
    click.echo(f"warning: {message}", err=True)


def main(argv: list[str] | None = None) -> Any:
    import warnings

    warnings.showwarning = _one_line_warning
    try:
        return cli.main(args=argv, prog_name="ranktrust", standalone_mode=False)
    except RanktrustError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(1)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError" and getattr(exc, "ctx", None) is not None:
            click.echo(exc.ctx.get_help())
            sys.exit(0)
        # usage errors too: one line, exit 1 (exit 2 is kept for a failed --fail-if gate)
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
        # argument validation in the API raises ValueError/TypeError with a clear message
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)


if __name__ == "__main__":  # pragma: no cover
    main()
