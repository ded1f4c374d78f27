#!/usr/bin/env python3
"""JAX interop checks for oxla, in both directions.

JAX -> oxla: functions written in JAX (an MLP layer, layer norm, softmax,
gelu in its tanh and exact forms, the peers' W1/W5/W9b) are lowered with
`jax.jit(f).lower(*args)`; the HLO text JAX prints
(`.as_text(dialect="hlo")`) and XLA's optimized HLO (`.compile().as_text()`)
are run with `oxla run --backend interp` (and `--backend jit` when the binary
has the JIT) on the same inputs, and compared with JAX's own result.

oxla -> JAX: HLO modules (the files under tests/data/hlo/small/ and modules
written below in oxla's dialect, with `broadcast_dimensions` on binary ops)
are converted with `oxla convert --to stablehlo`; the MLIR text is parsed,
compiled and run by XLA through jaxlib, and compared with `oxla run` on the
same inputs.

An op oxla does not have (JAX's `call` of a nested jit) must be
refused with oxla's "unsupported op" parse error: such a check passes as
`unsupported (expected)` and fails if oxla fails in any other way, or starts
to accept the module (then turn it into a value check).

Usage (what `just jax-check` runs):
  .venv-jax/bin/python scripts/jax_interop.py --oxla target/release/oxla \
      --work target/jax-interop --report docs/jax-interop.md

Prints the Markdown report, writes it to --report if given, and exits 1 if
any check fails (2 for a usage or environment error). Needs Python 3.9+,
numpy and jax/jaxlib (versions pinned in the Justfile's `jax-check`).
"""

import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
DATA_DIR = REPO / "tests" / "data" / "hlo" / "small"

# Tolerances: |actual - expected| <= ATOL + RTOL * |expected|, elementwise.
TOLERANCE = {
    np.dtype(np.float32): (1e-5, 1e-6),
    np.dtype(np.float64): (1e-12, 1e-14),
}

# The marker the Rust test (crates/oxla-cli/tests/jax_interop.rs) looks for.
MARKER = "<!-- jax-interop: status={status} fingerprint={fingerprint} checks={checks} -->"


def fingerprint():
    """FNV-1a 64 over this script and the data modules it reads (names and
    bytes, in sorted order), as 16 hex digits. The Rust test computes the
    same value to tell whether docs/jax-interop.md records the current list
    of checks."""
    h = 0xCBF29CE484222325
    chunks = [Path(__file__).resolve().read_bytes()]
    for p in sorted(DATA_DIR.iterdir()) if DATA_DIR.is_dir() else []:
        if p.is_file():
            chunks.append(p.name.encode() + b"\0" + p.read_bytes())
    for chunk in chunks:
        for byte in chunk:
            h ^= byte
            h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


# ---------------------------------------------------------------------------
# Modules in oxla's dialect (oxla -> JAX). Binary ops carry
# broadcast_dimensions; `oxla convert --to stablehlo` makes every broadcast
# explicit (stablehlo.broadcast_in_dim).
# ---------------------------------------------------------------------------

OXLA_MODULES = {
    # XLA's broadcasting text: "matrix + vector" with (1) and with (0).
    "bcast_matrix_vector_d1": """
HloModule bcast_matrix_vector_d1
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[3]{0} parameter(1)
  ROOT r = f32[2,3]{1,0} add(x, v), broadcast_dimensions={1}
}
""",
    "bcast_matrix_vector_d0": """
HloModule bcast_matrix_vector_d0
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  v = f32[2]{0} parameter(1)
  ROOT r = f32[2,3]{1,0} add(x, v), broadcast_dimensions={0}
}
""",
    # 2x3x4 + 3x4 with (1,2).
    "bcast_rank3_matrix_d12": """
HloModule bcast_rank3_matrix_d12
ENTRY main {
  x = f32[2,3,4]{2,1,0} parameter(0)
  m = f32[3,4]{1,0} parameter(1)
  ROOT r = f32[2,3,4]{2,1,0} multiply(x, m), broadcast_dimensions={1,2}
}
""",
    # Composition: f32[4] + f32[1,2] with (0) gives f32[4,2] (InDim, then
    # the size-1 dimension stretches).
    "bcast_composition_4_1x2": """
HloModule bcast_composition_4_1x2
ENTRY main {
  a = f32[4]{0} parameter(0)
  b = f32[1,2]{1,0} parameter(1)
  ROOT r = f32[4,2]{1,0} add(a, b), broadcast_dimensions={0}
}
""",
    # Composition: f32[1,2] + f32[4,3,1] with (1,2) gives f32[4,3,2].
    "bcast_composition_1x2_4x3x1": """
HloModule bcast_composition_1x2_4x3x1
ENTRY main {
  a = f32[1,2]{1,0} parameter(0)
  b = f32[4,3,1]{2,1,0} parameter(1)
  ROOT r = f32[4,3,2]{2,1,0} subtract(a, b), broadcast_dimensions={1,2}
}
""",
    # Degenerate x degenerate (outer op) and a scalar operand.
    "bcast_outer_and_scalar": """
HloModule bcast_outer_and_scalar
ENTRY main {
  a = f32[5,1]{1,0} parameter(0)
  b = f32[1,7]{1,0} parameter(1)
  s = f32[] parameter(2)
  o = f32[5,7]{1,0} add(a, b)
  ROOT r = f32[5,7]{1,0} multiply(o, s)
}
""",
    # Reductions: compact reducers (add, max, min, and) and one whose body is
    # not a single op of its parameters in order, printed as a region.
    "reduce": """
HloModule reduce
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
add_swapped {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(b, a)
}
min_s32 {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT m = s32[] minimum(a, b)
}
and_pred {
  a = pred[] parameter(0)
  b = pred[] parameter(1)
  ROOT m = pred[] and(a, b)
}
ENTRY main {
  x = f32[3,4,5]{2,1,0} parameter(0)
  i = s32[6,4]{1,0} parameter(1)
  zero = f32[] constant(0)
  ninf = f32[] constant(-inf)
  big = s32[] constant(2147483647)
  yes = pred[] constant(true)
  s02 = f32[4]{0} reduce(x, zero), dimensions={0,2}, to_apply=add_f32
  m1 = f32[3,5]{1,0} reduce(x, ninf), dimensions={1}, to_apply=max_f32
  all = f32[] reduce(x, zero), dimensions={0,1,2}, to_apply=add_swapped
  mi = s32[4]{0} reduce(i, big), dimensions={0}, to_apply=min_s32
  pos = pred[6,4]{1,0} compare(i, big), direction=LT
  allpos = pred[6]{0} reduce(pos, yes), dimensions={1}, to_apply=and_pred
  ROOT r = (f32[4]{0}, f32[3,5]{1,0}, f32[], s32[4]{0}, pred[6]{0}) tuple(s02, m1, all, mi, allpos)
}
""",
    # dot: a matrix product with a broadcast bias, a batched product, and a
    # contraction over dimension 0 of both operands.
    "dot": """
HloModule dot
ENTRY main {
  x = f32[4,16]{1,0} parameter(0)
  w = f32[16,5]{1,0} parameter(1)
  b = f32[5]{0} parameter(2)
  p = f32[3,4,6]{2,1,0} parameter(3)
  q = f32[3,6,2]{2,1,0} parameter(4)
  xw = f32[4,5]{1,0} dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  y = f32[4,5]{1,0} add(xw, b), broadcast_dimensions={1}
  pq = f32[3,4,2]{2,1,0} dot(p, q), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
  t = f32[5,5]{1,0} dot(w, w), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  ROOT r = (f32[4,5]{1,0}, f32[3,4,2]{2,1,0}, f32[5,5]{1,0}) tuple(y, pq, t)
}
""",
    # Every float unary op and the float binary ops, with InDim broadcasts.
    "float_math": """
HloModule float_math
ENTRY main {
  x = f32[4,8]{1,0} parameter(0)
  y = f32[8]{0} parameter(1)
  one = f32[] constant(1)
  ax = f32[4,8]{1,0} abs(x)
  ax1 = f32[4,8]{1,0} add(ax, one)
  e = f32[4,8]{1,0} exponential(x)
  em1 = f32[4,8]{1,0} exponential-minus-one(x)
  l = f32[4,8]{1,0} log(ax1)
  l1p = f32[4,8]{1,0} log-plus-one(ax)
  sq = f32[4,8]{1,0} sqrt(ax)
  rs = f32[4,8]{1,0} rsqrt(ax1)
  th = f32[4,8]{1,0} tanh(x)
  lg = f32[4,8]{1,0} logistic(x)
  sn = f32[4,8]{1,0} sine(x)
  cs = f32[4,8]{1,0} cosine(x)
  three = f32[] constant(3)
  x3 = f32[4,8]{1,0} multiply(x, three)
  fl = f32[4,8]{1,0} floor(x3)
  ce = f32[4,8]{1,0} ceil(x3)
  rn = f32[4,8]{1,0} round-nearest-even(x3)
  sg = f32[4,8]{1,0} sign(x)
  ng = f32[4,8]{1,0} negate(x)
  pw = f32[4,8]{1,0} power(ax1, y), broadcast_dimensions={1}
  at = f32[4,8]{1,0} atan2(x, y), broadcast_dimensions={1}
  rm = f32[4,8]{1,0} remainder(x3, y), broadcast_dimensions={1}
  dv = f32[4,8]{1,0} divide(x, y), broadcast_dimensions={1}
  mx = f32[4,8]{1,0} maximum(x, y), broadcast_dimensions={1}
  mn = f32[4,8]{1,0} minimum(x, y), broadcast_dimensions={1}
  fin = pred[4,8]{1,0} is-finite(dv)
  ROOT r = (f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, f32[4,8]{1,0}, pred[4,8]{1,0}) tuple(e, em1, l, l1p, sq, rs, th, lg, sn, cs, fl, ce, rn, sg, ng, pw, at, rm, dv, mx, mn, fin)
}
""",
    # Integer and pred ops: wrapping, truncating division, shifts (in range
    # and by more than the bit width), bitwise ops, compare, select, clamp,
    # converts.
    "int_ops": """
HloModule int_ops
ENTRY main {
  a = s32[4,5]{1,0} parameter(0)
  b = s32[5]{0} parameter(1)
  u = u8[4,5]{1,0} parameter(2)
  f = f32[4,5]{1,0} parameter(3)
  one = s32[] constant(1)
  s = s32[4,5]{1,0} add(a, b), broadcast_dimensions={1}
  m = s32[4,5]{1,0} multiply(s, a)
  ab = s32[5]{0} abs(b)
  d = s32[5]{0} maximum(ab, one)
  q = s32[4,5]{1,0} divide(m, d), broadcast_dimensions={1}
  rm = s32[4,5]{1,0} remainder(m, d), broadcast_dimensions={1}
  k = s32[4,5]{1,0} abs(a)
  shl = s32[4,5]{1,0} shift-left(m, k)
  sra = s32[4,5]{1,0} shift-right-arithmetic(m, k)
  srl = s32[4,5]{1,0} shift-right-logical(m, k)
  far = s32[] constant(40)
  shl40 = s32[4,5]{1,0} shift-left(m, far)
  sra40 = s32[4,5]{1,0} shift-right-arithmetic(m, far)
  srl40 = s32[4,5]{1,0} shift-right-logical(m, far)
  x = s32[4,5]{1,0} xor(a, m)
  o = s32[4,5]{1,0} or(a, k)
  n = s32[4,5]{1,0} and(m, k)
  nt = s32[4,5]{1,0} not(a)
  sg = s32[4,5]{1,0} sign(a)
  c37 = u8[] constant(37)
  uw = u8[4,5]{1,0} multiply(u, c37)
  gt = pred[4,5]{1,0} compare(a, b), direction=GT, broadcast_dimensions={1}
  sel = s32[4,5]{1,0} select(gt, a, m)
  lo = s32[] constant(-3)
  hi = s32[] constant(4)
  cl = s32[4,5]{1,0} clamp(lo, a, hi)
  ten = f32[] constant(10)
  f10 = f32[4,5]{1,0} multiply(f, ten)
  fi = s32[4,5]{1,0} convert(f10)
  mf = f32[4,5]{1,0} convert(m)
  ng = pred[4,5]{1,0} not(gt)
  ROOT r = (s32[4,5]{1,0}, s32[4,5]{1,0}, s32[4,5]{1,0}, s32[4,5]{1,0}, s32[4,5]{1,0}, s32[4,5]{1,0}, s32[4,5]{1,0}, s32[4,5]{1,0}, s32[4,5]{1,0}, s32[4,5]{1,0}, s32[4,5]{1,0}, s32[4,5]{1,0}, s32[4,5]{1,0}, s32[4,5]{1,0}, u8[4,5]{1,0}, s32[4,5]{1,0}, s32[4,5]{1,0}, s32[4,5]{1,0}, f32[4,5]{1,0}, pred[4,5]{1,0}) tuple(s, q, rm, shl, sra, srl, shl40, sra40, srl40, x, o, n, nt, sg, uw, sel, cl, fi, mf, ng)
}
""",
    # Shape ops: transpose, reshape, strided slice, concatenate, reverse,
    # pad with interior padding, explicit broadcast, iota.
    "shape_ops": """
HloModule shape_ops
ENTRY main {
  x = f32[4,6]{1,0} parameter(0)
  y = f32[2,6]{1,0} parameter(1)
  t = f32[6,4]{1,0} transpose(x), dimensions={1,0}
  r = f32[3,8]{1,0} reshape(t)
  s = f32[2,4]{1,0} slice(x), slice={[0:4:2], [1:5]}
  c = f32[6,6]{1,0} concatenate(x, y), dimensions={0}
  v = f32[6,6]{1,0} reverse(c), dimensions={0,1}
  z = f32[] constant(0.5)
  p = f32[5,7]{1,0} pad(s, z), padding=1_2x0_0_1
  b = f32[2,3,8]{2,1,0} broadcast(r), dimensions={1,2}
  i = s32[4,6]{1,0} iota(), iota_dimension=1
  f = f32[4,6]{1,0} convert(i)
  g = f32[4,6]{1,0} add(x, f)
  ROOT out = (f32[3,8]{1,0}, f32[6,6]{1,0}, f32[5,7]{1,0}, f32[2,3,8]{2,1,0}, f32[4,6]{1,0}) tuple(r, v, p, b, g)
}
""",
    # IEEE corners: NaN and signed zeros through maximum/minimum (XLA's
    # propagate NaN), comparisons, is-finite, sign, division by zero.
    "nan_semantics": """
HloModule nan_semantics
ENTRY main {
  x = f32[6]{0} parameter(0)
  k = f32[6]{0} constant({nan, inf, -inf, 0, -0, 1.5})
  mx = f32[6]{0} maximum(x, k)
  mn = f32[6]{0} minimum(x, k)
  eq = pred[6]{0} compare(k, k), direction=EQ
  ne = pred[6]{0} compare(k, k), direction=NE
  lt = pred[6]{0} compare(x, k), direction=LT
  fin = pred[6]{0} is-finite(k)
  sg = f32[6]{0} sign(k)
  ab = f32[6]{0} abs(k)
  sel = f32[6]{0} select(lt, k, x)
  zero = f32[] constant(0)
  dz = f32[6]{0} divide(k, zero)
  ROOT r = (f32[6]{0}, f32[6]{0}, pred[6]{0}, pred[6]{0}, pred[6]{0}, pred[6]{0}, f32[6]{0}, f32[6]{0}, f32[6]{0}, f32[6]{0}) tuple(mx, mn, eq, ne, lt, fin, sg, ab, sel, dz)
}
""",
    # f64: constants that need 17 digits, a dot and a reduce.
    "f64": """
HloModule f64
add_f64 {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT s = f64[] add(a, b)
}
ENTRY main {
  x = f64[3,4]{1,0} parameter(0)
  w = f64[4,2]{1,0} parameter(1)
  third = f64[] constant(0.33333333333333331)
  xs = f64[3,4]{1,0} multiply(x, third)
  d = f64[3,2]{1,0} dot(xs, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  zero = f64[] constant(0)
  s = f64[3]{0} reduce(x, zero), dimensions={1}, to_apply=add_f64
  e = f64[3,2]{1,0} add(d, s), broadcast_dimensions={0}
  ROOT r = f64[3,2]{1,0} exponential(e)
}
""",
    # Constants as MLIR prints them: splats, nested lists, a hex blob (more
    # than 100 elements), infinities.
    "constants": """
HloModule constants
ENTRY main {
  x = f32[2,3]{1,0} parameter(0)
  k = f32[2,3]{1,0} constant({ { 0.1, -2.5, 1234567 }, { 1e-07, 0.564189494, inf } })
  a = f32[2,3]{1,0} add(x, k)
  big = s32[101]{0} iota(), iota_dimension=0
  fb = f32[101]{0} convert(big)
  h = f32[101]{0} constant({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 0.25})
  hb = f32[101]{0} add(fb, h)
  ROOT r = (f32[2,3]{1,0}, f32[101]{0}) tuple(a, hb)
}
""",
}


# ---------------------------------------------------------------------------
# JAX functions (JAX -> oxla)
# ---------------------------------------------------------------------------


class Case:
    """A JAX function and how to check it.

    `shapes`: the f32 inputs' shapes (standard normal values; the first
    input scaled by `scale`). `unsupported`: per form (`hlo`, `optimized`),
    the op oxla must refuse. `maybe_unsupported`: ops that, if the HLO has
    them, oxla must refuse. `tolerance`: (rtol, atol) instead of the f32
    default, with `why`."""

    def __init__(self, name, fn, shapes, scale=1.0, unsupported=None,
                 maybe_unsupported=(), tolerance=None, why=""):
        self.name, self.fn, self.shapes, self.scale = name, fn, shapes, scale
        self.unsupported = unsupported or {}
        self.maybe_unsupported = maybe_unsupported
        self.tolerance, self.why = tolerance, why


def jax_cases(jax, jnp, lax):
    """The JAX -> oxla checks."""

    def mlp_layer(x, w, b):
        return jnp.maximum(x @ w + b, 0.0)

    def mlp_layer_nn_relu(x, w, b):
        return jax.nn.relu(x @ w + b)

    def layer_norm(x, gamma, beta):
        mean = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
        return (x - mean) * lax.rsqrt(var + 1e-5) * gamma + beta

    def softmax(x):
        return jax.nn.softmax(x, axis=-1)

    def gelu_tanh(x):
        return jax.nn.gelu(x, approximate=True)

    def gelu_exact(x):
        return jax.nn.gelu(x, approximate=False)

    def erf(x):
        return lax.erf(x)

    # The peers' workloads (/work/shared/peers/xla_bench.py), smaller.
    def W1(x, v):
        return lax.add(x, lax.broadcast_in_dim(v, x.shape, (1,)))

    def W5(x, w, b):
        y = lax.add(lax.mul(x, lax.broadcast_in_dim(w, x.shape, (1,))),
                    lax.broadcast_in_dim(b, x.shape, (0,)))
        return lax.max(y, lax.full_like(y, 0.0))

    def W9b_softmax(x):
        m = lax.reduce_max(x, (1,))
        e = lax.exp(lax.sub(x, lax.broadcast_in_dim(m, x.shape, (0,))))
        s = lax.reduce_sum(e, (1,))
        return lax.div(e, lax.broadcast_in_dim(s, x.shape, (0,)))

    return [
        Case("mlp_layer", mlp_layer, [(8, 16), (16, 32), (32,)]),
        # jax.nn.relu is itself jitted: JAX's HLO calls it (`call`,
        # to_apply=relu); XLA inlines the call before optimizing.
        Case("mlp_layer_nn_relu", mlp_layer_nn_relu, [(8, 16), (16, 32), (32,)]),
        Case("layer_norm", layer_norm, [(8, 32), (32,), (32,)]),
        Case("softmax", softmax, [(8, 32)], scale=3.0),
        Case("gelu_tanh", gelu_tanh, [(8, 32)], scale=3.0),
        # jax.nn.gelu(approximate=False) uses erfc, expanded in the HLO.
        Case("gelu_exact", gelu_exact, [(8, 32)], scale=3.0),
        # lax.erf lowers to HLO's `erf` instruction (musl's libm in oxla,
        # XLA's polynomial in JAX: within the f32 tolerance).
        Case("erf", erf, [(8, 32)], scale=2.0),
        Case("W1", W1, [(64, 96), (96,)]),
        Case("W5", W5, [(64, 96), (96,), (64,)]),
        Case("W9b_softmax", W9b_softmax, [(64, 96)]),
        # Large enough for the JIT's vector loops and its thread pool.
        Case("W5_large", W5, [(1024, 1024), (1024,), (1024,)]),
        Case("softmax_large", softmax, [(512, 1024)], scale=3.0),
        Case("layer_norm_large", layer_norm, [(512, 1024), (1024,), (1024,)],
             tolerance=(1e-5, 1e-5),
             why="atol 1e-5: against the f64 result, f32 sums of 1024 leave the "
                 "interpreter (one after another) off by up to 5.4e-6, the JIT by 1.9e-6 "
                 "and XLA by 1.3e-6, and `+ beta` cancels some outputs to near zero"),
    ]


# Why an op is refused, for the report's list of known gaps.
GAPS = {
    "call": "`call`: JAX's pre-optimization HLO calls every nested jit (`jax.nn.relu` "
            "is one: `call(...), to_apply=relu.1`); oxla's parser inlines `fusion` but "
            "not `call`, so such modules run in oxla only in their optimized form, "
            "where XLA has inlined the call.",
}


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------

DTYPES = {
    "f32": np.float32, "f64": np.float64, "i1": np.bool_,
    "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
    "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64,
}

XLA_NAMES = {
    np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.bool_): "pred",
    np.dtype(np.int8): "s8", np.dtype(np.int16): "s16", np.dtype(np.int32): "s32",
    np.dtype(np.int64): "s64", np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16",
    np.dtype(np.uint32): "u32", np.dtype(np.uint64): "u64",
}


def xla_shape(a):
    """`f32[2,3]` for an array."""
    return f"{XLA_NAMES.get(a.dtype, str(a.dtype))}[{','.join(map(str, a.shape))}]"


def shapes_list(arrays):
    """`f32[2,3], f32[3]`; runs of one shape as `f32[4,8] ×21`."""
    parts = []
    for a in arrays:
        s = xla_shape(a)
        if parts and parts[-1][0] == s:
            parts[-1][1] += 1
        else:
            parts.append([s, 1])
    return ", ".join(s if n == 1 else f"{s} ×{n}" for s, n in parts)


def shapes_text(inputs, outputs):
    outs = shapes_list(outputs)
    if len(outputs) != 1:
        outs = f"({outs})"
    return f"{shapes_list(inputs)} → {outs}"


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def random_array(rng, dtype, shape, scale=1.0):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * scale).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind == "u":
        return rng.integers(0, 11, size=shape).astype(dtype)
    return rng.integers(-10, 11, size=shape).astype(dtype)


class Diff:
    """How far `actual` is from `expected`: `ok`, `max_abs`, `max_rel` and a
    `note` (what differs, or where a passing result's largest relative
    difference is)."""

    def __init__(self, actual, expected, tolerance=None):
        self.ok, self.max_abs, self.max_rel, self.note = False, 0.0, 0.0, None
        if actual.dtype != expected.dtype:
            self.note = f"dtype {actual.dtype}, expected {expected.dtype}"
            return
        if actual.shape != expected.shape:
            self.note = f"shape {actual.shape}, expected {expected.shape}"
            return
        a64 = actual.astype(np.float64)
        e64 = expected.astype(np.float64)
        if expected.dtype.kind == "f":
            rtol, atol = tolerance or TOLERANCE[expected.dtype]
            same = (a64 == e64) | (np.isnan(a64) & np.isnan(e64))
            with np.errstate(invalid="ignore"):
                diff = np.where(same, 0.0, np.abs(a64 - e64))
            diff = np.where(np.isnan(diff), np.inf, diff)  # NaN against a number
            mismatch = diff > atol + rtol * np.where(same, 0.0, np.abs(e64))
        else:
            rtol, atol = 0.0, 0.0
            diff = np.abs(a64 - e64)
            mismatch = actual != expected
        self.ok = not mismatch.any()
        if diff.size:
            self.max_abs = float(diff.max())
            # Relative differences of elements within atol of zero say
            # nothing (atol judges those), so only |expected| > atol counts.
            big = np.abs(e64) > atol
            if big.any():
                rel = diff[big] / np.abs(e64[big])
                self.max_rel = float(rel.max())
                if self.ok and self.max_rel > rtol:
                    at = float(np.abs(e64[big])[int(np.argmax(rel))])
                    self.note = (f"the max rel diff is at |reference| = {at:.1e}, "
                                 "within atol")
        if not self.ok:
            i = np.unravel_index(int(np.argmax(mismatch)), actual.shape)
            self.note = (f"{int(mismatch.sum())} of {actual.size} element(s) differ; "
                         f"first at {list(map(int, i))}: got {actual[i]!r}, "
                         f"expected {expected[i]!r}")


class Row:
    def __init__(self, name, direction, shapes, status, max_abs=None, max_rel=None, note=""):
        self.name, self.direction, self.shapes = name, direction, shapes
        self.status, self.max_abs, self.max_rel, self.note = status, max_abs, max_rel, note

    @property
    def failed(self):
        return self.status == "FAIL"


def compared(label, direction, shapes, actual, expected, who="the reference", tolerance=None):
    """The row for outputs `actual` (a list of arrays) against `expected`;
    `tolerance` (rtol, atol) replaces the default for floats."""
    if len(actual) != len(expected):
        return Row(label, direction, shapes, "FAIL",
                   note=f"{len(actual)} output(s), {who} has {len(expected)}")
    diffs = [Diff(a, e, tolerance) for a, e in zip(actual, expected)]
    notes = [f"output {k}: {d.note}" if len(diffs) > 1 else d.note
             for k, d in enumerate(diffs) if d.note]
    ok = all(d.ok for d in diffs)
    return Row(label, direction, shapes, "pass" if ok else "FAIL",
               max((d.max_abs for d in diffs), default=0.0),
               max((d.max_rel for d in diffs), default=0.0), "; ".join(notes))


def save_inputs(directory, inputs):
    """Writes `arg0.npy`, `arg1.npy`, ...; returns their paths."""
    paths = []
    for k, a in enumerate(inputs):
        p = directory / f"arg{k}.npy"
        np.save(p, a)
        paths.append(p)
    return paths


def first_lines(text, n=6):
    lines = [line for line in text.strip().splitlines() if line.strip()]
    out = " ⏎ ".join(lines[:n])
    return out + (" ⏎ …" if len(lines) > n else "")


class Oxla:
    def __init__(self, binary, work):
        self.binary = str(binary)
        self.work = work

    def __call__(self, *args):
        return subprocess.run([self.binary, *map(str, args)], capture_output=True,
                              text=True, timeout=600)

    def version(self):
        r = self("--version")
        return r.stdout.strip() if r.returncode == 0 else "?"

    def run(self, module, inputs, out, backend):
        """Runs `module` on the .npy files `inputs`; returns (arrays, None)
        or (None, the error text)."""
        args = ["run", module]
        for p in inputs:
            args += ["--input", p]
        args += ["--output", out, "--backend", backend]
        out = Path(out)
        stem = str(out)[:-len(".npy")] if str(out).endswith(".npy") else str(out)
        for old in [out, *Path(stem).parent.glob(Path(stem).name + ".*.npy")]:
            old.unlink(missing_ok=True)  # no stale result from an earlier run
        r = self(*args)
        if r.returncode != 0:
            return None, f"exit {r.returncode}: {r.stderr.strip()}"
        if out.exists():
            return [np.load(out)], None
        arrays, k = [], 0
        while Path(f"{stem}.{k}.npy").exists():
            arrays.append(np.load(f"{stem}.{k}.npy"))
            k += 1
        if not arrays:
            return None, f"`oxla run` wrote no output ({r.stderr.strip()})"
        return arrays, None

    def jit_status(self):
        """None if `--backend jit` runs a module, else why not."""
        probe = self.work / "jit_probe.hlo"
        probe.write_text("HloModule probe\nENTRY main {\n"
                         "  x = f32[3]{0} parameter(0)\n"
                         "  ROOT y = f32[3]{0} add(x, x)\n}\n")
        x = self.work / "jit_probe.x.npy"
        np.save(x, np.array([1, 2, 3], np.float32))
        out = self.work / "jit_probe.out.npy"
        arrays, err = self.run(probe, [x], out, "jit")
        if err:
            return first_lines(err, 2)
        if not np.array_equal(arrays[0], np.array([2, 4, 6], np.float32)):
            return f"the probe x + x gave {arrays[0]!r}"
        return None


def check_unsupported(oxla, module, inputs, out, backend, op):
    """oxla must refuse `module` with its unsupported-op error for `op`."""
    arrays, err = oxla.run(module, inputs, out, backend)
    wanted = f"unsupported op `{op}`"
    if arrays is not None:
        return "FAIL", (f"oxla now runs a module with `{op}`: turn this check into "
                        "a value check (remove the expectation)")
    if err.startswith("exit 1:") and wanted in err:
        # `error: PATH:LINE:COL: unsupported op `erf`: ...`: keep the message.
        message = next(m for m in err.splitlines() if wanted in m)
        return "unsupported (expected)", f"oxla: {message[message.index(wanted):]}"
    return "FAIL", f"expected oxla's error `{wanted}`, got: {first_lines(err)}"


# ---------------------------------------------------------------------------
# JAX -> oxla
# ---------------------------------------------------------------------------


def run_jax_to_oxla(jax, jnp, lax, oxla, runner, backends, work):
    rows = []
    for case in jax_cases(jax, jnp, lax):
        name = case.name
        rng = rng_for(name)
        inputs = [random_array(rng, np.float32, s, case.scale if k == 0 else 1.0)
                  for k, s in enumerate(case.shapes)]
        d = work / "jax_to_oxla" / name
        d.mkdir(parents=True, exist_ok=True)
        paths = save_inputs(d, inputs)
        try:
            lowered = jax.jit(case.fn).lower(*inputs)
            compiled = lowered.compile()
            texts = {"hlo": lowered.as_text(dialect="hlo"),
                     "optimized": compiled.as_text()}
            expected_out = [np.asarray(o) for o in jax.tree_util.tree_leaves(compiled(*inputs))]
        except Exception as e:  # noqa: BLE001 (a JAX failure is a row, not a crash)
            rows.append(Row(name, "JAX → oxla", "", "FAIL",
                            note=f"JAX failed: {first_lines(str(e), 3)}"))
            continue
        shapes = shapes_text(inputs, expected_out)
        (d / "stablehlo.mlir").write_text(lowered.as_text())
        for form, text in texts.items():
            module = d / f"{name}.{form}.hlo"
            module.write_text(text)
            op = case.unsupported.get(form) or next(
                (m for m in case.maybe_unsupported
                 if re.search(rf"\s{re.escape(m)}\(", text)), None)
            for backend in backends:
                label = f"{name} [{form}, {backend}]"
                out = d / f"out.{form}.{backend}.npy"
                if op is not None:
                    status, note = check_unsupported(oxla, module, paths, out, backend, op)
                    rows.append(Row(label, "JAX → oxla", shapes, status, note=note))
                    continue
                arrays, err = oxla.run(module, paths, out, backend)
                if err:
                    rows.append(Row(label, "JAX → oxla", shapes, "FAIL",
                                    note=f"oxla failed: {first_lines(err)}"))
                    continue
                row = compared(label, "JAX → oxla", shapes, arrays, expected_out, "JAX",
                               case.tolerance)
                extra = []
                if case.maybe_unsupported:
                    extra.append("the HLO has no "
                                 + ", ".join(f"`{m}`" for m in case.maybe_unsupported)
                                 + " instruction (JAX expanded it)")
                if case.why:
                    extra.append(case.why)
                row.note = "; ".join([n for n in [row.note] if n] + extra)
                rows.append(row)
            if op is None:
                rows.append(round_trip(oxla, runner, f"{name} [{form} → stablehlo, xla]",
                                       module, d / f"{name}.{form}.oxla.mlir", inputs,
                                       expected_out, shapes))
    return rows


def round_trip(oxla, runner, label, module, mlir_path, inputs, expected_out, shapes):
    """JAX's module, printed as StableHLO by oxla, run by XLA: the same
    result as JAX's."""
    direction = "JAX → oxla → JAX"
    r = oxla("convert", module, "--to", "stablehlo", "--output", mlir_path)
    if r.returncode != 0:
        return Row(label, direction, shapes, "FAIL",
                   note=f"`oxla convert --to stablehlo` failed: {first_lines(r.stderr)}")
    try:
        out = runner.run(mlir_path.read_text(), inputs)
    except Exception as e:  # noqa: BLE001 (MLIR / XLA rejected the text)
        return Row(label, direction, shapes, "FAIL", note=first_lines(str(e), 8))
    return compared(label, direction, shapes, out, expected_out, "JAX")


# ---------------------------------------------------------------------------
# oxla -> JAX
# ---------------------------------------------------------------------------

SIGNATURE = re.compile(r"func\.func public @main\((.*?)\)\s*->", re.S)
TENSOR = re.compile(r"%arg\d+: tensor<([^>]*)>")


def parameter_types(mlir):
    """[(dtype, shape)] of @main's parameters, from the MLIR signature."""
    m = SIGNATURE.search(mlir)
    if not m:
        raise ValueError("no `func.func public @main(...)` in the MLIR text")
    out = []
    for t in TENSOR.findall(m.group(1)):
        parts = t.split("x")
        out.append((DTYPES[parts[-1]], tuple(int(p) for p in parts[:-1])))
    return out


class XlaRunner:
    """Parses, compiles and runs StableHLO MLIR text with jaxlib's XLA client."""

    def __init__(self, jax):
        from jax._src import compiler, xla_bridge
        from jax._src.interpreters import mlir
        from jax._src.lib import xla_client as xc
        from jax._src.lib.mlir import ir

        self.jax, self.compiler, self.mlir, self.ir, self.xc = jax, compiler, mlir, ir, xc
        self.backend = xla_bridge.get_backend("cpu")

    def run(self, text, inputs):
        with self.mlir.make_ir_context():
            try:
                module = self.ir.Module.parse(text)
            except Exception as e:  # noqa: BLE001 (MLIRError: the diagnostics)
                raise RuntimeError(f"MLIR parse failed: {e}") from None
            options = self.compiler.get_compile_options(num_replicas=1, num_partitions=1)
            devices = self.xc.DeviceList(tuple(self.backend.devices()[:1]))
            try:
                exe = self.backend.compile_and_load(module, executable_devices=devices,
                                                    compile_options=options)
            except Exception as e:  # noqa: BLE001 (XLA's compile error)
                raise RuntimeError(f"XLA compile failed: {e}") from None
        bufs = [self.jax.device_put(a, self.backend.devices()[0]) for a in inputs]
        results = exe.execute_sharded(bufs).disassemble_into_single_device_arrays()
        return [np.asarray(r[0]) for r in results]


def run_oxla_to_jax(oxla, runner, backends, work):
    modules = []
    for p in sorted(DATA_DIR.iterdir()) if DATA_DIR.is_dir() else []:
        if p.is_file():
            modules.append((f"tests/data/hlo/small/{p.name}", p))
    d0 = work / "oxla_to_jax"
    d0.mkdir(parents=True, exist_ok=True)
    for name, text in OXLA_MODULES.items():
        p = d0 / f"{name}.hlo"
        p.write_text(text.lstrip())
        modules.append((name, p))
    rows = []
    for name, path in modules:
        stem = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
        d = d0 / stem
        d.mkdir(parents=True, exist_ok=True)
        mlir_path = d / "stablehlo.mlir"
        r = oxla("convert", path, "--to", "stablehlo", "--output", mlir_path)
        if r.returncode != 0:
            rows.append(Row(name, "oxla → JAX", "", "FAIL",
                            note=f"`oxla convert --to stablehlo` failed: {first_lines(r.stderr)}"))
            continue
        mlir = mlir_path.read_text()
        try:
            types = parameter_types(mlir)
        except (ValueError, KeyError) as e:
            rows.append(Row(name, "oxla → JAX", "", "FAIL",
                            note=f"cannot read the MLIR signature: {e}"))
            continue
        rng = rng_for(name)
        inputs = [random_array(rng, dt, shape) for dt, shape in types]
        paths = save_inputs(d, inputs)
        try:
            xla_out = runner.run(mlir, inputs)
        except Exception as e:  # noqa: BLE001 (MLIR / XLA rejected the text)
            rows.append(Row(name, "oxla → JAX", shapes_text(inputs, []), "FAIL",
                            note=first_lines(str(e), 8)))
            continue
        shapes = shapes_text(inputs, xla_out)
        for backend in backends:
            label = f"{name} [{backend}]"
            arrays, err = oxla.run(path, paths, d / f"out.{backend}.npy", backend)
            if err:
                rows.append(Row(label, "oxla → JAX", shapes, "FAIL",
                                note=f"oxla failed: {first_lines(err)}"))
                continue
            rows.append(compared(label, "oxla → JAX", shapes, arrays, xla_out, "XLA"))
    return rows


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def fmt(x):
    if x is None:
        return "–"
    if x == 0:
        return "0"
    return f"{x:.2e}"


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def report(rows, env, command, jit_note):
    failed = [r for r in rows if r.failed]
    expected = [r for r in rows if r.status == "unsupported (expected)"]
    status = "failed" if failed else "passed"
    L = ["# JAX interop checks", ""]
    L.append("What `scripts/jax_interop.py` checks, and its last recorded result. "
             "It runs from `just jax-check`, not from CI (installing and importing "
             "jax/jaxlib would take minutes of CI time); "
             "`crates/oxla-cli/tests/jax_interop.rs` runs it when `OXLA_JAX_PYTHON` "
             "names a Python with jax, and otherwise checks that this file records a "
             "passing run of the current script and data.")
    L.append("")
    L.append("- **JAX → oxla**: functions written in JAX are lowered with "
             "`jax.jit(f).lower(*args)`; the HLO JAX prints (`.as_text(dialect=\"hlo\")`, "
             "form `hlo`) and XLA's optimized HLO (`.compile().as_text()`, form "
             "`optimized`, fusions inlined by oxla's parser) run with `oxla run` and are "
             "compared with JAX's result on the same inputs.")
    L.append("- **oxla → JAX**: HLO modules (`tests/data/hlo/small/` and the oxla-dialect "
             "modules in the script, with `broadcast_dimensions`) go through "
             "`oxla convert --to stablehlo`; XLA parses, compiles and runs the MLIR text "
             "(jaxlib's `compile_and_load`) and its result is compared with `oxla run`.")
    L.append("- Floats pass when |oxla − reference| ≤ atol + rtol·|reference| elementwise "
             "(f32: rtol 1e-5, atol 1e-6; f64: rtol 1e-12, atol 1e-14); integers and "
             "`pred` must be equal, NaN matches NaN. Max rel diff counts the elements with "
             "|reference| > atol, so a passing row may show one above rtol when its "
             "absolute difference is within atol (tanh near ±1 in gelu, for one).")
    L.append("- `unsupported (expected)`: the module uses an op oxla does not have; the "
             "check passes when oxla refuses it with its `unsupported op` error and "
             "fails if oxla fails otherwise or starts to accept it.")
    L.append("")
    L.append(f"Last run: {env['date']}; jax {env['jax']}, jaxlib {env['jaxlib']}, "
             f"numpy {env['numpy']}, Python {env['python']}; {env['oxla']}; "
             f"{env['machine']}.")
    L.append("")
    L.append(f"Command: `{command}`")
    L.append("")
    L.append(f"Backends: {jit_note}")
    L.append("")
    L.append("| check | direction | shapes | max abs diff | max rel diff | result | note |")
    L.append("|---|---|---|---|---|---|---|")
    for r in rows:
        L.append(f"| {cell(r.name)} | {r.direction} | {cell(r.shapes)} | {fmt(r.max_abs)} "
                 f"| {fmt(r.max_rel)} | {'**FAIL**' if r.failed else r.status} "
                 f"| {cell(r.note)} |")
    L.append("")
    gaps = sorted({GAPS[op] for r in expected for op in GAPS if f"`{op}`" in r.note})
    if gaps:
        L.append("Known gaps (the `unsupported (expected)` rows):")
        L.append("")
        L.extend(f"- {g}" for g in gaps)
        L.append("")
    if failed:
        L.append(f"**{len(failed)} of {len(rows)} checks failed**: "
                 + ", ".join(r.name for r in failed) + ".")
    else:
        L.append(f"**All {len(rows)} checks passed** ({len(rows) - len(expected)} value "
                 f"checks, {len(expected)} expected `unsupported op` errors).")
    L.append("")
    L.append(MARKER.format(status=status, fingerprint=env["fingerprint"], checks=len(rows)))
    return "\n".join(L) + "\n"


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} logical CPUs"



def hlo_test_modules(path):
    """The modules of a `.hlo` test file that are expected to verify, as
    (name, text) pairs: each module runs from its `HloModule` line to its
    last line that is neither blank nor a `//` comment; a module with an
    `// error` directive (before or inside it) is left out."""
    lines = path.read_text().splitlines()
    is_comment = lambda l: l.lstrip().startswith("//")
    headers = [i for i, l in enumerate(lines) if l.startswith("HloModule")]
    modules, start = [], 0
    for k, h in enumerate(headers):
        limit = headers[k + 1] if k + 1 < len(headers) else len(lines)
        end = max(i for i in range(h, limit) if lines[i].strip() and not is_comment(lines[i]))
        own = [l for l in lines[start:end + 1] if is_comment(l)]
        if not any(re.match(r"\s*//\s*error\b", l) for l in own):
            name = lines[h].split()[1].rstrip(",")
            modules.append((name, "\n".join(l for l in lines[h:end + 1] if not is_comment(l)) + "\n"))
        start = end + 1
    return modules


def run_strict_hlo_parse(oxla, work):
    """`oxla convert --to hlo` (the expand_broadcasts pass) on every module
    we have: the result must be accepted by XLA's own HLO parser. One row per
    source of modules."""
    from jax._src.lib import xla_client as xc
    root = Path(__file__).resolve().parent.parent
    sources = {
        "tests/data/hlo (JAX modules, plain and optimized)":
            sorted((root / "tests/data/hlo").glob("*.hlo.txt"))
            + sorted((root / "tests/data/hlo/small").glob("*")),
        "tests/hlo (every .hlo test module that verifies)":
            sorted((root / "tests/hlo").rglob("*.hlo")),
        "crates/oxla-ir/tests/snapshots (pass and parser cases)":
            sorted((root / "crates/oxla-ir/tests/snapshots").glob("passes__*.snap"))
            + sorted((root / "crates/oxla-ir/tests/snapshots").glob("parser__*.snap")),
    }
    out_dir = work / "strict-hlo"
    out_dir.mkdir(parents=True, exist_ok=True)
    rows = []
    for label, files in sources.items():
        accepted, failures = 0, []
        # (name shown in failures, file to convert) for every module.
        modules = []
        for f in files:
            if f.suffix == ".hlo":
                # A .hlo test file (docs/testing.md): every module that
                # verifies (no `// error` directive).
                for name, body in hlo_test_modules(f):
                    src = out_dir / f"{f.stem}__{name}.hlo"
                    src.write_text(body)
                    modules.append((f"{f.name}/{name}", src))
            elif f.suffix == ".snap":
                # An insta snapshot: header between `---` lines, then the value;
                # only HLO modules are of interest (not error messages).
                body = f.read_text().split("---\n", 2)[-1]
                if not body.startswith("HloModule"):
                    continue
                # Snapshots holding several modules (before/after) keep the first.
                body = "HloModule" + body.split("HloModule")[1]
                src = out_dir / (f.stem + ".hlo")
                src.write_text(body)
                modules.append((f.name, src))
            else:
                modules.append((f.name, f))
        for name, src in modules:
            r = oxla("convert", src, "--to", "hlo")
            if r.returncode != 0:
                failures.append(f"{name}: oxla convert failed: {first_lines(r.stderr, 2)}")
                continue
            try:
                xc.hlo.hlo_module_from_text(r.stdout)
                accepted += 1
            except Exception as e:  # XLA's parser says why
                failures.append(f"{name}: {str(e).splitlines()[0][:200]}")
        note = f"{accepted} module(s) accepted by XLA's HLO parser"
        if failures:
            note += "; rejected: " + "; ".join(failures[:5])
        rows.append(Row(label, "oxla → XLA HLO parser", "", "FAIL" if failures or not accepted else "pass",
                        note=note))
    return rows

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--oxla", required=True, help="path of the oxla binary")
    ap.add_argument("--work", help="work directory (default: a new temporary one)")
    ap.add_argument("--report", help="also write the Markdown report to this file")
    ap.add_argument("--command", help="the command to record in the report")
    args = ap.parse_args()

    binary = Path(args.oxla).resolve()
    if not binary.is_file():
        print(f"error: no oxla binary at {binary}; build it with "
              "`cargo build --release -p oxla-cli`", file=sys.stderr)
        return 2
    try:
        import jax
        import jax.numpy as jnp
        import jaxlib
        from jax import lax
    except ImportError as e:
        print(f"error: cannot import jax ({e}); see `just jax-check`", file=sys.stderr)
        return 2
    # 64-bit types as they are (f64, s64 modules), on the CPU.
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")

    work = Path(args.work).resolve() if args.work else Path(tempfile.mkdtemp(prefix="jax-interop-"))
    work.mkdir(parents=True, exist_ok=True)
    oxla = Oxla(binary, work)
    jit_problem = oxla.jit_status()
    if jit_problem is None:
        backends = ["interp", "jit"]
        jit_note = "every check runs on `--backend interp` and `--backend jit`."
    else:
        backends = ["interp"]
        jit_note = ("`--backend interp` only: this binary's `--backend jit` does not run "
                    f"(`{jit_problem}`); the JIT rows appear once it does.")

    runner = XlaRunner(jax)
    rows = run_jax_to_oxla(jax, jnp, lax, oxla, runner, backends, work)
    rows += run_oxla_to_jax(oxla, runner, backends, work)
    rows += run_strict_hlo_parse(oxla, work)

    env = dict(
        date=datetime.date.today().isoformat(), jax=jax.__version__,
        jaxlib=jaxlib.__version__, numpy=np.__version__,
        python=platform.python_version(), oxla=oxla.version(), machine=machine(),
        fingerprint=fingerprint())
    command = args.command or " ".join(
        [Path(sys.executable).name, "scripts/jax_interop.py", "--oxla", str(args.oxla)]
        + (["--report", args.report] if args.report else []))
    text = report(rows, env, command, jit_note)
    print(text, end="")
    if args.report:
        Path(args.report).write_text(text)
    print(f"(work files in {work})", file=sys.stderr)
    return 1 if any(r.failed for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
