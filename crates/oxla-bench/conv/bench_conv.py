#!/usr/bin/env python3
"""Convolution and pooling shapes: oxla's JIT against XLA (through JAX) and IREE.

    python bench_conv.py --oxla PATH/TO/oxla [--rounds 3] [--only a,b] [--write]

Each case is a jitted JAX function. `--write` (re)writes CASE.hlo beside this
script (the HLO text JAX prints, which oxla runs) and exits. Otherwise, per
round and case, the three systems run one after the other (the order rotated
every round): XLA as jax.jit(f) on device-resident inputs (2 warm-up calls, then
the median of n calls with block_until_ready), IREE as the StableHLO text
compiled for llvm-cpu (host CPU) and called on device arrays, and oxla as
`oxla bench CASE.hlo --backend jit` (its printed median). The table gives the
median over rounds of each system's time and of the same-round ratios
XLA/oxla and IREE/oxla (above 1: oxla is faster). Inputs are uniform in
[-1, 1) (oxla's own random inputs for oxla; convolutions and pools do the same
work whatever the data). Every system uses its default number of threads.
"""
import argparse
import os
import re
import statistics
import subprocess
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

HERE = os.path.dirname(os.path.abspath(__file__))
NHWC = ('NHWC', 'HWIO', 'NHWC')


def conv(x, w, stride=(1, 1), groups=1):
    return lax.conv_general_dilated(x, w, stride, 'SAME', dimension_numbers=NHWC,
                                    feature_group_count=groups)


def maxpool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), 'VALID')


def avgpool(x):
    return lax.reduce_window(x, 0., lax.add, (1, 3, 3, 1), (1, 1, 1, 1), 'SAME') / 9.0


X, W, G = (8, 56, 56, 64), (3, 3, 64, 128), (8, 28, 28, 128)
CASES = {
    'resnet3x3': (lambda x, w: conv(x, w), [X, (3, 3, 64, 64)]),
    'pointwise1x1': (lambda x, w: conv(x, w), [X, (1, 1, 64, 128)]),
    'depthwise3x3': (lambda x, w: conv(x, w, groups=64), [X, (3, 3, 1, 64)]),
    'strided3x3': (lambda x, w: conv(x, w, (2, 2)), [X, W]),
    'grad_input': (lambda x, w, g: jax.vjp(lambda x: conv(x, w, (2, 2)), x)[1](g)[0], [X, W, G]),
    'grad_weight': (lambda x, w, g: jax.vjp(lambda w: conv(x, w, (2, 2)), w)[1](g)[0], [X, W, G]),
    'maxpool2x2': (maxpool, [(64, 28, 28, 32)]),
    'maxpool_grad': (lambda x, g: jax.vjp(maxpool, x)[1](g)[0], [(64, 28, 28, 32), (64, 14, 14, 32)]),
    'avgpool3x3': (avgpool, [X]),
}


def specs(shapes):
    return [jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes]


def median_call(f, n):
    for _ in range(2):
        f()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--oxla')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--calls', type=int, default=10)
    ap.add_argument('--only')
    ap.add_argument('--write', action='store_true')
    args = ap.parse_args()
    names = args.only.split(',') if args.only else list(CASES)
    if args.write:
        for name in names:
            f, shapes = CASES[name]
            with open(os.path.join(HERE, name + '.hlo'), 'w') as fh:
                fh.write(jax.jit(f, keep_unused=True).lower(*specs(shapes)).as_text("hlo"))
        return
    import iree.compiler as ireec
    import iree.runtime as ireert
    config = ireert.Config('local-task')
    rng = np.random.default_rng(0)
    runners = {}
    for name in names:
        f, shapes = CASES[name]
        host = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
        xa = [jax.device_put(a) for a in host]
        jf = jax.jit(f, keep_unused=True)
        vmfb = ireec.compile_str(jf.lower(*specs(shapes)).as_text(), target_backends=['llvm-cpu'],
                                 input_type='stablehlo',
                                 extra_args=['--iree-llvmcpu-target-cpu=host'])
        ctx = ireert.SystemContext(config=config)
        vm = ireert.VmModule.copy_buffer(ctx.instance, vmfb)
        ctx.add_vm_module(vm)
        fn = ctx.modules[vm.name]['main']
        ia = [ireert.asdevicearray(config.device, a) for a in host]

        def oxla(name=name):
            out = subprocess.run([args.oxla, 'bench', os.path.join(HERE, name + '.hlo'),
                                  '--backend', 'jit', '--iterations', str(args.calls),
                                  '--warmup', '2'], capture_output=True, text=True, check=True)
            return float(re.search(r'run:\s+median ([0-9.]+) ms', out.stdout).group(1)) / 1e3

        runners[name] = {
            'xla': lambda jf=jf, xa=xa: median_call(lambda: jax.block_until_ready(jf(*xa)), args.calls),
            'iree': lambda fn=fn, ia=ia: median_call(lambda: fn(*ia), args.calls),
            'oxla': oxla,
        }
    times = {n: {s: [] for s in ('xla', 'iree', 'oxla')} for n in names}
    ratios = {n: {s: [] for s in ('xla', 'iree')} for n in names}
    order = ['xla', 'iree', 'oxla']
    for r in range(args.rounds):
        for name in names:
            got = {}
            for s in order[r % 3:] + order[:r % 3]:
                got[s] = runners[name][s]()
                times[name][s].append(got[s])
            for s in ('xla', 'iree'):
                ratios[name][s].append(got[s] / got['oxla'])
    med = statistics.median
    print(f"{'case':<14}{'XLA ms':>10}{'IREE ms':>10}{'oxla ms':>10}{'XLA/oxla':>10}{'IREE/oxla':>11}")
    for n in names:
        t = {s: med(times[n][s]) * 1e3 for s in times[n]}
        print(f"{n:<14}{t['xla']:>10.2f}{t['iree']:>10.2f}{t['oxla']:>10.2f}"
              f"{med(ratios[n]['xla']):>10.2f}{med(ratios[n]['iree']):>11.2f}")


if __name__ == '__main__':
    main()
