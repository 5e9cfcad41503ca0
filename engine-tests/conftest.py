"""Shared fixtures for the black-box tests: they drive the built binary."""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
# The tools the tests check (gauntlet.py, sprt.py, elo_fit.py) live in tools/.
sys.path.insert(0, str(ROOT / "tools"))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "timing: checks wall-clock limits; `make engine-test` runs these alone, after the parallel rest")


@pytest.fixture(scope="session")
def exe() -> str:
    path = os.environ.get("ARCHIVIST", str(ROOT / "archivist"))
    assert os.access(path, os.X_OK), f"build the engine first: {path}"
    return path


def run(exe: str, *args: str, stdin: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([exe, *args], input=stdin, capture_output=True, text=True, timeout=timeout)
