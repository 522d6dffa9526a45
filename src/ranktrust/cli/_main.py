"""``ranktrust`` entry point: a click group whose subcommands load lazily.

Each subcommand lives in its own module ``ranktrust.cli.<name>`` exposing a click
command named ``command``. Errors the user can cause (:class:`RanktrustError`)
print one line and exit with code 1; no traceback. Any other exception is a bug: it keeps its traceback.
"""

from __future__ import annotations

import sys

try:   # Ctrl-C while the command line is still loading: "aborted" as later, not a traceback
    import importlib
    import importlib.util
    from typing import Any

    import click

    from ..errors import RanktrustError
except KeyboardInterrupt:   # pragma: no cover - ranktrust.cli.main catches it too (the console script's way in)
    sys.stderr.write("\naborted\n")
    raise SystemExit(130) from None

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
    "suite": "suite",
    "judge": "judge",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        out = []
        for name, mod in COMMANDS.items():
            if importlib.util.find_spec(f"{__package__}._{mod}") is not None:
                out.append(name)
        return out

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        mod = COMMANDS.get(name)
        if mod is None or importlib.util.find_spec(f"{__package__}._{mod}") is None:
            return None
        command: click.Command = importlib.import_module(f"{__package__}._{mod}").command
        _running[:] = [command]
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ranktrust")
def cli() -> None:
    """Which differences on an LLM leaderboard are real.

    Per-item results in (CSV, Parquet, JSONL, harness logs); intervals, paired
    tests, tiers, rank stability and power out.
    """


#: Messages below cli/ never name a flag (tests/test_layering.py checks it): they name the API parameter in
#: backticks with the value to give ("`align`='intersect'"), and ``cli_words`` turns that into the flag of the
#: *running* command ("--align intersect"), read off its click options: an option's API names are its
#: ``api`` (``ApiOption``, e.g. ``--seed`` sets ``rng``) or else its own name. No global table: the same
#: name can be two flags in two commands, and a name the running command has no flag for stays as it is.

#: the API that a message names -> the command a terminal user runs for it (besides ``rt.<command>``)
COMMAND_WORDS = {"Store.ingest": "ranktrust ingest FILES --db STORE", "rt.score_models": "ranktrust score"}

#: what an interrupted command leaves behind, said after "aborted" (the store is unchanged)
ABORTED = {"ingest": "the store is as it was before the command (an ingest is one transaction)"}

#: the command whose words translate a message when no command is running (``cli_words`` called alone)
DEFAULT_COMMAND = "report"

_running: list[click.Command] = []   # the command this process is running (set by LazyGroup.get_command)


class ApiOption(click.Option):
    """A click option that says which API parameters it sets, when its name is not theirs.

    ``api``: the API parameter names (``--seed`` sets ``rng``; ``--confidence`` sets ``confidence_level``),
    or a dict name -> the flag to show for it (``{"cluster": "--cluster-by"}``).
    ``api_values``: ``(name, value)`` pairs this option stands for as a whole (``--no-groups`` is
    ``cluster=False`` and ``group=None``), for messages such as "compare with `cluster`=False".
    """

    def __init__(self, *args: Any, api: str | tuple[str, ...] | dict[str, str | None] = (),
                 api_values: tuple[tuple[str, str], ...] = (), **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.api: dict[str, str | None] = (
            dict(api) if isinstance(api, dict) else dict.fromkeys((api,) if isinstance(api, str) else api))
        self.api_values = tuple(api_values)


def _flag(opt: click.Option) -> str:
    longs = [o for o in opt.opts if o.startswith("--")]
    return (longs or list(opt.opts))[0]


def command_words(command: click.Command) -> tuple[dict[str, tuple[click.Option, str]],
                                                   dict[tuple[str, str], str]]:
    """The words of one command, read off its click options: API parameter name -> (option, flag), and
    (name, value) -> the flag text that stands for it. An option sets the API parameter of its own name
    (``power_`` and ``model_col`` set ``power`` and ``model``: click's spelling of a name that is taken or a
    column; a flag ``--no-x`` stands for ``x=False``) unless it names others with ``ApiOption(api=...)``."""
    names: dict[str, tuple[click.Option, str]] = {}
    values: dict[tuple[str, str], str] = {}
    for p in command.params:
        if not isinstance(p, click.Option) or p.name is None:
            continue
        api = getattr(p, "api", None) or dict.fromkeys(
            dict.fromkeys([p.name, p.name.rstrip("_"), p.name.removesuffix("_col")]))
        for n, flag in api.items():
            names.setdefault(n, (p, flag or _flag(p)))
        for key in getattr(p, "api_values", ()):
            values[key] = (api.get(key[0]) or _flag(p)) + ("" if p.is_flag else f" {p.metavar or 'COLUMN'}")
        if p.is_flag and p.name.startswith("no_"):    # --no-resume stands for resume=False
            values.setdefault((p.name[3:], "False"), _flag(p))
    return names, values


def _command(command: click.Command | str | None) -> click.Command | None:
    if isinstance(command, click.Command):
        return command
    if command is None and _running:
        return _running[-1]
    return cli.get_command(click.Context(cli), command or DEFAULT_COMMAND)


def cli_words(message: str, command: click.Command | str | None = None) -> str:
    """An API message in the words of a command (the running one, else ``DEFAULT_COMMAND``):
    "`align`='intersect'" -> "--align intersect", "`cluster`=False" -> "--no-groups",
    "`Store.ingest`" -> "`ranktrust ingest FILES --db STORE`". Names the command has no flag for stay."""
    import re

    cmd = _command(command)
    names, values = command_words(cmd) if cmd is not None else ({}, {})

    def sub(mm: "re.Match[str]") -> str:
        name, val = mm.group(1), mm.group(3)
        if "." in name:
            short = name.removeprefix("rt.")
            cmdline = COMMAND_WORDS.get(name) or (f"ranktrust {short}" if name.startswith("rt.")
                                                  and short in COMMANDS else None)
            return mm.group(0) if cmdline is None or val is not None else f"`{cmdline}`"
        bare = None if val is None else val.strip(chr(39) + chr(34))
        if bare is not None and (name, bare) in values:
            return values[(name, bare)]
        if name not in names:
            return mm.group(0)
        opt, flag = names[name]
        if bare is None or (bare == "True" and opt.is_flag):
            return flag
        if bare == "False" and opt.is_flag and opt.secondary_opts:
            return opt.secondary_opts[0]
        return f"{flag} {bare}"

    return re.sub(r"`([\w.]+)`(=('[^']*'|\"[^\"]*\"|[^\s,;)]+))?", sub, message)


def _one_line_warning(message, category, filename, lineno, file=None, line=None):  # noqa: ANN001
    click.echo(f"warning: {cli_words(str(message))}", err=True)


def main(argv: list[str] | None = None) -> Any:
    """Run the command line. A :class:`RanktrustError` (something the user can fix) prints one line and exits 1;
    Ctrl-C prints ``aborted`` and exits 130, also while the command is still loading; any other exception is a
    bug: it keeps its traceback and asks for a report (coverage.py's rule)."""
    try:
        import warnings

        # the one warning policy of every command: each distinct warning once, as one line on stderr
        with warnings.catch_warnings():
            warnings.simplefilter("default")
            warnings.showwarning = _one_line_warning
            return _main(argv)
    except KeyboardInterrupt:
        _aborted()
    finally:
        _running.clear()


def _aborted() -> None:
    said = ABORTED.get(_running[-1].name or "") if _running else None
    click.echo(f"aborted: {said}" if said else "aborted", err=True)
    sys.exit(130)


def _main(argv: list[str] | None) -> Any:
    try:
        return cli.main(args=argv, prog_name="ranktrust", standalone_mode=False)
    except RanktrustError as exc:
        click.echo(f"error: {cli_words(exc.message)}", err=True)
        sys.exit(1)
    except click.exceptions.Abort:
        _aborted()
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
    except BrokenPipeError:
        sys.exit(130)
    except SystemExit:
        raise
    except Exception:
        # not something the user can fix: a bug. Keep the traceback and say where to report it.
        import importlib.metadata

        try:
            version = importlib.metadata.version("ranktrust")
        except importlib.metadata.PackageNotFoundError:  # pragma: no cover
            version = "unknown"
        click.echo(f"\nranktrust {version} hit an internal error (a bug, not a problem with your input). "
                   "Please report it to the ranktrust maintainers with the command line and the traceback below.", err=True)
        raise


if __name__ == "__main__":  # pragma: no cover
    main()
