#!/usr/bin/env python3
"""Writes tests/hlo/types/complex_transcendental.hlo: the complex
transcendental ops (sqrt, rsqrt, log, log-plus-one, exponential,
exponential-minus-one, tanh, tan, sine, cosine, logistic, sign, power) on
c64 and c128, over a grid that reaches every branch of XLA's formulas
(signed zeros, infinities, NaN, huge and tiny parts, the branch cut, moduli
near 1) and over ordinary values, with the values XLA:CPU computes.

The values are XLA's for the StableHLO op (the module oxla exports, compiled
by jaxlib 0.10.2's CPU client): `sqrt`, `log`, `log_plus_one` and
`exponential` go through StableHLO's complex math expander there (the
formulas JAX users get from `jnp.sqrt` & co.), the others through XLA:CPU's
elemental emitter (docs/types.md).

    ~/venvs/oxla-models/bin/python scripts/complex_transcendental.py
    ~/venvs/oxla-models/bin/python scripts/complex_transcendental.py --check

`--check` also runs every module on the interpreter (`oxla run --backend
interp`, built in target/debug) and prints, per op, how many values match
bit for bit and the largest distance in ulps (per part).

Deterministic: a fixed seed.
"""

import math
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import misc_values as mv  # noqa: E402
from types_values import File, lit  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent
RNG = np.random.default_rng(1313)

# (HLO name, StableHLO name, arity, ulp bound c64, ulp bound c128, NumPy's
# function: where its value has a subnormal part, XLA:CPU flushes it to 0
# and the interpreter does not, so those values are left out)
OPS = [
    ("sqrt", "sqrt", 1, 2, 2, np.sqrt),
    ("rsqrt", "rsqrt", 1, 4, 4, lambda z: 1 / np.sqrt(z)),
    ("log", "log", 1, 2, 2, np.log),
    ("log-plus-one", "log_plus_one", 1, 2, 128, np.log1p),
    ("exponential", "exponential", 1, 2, 2, np.exp),
    ("exponential-minus-one", "exponential_minus_one", 1, 16, 16, np.expm1),
    ("tanh", "tanh", 1, 8, 4, np.tanh),
    ("tan", "tan", 1, 8, 4, np.tan),
    ("sine", "sine", 1, 32, 32, np.sin),
    ("cosine", "cosine", 1, 32, 32, np.cos),
    ("logistic", "logistic", 1, 8, 8, lambda z: 1 / (1 + np.exp(-z))),
    ("sign", "sign", 1, 0, 0, lambda z: z / np.abs(z)),
    ("power", "power", 2, 64, 8, np.power),
]


def normal_results(fn, args, ftype):
    """Which values' results (by NumPy, in complex128) have no subnormal
    part."""
    tiny = float(np.finfo(ftype).tiny) * 4
    with np.errstate(all="ignore"):
        ref = fn(*[a.astype(np.complex128) for a in args])
    keep = []
    for v in np.atleast_1d(ref):
        parts = [abs(v.real), abs(v.imag)]
        keep.append(not any(0 < p < tiny for p in parts))
    return np.array(keep)


def parts(ftype):
    f = np.finfo(ftype)
    huge = 1e30 if ftype == np.float32 else 1e200
    tiny = float(f.tiny) * 4
    return [0.0, -0.0, 1.0, -2.5, 0.5, math.inf, -math.inf, math.nan, huge, -huge, tiny]


def special(ftype):
    p = parts(ftype)
    return [complex(a, b) for a in p for b in p]


def ordinary(ftype, n=96):
    """Ordinary values: magnitudes from 1e-3 to 1e2, moduli near 1 (log's
    cancellation), points next to the negative real axis (the branch cut),
    large imaginary parts (tan, tanh), arguments near 0."""
    out = []
    mag = 10 ** RNG.uniform(-3, 2, n)
    ang = RNG.uniform(-math.pi, math.pi, n)
    out += list(mag * np.exp(1j * ang))
    ang = RNG.uniform(-math.pi, math.pi, 16)
    out += list((1 + RNG.uniform(-1e-3, 1e-3, 16)) * np.exp(1j * ang))
    out += [complex(-x, s * 1e-6) for x in (0.5, 2.0, 7.0) for s in (1, -1)]
    out += [complex(-x, s * 0.0) for x in (0.5, 2.0) for s in (1, -1)]
    out += [complex(a, b) for a, b in [(0.3, 40.0), (-0.3, -60.0), (20.0, 1.0), (-30.0, 2.0),
                                       (1e-4, 1e-4), (-1e-5, 2e-5), (0.0, 3.0), (2.0, 0.0),
                                       (-1.0, 0.0), (1.0, -0.0), (90.0, 0.5), (-100.0, -0.5)]]
    return [complex(ftype(z.real), ftype(z.imag)) for z in out]


def tensor(cname, n):
    t = "complex<f32>" if cname == "c64" else "complex<f64>"
    return f"tensor<{n}x{t}>"


def run_xla(op, arity, args, cname):
    n = len(args[0])
    t = tensor(cname, n)
    params = ", ".join(f"%a{i}: {t}" for i in range(arity))
    operands = ", ".join(f"%a{i}" for i in range(arity))
    sig = ", ".join([t] * arity)
    text = f"""module @m {{
  func.func public @main({params}) -> {t} {{
    %0 = stablehlo.{op} {operands} : ({sig}) -> {t}
    return %0 : {t}
  }}
}}"""
    (got,) = mv.run_mlir(text, args)
    return got


def keys(x, ftype):
    ity = np.int32 if ftype == np.float32 else np.int64
    b = x.view(ity).astype(object)
    mask = (1 << 31) - 1 if ftype == np.float32 else (1 << 63) - 1
    return [(-(v & mask) - 1) if v < 0 else v for v in b]


def part_ulps(got, want, ftype):
    """Distance in ulps of each value of two real arrays (NaN = NaN)."""
    out = []
    for g, w, kg, kw in zip(got, want, keys(got, ftype), keys(want, ftype)):
        if math.isnan(g) and math.isnan(w):
            out.append(0)
        elif math.isnan(g) or math.isnan(w):
            out.append(math.inf)
        else:
            out.append(abs(kg - kw))
    return out


def check(cname, ftype, op, args, want):
    """Runs the module on the interpreter; prints the bit matches and ulps."""
    with tempfile.TemporaryDirectory() as d:
        d = pathlib.Path(d)
        n = len(args[0])
        names = [f"a{i}" for i in range(len(args))]
        body = "\n".join(f"  {x} = {cname}[{n}] parameter({i})" for i, x in enumerate(names))
        (d / "m.hlo").write_text(
            f"HloModule m\n\nENTRY m {{\n{body}\n  ROOT r = {cname}[{n}] {op}({', '.join(names)})\n}}\n")
        cmd = [str(ROOT / "target" / "debug" / "oxla"), "run", str(d / "m.hlo"),
               "--backend", "interp", "--output", str(d / "out.npy")]
        for i, a in enumerate(args):
            np.save(d / f"{i}.npy", a)
            cmd += ["--input", str(d / f"{i}.npy")]
        subprocess.run(cmd, check=True, capture_output=True)
        got = np.load(d / "out.npy")
    ur = part_ulps(got.real, want.real, ftype)
    ui = part_ulps(got.imag, want.imag, ftype)
    worst = [max(a, b) for a, b in zip(ur, ui)]
    exact = sum(1 for w in worst if w == 0)
    special_bad = [i for i, w in enumerate(worst) if w > 0 and any(
        not math.isfinite(p) or p == 0 for a in args for p in (a[i].real, a[i].imag))]
    print(f"{op:24} {cname:5} {exact:5}/{n} bit-exact, worst {max(worst)} ulp, "
          f"{len(special_bad)} off with a zero, infinite or NaN part")
    bad = [i for i, w in enumerate(worst) if w > 0]
    bad.sort(key=lambda i: -worst[i])
    for i in special_bad[:4] + bad[:3]:
        print(f"      {[complex(a[i]) for a in args]} -> got {complex(got[i])} want "
              f"{complex(want[i])} ({worst[i]})")


def main():
    checking = "--check" in sys.argv
    out = File(
        "complex_transcendental",
        """
Complex transcendental ops on c64 and c128: special values (signed zeros,
infinities, NaN, huge and tiny parts) and ordinary ones (the branch cut,
moduli near 1), with XLA:CPU's values for each StableHLO op, written by
scripts/complex_transcendental.py (jaxlib 0.10.2). The formulas are XLA's
(docs/types.md); the ulps bound the real functions' differences (Rust's libm
against XLA:CPU's), per part.
""",
    )
    for cname, ctype, ftype in [("c64", np.complex64, np.float32),
                                ("c128", np.complex128, np.float64)]:
        g = np.array(special(ftype) + ordinary(ftype), dtype=ctype)
        n = len(g)
        few = [0.0, -0.0, 1.0, -2.5, math.inf, -math.inf, math.nan]
        small = np.array([complex(a, b) for a in few for b in few]
                         + ordinary(ftype, 16)[:12], dtype=ctype)
        for name, sname, arity, u64, u128, fn in OPS:
            ulp = u64 if cname == "c64" else u128
            if arity == 1:
                args = [g]
            else:
                m = len(small)
                args = [np.repeat(small, m), np.tile(small, m)]
            keep = normal_results(fn, args, ftype)
            args = [a[keep] for a in args]
            want = run_xla(sname, arity, args, cname)
            if checking:
                check(cname, ftype, name, args, want)
            m = len(args[0])
            body = [f"a{i} = {cname}[{m}] parameter({i})" for i in range(arity)]
            operands = ", ".join(f"a{i}" for i in range(arity))
            body.append(f"ROOT r = {cname}[{m}] {name}({operands})")
            out.module(f"{name} on {cname}.", [lit(cname, a, ctype) for a in args],
                       lit(cname, want, ctype), body, ulp=ulp)
    if not checking:
        out.write()


if __name__ == "__main__":
    main()
