#!/usr/bin/env python3
"""Runs oxla's StableHLO export of `.hlo` test modules in XLA.

For every module of the given `.hlo` files (tests/hlo/, docs/testing.md)
that has `// run: <args> -> <expected>` lines, this script converts the
module with `oxla convert --to stablehlo`, parses, compiles and runs the
MLIR text with jaxlib's XLA (CPU) on each line's arguments, and compares
XLA's results with the line's expected values: integers and pred exactly,
floats bit for bit (so -0 is not +0) except that any NaN matches any NaN,
as the `.hlo` runner compares. A tuple result is compared leaf by leaf, in
the order StableHLO returns them (depth first).

So the exported text is checked twice: MLIR's parser and XLA's verifier
accept it, and XLA computes the values the test expects (the values the
interpreter is checked against). Modules that fail to convert, or whose
arguments are tuples, are reported.

Usage:
  ~/venvs/oxla-models/bin/python scripts/stablehlo_run_check.py \\
      --oxla target/debug/oxla tests/hlo/sort/*.hlo

Exits 1 if any line fails.
"""

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

DTYPES = {
    "pred": np.bool_,
    "s8": np.int8,
    "s16": np.int16,
    "s32": np.int32,
    "s64": np.int64,
    "u8": np.uint8,
    "u16": np.uint16,
    "u32": np.uint32,
    "u64": np.uint64,
    "f32": np.float32,
    "f64": np.float64,
}
UINT = {np.float32: np.uint32, np.float64: np.uint64}
MANTISSA = {np.float32: 23, np.float64: 52}


def modules(text):
    """(name, module text, [(line, args, expected)]) for each module."""
    lines = text.splitlines()
    headers = [i for i, l in enumerate(lines) if l.startswith("HloModule")]
    out = []
    start = 0
    for k, h in enumerate(headers):
        limit = headers[k + 1] if k + 1 < len(headers) else len(lines)
        end = max(
            (i for i in range(h, limit) if lines[i].strip() and not lines[i].lstrip().startswith("//")),
            default=h,
        )
        runs = []
        i = start
        while i <= end:
            t = lines[i].strip()
            if t.startswith("// run:") and t != "// run: compare":
                text_ = t[len("// run:"):].strip()
                j = i + 1
                while (
                    depth(text_) > 0
                    or text_.endswith(",")
                    or text_.endswith("->")
                    or (j < len(lines) and lines[j].strip().lstrip("/").strip().startswith("->"))
                ):
                    text_ += " " + lines[j].strip().lstrip("/").strip()
                    j += 1
                args, expected = split_top(text_, "->")
                runs.append((i + 1, split_top(args, ",") if args.strip() else [], expected))
                i = j
            else:
                i += 1
        module = "\n".join(l for l in lines[h : end + 1] if not l.lstrip().startswith("//"))
        name = lines[h].split()[1].rstrip(",")
        out.append((name, module + "\n", runs))
        start = end + 1
    return out


def depth(text):
    return sum(c in "{[(" for c in text) - sum(c in "}])" for c in text)


def split_top(text, sep):
    parts, d, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        d += c in "{[("
        d -= c in "}])"
        if d == 0 and text.startswith(sep, i):
            parts.append(text[start:i].strip())
            i += len(sep)
            start = i
            continue
        i += 1
    parts.append(text[start:].strip())
    return parts


def float_bits(token, dtype):
    """The bits of a float token (`nan(0x1)`, `-nan`, `inf`, `1.5`)."""
    negative = token.startswith("-")
    body = token.lstrip("+-")
    m = MANTISSA[dtype]
    bits = None
    if body == "nan":
        payload = 1 << (m - 1)
    elif body.startswith("nan(0x"):
        payload = int(body[6:-1], 16)
    else:
        return np.array([float(token)], dtype=dtype).view(UINT[dtype])[0]
    exponent = (1 << (8 if dtype is np.float32 else 11)) - 1
    bits = (exponent << m) | payload
    if negative:
        bits |= 1 << (31 if dtype is np.float32 else 63)
    return UINT[dtype](bits)


def literal(text):
    """A literal's text as a list of numpy arrays (its leaves)."""
    text = text.strip()
    if text.startswith("("):
        return [leaf for part in split_top(text[1:-1], ",") for leaf in literal(part)]
    m = re.match(r"(\w+)\[([\d,]*)\]\s*(.*)$", text, re.S)
    ty, dims, values = m.group(1), m.group(2), m.group(3)
    shape = tuple(int(d) for d in dims.split(",") if d)
    dtype = DTYPES[ty]
    tokens = re.findall(r"[^\s{},]+", values)
    if dtype in UINT:
        bits = np.array([float_bits(t, dtype) for t in tokens], dtype=UINT[dtype])
        return [bits.view(dtype).reshape(shape)]
    if dtype is np.bool_:
        return [np.array([t == "true" for t in tokens], dtype=dtype).reshape(shape)]
    return [np.array([int(t) for t in tokens], dtype=dtype).reshape(shape)]


def same(got, want):
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"{got.dtype}{list(got.shape)} where {want.dtype}{list(want.shape)} was expected"
    if want.dtype.type in UINT:
        g, w = got.reshape(-1), want.reshape(-1)
        gb, wb = g.view(UINT[want.dtype.type]), w.view(UINT[want.dtype.type])
        for i in range(len(g)):
            if np.isnan(g[i]) and np.isnan(w[i]):
                continue
            if gb[i] != wb[i]:
                return f"element {i} is {g[i]!r} where {w[i]!r} was expected"
        return None
    if not np.array_equal(got, want):
        return f"{got.tolist()} where {want.tolist()} was expected"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--oxla", required=True, help="the oxla binary")
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()

    import jax

    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_enable_x64", True)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from jax_interop import XlaRunner  # noqa: E402

    runner = XlaRunner(jax)
    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in args.files:
            for name, module, runs in modules(path.read_text()):
                if not runs:
                    continue
                src = Path(tmp) / f"{name}.hlo"
                src.write_text(module)
                r = subprocess.run(
                    [args.oxla, "convert", str(src), "--to", "stablehlo"],
                    capture_output=True,
                    text=True,
                )
                if r.returncode != 0:
                    print(f"FAIL {path}: {name}: convert: {r.stderr.strip()}")
                    failures += 1
                    continue
                for line, arg_texts, expected in runs:
                    checked += 1
                    inputs = [a for t in arg_texts for a in literal(t)]
                    want = literal(expected)
                    try:
                        got = runner.run(r.stdout, inputs)
                    except Exception as e:  # noqa: BLE001 (MLIR or XLA refused it)
                        print(f"FAIL {path}:{line}: {name}: {e}")
                        failures += 1
                        continue
                    problems = [
                        f"result {k}: {d}"
                        for k, (g, w) in enumerate(zip(got, want))
                        if (d := same(np.asarray(g), w))
                    ]
                    if len(got) != len(want):
                        problems.append(f"{len(got)} results where {len(want)} were expected")
                    if problems:
                        print(f"FAIL {path}:{line}: {name}: " + "; ".join(problems))
                        failures += 1
                    else:
                        print(f"ok   {path}:{line}: {name}")
    print(f"{checked} run lines, {failures} failing")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
