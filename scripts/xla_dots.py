#!/usr/bin/env python3
"""XLA:CPU (through JAX) on the dot shapes of `oxla-bench --dots`.

Run: ~/venvs/oxla-models/bin/python scripts/xla_dots.py
Prints one line per case: name, median seconds per call, GFLOP/s
(2 * batch * m * k * n / time). Each sample is one call plus
block_until_ready, medians of 9 rounds of at least 50 ms each.
"""
import time

import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_enable_x64", True)

# (name, dtype, batch dims, m, k, n): lhs [*batch, m, k] x rhs [*batch, k, n].
CASES = [
    ("f32 1024^3", "float32", (), 1024, 1024, 1024),
    ("f32 768^3", "float32", (), 768, 768, 768),
    ("f32 256^3", "float32", (), 256, 256, 256),
    ("f32 128 x 32^3", "float32", (128,), 32, 32, 32),
    ("f32 64 x 64^3", "float32", (64,), 64, 64, 64),
    ("f32 attn [2,6,384,64]x[2,6,64,384]", "float32", (2, 6), 384, 64, 384),
    ("f32 attn [2,6,384,384]x[2,6,384,64]", "float32", (2, 6), 384, 384, 64),
    ("f64 512^3", "float64", (), 512, 512, 512),
    ("bf16->f32 768^3", "bfloat16", (), 768, 768, 768),
    ("s8->s32 512^3", "int8", (), 512, 512, 512),
]


def timeit(f, args):
    f(*args).block_until_ready()
    samples = []
    for _ in range(9):
        t = time.perf_counter()
        n = 0
        while True:
            f(*args).block_until_ready()
            n += 1
            if time.perf_counter() - t >= 0.05:
                break
        samples.append((time.perf_counter() - t) / n)
    samples.sort()
    return samples[len(samples) // 2]


def main():
    rng = np.random.default_rng(0)
    for name, dt, batch, m, k, n in CASES:
        if dt == "int8":
            a = rng.integers(-100, 100, (*batch, m, k)).astype(np.int8)
            b = rng.integers(-100, 100, (*batch, k, n)).astype(np.int8)
            pref = jnp.int32
        else:
            a = jnp.asarray(rng.standard_normal((*batch, m, k)), dtype=dt)
            b = jnp.asarray(rng.standard_normal((*batch, k, n)), dtype=dt)
            pref = jnp.float32 if dt == "bfloat16" else None
        nb = len(batch)
        dims = (((nb + 1,), (nb,)), (tuple(range(nb)), tuple(range(nb))))
        f = jax.jit(lambda x, y: jax.lax.dot_general(x, y, dims, preferred_element_type=pref))
        t = timeit(f, (a, b))
        flops = 2.0 * int(np.prod(batch or (1,))) * m * k * n
        print(f"{name}\t{t:.6e}\t{flops / t / 1e9:.1f}")


if __name__ == "__main__":
    main()
