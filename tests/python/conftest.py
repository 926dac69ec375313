"""Fixtures of the Python module's tests.

The module comes from the build folder (STEREO_BUILD_DIR, default <repo>/build: its python/
folder goes first on sys.path), or, with STEREO_PYTHON_INSTALLED=1, from wherever the
interpreter finds an installed `stereo`. The CLI the maps are compared with is
<build>/stereo. scripts/test.sh runs this suite after ctest.
"""

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("STEREO_BUILD_DIR", REPO / "build")).resolve()
if os.environ.get("STEREO_PYTHON_INSTALLED") != "1":
    if not (BUILD / "python" / "stereo").is_dir():
        raise pytest.UsageError(
            f"no Python module in {BUILD}/python: configure with -DPython_EXECUTABLE={sys.executable} "
            "(numpy and pybind11 installed for it) and build the target stereo_python"
        )
    sys.path.insert(0, str(BUILD / "python"))

import stereo  # noqa: E402  (after the path is set)

CLI = BUILD / "stereo"


def run_cli(*args, check=True):
    """Runs the `stereo` program; returns the CompletedProcess (text)."""
    done = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True)
    if check and done.returncode != 0:
        raise AssertionError(f"stereo {' '.join(map(str, args))} failed: {done.stderr}")
    return done


def cli_error(*args):
    """The one line the CLI prints for a failing command, without its 'stereo: error: ' prefix."""
    done = run_cli(*args, check=False)
    assert done.returncode == 1, f"expected a failure from stereo {args}, got {done.returncode}: {done.stdout}"
    line = done.stderr.strip()
    assert line.startswith("stereo: error: ") and "\n" not in line, line
    return line[len("stereo: error: "):]


def same_bits(a, b):
    """Bit-identical float maps (inf and the sign of zero included)."""
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def available_backends():
    """(method, backend) of every backend this build has that runs here, per `stereo list`."""
    return [(m["name"], b["backend"]) for m in stereo.methods() for b in m["backends"] if b["available"]]


@pytest.fixture(scope="session")
def cli():
    if not CLI.is_file():
        pytest.fail(f"no {CLI}: build the target stereo")
    return CLI


@pytest.fixture(scope="session")
def synth(tmp_path_factory, cli):
    """A synthetic 96x64 scene with exact ground truth, 16 levels (MiddEval3 layout)."""
    folder = tmp_path_factory.mktemp("synth") / "scene"
    run_cli("synth", "--size", "96x64", "-d", "16", "--out", folder)
    return folder


@pytest.fixture(scope="session")
def tsukuba():
    """Middlebury v2 Tsukuba under the data root (STEREO_DATA, else the per-user default), if present."""
    folder = pathlib.Path(stereo.data_root()) / "middlebury-v2" / "tsukuba"
    if not folder.is_dir():
        pytest.skip(f"no Middlebury v2 Tsukuba at {folder}; install it with: stereo data get middlebury-v2")
    return folder


def scene_files(folder):
    """The left and right image files of a scene folder (MiddEval3 or Middlebury v2 names)."""
    for left, right in (("im0.png", "im1.png"), ("left.png", "right.png")):
        if (folder / left).is_file():
            return folder / left, folder / right
    raise AssertionError(f"no image pair in {folder}")
