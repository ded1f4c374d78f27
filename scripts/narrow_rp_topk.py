#!/usr/bin/env python3
"""Writes tests/hlo/misc/reduce_precision_half.hlo: reduce-precision of bf16
and f16 on a spread of bit patterns (every exponent with several mantissas,
subnormals, infinities, NaNs with payloads and signs) in several formats,
and topk of bf16, f16, f8e4m3fn and s4 rows with ties, signed zeros and
NaNs, with the bits JAX 0.10.2 computes on the CPU. Floats go in and out
as their bit patterns (bitcast), so the comparison is bit for bit.

Usage: ~/venvs/oxla-models/bin/python scripts/narrow_rp_topk.py
"""

import os
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests/hlo/misc/reduce_precision_half.hlo"
FORMATS = [(2, 1), (3, 0), (4, 3), (5, 2), (5, 10), (8, 7), (8, 0)]


def patterns(man_bits):
    """Bit patterns of a 16-bit float with `man_bits` mantissa bits."""
    exp_bits = 15 - man_bits
    out = set()
    top = (1 << exp_bits) - 1
    # Every f16 exponent; bf16's lowest, highest and those around 1.
    exps = range(top + 1) if exp_bits <= 5 else [*range(12), *range(112, 144), *range(top - 11, top + 1)]
    for e in exps:
        for m in [0, 1, 2, 3, (1 << man_bits) // 2 - 1, (1 << man_bits) // 2,
                  (1 << man_bits) // 2 + 1, (1 << man_bits) - 2, (1 << man_bits) - 1,
                  0b0101 << max(man_bits - 4, 0), 0b1011 << max(man_bits - 4, 0)]:
            m &= (1 << man_bits) - 1
            v = (e << man_bits) | m
            out.add(v)
            out.add(v | 0x8000)
    return np.array(sorted(out), dtype=np.uint16)


def main():
    parts = [
        "// reduce-precision of bf16 and f16 (on their own bits: round the\n"
        "// mantissa to nearest even, then exponents past the narrower range to\n"
        "// infinity and those at or below its smallest normal to signed zero; a\n"
        "// NaN stays the same NaN), on every exponent with several mantissas, in\n"
        "// several formats (NaN inputs left out: JAX gives bf16's canonical NaN,\n"
        "// the interpreter keeps the payload); and topk of the narrow types\n"
        "// (total order: -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN; ties\n"
        "// keep the lower index).\n"
        "// Against JAX 0.10.2 on the CPU (written by scripts/narrow_rp_topk.py);\n"
        "// floats as bit patterns. The JIT runs them as primitives\n"
        "// (oxla_ir::passes::narrow).\n"
    ]
    for hlo, dt, man in [("bf16", ml_dtypes.bfloat16, 7), ("f16", np.float16, 10)]:
        bits = patterns(man)
        # NaN inputs are left out: JAX 0.10.2 gives bf16's canonical NaN
        # (0x7FC0) where the interpreter keeps the payload.
        bits = bits[~np.isnan(bits.view(dt).astype(np.float32))]
        x = bits.view(dt)
        n = len(bits)
        outs = []
        for e, m in FORMATS:
            r = np.asarray(jax.jit(lambda a, e=e, m=m: lax.reduce_precision(a, e, m))(x))
            outs.append(r.view(np.uint16))
        ins = ", ".join(str(int(b)) for b in bits)
        res = ", ".join(f"u16[{n}] {{" + ", ".join(str(int(b)) for b in o) + "}" for o in outs)
        lines = [f"\n// run: u16[{n}] {{{ins}}}", f"//   -> ({res})", f"HloModule rp_{hlo}", "",
                 f"ENTRY rp_{hlo} {{", f"  bits = u16[{n}] parameter(0)",
                 f"  x = {hlo}[{n}] bitcast-convert(bits)"]
        names = []
        for k, (e, m) in enumerate(FORMATS):
            lines.append(f"  r{k} = {hlo}[{n}] reduce-precision(x), exponent_bits={e}, mantissa_bits={m}")
            lines.append(f"  b{k} = u16[{n}] bitcast-convert(r{k})")
            names.append(f"b{k}")
        tup = ", ".join(f"u16[{n}]" for _ in names)
        lines.append(f"  ROOT t = ({tup}) tuple({', '.join(names)})")
        lines.append("}")
        parts.append("\n".join(lines) + "\n")

    # topk: rows with ties, signed zeros, infinities and NaNs.
    rng = np.random.default_rng(14)
    specials = [0.0, -0.0, 1.0, 1.0, -1.0, np.inf, -np.inf, 0.5, 0.5, -2.0, 3.0, np.nan, -np.nan]
    for hlo, dt, ub in [("bf16", ml_dtypes.bfloat16, "u16"), ("f16", np.float16, "u16"),
                        ("f8e4m3fn", ml_dtypes.float8_e4m3fn, "u8")]:
        rows = []
        for r in range(3):
            row = list(rng.choice(specials, size=10)) + list(rng.integers(-4, 5, size=6) / 2)
            rng.shuffle(row)
            rows.append(row)
        x = np.array(rows, dtype=np.float32).astype(dt)
        # -nan: set the sign bit of NaNs in row 1.
        xb = x.view(np.uint16 if ub == "u16" else np.uint8).copy()
        nan = np.isnan(x.astype(np.float32))
        sign = 0x8000 if ub == "u16" else 0x80
        xb[1][nan[1]] |= sign
        x = xb.view(dt)
        for largest, k in [(True, 5), (False, 4)]:
            if largest:
                v, i = jax.jit(lambda a, k=k: lax.top_k(a, k))(x)
            else:
                v, i = jax.jit(lambda a, k=k: lax.top_k(-a.astype(np.float32), k))(x)
                # topk of the smallest: indices of the negated f32 values
                # (exact), values gathered from the input.
                v = np.take_along_axis(np.asarray(x), np.asarray(i), axis=1)
            vb = np.asarray(v).view(xb.dtype)
            name = f"topk_{hlo}_{'largest' if largest else 'smallest'}"
            fmt = lambda a: "{" + ", ".join("{" + ", ".join(str(int(e)) for e in row) + "}" for row in a) + "}"
            lines = [f"\n// run: {ub}[3,16] {fmt(xb)}",
                     f"//   -> ({ub}[3,{k}] {fmt(vb)}, s32[3,{k}] {fmt(np.asarray(i))})",
                     f"HloModule {name}", "", f"ENTRY {name} {{",
                     f"  bits = {ub}[3,16] parameter(0)",
                     f"  x = {hlo}[3,16] bitcast-convert(bits)",
                     f"  t = ({hlo}[3,{k}], s32[3,{k}]) topk(x), k={k}, largest={'true' if largest else 'false'}",
                     f"  v = {hlo}[3,{k}] get-tuple-element(t), index=0",
                     f"  i = s32[3,{k}] get-tuple-element(t), index=1",
                     f"  vb = {ub}[3,{k}] bitcast-convert(v)",
                     f"  ROOT r = ({ub}[3,{k}], s32[3,{k}]) tuple(vb, i)", "}"]
            parts.append("\n".join(lines) + "\n")
    OUT.write_text("".join(parts))


if __name__ == "__main__":
    main()
