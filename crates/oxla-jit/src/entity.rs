//! Typed handles and the tables they index.
//!
//! The JIT's IR lives in arenas: the buffers of a plan, the nodes of an
//! expression graph, the folds of a graph, the loop variables of a kernel.
//! Each arena is addressed by its own `u32` newtype ([`BufferId`],
//! [`NodeId`], [`FoldId`], [`LoopVar`], [`RegionId`]; parameters by [`ParamId`]), so a
//! node id cannot index the buffer table and a loop variable cannot be
//! passed where a buffer is expected. Analyses keep their results in side
//! tables ([`IdVec`]) indexed by the same handle. This is Cranelift's
//! `entity_impl!` / `PrimaryMap` idea, written small for this crate.
//!
//! Invariant: a handle is only ever created by the table it indexes
//! ([`IdVec::push`]) or from an index below that table's length, so
//! indexing with it stays in bounds.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

/// A `u32` handle into one arena.
pub(crate) trait EntityId: Copy {
    /// The handle of index `index`.
    fn new(index: usize) -> Self;
    /// The index this handle stands for.
    fn index(self) -> usize;
}

/// Defines a `u32` handle type `$name` whose `Display` is `$prefix`
/// followed by the index (`buf3`, `i0`).
macro_rules! entity_id {
    ($(#[$attr:meta])* $name:ident, $prefix:literal) => {
        $(#[$attr])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub(crate) struct $name(u32);

        impl $name {
            /// The handle of index `index`.
            pub(crate) const fn new(index: usize) -> Self {
                // Arenas are bounded far below 2^32 entries (a kernel has at
                // most `graph::MAX_NODES` nodes, a plan one buffer per
                // instruction).
                $name(index as u32)
            }

            /// The index this handle stands for.
            pub(crate) const fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl EntityId for $name {
            fn new(index: usize) -> Self {
                $name::new(index)
            }
            fn index(self) -> usize {
                $name::index(self)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

entity_id!(
    /// A buffer of an executable: an argument, a constant, an intermediate
    /// or a result leaf (`fusion::Plan::buffers`).
    BufferId,
    "buf"
);
entity_id!(
    /// A parameter of the entry computation, by number.
    ParamId,
    "param"
);
entity_id!(
    /// A node of an expression graph, in the kernel's own scope
    /// (`graph::Graph::nodes`) or in a fold's body (`graph::Fold::nodes`).
    NodeId,
    "n"
);
entity_id!(
    /// A fold of an expression graph (`graph::Graph::folds`).
    FoldId,
    "fold"
);
entity_id!(
    /// A region of a program: the entry body, or one call site's while
    /// condition, while body or conditional branch (`fusion::Region`).
    RegionId,
    "region"
);
entity_id!(
    /// A loop variable of a kernel, numbered by the kernel: the kernel's
    /// own loops first, then the folds' (`graph::Graph::var_count`).
    LoopVar,
    "i"
);

/// A `Vec<V>` indexed by the handle `K`: an arena when it hands out the
/// handles ([`IdVec::push`]), a side table when it is filled for another
/// arena's handles ([`IdVec::filled`]).
#[derive(Clone, PartialEq, Eq, Hash)]
pub(crate) struct IdVec<K, V> {
    items: Vec<V>,
    key: PhantomData<fn(K) -> K>,
}

impl<K: EntityId, V> IdVec<K, V> {
    /// An empty table.
    pub(crate) fn new() -> Self {
        IdVec {
            items: Vec::new(),
            key: PhantomData,
        }
    }

    /// An empty table with room for `n` entries.
    pub(crate) fn with_capacity(n: usize) -> Self {
        IdVec {
            items: Vec::with_capacity(n),
            key: PhantomData,
        }
    }

    /// Appends `value` and returns its handle.
    pub(crate) fn push(&mut self, value: V) -> K {
        self.items.push(value);
        K::new(self.items.len() - 1)
    }

    /// The number of entries.
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// Drops the entries from `len` on (handles past it become stale).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.items.truncate(len);
    }

    /// The entry of `k`, if it exists.
    pub(crate) fn get(&self, k: K) -> Option<&V> {
        self.items.get(k.index())
    }

    /// The entry of `k`, if it exists, mutably.
    pub(crate) fn get_mut(&mut self, k: K) -> Option<&mut V> {
        self.items.get_mut(k.index())
    }

    /// Every handle, in order.
    pub(crate) fn keys(&self) -> impl DoubleEndedIterator<Item = K> + use<K, V> {
        (0..self.items.len()).map(K::new)
    }

    /// Every handle with its entry, by value, in order.
    pub(crate) fn into_iter_ids(self) -> impl Iterator<Item = (K, V)> {
        self.items
            .into_iter()
            .enumerate()
            .map(|(i, v)| (K::new(i), v))
    }

    /// Every entry, in order.
    pub(crate) fn values(&self) -> std::slice::Iter<'_, V> {
        self.items.iter()
    }

    /// Every handle with its entry, in order.
    pub(crate) fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> {
        self.items.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }

    /// Every entry, in order, mutably.
    pub(crate) fn values_mut(&mut self) -> std::slice::IterMut<'_, V> {
        self.items.iter_mut()
    }
}

impl<K: EntityId, V: Clone> IdVec<K, V> {
    /// A side table of `n` entries, each `value`.
    pub(crate) fn filled(n: usize, value: V) -> Self {
        IdVec {
            items: vec![value; n],
            key: PhantomData,
        }
    }

    /// Grows the table to `n` entries with `value` (never shrinks it).
    pub(crate) fn grow_to(&mut self, n: usize, value: V) {
        if self.items.len() < n {
            self.items.resize(n, value);
        }
    }

    /// Sets every entry to `value`.
    pub(crate) fn fill(&mut self, value: V) {
        self.items.fill(value);
    }
}

impl<K: EntityId, V> Default for IdVec<K, V> {
    fn default() -> Self {
        IdVec::new()
    }
}

impl<K: EntityId, V> Index<K> for IdVec<K, V> {
    type Output = V;
    fn index(&self, k: K) -> &V {
        &self.items[k.index()]
    }
}

impl<K: EntityId, V> IndexMut<K> for IdVec<K, V> {
    fn index_mut(&mut self, k: K) -> &mut V {
        &mut self.items[k.index()]
    }
}

impl<K: EntityId, V> FromIterator<V> for IdVec<K, V> {
    fn from_iter<I: IntoIterator<Item = V>>(iter: I) -> Self {
        IdVec {
            items: iter.into_iter().collect(),
            key: PhantomData,
        }
    }
}

impl<K: EntityId + fmt::Display, V: fmt::Debug> fmt::Debug for IdVec<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.iter().map(|(k, v)| (k.to_string(), v)))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_index_their_own_table_and_print_with_their_prefix() {
        let mut bufs: IdVec<BufferId, &str> = IdVec::new();
        let a = bufs.push("x");
        let b = bufs.push("y");
        assert_eq!((a.index(), b.index()), (0, 1));
        assert_eq!(bufs[b], "y");
        assert_eq!(b.to_string(), "buf1");
        assert_eq!(LoopVar::new(3).to_string(), "i3");
        let mut seen: IdVec<BufferId, bool> = IdVec::filled(bufs.len(), false);
        seen[a] = true;
        assert_eq!(
            seen.values().copied().collect::<Vec<_>>(),
            vec![true, false]
        );
        assert_eq!(bufs.keys().collect::<Vec<_>>(), vec![a, b]);
        assert_eq!(bufs.get(BufferId::new(2)), None);
    }
}
