"""The ``okf`` command in a subprocess, and the refusals tests expect from it and from the API."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from okf_sphinx import OkfError


def okf(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "okf_sphinx", *args], capture_output=True, text=True, encoding="utf-8")


def envelope_of(proc: subprocess.CompletedProcess[str]) -> dict:
    """The CLI's --json refusal: stdout is exactly one line holding the envelope, nothing else."""
    assert proc.stdout.count("\n") == 1, proc.stdout
    assert "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)["error"]


def code_of(fn) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(OkfError) as err:
        fn()
    return err.value.code
