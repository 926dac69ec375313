"""Every method x backend through the module gives the map `stereo run` writes, bit for bit;
strided, grey and DLPack inputs give the maps contiguous arrays give."""

import numpy as np
import pytest

import stereo
from conftest import available_backends, run_cli, same_bits, scene_files

AVAILABLE = available_backends()
REGISTERED = [(m["name"], b["backend"], b["reason"]) for m in stereo.methods() for b in m["backends"]]


@pytest.mark.parametrize("method,backend,reason", REGISTERED, ids=[f"{m}/{b}" for m, b, _ in REGISTERED])
def test_every_registered_backend_is_tested_or_says_why_not(method, backend, reason):
    # The map tests below run every available backend; this names the ones that cannot run here.
    if reason is not None:
        pytest.skip(f"{method}/{backend} is not available here: {reason}")
    assert (method, backend) in AVAILABLE


@pytest.mark.parametrize("scene_name", ["synth", "tsukuba"])
@pytest.mark.parametrize("method,backend", AVAILABLE, ids=[f"{m}/{b}" for m, b in AVAILABLE])
def test_map_equals_stereo_run(method, backend, scene_name, request, tmp_path):
    folder = request.getfixturevalue(scene_name)
    left_file, right_file = scene_files(folder)
    levels = stereo.load_scene(folder).levels
    pfm = tmp_path / "cli.pfm"
    run_cli("run", left_file, right_file, "-m", method, "-b", backend, "-d", levels, "-o", pfm)
    matcher = stereo.Matcher(method, backend, levels=levels)
    disparity = matcher.compute(stereo.read_image(left_file, rgb=True), stereo.read_image(right_file, rgb=True))
    assert disparity.dtype == np.float32 and disparity.flags.c_contiguous and disparity.flags.writeable
    assert same_bits(disparity, stereo.read_pfm(pfm))
    timing = matcher.last_timing
    assert timing["total_ms"] > 0 and set(timing) >= {"upload_ms", "algorithm_ms", "readback_ms", "stages", "clock"}


def test_parameters_and_range_equal_stereo_run(synth, tmp_path):
    # A float parameter that is no short binary fraction, an int and a negative range start:
    # the keyword arguments reach the binder as `--set` text does.
    left_file, right_file = scene_files(synth)
    pfm = tmp_path / "cli.pfm"
    run_cli("run", left_file, right_file, "-m", "salap", "-b", "cpu", "-d", 12, "--min-disparity", -2,
            "--set", "gamma=3.3", "--set", "window=17", "-o", pfm)
    matcher = stereo.Matcher("salap", "cpu", levels=12, min_disparity=-2, gamma=3.3, window=17)
    disparity = matcher.compute(stereo.read_image(left_file, rgb=True), stereo.read_image(right_file, rgb=True))
    assert same_bits(disparity, stereo.read_pfm(pfm))
    assert matcher.params["gamma"] == pytest.approx(3.3) and matcher.params["window"] == 17
    assert (matcher.levels, matcher.min_disparity) == (12, -2)


class Producer:
    """Only the DLPack protocol (what a library other than NumPy hands over), over a NumPy array."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def layouts(image):
    """The same pixels in the layouts a caller may hand over: (name, object, binding copies?)."""
    h, w, c = image.shape
    padded = np.zeros((h, w + 13, c), np.uint8)
    padded[:, :w] = image
    wide = np.zeros((h, 2 * w, c), np.uint8)
    wide[:, ::2] = image
    bgr = np.ascontiguousarray(image[..., ::-1])
    flipped = np.ascontiguousarray(image[::-1])
    return [
        ("row pitch", padded[:, :w], "row pitch"),
        ("column step", wide[:, ::2], "strided"),
        ("channels reversed", bgr[..., ::-1], "strided"),
        ("rows reversed", flipped[::-1], "strided"),
        ("fortran order", np.asfortranarray(image), "strided"),
        ("dlpack", Producer(image), "contiguous"),
        ("dlpack row pitch", Producer(padded[:, :w]), "row pitch"),
    ]


@pytest.mark.parametrize("method,backend", AVAILABLE, ids=[f"{m}/{b}" for m, b in AVAILABLE])
def test_strided_and_dlpack_inputs_equal_contiguous(method, backend, synth):
    left_file, right_file = scene_files(synth)
    left, right = stereo.read_image(left_file, rgb=True), stereo.read_image(right_file, rgb=True)
    matcher = stereo.Matcher(method, backend, levels=16)
    expected = matcher.compute(left, right)
    for (name, l, layout), (_, r, _) in zip(layouts(left), layouts(right)):
        copies = stereo._testing.input_copies()
        assert same_bits(matcher.compute(l, r), expected), name
        assert matcher.last_input["left"]["layout"].startswith(layout), (name, matcher.last_input)
        # Read in place through an image view unless the pixels are not interleaved rows.
        copied = layout == "strided"
        assert matcher.last_input["left"]["copied"] == copied, (name, matcher.last_input)
        assert stereo._testing.input_copies() - copies == (2 if copied else 0), name
    torch = pytest.importorskip("torch")
    chw = torch.from_numpy(np.ascontiguousarray(left.transpose(2, 0, 1)))
    for l, r in [(torch.from_numpy(left), torch.from_numpy(right)), (chw.permute(1, 2, 0), torch.from_numpy(right))]:
        assert same_bits(matcher.compute(l, r), expected)
        assert matcher.last_input["left"]["source"] == "dlpack"


def test_grey_inputs(synth):
    left_file, right_file = scene_files(synth)
    left, right = stereo.read_image(left_file, rgb=True), stereo.read_image(right_file, rgb=True)
    grey_l, grey_r = left[..., 1].copy(), right[..., 1].copy()
    matcher = stereo.Matcher("salap", "cpu", levels=16)
    grey = matcher.compute(grey_l, grey_r)
    assert grey.shape == grey_l.shape
    assert same_bits(matcher.compute(grey_l[..., None], grey_r[..., None]), grey)
    assert same_bits(matcher.compute(left[..., 1], right[..., 1]), grey)  # a strided channel view
    assert matcher.last_input["left"]["layout"].startswith("strided")
