"""stereo: the GPU dense stereo matching reference suite from Python.

Every method x backend of the build, on NumPy arrays and DLPack tensors::

    import stereo
    scene = stereo.load_scene("middlebury-v2/tsukuba")  # under stereo.data_root() (stereo data get)
    m = stereo.Matcher("salap", backend="cpu", levels=scene.levels)
    disparity = m.compute(scene.left, scene.right)      # float32 (H, W), inf = none
    print(stereo.evaluate(disparity, scene))            # what `stereo eval` prints
    print(m.last_timing)                                # upload / algorithm / read-back / stages, ms

stereo.methods() and stereo.params(method) list what the build has (`stereo list`,
`stereo params`); help(stereo.Matcher) lists every method's parameters.
"""

from ._stereo import (
    Matcher,
    Scene,
    cuda_built,
    data_root,
    error_map,
    evaluate,
    load_dataset,
    load_pair,
    load_scene,
    methods,
    params,
    read_image,
    read_pfm,
    revision,
    write_pfm,
)
from ._stereo import _testing  # noqa: F401  (copy counts and the C++ timing: the tests, the overhead benchmark)

if cuda_built:
    from ._stereo import DeviceArray

__all__ = [
    "Matcher",
    "Scene",
    "cuda_built",
    "data_root",
    "error_map",
    "evaluate",
    "load_dataset",
    "load_pair",
    "load_scene",
    "methods",
    "params",
    "read_image",
    "read_pfm",
    "revision",
    "write_pfm",
] + (["DeviceArray"] if cuda_built else [])
