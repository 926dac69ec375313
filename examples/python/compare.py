#!/usr/bin/env python3
"""Every method that runs here on one Middlebury scene: the disparity maps and the error maps
side by side (matplotlib), and the bad-pixel table `stereo eval` prints.

    PYTHONPATH=build/python python3 examples/python/compare.py                 # Tsukuba (stereo data get middlebury-v2)
    PYTHONPATH=build/python python3 examples/python/compare.py PATH/TO/SCENE --out compare.png

Each method runs on its fastest backend here (cuda, then glcompute, gl, cpu, opencv) unless
--backend names one; the time is one run after a warm-up, upload and read-back included.
"""

import argparse
import sys

import numpy as np

import stereo

PREFERENCE = ["cuda", "glcompute", "gl", "cpu", "opencv"]


def pick_backend(method, wanted):
    available = [b["backend"] for b in method["backends"] if b["available"]]
    if wanted:
        return wanted if wanted in available else None
    ranked = sorted(available, key=lambda b: PREFERENCE.index(b) if b in PREFERENCE else len(PREFERENCE))
    return ranked[0] if ranked else None


def fmt(value, digits=2):
    return "-" if value is None else f"{value:.{digits}f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scene", nargs="?", default="middlebury-v2/tsukuba",
                        help="a scene folder, or a name under the data root (default: middlebury-v2/tsukuba, "
                             "installed by `stereo data get middlebury-v2`)")
    parser.add_argument("--backend", help="run every method on this backend (skipping those without it)")
    parser.add_argument("--out", default="compare.png", help="where the figure goes (PNG)")
    parser.add_argument("--show", action="store_true", help="also open a window")
    args = parser.parse_args()

    scene = stereo.load_scene(args.scene)
    print(f"{scene.name}: {scene.left.shape[1]}x{scene.left.shape[0]}, disparities {scene.min_disparity}.."
          f"{scene.min_disparity + scene.levels - 1}, scored as {scene.submission_rule}")
    results = []
    for method in stereo.methods():
        backend = pick_backend(method, args.backend)
        if backend is None:
            continue
        matcher = stereo.Matcher(method["name"], backend, levels=scene.levels, min_disparity=scene.min_disparity)
        matcher.compute(scene.left, scene.right)  # warm-up: allocation, shader compiles
        disparity = matcher.compute(scene.left, scene.right)
        metrics = stereo.evaluate(disparity, scene) if scene.has_ground_truth else None
        results.append((matcher, disparity, metrics, matcher.last_timing["total_ms"]))

    print(f"\n{'method':22} {'nonocc':>8} {'all':>8} {'disc':>8} {'avg err':>8} {'density':>8} {'time ms':>9}")
    for matcher, _, m, ms in results:
        cells = [fmt(m[k]) if m else "-" for k in ("nonocc", "all", "disc", "avg_error")]
        cells.append(fmt(m["density"], 1) if m else "-")
        print(f"{matcher.component:22} " + " ".join(f"{c:>8}" for c in cells) + f" {ms:9.1f}")
    if scene.has_ground_truth:
        print(f"(bad pixels in %: |d - gt| > {results[0][2]['threshold'] if results else '-'} px)")

    import matplotlib

    if not args.show:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = 2 if scene.has_ground_truth else 1
    rows = len(results) + 1
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.2 * rows), squeeze=False)
    lo, hi = scene.min_disparity, scene.min_disparity + scene.levels - 1
    axes[0][0].imshow(scene.left)
    axes[0][0].set_title(f"{scene.name} (left)")
    if columns == 2:
        axes[0][1].imshow(np.where(np.isfinite(scene.gt), scene.gt, np.nan), cmap="turbo", vmin=lo, vmax=hi)
        axes[0][1].set_title("ground truth")
    for row, (matcher, disparity, m, ms) in enumerate(results, start=1):
        # inf (no disparity) shows as the colour map's "bad" colour.
        axes[row][0].imshow(np.where(np.isfinite(disparity), disparity, np.nan), cmap="turbo", vmin=lo, vmax=hi)
        axes[row][0].set_title(f"{matcher.component}, {ms:.0f} ms")
        if columns == 2:
            axes[row][1].imshow(stereo.error_map(disparity, scene))
            axes[row][1].set_title(f"bad nonocc {fmt(m['nonocc'])} %, all {fmt(m['all'])} %")
    for ax in axes.flat:
        ax.set_axis_off()
    fig.tight_layout()
    fig.savefig(args.out, dpi=80)
    print(f"\nfigure: {args.out} (disparity maps left, error maps right: red = bad, orange = bad in occlusions)")
    if args.show:
        plt.show()
    return 0


if __name__ == "__main__":
    sys.exit(main())
