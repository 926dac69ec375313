"""The data layer and the registry's tables in Python give what the CLI prints: stereo.evaluate
the figures of `stereo eval`, stereo.methods() and stereo.params() the JSON of `stereo list`
and `stereo params`; help(stereo.Matcher) lists the parameters; the stubs cover the module."""

import ast
import json
import pathlib
import pydoc

import numpy as np
import pytest

import stereo
from conftest import REPO, run_cli


@pytest.mark.parametrize("scene_name", ["synth", "tsukuba"])
@pytest.mark.parametrize("protocol", ["submitted", "float"])
def test_evaluate_equals_stereo_eval(scene_name, protocol, request):
    folder = request.getfixturevalue(scene_name)
    doc = json.loads(run_cli("eval", folder, "-m", "salap", "-b", "cpu", "--protocol", protocol, "--json").stdout)
    row = doc["scenes"][0]
    scene = stereo.load_scene(folder)
    assert (scene.name, scene.levels, scene.min_disparity) == (row["name"], row["levels"], row["min_disparity"])
    disparity = stereo.Matcher("salap", "cpu", levels=scene.levels, min_disparity=scene.min_disparity).compute(
        scene.left, scene.right)
    metrics = stereo.evaluate(disparity, scene, protocol=protocol)
    for key in ("threshold", "nonocc", "all", "disc", "avg_error", "density", "d1_all"):
        assert metrics[key] == row[key], key
    assert metrics["submission_rule"] == row["submission_rule"]


def test_evaluate_arrays_and_masks(synth):
    scene = stereo.load_scene(synth)
    gt = scene.gt.copy()
    disparity = gt + np.where(np.arange(gt.size).reshape(gt.shape) % 4 == 0, 3.0, 0.0).astype(np.float32)
    disparity[0, :8] = np.inf  # no disparity: bad wherever there is ground truth
    m = stereo.evaluate(disparity, gt, threshold=1.0)
    known = np.isfinite(gt)
    bad = ~(np.abs(disparity - gt) <= 1.0) & known
    assert m["all"] == pytest.approx(100.0 * bad.sum() / known.sum())
    assert m["nonocc"] is None and m["disc"] is None and m["protocol"] == "submitted"
    mask = scene.mask_nonocc == 255
    with_mask = stereo.evaluate(disparity, gt, mask=mask, threshold=1.0)
    assert with_mask["nonocc"] == pytest.approx(100.0 * (bad & mask).sum() / (known & mask).sum())
    # The scene's own masks score the same pixels.
    assert stereo.evaluate(disparity, scene, threshold=1.0, protocol="float")["nonocc"] == with_mask["nonocc"]
    with pytest.raises(ValueError, match="^ground_truth: disparity map is 95x64, ground truth 96x64$"):
        stereo.evaluate(disparity[:, 1:], gt)
    with pytest.raises(ValueError, match="^evaluate: mask is for a ground-truth array; a Scene brings its own masks$"):
        stereo.evaluate(disparity, scene, mask=mask)
    with pytest.raises(ValueError, match="^evaluate: protocol must be 'submitted' or 'float', got 'png'$"):
        stereo.evaluate(disparity, scene, protocol="png")


def test_scene_arrays_and_error_map(synth, tmp_path):
    scene = stereo.load_scene(synth)
    assert scene.kind == "middlebury-v3" and scene.has_ground_truth and scene.default_threshold == 2.0
    assert scene.left.shape == (64, 96, 3) and scene.left.dtype == np.uint8
    assert scene.gt.dtype == np.float32 and scene.mask_disc is None
    assert np.array_equal(scene.left, stereo.read_image(synth / "im0.png", rgb=True))
    disparity = stereo.Matcher("salap", "cpu", levels=16).compute(scene.left, scene.right)
    picture = stereo.error_map(disparity, scene)
    assert picture.shape == (64, 96, 3) and picture.dtype == np.uint8
    red = (picture == [230, 20, 20]).all(axis=2)
    bad = ~(np.abs(disparity - scene.gt) <= 2.0) & np.isfinite(scene.gt) & (scene.mask_nonocc == 255)
    assert np.array_equal(red, bad)
    path = tmp_path / "d.pfm"
    stereo.write_pfm(path, disparity)
    assert np.array_equal(stereo.read_pfm(path), disparity)
    pair = stereo.load_pair(synth / "im0.png", synth / "im1.png", 16)
    assert pair.kind == "plain" and pair.gt is None and pair.levels == 16
    assert [s.name for s in stereo.load_dataset(synth)] == [scene.name]
    with pytest.raises(RuntimeError, match="nothing-here"):
        stereo.load_scene(tmp_path / "nothing-here")


def test_methods_and_params_equal_the_cli():
    listed = json.loads(run_cli("list", "--json").stdout)
    assert stereo.methods() == listed["methods"]
    for method in [m["name"] for m in listed["methods"]]:
        cli = json.loads(run_cli("params", "-m", method, "--json").stdout)
        ours = stereo.params(method)
        assert {k: ours[k] for k in ("method", "title", "citation")} == {k: cli[k] for k in ("method", "title", "citation")}

        def lines(table):
            return [f"{k} = {json.dumps(v['default'])}  ({v['doc']})" for k, v in table.items()]

        assert lines(ours["params"]) == cli["params"]
        for b_ours, b_cli in zip(ours["backends"], cli["backends"], strict=True):
            assert (b_ours["backend"], b_ours["available"]) == (b_cli["backend"], b_cli["available"])
            assert lines(b_ours["options"]) == b_cli["options"]


def test_every_listed_parameter_is_accepted_at_its_default():
    for m in stereo.methods():
        table = stereo.params(m["name"])
        for b in table["backends"]:
            if not b["available"]:
                continue
            defaults = {k: v["default"] for k, v in {**table["params"], **b["options"]}.items()}
            matcher = stereo.Matcher(m["name"], b["backend"], **defaults)
            for key, value in defaults.items():
                assert matcher.params[key] == value, (m["name"], b["backend"], key)


def test_help_lists_the_parameters():
    text = pydoc.render_doc(stereo.Matcher, renderer=pydoc.plaintext)  # what help() shows
    assert "Matcher(method, backend=\"cpu\", levels=64, min_disparity=0, device=None, **params)" in text
    for m in stereo.methods():
        assert f"|  {m['name']} (" in text
        for key in stereo.params(m["name"])["params"]:
            assert f"|    {key} = " in text, (m["name"], key)
    assert "last_timing" in text and "compute(" in text


def names_in_stub():
    tree = ast.parse((REPO / "python" / "stereo" / "__init__.pyi").read_text())
    top, members = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        if isinstance(node, ast.ClassDef):
            members[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)} | {
                n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
        if isinstance(node, ast.AnnAssign):
            top.add(node.target.id)
    return top, members


def test_stubs_cover_the_module():
    top, members = names_in_stub()
    assert set(stereo.__all__) | {"DeviceArray"} <= top
    for cls in ("Matcher", "Scene", "DeviceArray"):
        public = {n for n in members[cls] if not n.startswith("_")}
        if hasattr(stereo, cls):
            assert public == {n for n in dir(getattr(stereo, cls)) if not n.startswith("_")}, cls
    assert pathlib.Path(stereo.__file__).with_name("py.typed").is_file()
