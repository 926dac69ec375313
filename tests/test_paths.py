#!/usr/bin/python3
"""The repository's pointers to itself (ctest `paths`).

Three checks, each printing FILE:LINE and what is wrong:
1. Every repository path that a comment (in code), a docstring or a document (*.md) names exists.
   A token is a path when it starts with a top-level folder and a slash (`core/matcher.h`,
   `methods/*/cuda`; the old root folder `host` too), or has a slash inside and ends in a source
   extension (`view/test_view.cpp`). It may be written from the repository root, or from the folder
   of the file that names it or any folder above that one (so a method's files name its own
   `reference/` and `gl/shaders/` files from the method's folder), or from include/ or a method's
   include/ (the public headers as a consumer includes them). `*`, `<m>` and `{a,b}` are globs that
   must match at least once.
2. Every Doxygen `\\file` tag names its own file, from the repository root.
3. In every cell of a docs/methods page's "Where each equation lives" table, each backticked
   function (`tad_cost()`) is defined, and each other backticked identifier (a model header's
   constant) is named, in one of the files the same cell names in backticks. Every page has that
   table but a peer's (a method folder without reference/, such as sgbm's OpenCV call).
Usage: test_paths.py SOURCE_DIR
"""
import functools
import glob
import os
import re
import subprocess
import sys

TOP = ("app", "core", "cuda", "gl", "methods", "include", "python", "tests", "scripts", "docs",
       "examples", "data", "fuzz", "cmake", "reference", "host")
SOURCE_EXT = ("h", "hpp", "cpp", "c", "cu", "cuh", "frag", "comp", "vert", "glsl", "py", "pyi",
              "sh", "cmake")
CODE = {".h": "c", ".hpp": "c", ".cpp": "c", ".c": "c", ".cu": "c", ".cuh": "c", ".frag": "c",
        ".comp": "c", ".vert": "c", ".glsl": "c", ".py": "hash", ".pyi": "hash",
        ".sh": "hash", ".cmake": "hash"}
# Folders that hold no file of the repository: what .gitignore names (build trees, fetched
# data, results) is read from it; these two a GPU machine copies into the checkout and lists in
# .git/info/exclude (docs/architecture.md, "Build").
NOT_TRACKED = ("gpu-kit/", "shared-data/")
# Tokens that look like paths but name other projects' files, each with whose.
NOT_PATHS = {
    "nlohmann/": "nlohmann-json's headers (<nlohmann/json.hpp>)",
    "include/stb": "Debian libstb-dev's header folder (/usr/include/stb)",
    "include/imgui/": "Debian libimgui-dev's header folder (/usr/include/imgui)",
    "include/dlpack/": "dmlc/dlpack's header, which python/dlpack.h restates",
    "examples/data/": "the folder of package opencv-doc that data/fetch_public_pairs.sh unpacks",
}
TOKEN = re.compile(r"[A-Za-z0-9_.*<>{},/+-]+")
URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")


def ignored_prefixes(root):
    """The top-level folders .gitignore names (`build*/`, `data/public/`, `out/`), as prefixes."""
    prefixes = list(NOT_TRACKED)
    try:
        with open(os.path.join(root, ".gitignore"), encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith(("#", "!")) and line.endswith("/"):
                    prefixes.append(line.lstrip("/").rstrip("*/"))
    except FileNotFoundError:
        pass
    return tuple(prefixes)


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files"], check=True, capture_output=True,
                             text=True).stdout.split("\n")
        files = [f for f in out if f]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    # Not a git checkout (a copied tree): every file but hidden folders and what git would ignore.
    files = []
    ignored = ignored_prefixes(root)
    for d, dirs, names in os.walk(root):
        rel = os.path.relpath(d, root)
        rel = "" if rel == "." else rel + "/"
        dirs[:] = [x for x in dirs
                   if not x.startswith(".") and not (rel + x + "/").startswith(ignored)]
        files += [rel + n for n in names]
    return files


def extension(path):
    """The extension that says the file's language: a configured `builtin.cpp.in` is C++."""
    root, ext = os.path.splitext(path)
    return os.path.splitext(root)[1] if ext == ".in" else ext


def checked(path):
    ext = extension(path)
    return os.path.basename(path) == "CMakeLists.txt" or ext == ".md" or ext in CODE


def c_comments(text):
    """The text with everything but comments blanked (newlines kept, so lines stay lines)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(text[i:j])
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(text[i:j])
            i = j
        elif text.startswith('R"', i) and (i == 0 or not re.match(r"\w", text[i - 1])):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i:j + 1]))
            i = j + 1
        else:
            out.append(c if c == "\n" else " ")
            i += 1
    return "".join(out)


def hash_comments(text, cmake):
    """Comments of shell, Python and CMake: a # at a line's start or after a blank, out of quotes."""
    lines = []
    for line in text.split("\n"):
        quote, keep = None, ""
        for k, c in enumerate(line):
            if quote:
                quote = None if c == quote else quote
            elif c in "\"'" and not cmake or c == '"':
                quote = c
            elif c == "#" and (k == 0 or line[k - 1] in " \t"):
                keep = line[k:]
                break
        lines.append(keep)
    return "\n".join(lines)


def prose(path, text):
    ext = extension(path)
    if os.path.basename(path) == "CMakeLists.txt" or ext == ".cmake":
        return hash_comments(text, cmake=True)
    kind = CODE.get(ext)
    if kind == "c":
        return c_comments(text)
    if kind == "hash" and ext in (".py", ".pyi"):
        # Python's docstrings are its documentation: kept beside the # comments.
        comments = hash_comments(text, cmake=False).split("\n")
        docs = re.sub(r'"""[\s\S]*?"""|[^\n]', lambda m: m.group(0) if len(m.group(0)) > 1 else " ",
                      text).split("\n")
        return "\n".join(c + " " + d for c, d in zip(comments, docs))
    if kind == "hash":
        return hash_comments(text, cmake=False)
    # Markdown: code blocks too (they show commands and layouts that name files).
    return text


def looks_like_path(tok):
    if "/" not in tok:
        return False
    first = tok.split("/", 1)[0]
    if first in TOP:
        return True
    return bool(re.search(r"/[^/]*\.(%s)$" % "|".join(SOURCE_EXT), tok))


def expand_braces(tok):
    m = re.search(r"\{([^{}]*)\}", tok)
    if not m:
        return [tok]
    return [x for alt in m.group(1).split(",")
            for x in expand_braces(tok[:m.start()] + alt + tok[m.end():])]


@functools.lru_cache(maxsize=None)
def exists(root, base, tok):
    """Whether tok names something under root, from root, from base or from a folder above it."""
    pattern = re.sub(r"<[^<>/]*>", "*", tok)
    # include/ and each method's include folder: the public headers as a consumer names them.
    bases = ["", "include", "methods/*/include"]
    d = base
    while d:
        bases.append(d)
        d = os.path.dirname(d)
    for alt in expand_braces(pattern):
        for b in bases:
            full = os.path.normpath(os.path.join(root, b, alt))
            if not full.startswith(os.path.normpath(root)):
                continue
            if any(ch in full[len(root):] for ch in "*?[") and glob.glob(full):
                return True
            if os.path.exists(full):
                return True
    return False


def path_tokens(line, ignored):
    line = URL.sub(" ", line)
    for m in TOKEN.finditer(line):
        tok = m.group(0)
        before = line[m.start() - 1] if m.start() > 0 else " "
        tok = tok.strip(",").rstrip(".:")
        # `<GL/glew.h>`, `<cuda_runtime.h>`: a system header, not a file of ours.
        if tok.startswith("<") and tok.endswith(">"):
            continue
        # An unmatched bracket is the text's (`<see core/image.h>`); `methods/<folder>` keeps its pair.
        if tok.startswith("<") and tok.count("<") > tok.count(">"):
            tok = tok[1:]
        if tok.endswith(">") and tok.count(">") > tok.count("<"):
            tok = tok[:-1]
        if before in "$}@%~" or tok.startswith(("/", "../shared/", "~") + ignored):
            continue  # a variable's, an absolute path, the shared folder beside, an ignored tree
        if re.match(r"[A-Z][A-Z0-9_]*/", tok):
            continue  # under a folder the reader names: DIR/results.json, P/include/stereo/
        if tok.startswith("../"):
            yield tok
            continue
        if looks_like_path(tok) and not any(tok.startswith(p) for p in NOT_PATHS):
            yield tok


def check_paths(root, files):
    bad = []
    ignored = ignored_prefixes(root)
    for path in files:
        if not checked(path):
            continue
        try:
            with open(os.path.join(root, path), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for lineno, line in enumerate(prose(path, text).split("\n"), 1):
            for tok in path_tokens(line, ignored):
                if not exists(root, os.path.dirname(path), tok):
                    bad.append(f"{path}:{lineno}: names '{tok}', which does not exist")
        if CODE.get(extension(path)) != "c":
            continue
        for lineno, line in enumerate(text.split("\n"), 1):
            # A Doxygen tag opens its comment line: `/// \file core/image.h`.
            m = re.match(r"\s*(?://[/!]?|/\*[*!]?|\*)\s*[\\@]file\s+(\S+)", line)
            if m and m.group(1) != path:
                bad.append(f"{path}:{lineno}: \\file {m.group(1)} is not this file's path {path}")
    return bad


def defines(text, name):
    """Whether text defines function name: `name(` after a type, a `*`, `&`, `)` or a qualifier
    (`void tad_cost(`, `Passes::run_group(`, `__launch_bounds__(...) fused_kernel(`), not a call
    inside an expression."""
    pat = re.compile(r"(^|[\w*&>)]\s+|[*&]|::)" + re.escape(name) + r"\s*(<[^;{}()]*>)?\s*\(", re.M)
    return bool(pat.search(text))


def names(text, name):
    """Whether text holds name as a whole word (a constant or a type of a model header)."""
    return bool(re.search(r"(?<![\w])" + re.escape(name) + r"(?![\w])", text))


def check_equation_tables(root):
    """Every cell of a "Where each equation lives" table: each `function()` is defined, and each
    other `identifier` named, in one of the `paths` of the same cell."""
    bad = []
    for page in sorted(glob.glob(os.path.join(root, "docs", "methods", "*.md"))):
        rel = os.path.relpath(page, root)
        with open(page, encoding="utf-8") as f:
            lines = f.read().split("\n")
        # A method of its own needs the map; a peer's folder (sgbm: OpenCV's, no reference/) not.
        name = os.path.splitext(os.path.basename(page))[0]
        peer = os.path.isdir(os.path.join(root, "methods", name)) and \
            not os.path.isdir(os.path.join(root, "methods", name, "reference"))
        heads = [l.lower() for l in lines if l.startswith("#")]
        if not peer and not any("where each equation lives" in h for h in heads):
            bad.append(f"{rel}: has no section \"Where each equation lives\"")
        inside = False
        for lineno, line in enumerate(lines, 1):
            if line.startswith("#"):
                inside = "where each equation lives" in line.lower()
                continue
            if not inside or not line.startswith("|") or set(line) <= set("|-: "):
                continue
            for cell in re.split(r"(?<!\\)\|", line.strip().strip("|")):
                ticks = re.findall(r"`([^`]+)`", cell)
                paths = list(dict.fromkeys(t for t in ticks if "/" in t and "(" not in t))
                functions = [t[:-2] for t in ticks if re.fullmatch(r"[A-Za-z_][\w:]*\(\)", t)]
                words = [t for t in ticks if re.fullmatch(r"[A-Za-z_][\w:]*", t)]
                if (functions or words) and not paths:
                    named = ", ".join(functions + words)
                    bad.append(f"{rel}:{lineno}: {named} without the file to find it in")
                    continue
                texts = []
                for p in paths:
                    found = sorted(glob.glob(os.path.join(root, p)))
                    if not found:
                        bad.append(f"{rel}:{lineno}: names '{p}', which does not exist")
                    for full in found:
                        with open(full, encoding="utf-8") as f:
                            texts.append(f.read())
                if not texts:
                    continue
                for fn in functions:
                    if not any(defines(t, fn.split("::")[-1]) for t in texts):
                        bad.append(f"{rel}:{lineno}: {fn}() is defined in none of {', '.join(paths)}")
                for w in words:
                    if not any(names(t, w.split("::")[-1]) for t in texts):
                        bad.append(f"{rel}:{lineno}: {w} is named in none of {', '.join(paths)}")
    return bad


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
    files = tracked_files(root)
    bad = check_paths(root, files) + check_equation_tables(root)
    for b in bad:
        print(b)
    pages = len(glob.glob(os.path.join(root, "docs", "methods", "*.md")))
    scanned = sum(1 for f in files if checked(f))
    print(f"{len(bad)} problems in {scanned} files and {pages} method pages")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
