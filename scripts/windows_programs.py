#!/usr/bin/env python3
"""JAX programs built on the windows family (convolution, reduce-window,
select-and-scatter), written out with JAX's own results so that the Rust
test tests/windows_jax.rs checks oxla's interpreter against them without
Python.

For each program this writes, under tests/data/windows/<name>/:

  program.hlo        jax.jit(f).lower(*args).compiler_ir('hlo').as_hlo_text()
  in0.npy, ...       the inputs (deterministic: seeded from the program's name)
  out0.npy, ...      JAX's results on the CPU (XLA:CPU), the output pytree
                     flattened in order

and one index, tests/data/windows/programs.tsv: name, inputs, outputs, rtol,
atol, and what the program exercises. Float outputs are compared as
|oxla - jax| <= atol + rtol * |jax|: XLA:CPU sums a convolution in its own
order (Eigen's blocked loops), oxla in XLA's evaluator's (window position by
position, features inner), so float sums differ by a few roundings;
integer outputs are compared bit for bit.

With --check-export, each program is also converted back with
`oxla convert --to stablehlo` (target/debug/oxla must be built) and the
StableHLO is compiled and run by XLA through jaxlib; its results must match
JAX's within the same tolerance.

Usage (jax 0.10.2 on the CPU):
  ~/venvs/oxla-models/bin/python scripts/windows_programs.py [--check-export]
"""

import argparse
import shutil
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import jax

jax.config.update("jax_platforms", "cpu")

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "tests" / "data" / "windows"

# One tolerance for the float programs. Measured (oxla's interpreter
# against XLA:CPU): at most 2.9e-6 absolute, on values up to 7.3 (the
# gradients of a grouped convolution); the pools and their gradients are
# exact. A wrong window or group is off by far more.
RTOL, ATOL = 1e-5, 1e-5


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def normal(rng, shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def max_pool(x, window, strides, padding):
    return lax.reduce_window(x, -jnp.inf, lax.max, window, strides, padding)


def avg_pool(x, window, strides, padding):
    s = lax.reduce_window(x, 0.0, lax.add, window, strides, padding)
    ones = jnp.ones(x.shape, x.dtype)
    n = lax.reduce_window(ones, 0.0, lax.add, window, strides, padding)
    return s / n


def cnn_nhwc(x, w1, b1, w2, w3):
    """A small CNN in NHWC/HWIO: conv SAME, relu, 2x2 max-pool, a strided
    VALID conv, a dilated conv, SAME average pool, global mean."""
    dn = ("NHWC", "HWIO", "NHWC")
    y = lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=dn) + b1
    y = jax.nn.relu(y)
    y = max_pool(y, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    y = lax.conv_general_dilated(y, w2, (2, 2), "VALID", dimension_numbers=dn)
    y = jnp.tanh(y)
    y = lax.conv_general_dilated(y, w3, (1, 1), "SAME", rhs_dilation=(2, 2), dimension_numbers=dn)
    y = avg_pool(y, (1, 3, 3, 1), (1, 1, 1, 1), "SAME")
    return jnp.mean(y, axis=(1, 2))


def cnn_nchw(x, w1, w2):
    """NCHW/OIHW: explicit asymmetric padding, a depthwise convolution
    (feature_group_count = channels), a transposed (lhs-dilated) one."""
    dn = ("NCHW", "OIHW", "NCHW")
    y = lax.conv_general_dilated(x, w1, (1, 2), [(1, 2), (0, 1)], dimension_numbers=dn,
                                 feature_group_count=x.shape[1])
    y = jax.nn.relu(y)
    return lax.conv_general_dilated(y, w2, (1, 1), [(1, 1), (2, 2)], lhs_dilation=(2, 2),
                                    dimension_numbers=dn)


def conv_1d_3d(x1, w1, x3, w3):
    """One and three spatial dimensions (NWC/WIO and NCDHW/OIDHW)."""
    a = lax.conv_general_dilated(x1, w1, (2,), [(3, 1)], rhs_dilation=(2,),
                                 dimension_numbers=("NWC", "WIO", "NWC"))
    b = lax.conv_general_dilated(x3, w3, (1, 2, 1), "SAME",
                                 dimension_numbers=("NCDHW", "OIDHW", "NCDHW"))
    return a, b


def conv_grads(x, w):
    """The gradients of a grouped convolution: the weight gradient is a
    convolution with batch_group_count, the input gradient one with lhs
    dilation and a reversed kernel."""
    def loss(x, w):
        y = lax.conv_general_dilated(x, w, (2, 1), [(1, 1), (0, 1)],
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                     feature_group_count=2)
        return jnp.sum(jnp.sin(y))
    return jax.grad(loss, argnums=(0, 1))(x, w)


def max_pool_grad(x, g):
    """jax.grad of a max-pool: a select-and-scatter (select=ge, scatter=add)."""
    def f(x):
        return jnp.sum(max_pool(x, (1, 3, 3, 1), (1, 2, 2, 1), "SAME") * g)
    return jax.grad(f)(x)


def avg_pool_grad(x, g):
    """jax.grad of an average pool of x*x: a reduce-window over a padded,
    dilated cotangent (base dilation in reduce-window). (x*x so that the
    gradient reads x: jit drops unused arguments.)"""
    def f(x):
        return jnp.sum(avg_pool(x * x, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") * g)
    return jax.grad(f)(x)


def int8_conv(x, w):
    """s8 operands into an s32 result (preferred_element_type): exact."""
    return lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                    preferred_element_type=jnp.int32)


def int_pool(x):
    """Integer max and min pools (s32), strided, with padding."""
    hi = lax.reduce_window(x, jnp.int32(-2**31), lax.max, (2, 3), (2, 2), [(1, 0), (1, 1)])
    lo = lax.reduce_window(x, jnp.int32(2**31 - 1), lax.min, (3, 2), (1, 2), "VALID")
    return hi, lo


def programs():
    def r(name):
        return rng_for(name)

    out = []
    g = r("cnn_nhwc")
    out.append(("cnn_nhwc", cnn_nhwc,
                [normal(g, (2, 12, 12, 3)), normal(g, (3, 3, 3, 8), 0.3), normal(g, (8,), 0.1),
                 normal(g, (3, 3, 8, 6), 0.2), normal(g, (3, 3, 6, 4), 0.2)],
                "NHWC/HWIO, SAME/VALID, stride, rhs dilation, max and average pools"))
    g = r("cnn_nchw")
    out.append(("cnn_nchw", cnn_nchw,
                [normal(g, (2, 3, 7, 9)), normal(g, (6, 1, 3, 3), 0.4), normal(g, (4, 6, 3, 2), 0.3)],
                "NCHW/OIHW, asymmetric padding, depthwise feature groups, lhs dilation"))
    g = r("conv_1d_3d")
    out.append(("conv_1d_3d", conv_1d_3d,
                [normal(g, (2, 11, 3)), normal(g, (3, 3, 5), 0.4),
                 normal(g, (1, 2, 4, 5, 6)), normal(g, (3, 2, 3, 2, 3), 0.3)],
                "1 and 3 spatial dimensions"))
    g = r("conv_grads")
    out.append(("conv_grads", conv_grads,
                [normal(g, (2, 6, 5, 4)), normal(g, (3, 2, 2, 6), 0.4)],
                "gradients of a grouped convolution: batch_group_count, lhs dilation"))
    g = r("max_pool_grad")
    out.append(("max_pool_grad", max_pool_grad,
                [normal(g, (2, 7, 6, 3)), normal(g, (2, 4, 3, 3))],
                "select-and-scatter with padding"))
    g = r("avg_pool_grad")
    out.append(("avg_pool_grad", avg_pool_grad,
                [normal(g, (1, 6, 8, 2)), normal(g, (1, 3, 4, 2))],
                "the gradient of an average pool"))
    g = r("int8_conv")
    out.append(("int8_conv", int8_conv,
                [g.integers(-128, 128, (1, 5, 5, 4)).astype(np.int8),
                 g.integers(-128, 128, (3, 3, 4, 3)).astype(np.int8)],
                "s8 convolution into s32"))
    g = r("int_pool")
    out.append(("int_pool", int_pool,
                [g.integers(-1000, 1000, (7, 9)).astype(np.int32)],
                "s32 max and min pools"))
    return out


class XlaRunner:
    """Parses, compiles and runs StableHLO MLIR text with jaxlib's XLA."""

    def __init__(self):
        from jax._src import compiler, xla_bridge
        from jax._src.interpreters import mlir
        from jax._src.lib import xla_client as xc
        from jax._src.lib.mlir import ir

        self.compiler, self.mlir, self.ir, self.xc = compiler, mlir, ir, xc
        self.backend = xla_bridge.get_backend("cpu")

    def run(self, text, inputs):
        with self.mlir.make_ir_context():
            module = self.ir.Module.parse(text)
            options = self.compiler.get_compile_options(num_replicas=1, num_partitions=1)
            devices = self.xc.DeviceList(tuple(self.backend.devices()[:1]))
            exe = self.backend.compile_and_load(module, executable_devices=devices,
                                                compile_options=options)
        bufs = [jax.device_put(a, self.backend.devices()[0]) for a in inputs]
        results = exe.execute_sharded(bufs).disassemble_into_single_device_arrays()
        return [np.asarray(r[0]) for r in results]


def close(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if np.issubdtype(a.dtype, np.floating):
        return bool(np.all(np.abs(a - b) <= ATOL + RTOL * np.abs(b)))
    return bool(np.array_equal(a, b))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check-export", action="store_true",
                        help="run oxla's StableHLO of each program with XLA and compare")
    args = parser.parse_args()
    if jax.__version__ != "0.10.2":
        print(f"warning: written with jax 0.10.2, running {jax.__version__}", file=sys.stderr)
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    index = ["# name\tinputs\toutputs\trtol\tatol\twhat"]
    runner = XlaRunner() if args.check_export else None
    failures = 0
    for name, f, inputs, what in programs():
        d = OUT / name
        d.mkdir()
        lowered = jax.jit(f).lower(*inputs)
        hlo = lowered.compiler_ir("hlo").as_hlo_text()
        (d / "program.hlo").write_text(hlo)
        outs = [np.asarray(o) for o in jax.tree_util.tree_leaves(jax.jit(f)(*inputs))]
        for i, a in enumerate(inputs):
            np.save(d / f"in{i}.npy", a)
        for i, o in enumerate(outs):
            np.save(d / f"out{i}.npy", o)
        index.append(f"{name}\t{len(inputs)}\t{len(outs)}\t{RTOL}\t{ATOL}\t{what}")
        if runner is not None:
            with tempfile.TemporaryDirectory() as t:
                mlir = Path(t) / "program.mlir"
                subprocess.run([str(REPO / "target" / "debug" / "oxla"), "convert",
                                str(d / "program.hlo"), "--to", "stablehlo", "--output",
                                str(mlir)], check=True)
                got = runner.run(mlir.read_text(), inputs)
            ok = len(got) == len(outs) and all(close(g, o) for g, o in zip(got, outs))
            failures += not ok
            print(f"{name}: oxla's StableHLO run by XLA {'matches' if ok else 'DIFFERS from'} JAX")
    (OUT / "programs.tsv").write_text("\n".join(index) + "\n")
    print(f"wrote {len(index) - 1} programs to {OUT.relative_to(REPO)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
