#!/usr/bin/env python3
"""Writes tests/hlo/misc/xla_linalg_complex.hlo: cholesky and
triangular-solve on c64 and c128, against XLA:CPU's expansion of the HLO
ops (StableHLO compiled by XLA directly, as scripts/misc_values.py does for
the real types). Complex matrices: `cholesky` factors a Hermitian positive
definite `A = L L^H` (`U^H U` for `lower=false`); `triangular-solve` with
`transpose_a=ADJOINT` uses the conjugate transpose. XLA's blocked
algorithms sum in another order than the interpreter's loops, hence the
ulps (per part).

Usage: ~/venvs/oxla-models/bin/python scripts/linalg_complex.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import misc_values as mv  # noqa: E402
import numpy as np  # noqa: E402

mv.XLA_TYPES[np.dtype(np.complex64)] = "c64"
mv.XLA_TYPES[np.dtype(np.complex128)] = "c128"
mv.MLIR_TYPES["c64"] = "complex<f32>"
mv.MLIR_TYPES["c128"] = "complex<f64>"

mv_value_text = mv.value_text


def value_text(x):
    if isinstance(x, np.complexfloating):
        part = np.float32 if x.dtype == np.complex64 else np.float64
        return f"({mv_value_text(part(x.real))}, {mv_value_text(part(x.imag))})"
    return mv_value_text(x)


mv.value_text = value_text


def hpd(n, seed, dtype):
    """A Hermitian positive definite matrix: M M^H + n I."""
    rng = np.random.default_rng(seed)
    m = rng.uniform(-1, 1, (n, n)) + 1j * rng.uniform(-1, 1, (n, n))
    return (m @ m.conj().T + n * np.eye(n)).astype(dtype)


def main():
    f = mv.File(
        "xla_linalg_complex.hlo",
        """
cholesky and triangular-solve on c64 and c128 against XLA:CPU's expansion
of the HLO ops (scripts/linalg_complex.py, jaxlib 0.10.2; StableHLO
compiled by XLA: JAX's own CPU lowering calls LAPACK). cholesky factors a
Hermitian positive definite matrix, A = L L^H (U^H U for lower=false, the
upper triangle read); ADJOINT solves with the conjugate transpose. XLA's
blocked algorithms sum in another order than the interpreter's loops, so
values agree within the ulps given, per part (more for the solves, whose
small entries come out of cancellations: an entry of 0.004 summed from
terms near 1 is 193 ulps off in c128). The JIT refuses complex types.""",
    )
    f.parts = [p.replace("scripts/misc_values.py", "scripts/linalg_complex.py") for p in f.parts]
    for dtype, t, ulp, solve_ulp in [(np.complex64, "c64", 16, 64),
                                     (np.complex128, "c128", 16, 256)]:
        a = np.stack([hpd(4, 1, dtype), hpd(4, 2, dtype)])
        # The triangle not read holds junk that must be ignored.
        junk = a.copy()
        for lower in [True, False]:
            mlir = f"""
module @m {{
  func.func public @main(%arg0: {mv.tensor(a)}) -> {mv.tensor(a)} {{
    %0 = stablehlo.cholesky %arg0, lower = {str(lower).lower()} : {mv.tensor(a)}
    return %0 : {mv.tensor(a)}
  }}
}}"""
            (got,) = mv.run_mlir(mlir, [junk])
            name = f"cholesky_{'lower' if lower else 'upper'}_{t}"
            attr = ", lower=true" if lower else ""
            module = f"""
HloModule {name}

ENTRY {name} {{
  a = {t}[2,4,4] parameter(0)
  ROOT l = {t}[2,4,4] cholesky(a){attr}
}}"""
            f.case(f"cholesky, lower={str(lower).lower()}, of two {t} matrices.", module,
                   [(f"ulp={ulp}", [junk], mv.literal(got))], ["jit: unsupported"])
        rng = np.random.default_rng(7)
        a = (rng.uniform(-1, 1, (3, 3)) + 1j * rng.uniform(-1, 1, (3, 3))
             + 4 * np.eye(3)).astype(dtype)
        for left in [True, False]:
            shape = (3, 2) if left else (2, 3)
            b = (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(dtype)
            for lower in [True, False]:
                for unit in [False, True]:
                    for transpose in ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"]:
                        mlir = f"""
module @m {{
  func.func public @main(%arg0: {mv.tensor(a)}, %arg1: {mv.tensor(b)}) -> {mv.tensor(b)} {{
    %0 = "stablehlo.triangular_solve"(%arg0, %arg1) <{{left_side = {str(left).lower()}, lower = {str(lower).lower()}, transpose_a = #stablehlo<transpose {transpose}>, unit_diagonal = {str(unit).lower()}}}> : ({mv.tensor(a)}, {mv.tensor(b)}) -> {mv.tensor(b)}
    return %0 : {mv.tensor(b)}
  }}
}}"""
                        (got,) = mv.run_mlir(mlir, [a, b])
                        name = (f"triangular_solve_{'left' if left else 'right'}_"
                                f"{'lower' if lower else 'upper'}_{'unit_' if unit else ''}"
                                f"{transpose.lower()}_{t}")
                        attrs = []
                        if left:
                            attrs.append("left_side=true")
                        if lower:
                            attrs.append("lower=true")
                        if unit:
                            attrs.append("unit_diagonal=true")
                        attrs.append(f"transpose_a={transpose}")
                        module = f"""
HloModule {name}

ENTRY {name} {{
  a = {mv.shape_text(a)} parameter(0)
  b = {mv.shape_text(b)} parameter(1)
  ROOT x = {mv.shape_text(b)} triangular-solve(a, b), {', '.join(attrs)}
}}"""
                        f.case(f"triangular-solve, {', '.join(attrs)}, {t}.", module,
                               [(f"ulp={solve_ulp}", [a, b], mv.literal(got))],
                               ["jit: unsupported"])
    f.write()


if __name__ == "__main__":
    main()
