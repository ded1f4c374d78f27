#!/usr/bin/env python3
"""Writes tests/hlo/types/complex_special.hlo: complex `divide` and `abs`
on a grid of special values (signed zeros, infinities, NaN, huge and tiny magnitudes) in c64 and
c128, with the values JAX computes (jax.jit on the CPU: XLA:CPU's elemental
emitter).

    ~/venvs/oxla-models/bin/python scripts/complex_special.py

Deterministic: no random values.
"""

import math
import sys

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent))
from types_values import File, lit  # noqa: E402

jax.config.update("jax_enable_x64", True)

# Exact ops: every bit must match. Transcendental ones: `ulp` units.
# (The transcendental ones, sqrt, rsqrt, log, exp, power, are left out: the
# .hlo harness compares complex values bit for bit, its `ulp` option does
# not reach them yet, and their formulas differ from XLA's by an ulp.)
UNARY = [
    ("abs", jnp.abs, True, 0),
]


def parts(ftype):
    f = np.finfo(ftype)
    # Past sqrt(max), so that c² + d² would overflow; 1/huge stays normal.
    huge = 1e30 if ftype == np.float32 else 1e200
    tiny = float(f.tiny) * 4
    return [0.0, -0.0, 1.0, -2.5, math.inf, -math.inf, math.nan, huge, -tiny]


def grid(ftype, tiny=True):
    # Without the tiny part where results would be subnormal: XLA:CPU
    # flushes those to zero (docs/types.md), the interpreter does not.
    p = parts(ftype) if tiny else parts(ftype)[:-1]
    return [complex(a, b) for a in p for b in p]


def main():
    if jax.__version__ != "0.10.2":
        sys.exit(f"jax {jax.__version__}: this script writes values of jax 0.10.2")
    out = File(
        "complex_special",
        """
Complex divide and abs on special values (signed zeros, infinities, NaN,
huge and tiny parts) in c64 and c128: XLA:CPU's corner cases
(docs/types.md), with JAX's values written by scripts/complex_special.py.
Both ops are exact: every bit is compared.
""",
    )
    for cname, ctype, ftype in [("c64", np.complex64, np.float32),
                                ("c128", np.complex128, np.float64)]:
        g = np.array(grid(ftype, tiny=False), dtype=ctype)
        n = len(g)
        # divide: every pair of the grid.
        a = np.repeat(g, n)
        b = np.tile(g, n)
        want = np.asarray(jax.jit(lambda x, y: x / y)(a, b))
        out.module(f"divide on {cname}: every pair of special values.",
                   [lit(cname, a, ctype), lit(cname, b, ctype)], lit(cname, want, ctype),
                   [f"a = {cname}[{n * n}] parameter(0)", f"b = {cname}[{n * n}] parameter(1)",
                    f"ROOT r = {cname}[{n * n}] divide(a, b)"],
                   jit=cname != "c128")
        g = np.array(grid(ftype), dtype=ctype)
        n = len(g)
        for name, fn, real, ulp in UNARY:
            want = np.asarray(jax.jit(fn)(g))
            rty = ftype if real else ctype
            rname = ("f32" if cname == "c64" else "f64") if real else cname
            out.module(f"{name} on {cname}: special values.", [lit(cname, g, ctype)],
                       lit(rname, want, rty),
                       [f"a = {cname}[{n}] parameter(0)", f"ROOT r = {rname}[{n}] {name}(a)"],
                       ulp=ulp, jit=not (cname == "c128" and name == "abs"))
    out.write()


if __name__ == "__main__":
    main()
