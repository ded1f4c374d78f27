#!/usr/bin/env python3
"""JAX's sorts as `.hlo` test modules: tests/hlo/sort/jax.hlo.

Each case is a JAX function (jnp.sort with NaNs and signed zeros,
jnp.sort along a leading axis, jnp.argsort, lax.sort of several operands,
lax.top_k). This script writes, per case, the HLO text JAX prints for it
(`jax.jit(f).lower(*args).as_text(dialect="hlo")`) as a module, with a
`// run:` line holding the inputs and JAX's outputs on the CPU, so the
`.hlo` runner checks that oxla's interpreter gives JAX's values bit for
bit (-0 and +0 apart; NaNs match NaNs).

Usage (jax 0.10.2 on the CPU):
  ~/venvs/oxla-models/bin/python scripts/sort_jax_cases.py

The output is deterministic: running it twice writes the same bytes.
"""

import sys
import textwrap
import zlib
from pathlib import Path

import jax

jax.config.update("jax_platforms", "cpu")

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "hlo" / "sort" / "jax.hlo"
JAX_VERSION = "0.10.2"

# Values a sort must place exactly: both NaNs, both zeros, both
# infinities, ties.
SPECIAL = [np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 1.5, -1.5, 1.5, 0.0, -0.0, 2.0]


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def special_f32():
    x = np.array(SPECIAL, np.float32)
    x[1] = -np.float32(np.nan)  # a NaN with the sign bit set
    return x


CASES = []


def case(fn):
    CASES.append(fn)
    return fn


@case
def jnp_sort_special_values():
    """jnp.sort of NaN, -NaN, +0, -0, +inf, -inf and ties. JAX's comparator
    maps -0 to +0 and every NaN to one NaN before a TOTALORDER LT, so equal
    keys (the zeros, the NaNs, the two 1.5s) keep their order: the stable
    sort keeps +0 before -0 as in the input, and NaN before -NaN."""
    return jnp.sort, [special_f32()]


@case
def jnp_sort_leading_axis():
    """jnp.sort along axis 0 of a matrix (a sort along a non-last axis)."""
    x = rng_for("leading").integers(-3, 4, size=(4, 3)).astype(np.float32)
    x[1, 2], x[3, 0] = -0.0, np.nan
    return (lambda a: jnp.sort(a, axis=0)), [x]


@case
def jnp_sort_s32_rows():
    """jnp.sort of s32 rows, the extremes included (a SIGNED LT)."""
    x = rng_for("s32").integers(-50, 50, size=(2, 6)).astype(np.int32)
    x[0, 1], x[1, 4] = np.iinfo(np.int32).min, np.iinfo(np.int32).max
    return jnp.sort, [x]


@case
def jnp_sort_descending():
    """jnp.sort(descending=True): JAX sorts ascending and reverses."""
    return (lambda a: jnp.sort(a, descending=True)), [special_f32()]


@case
def jnp_argsort_special_values():
    """jnp.argsort: a stable sort of (x, iota) whose indices show where
    every zero and NaN went."""
    return (lambda a: lax.sort((a, lax.iota(np.int32, a.shape[0])), num_keys=1)), [
        special_f32()
    ]


@case
def lax_sort_two_keys():
    """lax.sort of three operands by the first two (num_keys=2): f32 keys
    with ties, broken by s32 keys; the third operand rides along."""
    rng = rng_for("two_keys")
    k0 = rng.integers(0, 3, size=(8,)).astype(np.float32)
    k0[5] = -0.0
    k1 = rng.integers(-2, 3, size=(8,)).astype(np.int32)
    v = np.arange(8, dtype=np.float32) * 10
    return (lambda a, b, c: lax.sort((a, b, c), num_keys=2)), [k0, k1, v]


@case
def lax_top_k_rows():
    """lax.top_k (k=3) of rows with ties and NaNs: +NaN is the largest,
    -NaN the smallest, ties keep the lower index."""
    x = rng_for("top_k").integers(-2, 3, size=(3, 7)).astype(np.float32)
    x[0, 4], x[1, 0], x[2, 6] = np.nan, -np.float32(np.nan), -0.0
    return (lambda a: lax.top_k(a, 3)), [x]


def hlo_literal(a):
    """An array in XLA's literal text: `f32[2,3] {{1, 2, 3}, {4, 5, 6}}`."""
    a = np.asarray(a)
    ty = {
        np.float32: "f32",
        np.float64: "f64",
        np.int32: "s32",
        np.int64: "s64",
        np.uint8: "u8",
        np.bool_: "pred",
    }[a.dtype.type]

    def value(v):
        if a.dtype.kind == "b":
            return "true" if v else "false"
        if a.dtype.kind == "f":
            if np.isnan(v):
                return "-nan" if np.signbit(v) else "nan"
            if np.isinf(v):
                return "-inf" if v < 0 else "inf"
            if v == 0:
                return "-0" if np.signbit(v) else "0"
            return repr(float(v)).removesuffix(".0")
        return str(int(v))

    def nested(x):
        if x.ndim == 0:
            return value(x)
        return "{" + ", ".join(nested(y) for y in x) + "}"

    dims = ",".join(str(d) for d in a.shape)
    body = nested(a) if a.ndim else value(a)
    return f"{ty}[{dims}] {body}"


def main():
    if jax.__version__ != JAX_VERSION:
        print(f"jax {jax.__version__} found; the cases are made with jax {JAX_VERSION}",
              file=sys.stderr)
        return 2
    parts = [
        "// JAX's sorts, written by scripts/sort_jax_cases.py (do not edit): each\n"
        "// module is the HLO text jax 0.10.2 prints for the function named in its\n"
        "// comment, and its run line holds JAX's inputs and JAX's outputs on the\n"
        "// CPU, so oxla's interpreter must give JAX's values bit for bit.\n"
    ]
    for fn in CASES:
        f, args = fn()
        lowered = jax.jit(f).lower(*args)
        text = lowered.as_text(dialect="hlo").strip()
        outputs = [np.asarray(o) for o in jax.tree_util.tree_leaves(jax.jit(f)(*args))]
        name = text.split()[1].rstrip(",")
        new_name = fn.__name__
        text = text.replace(f"HloModule {name}", f"HloModule {new_name}", 1)
        doc = " ".join(fn.__doc__.split())
        lines = [f"// {line}" for line in textwrap.wrap(doc, 74)]
        args_text = ", ".join(hlo_literal(a) for a in args)
        if len(outputs) == 1:
            want = hlo_literal(outputs[0])
        else:
            want = "(" + ", ".join(hlo_literal(o) for o in outputs) + ")"
        lines.append(f"// run: {args_text}")
        lines.append(f"//   -> {want}")
        lines.append("// jit: unsupported")
        parts.append("\n".join(lines) + "\n" + text + "\n")
    OUT.write_text("\n".join(parts))
    print(f"wrote {OUT.relative_to(REPO)}: {len(CASES)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
