#!/usr/bin/env python3
"""Writes tests/hlo/misc/reduce_precision_f8.hlo: reduce-precision on every
value of each float8 kind (and f4e2m1fn), in several formats, with the bits
JAX 0.10.2 computes on the CPU. Inputs and outputs are the bit patterns
(u8), bitcast to and from the kind, so the comparison is bit for bit.

Usage: ~/venvs/oxla-models/bin/python scripts/reduce_precision_f8.py
"""

import os
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests/hlo/misc/reduce_precision_f8.hlo"
KINDS = [
    ("f8e4m3fn", "float8_e4m3fn"), ("f8e5m2", "float8_e5m2"), ("f8e4m3", "float8_e4m3"),
    ("f8e3m4", "float8_e3m4"), ("f8e4m3fnuz", "float8_e4m3fnuz"),
    ("f8e5m2fnuz", "float8_e5m2fnuz"), ("f8e4m3b11fnuz", "float8_e4m3b11fnuz"),
    ("f8e8m0fnu", "float8_e8m0fnu"),
]
FORMATS = [(2, 1), (3, 0), (4, 2), (5, 10), (8, 23)]


def main():
    parts = [
        "// reduce-precision on the float8 kinds: every non-NaN value of each kind,\n"
        "// in several formats, against JAX 0.10.2 on the CPU (written by\n"
        "// scripts/reduce_precision_f8.py). XLA:CPU widens a float8 value to f16\n"
        "// (f32 for f8e8m0fnu), rounds there, and rounds back: e5m10 keeps f16\n"
        "// subnormals, so e5m2's smallest values stay. NaN inputs are left out\n"
        "// (XLA:CPU's payloads there are an artefact of its conversions; oxla\n"
        "// gives the kind's NaN). Results that are NaN are compared as bits.\n"
        "// The JIT runs these as converts around integer steps on the f16 bits\n"
        "// (oxla_ir::passes::narrow).\n"
    ]
    bits = np.arange(256, dtype=np.uint8)
    for hlo, ml in KINDS:
        dt = getattr(ml_dtypes, ml)
        # NaN inputs are left out: XLA:CPU's NaN payloads there come from
        # its conversions (0x7F in e5m2, 0x7C in e4m3 for any NaN), which
        # oxla does not reproduce bit for bit (it gives the kind's NaN).
        keep = ~np.isnan(bits.view(dt).astype(np.float32))
        x = bits[keep].view(dt)
        bits_k = bits[keep]
        n = len(bits_k)
        outs = []
        for e, m in FORMATS:
            r = np.asarray(jax.jit(lambda a, e=e, m=m: lax.reduce_precision(a, e, m))(x))
            outs.append(r.view(np.uint8))
        ins = ", ".join(str(int(b)) for b in bits_k)
        res = ", ".join(f"u8[{n}] {{" + ", ".join(str(int(b)) for b in o) + "}" for o in outs)
        lines = [f"\n// run: u8[{n}] {{{ins}}}", f"//   -> ({res})", f"HloModule rp_{hlo}", "",
                 f"ENTRY rp_{hlo} {{", f"  bits = u8[{n}] parameter(0)",
                 f"  x = {hlo}[{n}] bitcast-convert(bits)"]
        names = []
        for k, (e, m) in enumerate(FORMATS):
            lines.append(f"  r{k} = {hlo}[{n}] reduce-precision(x), exponent_bits={e}, mantissa_bits={m}")
            lines.append(f"  b{k} = u8[{n}] bitcast-convert(r{k})")
            names.append(f"b{k}")
        tup = ", ".join(f"u8[{n}]" for _ in names)
        lines.append(f"  ROOT t = ({tup}) tuple({', '.join(names)})")
        lines.append("}")
        parts.append("\n".join(lines) + "\n")
    OUT.write_text("".join(parts))


if __name__ == "__main__":
    main()
