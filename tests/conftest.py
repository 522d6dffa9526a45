"""Shared fixtures.

Real data: GPQA (MIT) is bundled in ``tests/data/`` and MMLU-Pro (Apache-2.0) in the package
(``src/ranktrust/datasets/``), so their tests run on a fresh clone. SWE-bench Verified and AlpacaEval 2.0
(CC BY-NC) and the harness logs are never bundled: tests read them from ``../shared/data`` (beside the
repository root) and skip with a one-line reason when it is absent.
Optional dependencies: ``require(name)`` skips with a one-line reason when the
dependency is absent, except under ``RANKTRUST_REQUIRE_ALL=1`` (set by ``.ci/run``),
where a missing dependency fails the test instead.
"""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
DATA = ROOT / "tests" / "data"
BUNDLED_MMLUPRO = ROOT / "src" / "ranktrust" / "datasets" / "mmlupro_outputs.csv.gz"


def _require_all() -> bool:
    return os.environ.get("RANKTRUST_REQUIRE_ALL") == "1"


def require(module: str | None = None, *, executable: str | None = None, install: str = "") -> None:
    """Skip (or fail in CI) when an optional dependency is missing."""
    missing = None
    if module is not None:
        try:
            importlib.import_module(module)
        except ImportError:
            missing = module
    if executable is not None and shutil.which(executable) is None:
        missing = executable
    if missing is not None:
        msg = f"needs {missing}: {install or 'install it'}"
        if _require_all():
            pytest.fail(msg + " (RANKTRUST_REQUIRE_ALL=1: nothing may skip)")
        pytest.skip(msg)


def shared_file(name: str) -> Path:
    """``../shared/data/NAME``; skips (fails under RANKTRUST_REQUIRE_ALL=1) when it is not there."""
    p = SHARED / name
    if not p.exists():
        msg = f"needs ../shared/data/{name} (not bundled: see tests/data/README.md)"
        if _require_all():
            pytest.fail(f"{p} is missing (RANKTRUST_REQUIRE_ALL=1: nothing may skip)")
        pytest.skip(msg)
    return p


@pytest.fixture(scope="session")
def swebench_path() -> Path:
    return shared_file("swebench_verified_mini.csv")


@pytest.fixture(scope="session")
def gpqa_path() -> Path:
    return DATA / "gpqa_main_openllm.csv.gz"  # bundled (MIT), see tests/data/README.md


@pytest.fixture(scope="session")
def mmlupro_path() -> Path:
    return BUNDLED_MMLUPRO  # bundled in the package (Apache-2.0); the same file as ../shared/data's


@pytest.fixture(scope="session")
def alpaca_path() -> Path:
    return shared_file("alpacaeval2_weighted.csv.gz")


@pytest.fixture(scope="session")
def harness_logs() -> Path:
    return shared_file("harness-logs")


@pytest.fixture(scope="session")
def swebench(swebench_path):
    import ranktrust as rt

    return rt.read(swebench_path)


@pytest.fixture(scope="session")
def gpqa(gpqa_path):
    import ranktrust as rt

    return rt.read(gpqa_path)


def run_cli(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    """Run the command line in-process; returns (exit code, stdout, stderr); never a traceback."""
    from ranktrust.cli.main import main

    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err

