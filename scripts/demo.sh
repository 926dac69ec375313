#!/usr/bin/env bash
# The main job: installs what is missing, builds the `stereo` program alone (build-demo/: no
# tests, CUDA only for the GPUs present; scripts/build.sh --demo), obtains the Aloe pair with its
# ground truth from the machine's own Debian/Ubuntu packages (the synthetic scene where apt
# cannot provide it), runs SA-LAP as GLSL render passes (Mesa's llvmpipe where there is no GPU)
# and evaluates. The test command's full build (build/) is left as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh --demo
t_deps=$SECONDS
bash scripts/build.sh --demo
t_build=$SECONDS
stereo=build-demo/stereo
scene=""
# The fetch's log goes beside the demo's outputs: a fixed /tmp name would clash between users.
mkdir -p out/demo
fetch_log=out/demo/fetch.log
if bash data/fetch_public_pairs.sh "$stereo" data/public >"$fetch_log" 2>&1 && [ -d data/public/aloe ]; then
  scene=data/public/aloe
else
  echo "demo: could not obtain Aloe from apt ($(tail -1 "$fetch_log")); using a synthetic scene"
  "$stereo" synth --size 450x375 -d 64 --seed 1 --out data/public/synth-planes >/dev/null
  scene=data/public/synth-planes
fi
t_data=$SECONDS
backend=gl
gl_status="$("$stereo" list | awk '$1 == "salap" && $2 == "gl"')"
if [ "$(echo "$gl_status" | awk '{print $3}')" != "yes" ]; then
  echo "demo: $(echo "$gl_status" | cut -c33-); using the CPU reference"
  backend=cpu
fi
"$stereo" eval "$scene" -m salap -b "$backend" --out out/demo
echo
echo "disparity map, colour picture and error map: out/demo/ (result.json holds every number)"
echo "demo: the first map after $SECONDS s: packages $t_deps s, build $((t_build - t_deps)) s, data $((t_data - t_build)) s," \
  "evaluation $((SECONDS - t_data)) s"
