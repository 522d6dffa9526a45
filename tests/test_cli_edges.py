"""The command line at its edges: output into a closed pipe (newcomer QA D17), an --out suffix that names no
format (D19)."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import run_cli

@pytest.fixture(scope="module")
def two_models(tmp_path_factory) -> Path:
    """A 0/1 table: 'weak' (10%) far below 'strong' (60%) on 120 items (the gate FAILs 'weak' against 'strong')."""
    rng = np.random.default_rng(0)
    path = tmp_path_factory.mktemp("edges") / "two.csv"
    rows = ["model,item,score"]
    for model, p in (("weak", 0.1), ("strong", 0.6)):
        rows += [f"{model},i{i},{int(x)}" for i, x in enumerate(rng.random(120) < p)]
    path.write_text("\n".join(rows) + "\n")
    return path


# ------------------------------------------------------------------ D19: --out suffixes
@pytest.mark.parametrize("cmd", [["report", "--no-stability"], ["compare", "--a", "weak", "--b", "strong"]])
def test_an_out_suffix_naming_no_format_is_refused_before_the_analysis(cmd, two_models, tmp_path, capsys):
    target = tmp_path / "r.jsn"        # a typo for .json was written as text
    code, out, err = run_cli(capsys, cmd[0], two_models, *cmd[1:], "--out", target)
    assert code == 1 and not target.exists() and out == ""
    assert err.strip() == (f"error: --out {target} ends in .jsn, which names no output format: name the file "
                           ".txt, .md, .json, .html or .csv, or give --format")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args, first", [
    (["--out", "{d}/r.jsn", "-f", "json"], "{"),      # --format given: the suffix is the user's business
    (["-f", "json", "--out", "{d}/r.jsn"], "{"),      # in either order
    (["--out", "{d}/r.txt"], "weak"),                   # .txt is text
    (["--out", "{d}/r"], "weak"),                       # no suffix: text, as before
    (["-f", "md", "--out", "{d}/r.log"], "##"),         # a .txt or .log file takes any format asked for
])
def test_out_suffixes_that_say_what_to_write(args, first, two_models, tmp_path, capsys):
    args = [a.format(d=tmp_path) for a in args]
    out_file = Path(args[args.index("--out") + 1])
    code, _, err = run_cli(capsys, "compare", two_models, "--a", "weak", "--b", "strong", *args)
    assert code == 0, err
    text = out_file.read_text()
    assert text.lstrip().startswith(first) or first in text.splitlines()[0], text[:200]


def test_a_contradicting_format_is_still_refused_in_either_order(two_models, tmp_path, capsys):
    for args in (["-f", "md", "--out", str(tmp_path / "r.json")], ["--out", str(tmp_path / "r.json"), "-f", "md"]):
        code, _, err = run_cli(capsys, "compare", two_models, "--a", "weak", "--b", "strong", *args)
        assert code == 1 and "--format md but --out" in err and not (tmp_path / "r.json").exists()


def test_output_format_rule():
    from ranktrust.errors import DataError
    from ranktrust.reporting._render import output_format

    assert output_format(None, "-") == "text" and output_format(None, "a/b.v2/report") == "text"
    assert output_format(None, "R.HTM") == "html" and output_format(None, ".hidden") == "text"
    assert output_format("csv", "x.txt") == "csv" and output_format(None, "x.log") == "text"
    with pytest.raises(DataError, match=r"^`out`='x.xyz' ends in .xyz") as exc:
        output_format(None, "x.xyz")
    assert exc.value.param == "out"


# ------------------------------------------------------------------ D17: a closed pipe
def _into_closed_pipe(*args: object) -> int:
    """``ranktrust ARGS 2>&1 | head -0`` in-process, deterministically: stdout and stderr (file descriptors 1 and
    2) are a pipe whose reader is gone before a byte is written. Returns the exit code."""
    from ranktrust.cli._main import main

    r, w = os.pipe()
    os.close(r)
    saved = os.dup(1), os.dup(2)
    streams = sys.stdout, sys.stderr
    try:
        os.dup2(w, 1)
        os.dup2(w, 2)
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8")
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", write_through=True)
        try:
            main([str(a) for a in args])
            return 0
        except SystemExit as exc:
            return int(exc.code or 0)
    finally:
        for s in (sys.stdout, sys.stderr):
            try:
                s.flush()
            except OSError:
                pass
        sys.stdout, sys.stderr = streams
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, w):
            os.close(fd)


def test_a_closed_pipe_keeps_the_commands_exit_code(two_models):
    # D17: click exits 1 (the code of bad input) when stdout or stderr meet a closed pipe (`| head`); a CI step
    # piping the gate into head read "bad input". The command now runs on and ends with its own code.
    gate = ["gate", two_models, "--candidate", "weak", "--baseline", "strong"]
    assert _into_closed_pipe(*gate) == 3            # FAIL, as without the pipe (it was 1)
    assert _into_closed_pipe("compare", two_models, "--a", "weak", "--b", "strong") == 0


def test_quiet_closed_pipes_leaves_captured_streams_and_drops_after_epipe(capsys):
    from ranktrust.cli._common import _PipeWriter, quiet_closed_pipes

    before = sys.stdout, sys.stderr
    quiet_closed_pipes()           # pytest's captured streams are no pipes: nothing changes
    assert (sys.stdout, sys.stderr) == before
    r, w = os.pipe()
    os.close(r)
    end = _PipeWriter(io.FileIO(w, "w", closefd=False))
    try:
        stream = io.TextIOWrapper(end, encoding="utf-8", write_through=True)
        assert stream.write("x" * 10) == 10 and stream.write("more\n") == 5     # EPIPE: dropped, no error
        stream.flush()
        assert not end.isatty() and end.fileno() == w
        stream.close()
        os.write(w, b"still open: now the null device")
    finally:
        os.close(w)
