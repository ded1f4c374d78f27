//! Buffer assignment: the temporaries of a run share one arena, placed by
//! liveness, so a program's scratch memory is close to its largest live
//! set instead of the sum of its temporaries.
//!
//! The run path's table (`program.rs`) has one entry per buffer of every
//! region; the entries that are storage for the run ([`Slot::Scratch`]:
//! temporaries between kernels, a loop's state, its body's result slots
//! and condition flag, a conditional's outputs) used to be one allocation
//! each. Here each gets an offset in one arena instead:
//!
//! 1. **Liveness** ([`liveness`]): the program's items are numbered in the
//!    order the run meets them (a loop's condition and body once, a
//!    conditional's branches one after the other). A kernel touches every
//!    entry of its buffer table (its own table when it has one, else its
//!    region's whole stretch: `kcompile.rs` says which buffers the code
//!    can reach), a copy its two entries, a loop its flag, a conditional its
//!    selector; entries that are the same pointer ([`Slot::Same`]) count as
//!    their storage. A storage entry is live from the first item that
//!    touches it to the last; one live across a loop's boundary (touched
//!    inside and outside it) is live for the whole loop, since the body
//!    runs again after its last use.
//! 2. **Placement** ([`assign`]): largest first, each at the lowest offset
//!    (64-byte aligned) where it overlaps no placed entry whose live range
//!    meets its own (XLA's heap simulator does the same over its
//!    sequence of instructions).
//!
//! Invariant (checked by `verify::check_buffer_layout` on every compile):
//! two storage entries live at the same item never share a byte. What the
//! `SAFETY` arguments of the run path say of distinct buffers (a copy's
//! source and destination, a kernel's inputs and outputs) rests on it:
//! whatever a kernel or copy touches is live at that item.
//! Reuse needs no zeroing: the IR verifier already checks that every
//! temporary is written before it is read.

use crate::program::{Item, Slot};

/// Arena offsets are multiples of this (a cache line).
pub(crate) const ALIGN: usize = 64;

/// The live range of every storage entry of a program's table.
#[derive(Clone, Debug)]
pub(crate) struct Liveness {
    /// Per table entry: `Some((first, last))` item positions for a
    /// storage entry that some item touches, else `None`.
    pub(crate) ranges: Vec<Option<(usize, usize)>>,
}

/// The entry `i` stands for: itself, or the storage it is the same as.
pub(crate) fn root(slots: &[Slot], mut i: usize) -> usize {
    // `Same` points to an earlier entry, so this terminates.
    while let Some(Slot::Same(j)) = slots.get(i) {
        if *j >= i {
            break;
        }
        i = *j;
    }
    i
}

struct Walk<'a> {
    slots: &'a [Slot],
    pos: usize,
    ranges: Vec<Option<(usize, usize)>>,
    loops: Vec<(usize, usize)>,
}

impl Walk<'_> {
    fn touch(&mut self, entry: usize) {
        let r = root(self.slots, entry);
        if !matches!(self.slots.get(r), Some(Slot::Scratch(_))) {
            return;
        }
        let p = self.pos;
        let range = &mut self.ranges[r];
        *range = Some(match *range {
            Some((a, b)) => (a.min(p), b.max(p)),
            None => (p, p),
        });
    }

    fn items(&mut self, items: &[Item]) {
        for item in items {
            match item {
                Item::Kernel { base, len, .. } => {
                    for e in *base..base + len {
                        self.touch(e);
                    }
                }
                Item::Copy { src, dst, .. } => {
                    self.touch(*src);
                    self.touch(*dst);
                }
                Item::While { cond, pred, body } => {
                    let start = self.pos;
                    self.items(cond);
                    self.pos += 1;
                    self.touch(*pred);
                    self.items(body);
                    self.loops.push((start, self.pos));
                }
                Item::Cond {
                    selector, branches, ..
                } => {
                    self.touch(*selector);
                    for b in branches {
                        self.pos += 1;
                        self.items(b);
                    }
                }
            }
            self.pos += 1;
        }
    }
}

/// The live range of every storage entry of `slots` over `items` (see the
/// module docs).
pub(crate) fn liveness(slots: &[Slot], items: &[Item]) -> Liveness {
    let mut w = Walk {
        slots,
        pos: 0,
        ranges: vec![None; slots.len()],
        loops: Vec::new(),
    };
    w.items(items);
    // Innermost loops first: a range that leaves a loop covers all of it.
    let mut loops = w.loops;
    loops.sort_by_key(|&(a, b)| b - a);
    for (s, e) in loops {
        for (a, b) in w.ranges.iter_mut().flatten() {
            let meets = *a <= e && s <= *b;
            let inside = s <= *a && *b <= e;
            if meets && !inside {
                *a = (*a).min(s);
                *b = (*b).max(e);
            }
        }
    }
    Liveness { ranges: w.ranges }
}

/// The bytes an entry takes in the arena.
fn footprint(bytes: usize) -> usize {
    bytes.max(1).div_ceil(ALIGN) * ALIGN
}

/// Where the storage entries live in the arena, and what that saved.
#[derive(Clone, Debug, Default)]
pub(crate) struct Layout {
    /// Per table entry: its arena offset (storage entries only).
    pub(crate) offsets: Vec<Option<usize>>,
    /// The arena's size.
    pub(crate) arena_bytes: usize,
    /// The storage entries' bytes together (one allocation each).
    pub(crate) unshared_bytes: usize,
    /// The most bytes of storage live at one item: no placement can do
    /// with less.
    pub(crate) largest_live_bytes: usize,
}

/// Places every storage entry of `slots` (see the module docs).
pub(crate) fn assign(slots: &[Slot], live: &Liveness) -> Layout {
    let mut entries: Vec<(usize, usize, (usize, usize))> = slots
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            // An entry no item touches still gets its own place (at the
            // end of time, overlapping nothing live).
            Slot::Scratch(bytes) => Some((
                i,
                footprint(*bytes),
                live.ranges[i].unwrap_or((usize::MAX, usize::MAX)),
            )),
            Slot::Arg(_) | Slot::Const(_) | Slot::Output(_) | Slot::Same(_) => None,
        })
        .collect();
    let unshared_bytes = entries.iter().map(|e| e.1).sum();
    // The largest live set: a sweep over range starts and ends.
    let mut events: Vec<(usize, bool, usize)> = Vec::new();
    for &(_, size, (a, b)) in &entries {
        events.push((a, false, size));
        events.push((b, true, size));
    }
    // At one position starts come before ends (ranges are inclusive).
    events.sort_by_key(|&(p, end, _)| (p, end));
    let (mut now, mut largest_live_bytes) = (0usize, 0usize);
    for (_, end, size) in events {
        if end {
            now -= size;
        } else {
            now += size;
            largest_live_bytes = largest_live_bytes.max(now);
        }
    }
    entries.sort_by_key(|&(i, size, (a, _))| (std::cmp::Reverse(size), a, i));
    let mut placed: Vec<(usize, usize, (usize, usize))> = Vec::new();
    let mut offsets = vec![None; slots.len()];
    let mut arena_bytes = 0;
    for (i, size, range) in entries {
        let mut busy: Vec<(usize, usize)> = placed
            .iter()
            .filter(|(_, _, r)| r.0 <= range.1 && range.0 <= r.1)
            .map(|&(off, sz, _)| (off, off + sz))
            .collect();
        busy.sort_unstable();
        let mut off = 0;
        for (lo, hi) in busy {
            if off + size <= lo {
                break;
            }
            off = off.max(hi);
        }
        placed.push((off, size, range));
        offsets[i] = Some(off);
        arena_bytes = arena_bytes.max(off + size);
    }
    Layout {
        offsets,
        arena_bytes,
        unshared_bytes,
        largest_live_bytes,
    }
}

/// The memory a run of an executable takes beyond its arguments and
/// constants (see [`crate::Executable::memory`]).
///
/// ```
/// use oxla_ir::{Builder, ElementType::F32, Shape};
/// let mut b = Builder::new("chain");
/// let x = b.parameter(0, Shape::new(F32, &[256, 256]), "x")?;
/// let e = b.exp(x)?;
/// let t = b.transpose(e, &[1, 0])?; // exp(x) is read transposed: a buffer of its own
/// let y = b.add(t, x, &[])?;
/// let exe = oxla_jit::compile(&b.build(y)?)?;
/// let m = exe.memory();
/// assert_eq!(m.outputs, 256 * 256 * 4);
/// assert!(m.largest_live_set <= m.temporaries && m.temporaries <= m.temporaries_unshared);
/// assert_eq!(exe.peak_bytes(), m.outputs + m.temporaries);
/// # Ok::<(), oxla_ir::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemoryUse {
    /// The bytes of the output buffers (allocated per run by `run`,
    /// none by `run_into`).
    pub outputs: usize,
    /// The bytes of the arena every intermediate lives in (loop state,
    /// branch outputs and temporaries between kernels, placed by
    /// liveness).
    pub temporaries: usize,
    /// What the intermediates would take with one allocation each.
    pub temporaries_unshared: usize,
    /// The most intermediate bytes live at one point of the run: no
    /// placement can do with less than this.
    pub largest_live_set: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copy(src: usize, dst: usize) -> Item {
        Item::Copy { src, dst, bytes: 1 }
    }

    #[test]
    fn dead_storage_is_reused_and_the_largest_live_set_is_met() {
        // 1 -> 2 -> 3: entries 1 and 3 are never live together.
        let slots = vec![
            Slot::Arg(0),
            Slot::Scratch(100),
            Slot::Scratch(100),
            Slot::Scratch(100),
        ];
        let items = vec![copy(0, 1), copy(1, 2), copy(2, 3)];
        let live = liveness(&slots, &items);
        assert_eq!(live.ranges[1], Some((0, 1)));
        assert_eq!(live.ranges[3], Some((2, 2)));
        let layout = assign(&slots, &live);
        assert_eq!(layout.unshared_bytes, 3 * 128);
        assert_eq!(layout.largest_live_bytes, 2 * 128);
        assert_eq!(layout.arena_bytes, 2 * 128);
        assert_eq!(layout.offsets[1], layout.offsets[3]);
        assert!(crate::verify::check_buffer_layout(&slots, &live, &layout).is_empty());
        // The verifier catches live entries placed together (2 is live
        // with 1 and with 3, which share a place).
        let mut bad = layout.clone();
        bad.offsets[2] = bad.offsets[1];
        let shared = |a, b| crate::verify::Problem::SharedStorage { a, b: Some(b) };
        assert_eq!(
            crate::verify::check_buffer_layout(&slots, &live, &bad),
            vec![shared(1, 2), shared(2, 3)]
        );
        bad.offsets[2] = Some(bad.arena_bytes);
        assert_eq!(
            crate::verify::check_buffer_layout(&slots, &live, &bad),
            vec![crate::verify::Problem::SharedStorage { a: 2, b: None }]
        );
    }

    #[test]
    fn storage_used_across_a_loop_lives_through_all_of_it() {
        // Entry 1 is written before the loop and read at the start of its
        // body; entry 2 only at the end of the body. The body runs again
        // after 2 is written, so 2 must not take 1's place.
        let slots = vec![
            Slot::Arg(0),
            Slot::Scratch(64),
            Slot::Scratch(64),
            Slot::Scratch(1),
            Slot::Same(1),
        ];
        let items = vec![
            copy(0, 1),
            Item::While {
                cond: vec![],
                pred: 3,
                body: vec![copy(4, 0), copy(0, 2)],
            },
        ];
        let live = liveness(&slots, &items);
        let (a1, b1) = live.ranges[1].expect("live");
        let (a2, b2) = live.ranges[2].expect("live");
        assert!(a1 <= a2 && b2 <= b1, "{live:?}");
        let layout = assign(&slots, &live);
        assert_ne!(layout.offsets[1], layout.offsets[2]);
        assert!(crate::verify::check_buffer_layout(&slots, &live, &layout).is_empty());
    }
}
