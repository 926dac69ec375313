"""PyTorch CPU tensors round trip through DLPack: in as inputs, out through torch.from_dlpack
on the result (which shares the array's memory)."""

import numpy as np
import pytest

import stereo
from conftest import same_bits, scene_files

torch = pytest.importorskip("torch")


def test_torch_round_trip(synth):
    left_file, right_file = scene_files(synth)
    left, right = stereo.read_image(left_file, rgb=True), stereo.read_image(right_file, rgb=True)
    matcher = stereo.Matcher("salap", "cpu", levels=16)
    expected = matcher.compute(left, right)

    disparity = matcher.compute(torch.from_numpy(left), torch.from_numpy(right))
    assert matcher.last_input["left"] == {"source": "dlpack", "memory": "host", "layout": "contiguous",
                                          "copied": False}
    tensor = torch.from_dlpack(disparity)
    assert tensor.dtype == torch.float32 and tuple(tensor.shape) == expected.shape
    assert tensor.data_ptr() == disparity.ctypes.data  # shared, not copied
    assert same_bits(tensor.numpy(), expected)
    tensor[0, 0] = -1.0
    assert disparity[0, 0] == -1.0
    # And back: a NumPy array over the tensor's memory.
    back = np.from_dlpack(tensor)
    assert back.ctypes.data == disparity.ctypes.data


def test_torch_inputs_of_other_layouts_and_dtypes(synth):
    left_file, right_file = scene_files(synth)
    left, right = stereo.read_image(left_file, rgb=True), stereo.read_image(right_file, rgb=True)
    matcher = stereo.Matcher("salap", "cpu", levels=16)
    expected = matcher.compute(left, right)
    # A crop of a larger tensor (a row pitch) and a channel-first tensor seen channel-last.
    big = torch.zeros((70, 120, 3), dtype=torch.uint8)
    big[3:67, 5:101] = torch.from_numpy(left)
    assert same_bits(matcher.compute(big[3:67, 5:101], torch.from_numpy(right)), expected)
    assert matcher.last_input["left"]["layout"] == "row pitch 360"
    assert not matcher.last_input["left"]["copied"]  # read in place through a pitched view
    chw = torch.from_numpy(left).permute(2, 0, 1).contiguous()
    assert same_bits(matcher.compute(chw.permute(1, 2, 0), right), expected)
    assert matcher.last_input["left"]["copied"]  # channels 64 x 96 bytes apart: no view expresses it
    with pytest.raises(ValueError, match="^salap/cpu: left must be uint8, got float32$"):
        matcher.compute(torch.from_numpy(left).float(), right)
    with pytest.raises(ValueError, match="^salap/cpu: right must be uint8, got int16$"):
        matcher.compute(left, torch.from_numpy(right).short())
