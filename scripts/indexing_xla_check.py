#!/usr/bin/env python3
"""Checks the `.hlo` files of tests/hlo/indexing/ against XLA itself.

For every module with a `// run: <args> -> <expected>` directive, two
checks, both run by the XLA in jaxlib on the CPU:

1. HLO: the module as oxla prints it in XLA's strict form
   (`oxla convert --to hlo`) is read by XLA's own HLO parser, compiled and
   run on the arguments; the result must equal `<expected>`. This checks the
   expected values (hand-derived or computed by JAX) against XLA's
   semantics, and that XLA reads oxla's text.
2. StableHLO: oxla's StableHLO export (`oxla convert --to stablehlo`) is
   parsed, compiled and run by XLA; the result must equal `<expected>`.

For every module with an `// error:` directive, XLA's HLO parser (which
infers the shape of gather and scatter with XLA's shape inference when the
shape is left out) is shown the module with the gather/scatter result shape
removed, and its message is printed next to ours, for review.

Usage (from the repository root, after `cargo build -p oxla-cli`):
    python scripts/indexing_xla_check.py --oxla target/debug/oxla
Exits 1 if any check fails.
"""

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
DIR = REPO / "tests" / "hlo" / "indexing"

DTYPES = {
    "pred": np.bool_, "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64,
    "u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64,
    "f32": np.float32, "f64": np.float64,
}


def split_top(text, sep=","):
    out, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "{[(":
            depth += 1
        elif c in "}])":
            depth -= 1
        elif c == sep and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def parse_literal(text):
    """XLA literal notation -> numpy array, or a list for a tuple."""
    text = text.strip()
    if text.startswith("("):
        return [parse_literal(t) for t in split_top(text[1:-1])]
    m = re.match(r"(\w+)\[([\d,]*)\]\s*(.*)$", text, re.S)
    ty, dims, values = m.group(1), m.group(2), m.group(3)
    shape = tuple(int(d) for d in dims.split(",") if d)
    flat = re.findall(r"-?nan|-?inf|true|false|[-+0-9.eE]+", values)
    conv = {"true": 1, "false": 0, "nan": np.nan, "-nan": np.nan, "inf": np.inf, "-inf": -np.inf}
    data = [conv.get(v, v) for v in flat]
    if ty.startswith(("s", "u")) and ty != "pred":
        arr = np.array([int(v) for v in data], dtype=object).astype(DTYPES[ty])
    else:
        arr = np.array([float(v) for v in data], dtype=np.float64).astype(DTYPES[ty])
    return arr.reshape(shape)


SKIP = "indexing_xla_check.py skips it"
SKIP_HLO = "indexing_xla_check.py skips its HLO form"


def modules(path):
    """(name, line, directives, module text) for each module of a file; a
    module whose comment says SKIP has no directives."""
    lines = path.read_text().split("\n")
    out, pending, prose, current = [], [], "", None
    for i, line in enumerate(lines):
        if line.startswith("HloModule"):
            if current:
                out.append(current)
            name = line.split()[1].rstrip(",")
            directives = [] if SKIP in prose else pending
            if SKIP_HLO in prose:
                directives = [d + " #stablehlo-only" for d in directives]
            current = (name, i + 1, directives, [line])
            pending, prose = [], ""
        elif line.lstrip().startswith("//"):
            body = line.lstrip()[2:].strip()
            if re.match(r"(run|error)(\(.*\))?:", body):
                pending.append(body)
            elif pending and line.lstrip().startswith("//  "):
                pending[-1] += " " + body
            else:
                prose += " " + body
            current = None if current is None else (out.append(current) or None)
        elif current and line.strip():
            current[3].append(line)
    if current:
        out.append(current)
    return [(n, l, d, "\n".join(t) + "\n") for n, l, d, t in out]


class Xla:
    def __init__(self):
        import jax
        from jax._src import compiler, xla_bridge
        from jax._src.interpreters import mlir
        from jax._src.lib import xla_client as xc
        from jax._src.lib.mlir import ir
        import jaxlib._hlo as hlo

        jax.config.update("jax_enable_x64", True)
        self.jax, self.compiler, self.mlir, self.ir, self.xc, self.hlo = jax, compiler, mlir, ir, xc, hlo
        self.backend = xla_bridge.get_backend("cpu")

    def run_mlir(self, module_text_or_bytes, inputs):
        with self.mlir.make_ir_context():
            module = self.ir.Module.parse(module_text_or_bytes)
            options = self.compiler.get_compile_options(num_replicas=1, num_partitions=1)
            devices = self.xc.DeviceList(tuple(self.backend.devices()[:1]))
            exe = self.backend.compile_and_load(module, executable_devices=devices,
                                                compile_options=options)
        bufs = [self.jax.device_put(a, self.backend.devices()[0]) for a in inputs]
        results = exe.execute_sharded(bufs).disassemble_into_single_device_arrays()
        return [np.asarray(r[0]) for r in results]

    def run_hlo(self, text, inputs):
        m = self.hlo.hlo_module_from_text(text)
        stablehlo = self.xc._xla.mlir.hlo_to_stablehlo(m.as_serialized_hlo_module_proto())
        return self.run_mlir(stablehlo, inputs)

    def parse_error(self, text):
        try:
            self.hlo.hlo_module_from_text(text)
            return "accepted"
        except Exception as e:  # noqa: BLE001
            m = re.search(r"error: (.*)", str(e))
            return m.group(1) if m else str(e)


def same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape or got.dtype != want.dtype:
        return False
    if np.issubdtype(got.dtype, np.floating):
        return bool(np.all((got == want) | (np.isnan(got) & np.isnan(want))))
    return bool(np.all(got == want))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oxla", required=True)
    ap.add_argument("--dir", default=str(DIR), help="the folder of .hlo files (tests/hlo/indexing)")
    args = ap.parse_args()
    xla = Xla()
    failures, checks = 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for path in sorted(Path(args.dir).glob("*.hlo")):
            for name, line, directives, text in modules(path):
                where = f"{path}:{line} [{name}]"
                src = Path(tmp) / f"{name}.hlo"
                src.write_text(text)
                for d in directives:
                    if d.startswith("error"):
                        if not re.search(r"\b(gather|scatter)\(", text):
                            continue  # XLA infers no shape for the others
                        stripped = re.sub(r"(= )\S+ (gather|scatter)\(", r"\1\2(", text)
                        print(f"{where}: ours: {d}\n    XLA: {xla.parse_error(stripped)}")
                        continue
                    forms = ["hlo", "stablehlo"]
                    if d.endswith(" #stablehlo-only"):
                        d, forms = d[: -len(" #stablehlo-only")], ["stablehlo"]
                    arg_text, want_text = d.split(":", 1)[1].split("->")
                    inputs = [parse_literal(a) for a in split_top(arg_text)]
                    want = parse_literal(want_text)
                    want = want if isinstance(want, list) else [want]
                    for form in forms:
                        checks += 1
                        r = subprocess.run([args.oxla, "convert", str(src), "--to", form],
                                           capture_output=True, text=True)
                        if r.returncode != 0:
                            print(f"FAIL {where} {form}: oxla convert: {r.stderr.strip()}")
                            failures += 1
                            continue
                        try:
                            run = xla.run_hlo if form == "hlo" else xla.run_mlir
                            got = run(r.stdout, inputs)
                        except Exception as e:  # noqa: BLE001
                            print(f"FAIL {where} {form}: XLA: {str(e).splitlines()[0]}")
                            failures += 1
                            continue
                        if len(got) != len(want) or not all(same(g, w) for g, w in zip(got, want)):
                            print(f"FAIL {where} {form}: XLA gives {got}, expected {want}")
                            failures += 1
    print(f"{checks - failures}/{checks} XLA checks pass")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
