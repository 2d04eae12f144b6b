#!/usr/bin/env python3
"""Size check for the model's C++ sources: no file over 600 lines, no function body over 80 lines.

Scans tlm/ and tb/ (.h and .cpp). A file or function over its limit fails the check unless the allowlist
(verification/reference/size_allowlist.txt) names it with a reason. Allowlist lines:

    <path> <reason>                     a file over the file limit
    <path>:<function> <reason>          a function over the function limit (Class::member for members)

Function detection is a heuristic for this code base's style (clang-format, Google-like), not a C++
parser: comments, strings and preprocessor lines are blanked, then braces are tracked with a stack of
scopes (namespace, class, function). A '{' at namespace or class scope whose statement has a parameter
list and no '=' outside parentheses opens a function body; the function runs from the first line of its
signature to the matching '}'. In-class inline members count like any other function. Brace
initializers (`x_{0}`, `= {...}`) and enums are not functions.

    scripts/check_size.py                  check the tree, print a report, exit 1 on violations
    scripts/check_size.py --self-test      check the checker on synthetic inputs
"""

import argparse
import os
import re
import sys
import tempfile
import unittest

FILE_LIMIT = 600
FUNCTION_LIMIT = 80
DEFAULT_DIRS = ("tlm", "tb")
DEFAULT_ALLOWLIST = "verification/reference/size_allowlist.txt"
EXTENSIONS = (".h", ".cpp")


# ---- Lexing: blank comments, string/char literals and preprocessor lines, keep newlines ------------------

def blank(text):
    """Returns text of the same length and line structure with comments, literals and # lines as spaces."""
    out = []
    i, n = 0, len(text)
    at_line_start = True  # only whitespace since the last newline
    while i < n:
        c = text[i]
        if c == "\n":
            out.append(c)
            at_line_start = True
            i += 1
            continue
        if at_line_start and c == "#":  # preprocessor line, with its backslash continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":  # continued: keep the newline
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c in " \t\r":
            out.append(c)
            i += 1
            continue
        at_line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        m = re.match(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(', text[i:i + 24]) if c in 'uULR' else None
        if m and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + m.group(1) + '"'
            end = text.find(close, i + m.end())
            end = n if end < 0 else end + len(close)
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        if c == '"' or (c == "'" and not digit_separator(text, i)):
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            end = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
            continue
        out.append(c)
        i += 1
    return "".join(out)


def digit_separator(text, i):
    """A ' between two digits of a number literal (1'000'000), not a character literal."""
    if i == 0 or i + 1 >= len(text) or not text[i - 1].isalnum() or not text[i + 1].isalnum():
        return False
    j = i - 1
    while j >= 0 and (text[j].isalnum() or text[j] in "'."):
        j -= 1
    return text[j + 1].isdigit()


# ---- Functions ------------------------------------------------------------------------------------------

KEYWORDS_BEFORE_PAREN = {"if", "for", "while", "switch", "return", "sizeof", "alignof", "alignas", "decltype",
                         "noexcept", "static_assert", "catch", "__attribute__", "throw", "new", "delete"}
ACCESS = re.compile(r"^\s*(?:public|private|protected)\s*:(?!:)")
TEMPLATE = re.compile(r"^\s*template\s*<")


def strip_templates(stmt):
    """Drops a leading `template <...>` header (balanced angle brackets)."""
    while True:
        m = TEMPLATE.match(stmt)
        if not m:
            return stmt
        depth, i = 0, m.end() - 1
        while i < len(stmt):
            if stmt[i] == "<":
                depth += 1
            elif stmt[i] == ">":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        stmt = stmt[i + 1:]


def function_name(stmt):
    """The name of the function a statement declares (`Class::name`, `operator()`), or None if it is not
    a function signature (no parameter list at depth 0, or an initializer `=` outside parentheses)."""
    s = strip_templates(ACCESS.sub("", stmt))
    no_ops = re.sub(r"\boperator\s*(?:\(\)|\[\]|[^\s(]+)", "operator", s)
    depth = 0
    for ch in no_ops:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "=" and depth == 0:
            return None
    if re.match(r"\s*(?:namespace|class|struct|union|enum|extern)\b", s):
        return None
    for m in re.finditer(r"((?:[A-Za-z_~][\w]*\s*(?:<[^<>()]*>)?\s*::\s*)*~?(?:operator\s*(?:\(\)|\[\]|[^\s(]+)|[A-Za-z_]\w*))\s*\(", s):
        name = re.sub(r"\s+", "", m.group(1))
        if name.split("::")[-1] in KEYWORDS_BEFORE_PAREN:
            continue
        return re.sub(r"<[^<>()]*>", "", name)
    return None


class Function:
    def __init__(self, path, name, start, end):
        self.path, self.name, self.start, self.end = path, name, start, end

    @property
    def length(self):
        return self.end - self.start + 1


def scan_functions(path, text):
    """Every function definition in a C++ source: (name, first signature line, closing-brace line)."""
    code = blank(text)
    line_of = []  # line number (1-based) of each character
    line = 1
    for ch in code:
        line_of.append(line)
        if ch == "\n":
            line += 1
    functions = []
    scopes = []  # ("namespace" | "class", name)
    stmt_start = 0  # where the current statement at namespace/class scope began
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c in ";":
            stmt_start = i + 1
        elif c == "}":
            if scopes:
                scopes.pop()
            stmt_start = i + 1
        elif c == "{":
            stmt = code[stmt_start:i]
            prev = code[i - 1] if i else " "
            if prev.isalnum() or prev in "_>]":  # brace initializer: x_{0}, std::array<int, 2>{}, []{...}
                i = matching_brace(code, i) + 1
                continue
            head = ACCESS.sub("", stmt)
            m = re.match(r"\s*(?:inline\s+)?namespace\b", head) or re.match(r'\s*extern\s*"?', head)
            # `class Name`, `struct alignas(64) Name final : public Base` at the end of the statement (a macro
            # invocation without a semicolon may come before it).
            cls = re.search(r"\b(class|struct|union)\s+(?:alignas\s*\([^)]*\)\s*)?(\w+)?(?:\s+final)?\s*"
                            r"(?::[^(){};]*)?$", head.rstrip())
            if m and not re.search(r"\(", head):
                scopes.append(("namespace", ""))
                stmt_start = i + 1
            elif cls:
                scopes.append(("class", cls.group(2) or ""))
                stmt_start = i + 1
            else:
                name = function_name(stmt)
                end = matching_brace(code, i)
                if name is not None:
                    skip = 0
                    while ACCESS.match(stmt[skip:]):  # ` public:` before the signature is not part of it
                        skip += ACCESS.match(stmt[skip:]).end()
                    first = stmt_start + skip + (len(stmt[skip:]) - len(stmt[skip:].lstrip()))
                    owner = next((s[1] for s in reversed(scopes) if s[0] == "class"), "")
                    if owner and "::" not in name:
                        name = owner + "::" + name
                    functions.append(Function(path, name, line_of[min(first, n - 1)], line_of[end]))
                i = end + 1
                if name is not None or re.search(r"\benum\b", head):
                    stmt_start = i  # a function body or an enum ends its statement
                continue
        i += 1
    return functions


def matching_brace(code, i):
    depth = 0
    for j in range(i, len(code)):
        if code[j] == "{":
            depth += 1
        elif code[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(code) - 1


# ---- Allowlist and report -------------------------------------------------------------------------------

def load_allowlist(path):
    """{entry: reason}; entry is `path` or `path:function`. A line without a reason is an error."""
    allowed = {}
    if not os.path.exists(path):
        return allowed
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip() if raw.lstrip().startswith("#") else raw.strip()
            if not line:
                continue
            parts = line.split(None, 1)
            if len(parts) < 2 or not parts[1].strip():
                raise SystemExit(f"{path}:{number}: allowlist entry '{parts[0]}' needs a reason")
            allowed[parts[0]] = parts[1].strip()
    return allowed


def sources(root, dirs):
    for d in dirs:
        for base, subdirs, files in os.walk(os.path.join(root, d)):
            subdirs.sort()
            for name in sorted(files):
                if name.endswith(EXTENSIONS):
                    yield os.path.relpath(os.path.join(base, name), root)


def check(root, dirs, allowlist, file_limit=FILE_LIMIT, function_limit=FUNCTION_LIMIT, out=sys.stdout):
    """Prints the report; returns the number of violations not on the allowlist."""
    failures, allowed_hits, used = [], [], set()
    for rel in sources(root, dirs):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        if lines > file_limit:
            row = f"{rel}:1: file, {lines} lines (limit {file_limit})"
            (allowed_hits if rel in allowlist else failures).append((row, allowlist.get(rel)))
            used.add(rel)
        for fn in scan_functions(rel, text):
            if fn.length > function_limit:
                key = f"{rel}:{fn.name}"
                row = f"{rel}:{fn.start}: function {fn.name}, {fn.length} lines (limit {function_limit})"
                (allowed_hits if key in allowlist else failures).append((row, allowlist.get(key)))
                used.add(key)
    for row, _ in failures:
        print(f"OVER  {row}", file=out)
    for row, reason in allowed_hits:
        print(f"ALLOWED  {row}: {reason}", file=out)
    # Entries nothing needs any more (a file was split): a note, not a failure, so that splitting a file
    # and removing its entry can land in either order.
    for entry in sorted(set(allowlist) - used):
        print(f"NOTE  allowlist entry no longer needed: {entry}", file=out)
    status = "FAILED" if failures else "passed"
    print(f"size check {status}: {len(failures)} over the limits, {len(allowed_hits)} allowed "
          f"(files <= {file_limit} lines, functions <= {function_limit} lines)", file=out)
    return len(failures)


# ---- Self-test ------------------------------------------------------------------------------------------

class SelfTest(unittest.TestCase):
    def functions(self, text):
        return {f.name: f.length for f in scan_functions("x.cpp", text)}

    def body(self, lines):
        return "".join(f"  x += {k};\n" for k in range(lines))

    def test_free_function_counts_signature_to_closing_brace(self):
        text = "namespace a {\n\nint f(int x) {\n" + self.body(5) + "  return x;\n}\n\n}  // namespace a\n"
        self.assertEqual(self.functions(text), {"f": 8})

    def test_multiline_signature_and_constructor_initializers(self):
        text = ("Foo::Foo(int a,\n         int b)\n    : a_(a),\n      b_{b},\n      c_(std::vector<int>{1, 2}) {\n"
                "  if (a) {\n    b_ = 1;\n  }\n}\n")
        self.assertEqual(self.functions(text), {"Foo::Foo": 9})

    def test_in_class_inline_members_and_const(self):
        text = ("class Bar : public Base {\n public:\n  int get() const {\n    return x_;\n  }\n"
                "  void set(int v) override { x_ = v; }\n  int y_{0};\n  std::array<int, 2> z_{};\n"
                " private:\n  struct Inner {\n    void go() {\n    }\n  };\n  int x_ = 0;\n};\n")
        self.assertEqual(self.functions(text), {"Bar::get": 3, "Bar::set": 1, "Inner::go": 2})

    def test_not_functions(self):
        text = ('const std::vector<int> kTable = {\n  1,\n  2,\n};\nenum class E : int { a, b };\n'
                'auto lambda = [](int v) {\n  return v;\n};\nstruct S {\n  int a;\n};\n'
                '// void commented(int x) {\n/* void block() {\n} */\nconst char* s = "f(x) {";\n'
                '#define M(x) { x }\n')
        self.assertEqual(self.functions(text), {})

    def test_strings_comments_and_digit_separators_do_not_unbalance_braces(self):
        text = ('void f() {\n  const char* s = "}}}";\n  char c = \'}\';\n  auto n = 1\'000\'000;\n'
                '  auto r = R"(}})";\n  // }\n}\nvoid g() {\n}\n')
        self.assertEqual(self.functions(text), {"f": 7, "g": 2})

    def test_class_after_a_macro_invocation_without_semicolon(self):
        text = ("#define M(X) X\nM(int a)\ntemplate <class V>\nclass P : public Q<V> {\n public:\n"
                "  void f() {\n  }\n};\n")
        self.assertEqual(self.functions(text), {"P::f": 2})

    def test_operators_and_templates(self):
        text = ("template <typename T>\nbool operator==(const T& a, const T& b) {\n  return true;\n}\n"
                "struct H {\n  std::size_t operator()(int k) const noexcept {\n    return k;\n  }\n};\n")
        self.assertEqual(self.functions(text), {"operator==": 4, "H::operator()": 3})

    def run_tree(self, files, allowlist_text="", **limits):
        with tempfile.TemporaryDirectory() as root:
            for rel, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w") as f:
                    f.write(text)
            allow = os.path.join(root, "allow.txt")
            with open(allow, "w") as f:
                f.write(allowlist_text)
            with open(os.devnull, "w") as sink:
                return check(root, ("tlm",), load_allowlist(allow), out=sink, **limits)

    def test_long_function_fails_unless_allowed(self):
        files = {"tlm/a.cpp": "void big() {\n" + self.body(10) + "}\nvoid small() {\n}\n"}
        self.assertEqual(self.run_tree(files, function_limit=12), 0)  # 12 lines: at the limit
        self.assertEqual(self.run_tree(files, function_limit=11), 1)
        self.assertEqual(self.run_tree(files, "tlm/a.cpp:big  to be split\n", function_limit=11), 0)
        self.assertEqual(self.run_tree(files, "tlm/a.cpp:other  reason\n", function_limit=11), 1)

    def test_long_file_fails_unless_allowed(self):
        files = {"tlm/b.h": "int x;\n" * 20, "tlm/c.txt": "int x;\n" * 50}
        self.assertEqual(self.run_tree(files, file_limit=20), 0)
        self.assertEqual(self.run_tree(files, file_limit=19), 1)
        self.assertEqual(self.run_tree(files, "tlm/b.h  to be split\n", file_limit=19), 0)

    def test_allowlist_entry_needs_a_reason(self):
        with self.assertRaises(SystemExit):
            self.run_tree({"tlm/a.cpp": ""}, "tlm/a.cpp\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser.add_argument("--root", default=here, help="repository root (default: this script's)")
    parser.add_argument("--allowlist", help=f"allowlist file (default: <root>/{DEFAULT_ALLOWLIST})")
    parser.add_argument("--dirs", nargs="+", default=list(DEFAULT_DIRS), help="directories to scan, under root")
    parser.add_argument("--file-limit", type=int, default=FILE_LIMIT)
    parser.add_argument("--function-limit", type=int, default=FUNCTION_LIMIT)
    parser.add_argument("--self-test", action="store_true", help="run the checker's own tests and exit")
    args = parser.parse_args()
    if args.self_test:
        result = unittest.TextTestRunner(verbosity=2).run(unittest.defaultTestLoader.loadTestsFromTestCase(SelfTest))
        return 0 if result.wasSuccessful() else 1
    allowlist = load_allowlist(args.allowlist or os.path.join(args.root, DEFAULT_ALLOWLIST))
    failures = check(args.root, args.dirs, allowlist, args.file_limit, args.function_limit)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
