#!/usr/bin/env python3
"""Writes tests/data/stablehlo/chlo/: JAX's StableHLO for each CHLO math op
that JAX leaves in its output (chlo.erfc, chlo.lgamma, ...), with inputs that
reach every branch of XLA's expansion (zero, +-1, the polynomial ranges,
large values, infinities, NaN, poles) and the values JAX computes on the CPU.

For each case NAME (`<op>_<dtype>`) it writes
  NAME.mlir       `jax.jit(f).lower(*args).as_text()`
  NAME.in<k>.npy  the inputs
  NAME.out0.npy   JAX's output
and cases.txt lists them with the largest error, in ulps of the output
type, that oxla's expansion is allowed (0 = bit-exact). The Rust test
crates/oxla-stablehlo/tests/stablehlo/chlo.rs reads them without Python.

Usage: ~/venvs/oxla-models/bin/python scripts/chlo_corpus.py
Deterministic: the same JAX version writes the same files.
"""

import os
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests/data/stablehlo/chlo"

INF, NAN = np.inf, np.nan
GENERAL = [0.0, -0.0, 1e-30, 1e-8, 0.1, -0.3, 0.5, 0.99, 1.0, -1.0, 1.5, 2.0,
           -2.5, 3.7, 7.9, 8.1, -10.0, 27.0, 90.0, 1e10, 1e30, INF, -INF, NAN]
UNIT = [0.0, -0.0, 1e-30, 1e-8, 0.1, -0.3, 0.5, -0.75, 0.9, 0.99, 0.9999,
        -0.999999, 1.0, -1.0, 1.5, -2.0, INF, NAN]
GAMMA = [0.0, -0.0, 1e-8, 0.1, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 7.5, 10.0,
         100.0, 1e5, -0.5, -1.0, -1.5, -2.0, -2.25, -7.9, -100.5, INF, -INF, NAN]

# name, jax function, input values, ulps allowed (f32, f64).
UNARY = [
    ("erfc", lax.erfc, GENERAL, (2, 2)),
    ("erf_inv", lax.erf_inv, UNIT, (2, 2)),
    ("acos", lax.acos, UNIT, (2, 2)),
    ("asin", lax.asin, UNIT, (2, 2)),
    ("atan", lax.atan, GENERAL, (2, 2)),
    ("acosh", lax.acosh, [1.0, 1.0001, 1.5, 2.0, 10.0, 1e10, 1e30, 0.5, -2.0, INF, NAN], (2, 2)),
    ("asinh", lax.asinh, GENERAL, (2, 2)),
    ("atanh", lax.atanh, UNIT, (2, 2)),
    ("cosh", lax.cosh, GENERAL, (2, 2)),
    ("sinh", lax.sinh, GENERAL, (2, 2)),
    ("lgamma", lax.lgamma, GAMMA, (4, 4)),
    ("digamma", lax.digamma, GAMMA, (4, 4)),
]


def save_npy(path, a):
    """np.save, except that a bf16 array's header names its type as
    ml_dtypes does ('bfloat16'; numpy alone writes a bare '<V2')."""
    a = np.asarray(a)
    if a.dtype != np.dtype(ml_dtypes.bfloat16):
        np.save(path, a, allow_pickle=False)
        return
    with open(path, "wb") as f:
        header = {"descr": "bfloat16", "fortran_order": False, "shape": a.shape}
        np.lib.format.write_array_header_1_0(f, header)
        f.write(a.tobytes(order="C"))


def write(name, f, args):
    text = jax.jit(f).lower(*args).as_text()
    (OUT / f"{name}.mlir").write_text(text)
    for k, a in enumerate(args):
        save_npy(OUT / f"{name}.in{k}.npy", a)
    outs = jax.tree_util.tree_leaves(jax.jit(f)(*args))
    for k, o in enumerate(outs):
        save_npy(OUT / f"{name}.out{k}.npy", np.asarray(o))


def complex_program(a, b):
    """Complex numbers as JAX writes them: stablehlo.complex, complex
    constants (a splat and a list), arithmetic, real/imag/abs, conj, and
    the four FFTs over one and two dimensions."""
    cdt = jnp.complex64 if a.dtype == jnp.float32 else jnp.complex128
    z = lax.complex(a, b)
    w = z * cdt(1 + 2j) + jnp.array([1j, 2, 3, -4j], cdt)
    return (jnp.fft.fft(w), jnp.fft.ifft(w), jnp.fft.rfft(a), jnp.fft.irfft(w),
            lax.real(w), lax.imag(w), jnp.abs(w), jnp.conj(w), jnp.fft.fft2(w),
            jnp.exp(w), w * w / (z + 3))


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    lines = ["# NAME ULPS: the case and the error oxla may have, in ulps of the",
             "# output type (0 = bit-exact). Written by scripts/chlo_corpus.py."]
    for op, f, values, (u32, u64) in UNARY:
        for dt, ulps in ((np.float32, u32), (np.float64, u64)):
            name = f"{op}_{np.dtype(dt).name}"
            write(name, f, [np.array(values, dt)])
            lines.append(f"{name} {ulps}")
        # bf16: computed as XLA computes it (upcast or not), then rounded.
        name = f"{op}_bfloat16"
        write(name, f, [np.array(values, np.float32).astype(ml_dtypes.bfloat16)])
        lines.append(f"{name} 1")
    # next_after: exact bit stepping.
    xs = [0.0, -0.0, 0.0, 1.0, 1.0, -1.0, 1e-45, 3.0, INF, -INF, NAN, 2.0, 5.0]
    ys = [1.0, -1.0, -0.0, 2.0, 0.0, -2.0, 0.0, 3.0, 0.0, 0.0, 1.0, NAN, 5.0]
    for dt in (np.float32, np.float64):
        name = f"next_after_{np.dtype(dt).name}"
        write(name, lax.nextafter, [np.array(xs, dt), np.array(ys, dt)])
        lines.append(f"{name} 0")
    # Complex numbers and fft, c64 and c128.
    a = np.array([[0.5, -1.0, 2.0, 3.5], [0.0, 1.25, -2.5, 4.0]])
    b = np.array([[1.0, 0.0, -0.5, 2.0], [3.0, -1.5, 0.25, -4.0]])
    for dt, ulps in ((np.float32, 4), (np.float64, 4)):
        name = f"complex_fft_{np.dtype(dt).name}"
        write(name, complex_program, [a.astype(dt), b.astype(dt)])
        lines.append(f"{name} {ulps}")
    (OUT / "cases.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
