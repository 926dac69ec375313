#!/usr/bin/env bash
# Obtains two public Middlebury pairs with ground truth from this machine's own Debian/Ubuntu
# package repositories and writes them in the MiddEval3 layout that `stereo` reads:
#
#   Aloe (Middlebury 2006, full size, 1282x1110)  from package opencv-doc
#        examples/data/aloeL.jpg, aloeR.jpg, aloeGT.png (8-bit, disparity = value, 0 = unknown)
#   Motorcycle (Middlebury 2014, 741x500)          from package python3-skimage
#        skimage/data/motorcycle_left.png, motorcycle_right.png,
#        motorcycle_disp.npz (float32 disparity in pixels, NaN = unknown)
#
# The packages are fetched with `apt-get download` and unpacked with `dpkg -x` into a temporary
# folder (no root needed, nothing is installed); `stereo import-pair` converts each pair and
# `stereo check-gt` verifies that the stored ground truth explains the views better than any
# rescaled or shifted version of it. See data/README.md for the measured errors.
#
# Usage: data/fetch_public_pairs.sh [STEREO_BIN] [OUT_DIR] [--force]
#   STEREO_BIN  the built driver (default: build/stereo in the repository)
#   OUT_DIR     output folder (default: data/public in the repository); it is git-ignored
#   --force     re-import even when OUT_DIR already holds both scenes
# Running it again with the scenes present only re-runs the checks.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$script_dir/.." && pwd)"

force=0
positional=()
for arg in "$@"; do
  case "$arg" in
    --force) force=1 ;;
    -h|--help) sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) positional+=("$arg") ;;
  esac
done
stereo_bin="${positional[0]:-$repo_root/build/stereo}"
out_dir="${positional[1]:-$repo_root/data/public}"

die() {
  echo "fetch_public_pairs: $*" >&2
  exit 1
}

[[ -x "$stereo_bin" ]] || die "no stereo binary at $stereo_bin (build it first, or pass its path as the first argument)"
stereo_bin="$(cd "$(dirname "$stereo_bin")" && pwd)/$(basename "$stereo_bin")"

scene_complete() {
  local d="$1"
  [[ -f "$d/im0.png" && -f "$d/im1.png" && -f "$d/disp0GT.pfm" && -f "$d/mask0nocc.png" && -f "$d/calib.txt" ]]
}

mkdir -p "$out_dir"
out_dir="$(cd "$out_dir" && pwd)"

if [[ $force -eq 1 ]] || ! scene_complete "$out_dir/aloe" || ! scene_complete "$out_dir/motorcycle"; then
  command -v apt-get >/dev/null 2>&1 || die "apt-get download is not possible here (no apt-get); use 'stereo synth' for a synthetic scene instead"
  command -v dpkg >/dev/null 2>&1 || die "dpkg -x is not possible here (no dpkg); use 'stereo synth' for a synthetic scene instead"

  tmp="$(mktemp -d "${TMPDIR:-/tmp}/stereo_public_pairs.XXXXXX")"
  trap 'rm -rf "$tmp"' EXIT

  echo "fetch_public_pairs: downloading opencv-doc and python3-skimage with apt-get download ..."
  if ! (cd "$tmp" && apt-get download opencv-doc python3-skimage) >"$tmp/apt.log" 2>&1; then
    reason="$(grep -E '^(E|W):' "$tmp/apt.log" | head -n 1 || true)"
    die "apt-get download opencv-doc python3-skimage failed${reason:+ ($reason)}; try 'apt-get update' first, or use 'stereo synth' for a synthetic scene instead"
  fi

  for deb in "$tmp"/*.deb; do
    dpkg -x "$deb" "$tmp/root" || die "dpkg -x $(basename "$deb") failed"
  done

  # The paths inside the packages differ between releases; find the files by name.
  find_one() {
    local name="$1" package="$2" hit
    hit="$(find "$tmp/root" -type f -name "$name" -print -quit)"
    [[ -n "$hit" ]] || die "$name not found in package $package (its layout may have changed); use 'stereo synth' instead"
    echo "$hit"
  }
  aloe_left="$(find_one aloeL.jpg opencv-doc)"
  aloe_right="$(find_one aloeR.jpg opencv-doc)"
  aloe_gt="$(find_one aloeGT.png opencv-doc)"
  moto_left="$(find_one motorcycle_left.png python3-skimage)"
  moto_right="$(find_one motorcycle_right.png python3-skimage)"
  moto_gt="$(find_one motorcycle_disp.npz python3-skimage)"
  deb_version() { dpkg-deb -f "$(ls "$tmp"/"$1"_*.deb)" Version; }

  # Aloe: the 8-bit map is the left view's (view1) disparity in full-size pixels, scale 1,
  # 0 = unknown (data/README.md has the check that settles scale and view).
  "$stereo_bin" import-pair --left "$aloe_left" --right "$aloe_right" --gt "$aloe_gt" \
    --gt-format png8 --gt-scale 1 --gt-invalid 0 --name aloe --out "$tmp/out/aloe"
  # Motorcycle: float32 disparity of the left view in pixels of these 741x500 images, NaN =
  # unknown (skimage.data.stereo_motorcycle documents the convention).
  "$stereo_bin" import-pair --left "$moto_left" --right "$moto_right" --gt "$moto_gt" \
    --gt-format npz --gt-scale 1 --gt-invalid none --name motorcycle --out "$tmp/out/motorcycle"

  cat >"$tmp/out/aloe/source.txt" <<EOF
Aloe, Middlebury 2006 stereo data set (full size), from Debian package opencv-doc $(deb_version opencv-doc):
  aloeL.jpg -> im0.png, aloeR.jpg -> im1.png, aloeGT.png (disparity = value, 0 = unknown) -> disp0GT.pfm
Citation: D. Scharstein and C. Pal, Learning conditional random fields for stereo, CVPR 2007;
H. Hirschmueller and D. Scharstein, Evaluation of cost functions for stereo matching, CVPR 2007.
EOF
  cat >"$tmp/out/motorcycle/source.txt" <<EOF
Motorcycle, Middlebury 2014 stereo data set (down-sampled by 4), from Debian package python3-skimage $(deb_version python3-skimage):
  motorcycle_left.png -> im0.png, motorcycle_right.png -> im1.png, motorcycle_disp.npz arr_0 (float32 px, NaN = unknown) -> disp0GT.pfm
Citation: D. Scharstein, H. Hirschmueller, Y. Kitajima, G. Krathwohl, N. Nesic, X. Wang and P. Westling,
High-resolution stereo datasets with subpixel-accurate ground truth, GCPR 2014.
EOF

  for scene in aloe motorcycle; do
    rm -rf "$out_dir/$scene"
    mv "$tmp/out/$scene" "$out_dir/$scene"
  done
else
  echo "fetch_public_pairs: $out_dir already holds aloe and motorcycle (pass --force to re-import); checking them"
fi

for scene in aloe motorcycle; do
  "$stereo_bin" check-gt "$out_dir/$scene" || die "check-gt failed for $out_dir/$scene"
done
echo "fetch_public_pairs: done: $out_dir/aloe and $out_dir/motorcycle"
