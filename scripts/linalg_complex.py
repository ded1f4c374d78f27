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
    for dtype, ulp, solve_ulp in [(np.complex64, 16, 64),
                                     (np.complex128, 16, 256)]:
        a = np.stack([hpd(4, 1, dtype), hpd(4, 2, dtype)])
        for lower in [True, False]:
            mv.cholesky_case(f, a, lower, ulp, ["jit: unsupported"])
        rng = np.random.default_rng(7)
        a = (rng.uniform(-1, 1, (3, 3)) + 1j * rng.uniform(-1, 1, (3, 3))
             + 4 * np.eye(3)).astype(dtype)
        for left in [True, False]:
            shape = (3, 2) if left else (2, 3)
            b = (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(dtype)
            for lower in [True, False]:
                for unit in [False, True]:
                    for transpose in ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"]:
                        mv.triangular_solve_case(f, a, b, left, lower, unit, transpose,
                                                 solve_ulp, ["jit: unsupported"])
    f.write()


if __name__ == "__main__":
    main()
