#!/usr/bin/env python3
"""Writes tests/data/jax_ctrl/: small JAX programs that need tuples, loops,
branches, argmax-style variadic reduces and optimization barriers, as the HLO
text JAX prints, with their inputs and JAX's outputs as .npy files.

    ~/venvs/oxla-models/bin/python scripts/jax_ctrl.py            # write the data
    ~/venvs/oxla-models/bin/python scripts/jax_ctrl.py --check target/debug/oxla

For each program NAME it writes NAME.hlo (`jax.jit(f).lower(*args)
.as_text(dialect="hlo")`), NAME.in<k>.npy (the arguments) and NAME.out<k>.npy
(the leaves of JAX's result, in order). `crates/oxla/tests/jax_ctrl.rs` runs
every NAME.hlo in oxla's interpreter on those inputs and compares the result
with the outputs, so the tests need no Python.

With --check OXLA it also runs each program with `oxla run --backend interp` and
converts it with `oxla convert --to stablehlo`, then has XLA parse, compile
and run that MLIR text (as scripts/jax_interop.py does), comparing both with
JAX's outputs; it prints one line per program and exits 1 on a mismatch.
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "data" / "jax_ctrl"


def programs(jax, jnp, lax):
    """(name, function, arguments) of every program."""
    f32 = np.float32
    x23 = np.arange(6, dtype=f32).reshape(2, 3)

    def fori_sum(x):
        # i * x summed over i in 0..10: a counted while loop.
        return lax.fori_loop(0, 10, lambda i, c: c + x * i.astype(x.dtype), jnp.zeros_like(x))

    def fori_nested(x):
        # A loop in a loop: sum over i < 4, j < 3 of (i + j) * x.
        def outer(i, c):
            return lax.fori_loop(0, 3, lambda j, d: d + x * (i + j).astype(x.dtype), c)
        return lax.fori_loop(0, 4, outer, jnp.zeros_like(x))

    def scan_power(x):
        # A scan carrying only its state: x ** 5 by repeated products.
        return lax.scan(lambda c, _: (c * x, None), jnp.ones_like(x), None, length=5)[0]

    def while_collatz(n):
        # A data-dependent trip count: Collatz steps until 1, per element.
        def cond(s):
            return jnp.any(s[0] != 1)
        def body(s):
            v, steps = s
            done = v == 1
            nxt = jnp.where(v % 2 == 0, v // 2, 3 * v + 1)
            return jnp.where(done, v, nxt), steps + jnp.where(done, 0, 1)
        return lax.while_loop(cond, body, (n, jnp.zeros_like(n)))[1]

    def while_zero_trips(x):
        # The condition fails at once: the result is the initial state.
        return lax.while_loop(lambda s: s[0] > 100, lambda s: (s[0] + 1, s[1] * 2.0), (0, x))[1]

    def cond_pred(p, x):
        return lax.cond(p, lambda x: x + 1.0, lambda x: x * 2.0, x)

    def cond_tuple(p, x, y):
        # Several operands and results: a tuple through both branches.
        return lax.cond(p, lambda a, b: (a + b, a - b), lambda a, b: (a * b, b), x, y)

    def switch3(i, x):
        return lax.switch(i, [lambda x: x + 1.0, lambda x: x * 2.0, lambda x: -x], x)

    def argmax_rows(x):
        return jnp.argmax(x, axis=1)

    def argmin_cols(x):
        return jnp.argmin(x, axis=0)

    def argmax_int(x):
        return jnp.argmax(x, axis=-1)

    @jax.jit
    def stats(x):
        return x.sum(axis=0), x.max(axis=0)

    def nested_jit_tuple(x):
        s, m = stats(x)
        return s * m

    def opt_barrier(x):
        a, b = lax.optimization_barrier((x * 2.0, x + 1.0))
        return a - b

    def threefry_bits(k):
        return jax.random.bits(jax.random.wrap_key_data(k), (5,))

    nan_ties = np.array([[1, 5, 5, 2], [np.nan, 3, np.nan, 0], [-np.inf, -np.inf, -1, -1]], f32)
    return [
        ("fori_sum", fori_sum, (x23,)),
        ("fori_nested", fori_nested, (x23,)),
        ("scan_power", scan_power, (np.array([1, 2, 0.5, -3], f32),)),
        ("while_collatz", while_collatz, (np.array([1, 6, 7, 27], np.int32),)),
        ("while_zero_trips", while_zero_trips, (x23,)),
        ("cond_true", cond_pred, (np.bool_(True), x23)),
        ("cond_false", cond_pred, (np.bool_(False), x23)),
        ("cond_tuple", cond_tuple, (np.bool_(False), x23, x23 + 1)),
        ("switch_0", switch3, (np.int32(0), x23)),
        ("switch_2", switch3, (np.int32(2), x23)),
        ("switch_clamped", switch3, (np.int32(7), x23)),
        ("argmax_rows", argmax_rows, (nan_ties,)),
        ("argmin_cols", argmin_cols, (nan_ties,)),
        ("argmax_int", argmax_int, (np.array([[3, 9, 9, -2], [0, 0, 0, 0]], np.int32),)),
        ("nested_jit_tuple", nested_jit_tuple, (x23,)),
        ("opt_barrier", opt_barrier, (x23,)),
        ("threefry_bits", threefry_bits,
         (np.asarray(jax.random.key_data(jax.random.PRNGKey(42))),)),
    ]


def write(jax, jnp, lax):
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*"):
        if old.suffix in (".hlo", ".npy"):
            old.unlink()
    for name, fn, args in programs(jax, jnp, lax):
        lowered = jax.jit(fn).lower(*args)
        (OUT / f"{name}.hlo").write_text(lowered.as_text(dialect="hlo"))
        for k, a in enumerate(args):
            np.save(OUT / f"{name}.in{k}.npy", np.asarray(a))
        outs = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
        for k, o in enumerate(outs):
            np.save(OUT / f"{name}.out{k}.npy", np.asarray(o))
        print(f"wrote {name}: {len(args)} input(s), {len(outs)} output(s)")


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        return bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))
    return bool(np.array_equal(a, b))


def check(jax, oxla):
    sys.path.insert(0, str(REPO / "scripts"))
    from jax_interop import XlaRunner  # noqa: E402 (the same XLA runner)

    runner = XlaRunner(jax)
    failed = False
    for hlo in sorted(OUT.glob("*.hlo")):
        name = hlo.stem
        inputs = sorted(OUT.glob(f"{name}.in*.npy"))
        outputs = [np.load(p) for p in sorted(OUT.glob(f"{name}.out*.npy"))]
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "out.npy"
            cmd = [oxla, "run", str(hlo), "--backend", "interp", "--output", str(out)]
            for p in inputs:
                cmd += ["--input", str(p)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                got = None
                interp = f"oxla run failed: {r.stderr.strip()[:300]}"
            else:
                paths = [out] if out.exists() else sorted(Path(tmp).glob("out.*.npy"))
                got = [np.load(p) for p in paths]
                interp = "interp ok" if all(map(same, got, outputs)) and len(got) == len(outputs) \
                    else f"interp MISMATCH {[g.tolist() for g in got]}"
            mlir = Path(tmp) / "m.mlir"
            r = subprocess.run([oxla, "convert", str(hlo), "--to", "stablehlo", "--output",
                                str(mlir)], capture_output=True, text=True)
            if r.returncode != 0:
                xla = f"convert failed: {r.stderr.strip()[:300]}"
            else:
                try:
                    res = runner.run(mlir.read_text(), [np.load(p) for p in inputs])
                    xla = "stablehlo ok" if all(map(same, res, outputs)) and \
                        len(res) == len(outputs) else f"stablehlo MISMATCH {res}"
                except Exception as e:  # noqa: BLE001
                    xla = f"stablehlo FAILED {str(e)[:500]}"
        ok = interp == "interp ok" and xla == "stablehlo ok"
        failed |= not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}: {interp}; {xla}")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", metavar="OXLA", help="check the data against this oxla binary")
    args = ap.parse_args()
    import jax
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp
    from jax import lax
    if args.check:
        sys.exit(check(jax, args.check))
    write(jax, jnp, lax)


if __name__ == "__main__":
    main()
