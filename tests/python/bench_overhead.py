#!/usr/bin/env python3
"""What calling a matcher from Python costs over the same call in C++ (issue 30: at most 2 % for
a CUDA matcher at 1920x1080x256).

The baseline is the C++ call compute() makes, timed in C++ in the same process over the same
buffers (stereo._testing.time_cpp: the image views made once, then Matcher::compute on them,
or Matcher::compute_into one device map for out="cuda"; a steady_clock around each call).
Against it, stereo.Matcher.compute from Python, wall time around each call, per input layout:
reading the array (NumPy, DLPack), the views, the GIL release, the wrapping of the map as a
NumPy array (no copy) or a DeviceArray (its cudaMalloc), and any copy the binding makes
(layouts no view expresses; the "copied" column). C++ and Python calls alternate one by one,
so drift (clocks, other load, the GPU's idle gaps) falls on both alike; the overhead is the
median of the paired differences. "binding" is the same Python call's wall time less the
Matcher call inside it (timed in C++ by the binding, stereo._testing.last_call_phases): what the
binding adds to the very same call, free of the drift between two calls. For DLPack inputs the
producer's own __dlpack_device__ / __dlpack__ calls (the caller's library, e.g. PyTorch's
Python-level methods and its stream handshake) are timed by the binding inside the very call
("producer us", last_call_phases' "producer"); "own" is each call's binding time less its
producer's, the median over the calls.

    PYTHONPATH=build/python /usr/bin/python3 tests/python/bench_overhead.py --backend cuda
    PYTHONPATH=build/python /usr/bin/python3 tests/python/bench_overhead.py --method salap --backend cpu --size 320x240 --levels 32
"""

import argparse
import json
import statistics
import sys
import time

import numpy as np

import stereo


def layouts(left, right, backend):
    """(name, left, right) for each layout worth timing."""
    h, w, c = left.shape
    padded_l = np.zeros((h, w + 64, c), np.uint8)
    padded_r = np.zeros_like(padded_l)
    padded_l[:, :w], padded_r[:, :w] = left, right
    out = [("numpy contiguous", left, right), ("numpy row pitch", padded_l[:, :w], padded_r[:, :w]),
           ("numpy fortran (copied)", np.asfortranarray(left), np.asfortranarray(right))]
    try:
        import torch
    except ImportError:
        return out
    out.append(("torch cpu (dlpack)", torch.from_numpy(left), torch.from_numpy(right)))
    if backend == "cuda" and torch.cuda.is_available():
        l, r = torch.from_numpy(left).cuda(), torch.from_numpy(right).cuda()
        out.append(("torch cuda (dlpack)", l, r))
        wide_l = torch.zeros((h, w + 64, c), dtype=torch.uint8, device="cuda")
        wide_r = torch.zeros_like(wide_l)
        wide_l[:, :w], wide_r[:, :w] = l, r
        out.append(("torch cuda row pitch", wide_l[:, :w], wide_r[:, :w]))
        torch.cuda.synchronize()
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--method", default="salap")
    parser.add_argument("--backend", default="cuda")
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--levels", type=int, default=256)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a parameter of the method or backend, as `stereo run --set` takes it")
    parser.add_argument("--calls", type=int, default=200, help="C++ / Python call pairs per row")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    width, height = map(int, args.size.split("x"))
    rng = np.random.default_rng(1)
    left = rng.integers(0, 256, (height, width, 3), dtype=np.uint8)
    right = np.roll(left, -args.levels // 4, axis=1)

    params = dict(kv.split("=", 1) for kv in args.set)
    matcher = stereo.Matcher(args.method, args.backend, levels=args.levels, **params)
    expected = matcher.compute(left, right)
    stereo._testing.time_cpp(matcher, left, right, 3)  # warm-up: allocation, module load, shader compiles
    rows = []
    for name, l, r in layouts(left, right, args.backend):
        outs = ["numpy", "cuda"] if args.backend == "cuda" else ["numpy"]
        for out in outs:
            result = matcher.compute(l, r, out=out)
            same = np.array_equal((result if out == "numpy" else result.numpy()).view(np.uint32), expected.view(np.uint32))
            copied = dict(matcher.last_input)
            cpp, py, inner, phases = [], [], [], []
            for _ in range(args.calls):
                cpp += stereo._testing.time_cpp(matcher, l, r, 1, out=out)
                start = time.perf_counter()
                matcher.compute(l, r, out=out)
                py.append((time.perf_counter() - start) * 1e3)
                phases.append(stereo._testing.last_call_phases(matcher))
                inner.append(phases[-1]["call"])
            c, p = statistics.median(cpp), statistics.median(py)
            paired_us = 1e3 * statistics.median(b - a for a, b in zip(cpp, py))
            binding_us = 1e3 * statistics.median(b - a for a, b in zip(inner, py))
            rows.append({"layout": name, "out": out, "cpp_ms": c, "python_ms": p, "overhead_us": paired_us,
                         "overhead_pct": 100.0 * paired_us / 1e3 / c,
                         "binding_us": binding_us, "binding_pct": 100.0 * binding_us / 1e3 / c,
                         # where the binding's time goes: its C++ before and after the call, and
                         # the rest (Python's call and pybind11's dispatch), medians in us
                         "before_us": 1e3 * statistics.median(ph["before"] for ph in phases),
                         "after_us": 1e3 * statistics.median(ph["after"] for ph in phases),
                         "outside_us": 1e3 * statistics.median(
                             w - ph["before"] - ph["call"] - ph["after"] for w, ph in zip(py, phases)), "producer_us": (1e3 * statistics.median(ph["producer"] for ph in phases)
                                             if not isinstance(l, np.ndarray) else None),
                         # the binding's own work: each call's binding time less its producer's
                         "own_us": 1e3 * statistics.median(
                             w - ph["call"] - ph["producer"] for w, ph in zip(py, phases)),
                         "same_map": same, "copied": copied["left"]["copied"] or copied["right"]["copied"],
                         "host_copy_bytes": copied["host_copy_bytes"],
                         "device_copy_bytes": copied["device_copy_bytes"]})
    header = {"method": args.method, "params": params, "backend": args.backend, "device": matcher.device, "size": args.size,
              "levels": args.levels, "calls": args.calls, "revision": stereo.revision()}
    if args.json:
        print(json.dumps({**header, "rows": rows}, indent=2))
        return 0 if all(r["same_map"] for r in rows) else 1
    print(f"{args.method}/{args.backend} {params or ''} on {matcher.device}, {args.size} x {args.levels} levels, "
          f"{args.calls} alternating C++ / Python calls per row (medians), revision {stereo.revision()}")
    print(f"{'layout':24} {'out':6} {'C++ ms':>9} {'Python ms':>10} {'overhead':>13} {'binding':>13} {'producer us':>28}  "
          "binding copies (bytes: host, device)")
    for r in rows:
        producer = "" if r["producer_us"] is None else f"{r['producer_us']:.1f}"
        if r["producer_us"] is not None:
            producer += f" (own {r['own_us']:.1f} us {100.0 * r['own_us'] / 1e3 / r['cpp_ms']:.2f}%)"
        print(f"{r['layout']:24} {r['out']:6} {r['cpp_ms']:9.3f} {r['python_ms']:10.3f} "
              f"{r['overhead_us']:6.1f} us {r['overhead_pct']:5.2f}% {r['binding_us']:6.1f} us {r['binding_pct']:5.2f}% "
              f"{producer:>28}  "
              f"(binding: {r['before_us']:.1f} before, {r['after_us']:.1f} after, {r['outside_us']:.1f} outside; copies) "
              f"{r['host_copy_bytes']}, {r['device_copy_bytes']}"
              f"{'' if r['same_map'] else '  MAP DIFFERS'}")
    return 0 if all(r["same_map"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
