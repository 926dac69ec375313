#!/usr/bin/python3
"""The tree's two size limits, checked on the source tree.

(a) No code file (*.h *.cpp *.cu *.cuh *.frag *.comp *.vert *.py) over MAX_LINES lines, tests
    excepted (tests/, methods/*/tests/, test_*.py).
(b) No function declared in a method's stage headers (methods/*/cuda/stages.h,
    methods/*/reference/*.h) and no __global__ kernel under methods/ with more than MAX_PARAMS
    parameters: a stage that needs more takes an argument struct, as the methods' stages.h
    headers show.

Usage: code_limits.py SOURCE_DIR. Prints every offender with its count and exits 1 if there is
one; exits 2 if the parser's own checks fail (they run first, so a parser that stopped seeing
declarations cannot pass the tree). The parser reads declarations, not C++: comments, string
literals and preprocessor lines are dropped, function bodies and initialisers are skipped, and
a parameter list's commas are counted at the top level only (a default argument's call, braces
or template arguments do not count).
"""

import os
import re
import sys

MAX_LINES = 450
MAX_PARAMS = 8
CODE_SUFFIXES = (".h", ".cpp", ".cu", ".cuh", ".frag", ".comp", ".vert", ".py")

# Names followed by '(' that never name the function a declaration declares.
NOT_A_NAME = {
    "alignas", "alignof", "decltype", "noexcept", "sizeof", "static_assert", "typeid",
    "__attribute__", "__align__", "__launch_bounds__", "__declspec", "throw", "requires",
    "if", "for", "while", "switch", "return", "void", "int", "float", "double", "char", "bool",
    "unsigned", "signed", "long", "short", "auto",
}
SCOPE_WORDS = {"namespace", "struct", "class", "union"}

# Kernels that keep more than MAX_PARAMS parameters, each with the reason. Their pointers are
# separate `const T* __restrict__` parameters because the compiler reads restricted pointer
# parameters through the read-only data path (ld.global.nc); moved into a struct passed by
# value, the same loads lost it (path_kernel's PTX), and arm_sum_kernel's instantiations lost
# half their unrolled load and store code (methods/adcensus/cuda/NOTES.md times this shape).
# The host functions that launch them (the stages) take argument structs like every stage.
KERNELS_KEPT = {
    "arm_sum_kernel": "adcensus: restricted pointers and unrolled loads (PTX compared)",
    "path_kernel": "adcensus: restricted cost pointers read through ld.global.nc (PTX compared)",
    "vote_kernel": "adcensus: restricted pointers, as path_kernel",
    # With its sizes in a struct, crossrt's CA stage measured 1.36 ms against 1.18 ms before
    # (1920x1080x256, H200; 1.176-1.178 ms again with the scalars, three runs): kept as it was.
    "aggregate_y_wta_kernel": "crossrt: the struct form timed 16 % slower (its NOTES.md, Kernel parameters)",
}

TOKEN = re.compile(r"""
    (?P<id>[A-Za-z_]\w*)
  | (?P<num>\.?\d[\w.']*)
  | (?P<punct>::|->|>>|<<|&&|\|\||[-+*/%^&|~!=<>?:;,.(){}\[\]\#])
""", re.VERBOSE)


def strip_comments_and_strings(text):
    """C++ source with comments, string/char literals and preprocessor lines blanked; newlines
    are kept so offsets still map to lines."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if line_start and c == "#":  # a directive, with its continuation lines
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append("\n")
                    i += 2
                    continue
                i += 1
            continue
        line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * text.count("\n", i, end))
            i = end
            continue
        raw = re.match(r'R"([^(]*)\(', text[i:i + 20])
        if raw:
            close = ")" + raw.group(1) + '"'
            end = text.find(close, i + raw.end())
            end = n if end < 0 else end + len(close)
            out.append(' "" ' + "\n" * text.count("\n", i, end))
            i = end
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(' "" ')
            i = j + 1
            continue
        if c == "\n":
            line_start = True
        out.append(c)
        i += 1
    return "".join(out)


def tokenize(text):
    """(kind, value, line) of every token of stripped source."""
    tokens = []
    line = 1
    pos = 0
    for m in TOKEN.finditer(text):
        line += text.count("\n", pos, m.start())
        pos = m.start()
        kind = m.lastgroup
        tokens.append((kind, m.group(kind), line))
    return tokens


def match_close(tokens, i):
    """Index of the bracket closing tokens[i] ('(' '[' '{'), counting only those three kinds."""
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = [pairs[tokens[i][1]]]
    j = i + 1
    while j < len(tokens):
        v = tokens[j][1]
        if v in pairs:
            stack.append(pairs[v])
        elif v in (")", "]", "}"):
            if v != stack[-1]:
                raise ValueError(f"unbalanced '{v}' at line {tokens[j][2]}")
            stack.pop()
            if not stack:
                return j
        j += 1
    raise ValueError(f"unclosed '{tokens[i][1]}' at line {tokens[i][2]}")


def skip_angles(tokens, i):
    """Index just past the template argument list opening at tokens[i] ('<')."""
    depth = 0
    j = i
    while j < len(tokens):
        v = tokens[j][1]
        if v in ("(", "[", "{"):
            j = match_close(tokens, j) + 1
            continue
        if v == "<":
            depth += 1
        elif v == ">":
            depth -= 1
        elif v == ">>":
            depth -= 2
        if depth <= 0:
            return j + 1
        j += 1
    return j


def count_parameters(tokens):
    """Parameters of a declaration's list (the tokens between its parentheses)."""
    values = [t[1] for t in tokens]
    if not values or values == ["void"]:
        return 0
    count = 1
    depth = 0   # (), [], {}
    angles = 0  # template arguments, seen only in a parameter's type (before its '=')
    in_default = False
    prev = None
    for kind, v, _ in tokens:
        if v in ("(", "[", "{"):
            depth += 1
        elif v in (")", "]", "}"):
            depth -= 1
        elif depth == 0 and not in_default and v == "<" and prev is not None and prev[0] == "id":
            angles += 1
        elif depth == 0 and not in_default and v == ">" and angles > 0:
            angles -= 1
        elif depth == 0 and not in_default and v == ">>" and angles > 0:
            angles = max(0, angles - 2)
        elif depth == 0 and angles == 0 and v == "=":
            in_default = True
        elif depth == 0 and angles == 0 and v == ",":
            count += 1
            in_default = False
        prev = (kind, v)
    return count


def declarations(text):
    """(name, parameter count, line, is_kernel) of every function declared or defined at
    namespace or class scope in C++ source `text`."""
    tokens = tokenize(strip_comments_and_strings(text))
    found = []

    def scan(i, end):
        head_start = i
        is_function = False  # the statement so far declares a function
        seen_assign = False
        while i < end:
            kind, v, line = tokens[i]
            if v == ";":
                i += 1
                head_start, is_function, seen_assign = i, False, False
                continue
            if v == "template" and i + 1 < end and tokens[i + 1][1] == "<":
                i = skip_angles(tokens, i + 1)
                continue
            if v == "{":
                close = match_close(tokens, i)
                head = [t[1] for t in tokens[head_start:i]]
                if is_function:  # a function's body: the statement ends with it
                    i = close + 1
                    head_start, is_function, seen_assign = i, False, False
                    continue
                if not seen_assign and (SCOPE_WORDS & set(head) or (head and head[0] == "extern")):
                    scan(i + 1, close)
                    if "namespace" in head or (head and head[0] == "extern"):
                        i = close + 1
                        head_start, is_function, seen_assign = i, False, False
                        continue
                i = close + 1  # an enum's or a struct's body, or an initialiser
                continue
            if v in ("(", "["):
                close = match_close(tokens, i)
                prev = tokens[i - 1] if i > head_start else None
                if (v == "(" and not is_function and not seen_assign and prev is not None and prev[0] == "id"
                        and prev[1] not in NOT_A_NAME and "operator" not in [t[1] for t in tokens[head_start:i]]):
                    head = [t[1] for t in tokens[head_start:i]]
                    found.append((prev[1], count_parameters(tokens[i + 1:close]), prev[2], "__global__" in head))
                    is_function = True
                elif v == "(" and prev is not None and prev[1] == "operator" and not is_function:
                    pass  # operator(): its list is the next parenthesis
                elif (v == "(" and not is_function and not seen_assign
                      and "operator" in [t[1] for t in tokens[head_start:i]]):
                    head = [t[1] for t in tokens[head_start:i]]
                    found.append(("operator", count_parameters(tokens[i + 1:close]), tokens[i][2],
                                  "__global__" in head))
                    is_function = True
                i = close + 1
                continue
            if v == "=" and not is_function and "operator" not in [t[1] for t in tokens[head_start:i]]:
                seen_assign = True
            if v == ":" and is_function:  # a constructor's initialiser list: skip to the body
                j = i + 1
                while j < end and tokens[j][1] != "{":
                    if tokens[j][1] in ("(", "["):
                        j = match_close(tokens, j)
                    j += 1
                    # member{init} entries: a '{' right after an identifier in the list
                    if j < end and tokens[j][1] == "{" and tokens[j - 1][0] == "id" and tokens[j - 2][1] in (":", ","):
                        j = match_close(tokens, j) + 1
                i = j
                continue
            i += 1

    scan(0, len(tokens))
    return found


def is_test_path(rel):
    parts = rel.split("/")
    return (parts[0] == "tests" or (len(parts) > 2 and parts[0] == "methods" and parts[2] == "tests")
            or (rel.endswith(".py") and (parts[-1].startswith("test_") or "tests" in parts)))


def code_files(root):
    """Relative paths of the code files under `root`: no hidden folder, no build tree (a folder
    with a CMakeCache.txt, or build* at the top), no downloaded data."""
    skip_top = {"out"}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/")
        keep = []
        for d in sorted(dirnames):
            rel = f"{rel_dir}/{d}" if rel_dir else d
            if d.startswith(".") or rel in ("data/public",) or (not rel_dir and (d.startswith("build") or d in skip_top)):
                continue
            if os.path.exists(os.path.join(dirpath, d, "CMakeCache.txt")):
                continue
            keep.append(d)
        dirnames[:] = keep
        for f in sorted(filenames):
            if f.endswith(CODE_SUFFIXES):
                yield f"{rel_dir}/{f}" if rel_dir else f


def is_stage_header(rel):
    parts = rel.split("/")
    if len(parts) < 4 or parts[0] != "methods":
        return False
    return (parts[2:] == ["cuda", "stages.h"]) or (len(parts) == 4 and parts[2] == "reference" and rel.endswith(".h"))


def check_tree(root):
    """The offenders' lines, one per offence."""
    offences = []
    for rel in code_files(root):
        path = os.path.join(root, rel)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = len(text.splitlines())
        if lines > MAX_LINES and not is_test_path(rel):
            offences.append(f"{rel}: {lines} lines (limit {MAX_LINES})")
        if not rel.startswith("methods/") or rel.endswith(".py") or rel.endswith((".frag", ".comp", ".vert")):
            continue
        stage_header = is_stage_header(rel)
        if not stage_header and "__global__" not in text:
            continue
        try:
            found = declarations(text)
        except ValueError as e:
            offences.append(f"{rel}: cannot be parsed ({e})")
            continue
        for name, count, line, kernel in found:
            if kernel and name in KERNELS_KEPT:
                continue
            if count > MAX_PARAMS and (stage_header or kernel):
                what = "__global__ kernel" if kernel else "stage function"
                offences.append(f"{rel}:{line}: {what} {name} takes {count} parameters (limit {MAX_PARAMS})")
    return offences


def self_test():
    """The parser on declarations whose counts are known; a list of failures."""
    cases = [
        ("void f(int a, int b, int c, int d, int e, int g, int h, int i, int j);", [("f", 9)]),
        ("void f();\nint g(void);", [("f", 0), ("g", 0)]),
        ("void f(std::map<int, float> m, int b = g(1, 2), Foo c = Foo{1, 2}, "
         "std::function<void(int, int)> cb = nullptr);", [("f", 4)]),
        ("namespace a::b {\nstruct S {\n  int x = h(1, 2);\n  S(int a, int b) : x(a), y{b} {}\n"
         "  [[nodiscard]] int get(int k) const { return call(k, 1, 2); }\n  int y;\n};\n"
         "inline int body(int a) {\n  if (a) { return twice(a, a); }\n  return 0;\n}\n}",
         [("S", 2), ("get", 1), ("body", 1)]),
        ("template <class T, int N = 3>\n__global__ void __launch_bounds__(256, 2)\n"
         "kernel(const T* __restrict__ in, int w, int h, int levels, float s, int a, int b, int c, T* out) {\n"
         "  const int x = blockIdx.x * (w, h);\n}", [("kernel", 9)]),
        ("// void commented(int a, int b, int c, int d, int e, int f, int g, int h, int i);\n"
         "#define MACRO(a, b, c, d, e, f, g, h, i) 0\n"
         "const char* s = \"void inside(int, int, int, int, int, int, int, int, int)\";\n"
         "enum class E { a, b };\nusing F = void (*)(int, int);\nbool operator==(const A& l, const A& r);",
         [("operator", 2)]),
        ("extern \"C\" {\nvoid c_api(int a, int b);\n}\nclass K {\n public:\n  K(K&&) noexcept;\n"
         "  K& operator=(K&&) noexcept;\n  float* real();\n};", [("c_api", 2), ("K", 1), ("operator", 1), ("real", 0)]),
    ]
    failures = []
    for source, expected in cases:
        got = [(name, count) for name, count, _, _ in declarations(source)]
        if got != expected:
            failures.append(f"parser: expected {expected}, got {got} for:\n{source}")
    kernels = [k for _, _, _, k in declarations(cases[4][0])]
    if kernels != [True]:
        failures.append(f"parser: the __global__ kernel was not seen as one ({kernels})")
    return failures


def main(argv):
    if len(argv) != 2:
        print("usage: code_limits.py SOURCE_DIR", file=sys.stderr)
        return 2
    failures = self_test()
    if failures:
        print("\n".join(failures))
        return 2
    offences = check_tree(argv[1])
    for o in offences:
        print(o)
    if offences:
        print(f"code_limits: {len(offences)} offence(s)")
        return 1
    print("code_limits: no file over the line limit, no stage function or kernel over the parameter limit")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
