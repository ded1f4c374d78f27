//! `sort` and `topk` on the JIT against the interpreter, bit for bit, at
//! sizes the `.hlo` files do not reach: rows longer than the radix sort's
//! threshold, enough rows to run on several threads, strided sort
//! dimensions, comparators that are not strict weak orders, keys wider
//! than 64 bits, top-k on both sides of the selection buffer's `k`, and
//! the empty and one-element edges.

use oxla_ir::{ArrayData, Computation, ElementType, Literal, parse_hlo_module};

use crate::common::check;

/// A small deterministic generator.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 11
    }
}

fn parse(text: &str) -> Computation {
    parse_hlo_module(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// `n` floats with many ties, NaNs of both signs, signed zeros and
/// infinities.
fn floats(n: usize, seed: u64) -> Vec<f32> {
    let mut r = Lcg(seed);
    (0..n)
        .map(|_| match r.next() % 16 {
            0 => f32::NAN,
            1 => -f32::NAN,
            2 => 0.0,
            3 => -0.0,
            4 => f32::INFINITY,
            5 => f32::NEG_INFINITY,
            _ => (r.next() % 200) as f32 / 4.0 - 25.0,
        })
        .collect()
}

/// A literal of `ty` whose elements have the low bits of `bits`.
fn from_bits(ty: ElementType, dims: &[i64], bits: &[u64]) -> Literal {
    let data = match ty {
        ElementType::Pred => ArrayData::Pred(bits.iter().map(|&b| b & 1 == 1).collect()),
        ElementType::S8 => ArrayData::S8(bits.iter().map(|&b| b as i8).collect()),
        ElementType::S16 => ArrayData::S16(bits.iter().map(|&b| b as i16).collect()),
        ElementType::S32 => ArrayData::S32(bits.iter().map(|&b| b as i32).collect()),
        ElementType::S64 => ArrayData::S64(bits.iter().map(|&b| b as i64).collect()),
        ElementType::U8 => ArrayData::U8(bits.iter().map(|&b| b as u8).collect()),
        ElementType::U16 => ArrayData::U16(bits.iter().map(|&b| b as u16).collect()),
        ElementType::U32 => ArrayData::U32(bits.iter().map(|&b| b as u32).collect()),
        ElementType::U64 => ArrayData::U64(bits.to_vec()),
        ElementType::F32 => {
            ArrayData::F32(bits.iter().map(|&b| f32::from_bits(b as u32)).collect())
        }
        ElementType::F64 => ArrayData::F64(bits.iter().map(|&b| f64::from_bits(b)).collect()),
        ElementType::Tuple | ElementType::Token => panic!("no tuple literal from bits"),
        // The types of issue 13 (which the JIT refuses) by their bytes.
        ElementType::S1
        | ElementType::S2
        | ElementType::S4
        | ElementType::U1
        | ElementType::U2
        | ElementType::U4
        | ElementType::F4E2M1FN
        | ElementType::F8E3M4
        | ElementType::F8E4M3
        | ElementType::F8E4M3FN
        | ElementType::F8E4M3FNUZ
        | ElementType::F8E4M3B11FNUZ
        | ElementType::F8E5M2
        | ElementType::F8E5M2FNUZ
        | ElementType::F8E8M0FNU
        | ElementType::Bf16
        | ElementType::F16
        | ElementType::C64
        | ElementType::C128 => {
            let size = ty.byte_size();
            let bytes: Vec<u8> = bits
                .iter()
                .flat_map(|&b| u128::from(b).to_le_bytes().into_iter().take(size))
                .collect();
            ArrayData::from_bytes(ty, &bytes, false).expect("bytes of the type")
        }
    };
    Literal::from_array_data(dims, data).expect("literal")
}

fn lit<T: oxla_ir::NativeType>(dims: &[i64], v: Vec<T>) -> Literal {
    Literal::from_vec(dims, v).expect("literal")
}

const TOTAL_LT: &str = "cmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
                        ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER\n}\n";

/// A long single row sorted by a `TOTALORDER` key (the radix path), with
/// its indices (an argsort: the stable order shows in them).
#[test]
fn long_total_order_argsort() {
    let n = 100_000;
    let text = format!(
        "HloModule m\n\n{}\nENTRY e {{\n  x = f32[{n}] parameter(0)\n  \
         i = s32[{n}] iota(), iota_dimension=0\n  \
         ROOT s = (f32[{n}], s32[{n}]) sort(x, i), dimensions={{0}}, is_stable=true, \
         to_apply=cmp2\n}}\n",
        "cmp2 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
         i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  \
         ROOT c = pred[] compare(a, b), direction=LT, type=TOTALORDER\n}\n"
    );
    check(&parse(&text), &[lit(&[n], floats(n as usize, 1))]);
}

/// Many rows of an IEEE `LT` sort (NaNs make it no strict weak order: the
/// inline merge sort must make the interpreter's comparisons), threaded
/// by rows, along the last dimension and along a strided first one.
#[test]
fn ieee_lt_rows_on_threads() {
    let lt = "lt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
              ROOT c = pred[] compare(a, b), direction=LT\n}\n";
    for (dims, dim) in [([64i64, 1000i64], 1), ([300, 48], 0)] {
        let n = (dims[0] * dims[1]) as usize;
        let text = format!(
            "HloModule m\n\n{lt}\nENTRY e {{\n  x = f32[{},{}] parameter(0)\n  \
             ROOT s = f32[{},{}] sort(x), dimensions={{{dim}}}, to_apply=lt\n}}\n",
            dims[0], dims[1], dims[0], dims[1]
        );
        check(&parse(&text), &[lit(&dims, floats(n, 2))]);
    }
}

/// Comparators that are not orders at all: `LE` (not strict), a constant
/// `true`, and one that reads the second operand only; with several
/// operands moved by the one permutation.
#[test]
fn comparators_that_are_not_orders() {
    let roots = [
        "ROOT c = pred[] compare(a, b), direction=LE",
        "ROOT c = pred[] constant(true)",
        "ROOT c = pred[] compare(j, i), direction=GE",
    ];
    let n = 700usize;
    let mut r = Lcg(3);
    let ints: Vec<i32> = (0..n).map(|_| (r.next() % 7) as i32 - 3).collect();
    for root in roots {
        let text = format!(
            "HloModule m\n\ncmp {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
             i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  {root}\n}}\n\n\
             ENTRY e {{\n  x = f32[{n}] parameter(0)\n  y = s32[{n}] parameter(1)\n  \
             ROOT s = (f32[{n}], s32[{n}]) sort(x, y), dimensions={{0}}, to_apply=cmp\n}}\n"
        );
        check(
            &parse(&text),
            &[
                lit(&[n as i64], floats(n, 4)),
                lit(&[n as i64], ints.clone()),
            ],
        );
    }
}

/// JAX's comparator (NaN and `-0` canonicalised, ties broken by a second
/// key): the key kernels and a two-key sort, threaded over rows.
#[test]
fn jax_two_key_sort() {
    let text = "HloModule m\n\ncmp {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  \
                i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  \
                zero = f32[] constant(0)\n  nan = f32[] constant(nan)\n  \
                az = pred[] compare(a, zero), direction=EQ\n  \
                an = pred[] compare(a, a), direction=NE\n  \
                a1 = f32[] select(az, zero, a)\n  a2 = f32[] select(an, nan, a1)\n  \
                bz = pred[] compare(b, zero), direction=EQ\n  \
                bn = pred[] compare(b, b), direction=NE\n  \
                b1 = f32[] select(bz, zero, b)\n  b2 = f32[] select(bn, nan, b1)\n  \
                lt = pred[] compare(a2, b2), direction=LT, type=TOTALORDER\n  \
                eq = pred[] compare(a2, b2), direction=EQ, type=TOTALORDER\n  \
                lt2 = pred[] compare(j, i), direction=LT\n  and = pred[] and(eq, lt2)\n  \
                ROOT or = pred[] or(lt, and)\n}\n\n\
                ENTRY e {\n  x = f32[8,1024] parameter(0)\n  y = s32[8,1024] parameter(1)\n  \
                ROOT s = (f32[8,1024], s32[8,1024]) sort(x, y), dimensions={1}, \
                to_apply=cmp\n}\n";
    let n = 8 * 1024;
    let mut r = Lcg(5);
    let ints: Vec<i32> = (0..n).map(|_| (r.next() % 5) as i32).collect();
    check(
        &parse(text),
        &[lit(&[8, 1024], floats(n, 6)), lit(&[8, 1024], ints)],
    );
}

/// A lexicographic sort by an `s64` key then an `f64` one (wider than 64
/// bits together: one stable pass per key), descending on the first,
/// along a strided dimension; only the second result is used.
#[test]
fn wide_keys_strided_and_a_result_unused() {
    let text = "HloModule m\n\ncmp {\n  a = s64[] parameter(0)\n  b = s64[] parameter(1)\n  \
                x = f64[] parameter(2)\n  y = f64[] parameter(3)\n  \
                gt = pred[] compare(a, b), direction=GT\n  \
                eq = pred[] compare(a, b), direction=EQ\n  \
                lt = pred[] compare(x, y), direction=LT, type=TOTALORDER\n  \
                and = pred[] and(eq, lt)\n  ROOT or = pred[] or(gt, and)\n}\n\n\
                ENTRY e {\n  k = s64[600,3,5] parameter(0)\n  v = f64[600,3,5] parameter(1)\n  \
                s = (s64[600,3,5], f64[600,3,5]) sort(k, v), dimensions={0}, to_apply=cmp\n  \
                v2 = f64[600,3,5] get-tuple-element(s), index=1\n  \
                ROOT n = f64[600,3,5] negate(v2)\n}\n";
    let n = 600 * 15;
    let mut r = Lcg(7);
    let keys: Vec<i64> = (0..n)
        .map(|_| match r.next() % 4 {
            0 => i64::MIN,
            1 => i64::MAX,
            _ => (r.next() % 9) as i64 - 4,
        })
        .collect();
    let vals: Vec<f64> = floats(n, 8).into_iter().map(f64::from).collect();
    check(
        &parse(text),
        &[lit(&[600, 3, 5], keys), lit(&[600, 3, 5], vals)],
    );
}

/// Integer keys of every width in both directions, by keys, on rows
/// below and above the radix threshold.
#[test]
fn integer_keys_of_every_width() {
    for (ty, dir) in [
        (ElementType::S8, "LT"),
        (ElementType::U8, "GT"),
        (ElementType::S16, "GT"),
        (ElementType::U16, "LT"),
        (ElementType::S32, "GT"),
        (ElementType::U32, "LT"),
        (ElementType::U64, "GT"),
        (ElementType::Pred, "LT"),
    ] {
        for len in [200i64, 3000] {
            let text = format!(
                "HloModule m\n\ncmp {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  \
                 i = s32[] parameter(2)\n  j = s32[] parameter(3)\n  \
                 ROOT c = pred[] compare(a, b), direction={dir}\n}}\n\n\
                 ENTRY e {{\n  x = {ty}[4,{len}] parameter(0)\n  \
                 i = s32[4,{len}] iota(), iota_dimension=1\n  \
                 ROOT s = ({ty}[4,{len}], s32[4,{len}]) sort(x, i), dimensions={{1}}, \
                 to_apply=cmp\n}}\n"
            );
            let comp = parse(&text);
            let mut r = Lcg(len as u64);
            let bits: Vec<u64> = (0..4 * len)
                .map(|_| (r.next() % 11).wrapping_mul(0x1f1f_1f1f_1f1f_1f1f))
                .collect();
            check(&comp, &[from_bits(ty, &[4, len], &bits)]);
        }
    }
}

/// `topk` with `k` inside the selection buffer, above it, zero and the
/// whole row, largest and smallest, floats with NaNs and ties, `f64` and
/// 64-bit integers; a vocabulary-sized row as in sampling.
#[test]
fn topk_sizes_and_types() {
    for (rows, len, k, largest) in [
        (32i64, 50_257i64, 8i64, true),
        (8, 3000, 100, true),
        (8, 3000, 100, false),
        (5, 17, 0, true),
        (5, 17, 17, false),
        (1, 1, 1, true),
    ] {
        let text = format!(
            "HloModule m\n\nENTRY e {{\n  x = f32[{rows},{len}] parameter(0)\n  \
             ROOT t = (f32[{rows},{k}], s32[{rows},{k}]) topk(x), k={k}, largest={largest}\n}}\n"
        );
        check(
            &parse(&text),
            &[lit(&[rows, len], floats((rows * len) as usize, 9))],
        );
    }
    for ty in [
        ElementType::F64,
        ElementType::S64,
        ElementType::U64,
        ElementType::S8,
    ] {
        let text = format!(
            "HloModule m\n\nENTRY e {{\n  x = {ty}[3,500] parameter(0)\n  \
             t = ({ty}[3,70], s32[3,70]) topk(x), k=70, largest=true\n  \
             ROOT i = s32[3,70] get-tuple-element(t), index=1\n}}\n"
        );
        let mut r = Lcg(11);
        let bits: Vec<u64> = (0..1500)
            .map(|_| (r.next() % 13).wrapping_mul(0x0813_0813_0813_0813))
            .collect();
        check(&parse(&text), &[from_bits(ty, &[3, 500], &bits)]);
    }
}

/// Empty rows, one-element rows, no rows.
#[test]
fn empty_and_single_element_sorts() {
    for dims in ["0", "1", "3,0", "0,4", "5,1"] {
        let n: i64 = dims
            .split(',')
            .map(|d| d.parse::<i64>().expect("dim"))
            .product();
        let d: Vec<i64> = dims.split(',').map(|d| d.parse().expect("dim")).collect();
        let last = d.len() - 1;
        let text = format!(
            "HloModule m\n\n{TOTAL_LT}\nENTRY e {{\n  x = f32[{dims}] parameter(0)\n  \
             ROOT s = f32[{dims}] sort(x), dimensions={{{last}}}, to_apply=cmp\n}}\n"
        );
        check(&parse(&text), &[lit(&d, floats(n as usize, 12))]);
    }
}

/// A sort whose result feeds elementwise work, and a sort of a computed
/// operand (both fused around the sort step).
#[test]
fn sort_between_elementwise_ops() {
    let text = format!(
        "HloModule m\n\n{TOTAL_LT}\nENTRY e {{\n  x = f32[40,300] parameter(0)\n  \
         y = f32[40,300] multiply(x, x)\n  \
         s = f32[40,300] sort(y), dimensions={{1}}, to_apply=cmp\n  \
         ROOT z = f32[40,300] add(s, x)\n}}\n"
    );
    check(&parse(&text), &[lit(&[40, 300], floats(12_000, 13))]);
}
