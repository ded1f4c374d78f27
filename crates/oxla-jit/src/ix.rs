//! Index expressions: how a kernel's loop variables map to an element of a
//! buffer.
//!
//! An [`Ix`] is an integer-linear combination of *atoms* plus a constant.
//! An atom is a loop variable, or the floor division / floor modulo of
//! another `Ix` by a positive constant (what a general `reshape` or an
//! interior `pad` needs). Every constructor simplifies with the loop
//! extents at hand, so the common index maps (broadcast, transpose, slice,
//! reverse, reshapes that only insert or remove size-1 dimensions or split
//! a dimension, and merges read straight from a buffer) stay purely
//! affine: `x / c * c + x % c` folds back to `x`, and a division or
//! modulo whose operand's range already fits disappears.
//!
//! An atom may also be a *data index*: the value of a node of the
//! kernel's graph ([`Atom::Data`]), an index a `gather` or a dynamic slice
//! reads from data. It carries the range the node is clamped into (the
//! node is a `graph::Node::Index` that clamps it there, which the verifier
//! checks), so range analysis, and with it every bounds check, treats it
//! like a loop variable of that range; it never varies along a loop
//! variable by itself (its node's level says where it does).
//!
//! All arithmetic wraps: an expression only ever describes an index that a
//! verified shape bounds, except under a `pad`/`concatenate` guard that is
//! false, whose value is never used and whose load is clamped anyway.

use std::collections::BTreeMap;
use std::fmt;

use crate::entity::{IdVec, LoopVar, NodeId};

/// The extent of each loop variable: variable `v` runs over `0..extents[v]`.
pub(crate) type Extents = IdVec<LoopVar, i64>;

/// A non-constant part of an [`Ix`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Atom {
    /// Loop variable `v`, in `0..extent[v]`.
    Var(LoopVar),
    /// `floor(x / d)`, `d > 1`.
    Div(Box<Ix>, i64),
    /// `x - d * floor(x / d)`, `d > 1`.
    Mod(Box<Ix>, i64),
    /// The value of `node` (of the scope the expression is evaluated in),
    /// an index read from data, in `lo..=hi` (`lo < hi`).
    Data { node: NodeId, lo: i64, hi: i64 },
}

/// `Σ coefficient · atom + constant`, terms sorted by atom, no zero
/// coefficient.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub(crate) struct Ix {
    terms: Vec<(Atom, i64)>,
    constant: i64,
}

impl Ix {
    /// The constant `c`.
    pub(crate) fn constant(c: i64) -> Ix {
        Ix {
            terms: Vec::new(),
            constant: c,
        }
    }

    /// Loop variable `v`.
    pub(crate) fn var(v: LoopVar) -> Ix {
        Ix {
            terms: vec![(Atom::Var(v), 1)],
            constant: 0,
        }
    }

    /// The data index `node`, in `lo..=hi` (the constant `lo` when the
    /// range holds one value).
    pub(crate) fn data(node: NodeId, lo: i64, hi: i64) -> Ix {
        if lo >= hi {
            return Ix::constant(lo);
        }
        Ix {
            terms: vec![(Atom::Data { node, lo, hi }, 1)],
            constant: 0,
        }
    }

    /// The terms, sorted by atom.
    pub(crate) fn terms(&self) -> &[(Atom, i64)] {
        &self.terms
    }

    /// The constant part.
    pub(crate) fn constant_part(&self) -> i64 {
        self.constant
    }

    /// `Some(c)` when the expression is the constant `c`.
    pub(crate) fn as_constant(&self) -> Option<i64> {
        self.terms.is_empty().then_some(self.constant)
    }

    fn from_map(map: BTreeMap<Atom, i64>, constant: i64) -> Ix {
        let mut ix = Ix {
            terms: map.into_iter().filter(|(_, c)| *c != 0).collect(),
            constant,
        };
        ix.fold_div_mod();
        ix
    }

    /// `self + other`.
    pub(crate) fn add(&self, other: &Ix) -> Ix {
        let mut map: BTreeMap<Atom, i64> = self.terms.iter().cloned().collect();
        for (a, c) in &other.terms {
            let e = map.entry(a.clone()).or_insert(0);
            *e = e.wrapping_add(*c);
        }
        Ix::from_map(map, self.constant.wrapping_add(other.constant))
    }

    /// `self + c`.
    pub(crate) fn add_constant(&self, c: i64) -> Ix {
        let mut ix = self.clone();
        ix.constant = ix.constant.wrapping_add(c);
        ix
    }

    /// `k · self`.
    pub(crate) fn scale(&self, k: i64) -> Ix {
        if k == 0 {
            return Ix::constant(0);
        }
        Ix {
            terms: self
                .terms
                .iter()
                .map(|(a, c)| (a.clone(), c.wrapping_mul(k)))
                .collect(),
            constant: self.constant.wrapping_mul(k),
        }
    }

    /// Replaces `k·(x / d)·d + k·(x % d)` by `k·x`, repeatedly: what a
    /// merge reshape read from a row-major buffer gives.
    fn fold_div_mod(&mut self) {
        loop {
            let mut found = None;
            'search: for (i, (a, c)) in self.terms.iter().enumerate() {
                if let Atom::Mod(x, d) = a {
                    for (j, (b, e)) in self.terms.iter().enumerate() {
                        if let Atom::Div(y, d2) = b
                            && d == d2
                            && x == y
                            && *e == c.wrapping_mul(*d)
                        {
                            found = Some((i, j, (**x).clone(), *c));
                            break 'search;
                        }
                    }
                }
            }
            let Some((i, j, x, k)) = found else { return };
            let mut map: BTreeMap<Atom, i64> = self
                .terms
                .iter()
                .enumerate()
                .filter(|(n, _)| *n != i && *n != j)
                .map(|(_, t)| t.clone())
                .collect();
            let x = x.scale(k);
            for (a, c) in x.terms {
                let e = map.entry(a).or_insert(0);
                *e = e.wrapping_add(c);
            }
            self.constant = self.constant.wrapping_add(x.constant);
            self.terms = map.into_iter().filter(|(_, c)| *c != 0).collect();
        }
    }

    /// The smallest and largest value over the loop ranges
    /// (`extents[v]` values for variable `v`).
    pub(crate) fn range(&self, extents: &Extents) -> (i128, i128) {
        let (mut lo, mut hi) = (self.constant as i128, self.constant as i128);
        for (a, c) in &self.terms {
            let (alo, ahi) = a.range(extents);
            let c = *c as i128;
            let (p, q) = (alo * c, ahi * c);
            lo += p.min(q);
            hi += p.max(q);
        }
        (lo, hi)
    }

    /// Splits `self` into `(P, q, Q)` with `self = P + q·d + Q`, every
    /// coefficient of `P` divisible by `d`, and `Q` the rest with a
    /// constant in `0..d`.
    fn split(&self, d: i64) -> (Ix, i64, Ix) {
        let mut p = Ix::default();
        let mut q = Ix::default();
        for (a, c) in &self.terms {
            if c.wrapping_rem(d) == 0 {
                p.terms.push((a.clone(), *c));
            } else {
                q.terms.push((a.clone(), *c));
            }
        }
        q.constant = self.constant.rem_euclid(d);
        (p, self.constant.div_euclid(d), q)
    }

    /// `floor(self / d)` for `d >= 1`.
    pub(crate) fn div(&self, d: i64, extents: &Extents) -> Ix {
        if d <= 1 {
            return self.clone();
        }
        let (lo, hi) = self.range(extents);
        if lo >= 0 && hi < d as i128 {
            return Ix::constant(0);
        }
        let (p, q, rest) = self.split(d);
        let (rlo, rhi) = rest.range(extents);
        if rlo >= 0 && rhi < d as i128 {
            let mut out = Ix {
                terms: p.terms.into_iter().map(|(a, c)| (a, c / d)).collect(),
                constant: q,
            };
            out.fold_div_mod();
            return out;
        }
        Ix {
            terms: vec![(Atom::Div(Box::new(self.clone()), d), 1)],
            constant: 0,
        }
    }

    /// `self mod d` (floor modulo, in `0..d`) for `d >= 1`.
    pub(crate) fn modulo(&self, d: i64, extents: &Extents) -> Ix {
        if d <= 1 {
            return Ix::constant(0);
        }
        let (lo, hi) = self.range(extents);
        if lo >= 0 && hi < d as i128 {
            return self.clone();
        }
        let (_, _, rest) = self.split(d);
        let (rlo, rhi) = rest.range(extents);
        if rlo >= 0 && rhi < d as i128 {
            return rest;
        }
        Ix {
            terms: vec![(Atom::Mod(Box::new(self.clone()), d), 1)],
            constant: 0,
        }
    }

    /// The coefficient of `v` when `v` appears only as a top-level term
    /// (`Some(0)` when it does not appear at all); `None` when `v` appears
    /// inside a division or modulo.
    pub(crate) fn affine_coefficient(&self, v: LoopVar) -> Option<i64> {
        let mut coef = 0;
        for (a, c) in &self.terms {
            match a {
                Atom::Var(w) if *w == v => coef = *c,
                Atom::Var(_) | Atom::Data { .. } => {}
                Atom::Div(x, _) | Atom::Mod(x, _) => {
                    if x.uses(v) {
                        return None;
                    }
                }
            }
        }
        Some(coef)
    }

    /// `true` if `v` appears anywhere.
    pub(crate) fn uses(&self, v: LoopVar) -> bool {
        self.terms.iter().any(|(a, _)| match a {
            Atom::Var(w) => *w == v,
            Atom::Data { .. } => false,
            Atom::Div(x, _) | Atom::Mod(x, _) => x.uses(v),
        })
    }

    /// The nodes of every data index it reads (with repeats), in order.
    pub(crate) fn data_nodes(&self, out: &mut Vec<NodeId>) {
        for (a, _) in &self.terms {
            match a {
                Atom::Var(_) => {}
                Atom::Data { node, .. } => out.push(*node),
                Atom::Div(x, _) | Atom::Mod(x, _) => x.data_nodes(out),
            }
        }
    }

    /// Every data index it reads: `(node, lo, hi)`, with repeats.
    pub(crate) fn data_atoms(&self, out: &mut Vec<(NodeId, i64, i64)>) {
        for (a, _) in &self.terms {
            match a {
                Atom::Var(_) => {}
                Atom::Data { node, lo, hi } => out.push((*node, *lo, *hi)),
                Atom::Div(x, _) | Atom::Mod(x, _) => x.data_atoms(out),
            }
        }
    }

    /// `true` if it reads a data index.
    pub(crate) fn has_data(&self) -> bool {
        self.terms.iter().any(|(a, _)| match a {
            Atom::Var(_) => false,
            Atom::Data { .. } => true,
            Atom::Div(x, _) | Atom::Mod(x, _) => x.has_data(),
        })
    }

    /// Every variable used, into `out`.
    pub(crate) fn collect_vars(&self, out: &mut Vec<LoopVar>) {
        for (a, _) in &self.terms {
            match a {
                Atom::Var(w) => {
                    if !out.contains(w) {
                        out.push(*w)
                    }
                }
                Atom::Data { .. } => {}
                Atom::Div(x, _) | Atom::Mod(x, _) => x.collect_vars(out),
            }
        }
    }

    /// `self` without its top-level `v` term.
    pub(crate) fn without_var(&self, v: LoopVar) -> Ix {
        Ix {
            terms: self
                .terms
                .iter()
                .filter(|(a, _)| *a != Atom::Var(v))
                .cloned()
                .collect(),
            constant: self.constant,
        }
    }
}

impl Atom {
    fn range(&self, extents: &Extents) -> (i128, i128) {
        match self {
            Atom::Var(v) => (
                0,
                (extents.get(*v).copied().unwrap_or(1) - 1).max(0) as i128,
            ),
            Atom::Data { lo, hi, .. } => (*lo as i128, *hi as i128),
            Atom::Div(x, d) => {
                let (lo, hi) = x.range(extents);
                let d = *d as i128;
                (lo.div_euclid(d), hi.div_euclid(d))
            }
            Atom::Mod(x, d) => {
                let (lo, hi) = x.range(extents);
                let d = *d as i128;
                if lo >= 0 && hi < d {
                    (lo, hi)
                } else {
                    (0, d - 1)
                }
            }
        }
    }
}

impl fmt::Display for Ix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (a, c) in &self.terms {
            let (sign, mag) = if *c < 0 {
                ("-", -(*c as i128))
            } else {
                ("+", *c as i128)
            };
            if first {
                if sign == "-" {
                    f.write_str("-")?;
                }
            } else {
                write!(f, " {sign} ")?;
            }
            first = false;
            if mag != 1 {
                write!(f, "{mag}*")?;
            }
            write!(f, "{a}")?;
        }
        if first {
            return write!(f, "{}", self.constant);
        }
        if self.constant > 0 {
            write!(f, " + {}", self.constant)?;
        } else if self.constant < 0 {
            write!(f, " - {}", -(self.constant as i128))?;
        }
        Ok(())
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Atom::Var(v) => write!(f, "{v}"),
            Atom::Data { node, .. } => write!(f, "{node}"),
            Atom::Div(x, d) => write!(f, "({x})/{d}"),
            Atom::Mod(x, d) => write!(f, "({x})%{d}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const I0: LoopVar = LoopVar::new(0);
    const I1: LoopVar = LoopVar::new(1);

    fn extents(e: &[i64]) -> Extents {
        e.iter().copied().collect()
    }

    #[test]
    fn merge_reshape_read_from_a_buffer_is_affine() {
        // [a, b] -> [a*b]: operand index (i/b, i%b), address (i/b)*b + i%b.
        let ext = extents(&[12]);
        let i = Ix::var(I0);
        let addr = i.div(4, &ext).scale(4).add(&i.modulo(4, &ext));
        assert_eq!(addr, Ix::var(I0));
    }

    #[test]
    fn unit_dimension_removal_is_affine() {
        // [a, b] -> [a, 1, b]: L = 5*i0 + i1; (L/5)%a = i0, L%5 = i1.
        let ext = extents(&[3, 5]);
        let l = Ix::var(I0).scale(5).add(&Ix::var(I1));
        assert_eq!(l.div(5, &ext).modulo(3, &ext), Ix::var(I0));
        assert_eq!(l.modulo(5, &ext), Ix::var(I1));
        assert_eq!(l.to_string(), "5*i0 + i1");
    }

    #[test]
    fn genuine_division_stays_an_atom() {
        let ext = extents(&[12]);
        let q = Ix::var(I0).div(4, &ext);
        assert_eq!(q.affine_coefficient(I0), None);
        assert_eq!(q.range(&ext), (0, 2));
        assert_eq!(q.to_string(), "(i0)/4");
    }
}
