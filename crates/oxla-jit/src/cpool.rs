//! A process-wide pool of 128-bit vector constants that kernels read as
//! memory operands.
//!
//! Cranelift hoists a vector constant (`splat` of a scalar constant, or
//! `vconst`) out of the loop that uses it, and then holds it in a register
//! for the whole loop; the inline `exp` alone needs a dozen, so with the
//! loop's own values they overflow the 16 xmm registers and every
//! iteration reloads spilled copies from the stack (and shuffles
//! registers). A plain load from this pool, emitted next to its one use,
//! is not hoisted (it is not marked `can_move`), and the x64 backend folds
//! it into the instruction that uses it (`vfmadd213ps 0x40(%r11), ...`):
//! no register and no extra instruction per constant. All the loads of a
//! kernel share one base address (`iconst`), one general register.
//!
//! The pool is append-only and never freed: entries are 16-byte aligned,
//! written once before any kernel that reads them is compiled, and
//! deduplicated, so its size is bounded by the distinct constants the math
//! library and kernels use (a few hundred). When it is full, callers fall
//! back to a hoisted constant.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Entries (16 bytes each).
const CAPACITY: usize = 4096;

struct Pool {
    base: *mut u128,
    len: usize,
    index: HashMap<u128, usize>,
}

// SAFETY: `base` points to a leaked allocation that is only written under
// the mutex, each entry once, before its address is handed out.
unsafe impl Send for Pool {}

static POOL: OnceLock<Mutex<Pool>> = OnceLock::new();

fn pool() -> &'static Mutex<Pool> {
    POOL.get_or_init(|| {
        let data: &'static mut [u128] = Box::leak(vec![0u128; CAPACITY].into_boxed_slice());
        Mutex::new(Pool {
            base: data.as_mut_ptr(),
            len: 0,
            index: HashMap::new(),
        })
    })
}

/// The base address of the pool (16-byte aligned).
pub(crate) fn base() -> i64 {
    let p = pool().lock().unwrap_or_else(|e| e.into_inner());
    p.base as i64
}

/// The byte offset from [`base`] of an entry holding `bits` (little
/// endian), added if new; `None` when the pool is full.
pub(crate) fn offset_of(bits: u128) -> Option<i32> {
    let mut p = pool().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&i) = p.index.get(&bits) {
        return Some((i * 16) as i32);
    }
    if p.len >= CAPACITY {
        return None;
    }
    let i = p.len;
    // SAFETY: `i < CAPACITY` lies inside the leaked allocation; no kernel
    // reads entry `i` before this returns (its offset is not yet known).
    unsafe { p.base.add(i).write(bits) };
    p.len += 1;
    p.index.insert(bits, i);
    Some((i * 16) as i32)
}

/// The 128 bits of `lanes` copies of the low `lane_bits` bits of `v`.
pub(crate) fn splat_bits(v: u64, lane_bits: u32) -> u128 {
    let mask = if lane_bits >= 64 {
        u64::MAX
    } else {
        (1u64 << lane_bits) - 1
    };
    let v = u128::from(v & mask);
    let mut out = 0u128;
    let mut shift = 0;
    while shift < 128 {
        out |= v << shift;
        shift += lane_bits;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_deduplicated_aligned_and_readable() {
        let bits = splat_bits(1.5f32.to_bits() as u64, 32);
        let a = offset_of(bits).expect("room");
        let b = offset_of(bits).expect("room");
        assert_eq!(a, b);
        assert_eq!(base() % 16, 0);
        // SAFETY: the entry was written by `offset_of`.
        let v = unsafe { ((base() + a as i64) as *const [f32; 4]).read() };
        assert_eq!(v, [1.5; 4]);
        assert_eq!(splat_bits(0xff, 8), u128::MAX);
    }
}
