#!/usr/bin/env python3
"""Docs that run (ctest `docs`): every shell and Python block of README.md and docs/**/*.md says
how it runs, in an HTML comment on the line right before its fence, and the runnable ones run.

    <!-- runs: ci -->                 runs on every build here and in CI, and must exit 0; a
                                      block calling an outside program CI installs (OUTSIDE_TOOLS:
                                      xvfb-run) is listed as not run where that is not on the PATH
    <!-- runs: download DATASET -->   needs DATASET under the data root (`stereo data get`):
                                      runs where it is there, else is listed as not run
    <!-- runs: gpu -->                needs a GPU (a cuda backend, several GPUs): not run here
    <!-- runs: manual REASON -->      not run by this test, for the REASON given (a window
                                      that stays open, a full build, a cluster)

A shell block is a fence with no language or sh/bash/shell/console; a Python block is
`python` or `py`. Other fences (text, cpp, cmake) are listings and are not checked. A shell or Python
block without a marker fails the test, naming its file and line.

Each runnable block runs on its own, in a fresh temporary folder holding `build` (the build
folder), `scene` (a `stereo synth` scene with exact ground truth, 160x120, 16 levels) and
`data` (the repository's data/ folder, data/public included); PATH starts with the build folder
(so `stereo` is the build's), PYTHONPATH is its python/ folder, STEREO_DATA the data root and
STEREO_BUILD_DIR the build. Shell blocks run under bash -e -o pipefail, Python blocks under this
interpreter (the one the module was built for), each with a time limit.

Usage: test_docs.py SOURCE_DIR BUILD_DIR [--data-default DIR] [--list] [--only FILE[:LINE]]
"""

import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*runs:\s*(.*?)\s*-->\s*$")
SHELL = {"", "sh", "bash", "shell", "console"}
PYTHON = {"python", "py"}
KINDS = {"ci", "download", "gpu", "manual"}
TIME_LIMIT_S = 120
# Programs that CI installs beside the build and another machine may lack (the GPU machine has no
# X server): a `ci` block calling one runs only where it is on the PATH.
OUTSIDE_TOOLS = ("xvfb-run",)


class Block:
    def __init__(self, path, line, language, text, marker):
        self.path, self.line, self.language, self.text, self.marker = path, line, language, text, marker
        words = marker.split(None, 1) if marker else []
        self.kind = words[0] if words else None
        self.argument = words[1] if len(words) > 1 else ""

    def missing_tools(self):
        """The outside programs this block calls that are not on the PATH."""
        return [t for t in OUTSIDE_TOOLS
                if re.search(rf"(^|[\s;|&(]){re.escape(t)}(\s|$)", self.text) and shutil.which(t) is None]

    def where(self, root):
        return f"{self.path.relative_to(root)}:{self.line}"

    def problem(self):
        """Why the marker is not one of the four forms, or None."""
        if self.marker is None:
            return ("no <!-- runs: ... --> marker on the line before the fence (ci, download DATASET, gpu "
                    "or manual REASON; a listing that is no command takes the fence language text)")
        if self.kind not in KINDS:
            return f"marker kind '{self.kind}' is none of {', '.join(sorted(KINDS))}"
        if self.kind in ("download", "manual") and not self.argument:
            return f"'runs: {self.kind}' needs " + ("the dataset it reads" if self.kind == "download" else "a reason")
        if self.kind in ("ci", "gpu") and self.argument:
            return f"'runs: {self.kind}' takes nothing after it, got '{self.argument}'"
        return None


def blocks_of(path):
    """The shell and Python blocks of a Markdown file, with the marker line before each."""
    lines = path.read_text(encoding="utf-8").split("\n")
    found, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        language = m.group(2).lower()
        end = i + 1
        while end < len(lines) and not re.match(r"^\s*```\s*$", lines[end]):
            end += 1
        if end == len(lines):
            raise SystemExit(f"FAILED: {path}:{i + 1}: a fence that is never closed")
        if language in SHELL or language in PYTHON:
            before = MARKER.match(lines[i - 1]) if i > 0 else None
            indent = len(m.group(1))
            text = "\n".join(line[indent:] for line in lines[i + 1:end]) + "\n"
            found.append(Block(path, i + 1, language, text, before.group(1) if before else None))
        i = end + 1
    return found


def pages(root):
    return [root / "README.md"] + sorted((root / "docs").rglob("*.md"))


def prepare(work, build):
    """The folder every block starts from: build, scene and data beside each other."""
    scene_dir = work / "shared-scene"
    done = subprocess.run([str(build / "stereo"), "synth", "--size", "160x120", "-d", "16", "--seed", "3", "--out",
                           str(scene_dir)], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"FAILED: stereo synth for the blocks' scene: {done.stderr.strip()}")
    return scene_dir


def run_block(block, work, build, source, scene_dir, env):
    cwd = pathlib.Path(tempfile.mkdtemp(prefix="block_", dir=work))
    (cwd / "build").symlink_to(build)
    shutil.copytree(scene_dir, cwd / "scene")  # a copy: a block may write into it, or make its own
    (cwd / "data").symlink_to(source / "data")
    if block.language in PYTHON:
        script = cwd / "block.py"
        command = [sys.executable, str(script)]
    else:
        script = cwd / "block.sh"
        command = ["bash", "-e", "-o", "pipefail", str(script)]
    script.write_text(block.text)
    try:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIME_LIMIT_S)
    except subprocess.TimeoutExpired:
        return f"ran past {TIME_LIMIT_S} s (mark it `manual` with a reason if it must be long)"
    if done.returncode != 0:
        tail = "\n".join((done.stdout + done.stderr).strip().split("\n")[-15:])
        return f"exit code {done.returncode}:\n{tail}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source")
    parser.add_argument("build")
    parser.add_argument("--data-default", default="", help="the data root where STEREO_DATA is unset")
    parser.add_argument("--list", action="store_true", help="list every block and its marker, run nothing")
    parser.add_argument("--only", default="", help="run only the blocks of FILE (or the one at FILE:LINE)")
    args = parser.parse_args()
    source = pathlib.Path(args.source).resolve()
    build = pathlib.Path(args.build).resolve()
    # The data root as `stereo` finds it (app/data: STEREO_DATA, else the per-user one), so a
    # `download` block runs wherever `stereo data get` put its dataset.
    xdg = os.environ.get("XDG_DATA_HOME", "")
    user_root = (pathlib.Path(xdg) if os.path.isabs(xdg) else pathlib.Path.home() / ".local" / "share") / "stereo"
    data_root = pathlib.Path(os.environ.get("STEREO_DATA") or args.data_default or user_root)

    blocks = [b for page in pages(source) for b in blocks_of(page)]
    problems = [f"{b.where(source)}: {b.problem()}" for b in blocks if b.problem()]
    if args.list:
        for b in blocks:
            print(f"{b.where(source):32} {b.language or 'sh':7} {b.marker}")
    if problems:
        print("FAILED: blocks without a valid marker:\n  " + "\n  ".join(problems))
        return 1
    if args.list:
        return 0
    if not (build / "stereo").is_file():
        print(f"FAILED: no {build}/stereo: build the target stereo (and stereo_python for the Python blocks)")
        return 1

    env = dict(os.environ)
    env["PATH"] = f"{build}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = f"{build / 'python'}{os.pathsep}{env.get('PYTHONPATH', '')}".rstrip(os.pathsep)
    env["STEREO_DATA"] = str(data_root)
    env["STEREO_BUILD_DIR"] = str(build)
    selected = blocks
    if args.only:
        selected = [b for b in blocks if b.where(source) == args.only or str(b.path.relative_to(source)) == args.only]
        if not selected:
            print(f"FAILED: no shell or Python block at {args.only}")
            return 1

    failures, ran, not_run = [], 0, []
    with tempfile.TemporaryDirectory(prefix="stereo_docs_") as tmp:
        work = pathlib.Path(tmp)
        # `python3` in a shell block is this interpreter, the one the module is built for (CMake
        # passes it), not whichever python3 comes first on the PATH (CI's is a pyenv one).
        interpreter = work / "bin"
        interpreter.mkdir()
        for name in ("python3", "python"):
            (interpreter / name).symlink_to(sys.executable)
        env["PATH"] = f"{interpreter}{os.pathsep}{env['PATH']}"
        scene_dir = prepare(work, build)
        for b in selected:
            if b.kind == "gpu" or b.kind == "manual":
                not_run.append(f"{b.where(source)}: {b.kind}" + (f" ({b.argument})" if b.argument else ""))
                continue
            missing = b.missing_tools() if b.kind == "ci" else []
            if missing:
                not_run.append(f"{b.where(source)}: needs {', '.join(missing)}, not on this machine's PATH")
                continue
            if b.kind == "download" and not (data_root / b.argument).exists():
                not_run.append(f"{b.where(source)}: needs {b.argument} under {data_root} (stereo data get)")
                continue
            why = run_block(b, work, build, source, scene_dir, env)
            ran += 1
            print(f"{'FAIL' if why else 'ok  '} {b.where(source)}", flush=True)
            if why:
                failures.append(f"{b.where(source)} ({b.kind}) failed: {why}\n--- the block:\n{b.text}---")
    print(f"{ran} blocks run, {len(not_run)} not run here:")
    for line in not_run:
        print(f"  {line}")
    if failures:
        print("FAILED:\n" + "\n".join(failures))
        return 1
    if ran == 0:
        print("FAILED: no block ran")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
