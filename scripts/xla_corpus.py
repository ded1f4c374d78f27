#!/usr/bin/env python3
"""Collects the HLO modules of XLA's own tests into a corpus for oxla.

Reads a git snapshot of openxla/xla (a bare git directory, such as the one
the `fetch` tool brings) and extracts every HLO module its tests embed:

  - xla/hlo/parser/hlo_parser_test.cc: the tables of test cases (valid
    modules) and every TEST with a module string, valid or invalid;
  - xla/tests/*.cc (the end-to-end tests);
  - the CPU backend's tests: xla/service/cpu/**/*_test.cc and
    xla/backends/cpu/**/*_test.cc;
  - every .hlo / .hlotxt file under xla/ outside the GPU backend (lit test
    files are split at `// -----` into their modules).

A module embedded in C++ is a raw string literal (R"(...)" or R"x(...)x")
that starts with `HloModule` or contains `ENTRY`. Templates (literals
filled in by StrFormat, Substitute, StrReplaceAll or StrCat, pieces joined
with `+`, or literals holding `$0`/`%s` placeholders) are not modules as
written and are left out, and
so is a .hlo file git stores as a pointer (LFS) rather than text.

Writes, under --out (default tests/data/xla_corpus):

  modules/<path>/<test>.hlo  one file per module: a provenance header of
      `// xla-corpus:` comment lines (source, test, commit, license), then
      the module text exactly as the test has it
  manifest.tsv  one line per module (see MANIFEST_HEADER): its id and file,
      where it came from, whether it is single-device (and if not, why), what
      XLA's own test expects of it (valid / invalid, with the error text the
      test looks for; unknown for a lit file whose tool is expected to fail), its element types and opcodes, and an
      FNV-1a 64 hash of the module text (the file without its header)

Usage (Python 3.9+, the standard library only):
  python3 scripts/xla_corpus.py --xla <git dir of openxla/xla> \
      [--rev <commit>] [--out tests/data/xla_corpus]
      (--rev defaults to PINNED_REV, the commit the committed manifest and
      expected.tsv describe)
  python3 scripts/xla_corpus.py --summary
      prints the Markdown tables of docs/coverage.md from manifest.tsv and
      the outcomes the Rust test recorded in expected.tsv (no snapshot needed)

The classification is by pattern, so it can be wrong at the edges: see
tests/data/xla_corpus/README.md for the rules.
"""

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
OUT_DIR = REPO / "tests" / "data" / "xla_corpus"
HEADER_PREFIX = "// xla-corpus: "
# The openxla/xla commit the committed manifest and expectations describe
# (2025-06-09); any clone of openxla/xla that has it will do.
PINNED_REV = "271f80b2efb2d841caafa9f971ebdee8de248b9a"

MANIFEST_HEADER = """\
# XLA's own single-device HLO test modules (written by scripts/xla_corpus.py; do not edit).
# Columns:
#   id            the module's name in expected.tsv
#   file          its file under modules/
#   source        the XLA file it came from
#   test          the test (C++: Fixture.Name or the table entry; .hlo: the chunk number)
#   scope         `single` (single-device), or `out:` and why it is out of scope
#                 (collective, replica-id, send-recv, infeed-outfeed, async,
#                 replica_count, num_partitions, sharding, spmd-custom-call, dynamic-shape:
#                 `<=N` or `?` dimensions)
#   xla_expects   what XLA's own test expects of the text: valid (parses and verifies),
#                 invalid (parse or verification fails), unknown (a lit file whose RUN
#                 line expects the tool to fail, not necessarily the parser)
#   element_types the element types it names (`token` included)
#   ops           the opcodes of its instructions
#   fnv64         FNV-1a 64 of the module text (the file without its header)
#   xla_error     for an invalid module, the error text XLA's test looks for (if any)
#   xla_check     what XLA itself makes of the text (scripts/xla_corpus.py --xla-check, run
#                 with a Python that has jaxlib; the version is on the `# xla_check:` line):
#                 `ok` (XLA's parser takes it, its HLO-to-StableHLO importer takes it, and
#                 XLA:CPU compiles it, which runs the StableHLO verifier and XLA's
#                 HloVerifier), or the first stage that refuses it and the first line of
#                 its error: `parser: ...`, `import: ...`, `compile: ...`
#                 (`crash: ...` when the process died); empty when not checked
#   xla_says      what xla_check shows, by the rules of `xla_says()` in the script:
#                 `refuses` (XLA's parser, HloVerifier or the StableHLO verifier finds the
#                 text invalid), `accepts` (`ok`), `unsure` (anything else: not checked, a
#                 crash, the importer's own limits, a failure past verification, or a
#                 parser that no longer takes syntax the pinned commit took); a few modules
#                 whose construct the StableHLO import changes are decided from
#                 HloVerifier's source instead (VERIFIER_SOURCE), and the entries of the
#                 parser test's tables are `accepts` (that test runs HloVerifier on them at
#                 the pinned commit); messages about the CPU compiler's verifier options
#                 (mixed precision, the target's limits) are `unsure`. A single-device module
#                 XLA refuses is not counted among those "XLA parses".
"""
MANIFEST_COLUMNS = [
    "id",
    "file",
    "source",
    "test",
    "scope",
    "xla_expects",
    "element_types",
    "ops",
    "fnv64",
    "xla_error",
    "xla_check",
    "xla_says",
]


# ---------------------------------------------------------------------------
# Reading the snapshot
# ---------------------------------------------------------------------------


def git(git_dir, *args, input_bytes=None):
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), *args],
        input=input_bytes,
        capture_output=True,
        check=True,
    ).stdout


def select_sources(paths):
    """The files the corpus is drawn from, in sorted order."""
    chosen = []
    for p in paths:
        gpu = "/gpu/" in p or "/gpu_" in p or "cuda" in p or "rocm" in p
        if p == "xla/hlo/parser/hlo_parser_test.cc":
            chosen.append(p)
        elif re.fullmatch(r"xla/tests/[^/]+\.cc", p):
            chosen.append(p)
        elif re.fullmatch(r"xla/(service|backends)/cpu/.+_test\.cc", p):
            chosen.append(p)
        elif re.fullmatch(r"xla/.+\.(hlo|hlotxt)", p) and not gpu:
            chosen.append(p)
    return sorted(set(chosen))


def read_blobs(git_dir, rev, paths):
    """The contents of `paths` at `rev`, as text (None for a missing file)."""
    req = "".join(f"{rev}:{p}\n" for p in paths).encode()
    out = git(git_dir, "cat-file", "--batch", input_bytes=req)
    blobs, pos = {}, 0
    for p in paths:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].decode()
        pos = nl + 1
        if header.endswith("missing"):
            blobs[p] = None
            continue
        size = int(header.split()[2])
        blobs[p] = out[pos : pos + size].decode("utf-8", errors="replace")
        pos += size + 1
    return blobs


# ---------------------------------------------------------------------------
# Extracting modules from C++
# ---------------------------------------------------------------------------

RAW_START = re.compile(r'R"([^()\\\s"]{0,16})\(')
TEST_MACRO = re.compile(
    r"^\s*(?:XLA_)?(?:TEST|TEST_F|TEST_P|TYPED_TEST|TYPED_TEST_P)\(\s*(\w+)\s*,\s*(\w+)\s*\)",
    re.M,
)
FORMATTERS = r"(?:StrFormat|Substitute|StrReplaceAll|StrCat|StrAppend|Printf)"
PLACEHOLDER = re.compile(
    r"\$\w|\$\{|%(?:\d+\$)?(?:s|d|i|u|v|ld|lld|\d+d)(?![\w.\-])"
)


def is_module_text(text):
    """Whether text holds a module (comments, such as lit CHECK lines, and
    FileCheck patterns written as `; CHECK...` lines, aside)."""
    text = re.sub(r"(?m)^\s*;.*$", "", without_comments(text))
    stripped = text.lstrip()
    return stripped.startswith("HloModule") or re.search(r"\bENTRY\b", text) is not None


def raw_strings(src):
    """(start, end, body_start, body_end) of every raw string literal."""
    out, pos = [], 0
    while True:
        m = RAW_START.search(src, pos)
        if not m:
            return out
        close = ")" + m.group(1) + '"'
        end = src.find(close, m.end())
        if end < 0:
            return out
        out.append((m.start(), end + len(close), m.end(), end))
        pos = end + len(close)


def c_string_literals(text):
    """The concatenated value of the leading run of "..." literals in text."""
    parts, pos = [], 0
    while True:
        m = re.compile(r'\s*"((?:[^"\\]|\\.)*)"').match(text, pos)
        if not m:
            break
        parts.append(m.group(1))
        pos = m.end()
    value = "".join(parts)
    return (
        value.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
        if parts
        else None
    )


def assigned_variable(src, start):
    """The variable a literal starting at `start` is assigned to, and whether
    the declaration starts in column 0 (file scope)."""
    line_start = src.rfind("\n", 0, start) + 1
    prev_line_start = src.rfind("\n", 0, max(line_start - 1, 0)) + 1
    before = src[prev_line_start:start]
    m = re.search(r"(\w+)\s*(?:\[\s*\])?\s*=\s*(?:\n\s*)?$", before)
    if not m:
        return None, False
    var_at = prev_line_start + m.start()
    decl_line_start = src.rfind("\n", 0, var_at) + 1
    return m.group(1), not src[decl_line_start:var_at][:1].isspace()


def is_template(src, lit, body):
    start, end, _, _ = lit
    if PLACEHOLDER.search(body):
        return True
    # A piece of a module put together with `+`.
    if re.match(r"\s*\+", src[end : end + 40]) or re.search(r"\+\s*$", src[max(0, start - 40) : start]):
        return True
    if re.search(FORMATTERS + r"\(\s*$", src[max(0, start - 80) : start]):
        return True
    var, _ = assigned_variable(src, start)
    if var and re.search(FORMATTERS + r"\(\s*" + re.escape(var) + r"\b", src[end : end + 6000]):
        return True
    return False


def table_entry_name(src, start):
    """`"Name",` right before a literal (the parser test's tables)."""
    m = re.search(r'\{\s*(?://[^\n]*\n\s*)*"(\w+)"\s*,\s*(?://[^\n]*\n\s*)*$', src[max(0, start - 400) : start])
    return m.group(1) if m else None


def xla_verdict(window, in_table):
    """What the test code after a literal expects of it: (verdict, error).
    `invalid` when the code right after the literal (up to the next literal
    or test) checks for a failed status; `valid` otherwise."""
    if in_table:
        return "valid", ""
    error = ""
    for m in re.finditer(r"(?:ExpectHasSubstr|HasSubstr)\(", window):
        statement_start = max(window.rfind(";", 0, m.start()), window.rfind("{", 0, m.start()))
        statement = window[statement_start + 1 : window.find(";", m.end()) + 1]
        if not re.search(r"status|message|error|Status", statement):
            continue
        args = window[m.end() :]
        if m.group(0).startswith("ExpectHasSubstr"):
            depth, i = 0, 0
            for i, ch in enumerate(args):
                depth += ch == "("
                depth -= ch == ")"
                if ch == "," and depth == 0:
                    break
            args = args[i + 1 :]
        text = c_string_literals(args)
        raw = re.match(r'\s*R"([^()\\\s"]{0,16})\((.*?)\)\1"', args, re.S)
        if text is None and raw:
            text = raw.group(2)
        if text is not None:
            error = text
            break
    negative = re.search(
        r"EXPECT_NE\(\s*absl::OkStatus\(\)|EXPECT_FALSE\([^;]*\.ok\(\)|ASSERT_FALSE\([^;]*\.ok\(\)"
        r"|ASSERT_TRUE\(\s*!\s*[^;]*\.ok\(\)|EXPECT_TRUE\(\s*!\s*[^;]*\.ok\(\)|Not\(IsOk\(\)\)"
        r"|StatusIs\(\s*(?:tsl::error::|absl::StatusCode::k)(?!OK|Ok)",
        window,
    )
    if error or negative:
        # The failure checked must be the parser's or the verifier's, not a
        # compile or run failure of a module that parsed.
        if re.search(r"verifier\(\)|HloVerifier|VerifyHlo", window):
            return "invalid", error
        for m in re.finditer(r"Parse\w*\(", window):
            statement_start = max(window.rfind(";", 0, m.start()), window.rfind("{", 0, m.start()))
            if "OK_AND_ASSIGN" not in window[statement_start + 1 : m.start()]:
                return "invalid", error
        return "valid", ""
    # No sign of an expected failure: XLA's tests parse their modules and
    # run, compile or rewrite them (often through a helper of the fixture).
    return "valid", ""


def modules_from_cc(path, src):
    """(test id, module text, verdict, xla error, replica_count) for each
    module in a C++ test file, and the number of templates left out."""
    lits = raw_strings(src)
    tests = [(m.start(), f"{m.group(1)}.{m.group(2)}") for m in TEST_MACRO.finditer(src)]
    found, templates = [], 0
    # File-scope string constants, for `StrCat(kPrefix, R"(...)")`.
    constants = {}
    for lit in lits:
        var, file_scope = assigned_variable(src, lit[0])
        if var and file_scope:
            constants[var] = src[lit[2] : lit[3]]
    module_lits = [k for k, lit in enumerate(lits) if is_module_text(src[lit[2] : lit[3]])]
    for k, lit in enumerate(lits):
        start, end, bs, be = lit
        body = src[bs:be]
        # A test that puts its module together as StrCat(kPrefix, R"(...)")
        # with kPrefix a file-scope literal (computations the tests share):
        # the module is what the StrCat makes.
        prefix = re.search(r"StrCat\(\s*(\w+)\s*,\s*$", src[max(0, start - 80) : start])
        joined = (
            prefix is not None
            and prefix.group(1) in constants
            and re.match(r"\s*\)", src[end : end + 10]) is not None
            and not PLACEHOLDER.search(constants[prefix.group(1)] + body)
        )
        if joined:
            body = constants[prefix.group(1)] + body
        if not is_module_text(body):
            continue
        if not joined and is_template(src, lit, body):
            templates += 1
            continue
        table = table_entry_name(src, start)
        if table is None and k > 0 and re.fullmatch(r"\s*,\s*", src[lits[k - 1][1] : start]):
            # The second string of a table entry: the parser test's
            # non-round-trip cases give the text XLA prints back.
            prev = table_entry_name(src, lits[k - 1][0])
            table = prev + "_output" if prev else None
        var, file_scope = assigned_variable(src, start)
        next_test = min([t for t, _ in tests if t > start] + [len(src)])
        # Up to the next literal that holds a module: one that does not (an
        # error text the test looks for) is part of this module's test.
        next_lit = min([lits[j][0] for j in module_lits if j > k] + [len(src)])
        window = src[end : min(next_test, next_lit, end + 4000)]
        if table:
            name = table
        elif file_scope and var:
            name = var
            # A module shared by several tests: what they expect is theirs.
            window = ""
        else:
            enclosing = [n for t, n in tests if t < start]
            name = enclosing[-1] if enclosing else (var or "module")
        verdict, error = xla_verdict(window, table is not None)
        replicas = 1
        if table:
            m = re.match(r"\s*,\s*(?:/\*\s*replica_count\s*=\s*\*/\s*)?(\d+)", src[end : end + 80])
            if m:
                replicas = int(m.group(1))
        note = f"text the test's StrCat({prefix.group(1)}, ...) makes: {prefix.group(1)} (file scope) then the test's literal" if joined else ""
        found.append((name, body, verdict, error, replicas, note))
    return found, templates


def modules_from_hlo_file(path, text):
    """Modules of a .hlo file: lit files with --split-input-file are cut at
    `// -----` lines."""
    run_lines = "\n".join(l for l in text.splitlines() if l.lstrip().startswith("// RUN"))
    chunks = re.split(r"(?m)^// -----\s*$\n?", text)
    verdict = "unknown" if re.search(r"RUN:\s*not\b", run_lines) else "valid"
    if path.rsplit("/", 1)[-1].startswith("invalid"):
        # Data for a test that expects verification to fail
        # (xla/tools/tests/invalid_concat.hlo).
        verdict = "invalid"
    mods = [c for c in chunks if is_module_text(c)]
    if len(mods) == 1:
        return [("module", mods[0], verdict, "", 1, "")]
    return [(f"chunk{i + 1}", c, verdict, "", 1, "") for i, c in enumerate(mods)]


# ---------------------------------------------------------------------------
# Classification
# ---------------------------------------------------------------------------

INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.\-]+\s*=\s*(.*)$")
ELEMENT_TYPE = re.compile(
    r"(?<![\w\-])(pred|s\d+|u\d+|f\d+|bf16|f8e\w+|f4e\w+|c64|c128|token)\["
)
COLLECTIVES = {
    "all-reduce", "all-gather", "all-to-all", "ragged-all-to-all",
    "collective-permute", "collective-broadcast", "reduce-scatter",
}


SHAPE = re.compile(r"[a-z][a-z0-9]*\[[^\]]*\](?:\{[^}]*\})?")


def opcode_of(rest):
    """The opcode of an instruction's right-hand side (after `name =`): the
    word before `(` once the shape (a tuple, or `f32[2, 3]{1,0}`) is
    skipped; the shape may be left out."""
    i = 0
    if rest.startswith("("):
        depth = 0
        for i, ch in enumerate(rest):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0:
                break
        i += 1
    else:
        m = SHAPE.match(rest)
        i = m.end() if m else 0
    m = re.match(r"\s*([a-z][a-z0-9\-]*)\(", rest[i:])
    return m.group(1) if m else None


def without_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def instruction_ops(code):
    """The opcodes of the instructions in HLO text (one per line)."""
    ops = set()
    for line in code.splitlines():
        m = INSTRUCTION.match(line)
        if m:
            op = opcode_of(m.group(1))
            if op:
                ops.add(op)
    return ops


def element_types(code):
    """The element types HLO text names (`token` included)."""
    return sorted(set(ELEMENT_TYPE.findall(code)))


def classify(text, replicas):
    code = without_comments(text)
    ops = instruction_ops(code)
    # Out-of-scope opcodes wherever they are called, in case an instruction
    # is written in a way the line pattern above misses.
    out_of_scope = COLLECTIVES | {"replica-id", "partition-id", "send", "recv", "infeed", "outfeed"}
    for op in re.findall(r"(?<![\w.\-%])([a-z][a-z0-9\-]*)\(", code):
        if op in out_of_scope or op.removesuffix("-start").removesuffix("-done") in out_of_scope:
            ops.add(op)
    reasons = []
    base = {op[: -len("-start")] if op.endswith("-start") else op[: -len("-done")] if op.endswith("-done") else op for op in ops}
    if base & COLLECTIVES:
        reasons.append("collective")
    if {"replica-id", "partition-id"} & ops:
        reasons.append("replica-id")
    if {"send", "recv", "send-done", "recv-done"} & ops:
        reasons.append("send-recv")
    if {"infeed", "outfeed"} & ops:
        reasons.append("infeed-outfeed")
    if any(op.endswith(("-start", "-done", "-update")) for op in ops - {"send-done", "recv-done"}
           if op.split("-")[0] not in {"all", "collective", "reduce", "ragged"}):
        reasons.append("async")
    m = re.search(r"replica_count\s*=\s*(\d+)", code)
    if replicas > 1 or (m and int(m.group(1)) > 1):
        reasons.append("replica_count")
    m = re.search(r"num_partitions\s*=\s*(\d+)", code)
    if m and int(m.group(1)) > 1:
        reasons.append("num_partitions")
    shardings = re.findall(r"sharding=\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}", code)
    if any(s.strip() not in ("replicated", "") for s in shardings) or "domain" in ops:
        reasons.append("sharding")
    if re.search(r'custom_call_target="(Sharding|SPMDFullToShardShape|SPMDShardToFullShape)"', code):
        reasons.append("spmd-custom-call")
    # Bounded (`<=N`) or unbounded (`?`) dynamic dimensions.
    if "[<=" in code or re.search(r"\[[\d,]*<=", code) or re.search(r"\b[a-z]\w*\[[\d,<=]*\?[\d,<=?]*\]", code):
        reasons.append("dynamic-shape")
    types = element_types(code)
    scope = "single" if not reasons else "out:" + ",".join(reasons)
    return scope, types, sorted(ops)


def fnv64(data):
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def tsv_field(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


# ---------------------------------------------------------------------------
# What XLA itself makes of each module (--xla-check)
# ---------------------------------------------------------------------------
#
# jaxlib exposes XLA's HLO parser (`jaxlib._hlo.hlo_module_from_text`, which
# is `ParseAndReturnUnverifiedModule`) but not HloVerifier on its own, and
# its clients compile only MLIR. So a module goes through three stages, and
# the first that refuses it is recorded: XLA's parser; XLA's HLO-to-StableHLO
# importer (`_jax.mlir.hlo_to_stablehlo`); and compiling the result on
# XLA:CPU, which runs the StableHLO verifier, converts back to HLO and runs
# XLA's pass pipeline with HloVerifier as its invariant checker. A module
# refused at `compile` may be one XLA:CPU cannot compile rather than one XLA
# refuses as invalid: the message says which.

CHECK_TIMEOUT_S = 30

# Parser refusals that come from XLA having changed since the pinned commit,
# not from the text: `sparsity=` on dots was removed from XLA after it (the
# pinned commit's parser test round-trips DotSparseOperand).
PARSER_DRIFT = ['unexpected attribute "sparsity"']
# What the StableHLO verifier says when a module's shapes do not agree
# (operands against the result, a call's operands against its callee's
# parameters, broadcast dimensions against the operand's rank): the same
# checks HloVerifier makes, on the module after its import to StableHLO.
STABLEHLO_SHAPE_ERRORS = [
    "inferred shape",
    "op operand type mismatch",
    "does not match operand rank",
    "doesn't match function result type",
    "are not compatible",
]

# Modules whose xla_check cannot show what HloVerifier says of the text,
# because the import to StableHLO changes the construct it refuses, decided
# from HloVerifier's source at the pinned commit instead: `rng` with a third
# operand (the import reads it as the result's shape operand of
# `stablehlo.rng`, so the module that compiles has two), where
# xla/service/hlo_verifier.cc `ShapeVerifier::HandleRng` starts with
# `CheckOperandCount(instruction, 2)`.
VERIFIER_SOURCE = {
    f"hlo/transforms/tests/rng_expander.chunk{i}": "hlo_verifier.cc ShapeVerifier::HandleRng: "
    "CheckOperandCount(instruction, 2)"
    for i in range(1, 7)
}


# HloVerifier messages that are not about the module's validity but about
# the options the CPU compiler runs it with: mixed float precisions
# (`allow_mixed_precision`, which XLA's parser tests turn on) and the
# CPU/GPU target's own limits.
VERIFIER_OPTIONS = [
    "Seen floating point types of different precisions",
    "does not support custom element sizes",
    "Unbounded dynamism is disabled",
]


def is_parser_table_entry(source, test):
    """A module of the parser test's tables, which that test parses and
    runs HloVerifier on (`ParseAndReturnVerifiedModule`, mixed precision
    allowed): XLA at the pinned commit accepts it, whatever a later XLA
    or the StableHLO round trip says."""
    return source.endswith("hlo/parser/hlo_parser_test.cc") and re.fullmatch(r"\w+", test) is not None


def xla_says(check, module_id="", source="", test=""):
    """`refuses`, `accepts` or `unsure` from an xla_check verdict (and
    VERIFIER_SOURCE, and the parser test's tables)."""
    if module_id in VERIFIER_SOURCE:
        return "refuses"
    if is_parser_table_entry(source, test):
        return "accepts"
    if check == "ok":
        return "accepts"
    if check.startswith("parser: "):
        return "unsure" if any(d in check for d in PARSER_DRIFT) else "refuses"
    if any(o in check for o in VERIFIER_OPTIONS):
        return "unsure"
    if check.startswith("compile: ") and (
        "[hlo verifier]" in check
        or ("error: loc(" in check and any(e in check for e in STABLEHLO_SHAPE_ERRORS))
    ):
        return "refuses"
    return "unsure"


def module_text(path):
    """A module file without its provenance header."""
    text = path.read_text()
    return "".join(l for l in text.splitlines(True) if not l.startswith(HEADER_PREFIX))


def one_line(stage, error):
    lines = [l.strip() for l in str(error).splitlines() if l.strip()]
    msg = lines[0] if lines else type(error).__name__
    # The parser's message is on the line after "Syntax error when ...".
    detail = [l for l in lines[1:] if l.startswith("was parsing")]
    if msg.endswith(":") and detail:
        msg = detail[0]
    # StableHLO's verifier puts the location on the first line and the
    # message after it.
    if msg.startswith("UNKNOWN: <unknown>:0: error:") or msg.endswith("error:"):
        msg = " ".join(lines[:2])
    msg = re.sub(r"\s+", " ", msg)
    return f"{stage}: {msg[:300]}"


def check_worker():
    """Reads module paths on stdin; for each prints `BEGIN` and then the
    verdict (one line each), so that the parent can tell which module a
    crash happened on."""
    import jax
    from jax._src.lib import _jax, xla_client as xc
    import jaxlib._hlo as hlo

    jax.config.update("jax_platforms", "cpu")
    client = jax.devices("cpu")[0].client
    devices = xc.DeviceList(tuple(jax.devices("cpu")[:1]))
    print("READY", jax.__version__, flush=True)
    for line in sys.stdin:
        path = Path(line.rstrip("\n"))
        print("BEGIN", flush=True)
        try:
            module = hlo.hlo_module_from_text(module_text(path))
        except Exception as e:  # noqa: BLE001 (the verdict is the error)
            print(one_line("parser", e), flush=True)
            continue
        try:
            mlir = _jax.mlir.hlo_to_stablehlo(module.as_serialized_hlo_module_proto())
        except Exception as e:  # noqa: BLE001
            print(one_line("import", e), flush=True)
            continue
        try:
            client.compile_and_load(mlir, devices, xc.CompileOptions())
        except Exception as e:  # noqa: BLE001
            print(one_line("compile", e), flush=True)
            continue
        print("ok", flush=True)
    return 0


def xla_check(out_dir, python, only_failing):
    """Runs every module through XLA (in a worker process running `python`,
    restarted when XLA crashes on a module) and writes the `xla_check`
    column and the version it was made with."""
    import queue
    import threading

    path = out_dir / "manifest.tsv"
    lines = path.read_text().splitlines()
    head = [l for l in lines if l.startswith("#") and not l.startswith("# xla_check:")]
    cols, rows = read_tsv(path)
    assert cols == MANIFEST_COLUMNS[: len(cols)], f"{path}: columns {cols}"
    rows = [r + [""] * (len(MANIFEST_COLUMNS) - len(r)) for r in rows]
    todo = list(range(len(rows)))
    if only_failing:
        first, expected = read_tsv(out_dir / "expected.tsv")  # no column-name line
        failing = {r[0] for r in [first] + expected if r[1] != "ok"}
        todo = [i for i in todo if rows[i][0] in failing]
    version = None
    worker = None
    lines_from = queue.Queue()

    def start():
        nonlocal version
        w = subprocess.Popen(
            [python, str(Path(__file__).resolve()), "--xla-check-worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, bufsize=1,
        )
        ready = w.stdout.readline().split()
        assert ready[:1] == ["READY"], f"worker did not start: {ready}"
        version = ready[1]

        def pump(out):
            for line in out:
                lines_from.put((w, line))
            lines_from.put((w, ""))

        threading.Thread(target=pump, args=(w.stdout,), daemon=True).start()
        return w

    def read_line(w, timeout):
        try:
            while True:
                sender, line = lines_from.get(timeout=timeout)
                if sender is w:
                    return line
        except queue.Empty:
            return None

    for n, i in enumerate(todo):
        if worker is None:
            worker = start()
        row = rows[i]
        worker.stdin.write(str(out_dir / row[1]) + "\n")
        worker.stdin.flush()
        begin = read_line(worker, CHECK_TIMEOUT_S)
        verdict = read_line(worker, CHECK_TIMEOUT_S) if begin == "BEGIN\n" else None
        if not verdict:
            code = worker.poll()
            if code is None:
                worker.kill()
                worker.wait()
                verdict = f"crash: no verdict within {CHECK_TIMEOUT_S} s"
            else:
                verdict = f"crash: XLA ended the process (exit status {code})"
            worker = None
        row[MANIFEST_COLUMNS.index("xla_check")] = tsv_field(verdict.rstrip("\n"))
        row[MANIFEST_COLUMNS.index("xla_says")] = xla_says(row[MANIFEST_COLUMNS.index("xla_check")], row[0], row[2], row[3])
        print(f"[{n + 1}/{len(todo)}] {row[0]}: {row[-1]}: {row[-2][:120]}", file=sys.stderr)
    if worker is not None:
        worker.stdin.close()
        worker.wait()
    for row in rows:
        row[MANIFEST_COLUMNS.index("xla_says")] = xla_says(row[MANIFEST_COLUMNS.index("xla_check")], row[0], row[2], row[3])
    with path.open("w") as f:
        f.write("\n".join(head[:-1]) + "\n")
        f.write(f"# xla_check: jax/jaxlib {version} (XLA's parser, HLO-to-StableHLO importer and CPU compiler)\n")
        f.write(head[-1] + "\n")
        f.write("\t".join(MANIFEST_COLUMNS) + "\n")
        for row in rows:
            f.write("\t".join(row) + "\n")
    return 0


# ---------------------------------------------------------------------------


def read_tsv(path):
    rows = []
    for line in path.read_text().splitlines():
        if line and not line.startswith("#"):
            rows.append(line.split("\t"))
    return rows[0], rows[1:]


def reason(error):
    """An error's first line, with what varies between modules taken out."""
    e = re.sub(r"^\d+:\d+: ", "", error)
    for pattern in [
        r"unsupported op `[^`]*`",
        r"unknown opcode `[^`]*`",
        r"element type `[^`]*` is not supported",
        r"an HLO module starts with `HloModule <name>`, found `(/|ENTRY)`",
        r"expected a computation name, found `[:/]`",
    ]:
        m = re.search(pattern, e)
        if m:
            return m.group(0)
    if e.startswith("an HLO module starts with `HloModule <name>`, found"):
        return "an HLO module starts with `HloModule <name>`, found a computation"
    e = re.sub(r"`[^`]*`", "`..`", e)
    e = re.sub(r"\b[a-z]+\d*\[[^\]]*\]", "T[..]", e)
    return re.sub(r"\d+", "N", e)


CORE = {"pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f32", "f64"}


def summary(out_dir):
    """The tables of docs/coverage.md, from the manifest and expected.tsv."""
    cols, manifest = read_tsv(out_dir / "manifest.tsv")
    header, expected = read_tsv(out_dir / "expected.tsv")  # no column-name line
    outcome = {r[0]: r[1] for r in [header] + expected}
    mods = [dict(zip(cols, r)) for r in manifest]
    for m in mods:
        m["outcome"] = outcome.get(m["id"], "(not run)")

    def group_of(m):
        src = m["source"]
        if src.endswith("hlo_parser_test.cc"):
            return "parser tests (hlo_parser_test.cc)"
        if src.startswith("xla/tests/") and src.endswith(".cc"):
            return "xla/tests/*.cc"
        if "/cpu/" in src:
            return "CPU backend tests"
        return ".hlo / .hlotxt files"

    def table(title, rows):
        print(f"| {title} | parse and verify | of |\n|---|---:|---:|")
        for name, (p, t) in rows:
            print(f"| {name} | {p} | {t} |")
        print()

    candidates = [m for m in mods if m["scope"] == "single" and m["xla_expects"] != "invalid"]
    refused = [m for m in candidates if m.get("xla_says") == "refuses"]
    single = [m for m in candidates if m.get("xla_says") != "refuses"]
    ok = lambda ms: (sum(m["outcome"] == "ok" for m in ms), len(ms))  # noqa: E731
    def categories(m):
        """As tests/corpus/xla.rs groups them: a module is counted once per
        kind of non-core type it uses."""
        cats = set()
        for t in set(filter(None, m["element_types"].split(","))) - CORE:
            if t in ("bf16", "f16", "token"):
                cats.add(t)
            elif t in ("c64", "c128"):
                cats.add("complex (c64, c128)")
            elif t.startswith(("f8", "f4")):
                cats.add("float8/float4")
            else:
                cats.add("sub-byte int (s4, u4, s2, ...)")
        return cats

    by_types = {}
    for m in single:
        for c in categories(m):
            by_types.setdefault("with " + c, []).append(m)
    core = [m for m in single if not categories(m)]
    table("single-device modules XLA parses", [("all", ok(single)), ("f32/f64/int/pred only", ok(core))]
          + [(k, ok(v)) for k, v in sorted(by_types.items(), key=lambda kv: -len(kv[1]))])
    groups = {}
    for m in single:
        groups.setdefault(group_of(m), []).append(m)
    table("by source", [(k, ok(v)) for k, v in sorted(groups.items())])
    others = [m for m in single if categories(m)]
    for title, ms in [("f32/f64/int/pred-only modules", core), ("modules with other element types", others)]:
        reasons = {}
        for m in ms:
            if m["outcome"] != "ok":
                reasons.setdefault(reason(m["outcome"]), []).append(m["id"])
        print(f"| first error, {title} | modules | e.g. |\n|---|---:|---|")
        for r, ids in sorted(reasons.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            cell = r.replace("|", "\\|")
            print(f"| {cell} | {len(ids)} | `{ids[0]}` |")
        print()
    print("| still failing (single-device, XLA does not refuse) | oxla's error | XLA (xla_check) |\n|---|---|---|")
    for m in single:
        if m["outcome"] != "ok":
            first = re.sub(r"^\d+:\d+: ", "", m["outcome"])
            cells = [m["id"], first[:110] + ("..." if len(first) > 110 else ""), m.get("xla_check", "")[:90]]
            print("| " + " | ".join(c.replace("|", "\\|") for c in [f"`{cells[0]}`"] + cells[1:]) + " |")
    print()
    print(f"Refused by XLA itself ({len(refused)} modules its tests take as valid; not counted above):\n")
    print("| module | XLA (xla_check) | oxla |\n|---|---|---|")
    for m in refused:
        check = m["xla_check"][:120]
        if m["id"] in VERIFIER_SOURCE:
            check = f"{VERIFIER_SOURCE[m['id']]} (the run: `{check}` after import to StableHLO)"
        cells = [f"`{m['id']}`", check, "refuses" if m["outcome"] != "ok" else "**accepts**"]
        print("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    print()
    invalid = [m for m in mods if m["scope"] == "single" and m["xla_expects"] == "invalid"]
    accepted = [m["id"] for m in invalid if m["outcome"] == "ok"]
    print(f"XLA expects an error: {len(invalid) - len(accepted)} of {len(invalid)} refused (for any reason); accepted: "
          + ", ".join(f"`{a.split('/')[-1]}`" for a in accepted))
    out = [m for m in mods if m["scope"] != "single"]
    reasons = {}
    for m in out:
        for r in m["scope"][len("out:"):].split(","):
            reasons.setdefault(r, []).append(m)
    print(f"\nOut of scope: {len(out)} modules; {sum(m['outcome'] == 'ok' for m in out)} of them parse\n")
    print("| reason | modules | parse |\n|---|---:|---:|")
    for r, ms in sorted(reasons.items(), key=lambda kv: -len(kv[1])):
        print(f"| {r} | {len(ms)} | {sum(m['outcome'] == 'ok' for m in ms)} |")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--xla", type=Path, help="git directory of openxla/xla")
    parser.add_argument("--rev", default=PINNED_REV, help="the commit to read (default: the pinned one)")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--summary", action="store_true", help="print the coverage tables")
    parser.add_argument(
        "--xla-check", metavar="PYTHON",
        help="run every module through XLA (jaxlib, in PYTHON) and write the xla_check column",
    )
    parser.add_argument("--only-failing", action="store_true",
                        help="with --xla-check: only the modules expected.tsv does not record as ok")
    parser.add_argument("--xla-check-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.xla_check_worker:
        return check_worker()
    if args.summary:
        return summary(args.out)
    if args.xla_check:
        return xla_check(args.out, args.xla_check, args.only_failing)
    if args.xla is None:
        parser.error("--xla is required (or --summary)")

    commit = git(args.xla, "rev-parse", args.rev).decode().strip()
    date = git(args.xla, "show", "-s", "--format=%cs", commit).decode().strip()
    paths = git(args.xla, "ls-tree", "-r", "--name-only", commit).decode().splitlines()
    sources = select_sources(paths)
    blobs = read_blobs(args.xla, commit, sources)

    # What XLA made of a module text before (--xla-check) holds as long as
    # the text is the same.
    checked, check_line = {}, ""
    if (args.out / "manifest.tsv").exists():
        old_cols, old_rows = read_tsv(args.out / "manifest.tsv")
        if "xla_check" in old_cols:
            h, c = old_cols.index("fnv64"), old_cols.index("xla_check")
            checked = {r[h]: r[c] for r in old_rows if len(r) > c}
        check_line = next((l + "\n" for l in (args.out / "manifest.tsv").read_text().splitlines()
                           if l.startswith("# xla_check:")), "")
    modules_dir = args.out / "modules"
    if modules_dir.exists():
        shutil.rmtree(modules_dir)
    rows, templates, skipped = [], 0, []
    for path in sources:
        text = blobs[path]
        if text is None or text.startswith("version https://git-lfs"):
            skipped.append(path)
            continue
        if path.endswith(".cc"):
            found, t = modules_from_cc(path, text)
            templates += t
        else:
            found = modules_from_hlo_file(path, text)
        stem = re.sub(r"\.(cc|hlo|hlotxt)$", "", path[len("xla/") :])
        counts = {}
        for name, *_ in found:
            counts[name] = counts.get(name, 0) + 1
        seen = {}
        for name, body, verdict, error, replicas, note in found:
            seen[name] = seen.get(name, 0) + 1
            test = name if counts[name] == 1 else f"{name}.{seen[name]}"
            if path.endswith(".cc"):
                rel = f"{stem}/{test}.hlo"
            else:
                rel = f"{stem}.hlo" if test == "module" else f"{stem}.{test}.hlo"
            module_id = rel[: -len(".hlo")]
            scope, types, ops = classify(body, replicas)
            header = "".join(
                HEADER_PREFIX + line + "\n"
                for line in [
                    f"source openxla/xla {path} at {commit} ({date})",
                    f"test {test}",
                    *([note] if note else []),
                    "license Apache-2.0 (The OpenXLA Authors); unmodified test input below this header",
                ]
            )
            out = modules_dir / rel
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(header.encode() + body.encode())
            rows.append(
                [
                    module_id,
                    "modules/" + rel,
                    path,
                    test,
                    scope,
                    verdict,
                    ",".join(types),
                    ",".join(ops),
                    fnv64(body.encode()),
                    tsv_field(error),
                    checked.get(fnv64(body.encode()), ""),
                    xla_says(checked.get(fnv64(body.encode()), ""), module_id, path, test),
                ]
            )
    with (args.out / "manifest.tsv").open("w") as f:
        f.write(MANIFEST_HEADER)
        f.write(check_line)
        f.write(f"# openxla/xla {commit} ({date})\n")
        f.write("\t".join(MANIFEST_COLUMNS) + "\n")
        for row in sorted(rows):
            f.write("\t".join(row) + "\n")
    single = sum(r[4] == "single" for r in rows)
    print(
        f"{len(rows)} modules from {len(sources) - len(skipped)} files at {commit[:12]} ({date}): "
        f"{single} single-device; {templates} templates left out; "
        f"not text (LFS or missing): {skipped or 'none'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
