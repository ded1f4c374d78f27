#!/usr/bin/env python3
"""A small JAX classifier for `examples/jax_classifier.rs`.

Trains a two-layer MLP (16 features -> 32 hidden, ReLU -> 4 classes) on a
synthetic, seeded data set of four Gaussian blobs, then writes under
examples/jax_classifier/:

  model.stablehlo.mlir  the inference function's StableHLO, as JAX prints it:
                        jax.jit(predict).lower(x, w1, b1, w2, b2).as_text();
                        it returns the class probabilities (a softmax)
  w1.npy, b1.npy,       the trained weights, f32, in the function's parameter
  w2.npy, b2.npy        order after the batch
  x.npy                 a batch of 64 held-out inputs, f32[64,16]
  labels.npy            their true classes, s32[64]
  probs.npy             JAX's probabilities for that batch on the CPU, f32[64,4]

The example reads these, compiles the model once with oxla, runs the batch,
and checks its probabilities against probs.npy and its predictions against
JAX's. Nothing here runs at test time: commit what it writes.

Usage (jax/jaxlib 0.10.2 on the CPU):
  ~/venvs/oxla-models/bin/python scripts/jax_classifier.py [--out DIR]

The output is deterministic: running it twice writes the same bytes.
"""

import argparse
import sys
from pathlib import Path

import jax

jax.config.update("jax_platforms", "cpu")

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
OUT_DIR = REPO / "examples" / "jax_classifier"
JAX_VERSION = "0.10.2"

FEATURES, HIDDEN, CLASSES, BATCH = 16, 32, 4, 64


def data(rng, n):
    """`n` points from four Gaussian blobs in 16 dimensions, and their labels."""
    centres = np.random.default_rng(7).normal(0.0, 0.7, (CLASSES, FEATURES))
    labels = rng.integers(0, CLASSES, n)
    x = centres[labels] + rng.normal(0.0, 1.0, (n, FEATURES))
    return x.astype(np.float32), labels.astype(np.int32)


def predict(x, w1, b1, w2, b2):
    """Class probabilities: softmax(relu(x @ w1 + b1) @ w2 + b2)."""
    h = jax.nn.relu(x @ w1 + b1)
    return jax.nn.softmax(h @ w2 + b2, axis=-1)


def loss(params, x, y):
    p = predict(x, *params)
    return -jnp.mean(jnp.log(p[jnp.arange(x.shape[0]), y] + 1e-9))


def train():
    rng = np.random.default_rng(0)
    w1 = rng.normal(0, 1 / np.sqrt(FEATURES), (FEATURES, HIDDEN)).astype(np.float32)
    w2 = rng.normal(0, 1 / np.sqrt(HIDDEN), (HIDDEN, CLASSES)).astype(np.float32)
    params = [w1, np.zeros(HIDDEN, np.float32), w2, np.zeros(CLASSES, np.float32)]
    params = [jnp.asarray(p) for p in params]
    x, y = data(rng, 1024)
    step = jax.jit(jax.grad(loss))
    for _ in range(200):
        grads = step(params, x, y)
        params = [p - 0.1 * g for p, g in zip(params, grads)]
    return [np.asarray(p) for p in params]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT_DIR)
    args = ap.parse_args()
    if jax.__version__ != JAX_VERSION:
        sys.exit(f"jax {jax.__version__}: this script writes what jax {JAX_VERSION} prints")
    params = train()
    x, labels = data(np.random.default_rng(1), BATCH)
    lowered = jax.jit(predict).lower(x, *params)
    probs = np.asarray(jax.jit(predict)(x, *params))
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "model.stablehlo.mlir").write_text(lowered.as_text())
    for name, a in zip(["w1", "b1", "w2", "b2"], params):
        np.save(out / f"{name}.npy", a)
    np.save(out / "x.npy", x)
    np.save(out / "labels.npy", labels)
    np.save(out / "probs.npy", probs)
    accuracy = float(np.mean(np.argmax(probs, axis=1) == labels))
    print(f"wrote {out}: JAX's accuracy on the batch is {accuracy:.3f}")


if __name__ == "__main__":
    main()
