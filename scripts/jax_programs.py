#!/usr/bin/env python3
"""Realistic JAX programs, written out as a test corpus for oxla.

Each program is an everyday piece of model code (a training step, a CNN,
a GRU over `lax.scan`, an embedding lookup and its gradient, top-k,
dropout, a KV-cache update, ...). For each one this script writes, under
tests/data/jax/<name>/:

  program.hlo            the HLO text JAX prints:
                         jax.jit(f, keep_unused=True).lower(*args).compiler_ir('hlo').as_hlo_text()
  program.stablehlo.mlir the StableHLO: jax.jit(f, keep_unused=True).lower(*args).as_text()
  in0.npy, in1.npy, ...  the inputs, deterministic (seeded from the name) and
                         realistic (ids within range, weights scaled by
                         1/sqrt(fan_in)); bf16 arrays are written with the
                         ml_dtypes name as descr ('bfloat16'), see save_npy
  out0.npy, ...          JAX's outputs on the CPU, the output pytree flattened
                         in order (a tuple result gives out0, out1, ...)
  meta.json              inputs and outputs (file, name, dtype, shape), the HLO
                         ops and element types the program needs, and the
                         tolerance for float outputs with its reason (integer
                         and pred outputs are compared bit-exact)

and one index, tests/data/jax/programs.tsv, that the Rust test reads (it
needs no JSON parser): name, number of inputs, number of outputs, rtol,
atol, element types, ops.

Usage (jax/jaxlib 0.10.2 on the CPU; the versions are checked):
  ~/venvs/oxla-models/bin/python scripts/jax_programs.py [--out DIR] [--only NAME ...]

The output is deterministic: running it twice writes the same bytes. The
tests (tests/jax_programs.rs) need none of this at test time: commit what
it writes, then bless the expectations (`OXLA_CORPUS_BLESS=1 cargo test -p
oxla --test jax_programs`) and review the diff.
"""

import argparse
import json
import shutil
import sys
import zlib
from pathlib import Path

import jax

jax.config.update("jax_platforms", "cpu")

import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

import xla_corpus  # noqa: E402  (scripts/: the HLO text helpers)

REPO = Path(__file__).resolve().parent.parent
OUT_DIR = REPO / "tests" / "data" / "jax"
JAX_VERSION = "0.10.2"

BF16 = jnp.bfloat16

# Tolerances, |oxla - jax| <= atol + rtol * |jax| elementwise, with the reason.
TOL_F32_SUMS = (
    1e-5,
    1e-6,
    "f32 dots and reductions: XLA may sum in another order (vectorised "
    "partial sums), a few ulps apart",
)
TOL_F32_TRANSCENDENTAL = (
    2e-5,
    2e-6,
    "f32 exp/log/tanh/logistic: XLA's CPU backend uses its own polynomial "
    "approximations (within a few ulps of the correctly rounded value), "
    "composed over a few layers",
)
TOL_F32_DEEP = (
    1e-4,
    1e-5,
    "f32 through several layers of transcendental functions and their "
    "gradients, or a recurrence over 8 steps: ulp-level differences in "
    "exp/tanh compound",
)
TOL_EXACT_FLOAT = (
    0.0,
    0.0,
    "only selection, comparison, data movement and single correctly "
    "rounded float ops (max, masks, gathers, sorts, one add or multiply per "
    "element): bit-exact",
)
TOL_BF16 = (
    2e-2,
    2e-2,
    "bf16 has an 8-bit significand (one ulp is 2^-8 = 0.4% relative); "
    "rounding after each op and summation order can move results by a few "
    "ulps",
)


# ---------------------------------------------------------------------------
# Helpers for realistic inputs
# ---------------------------------------------------------------------------


def rng_for(name):
    """A NumPy generator seeded from the program's name (stable across runs)."""
    return np.random.default_rng(zlib.crc32(name.encode()))


def weights(rng, fan_in, fan_out, dtype=np.float32):
    """Glorot-like weights scaled by 1/sqrt(fan_in)."""
    w = rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)
    return w.astype(dtype)


def normal(rng, shape, scale=1.0, dtype=np.float32):
    return (rng.standard_normal(shape) * scale).astype(dtype)


# ---------------------------------------------------------------------------
# The programs. Each returns (function, [(name, array), ...], tolerance,
# description). Functions take the arrays positionally, so the HLO
# parameters are the inputs in order.
# ---------------------------------------------------------------------------

PROGRAMS = {}


def program(fn):
    PROGRAMS[fn.__name__] = fn
    return fn


def mlp_loss(w1, b1, w2, b2, x, y):
    h = jnp.tanh(x @ w1 + b1)
    pred = h @ w2 + b2
    return jnp.mean((pred - y) ** 2)


@program
def mlp_train_step(name):
    """value_and_grad of a 2-layer MLP (tanh) with MSE loss, then SGD."""
    rng = rng_for(name)
    w1, b1 = weights(rng, 4, 8), normal(rng, (8,), 0.1)
    w2, b2 = weights(rng, 8, 3), normal(rng, (3,), 0.1)
    x, y = normal(rng, (6, 4)), normal(rng, (6, 3))

    def step(w1, b1, w2, b2, x, y):
        loss, grads = jax.value_and_grad(mlp_loss, argnums=(0, 1, 2, 3))(
            w1, b1, w2, b2, x, y
        )
        lr = 0.1
        new = [p - lr * g for p, g in zip((w1, b1, w2, b2), grads)]
        return (loss, *new)

    args = [("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2), ("x", x), ("y", y)]
    return step, args, TOL_F32_DEEP, mlp_train_step.__doc__


@program
def cnn_forward(name):
    """conv 3x3 (NHWC, SAME) + bias + relu + 2x2 max-pool + dense logits."""
    rng = rng_for(name)
    images = normal(rng, (2, 8, 8, 3))
    kernel = normal(rng, (3, 3, 3, 4), 1 / np.sqrt(27))
    bias = normal(rng, (4,), 0.1)
    dense = weights(rng, 4 * 4 * 4, 5)

    def f(images, kernel, bias, dense):
        y = lax.conv_general_dilated(
            images,
            kernel,
            window_strides=(1, 1),
            padding="SAME",
            dimension_numbers=("NHWC", "HWIO", "NHWC"),
        )
        y = jax.nn.relu(y + bias)
        y = lax.reduce_window(
            y, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"
        )
        return y.reshape(y.shape[0], -1) @ dense

    args = [("images", images), ("kernel", kernel), ("bias", bias), ("dense", dense)]
    return f, args, TOL_F32_SUMS, cnn_forward.__doc__


@program
def gru_scan(name):
    """A GRU cell run by lax.scan over 8 steps; final state and every state."""
    rng = rng_for(name)
    hidden, feat, batch, steps = 8, 4, 2, 8
    wx = weights(rng, feat, 3 * hidden)
    wh = weights(rng, hidden, 3 * hidden)
    b = normal(rng, (3 * hidden,), 0.1)
    xs = normal(rng, (steps, batch, feat))
    h0 = np.zeros((batch, hidden), np.float32)

    def f(wx, wh, b, xs, h0):
        def cell(h, x):
            gx = x @ wx + b
            gh = h @ wh
            zx, rx, nx = jnp.split(gx, 3, axis=-1)
            zh, rh, nh = jnp.split(gh, 3, axis=-1)
            z = jax.nn.sigmoid(zx + zh)
            r = jax.nn.sigmoid(rx + rh)
            n = jnp.tanh(nx + r * nh)
            h = (1 - z) * n + z * h
            return h, h

        return lax.scan(cell, h0, xs)

    args = [("wx", wx), ("wh", wh), ("b", b), ("xs", xs), ("h0", h0)]
    return f, args, TOL_F32_DEEP, gru_scan.__doc__


@program
def embedding_lookup(name):
    """An embedding table lookup (gather) of token ids, scaled."""
    rng = rng_for(name)
    table = normal(rng, (16, 8), 0.5)
    ids = rng.integers(0, 16, size=(2, 5)).astype(np.int32)

    def f(table, ids):
        return table[ids] * np.float32(np.sqrt(8.0))

    return f, [("table", table), ("ids", ids)], TOL_EXACT_FLOAT, embedding_lookup.__doc__


@program
def embedding_grad(name):
    """The gradient of an embedding lookup w.r.t. the table: a scatter-add."""
    rng = rng_for(name)
    table = normal(rng, (16, 8), 0.5)
    ids = rng.integers(0, 16, size=(2, 5)).astype(np.int32)
    ids[1, 3] = ids[0, 1]  # a repeated id, so the scatter really adds
    cotangent = normal(rng, (2, 5, 8))

    def f(table, ids, cotangent):
        def loss(t):
            return jnp.sum(t[ids] * cotangent)

        return jax.grad(loss)(table)

    args = [("table", table), ("ids", ids), ("cotangent", cotangent)]
    return f, args, TOL_F32_SUMS, embedding_grad.__doc__


@program
def cross_entropy(name):
    """Softmax cross-entropy with integer labels (take_along_axis), mean loss."""
    rng = rng_for(name)
    logits = normal(rng, (4, 10), 2.0)
    labels = rng.integers(0, 10, size=(4,)).astype(np.int32)

    def f(logits, labels):
        logp = jax.nn.log_softmax(logits, axis=-1)
        picked = jnp.take_along_axis(logp, labels[:, None], axis=-1)[:, 0]
        return -jnp.mean(picked), picked

    args = [("logits", logits), ("labels", labels)]
    return f, args, TOL_F32_TRANSCENDENTAL, cross_entropy.__doc__


@program
def argmax_argmin(name):
    """argmax over the last axis and argmin over the first (variadic reduce)."""
    rng = rng_for(name)
    x = normal(rng, (4, 7))
    x[2, 3] = x[2, 5] = x[2].max() + 1.0  # a tie: the first index wins

    def f(x):
        return jnp.argmax(x, axis=-1), jnp.argmin(x, axis=0)

    return f, [("x", x)], TOL_EXACT_FLOAT, argmax_argmin.__doc__


@program
def sort_topk(name):
    """jnp.sort along the last axis, jnp.argsort, and lax.top_k (k=3)."""
    rng = rng_for(name)
    x = normal(rng, (3, 8))
    x[1, 2] = x[1, 6]  # a tie: stable order decides the indices

    def f(x):
        values, indices = lax.top_k(x, 3)
        return jnp.sort(x, axis=-1), jnp.argsort(x, axis=-1), values, indices

    return f, [("x", x)], TOL_EXACT_FLOAT, sort_topk.__doc__


@program
def sort_special_values(name):
    """jnp.sort along the last axis and along the first of floats with NaN,
    -NaN, +0, -0, infinities and ties (JAX's comparator: TOTALORDER after
    mapping -0 to +0 and every NaN to one)."""
    rng = rng_for(name)
    x = rng.integers(-3, 4, size=(3, 8)).astype(np.float32)
    x[0, 1], x[0, 5] = np.nan, -np.float32(np.nan)
    x[1, 0], x[1, 3], x[1, 6] = -0.0, 0.0, -0.0
    x[2, 2], x[2, 7] = np.inf, -np.inf

    def f(x):
        return jnp.sort(x, axis=-1), jnp.sort(x, axis=0)

    return f, [("x", x)], TOL_EXACT_FLOAT, sort_special_values.__doc__


@program
def dropout(name):
    """Dropout with jax.random: split a threefry key, bernoulli mask, rescale."""
    rng = rng_for(name)
    key = np.asarray(jax.random.key_data(jax.random.PRNGKey(42)), np.uint32)
    x = normal(rng, (4, 8))

    def f(key, x):
        key, sub = jax.random.split(key)
        keep = jax.random.bernoulli(sub, 0.8, x.shape)
        return jnp.where(keep, x / 0.8, 0.0), key

    tol = (
        3e-7,
        0.0,
        "XLA's algebraic simplifier turns the division by the constant 0.8 "
        "into a multiplication by its f32 reciprocal, so JAX's results can "
        "differ from the division the HLO text states by one ulp",
    )
    return f, [("key", key), ("x", x)], tol, dropout.__doc__


@program
def cumsum_cummax(name):
    """cumsum (f32 and s32) and cummax along an axis."""
    rng = rng_for(name)
    x = normal(rng, (4, 6))
    n = rng.integers(-5, 6, size=(4, 6)).astype(np.int32)

    def f(x, n):
        return jnp.cumsum(x, axis=1), lax.cummax(x, axis=0), jnp.cumsum(n, axis=1)

    return f, [("x", x), ("n", n)], TOL_F32_SUMS, cumsum_cummax.__doc__


@program
def kv_cache_attention(name):
    """Decode step: write k/v at a runtime position (dynamic_update_slice),
    then attend over the cache with positions after it masked out."""
    rng = rng_for(name)
    seq, dim = 16, 8
    k_cache = normal(rng, (seq, dim))
    v_cache = normal(rng, (seq, dim))
    k_cache[6:] = 0.0
    v_cache[6:] = 0.0
    q, k, v = normal(rng, (1, dim)), normal(rng, (1, dim)), normal(rng, (1, dim))
    pos = np.array(6, np.int32)

    def f(k_cache, v_cache, q, k, v, pos):
        k_cache = lax.dynamic_update_slice(k_cache, k, (pos, 0))
        v_cache = lax.dynamic_update_slice(v_cache, v, (pos, 0))
        scores = (q @ k_cache.T) / np.float32(np.sqrt(dim))
        mask = jnp.arange(seq)[None, :] <= pos
        scores = jnp.where(mask, scores, -1e30)
        out = jax.nn.softmax(scores, axis=-1) @ v_cache
        return out, k_cache, v_cache

    args = [
        ("k_cache", k_cache),
        ("v_cache", v_cache),
        ("q", q),
        ("k", k),
        ("v", v),
        ("pos", pos),
    ]
    return f, args, TOL_F32_TRANSCENDENTAL, kv_cache_attention.__doc__


@program
def popcount_hash(name):
    """Integer hashing: shifts, xor, multiply, population_count and clz."""
    rng = rng_for(name)
    x = rng.integers(0, 2**32, size=(16,), dtype=np.uint64).astype(np.uint32)
    x[0], x[1] = 0, 0xFFFFFFFF

    def f(x):
        h = x ^ lax.shift_right_logical(x, np.uint32(16))
        h = h * np.uint32(0x45D9F3B)
        h = h ^ lax.shift_right_logical(h, np.uint32(16))
        h = h ^ lax.shift_left(h, np.uint32(5))
        bits = lax.population_count(h)
        lead = lax.clz(x)
        bucket = lax.convert_element_type(h % np.uint32(13), np.int32)
        return h, bits, lead, bucket

    return f, [("x", x)], TOL_EXACT_FLOAT, popcount_hash.__doc__


@program
def cond_switch(name):
    """lax.cond on a runtime predicate and lax.switch on a runtime index."""
    rng = rng_for(name)
    x = normal(rng, (5,))
    index = np.array(2, np.int32)

    def f(x, index):
        a = lax.cond(jnp.sum(x) > 0, lambda v: v * 2.0, lambda v: v - 1.0, x)
        branches = [lambda v: v + 1.0, lambda v: jnp.maximum(v, 0.0), lambda v: -v]
        b = lax.switch(index, branches, x)
        c = lax.switch(index - 2, branches, x)
        return a, b, c

    return f, [("x", x), ("index", index)], TOL_EXACT_FLOAT, cond_switch.__doc__


@program
def checkpoint_block(name):
    """Gradients through a jax.checkpoint (rematerialised) block of two
    dense+tanh layers."""
    rng = rng_for(name)
    w1, w2 = weights(rng, 6, 6), weights(rng, 6, 6)
    x = normal(rng, (3, 6))

    def f(w1, w2, x):
        @jax.checkpoint
        def block(w1, w2, x):
            return jnp.tanh(jnp.tanh(x @ w1) @ w2)

        def loss(w1, w2):
            return jnp.sum(block(w1, w2, x) ** 2)

        return jax.value_and_grad(loss, argnums=(0, 1))(w1, w2)

    return f, [("w1", w1), ("w2", w2), ("x", x)], TOL_F32_DEEP, checkpoint_block.__doc__


@program
def fori_loop_power(name):
    """Power iteration with lax.fori_loop (a while loop with a counter)."""
    rng = rng_for(name)
    a = normal(rng, (5, 5))
    a = (a + a.T) / 2
    v = np.full((5,), 1 / np.sqrt(5.0), np.float32)

    def f(a, v):
        def body(_, v):
            w = a @ v
            return w / jnp.linalg.norm(w)

        v = lax.fori_loop(0, 10, body, v)
        return v, v @ a @ v

    return f, [("a", a), ("v", v)], TOL_F32_DEEP, fori_loop_power.__doc__


@program
def layer_norm(name):
    """Layer normalisation over the last axis with scale and offset."""
    rng = rng_for(name)
    x = normal(rng, (4, 16), 3.0)
    gamma = (1 + normal(rng, (16,), 0.1)).astype(np.float32)
    beta = normal(rng, (16,), 0.1)

    def f(x, gamma, beta):
        mean = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
        return (x - mean) * lax.rsqrt(var + 1e-5) * gamma + beta

    return f, [("x", x), ("gamma", gamma), ("beta", beta)], TOL_F32_SUMS, layer_norm.__doc__


@program
def softmax(name):
    """jax.nn.softmax over the last axis (max-subtracted)."""
    rng = rng_for(name)
    x = normal(rng, (4, 10), 3.0)

    def f(x):
        return jax.nn.softmax(x, axis=-1)

    return f, [("x", x)], TOL_F32_TRANSCENDENTAL, softmax.__doc__


@program
def gelu(name):
    """jax.nn.gelu, tanh approximation and exact (erf) form."""
    rng = rng_for(name)
    x = normal(rng, (32,), 2.0)

    def f(x):
        return jax.nn.gelu(x, approximate=True), jax.nn.gelu(x, approximate=False)

    return f, [("x", x)], TOL_F32_TRANSCENDENTAL, gelu.__doc__


@program
def attention_block(name):
    """A pre-norm transformer block: layer norm, causal 2-head self-attention,
    residual, layer norm, gelu MLP, residual."""
    rng = rng_for(name)
    seq, d, heads, hidden = 6, 8, 2, 16
    x = normal(rng, (seq, d))
    wqkv = weights(rng, d, 3 * d)
    wo = weights(rng, d, d)
    w1, w2 = weights(rng, d, hidden), weights(rng, hidden, d)

    def ln(x):
        mean = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.var(x, axis=-1, keepdims=True)
        return (x - mean) / jnp.sqrt(var + 1e-5)

    def f(x, wqkv, wo, w1, w2):
        q, k, v = jnp.split(ln(x) @ wqkv, 3, axis=-1)
        q = q.reshape(seq, heads, d // heads).transpose(1, 0, 2)
        k = k.reshape(seq, heads, d // heads).transpose(1, 0, 2)
        v = v.reshape(seq, heads, d // heads).transpose(1, 0, 2)
        s = jnp.einsum("hqd,hkd->hqk", q, k) / np.float32(np.sqrt(d // heads))
        causal = jnp.tril(jnp.ones((seq, seq), bool))
        s = jnp.where(causal, s, -jnp.inf)
        a = jnp.einsum("hqk,hkd->hqd", jax.nn.softmax(s, axis=-1), v)
        x = x + a.transpose(1, 0, 2).reshape(seq, d) @ wo
        return x + jax.nn.gelu(ln(x) @ w1) @ w2

    args = [("x", x), ("wqkv", wqkv), ("wo", wo), ("w1", w1), ("w2", w2)]
    return f, args, TOL_F32_DEEP, attention_block.__doc__


@program
def bf16_train_step(name):
    """The 2-layer MLP training step with bf16 parameters and data."""
    rng = rng_for(name)
    w1, b1 = weights(rng, 4, 8, BF16), normal(rng, (8,), 0.1, BF16)
    w2, b2 = weights(rng, 8, 3, BF16), normal(rng, (3,), 0.1, BF16)
    x, y = normal(rng, (6, 4), 1.0, BF16), normal(rng, (6, 3), 1.0, BF16)

    def step(w1, b1, w2, b2, x, y):
        loss, grads = jax.value_and_grad(mlp_loss, argnums=(0, 1, 2, 3))(
            w1, b1, w2, b2, x, y
        )
        lr = 0.1
        new = [(p - lr * g).astype(BF16) for p, g in zip((w1, b1, w2, b2), grads)]
        return (loss, *new)

    args = [("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2), ("x", x), ("y", y)]
    return step, args, TOL_BF16, bf16_train_step.__doc__


@program
def bf16_matmul_f32_acc(name):
    """A bf16 x bf16 matmul accumulated in f32 (preferred_element_type)."""
    rng = rng_for(name)
    a = normal(rng, (4, 16), 1.0, BF16)
    b = weights(rng, 16, 5, BF16)

    def f(a, b):
        return lax.dot(a, b, preferred_element_type=jnp.float32)

    return (
        f,
        [("a", a), ("b", b)],
        (
            1e-5,
            1e-6,
            "products of two bf16 values are exact in f32; only the f32 "
            "summation order may differ",
        ),
        bf16_matmul_f32_acc.__doc__,
    )


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------

def hlo_ops(text):
    return sorted(xla_corpus.instruction_ops(xla_corpus.without_comments(text)))


def hlo_element_types(text):
    return xla_corpus.element_types(xla_corpus.without_comments(text))


def dtype_name(a):
    return str(np.asarray(a).dtype)


ML_DTYPES = {np.dtype(getattr(ml_dtypes, n)) for n in ("bfloat16",) + tuple(
    n for n in dir(ml_dtypes) if n.startswith(("float8_", "float4_", "int4", "uint4", "int2", "uint2"))
)}


def save_npy(path, a):
    """np.save, except for ml_dtypes types (bf16, float8, int4, ...): numpy
    would write their descr as a bare void ('<V2'), losing the type, so the
    header names the type as ml_dtypes does ('bfloat16'); np.load reads it
    back once ml_dtypes is imported. The data is little-endian, C order."""
    a = np.asarray(a)  # (np.ascontiguousarray would make a scalar 1-d)
    if a.dtype not in ML_DTYPES:
        np.save(path, a, allow_pickle=False)
        return
    with open(path, "wb") as f:
        header = {"descr": a.dtype.name, "fortran_order": False, "shape": a.shape}
        np.lib.format.write_array_header_1_0(f, header)
        f.write(a.astype(a.dtype.newbyteorder("<")).tobytes(order="C"))
    back = np.load(path)
    assert back.dtype == a.dtype and back.shape == a.shape and back.tobytes() == a.tobytes()


def fmt_float(x):
    return repr(float(x))


def write_program(name, out_dir):
    fn, named_args, (rtol, atol, reason), doc = PROGRAMS[name](name)
    names = [n for n, _ in named_args]
    arrays = [np.asarray(a) for _, a in named_args]
    jitted = jax.jit(fn, keep_unused=True)
    lowered = jitted.lower(*arrays)
    hlo_text = lowered.compiler_ir("hlo").as_hlo_text()
    stablehlo_text = lowered.as_text()
    outputs = [np.asarray(o) for o in jax.tree_util.tree_leaves(jitted(*arrays))]

    d = out_dir / name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    (d / "program.hlo").write_text(hlo_text)
    (d / "program.stablehlo.mlir").write_text(stablehlo_text)
    inputs_meta, outputs_meta = [], []
    for i, (n, a) in enumerate(zip(names, arrays)):
        save_npy(d / f"in{i}.npy", a)
        inputs_meta.append(
            {"file": f"in{i}.npy", "name": n, "dtype": dtype_name(a), "shape": list(a.shape)}
        )
    for i, o in enumerate(outputs):
        save_npy(d / f"out{i}.npy", o)
        outputs_meta.append({"file": f"out{i}.npy", "dtype": dtype_name(o), "shape": list(o.shape)})
    ops = hlo_ops(hlo_text)
    types = hlo_element_types(hlo_text)
    meta = {
        "name": name,
        "description": " ".join(doc.split()),
        "jax_version": jax.__version__,
        "inputs": inputs_meta,
        "outputs": outputs_meta,
        "hlo_ops": ops,
        "element_types": types,
        "tolerance": {
            "rtol": rtol,
            "atol": atol,
            "reason": reason,
            "applies_to": "float outputs; integer and pred outputs are compared bit-exact",
        },
    }
    (d / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return [
        name,
        str(len(arrays)),
        str(len(outputs)),
        fmt_float(rtol),
        fmt_float(atol),
        ",".join(types),
        ",".join(ops),
    ]


INDEX_HEADER = """\
# The JAX program corpus (written by scripts/jax_programs.py; do not edit).
# One program a line: name, inputs, outputs, rtol, atol, element types, HLO ops.
# Float outputs match when |oxla - jax| <= atol + rtol * |jax| elementwise
# (NaN matches NaN); integer and pred outputs match bit-exact.
name\tinputs\toutputs\trtol\tatol\telement_types\tops
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    parser.add_argument("--only", nargs="*", help="write only these programs")
    args = parser.parse_args()
    if jax.__version__ != JAX_VERSION:
        print(
            f"jax {jax.__version__} found; the corpus is made with jax {JAX_VERSION}",
            file=sys.stderr,
        )
        return 2
    names = args.only or list(PROGRAMS)
    unknown = [n for n in names if n not in PROGRAMS]
    if unknown:
        print(f"unknown programs: {unknown}; known: {list(PROGRAMS)}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    index_path = args.out / "programs.tsv"
    rows = {}
    if args.only and index_path.exists():
        for line in index_path.read_text().splitlines():
            if line and not line.startswith("#") and not line.startswith("name\t"):
                rows[line.split("\t")[0]] = line.split("\t")
    for name in names:
        rows[name] = write_program(name, args.out)
        print(f"{name}: {rows[name][2]} outputs, ops: {rows[name][6]}")
    with index_path.open("w") as f:
        f.write(INDEX_HEADER)
        for name in PROGRAMS:
            if name in rows:
                f.write("\t".join(rows[name]) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
