#!/usr/bin/env python3
"""Writes tests/hlo/types/conv.hlo: `convolution` of bf16, f16 and s8
operands with results of their own type and of a wider one, with the
values JAX computes (`lax.conv_general_dilated(...,
preferred_element_type=...)`, jax.jit on the CPU: XLA:CPU's accumulation).

    ~/venvs/oxla-models/bin/python scripts/conv_values.py

Deterministic: a fixed seed.
"""

import sys
from pathlib import Path

import jax
import ml_dtypes
import numpy as np
from jax import lax

sys.path.insert(0, str(Path(__file__).resolve().parent))
from types_values import File, lit  # noqa: E402

RNG = np.random.default_rng(1314)

# (operand type name, numpy type, result type name, numpy type)
CASES = [
    ("bf16", ml_dtypes.bfloat16, "bf16", ml_dtypes.bfloat16),
    ("bf16", ml_dtypes.bfloat16, "f32", np.float32),
    ("f16", np.float16, "f16", np.float16),
    ("f16", np.float16, "f32", np.float32),
    ("s8", np.int8, "s32", np.int32),
    ("s8", np.int8, "s8", np.int8),
    ("s8", np.int8, "s16", np.int16),
]


def main():
    if jax.__version__ != "0.10.2":
        sys.exit(f"jax {jax.__version__}: this script writes values of jax 0.10.2")
    out = File(
        "conv",
        """
convolution of narrow operand types, with a result of the operands' type
or a wider one, against JAX (lax.conv_general_dilated with
preferred_element_type; scripts/conv_values.py). XLA:CPU sums as a dot of
the same types does: bf16 and f16 in f32, rounded once at the end (16
input features x a 3x3 window = 144 products per output, where a chain of
bf16 adds would land elsewhere), integers in the result type (s8 -> s8
wraps). Every bit is compared, except for the f32 results, summed in
another order than XLA's (within 128 ulps: an output near 0 is a sum of
terms near 1).
""",
    )
    x_shape, w_shape = (2, 16, 5, 5), (3, 16, 3, 3)
    for name, dt, rname, rdt in CASES:
        if name == "s8":
            x = RNG.integers(-128, 128, x_shape).astype(dt)
            w = RNG.integers(-128, 128, w_shape).astype(dt)
        else:
            x = RNG.uniform(-1, 1, x_shape).astype(dt)
            w = RNG.uniform(-1, 1, w_shape).astype(dt)
        pref = None if rdt == dt else rdt
        want = np.asarray(jax.jit(lambda a, b: lax.conv_general_dilated(
            a, b, (1, 1), "VALID", preferred_element_type=pref))(x, w))
        assert want.dtype == np.dtype(rdt), (want.dtype, rdt)
        n, k = x.size, w.size
        out.module(
            f"{name} x {name} -> {rname}: 2x16x5x5 by 3x16x3x3, stride 1, no padding.",
            [lit(name, x, dt), lit(name, w, dt)],
            lit(rname, want, rdt),
            [f"a = {name}[{n}] parameter(0)",
             f"b = {name}[{k}] parameter(1)",
             f"x = {name}[2,16,5,5] reshape(a)",
             f"w = {name}[3,16,3,3] reshape(b)",
             f"c = {rname}[2,3,3,3] convolution(x, w), window={{size=3x3}}, "
             "dim_labels=bf01_oi01->bf01",
             f"ROOT r = {rname}[{want.size}] reshape(c)"],
            # f32 sums of 144 terms in another order than XLA's
            # reduce-window: a few ulps, more where they cancel.
            ulp=128 if rname == "f32" else 0,
        )
        if name == "s8":
            # The JIT compiles integer convolutions: both backends run.
            last = len(out.parts) - 1 - out.parts[::-1].index("// jit: unsupported")
            del out.parts[last]
    out.write()


if __name__ == "__main__":
    main()
