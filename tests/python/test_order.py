"""The channel order of colour inputs: compute(..., order="bgr") reads OpenCV's BGR arrays as
the RGB pixels they are and gives `stereo run`'s map; the same BGR arrays passed as RGB (the
default) give another map, which is why the order must be said."""

import numpy as np
import pytest

import stereo
from conftest import run_cli, same_bits, scene_files

# Methods that weigh the channels unequally (the BT.601 luma of AD-Census's census and of
# CrossRT's grey): a wrong order changes their maps. Costs symmetric in the channels (a sum of
# per-channel differences) would not tell the orders apart.
METHODS = ["adcensus", "crossrt"]
LEVELS = 16


def write_ppm(path, rgb):
    """A binary PPM (P6) of an (H, W, 3) uint8 array: read by `stereo run` and cv2.imread alike."""
    height, width, _ = rgb.shape
    path.write_bytes(b"P6\n%d %d\n255\n" % (width, height) + np.ascontiguousarray(rgb).tobytes())
    return path


@pytest.fixture(scope="module")
def colour_pair(synth, tmp_path_factory):
    """The synthetic scene coloured with a different map per channel (the same for both views,
    so the correspondences stay): R = grey, G = 7 grey + 50 (mod 256), B = 255 - grey."""
    folder = tmp_path_factory.mktemp("colour")
    files = []
    for name, source in zip(("left.ppm", "right.ppm"), scene_files(synth)):
        g = stereo.read_image(source, rgb=True)[:, :, 0].astype(np.int32)
        rgb = np.stack([g, (7 * g + 50) % 256, 255 - g], axis=-1).astype(np.uint8)
        files.append(write_ppm(folder / name, rgb))
    return files


def cli_map(files, method, tmp_path):
    pfm = tmp_path / f"{method}.pfm"
    run_cli("run", files[0], files[1], "-m", method, "-b", "cpu", "-d", LEVELS, "-o", pfm)
    return stereo.read_pfm(pfm)


@pytest.mark.parametrize("method", METHODS)
def test_bgr_order_gives_the_cli_map_and_the_default_order_does_not(method, colour_pair, tmp_path):
    expected = cli_map(colour_pair, method, tmp_path)
    # BGR as cv2.imread hands it out: the RGB arrays with their channel axis reversed.
    left = stereo.read_image(colour_pair[0], rgb=True)[:, :, ::-1]
    right = stereo.read_image(colour_pair[1], rgb=True)[:, :, ::-1]
    matcher = stereo.Matcher(method, "cpu", levels=LEVELS)
    assert same_bits(matcher.compute(left, right, order="bgr"), expected)
    # Contiguous BGR copies (cv2's own layout) read the same way.
    assert same_bits(matcher.compute(np.ascontiguousarray(left), np.ascontiguousarray(right), order="bgr"), expected)
    swapped = matcher.compute(left, right)  # the default order: RGB
    assert np.count_nonzero(swapped != expected) > 0


def test_rgb_is_the_default_and_grey_ignores_the_order(colour_pair):
    matcher = stereo.Matcher("adcensus", "cpu", levels=LEVELS)
    left, right = (stereo.read_image(f, rgb=True) for f in colour_pair)
    assert same_bits(matcher.compute(left, right), matcher.compute(left, right, order="rgb"))
    matcher = stereo.Matcher("salap", "cpu", levels=LEVELS)
    grey_l, grey_r = left[:, :, 1].copy(), right[:, :, 1].copy()
    assert same_bits(matcher.compute(grey_l, grey_r, order="bgr"), matcher.compute(grey_l, grey_r))


def test_an_unknown_order_is_a_value_error(colour_pair):
    image = stereo.read_image(colour_pair[0], rgb=True)
    with pytest.raises(ValueError, match="order must be 'rgb' or 'bgr', got 'rbg'"):
        stereo.Matcher("salap", "cpu", levels=LEVELS).compute(image, image, order="rbg")


def test_cv2_imread_with_bgr_order_gives_the_cli_map(colour_pair, tmp_path):
    cv2 = pytest.importorskip("cv2", reason="no OpenCV Python module here (apt install python3-opencv)")
    left, right = (cv2.imread(str(f)) for f in colour_pair)
    for method in METHODS:
        expected = cli_map(colour_pair, method, tmp_path)
        matcher = stereo.Matcher(method, "cpu", levels=LEVELS)
        assert same_bits(matcher.compute(left, right, order="bgr"), expected), method
        assert np.count_nonzero(matcher.compute(left, right) != expected) > 0, method
