#!/usr/bin/env python3
"""Writes tests/hlo/types/*.hlo: the element types of issue 13 through
`convert`, arithmetic and `dot`, with the expected values JAX computes
(jax.jit on the CPU, so XLA:CPU's results).

Run with the venv that has jax 0.10.2 and ml_dtypes:

    ~/venvs/oxla-models/bin/python scripts/types_values.py

The output is deterministic (a fixed seed).
"""

import ast
import math
import pathlib
import sys

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np

OUT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "hlo" / "types"
RNG = np.random.default_rng(13)

# (oxla name, numpy dtype)
FLOAT8 = [
    ("f8e4m3fn", ml_dtypes.float8_e4m3fn),
    ("f8e5m2", ml_dtypes.float8_e5m2),
    ("f8e4m3", ml_dtypes.float8_e4m3),
    ("f8e3m4", ml_dtypes.float8_e3m4),
    ("f8e4m3fnuz", ml_dtypes.float8_e4m3fnuz),
    ("f8e5m2fnuz", ml_dtypes.float8_e5m2fnuz),
    ("f8e4m3b11fnuz", ml_dtypes.float8_e4m3b11fnuz),
    ("f8e8m0fnu", ml_dtypes.float8_e8m0fnu),
    ("f4e2m1fn", ml_dtypes.float4_e2m1fn),
]
HALF = [("bf16", ml_dtypes.bfloat16), ("f16", np.float16)]
NARROW = HALF + FLOAT8
SUB_BYTE = [
    ("s4", ml_dtypes.int4),
    ("u4", ml_dtypes.uint4),
    ("s2", ml_dtypes.int2),
    ("u2", ml_dtypes.uint2),
]
INTS = [("s8", np.int8), ("u8", np.uint8), ("s32", np.int32), ("u32", np.uint32)]


def fmt(v):
    """One value in HLO literal text."""
    if isinstance(v, (complex, np.complexfloating)):
        return f"({fmt(float(v.real))}, {fmt(float(v.imag))})"
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    try:
        f = float(v)
    except TypeError:
        return str(int(v))
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    if f == 0:
        return "-0" if math.copysign(1, f) < 0 else "0"
    if f.is_integer() and abs(f) < 1e16:
        return str(int(f))
    return repr(f)


def is_int_dtype(dt):
    return np.dtype(dt).kind in "iu" or dt in [d for _, d in SUB_BYTE] + [ml_dtypes.int1,
                                                                         ml_dtypes.uint1]


def lit(name, values, dt):
    vals = np.asarray(values).ravel()
    if is_int_dtype(dt):
        text = ", ".join(str(int(x)) for x in vals.astype(np.int64))
    else:
        text = ", ".join(
            fmt(np.asarray(x).item() if np.asarray(x).dtype.kind == "c" else float(x))
            for x in vals
        )
    return f"{name}[{len(vals)}] {{{text}}}"


def run(fn, *args):
    return np.asarray(jax.jit(fn)(*args))


class File:
    def __init__(self, name, intro):
        self.name = name
        self.parts = [f"// {line}" if line else "//" for line in intro.strip().splitlines()]
        self.count = 0

    def module(self, comment, args, want, body, ulp=0, jit=True):
        """One module; `jit=False` marks it `// jit: unsupported` (the JIT
        refuses it: the test runner fails on a module so marked that the
        JIT compiles, so mark only what is true)."""
        self.count += 1
        mod = f"{self.name}_{self.count}"
        lines = [""]
        for c in comment.strip().splitlines():
            lines.append(f"// {c}")
        run = f"run(ulp={ulp})" if ulp else "run"
        lines.append(f"// {run}: {', '.join(args)}")
        lines.append(f"//   -> {want}")
        if not jit:
            lines.append("// jit: unsupported")
        lines.append(f"HloModule {mod}")
        lines.append("")
        lines.append(f"ENTRY {mod} {{")
        lines.extend(f"  {b}" for b in body)
        lines.append("}")
        self.parts.extend(lines)

    def write(self):
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / f"{self.name}.hlo").write_text("\n".join(self.parts) + "\n")
        print(f"{self.name}.hlo: {self.count} modules", file=sys.stderr)


def f32_boundaries(dt):
    """f32 values at each rounding boundary of `dt`."""
    fi = ml_dtypes.finfo(dt)
    big = float(fi.max)
    sub = float(fi.smallest_subnormal)
    tiny = float(fi.smallest_normal)
    eps = float(fi.eps)
    vals = [0.0, -0.0, 1.0, -1.0, big, -big, big * (1 + eps / 2), big * (1 + eps / 4),
            big * (1 + 3 * eps / 4), -big * (1 + eps / 2), sub, -sub, sub / 2, sub * 0.75,
            sub / 4, sub * 1.5, sub * 2.5, tiny, tiny * (1 - eps / 2), 1 + eps / 2,
            1 + eps * 1.5 / 1, 1 + eps / 4, 1 - eps / 4, 0.1, -0.3, 1e30, -1e30,
            math.inf, -math.inf, math.nan]
    lo, hi = math.log2(sub) - 2, math.log2(big) + 1
    for _ in range(16):
        vals.append(float(RNG.choice([-1, 1]) * 2 ** RNG.uniform(lo, hi)))
    out = []
    for v in vals:
        x = np.float32(v)
        if not any(np.array_equal(x, y, equal_nan=True) and math.copysign(1, x) == math.copysign(1, y)
                   for y in out):
            out.append(x)
    return np.array(out, np.float32)


def convert_files():
    f = File("convert", """
`convert` into and out of the narrow floats of issue 13, at every rounding
boundary (zero, the subnormals and the ties around them, the largest finite
value and the ties above it, overflow, infinities, NaN), with the values
JAX computes (XLA:CPU), written by scripts/types_values.py. Each module
runs on the interpreter and the JIT.""")
    for name, dt in NARROW:
        x = f32_boundaries(dt)
        y = run(lambda a: a.astype(dt), x)
        n = len(x)
        f.module(f"f32 -> {name}: round to nearest even, overflow per the kind.",
                 [lit("f32", x, np.float32)], lit(name, y, dt),
                 [f"p = f32[{n}] parameter(0)", f"ROOT c = {name}[{n}] convert(p)"])
    for name, dt in FLOAT8:
        bits = np.arange(256 if "f4" not in name else 16, dtype=np.uint8)
        x = bits.view(dt) if "f4" not in name else bits.astype(np.uint8).view(dt)
        y = run(lambda a: a.astype(jnp.float32), x)
        n = len(x)
        f.module(f"Every {name} value -> f32 (exact).", [lit(name, x, dt)],
                 lit("f32", y, np.float32),
                 [f"p = {name}[{n}] parameter(0)", f"ROOT c = f32[{n}] convert(p)"])
    for name, dt in HALF:
        bits = np.array([0, 1, 2, 0x7f, 0x80, 0x3ff, 0x400, 0x3f80, 0x3c00, 0x7bff, 0x7c00,
                         0x7f7f, 0x7f80, 0x8001, 0xff7f, 0xfbff, 0xfc00, 0x7e00]
                        + list(RNG.integers(0, 0x10000, 24)), dtype=np.uint16)
        x = bits.view(dt)
        x = x[~np.isnan(x.astype(np.float32))]
        n = len(x)
        y = run(lambda a: a.astype(jnp.float32), x)
        f.module(f"{name} -> f32 (exact).", [lit(name, x, dt)], lit("f32", y, np.float32),
                 [f"p = {name}[{n}] parameter(0)", f"ROOT c = f32[{n}] convert(p)"])
    # Between the narrow types: bf16/f16 -> float8, float8 -> bf16/f16.
    for src, sdt in HALF:
        for name, dt in FLOAT8:
            x = f32_boundaries(dt).astype(sdt)
            x = np.unique(x[~np.isnan(x.astype(np.float32))])
            n = len(x)
            y = run(lambda a: a.astype(dt), x)
            f.module(f"{src} -> {name}.", [lit(src, x, sdt)], lit(name, y, dt),
                     [f"p = {src}[{n}] parameter(0)", f"ROOT c = {name}[{n}] convert(p)"])
    for name, dt in FLOAT8:
        bits = np.arange(256 if "f4" not in name else 16, dtype=np.uint8)
        x = bits.view(dt)
        x = x[~np.isnan(x.astype(np.float32))]
        n = len(x)
        for dst, ddt in HALF:
            y = run(lambda a: a.astype(ddt), x)
            f.module(f"{name} -> {dst}.", [lit(name, x, dt)], lit(dst, y, ddt),
                     [f"p = {name}[{n}] parameter(0)", f"ROOT c = {dst}[{n}] convert(p)"])
    f.write()


def int_file():
    f = File("convert_int", """
`convert` between floats and integers, and into and out of the sub-byte
integers, with JAX's values: float -> int truncates toward zero and
saturates, NaN -> 0; int -> narrower int wraps. Written by
scripts/types_values.py; each module runs on the interpreter and the JIT.""")
    specials = [math.nan, math.inf, -math.inf, 1e10, -1e10, 2.5, -2.5, 127.9, -128.9, 300.0,
                -0.5, 0.99, 65504.0, 255.5, 15.0, -9.0, 7.5, 40000.0, -40000.0]
    for name, dt in HALF + [("f8e4m3fn", ml_dtypes.float8_e4m3fn), ("f8e5m2", ml_dtypes.float8_e5m2)]:
        x = np.array(specials, np.float32).astype(dt)
        n = len(x)
        for iname, idt in INTS + SUB_BYTE[:2]:
            try:
                y = run(lambda a: a.astype(idt), x)
            except Exception as e:  # noqa: BLE001
                print(f"skip {name} -> {iname}: {e}", file=sys.stderr)
                continue
            f.module(f"{name} -> {iname}.", [lit(name, x, dt)], lit(iname, y, idt),
                     [f"p = {name}[{n}] parameter(0)", f"ROOT c = {iname}[{n}] convert(p)"])
    ints = np.array([-9, -8, -3, -2, -1, 0, 1, 2, 3, 7, 8, 15, 16, 17, 127, -128, 1000, -1000],
                    np.int32)
    n = len(ints)
    for name, dt in SUB_BYTE:
        y = run(lambda a: a.astype(dt), ints)
        f.module(f"s32 -> {name} wraps.", [lit("s32", ints, np.int32)], lit(name, y, dt),
                 [f"p = s32[{n}] parameter(0)", f"ROOT c = {name}[{n}] convert(p)"])
        vals = np.array(range(int(ml_dtypes.iinfo(dt).min), int(ml_dtypes.iinfo(dt).max) + 1)).astype(dt)
        m = len(vals)
        for dst, ddt in [("s32", np.int32), ("u8", np.uint8), ("f32", np.float32),
                         ("bf16", ml_dtypes.bfloat16)]:
            y = run(lambda a: a.astype(ddt), vals)
            f.module(f"{name} -> {dst}.", [lit(name, vals, dt)], lit(dst, y, ddt),
                     [f"p = {name}[{m}] parameter(0)", f"ROOT c = {dst}[{m}] convert(p)"])
    f.write()


def representable(dt, n, lo, hi):
    """n random values of `dt` with magnitudes in [2^lo, 2^hi]."""
    v = RNG.choice([-1.0, 1.0], n) * 2.0 ** RNG.uniform(lo, hi, n)
    return v.astype(np.float32).astype(dt)


BINARY = [("add", jnp.add), ("subtract", jnp.subtract), ("multiply", jnp.multiply),
          ("divide", jnp.divide), ("maximum", jnp.maximum), ("minimum", jnp.minimum)]
UNARY = [("negate", jnp.negative), ("abs", jnp.abs), ("sqrt", jnp.sqrt),
         ("floor", jnp.floor), ("ceil", jnp.ceil)]


def arith_file():
    f = File("arith", """
Arithmetic on the narrow floats, as XLA:CPU computes it (each op in f32,
rounded after the op; the float8 kinds through f16): JAX's values, written
by scripts/types_values.py. Only correctly rounded ops here (transcendental
results depend on the libm). The JIT does not compile these types yet.""")
    for name, dt in NARROW:
        if name == "f8e8m0fnu":
            continue
        lo, hi = (-6, 6) if name in ("bf16", "f16") else (-3, 3)
        n = 24
        a = representable(dt, n, lo, hi)
        b = representable(dt, n, lo, hi)
        for op, fn in BINARY:
            y = run(fn, a, b)
            f.module(f"{op} on {name}.", [lit(name, a, dt), lit(name, b, dt)], lit(name, y, dt),
                     [f"a = {name}[{n}] parameter(0)", f"b = {name}[{n}] parameter(1)",
                      f"ROOT r = {name}[{n}] {op}(a, b)"])
        for op, fn in UNARY:
            y = run(fn, a)
            f.module(f"{op} on {name}.", [lit(name, a, dt)], lit(name, y, dt),
                     [f"a = {name}[{n}] parameter(0)", f"ROOT r = {name}[{n}] {op}(a)"])
    f.write()


def dot_file():
    f = File("dot", """
`dot` whose result type differs from its operands', as XLA:CPU computes it
(JAX's `preferred_element_type`): a wider result converts the operands up
first; bf16 dots accumulate in f32. Written by scripts/types_values.py.""")
    dn = (((1,), (0,)), ((), ()))
    cases = [
        ("bf16", ml_dtypes.bfloat16, "bf16", ml_dtypes.bfloat16, "f32", np.float32),
        ("bf16", ml_dtypes.bfloat16, "bf16", ml_dtypes.bfloat16, "bf16", ml_dtypes.bfloat16),
        ("f16", np.float16, "f16", np.float16, "f32", np.float32),
        ("s8", np.int8, "s8", np.int8, "s32", np.int32),
        ("s8", np.int8, "s16", np.int16, "s32", np.int32),
        ("u8", np.uint8, "u8", np.uint8, "s32", np.int32),
        ("f32", np.float32, "f32", np.float32, "bf16", ml_dtypes.bfloat16),
    ]
    m, k, n = 3, 16, 4
    for ln, ldt, rn, rdt, on, odt in cases:
        if np.dtype(ldt).kind in "iu":
            a = RNG.integers(-128 if np.dtype(ldt).kind == "i" else 0, 127, (m, k)).astype(ldt)
            b = RNG.integers(-128 if np.dtype(rdt).kind == "i" else 0, 127, (k, n)).astype(rdt)
        else:
            a = RNG.uniform(-2, 2, (m, k)).astype(np.float32).astype(ldt)
            b = RNG.uniform(-2, 2, (k, n)).astype(np.float32).astype(rdt)
        y = run(lambda x, z: jax.lax.dot_general(x, z, dn, preferred_element_type=odt), a, b)
        f.module(f"{ln} x {rn} -> {on}.",
                 [lit2(ln, a, ldt), lit2(rn, b, rdt)], lit2(on, y, odt),
                 [f"a = {ln}[{m},{k}] parameter(0)", f"b = {rn}[{k},{n}] parameter(1)",
                  f"ROOT d = {on}[{m},{n}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}"])
    f.write()


def lit2(name, values, dt):
    """A rank-2 literal."""
    rows = []
    for row in np.asarray(values):
        one = lit(name, row, dt)
        rows.append(one[one.index("{"):])
    r, c = np.asarray(values).shape
    return f"{name}[{r},{c}] {{{', '.join(rows)}}}"


def complex_file():
    f = File("complex", """
Complex numbers: construction, parts, arithmetic, abs and comparison on
c64 and c128, with JAX's values (written by scripts/types_values.py). The
JIT compiles them as pairs of real arrays (oxla_ir::passes::complex) but
for fft and c128's multiply, divide and abs.""")
    # What the JIT refuses today: its runner fails on a stale mark.
    jit_refuses = {("c128", "abs"), ("c128", "multiply"), ("c128", "divide"), ("c64", "fft")}
    jax.config.update("jax_enable_x64", True)
    for name, dt, part, pdt in [("c64", np.complex64, "f32", np.float32),
                                ("c128", np.complex128, "f64", np.float64)]:
        n = 8
        re = RNG.uniform(-4, 4, n).astype(pdt)
        im = RNG.uniform(-4, 4, n).astype(pdt)
        z = (re + 1j * im).astype(dt)
        w = (RNG.uniform(-4, 4, n) + 1j * RNG.uniform(-4, 4, n)).astype(dt)
        y = run(jax.lax.complex, re, im)
        f.module(f"complex on {part}.", [lit(part, re, pdt), lit(part, im, pdt)], lit(name, y, dt),
                 [f"a = {part}[{n}] parameter(0)", f"b = {part}[{n}] parameter(1)",
                  f"ROOT r = {name}[{n}] complex(a, b)"])
        for op, fn in [("real", jnp.real), ("imag", jnp.imag), ("abs", jnp.abs)]:
            y = run(fn, z)
            f.module(f"{op} on {name}.", [lit(name, z, dt)], lit(part, y, pdt),
                     [f"a = {name}[{n}] parameter(0)", f"ROOT r = {part}[{n}] {op}(a)"],
                     jit=(name, op) not in jit_refuses)
        for op, fn in [("add", jnp.add), ("subtract", jnp.subtract), ("multiply", jnp.multiply),
                       ("divide", jnp.divide)]:
            y = run(fn, z, w)
            f.module(f"{op} on {name}.", [lit(name, z, dt), lit(name, w, dt)], lit(name, y, dt),
                     [f"a = {name}[{n}] parameter(0)", f"b = {name}[{n}] parameter(1)",
                      f"ROOT r = {name}[{n}] {op}(a, b)"],
                     jit=(name, op) not in jit_refuses)
        for op, fn in [("negate", jnp.negative)]:
            y = run(fn, z)
            f.module(f"{op} on {name}.", [lit(name, z, dt)], lit(name, y, dt),
                     [f"a = {name}[{n}] parameter(0)", f"ROOT r = {name}[{n}] {op}(a)"])
        zz = np.concatenate([z[:4], w[:4]]).astype(dt)
        for d, fn in [("EQ", jnp.equal), ("NE", jnp.not_equal)]:
            y = run(fn, z, zz)
            f.module(f"compare {d} on {name}.", [lit(name, z, dt), lit(name, zz, dt)],
                     lit("pred", y, np.bool_),
                     [f"a = {name}[{n}] parameter(0)", f"b = {name}[{n}] parameter(1)",
                      f"ROOT r = pred[{n}] compare(a, b), direction={d}"])
    # fft with lengths whose twiddles are exact (1, 2, 4): exact results.
    x = RNG.integers(-8, 8, (2, 4)).astype(np.float32)
    y = RNG.integers(-8, 8, (2, 4)).astype(np.float32)
    z = (x + 1j * y).astype(np.complex64)

    def fft_module(kind, lengths, arg, argname, argdt, fn, outname, outdt):
        out = run(fn, arg)
        shape_in = ",".join(map(str, arg.shape))
        shape_out = ",".join(map(str, out.shape))
        lens = ",".join(map(str, lengths))
        f.module(f"fft_type={kind}, fft_length={{{lens}}}: exact (twiddles are 1 and i).",
                 [lit2(argname, arg, argdt)], lit2(outname, out, outdt),
                 [f"a = {argname}[{shape_in}] parameter(0)",
                  f"ROOT r = {outname}[{shape_out}] fft(a), fft_type={kind}, fft_length={{{lens}}}"],
                 jit=("c64", "fft") not in jit_refuses)

    fft_module("FFT", [4], z, "c64", np.complex64, jnp.fft.fft, "c64", np.complex64)
    fft_module("IFFT", [4], z, "c64", np.complex64, jnp.fft.ifft, "c64", np.complex64)
    fft_module("FFT", [2, 4], z, "c64", np.complex64, jnp.fft.fft2, "c64", np.complex64)
    fft_module("RFFT", [4], x, "f32", np.float32, jnp.fft.rfft, "c64", np.complex64)
    fft_module("RFFT", [2, 4], x, "f32", np.float32, jnp.fft.rfft2, "c64", np.complex64)
    zr = run(jnp.fft.rfft, x * 4)
    fft_module("IRFFT", [4], np.asarray(zr), "c64", np.complex64, lambda a: jnp.fft.irfft(a, 4),
               "f32", np.float32)
    jax.config.update("jax_enable_x64", False)
    f.write()


NPY = OUT.parent.parent / "data" / "npy"


def npy_files():
    """.npy files np.save writes for the new types, and what they hold."""
    NPY.mkdir(parents=True, exist_ok=True)
    rows = ["# file\toxla type\tdescr\tlittle-endian bytes (hex)\tvalues (HLO literal text)"]
    named = []
    for name, dt in NARROW + SUB_BYTE + [("s1", ml_dtypes.int1), ("u1", ml_dtypes.uint1),
                                         ("c64", np.complex64), ("c128", np.complex128)]:
        if is_int_dtype(dt):
            info = ml_dtypes.iinfo(dt)
            vals = np.array([info.min, info.max, 0, 1 if info.max >= 1 else 0, info.min, info.max],
                            np.int64).astype(dt)
        elif np.dtype(dt).kind == "c":
            vals = np.array([1.5 - 2j, complex(-0.0, math.inf), complex(math.nan, 0.25), 1e-30j,
                             3.0, -4.5 + 0.5j], dt)
        else:
            fi = ml_dtypes.finfo(dt)
            cand = [float(fi.max), float(fi.smallest_subnormal), -1.5, float(fi.smallest_normal),
                    math.nan, -0.0]
            with np.errstate(all="ignore"):
                vals = np.array(cand, np.float32).astype(dt)
        x = vals.reshape(2, 3)
        fname = f"{name}.npy"
        np.save(NPY / fname, x)
        raw = (NPY / fname).read_bytes()
        header = raw[10:10 + int.from_bytes(raw[8:10], "little")].decode("latin1")
        descr = ast.literal_eval(header)["descr"]
        rows.append("\t".join([fname, name, str(descr), x.tobytes().hex(), lit2(name, x, dt)]))
        if name in ("bf16", "f8e4m3fn", "s4"):
            named.append((name, dt, x))
    # The form JAX's tools write: the ml_dtypes name as the descr.
    for name, dt, x in named:
        fname = f"{name}_named.npy"
        with open(NPY / fname, "wb") as fh:
            np.lib.format.write_array_header_1_0(
                fh, {"descr": np.dtype(dt).name, "fortran_order": False, "shape": x.shape})
            fh.write(x.tobytes())
        rows.append("\t".join([fname, name, np.dtype(dt).name, x.tobytes().hex(), lit2(name, x, dt)]))
    (NPY / "files.tsv").write_text("\n".join(rows) + "\n")


def main():
    if jax.__version__ != "0.10.2":
        sys.exit(f"jax {jax.__version__}: this script writes values of jax 0.10.2")
    convert_files()
    int_file()
    arith_file()
    dot_file()
    complex_file()
    npy_files()


if __name__ == "__main__":
    main()
