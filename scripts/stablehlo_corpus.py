#!/usr/bin/env python3
"""Writes tests/data/stablehlo/: JAX's own StableHLO for the W1-W10
workloads and small models, with inputs and JAX's outputs, so that
crates/oxla-stablehlo/tests/ can check the StableHLO reader without Python.

For each case NAME it writes
  NAME.mlir          JAX's StableHLO (`jax.jit(f).lower(*args).as_text()`)
  NAME.generic.mlir  the same module in MLIR's generic op form
  NAME.hlo.txt       JAX's HLO text (`.compiler_ir('hlo').as_hlo_text()`)
  NAME.in<k>.npy     the k-th input (small, deterministic)
  NAME.out<k>.npy    JAX's k-th output (the outputs of a tuple, in order)
and, for a few cases, NAME.debug.mlir (`as_text(debug_info=True)`: every op
carries a `loc(...)`). cases.txt lists the cases, one per line, as
`NAME exact` (integer or exactly rounded ops only: oxla must match bit for
bit) or `NAME approx` (transcendental ops, reductions whose order may
differ, or a multiply feeding an add, which XLA's CPU backend contracts
into one fused multiply-add: oxla must match within the tolerance the
tests state).

The workloads are those of /work/shared/peers/xla_bench.py (W1-W9b, built
from jax.lax primitives with explicit broadcast_in_dim) and oxla-bench's W10
(a matrix product), at small sizes. The models use only ops oxla's IR has.

Older JAX versions print other forms (generic ops with `dense<...> :
tensor<Nxi64>` attributes, `mhlo.sharding` on every argument, ...). Run with
`--older` under an older JAX (any 0.4.x that pip still serves, e.g. 0.4.13
or 0.4.20, in a venv of its own) to add NAME.jax-VERSION.mlir for every case
that version can lower; the tests check those against the same outputs.

Usage: ~/venvs/oxla-models/bin/python scripts/stablehlo_corpus.py
       /path/to/old-jax-venv/bin/python scripts/stablehlo_corpus.py --older
Deterministic: the same JAX version writes the same files.
"""

import os
import sys
from functools import partial
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

# 64-bit types exist only with x64 on; every case states its dtypes.
jax.config.update("jax_enable_x64", True)

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "data" / "stablehlo"

F32 = np.float32


def rn(rng, *shape, dtype=F32):
    return rng.standard_normal(shape).astype(dtype)


def ints(rng, lo, hi, *shape, dtype=np.int32):
    return rng.integers(lo, hi, size=shape).astype(dtype)


# ---------------------------------------------------------------------------
# The workloads (xla_bench.py's W1-W9b, oxla-bench's W10), small
# ---------------------------------------------------------------------------


def w1(x, v):
    return lax.add(x, lax.broadcast_in_dim(v, x.shape, (1,)))


def w2(x, v):
    return lax.add(x, lax.broadcast_in_dim(v, x.shape, (0,)))


def w3(a, b):
    s = (a.shape[0], b.shape[1])
    return lax.add(lax.broadcast_in_dim(a, s, (0, 1)), lax.broadcast_in_dim(b, s, (0, 1)))


def w4(a, b):
    s = (a.shape[0], b.shape[1])
    return lax.add(lax.broadcast_in_dim(a, s, (0,)), lax.broadcast_in_dim(b, s, (0, 1)))


def w5(x, w, b):
    y = lax.add(lax.mul(x, lax.broadcast_in_dim(w, x.shape, (1,))),
                lax.broadcast_in_dim(b, x.shape, (0,)))
    return lax.max(y, lax.full_like(y, 0.0))


def w6(x, y):
    return lax.add(x, lax.broadcast_in_dim(y, x.shape, (1, 3)))


def w7(x, y):
    yb = lax.broadcast_in_dim(y, x.shape, (1,))
    return lax.select(lax.gt(x, yb), x, yb)


# lax.reduce with add/max is what lax.reduce_sum/reduce_max (which
# xla_bench.py calls, and which older JAX lacks) lower to.
def w9a(x):
    return lax.reduce(x, F32(0), lax.add, (1,))


def w9b(x):
    m = lax.reduce(x, F32(-np.inf), lax.max, (1,))
    e = lax.exp(lax.sub(x, lax.broadcast_in_dim(m, x.shape, (0,))))
    s = lax.reduce(e, F32(0), lax.add, (1,))
    return lax.div(e, lax.broadcast_in_dim(s, x.shape, (0,)))


def w10(x, y):
    return lax.dot(x, y)


# ---------------------------------------------------------------------------
# Models and op coverage
# ---------------------------------------------------------------------------


def mlp_layer(x, w, b):
    return jnp.maximum(x @ w + b, 0.0)


def mlp2(x, w1, b1, w2, b2):
    h = jax.nn.relu(x @ w1 + b1)
    return jax.nn.softmax(h @ w2 + b2, axis=-1)


def layer_norm(x, gamma, beta):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + F32(1e-5)) * gamma + beta


def softmax(x):
    return jax.nn.softmax(x, axis=-1)


def log_softmax(x):
    return jax.nn.log_softmax(x, axis=-1)


def gelu_tanh(x):
    return jax.nn.gelu(x, approximate=True)


def matmul_chain(a, b, c):
    return (a @ b) @ c, jnp.einsum("bij,bjk->bik", a[None], (b @ c)[None])


def scaled_tanh(x, *, scale):
    return jnp.tanh(x) * scale


if hasattr(lax, "composite"):  # JAX 0.4.31 and later
    scaled_tanh = partial(lax.composite, name="oxla.test.scaled_tanh")(scaled_tanh)


def composite(x):
    return scaled_tanh(x, scale=F32(2.0)) + F32(1.0)


def integer_ops(a, b, u, p):
    """Integer and pred ops, exact: JAX prints private helper functions
    (floor_divide, remainder, where) that the reader must inline."""
    q = jnp.floor_divide(a, b)
    r = jnp.remainder(a, b)
    s = (a << 2) ^ (b >> 1) | (a & 7)
    t = lax.shift_right_logical(u, np.uint8(3)) + u * np.uint8(3)
    w = jnp.where(p, a, -b)
    m = jnp.maximum(a, b) - jnp.minimum(a, b) + jnp.abs(a - b) * jnp.sign(a)
    c = jnp.clip(a, -3, 5)
    n = ~u ^ np.uint8(0x5A)
    logic = (p & (a > 0)) | ~p
    total = jnp.sum(a * b, axis=0, dtype=np.int32)
    prod = lax.reduce(b, np.int32(1), lax.mul, (1,))
    return q, r, s, t, w, m, c, n, logic, total, prod


def data_movement(x, i):
    """Shape ops, exact on floats: pad, slice, concatenate, reverse,
    transpose, reshape, broadcast, iota, convert, clamp, dot of 0/1 data."""
    a = lax.pad(x, F32(-1.5), [(1, -1, 1), (0, 2, 0)])
    b = lax.slice(x, (0, 1), (4, 3), (2, 1))
    c = lax.concatenate([x, x * F32(2.0)], 1)
    d = lax.rev(x, (0, 1))
    e = jnp.transpose(x).reshape(2, 6)
    f = lax.iota(np.int32, 5) * 3
    g = lax.convert_element_type(x * F32(10.0), np.int32)
    h = lax.clamp(F32(-0.5), x, F32(0.5))
    k = lax.broadcast(i, (2,))
    onehot = (lax.broadcasted_iota(np.int32, (4, 3), 0) == lax.slice(i, (0,), (3,))[None, :]).astype(F32)
    sel = onehot.T @ x
    return a, b, c, d, e, f, g, h, k, sel, lax.convert_element_type(x, np.float64)


def float_math(x, y):
    """Elementwise float ops and comparisons, within an ulp bound."""
    return (jnp.exp(x), jnp.log1p(jnp.abs(x)), jnp.expm1(x), jnp.sin(x), jnp.cos(x),
            jnp.sqrt(jnp.abs(y)), lax.rsqrt(jnp.abs(y) + F32(1.0)), jax.nn.sigmoid(x),
            jnp.arctan2(x, y), jnp.power(jnp.abs(x), y), jnp.floor(x), jnp.ceil(x),
            jnp.round(x), jnp.isfinite(x / y), x / y, x % y, jnp.maximum(x, y),
            (x < y) & (x != y) | (x >= y))


def f64_model(x, w):
    return jnp.tanh(x @ w) * 0.5 + jnp.sum(x, axis=1, keepdims=True)


def tuple_and_order(x, y):
    """Several results, one of them an argument passed through."""
    return y, x + y, (x * y).sum()


def misc_bits(a, u, x):
    """The misc family's bit-level ops, exact: popcount, count leading zeros,
    same-width bitcasts both ways, reduce_precision to bf16's and f16's
    formats, rounding half away from zero."""
    return (lax.population_count(a), lax.clz(u), lax.bitcast_convert_type(x, np.int32),
            lax.bitcast_convert_type(lax.bitcast_convert_type(x, np.int32) ^ np.int32(1), np.float32),
            lax.reduce_precision(x, exponent_bits=8, mantissa_bits=7),
            lax.reduce_precision(x * F32(1000.0), exponent_bits=5, mantissa_bits=10),
            lax.round(x * F32(4.0), lax.RoundingMethod.AWAY_FROM_ZERO))


def misc_float(x):
    """cbrt, tan and erf (`chlo.erf`), within an ulp."""
    return jnp.cbrt(x * F32(10.0)), jnp.tan(x), lax.erf(x * F32(2.0))


# name, function, input maker, exact, debug variant
CASES = [
    ("W1", w1, lambda r: (rn(r, 8, 16), rn(r, 16)), True, False),
    ("W2", w2, lambda r: (rn(r, 8, 16), rn(r, 8)), True, False),
    ("W3", w3, lambda r: (rn(r, 8, 1), rn(r, 1, 16)), True, False),
    ("W4", w4, lambda r: (rn(r, 8), rn(r, 1, 16)), True, False),
    ("W5", w5, lambda r: (rn(r, 8, 16), rn(r, 16), rn(r, 8)), False, False),
    ("W6", w6, lambda r: (rn(r, 4, 3, 5, 2), rn(r, 3, 2)), True, False),
    ("W7", w7, lambda r: (rn(r, 8, 16), rn(r, 16)), True, False),
    ("W8", w1, lambda r: (rn(r, 16, 16), rn(r, 16)), True, False),
    ("W9a", w9a, lambda r: (rn(r, 8, 16),), False, False),
    ("W9b", w9b, lambda r: (rn(r, 8, 16),), False, False),
    ("W10", w10, lambda r: (rn(r, 8, 8), rn(r, 8, 8)), False, False),
    ("mlp_layer", mlp_layer, lambda r: (rn(r, 4, 8), rn(r, 8, 16), rn(r, 16)), False, True),
    ("mlp2", mlp2,
     lambda r: (rn(r, 4, 8), rn(r, 8, 16), rn(r, 16), rn(r, 16, 5), rn(r, 5)), False, False),
    ("layer_norm", layer_norm, lambda r: (rn(r, 4, 16), rn(r, 16), rn(r, 16)), False, True),
    ("softmax", softmax, lambda r: (rn(r, 4, 10),), False, False),
    ("log_softmax", log_softmax, lambda r: (rn(r, 4, 10),), False, False),
    ("gelu_tanh", gelu_tanh, lambda r: (rn(r, 4, 16),), False, False),
    ("matmul_chain", matmul_chain, lambda r: (rn(r, 4, 6), rn(r, 6, 5), rn(r, 5, 3)), False, False),
    ("composite", composite, lambda r: (rn(r, 3, 4),), False, False),
    ("integer_ops", integer_ops,
     lambda r: (ints(r, -20, 20, 3, 4), ints(r, 1, 9, 3, 4), ints(r, 0, 255, 3, 4, dtype=np.uint8),
                r.integers(0, 2, size=(3, 4)).astype(bool)), True, False),
    ("data_movement", data_movement, lambda r: (rn(r, 4, 3), ints(r, 0, 4, 4)), True, False),
    ("float_math", float_math, lambda r: (rn(r, 3, 5), rn(r, 3, 5)), False, False),
    ("f64_model", f64_model, lambda r: (rn(r, 3, 4, dtype=np.float64), rn(r, 4, 2, dtype=np.float64)),
     False, False),
    ("tuple_and_order", tuple_and_order, lambda r: (rn(r, 2, 3), rn(r, 2, 3)), False, False),
    ("misc_bits", misc_bits,
     lambda r: (ints(r, -2**31, 2**31 - 1, 3, 4), ints(r, 0, 2**32 - 1, 3, 4, dtype=np.uint32),
                rn(r, 3, 4)), True, False),
    ("misc_float", misc_float, lambda r: (rn(r, 4, 5),), False, False),
]


def generic_text(lowered):
    module = lowered.compiler_ir("stablehlo")
    return module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False)


def older():
    """Writes NAME.jax-VERSION.mlir, leaving every other file alone."""
    version = jax.__version__
    written = 0
    for seed, (name, fn, make, _exact, _debug) in enumerate(CASES):
        rng = np.random.default_rng(1000 + seed)
        try:
            text = jax.jit(fn).lower(*make(rng)).as_text()
        except Exception as e:  # noqa: BLE001 - an older JAX lacks a feature
            print(f"{name}: skipped under jax {version}: {type(e).__name__}: {e}")
            continue
        (OUT / f"{name}.jax-{version}.mlir").write_text(text)
        written += 1
    print(f"wrote {written} cases for jax {version}")


def main():
    if "--older" in sys.argv[1:]:
        return older()
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.iterdir():
        if ".jax-" in old.name:
            continue  # written by --older under another JAX version
        if old.suffix in (".mlir", ".npy") or old.name.endswith(".hlo.txt"):
            old.unlink()
    lines = [
        "# Written by scripts/stablehlo_corpus.py with jax " + jax.__version__ + ".",
        "# NAME exact|approx: exact cases must match JAX bit for bit.",
    ]
    for seed, (name, fn, make, exact, debug) in enumerate(CASES):
        rng = np.random.default_rng(1000 + seed)
        args = make(rng)
        lowered = jax.jit(fn).lower(*args)
        (OUT / f"{name}.mlir").write_text(lowered.as_text())
        (OUT / f"{name}.generic.mlir").write_text(generic_text(lowered))
        (OUT / f"{name}.hlo.txt").write_text(lowered.compiler_ir("hlo").as_hlo_text())
        if debug:
            text = lowered.as_text(debug_info=True)
            # Source paths would make the file depend on where the repo is.
            text = text.replace(str(REPO), "REPO")
            (OUT / f"{name}.debug.mlir").write_text(text)
        for k, a in enumerate(args):
            np.save(OUT / f"{name}.in{k}.npy", a)
        outs = jax.jit(fn)(*args)
        outs = outs if isinstance(outs, tuple) else (outs,)
        for k, o in enumerate(outs):
            np.save(OUT / f"{name}.out{k}.npy", np.asarray(o))
        lines.append(f"{name} {'exact' if exact else 'approx'}")
    (OUT / "cases.txt").write_text("\n".join(lines) + "\n")
    total = sum(p.stat().st_size for p in OUT.iterdir())
    print(f"wrote {len(CASES)} cases to {OUT.relative_to(REPO)} ({total / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
