#!/usr/bin/env python3
"""Writes tests/hlo/misc/xla_linalg_narrow.hlo: cholesky and
triangular-solve on bf16 and f16, against XLA:CPU's expansion of the HLO
ops (StableHLO compiled by XLA directly: JAX's own lowering calls LAPACK,
which refuses these types). XLA computes every step in the narrow type
(each op in f32, rounded), so the interpreter does too; the blocked
algorithms sum in another order, hence the ulps.

Usage: ~/venvs/oxla-models/bin/python scripts/linalg_narrow.py
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import misc_values as mv  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402

mv.XLA_TYPES[np.dtype(ml_dtypes.bfloat16)] = "bf16"
mv.XLA_TYPES[np.dtype(np.float16)] = "f16"
mv.MLIR_TYPES["bf16"] = "bf16"
mv.MLIR_TYPES["f16"] = "f16"


def value_text(x):
    if isinstance(x, (ml_dtypes.bfloat16, np.float16)):
        x = np.float32(x)
    return mv_value_text(x)


mv_value_text = mv.value_text
mv.value_text = value_text


def main():
    f = mv.File(
        "xla_linalg_narrow.hlo",
        """
cholesky and triangular-solve on bf16 and f16 against XLA:CPU's expansion
of the HLO ops (scripts/linalg_narrow.py; JAX's CPU lowering calls LAPACK,
which has no such types). XLA computes each step in the narrow type (an
op in f32, rounded), as the interpreter does; its blocked algorithms sum
in another order, so values agree within the ulps given. The JIT refuses
both ops (issue 14).""",
    )
    f.parts = [p.replace("scripts/misc_values.py", "scripts/linalg_narrow.py") for p in f.parts]
    # (the solves' small entries come out of cancellations: more ulps, as
    # for f32 in misc_values.py)
    for dtype, ulp, solve_ulp in [(ml_dtypes.bfloat16, 4, 16),
                                     (np.float16, 8, 32)]:
        a = np.stack([mv.spd(4, 1, np.float32), mv.spd(4, 2, np.float32)]).astype(dtype)
        for lower in [True, False]:
            mv.cholesky_case(f, a, lower, ulp, ["jit: unsupported"])
        rng = np.random.default_rng(7)
        a = (rng.uniform(-1, 1, (3, 3)) + 4 * np.eye(3)).astype(dtype)
        for left in [True, False]:
            b = rng.uniform(-2, 2, (3, 2) if left else (2, 3)).astype(dtype)
            for lower in [True, False]:
                for transpose in ["NO_TRANSPOSE", "TRANSPOSE"]:
                    mv.triangular_solve_case(f, a, b, left, lower, False, transpose, solve_ulp,
                                             ["jit: unsupported"])
    f.write()


if __name__ == "__main__":
    main()
