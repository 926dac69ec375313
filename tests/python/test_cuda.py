"""CUDA from Python (GPU machine): CUDA-resident inputs (DLPack, __cuda_array_interface__) go to
the CUDA matcher as device image views, never through the host, and out="cuda" maps are written
in device memory; stereo._testing counts the binding's and the CUDA frame's copies to prove it.
The maps of every cuda backend against `stereo run` are test_maps.py's (it runs every available
backend). Skipped, with the reason, where the build has no CUDA backends or the machine no CUDA
device (and PyTorch / CuPy tests where those are not installed)."""

import numpy as np
import pytest

import stereo
from conftest import same_bits, scene_files

CUDA_BACKENDS = [(m["name"], b["backend"], b["reason"]) for m in stereo.methods() for b in m["backends"]
                 if b["backend"] == "cuda"]


def cuda_methods():
    """The methods whose cuda backend runs here."""
    return [m for m, _, reason in CUDA_BACKENDS if reason is None]


@pytest.fixture(scope="module", autouse=True)
def cuda_here():
    if not stereo.cuda_built:
        pytest.skip("the module was built without the CUDA backends")
    if not cuda_methods():
        pytest.skip(f"no cuda backend runs here: {CUDA_BACKENDS[0][2] if CUDA_BACKENDS else 'none registered'}")


@pytest.fixture(scope="module")
def torch_cuda():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no CUDA device")
    return torch


@pytest.fixture(scope="module")
def pair(synth):
    left_file, right_file = scene_files(synth)
    return stereo.read_image(left_file, rgb=True), stereo.read_image(right_file, rgb=True)


class Interface:
    """Only __cuda_array_interface__ (as Numba device arrays offer), over an array it keeps alive;
    `stream` is the version-3 key (absent: no ordering needed)."""

    def __init__(self, tensor, stream=None):
        self.tensor = tensor
        self.__cuda_array_interface__ = dict(tensor.__cuda_array_interface__)
        if stream is not None:
            self.__cuda_array_interface__.update(version=3, stream=stream)


def copy_counts():
    """The binding's input copies and the CUDA frame's image copies so far."""
    frame = stereo._testing.image_copies()
    return stereo._testing.input_copies(), frame["host_to_device"], frame["device_to_device"]


def test_cuda_resident_inputs_equal_host_inputs(pair, torch_cuda):
    torch = torch_cuda
    left, right = pair
    for method in cuda_methods():
        matcher = stereo.Matcher(method, "cuda", levels=16)
        expected = matcher.compute(left, right)
        l, r = torch.from_numpy(left).cuda(), torch.from_numpy(right).cuda()
        assert same_bits(matcher.compute(l, r), expected), method
        assert matcher.last_input["left"] == {"source": "dlpack", "memory": "cuda:0", "layout": "contiguous",
                                              "copied": False}
        torch.cuda.synchronize()
        assert same_bits(matcher.compute(Interface(l), Interface(r)), expected), method
        assert matcher.last_input["left"]["source"] == "cuda_array_interface"
        # A crop of a wider tensor (a row pitch) is read in place; a column step is gathered on
        # the device (one device-to-device copy), never through the host.
        wide = torch.zeros((left.shape[0], 2 * left.shape[1], 3), dtype=torch.uint8, device="cuda")
        wide[:, ::2] = l
        wide_r = torch.zeros_like(wide)
        wide_r[:, : right.shape[1]] = r
        before = copy_counts()
        assert same_bits(matcher.compute(wide[:, ::2], wide_r[:, : right.shape[1]]), expected), method
        after = copy_counts()
        assert matcher.last_input["left"]["copied"] and not matcher.last_input["right"]["copied"]
        assert matcher.last_input["device_copy_bytes"] == left.nbytes and matcher.last_input["host_copy_bytes"] == 0
        assert after[0] == before[0] + 1 and after[1] == before[1], (before, after)
        # A channel-first tensor seen channel-last: gathered byte by byte on the device.
        chw = l.permute(2, 0, 1).contiguous().permute(1, 2, 0)
        assert same_bits(matcher.compute(chw, r), expected), method


def test_cuda_resident_input_is_not_copied_to_the_host(pair, torch_cuda):
    torch = torch_cuda
    for method in cuda_methods():
        matcher = stereo.Matcher(method, "cuda", levels=16)
        expected = matcher.compute(*pair)
        l, r = torch.from_numpy(pair[0]).cuda(), torch.from_numpy(pair[1]).cuda()
        for name, args in [("dlpack", (l, r)), ("cuda_array_interface", (Interface(l), Interface(r)))]:
            torch.cuda.synchronize()
            before = copy_counts()
            assert same_bits(matcher.compute(*args), expected), (method, name)
            after = copy_counts()
            # The binding copied nothing (it has no device-to-host path left), the frame issued no
            # host-to-device image copy and read both images device to device.
            assert after[0] == before[0], (method, name)
            assert after[1] == before[1], (method, name, "an image went from the host to the device")
            assert after[2] >= before[2] + 2, (method, name, "the device images were not copied on the device")
            assert matcher.last_input["host_copy_bytes"] == 0 and matcher.last_input["device_copy_bytes"] == 0


def test_the_producers_pending_writes_are_waited_for(pair, torch_cuda):
    # The images are written on a side stream behind a long sleep and handed over at once: the
    # matcher must order its reads after them (DLPack's stream=1, the interface's stream key).
    torch = torch_cuda
    method = cuda_methods()[0]
    matcher = stereo.Matcher(method, "cuda", levels=16)
    expected = matcher.compute(*pair)
    host_l, host_r = torch.from_numpy(pair[0]).pin_memory(), torch.from_numpy(pair[1]).pin_memory()
    side = torch.cuda.Stream()
    for wrap in (lambda t, s: t, lambda t, s: Interface(t, stream=s.cuda_stream)):
        with torch.cuda.stream(side):
            l = torch.zeros(pair[0].shape, dtype=torch.uint8, device="cuda")
            r = torch.zeros_like(l)
            torch.cuda._sleep(200_000_000)  # some 100 ms of GPU clock cycles before the copies
            l.copy_(host_l, non_blocking=True)
            r.copy_(host_r, non_blocking=True)
            assert same_bits(matcher.compute(wrap(l, side), wrap(r, side)), expected)
        torch.cuda.synchronize()


def test_out_cuda_equals_the_host_map_and_round_trips(pair, torch_cuda):
    torch = torch_cuda
    for method in cuda_methods():
        matcher = stereo.Matcher(method, "cuda", levels=16)
        expected = matcher.compute(*pair)
        # A host input with out="cuda": uploaded by the frame, the map written on the device.
        result = matcher.compute(*pair, out="cuda")
        assert isinstance(result, stereo.DeviceArray) and result.shape == expected.shape
        assert same_bits(result.numpy(), expected), method
        # Device inputs with out="cuda": no image and no map crosses to or from the host.
        l, r = torch.from_numpy(pair[0]).cuda(), torch.from_numpy(pair[1]).cuda()
        before = copy_counts()
        on_device = matcher.compute(l, r, out="cuda")
        after = copy_counts()
        assert after[:2] == before[:2], (method, before, after)
        assert same_bits(on_device.numpy(), expected), method
    tensor = torch.from_dlpack(result)
    assert tensor.is_cuda and tensor.dtype == torch.float32
    assert tensor.data_ptr() == result.__cuda_array_interface__["data"][0]  # shared, not copied
    assert same_bits(tensor.cpu().numpy(), expected)
    del result  # the tensor keeps the memory alive
    assert same_bits(tensor.cpu().numpy(), expected)


def test_cupy_arrays_in_and_out(pair):
    cupy = pytest.importorskip("cupy")
    method = cuda_methods()[0]
    matcher = stereo.Matcher(method, "cuda", levels=16)
    expected = matcher.compute(*pair)
    l, r = cupy.asarray(pair[0]), cupy.asarray(pair[1])
    before = copy_counts()
    assert same_bits(matcher.compute(l, r), expected)
    assert copy_counts()[:2] == before[:2]
    crop = cupy.zeros((pair[0].shape[0] + 2, pair[0].shape[1] + 9, 3), cupy.uint8)
    crop[1:-1, 4:-5] = l
    assert same_bits(matcher.compute(crop[1:-1, 4:-5], r), expected)
    assert not matcher.last_input["left"]["copied"]
    again = matcher.compute(l, r, out="cuda")
    assert same_bits(cupy.asnumpy(cupy.asarray(again)), expected)
    assert same_bits(cupy.asnumpy(cupy.from_dlpack(again)), expected)
    with pytest.raises(ValueError, match="^salap/cuda: left is a CUDA array with strided .*negative or zero steps"
                       if method == "salap" else "negative or zero steps"):
        matcher.compute(Interface(l[:, ::-1]), Interface(r[:, ::-1]))


def test_cuda_tensor_into_a_host_backend_is_refused_by_the_core(pair, torch_cuda):
    left = torch_cuda.from_numpy(pair[0]).cuda()
    right = torch_cuda.from_numpy(pair[1]).cuda()
    for backend in ("cpu",) + (("gl",) if ("salap", "gl") in [(m["name"], b["backend"]) for m in stereo.methods()
                                                              for b in m["backends"] if b["available"]] else ()):
        with pytest.raises(RuntimeError) as caught:
            stereo.Matcher("salap", backend, levels=16).compute(left, right)
        assert str(caught.value) == (f"salap/{backend}: the image pair is in CUDA device memory; this backend reads "
                                     "and writes host memory only")
    # A strided CUDA tensor is not gathered for a backend that cannot read it: the same refusal.
    with pytest.raises(RuntimeError, match="^salap/cpu: the image pair is in CUDA device memory"):
        stereo.Matcher("salap", "cpu", levels=16).compute(left.permute(1, 0, 2).contiguous().permute(1, 0, 2),
                                                          right.permute(1, 0, 2).contiguous().permute(1, 0, 2))
    with pytest.raises(ValueError, match="^salap/cpu: the left view is in cuda memory, the right in host memory$"):
        stereo.Matcher("salap", "cpu", levels=16).compute(left, pair[1])
    with pytest.raises(ValueError, match="the left view is in cuda memory, the right in host memory"):
        stereo.Matcher(cuda_methods()[0], "cuda", levels=16).compute(left, pair[1])


def test_cuda_errors_raise_python_types(pair):
    method = cuda_methods()[0]
    with pytest.raises(ValueError, match=f"^{method}/cuda: left must be uint8, got float32$"):
        stereo.Matcher(method, "cuda", levels=16).compute(pair[0].astype(np.float32), pair[1])
    with pytest.raises(RuntimeError, match="CUDA device"):
        stereo.Matcher(method, "cuda", levels=16, device=99)
    if "adcensus" not in cuda_methods():
        return
    # A volume no GPU holds (as tests/test_cuda_hostile.cpp: 16384 x 8192 x 1024 levels, AD-Census's
    # most on CUDA, 137 G cost cells): the free-memory check names the size and the memory needed.
    huge = np.zeros((8192, 16384, 3), np.uint8)
    matcher = stereo.Matcher("adcensus", "cuda", levels=1024)
    with pytest.raises(MemoryError) as caught:
        matcher.compute(huge, huge)
    assert "16384x8192" in str(caught.value) and "MiB of GPU memory" in str(caught.value), str(caught.value)
    small = np.zeros((16, 1040, 3), np.uint8)  # wider than the 1024 levels
    assert matcher.compute(small, small).shape == (16, 1040)  # still usable
