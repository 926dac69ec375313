"""examples/python/compare.py runs: every method that runs here on a scene, the figure written,
the bad-pixel table printed with the figures stereo.evaluate gives."""

import os
import subprocess
import sys

import pytest

import stereo
from conftest import BUILD, REPO


def test_compare_example(synth, tmp_path):
    pytest.importorskip("matplotlib")
    figure = tmp_path / "compare.png"
    env = {**os.environ, "PYTHONPATH": str(BUILD / "python"), "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, str(REPO / "examples" / "python" / "compare.py"), str(synth), "--out",
                           str(figure)], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr
    assert figure.stat().st_size > 10_000
    methods = [m["name"] for m in stereo.methods() if any(b["available"] for b in m["backends"])]
    table = [line.split()[0] for line in done.stdout.splitlines() if "/" in line.split(" ")[0]]
    assert [c.split("/")[0] for c in table] == methods
