#!/usr/bin/env bash
# Sourced by the GPU machine's scripts (gpu_check.sh, gpu_soak.sh, stream_rate.sh) from the
# repository root: sets up the offline dependency kit (gpu-kit/setup.sh) once per session and
# exports STEREO_GPU_KIT_READY. Unpacking the kit again (dpkg -x into / and the deps folder)
# would rewrite shared libraries, libEGL and GLEW among them, under processes that have them
# mapped, which then die of SIGBUS: gpu_check's own ctest runs tests/test_scripts.sh, which runs
# gpu_check.sh beside the GL tests. Where there is no kit, the tools on the PATH are used.
if [ -n "${STEREO_GPU_KIT_READY:-}" ]; then
  :  # set up by a caller; its environment is inherited
elif [ -f gpu-kit/setup.sh ]; then
  # shellcheck disable=SC1091  # the kit is not in the repository
  source gpu-kit/setup.sh >/dev/null
  set +e  # setup.sh turns on errexit; the callers record failures and go on
  export STEREO_GPU_KIT_READY=1
else
  echo "$(basename "$0"): no gpu-kit/setup.sh here: the compilers and tools on the PATH"
fi
