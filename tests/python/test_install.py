"""`cmake --install <build> --component python` gives a package that works on its own: installed
under a DESTDIR, imported from there (not from the build folder), it computes the same map."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import stereo
from conftest import BUILD, scene_files


def test_installed_package_imports_and_matches(tmp_path, synth):
    cache = BUILD / "CMakeCache.txt"
    if not cache.is_file() or shutil.which("cmake") is None:
        pytest.skip("needs cmake and a configured build folder")
    found = re.search(r"^STEREO_PYTHON_INSTALL_DIR:PATH=(.*)$", cache.read_text(), re.M)
    assert found, "STEREO_PYTHON_INSTALL_DIR is not in the cache: the module was not configured"
    target = pathlib.Path(found.group(1))
    if not target.is_absolute():
        pytest.skip("a relative install folder goes under the prefix; this test stages the default only")
    stage = tmp_path / "stage"
    subprocess.run(["cmake", "--install", str(BUILD), "--component", "python"], check=True, capture_output=True,
                   env={**os.environ, "DESTDIR": str(stage)})
    site = stage / target.relative_to(target.anchor)
    assert sorted(p.name for p in (site / "stereo").iterdir() if not p.name.startswith("_stereo")) == [
        "__init__.py", "__init__.pyi", "py.typed"]
    left_file, right_file = scene_files(synth)
    out = tmp_path / "map.npy"
    code = (
        "import numpy as np, stereo, sys\n"
        "assert stereo.__file__.startswith(sys.argv[1]), stereo.__file__\n"
        "m = stereo.Matcher('salap', 'cpu', levels=16)\n"
        "np.save(sys.argv[4], m.compute(stereo.read_image(sys.argv[2], rgb=True), stereo.read_image(sys.argv[3], rgb=True)))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run([sys.executable, "-c", code, str(site), str(left_file), str(right_file), str(out)], check=True,
                   cwd=tmp_path, env={**env, "PYTHONPATH": str(site)})
    here = stereo.Matcher("salap", "cpu", levels=16).compute(stereo.read_image(left_file, rgb=True),
                                                             stereo.read_image(right_file, rgb=True))
    assert np.array_equal(np.load(out), here)
