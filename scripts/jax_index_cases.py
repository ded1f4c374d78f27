#!/usr/bin/env python3
"""Writes tests/hlo/indexing/jax_programs.hlo: small JAX programs that need
only gather, scatter, dynamic-slice and dynamic-update-slice (plus ops oxla
already has), as JAX prints their HLO, each with a `// run:` line whose
expected value is JAX's own result on the CPU (XLA).

Run from the repository root with a Python that has jax (the versions used
are recorded in the file's header):

    python scripts/jax_index_cases.py

The inputs are chosen to hit XLA's edge cases: negative and out-of-range
gather indices (clamped), repeated scatter indices (every update applied),
out-of-range scatter windows (skipped whole), out-of-range dynamic-slice
and dynamic-update-slice starts (clamped), batched (vmap) gathers and
scatters (operand_batching_dims), unsigned indices.
"""

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

OUT = Path(__file__).resolve().parent.parent / "tests" / "hlo" / "indexing" / "jax_programs.hlo"

TYPES = {
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
    np.dtype(np.int8): "s8",
    np.dtype(np.int16): "s16",
    np.dtype(np.int32): "s32",
    np.dtype(np.int64): "s64",
    np.dtype(np.uint8): "u8",
    np.dtype(np.uint16): "u16",
    np.dtype(np.uint32): "u32",
    np.dtype(np.uint64): "u64",
    np.dtype(np.bool_): "pred",
}


def value_text(x):
    if x.dtype == np.bool_:
        return "true" if x else "false"
    if np.issubdtype(x.dtype, np.floating):
        if np.isnan(x):
            return "nan"
        if np.isinf(x):
            return "inf" if x > 0 else "-inf"
        text = repr(float(x))
        # Exactly representable values only (the cases use small dyadic
        # rationals), so the decimal reads back to the same bits.
        assert np.array(float(text), dtype=x.dtype) == x, text
        return text[:-2] if text.endswith(".0") else text
    return str(int(x))


def literal(a):
    a = np.asarray(a)
    shape = f"{TYPES[a.dtype]}[{','.join(str(d) for d in a.shape)}]"

    def nest(x):
        if x.ndim == 0:
            return value_text(x[()])
        return "{" + ", ".join(nest(y) for y in x) + "}"

    return f"{shape} {nest(a)}"


def case(name, comment, f, *args):
    args = [np.asarray(a) for a in args]
    lowered = jax.jit(f).lower(*args)
    hlo = lowered.as_text(dialect="hlo")
    result = np.asarray(jax.jit(f)(*args))
    lines = [f"// {c}" for c in comment.strip().split("\n")]
    lines.append("// run: " + ", ".join(literal(a) for a in args))
    lines.append("//   -> " + literal(result))
    # The JIT does not compile the indexing ops yet (the runner checks that
    # it refuses them by name).
    lines.append("// jit: unsupported")
    # A module name of our own (JAX names them all jit_f).
    hlo = hlo.replace("HloModule " + hlo.split()[1].rstrip(","), f"HloModule {name}", 1)
    return "\n".join(lines) + "\n" + hlo.strip() + "\n"


def cases():
    f32 = np.float32
    table = np.arange(30, dtype=f32).reshape(10, 3) / 4
    yield case(
        "jax_embedding_lookup",
        "table[ids]: JAX wraps negative ids (select), XLA's gather clamps\n"
        "the rest (12 reads row 9).",
        lambda t, i: t[i],
        table,
        np.array([0, 3, -1, 12, 9], np.int32),
    )
    x = np.arange(12, dtype=f32).reshape(3, 4)
    yield case(
        "jax_take_along_axis",
        "jnp.take_along_axis along the last axis.",
        lambda x, i: jnp.take_along_axis(x, i, axis=1),
        x,
        np.array([[3, 0], [1, 1], [2, 3]], np.int32),
    )
    yield case(
        "jax_gather_2d_points",
        "x[rows, cols]: an index vector of two entries per point.",
        lambda x, r, c: x[r, c],
        x,
        np.array([0, 2, 1, 2], np.int32),
        np.array([3, 0, 2, 5], np.int32),
    )
    yield case(
        "jax_gather_rows_and_slice",
        "x[ids, 1:3]: a gather of rows then a slice.",
        lambda x, i: x[i, 1:3],
        x,
        np.array([2, 0], np.int32),
    )
    yield case(
        "jax_scatter_add_repeated_and_out_of_range",
        "x.at[idx].add(u): the repeated index 1 gets both updates; 7 and\n"
        "-10 (wrapped to -4) are out of range, their updates are dropped.",
        lambda x, i, u: x.at[i].add(u),
        np.zeros(6, f32),
        np.array([1, 1, 7, -1, -10], np.int32),
        np.array([1, 2, 4, 8, 16], f32),
    )
    yield case(
        "jax_scatter_set_repeated",
        "x.at[idx].set(u) with a repeated index: XLA applies the updates\n"
        "in order, so the last one wins.",
        lambda x, i, u: x.at[i].set(u),
        np.zeros(5, f32),
        np.array([2, 4, 2, 2], np.int32),
        np.array([1, 2, 3, 4], f32),
    )
    yield case(
        "jax_scatter_add_rows",
        "x.at[ids].add(rows): windows of a whole row; a repeated row adds twice.",
        lambda x, i, u: x.at[i].add(u),
        np.ones((4, 3), f32),
        np.array([3, 0, 3], np.int32),
        np.arange(9, dtype=f32).reshape(3, 3),
    )
    yield case(
        "jax_scatter_max",
        "x.at[idx].max(u).",
        lambda x, i, u: x.at[i].max(u),
        np.array([5, 0, 5, 0], f32),
        np.array([0, 1, 1, 3], np.int32),
        np.array([3, 7, 9, -2], f32),
    )
    yield case(
        "jax_scatter_mul_s32",
        "x.at[idx].multiply(u) on integers.",
        lambda x, i, u: x.at[i].multiply(u),
        np.array([1, 2, 3, 4], np.int32),
        np.array([0, 0, 3, 2], np.int32),
        np.array([5, -1, 2, 7], np.int32),
    )
    yield case(
        "jax_dynamic_slice_clamped",
        "lax.dynamic_slice with starts past the end: clamped to (2, 1);\n"
        "JAX wraps a negative start (-7 becomes -3), then XLA clamps it to 0.",
        lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 3)),
        np.arange(16, dtype=f32).reshape(4, 4),
        np.int32(5),
        np.int32(-7),
    )
    yield case(
        "jax_dynamic_update_slice_clamped",
        "lax.dynamic_update_slice with out-of-range starts: the update is\n"
        "shifted back inside (start (3, 9) becomes (2, 2)).",
        lambda x, u, i, j: lax.dynamic_update_slice(x, u, (i, j)),
        np.zeros((4, 4), f32),
        np.array([[1, 2], [3, 4]], f32),
        np.int32(3),
        np.int32(9),
    )
    yield case(
        "jax_kv_cache_write",
        "A KV-cache write: one row at position pos of a [8,2] cache.",
        lambda c, r, p: lax.dynamic_update_slice(c, r[None, :], (p, 0)),
        np.zeros((8, 2), f32),
        np.array([5, 6], f32),
        np.int32(6),
    )
    yield case(
        "jax_vmap_gather",
        "jax.vmap of a row gather: a batched gather (operand_batching_dims).",
        jax.vmap(lambda r, j: r[j]),
        np.arange(20, dtype=f32).reshape(4, 5),
        np.array([[0, 4], [1, 1], [4, 0], [2, 3]], np.int32),
    )
    yield case(
        "jax_vmap_scatter_add",
        "jax.vmap of a scatter-add: a batched scatter (input_batching_dims).",
        jax.vmap(lambda r, j, u: r.at[j].add(u)),
        np.zeros((3, 4), f32),
        np.array([[0, 0], [3, 1], [2, 9]], np.int32),
        np.array([[1, 2], [3, 4], [5, 6]], f32),
    )
    yield case(
        "jax_gather_u32_indices",
        "Unsigned indices are not wrapped; 4000000000 clamps to the last row.",
        lambda t, i: t[i],
        table,
        np.array([1, 4000000000, 0], np.uint32),
    )
    yield case(
        "jax_dynamic_slice_u8",
        "dynamic_slice with a u8 start past the end.",
        lambda x, i: lax.dynamic_slice(x, (i,), (3,)),
        np.arange(6, dtype=np.int32),
        np.uint8(200),
    )


def main():
    body = "\n".join(cases())
    header = (
        "// JAX programs that need only the indexing family (gather, scatter,\n"
        "// dynamic-slice, dynamic-update-slice), as JAX prints their HLO; every\n"
        "// expected value is JAX's own result (XLA on the CPU). Written by\n"
        f"// scripts/jax_index_cases.py with jax {jax.__version__}; do not edit by hand.\n\n"
    )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(header + body)
    print(f"wrote {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
