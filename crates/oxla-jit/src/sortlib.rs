//! The run-time half of the sort fast paths: stable sorts by integer keys
//! and top-k selection, called from the stubs `codegen/sort.rs` emits.
//!
//! A sort whose comparator is a lexicographic comparison of *keys* (values
//! computed per element: an operand, or an expression of one element's
//! operands that a key kernel has stored) in an order that is a total
//! order on the key bits (`TOTALORDER` on floats, the natural order on
//! integers and `pred`) is a stable sort by those keys. Each key becomes an
//! unsigned integer whose natural order is the comparator's:
//!
//! | key | unsigned key of bits `b` (`w` bits wide) |
//! |---|---|
//! | unsigned, `pred` | `b` |
//! | signed | `b ^ 2^(w-1)` |
//! | float, `TOTALORDER` | `b` negative: `!b`; else `b \| 2^(w-1)` (`-NaN < -inf < -0 < +0 < +inf < +NaN`, XLA's integer-key trick) |
//! | descending (`GT`) | `!u` of the above |
//!
//! Concatenated (first key most significant) they make one key per
//! element; packed above the element's index (`key << 32 | index`, or 64
//! bits of each in a `u128`), every packed value is distinct, so sorting
//! the packed values in any way is the *stable* sort by key: equal keys
//! keep their index order, which is what the interpreter's stable merge
//! sort produces for a strict weak order (its result is unique). Rows
//! longer than [`SMALL_SORT`] are sorted by a least-significant-digit
//! radix sort (8-bit digits, passes whose digit is the same for every
//! element skipped); keys wider than 64 bits are sorted one component at a
//! time, last first (each pass stable).
//!
//! Every operand is then moved by the one permutation (a gather per
//! operand).
//!
//! `topk` keeps the `k` smallest packed keys of each row (descending
//! `largest` keys, so the largest values, ties broken by the lower index,
//! as the interpreter's stable sort breaks them) in a sorted buffer that a
//! value enters only when it beats the current `k`-th (`k <= 64`), or by
//! `select_nth_unstable` and a sort of the `k` winners: selection, never a
//! full sort of the row.
//!
//! Memory safety: the descriptor and the buffer table come from kernels
//! the IR verifier checked (`verify::check_sort_kernel`): every buffer
//! holds `count * length` elements of its width (top-k outputs `count *
//! k`), and the positions computed here, `start(r) + i * stride` for `r <
//! count` and `i < length`, lie inside it. Inputs are read through shared
//! slices (nothing writes them while a kernel runs); outputs through raw
//! pointers, since several threads write disjoint rows of them at once.

use std::cmp::Ordering;

/// Rows at most this long are sorted by `sort_unstable` on the packed
/// keys instead of the radix sort.
pub(crate) const SMALL_SORT: usize = 256;

/// Top-k with `k` at most this keeps a sorted buffer of the winners;
/// larger `k` selects with `select_nth_unstable`.
pub(crate) const TOPK_BUFFER: usize = 64;

/// How a key's bits become an unsigned key (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    Unsigned = 0,
    Signed = 1,
    Float = 2,
}

impl Encoding {
    fn from_code(c: i64) -> Encoding {
        match c {
            1 => Encoding::Signed,
            2 => Encoding::Float,
            _ => Encoding::Unsigned,
        }
    }
}

/// One key of a sort, as the descriptor gives it.
#[derive(Clone, Copy, Debug)]
struct Key {
    buf: usize,
    bytes: u32,
    encoding: Encoding,
    descending: bool,
}

impl Key {
    fn bits(&self) -> u32 {
        self.bytes * 8
    }
}

/// One operand of a sort: read from `input`, its sorted row written to
/// `output` (none: the result is not used).
#[derive(Clone, Copy, Debug)]
struct Operand {
    input: usize,
    output: Option<usize>,
    bytes: u32,
}

/// The rows of a sort: row `r` holds the elements at `start(r) + i *
/// stride` for `i < length`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rows {
    pub(crate) count: i64,
    pub(crate) length: i64,
    pub(crate) stride: i64,
}

impl Rows {
    /// The position of element 0 of row `r`.
    pub(crate) fn start(self, r: i64) -> i64 {
        (r / self.stride) * self.length * self.stride + r % self.stride
    }
}

/// The unsigned key of `bits` (zero-extended, `bytes` wide).
#[inline(always)]
fn encode(bits: u64, bytes: u32, encoding: Encoding, descending: bool) -> u64 {
    let w = bytes * 8;
    let mask = if w >= 64 { u64::MAX } else { (1u64 << w) - 1 };
    let sign = 1u64 << (w - 1);
    let u = match encoding {
        Encoding::Unsigned => bits,
        Encoding::Signed => bits ^ sign,
        Encoding::Float if bits & sign != 0 => !bits & mask,
        Encoding::Float => bits | sign,
    };
    if descending { !u & mask } else { u }
}

/// A buffer's elements as unsigned bits of `bytes` width.
#[derive(Clone, Copy)]
enum Bits<'a> {
    B1(&'a [u8]),
    B2(&'a [u16]),
    B4(&'a [u32]),
    B8(&'a [u64]),
}

impl Bits<'_> {
    #[inline(always)]
    fn get(&self, i: usize) -> u64 {
        match self {
            Bits::B1(s) => u64::from(s[i]),
            Bits::B2(s) => u64::from(s[i]),
            Bits::B4(s) => u64::from(s[i]),
            Bits::B8(s) => s[i],
        }
    }
}

/// The `numel` elements of buffer `buf` as bits of `bytes` width.
///
/// # Safety
/// `table[buf]` points to at least `numel` elements of `bytes` bytes,
/// aligned for them, that nothing writes while the slice lives.
unsafe fn bits_of<'a>(table: *const *mut u8, buf: usize, bytes: u32, numel: usize) -> Bits<'a> {
    // SAFETY: the caller's contract.
    unsafe {
        let p = *table.add(buf);
        match bytes {
            1 => Bits::B1(std::slice::from_raw_parts(p as *const u8, numel)),
            2 => Bits::B2(std::slice::from_raw_parts(p as *const u16, numel)),
            4 => Bits::B4(std::slice::from_raw_parts(p as *const u32, numel)),
            _ => Bits::B8(std::slice::from_raw_parts(p as *const u64, numel)),
        }
    }
}

/// A packed (key, index) value the sorts order.
trait Packed: Copy + Ord + Default {
    /// Bits of the index part.
    const INDEX_BITS: u32;
    fn pack(key: u64, index: usize) -> Self;
    fn index(self) -> usize;
    /// The 8-bit digit at `shift`.
    fn digit(self, shift: u32) -> usize;
}

impl Packed for u64 {
    const INDEX_BITS: u32 = 32;
    #[inline(always)]
    fn pack(key: u64, index: usize) -> u64 {
        (key << 32) | index as u64
    }
    #[inline(always)]
    fn index(self) -> usize {
        (self & 0xffff_ffff) as usize
    }
    #[inline(always)]
    fn digit(self, shift: u32) -> usize {
        ((self >> shift) & 0xff) as usize
    }
}

impl Packed for u128 {
    const INDEX_BITS: u32 = 64;
    #[inline(always)]
    fn pack(key: u64, index: usize) -> u128 {
        (u128::from(key) << 64) | index as u128
    }
    #[inline(always)]
    fn index(self) -> usize {
        self as u64 as usize
    }
    #[inline(always)]
    fn digit(self, shift: u32) -> usize {
        ((self >> shift) & 0xff) as usize
    }
}

/// Sorts distinct packed values whose key part has `key_bits` bits.
fn sort_packed<T: Packed>(v: &mut Vec<T>, tmp: &mut Vec<T>, key_bits: u32) {
    let n = v.len();
    if n <= SMALL_SORT {
        v.sort_unstable();
        return;
    }
    // Already in index order, so a stable pass per key digit sorts it.
    let passes = key_bits.div_ceil(8) as usize;
    let mut counts = vec![[0usize; 256]; passes];
    for &x in v.iter() {
        for (p, c) in counts.iter_mut().enumerate() {
            c[x.digit(T::INDEX_BITS + 8 * p as u32)] += 1;
        }
    }
    tmp.clear();
    tmp.resize(n, T::default());
    for (p, c) in counts.iter().enumerate() {
        if c.contains(&n) {
            continue;
        }
        let shift = T::INDEX_BITS + 8 * p as u32;
        let mut offsets = [0usize; 256];
        let mut sum = 0;
        for (o, &k) in offsets.iter_mut().zip(c) {
            *o = sum;
            sum += k;
        }
        for &x in v.iter() {
            let d = x.digit(shift);
            tmp[offsets[d]] = x;
            offsets[d] += 1;
        }
        std::mem::swap(v, tmp);
    }
}

/// Reusable scratch of one thread's chunk of rows.
#[derive(Default)]
struct Scratch {
    narrow: Vec<u64>,
    narrow_tmp: Vec<u64>,
    wide: Vec<u128>,
    wide_tmp: Vec<u128>,
    order: Vec<usize>,
    order_tmp: Vec<usize>,
}

/// The stable order of `n` elements by `keys` (most significant first):
/// `order[p]` is the element that goes to position `p`. `key(c, i)` is
/// the unsigned key of component `c` of element `i`.
fn stable_order(
    n: usize,
    widths: &[u32],
    key: &dyn Fn(usize, usize) -> u64,
    s: &mut Scratch,
) -> Vec<usize> {
    let total: u32 = widths.iter().sum();
    let mut order = std::mem::take(&mut s.order);
    order.clear();
    let joined = |i: usize| {
        widths.iter().enumerate().fold(0u64, |acc, (c, &w)| {
            let acc = if w >= 64 { 0 } else { acc << w };
            acc | key(c, i)
        })
    };
    if total <= 32 && n <= u32::MAX as usize {
        s.narrow.clear();
        s.narrow.extend((0..n).map(|i| u64::pack(joined(i), i)));
        sort_packed(&mut s.narrow, &mut s.narrow_tmp, total);
        order.extend(s.narrow.iter().map(|x| x.index()));
    } else if total <= 64 {
        s.wide.clear();
        s.wide.extend((0..n).map(|i| u128::pack(joined(i), i)));
        sort_packed(&mut s.wide, &mut s.wide_tmp, total);
        order.extend(s.wide.iter().map(|x| x.index()));
    } else {
        // One stable pass per component, the least significant first.
        order.extend(0..n);
        for c in (0..widths.len()).rev() {
            s.wide.clear();
            s.wide.extend(
                order
                    .iter()
                    .enumerate()
                    .map(|(p, &i)| u128::pack(key(c, i), p)),
            );
            sort_packed(&mut s.wide, &mut s.wide_tmp, widths[c]);
            s.order_tmp.clear();
            s.order_tmp.extend(s.wide.iter().map(|x| order[x.index()]));
            std::mem::swap(&mut order, &mut s.order_tmp);
        }
    }
    order
}

/// Moves one operand's row by `order`: `dst[start + p * stride] =
/// src[start + order[p] * stride]`.
///
/// # Safety
/// `src` and `dst` hold every position of the row; no other thread
/// writes this row of `dst`.
unsafe fn gather_row<T: Copy>(
    src: *const T,
    dst: *mut T,
    start: usize,
    stride: usize,
    order: &[usize],
) {
    for (p, &i) in order.iter().enumerate() {
        // SAFETY: the caller's contract; `i < length` (a permutation).
        unsafe { *dst.add(start + p * stride) = *src.add(start + i * stride) };
    }
}

/// Reads the descriptor of a sort (see [`sort_descriptor`]).
fn parse_sort(d: &[i64]) -> (Rows, Vec<Key>, Vec<Operand>) {
    let rows = Rows {
        count: d[0],
        length: d[1],
        stride: d[2],
    };
    let (nk, no) = (d[3] as usize, d[4] as usize);
    let keys = (0..nk)
        .map(|c| {
            let w = &d[5 + 4 * c..9 + 4 * c];
            Key {
                buf: w[0] as usize,
                bytes: w[1] as u32,
                encoding: Encoding::from_code(w[2]),
                descending: w[3] != 0,
            }
        })
        .collect();
    let base = 5 + 4 * nk;
    let ops = (0..no)
        .map(|k| {
            let w = &d[base + 3 * k..base + 3 * k + 3];
            Operand {
                input: w[0] as usize,
                output: usize::try_from(w[1]).ok(),
                bytes: w[2] as u32,
            }
        })
        .collect();
    (rows, keys, ops)
}

/// One key of a sort descriptor: its buffer, element bytes, encoding and
/// direction.
#[derive(Clone, Copy, Debug)]
pub(crate) struct KeyWords {
    pub(crate) buf: usize,
    pub(crate) bytes: u32,
    pub(crate) encoding: Encoding,
    pub(crate) descending: bool,
}

/// The descriptor words of a sort: `[count, length, stride, keys,
/// operands]`, 4 words per key (buffer, bytes, encoding, descending), 3
/// per operand (input buffer, output buffer or -1, bytes).
pub(crate) fn sort_descriptor(
    rows: Rows,
    keys: &[KeyWords],
    operands: &[(usize, Option<usize>, u32)],
) -> Vec<i64> {
    let mut d = vec![
        rows.count,
        rows.length,
        rows.stride,
        keys.len() as i64,
        operands.len() as i64,
    ];
    for k in keys {
        d.extend([
            k.buf as i64,
            i64::from(k.bytes),
            k.encoding as i64,
            i64::from(k.descending),
        ]);
    }
    for &(i, o, bytes) in operands {
        d.extend([i as i64, o.map_or(-1, |o| o as i64), i64::from(bytes)]);
    }
    d
}

/// The descriptor words of a top-k: `[count, length, k, bytes, encoding,
/// largest, input, values or -1, indices or -1]`.
#[allow(clippy::too_many_arguments, reason = "one word each")]
pub(crate) fn topk_descriptor(
    count: i64,
    length: i64,
    k: i64,
    bytes: u32,
    encoding: Encoding,
    largest: bool,
    input: usize,
    values: Option<usize>,
    indices: Option<usize>,
) -> Vec<i64> {
    vec![
        count,
        length,
        k,
        i64::from(bytes),
        encoding as i64,
        i64::from(largest),
        input as i64,
        values.map_or(-1, |v| v as i64),
        indices.map_or(-1, |v| v as i64),
    ]
}

/// Sorts rows `start..end` of the sort described by `desc` (its words,
/// `len` of them).
///
/// # Safety
/// `table` is the buffer table of a run and `desc` a descriptor built by
/// [`sort_descriptor`] from a sort kernel the IR verifier accepted; no
/// other call writes rows `start..end`.
pub(crate) unsafe extern "C" fn oxla_jit_sort_rows(
    table: *const *mut u8,
    start: i64,
    end: i64,
    desc: *const i64,
    len: i64,
) {
    // SAFETY: `desc` holds `len` words (the stub's stack slot).
    let d = unsafe { std::slice::from_raw_parts(desc, len as usize) };
    let (rows, keys, ops) = parse_sort(d);
    let n = rows.length as usize;
    let numel = (rows.count * rows.length) as usize;
    // SAFETY: each key buffer holds `numel` elements of its width, written
    // by earlier steps.
    let key_bits: Vec<Bits> = keys
        .iter()
        .map(|k| unsafe { bits_of(table, k.buf, k.bytes, numel) })
        .collect();
    let widths: Vec<u32> = keys.iter().map(Key::bits).collect();
    let mut scratch = Scratch::default();
    for r in start..end {
        let first = rows.start(r) as usize;
        let stride = rows.stride as usize;
        let key = |c: usize, i: usize| {
            let k = &keys[c];
            encode(
                key_bits[c].get(first + i * stride),
                k.bytes,
                k.encoding,
                k.descending,
            )
        };
        let order = stable_order(n, &widths, &key, &mut scratch);
        for op in &ops {
            let Some(out) = op.output else { continue };
            // SAFETY: input and output hold `numel` elements of `bytes`
            // (verified); this call alone writes rows `start..end`.
            unsafe {
                let src = *table.add(op.input);
                let dst = *table.add(out);
                match op.bytes {
                    1 => gather_row(src as *const u8, dst, first, stride, &order),
                    2 => gather_row(src as *const u16, dst as *mut u16, first, stride, &order),
                    4 => gather_row(src as *const u32, dst as *mut u32, first, stride, &order),
                    _ => gather_row(src as *const u64, dst as *mut u64, first, stride, &order),
                }
            }
        }
        scratch.order = order;
    }
}

/// The `k` smallest of the `n` distinct values `item(i)`, ascending, into
/// `best`.
fn smallest<T: Packed>(n: usize, k: usize, item: &dyn Fn(usize) -> T, best: &mut Vec<T>) {
    best.clear();
    if k == 0 {
        return;
    }
    if k <= TOPK_BUFFER {
        best.extend((0..k.min(n)).map(item));
        best.sort_unstable();
        for i in k..n {
            let x = item(i);
            if x < best[k - 1] {
                // Insert in order, dropping the current k-th.
                let mut p = k - 1;
                while p > 0 && best[p - 1] > x {
                    best[p] = best[p - 1];
                    p -= 1;
                }
                best[p] = x;
            }
        }
    } else {
        best.extend((0..n).map(item));
        if k < n {
            best.select_nth_unstable_by(k - 1, |a: &T, b: &T| -> Ordering { a.cmp(b) });
            best.truncate(k);
        }
        best.sort_unstable();
    }
}

/// The top `k` of rows `start..end` of the top-k described by `desc`.
///
/// # Safety
/// As [`oxla_jit_sort_rows`], for a descriptor built by
/// [`topk_descriptor`].
pub(crate) unsafe extern "C" fn oxla_jit_topk_rows(
    table: *const *mut u8,
    start: i64,
    end: i64,
    desc: *const i64,
    len: i64,
) {
    // SAFETY: `desc` holds `len` words (the stub's stack slot).
    let d = unsafe { std::slice::from_raw_parts(desc, len as usize) };
    let (n, k) = (d[1] as usize, d[2] as usize);
    let bytes = d[3] as u32;
    let encoding = Encoding::from_code(d[4]);
    let largest = d[5] != 0;
    let (values, indices) = (usize::try_from(d[7]).ok(), usize::try_from(d[8]).ok());
    // SAFETY: the input holds `count * n` elements (verified).
    let x = unsafe { bits_of(table, d[6] as usize, bytes, d[0] as usize * n) };
    let mut narrow: Vec<u64> = Vec::new();
    let mut wide: Vec<u128> = Vec::new();
    let mut order: Vec<usize> = Vec::with_capacity(k);
    for r in start as usize..end as usize {
        let first = r * n;
        let key = |i: usize| encode(x.get(first + i), bytes, encoding, largest);
        order.clear();
        if bytes <= 4 && n <= u32::MAX as usize {
            smallest(n, k, &|i| u64::pack(key(i), i), &mut narrow);
            order.extend(narrow.iter().map(|v| v.index()));
        } else {
            smallest(n, k, &|i| u128::pack(key(i), i), &mut wide);
            order.extend(wide.iter().map(|v| v.index()));
        }
        // SAFETY: the outputs hold `count * k` elements (verified); this
        // call alone writes rows `start..end`.
        unsafe {
            if let Some(v) = values {
                let dst = *table.add(v);
                for (j, &i) in order.iter().enumerate() {
                    let bits = x.get(first + i);
                    let at = r * k + j;
                    match bytes {
                        1 => *dst.add(at) = bits as u8,
                        2 => *(dst as *mut u16).add(at) = bits as u16,
                        4 => *(dst as *mut u32).add(at) = bits as u32,
                        _ => *(dst as *mut u64).add(at) = bits,
                    }
                }
            }
            if let Some(ix) = indices {
                let dst = *table.add(ix) as *mut i32;
                for (j, &i) in order.iter().enumerate() {
                    *dst.add(r * k + j) = i as i32;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny deterministic generator.
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 17
    }

    #[test]
    fn keys_order_as_the_total_order() {
        let floats = [
            f32::from_bits(0xffc0_0000), // -nan
            f32::NEG_INFINITY,
            -1.5,
            -0.0,
            0.0,
            1e-40,
            2.0,
            f32::INFINITY,
            f32::NAN,
        ];
        let keys: Vec<u64> = floats
            .iter()
            .map(|x| encode(u64::from(x.to_bits()), 4, Encoding::Float, false))
            .collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:x?}");
        let desc: Vec<u64> = floats
            .iter()
            .map(|x| encode(u64::from(x.to_bits()), 4, Encoding::Float, true))
            .collect();
        assert!(desc.windows(2).all(|w| w[0] > w[1]));
        let ints = [i8::MIN, -1, 0, 1, i8::MAX];
        let keys: Vec<u64> = ints
            .iter()
            .map(|&x| encode(u64::from(x as u8), 1, Encoding::Signed, false))
            .collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        let f64s = [f64::NEG_INFINITY, -0.0, 0.0, f64::NAN];
        let keys: Vec<u64> = f64s
            .iter()
            .map(|x| encode(x.to_bits(), 8, Encoding::Float, false))
            .collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
    }

    /// `stable_order` against `sort_by_key` (stable) on random keys of
    /// few distinct values, for the narrow, wide and multi-pass paths and
    /// for rows below and above the radix threshold.
    #[test]
    fn stable_order_is_the_stable_sort() {
        let mut seed = 7;
        for &(n, ref widths) in &[
            (0usize, vec![32u32]),
            (1, vec![8]),
            (100, vec![16, 8]),
            (1000, vec![32]),
            (3000, vec![8, 16]),
            (1000, vec![64]),
            (2000, vec![32, 32]),
            (1500, vec![64, 8, 64]),
            (700, vec![64, 64]),
        ] {
            let comps: Vec<Vec<u64>> = widths
                .iter()
                .map(|&w| {
                    (0..n)
                        .map(|_| {
                            let v = lcg(&mut seed) % 5;
                            // Spread the few values over the whole width.
                            v << (w - 3)
                        })
                        .collect()
                })
                .collect();
            let key = |c: usize, i: usize| comps[c][i];
            let mut s = Scratch::default();
            let got = stable_order(n, widths, &key, &mut s);
            let mut want: Vec<usize> = (0..n).collect();
            want.sort_by_key(|&i| comps.iter().map(|c| c[i]).collect::<Vec<u64>>());
            assert_eq!(got, want, "n={n} widths={widths:?}");
        }
    }

    #[test]
    fn smallest_keeps_the_k_least_in_order() {
        let mut seed = 3;
        for &(n, k) in &[
            (0usize, 0usize),
            (5, 5),
            (50257, 8),
            (1000, 64),
            (1000, 65),
            (300, 299),
        ] {
            let vals: Vec<u64> = (0..n).map(|i| u64::pack(lcg(&mut seed) % 97, i)).collect();
            let mut best = Vec::new();
            smallest(n, k, &|i| vals[i], &mut best);
            let mut want = vals.clone();
            want.sort_unstable();
            want.truncate(k);
            assert_eq!(best, want, "n={n} k={k}");
        }
    }

    #[test]
    fn rows_start_where_their_elements_do() {
        let rows = Rows {
            count: 8,
            length: 3,
            stride: 4,
        };
        let starts: Vec<i64> = (0..8).map(|r| rows.start(r)).collect();
        assert_eq!(starts, vec![0, 1, 2, 3, 12, 13, 14, 15]);
    }
}
