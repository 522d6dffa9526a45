"""Shared fixtures.

Tests may read the real data in ``../shared/data`` (beside the repository root).
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
        if os.environ.get("RANKTRUST_REQUIRE_ALL") == "1":
            pytest.fail(msg + " (RANKTRUST_REQUIRE_ALL=1: nothing may skip)")
        pytest.skip(msg)


def shared_file(name: str) -> Path:
    p = SHARED / name
    if not p.exists():
        pytest.fail(f"{p} is missing: tests read ../shared/data beside the repository")
    return p


@pytest.fixture(scope="session")
def swebench_path() -> Path:
    return shared_file("swebench_verified_mini.csv")


@pytest.fixture(scope="session")
def gpqa_path() -> Path:
    return shared_file("gpqa_main_openllm.csv.gz")


@pytest.fixture(scope="session")
def mmlupro_path() -> Path:
    return shared_file("mmlupro_outputs.csv.gz")


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
