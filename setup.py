"""setuptools driving CMake: builds only the Python module's target (stereo_python) and puts
its extension stereo/_stereo*.so beside python/stereo/'s files.

STEREO_BUILD_DIR names a configured CMake build folder to reuse (CI: the one scripts/test.sh just
built; nothing is compiled twice); its interpreter must be this one. Without it a build folder
is configured under setuptools' temporary folder, with the tests off.
"""

import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
(ROOT / "build").mkdir(exist_ok=True)  # egg_base below


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        named = os.environ.get("STEREO_BUILD_DIR")
        if named:
            build = pathlib.Path(named).resolve()
            if not (build / "CMakeCache.txt").is_file():
                raise RuntimeError(f"stereo: STEREO_BUILD_DIR={named} is not a configured CMake build folder")
        else:
            build = pathlib.Path(self.build_temp).resolve() / "cmake"
            build.mkdir(parents=True, exist_ok=True)
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), *generator, "-DCMAKE_BUILD_TYPE=Release",
                            f"-DPython_EXECUTABLE={sys.executable}", "-DSTEREO_BUILD_TESTS=OFF",
                            "-DSTEREO_WITH_PYTHON=ON"], check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        subprocess.run(["cmake", "--build", str(build), "--target", "stereo_python", "-j", jobs], check=True)
        built = build / "python" / "stereo" / f"_stereo{suffix}"
        if not built.is_file():
            found = sorted(p.name for p in (build / "python" / "stereo").glob("_stereo*"))
            raise RuntimeError(f"stereo: {built} was not built; the build folder has {found or 'no module'} "
                               f"(its Python is not {sys.executable}? configure it with -DPython_EXECUTABLE)")
        target = pathlib.Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, target)


setup(
    ext_modules=[Extension("stereo._stereo", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    # setuptools' own build folder, kept apart from the CMake build/ beside it.
    options={"build": {"build_base": "build/setuptools"}, "egg_info": {"egg_base": "build"}},
)
