"""Host inputs reach the matcher as image views of the caller's memory (core/image_view.h): a
crop or a row-padded array is read in place, with the map of its contiguous twin; only the
layouts a view cannot express (a column step other than the pixel, a channel stride other than
one byte, negative steps) are copied, once each. stereo._testing.input_copies() counts the
binding's copies; docs/python.md lists the layouts."""

import gc
import weakref

import numpy as np
import pytest

import stereo
from conftest import same_bits


@pytest.fixture(scope="module")
def pair():
    rng = np.random.default_rng(11)
    left = rng.integers(0, 256, (61, 83, 3), dtype=np.uint8)  # odd sizes: no pitch is a round number
    return left, np.roll(left, -4, axis=1)


@pytest.fixture(scope="module")
def matcher():
    return stereo.Matcher("salap", "cpu", levels=12)


def copies_of(matcher, left, right):
    """(map, inputs the binding copied for the call)."""
    before = stereo._testing.input_copies()
    result = matcher.compute(left, right)
    return result, stereo._testing.input_copies() - before


def embedded(image, top, left_margin, extra_columns):
    """`image` inside a larger zeroed array, and the crop of it that is `image` (a row pitch)."""
    h, w = image.shape[:2]
    big = np.zeros((h + top + 5, w + left_margin + extra_columns) + image.shape[2:], np.uint8)
    big[top:top + h, left_margin:left_margin + w] = image
    return big, big[top:top + h, left_margin:left_margin + w]


def test_crops_and_row_padding_are_read_in_place(pair, matcher):
    left, right = pair
    expected, copies = copies_of(matcher, left, right)
    assert copies == 0
    assert matcher.last_input["left"] == {"source": "numpy", "memory": "host", "layout": "contiguous", "copied": False}
    _, crop_l = embedded(left, 3, 7, 11)
    _, crop_r = embedded(right, 2, 1, 0)
    assert not crop_l.flags.c_contiguous and crop_l.strides == ((83 + 18) * 3, 3, 1)
    result, copies = copies_of(matcher, crop_l, crop_r)
    assert same_bits(result, expected) and copies == 0
    assert matcher.last_input["left"]["layout"] == f"row pitch {(83 + 18) * 3}"
    assert matcher.last_input["host_copy_bytes"] == 0 and not matcher.last_input["left"]["copied"]
    # Row padding alone (a pitch rounded up, as image libraries allocate), grey as well.
    padded_l = np.zeros((61, 96, 3), np.uint8)[:, :83]
    padded_l[...] = left
    result, copies = copies_of(matcher, padded_l, right)
    assert same_bits(result, expected) and copies == 0
    grey_l, grey_r = np.ascontiguousarray(left[..., 0]), np.ascontiguousarray(right[..., 0])
    grey, _ = copies_of(matcher, grey_l, grey_r)
    _, grey_crop = embedded(grey_l, 1, 2, 3)
    result, copies = copies_of(matcher, grey_crop, grey_r)
    assert same_bits(result, grey) and copies == 0
    # A size-one channel axis (a newaxis has step 0) reads as the grey image it is.
    result, copies = copies_of(matcher, grey_l[..., None], grey_r[:, :, np.newaxis])
    assert same_bits(result, grey) and copies == 0


def test_layouts_no_view_expresses_are_copied_once(pair, matcher):
    left, right = pair
    expected = matcher.compute(left, right)
    transposed = np.ascontiguousarray(left.transpose(1, 0, 2)).transpose(1, 0, 2)  # column step H x 3
    assert transposed.strides == (3, 61 * 3, 1)
    result, copies = copies_of(matcher, transposed, right)
    assert same_bits(result, expected) and copies == 1
    assert matcher.last_input["left"]["copied"] and not matcher.last_input["right"]["copied"]
    assert matcher.last_input["host_copy_bytes"] == left.nbytes
    wide = np.zeros((61, 166, 3), np.uint8)
    wide[:, ::2] = left
    bgr = np.ascontiguousarray(left[..., ::-1])
    flipped = np.ascontiguousarray(left[::-1])
    for name, image in [("column step", wide[:, ::2]), ("channels reversed", bgr[..., ::-1]),
                        ("rows reversed", flipped[::-1]), ("fortran order", np.asfortranarray(left))]:
        result, copies = copies_of(matcher, image, right)
        assert same_bits(result, expected), name
        assert copies == 1, name
        assert matcher.last_input["left"]["layout"].startswith("strided"), (name, matcher.last_input)
    grey = matcher.compute(np.ascontiguousarray(left[..., 1]), np.ascontiguousarray(right[..., 1]))
    result, copies = copies_of(matcher, left[..., 1], right[..., 1])  # column step 3 on a grey image
    assert same_bits(result, grey) and copies == 2


def test_the_binding_holds_no_input_after_the_call(pair):
    # The caller's object (InputImage::owner, what keeps a view's memory valid) is held for the
    # call only: neither the matcher nor last_input keeps the array or its base alive.
    left, right = pair
    matcher = stereo.Matcher("salap", "cpu", levels=12)
    expected = matcher.compute(left, right)
    big, crop = embedded(left, 4, 4, 4)
    base = weakref.ref(big)
    del big  # the crop is the only way to the memory now
    assert same_bits(matcher.compute(crop, right), expected)
    assert not matcher.last_input["left"]["copied"]
    del crop
    gc.collect()
    assert base() is None


class Interface:
    """An object offering only __cuda_array_interface__ (version 3), as a Numba device array does."""

    def __init__(self, **fields):
        self.__cuda_array_interface__ = {"shape": (4, 6, 3), "typestr": "|u1", "data": (0, False), "strides": None,
                                         "version": 3, **fields}


def test_cuda_array_interface_dtypes_and_masks_are_checked_before_the_memory(matcher):
    # The checks every source shares, before anything asks CUDA about the pointer (no GPU needed).
    with pytest.raises(ValueError, match=r"^salap/cpu: left must be uint8, got float32$"):
        matcher.compute(Interface(typestr="<f4"), Interface())
    shape_error = r"^salap/cpu: left must be H x W \(grey\) or H x W x 3 \(RGB\), got shape \(4,\)$"
    with pytest.raises(ValueError, match=shape_error):
        matcher.compute(Interface(shape=(4,)), Interface())
    with pytest.raises(ValueError, match=r"^salap/cpu: left is a masked CUDA array; give its data$"):
        matcher.compute(Interface(mask=Interface()), Interface())
