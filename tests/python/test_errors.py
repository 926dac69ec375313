"""Bad input raises Python's own exception with the one line the CLI prints (ValueError for
shapes, dtypes, ranges, sizes and parameters; RuntimeError for no device, no context or the GL
thread rule; MemoryError for a volume that does not fit), and the matcher stays usable."""

import os
import shutil
import subprocess
import sys
import threading

import numpy as np
import pytest

import stereo
from conftest import BUILD, available_backends, cli_error, run_cli, scene_files


@pytest.fixture(scope="module")
def pair(synth):
    left_file, right_file = scene_files(synth)
    return stereo.read_image(left_file, rgb=True), stereo.read_image(right_file, rgb=True)


def raises(kind, text, call):
    with pytest.raises(kind) as caught:
        call()
    assert str(caught.value) == text
    return caught.value


def test_parameter_errors_equal_the_cli(synth):
    left_file, right_file = scene_files(synth)
    run = ("run", left_file, right_file, "-m", "salap", "-b", "cpu", "-d", 16, "-o", "/tmp/unused.pfm")
    # (keyword arguments, the CLI's --set): unknown key, malformed number, values out of range,
    # a backend option's bad choice.
    for kwargs, sets in [({"nope": 1}, "nope=1"), ({"gamma": "abc"}, "gamma=abc"), ({"gamma": -1}, "gamma=-1"),
                         ({"window": 4}, "window=4"), ({"threads": -1}, "threads=-1")]:
        expected = cli_error(*run, "--set", sets)
        raises(ValueError, expected, lambda: stereo.Matcher("salap", "cpu", levels=16, **kwargs))


def test_unknown_method_and_backend_equal_the_cli(synth):
    left_file, right_file = scene_files(synth)
    for method, backend in [("nope", "cpu"), ("salap", "nope")]:
        expected = cli_error("run", left_file, right_file, "-m", method, "-b", backend, "-o", "/tmp/unused.pfm")
        raises(ValueError, expected, lambda: stereo.Matcher(method, backend))


def test_range_errors_equal_the_cli(synth, tmp_path, pair):
    # `stereo eval` hands the scene's range (calib.txt's ndisp) to the matcher as it is, so the
    # CLI's line is the matcher's own: here a range as wide as the image.
    scene = tmp_path / "wide_range"
    shutil.copytree(synth, scene)
    (scene / "calib.txt").write_text((scene / "calib.txt").read_text().replace("ndisp=16", "ndisp=200"))
    expected = cli_error("eval", scene, "-m", "salap", "-b", "cpu")
    assert expected == "salap/cpu: disparity levels 200 must be below the image width 96"
    raises(ValueError, expected, lambda: stereo.Matcher("salap", "cpu", levels=200).compute(*pair))
    raises(ValueError, "salap/cpu: disparity range 90..105 leaves no overlap for an image 96 wide "
                       "(every disparity must satisfy -width < d < width)",
           lambda: stereo.Matcher("salap", "cpu", levels=16, min_disparity=90).compute(*pair))
    raises(ValueError, "salap/cpu: disparity levels must be >= 1, got 0",
           lambda: stereo.Matcher("salap", "cpu", levels=0).compute(*pair))
    # Refused when the matcher is made or changed, before any work (and with the same line).
    raises(ValueError, "salap/cpu: disparity levels must be >= 1, got 0", lambda: stereo.Matcher("salap", "cpu", levels=0))
    m = stereo.Matcher("salap", "cpu", levels=16)
    raises(ValueError, "salap/cpu: disparity levels must be >= 1, got -3", lambda: setattr(m, "levels", -3))
    assert m.levels == 16


def test_mismatched_sizes_equal_the_cli(synth, tmp_path, pair):
    other = tmp_path / "narrow"
    run_cli("synth", "--size", "80x64", "-d", "16", "--out", other)
    left_file, _ = scene_files(synth)
    _, narrow_right = scene_files(other)
    cli = cli_error("run", left_file, narrow_right, "-m", "salap", "-b", "cpu", "-d", 16, "-o", tmp_path / "x.pfm")
    # The CLI checks the pair before it makes a matcher and names itself ("run: ..."); the module's
    # line names the matcher that refused it. The sentence is the same.
    assert cli.startswith("run: ")
    narrow = stereo.read_image(narrow_right, rgb=True)
    raises(ValueError, "salap/cpu: " + cli[len("run: "):],
           lambda: stereo.Matcher("salap", "cpu", levels=16).compute(pair[0], narrow))


def test_dtype_shape_and_channel_errors(pair):
    left, right = pair
    m = stereo.Matcher("salap", "cpu", levels=16)
    raises(ValueError, "salap/cpu: left must be uint8, got float32", lambda: m.compute(left.astype(np.float32), right))
    raises(ValueError, "salap/cpu: right must be uint8, got int64", lambda: m.compute(left, right.tolist()))
    raises(ValueError, "salap/cpu: left must be H x W (grey) or H x W x 3 (RGB), got shape (2, 64, 96, 3)",
           lambda: m.compute(np.stack([left, left]), right))
    raises(ValueError, "salap/cpu: left must be H x W (grey) or H x W x 3 (RGB), got shape (6144,)",
           lambda: m.compute(left[..., 0].ravel(), right))
    rgba = np.concatenate([left, left[..., :1]], axis=2)
    raises(ValueError, "salap/cpu: inputs must be grey or RGB, got 4 channels",
           lambda: m.compute(rgba, np.concatenate([right, right[..., :1]], axis=2)))
    raises(ValueError, "salap/cpu: left has 1 channels, right 3", lambda: m.compute(left[..., 0], right))
    raises(ValueError, "salap/cpu: empty input image", lambda: m.compute(left[:0], right[:0]))
    raises(ValueError, "salap/cpu: out must be 'numpy' or 'cuda', got 'torch'", lambda: m.compute(left, right, out="torch"))
    raises(ValueError, "salap/cpu: out='cuda' keeps the map in CUDA memory, which needs a cuda backend",
           lambda: m.compute(left, right, out="cuda"))
    raises(ValueError, "--device: the GPU ordinal must be >= 0, got -1",
           lambda: stereo.Matcher("salap", "cpu", device=-1))
    with pytest.raises(TypeError, match="parameter gamma must be a number, a bool or a str"):
        stereo.Matcher("salap", "cpu", gamma=[5])
    # No half-done state: the matcher still computes, and its timing is the last good run's.
    good = m.compute(left, right)
    assert good.shape == left.shape[:2] and np.isfinite(good).any()


def test_unavailable_backends_raise_runtime_error_with_the_cli_line(synth):
    left_file, right_file = scene_files(synth)
    unavailable = [(m["name"], b["backend"]) for m in stereo.methods() for b in m["backends"] if not b["available"]]
    if not unavailable:
        pytest.skip("every registered backend runs here (the no-context case below covers RuntimeError)")
    for method, backend in unavailable:
        expected = cli_error("run", left_file, right_file, "-m", method, "-b", backend, "-o", "/tmp/unused.pfm")
        raises(RuntimeError, expected, lambda: stereo.Matcher(method, backend))


def test_no_gl_context_raises_runtime_error_with_the_cli_line(synth):
    if ("salap", "gl") not in available_backends():
        pytest.skip("no salap/gl here")
    # A GLFW context without a display: no context can be made (in a fresh process, as the
    # context is made once per process).
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env.update(STEREO_GL_PLATFORM="glfw", PYTHONPATH=str(BUILD / "python"))
    left_file, right_file = scene_files(synth)
    cli = subprocess.run([str(BUILD / "stereo"), "run", str(left_file), str(right_file), "-m", "salap", "-b", "gl",
                          "-o", "/tmp/unused.pfm"], capture_output=True, text=True, env=env)
    assert cli.returncode == 1 and cli.stderr.startswith("stereo: error: salap/gl is not available here: ")
    code = ("import stereo\ntry:\n    stereo.Matcher('salap', 'gl')\nexcept RuntimeError as e:\n    print(e)\n")
    py = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert py.stdout.strip() == cli.stderr.strip()[len("stereo: error: "):], py.stderr


def test_gl_matcher_from_another_thread_raises_runtime_error(pair):
    if ("salap", "gl") not in available_backends():
        pytest.skip("no salap/gl here")
    m = stereo.Matcher("salap", "gl", levels=16)  # the GL context is this (the main) thread's
    expected = m.compute(*pair)
    caught = []

    def other_thread():
        try:
            m.compute(*pair)
        except Exception as e:  # noqa: BLE001  (the test looks at which)
            caught.append(e)

    worker = threading.Thread(target=other_thread)
    worker.start()
    worker.join()
    assert len(caught) == 1 and isinstance(caught[0], RuntimeError), caught
    assert "GL backends run on the one thread that first used one" in str(caught[0])
    assert np.array_equal(m.compute(*pair), expected)  # still fine on its own thread


def test_volume_that_does_not_fit_raises_memory_error():
    # adcensus/cpu holds a float32 volume of W x H x levels: 4096 x 2048 x 4000 is 125 GiB, far
    # beyond the memory (and the overcommit heuristic refuses it at once, before a page is touched).
    with open("/proc/meminfo") as f:
        mem_kib = int(f.readline().split()[1])
    with open("/proc/sys/vm/overcommit_memory") as f:
        overcommit = f.read().strip()
    if overcommit == "1" or mem_kib * 1024 * 4 > 4096 * 2048 * 4000 * 4:
        pytest.skip("this machine could grant the volume (overcommit always, or memory too large to test)")
    grey = np.zeros((2048, 4096), np.uint8)
    with pytest.raises(MemoryError) as caught:
        stereo.Matcher("adcensus", "cpu", levels=4000).compute(grey, grey)
    assert str(caught.value) == ("adcensus/cpu: out of host memory for 4096x2048 with 4000 levels "
                                 "(a float32 volume of that size takes 128000.0 MiB)")
