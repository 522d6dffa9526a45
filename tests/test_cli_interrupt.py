"""Ctrl-C at any moment of the ``ranktrust`` command: one line (``aborted``), exit 130, no traceback (issue 21).

The early window is the console script's imports (click, the command's module, pandas): a KeyboardInterrupt raised
by an import. Each test runs the console script's own body (``from ranktrust.cli import main; sys.exit(main())``)
in a child Python whose import of one chosen module raises KeyboardInterrupt, or blocks there until the test
sends it a real SIGINT: the interrupt lands at a known point, so the tests do not depend on timing.
"""

from __future__ import annotations

import importlib.metadata
import os
import signal
import subprocess
import sys
import textwrap

import pytest

# the console script's body, as the installer writes it for the entry point ranktrust.cli:main
_SCRIPT = "from ranktrust.cli import main\nsys.exit(main(sys.argv[1:]))\n"

# a finder that runs ``ACTION`` when the child imports module ``STOP_AT`` (before the module itself loads)
_HOOK = textwrap.dedent("""
    import os, sys, time

    STOP_AT, ACTION = os.environ["RT_STOP_AT"], os.environ["RT_ACTION"]

    class _Stop:
        def find_spec(self, name, path=None, target=None):
            if name != STOP_AT:
                return None
            if ACTION == "raise":
                raise KeyboardInterrupt
            print("ready", flush=True)      # the test sends SIGINT now; it arrives during the sleep
            time.sleep(60)
            raise AssertionError("no SIGINT came")

    sys.meta_path.insert(0, _Stop())
""")


def _terminal_signals() -> None:
    """In the child before it starts: Ctrl-C as a terminal delivers it. A parent started in the background by a
    shell without job control (``nohup … &``, some CI runners) ignores SIGINT, and a child inherits that: its
    Python would never see the signal (the real-SIGINT test then timed out under such a runner)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _child(stop_at: str, action: str, *args: str) -> subprocess.Popen:
    env = {**os.environ, "RT_STOP_AT": stop_at, "RT_ACTION": action}
    return subprocess.Popen([sys.executable, "-c", _HOOK + _SCRIPT, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=_terminal_signals)


def test_the_console_script_is_the_entry_point_these_tests_run():
    (ep,) = [e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == "ranktrust"]
    assert ep.value == "ranktrust.cli:main"


@pytest.mark.parametrize("stop_at", [
    "ranktrust.cli._main",     # the command line's own module
    "click",                   # imported by it
    "ranktrust.cli._report",   # the command's module, loaded once the command is known
    "pandas",                  # what the command's module loads
])
def test_ctrl_c_while_importing_is_one_line_and_exit_130(stop_at, tmp_path):
    p = _child(stop_at, "raise", "report", str(tmp_path / "none.csv"))
    out, err = p.communicate(timeout=120)
    # click starts a new line after the terminal's ^C once it runs; the early handler does the same
    assert (p.returncode, err, out) == (130, "\naborted\n", "")


@pytest.mark.parametrize("stop_at", ["ranktrust.cli._main", "pandas"])
def test_a_real_sigint_while_the_command_line_loads(stop_at, tmp_path):
    """A real SIGINT, sent while the child is inside that import (it said 'ready' from there)."""
    p = _child(stop_at, "block", "report", str(tmp_path / "none.csv"))
    with p:   # on any failure the child is killed and its pipes closed (no warning leaks into the next test)
        try:
            assert p.stdout.readline() == "ready\n"
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=60)
        finally:
            p.kill()
    assert "Traceback" not in err
    assert (p.returncode, err, out) == (130, "\naborted\n", "")


def test_the_console_script_imports_almost_nothing_before_it_can_catch_ctrl_c():
    """What ``from ranktrust.cli import main`` loads runs before any handler exists: keep it to the package's own
    three small modules (typing alone took tens of ms, the window in which Ctrl-C printed a traceback)."""
    code = ("import sys; before = set(sys.modules); from ranktrust.cli import main; "
            "print(' '.join(sorted(set(sys.modules) - before)))")
    new = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())
    assert new <= {"__future__", "ranktrust", "ranktrust.errors", "ranktrust.cli"}, new
