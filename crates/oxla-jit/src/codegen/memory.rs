//! Index expressions to addresses, and memory accesses.
//!
//! An index expression ([`Ix`]) becomes an `i64` value; an element offset
//! becomes an address `base + (offset << log2 size)`. The innermost loop
//! reads and writes through *row pointers* (the address at index 0 of the
//! innermost loop), with the loop index added per element and immediate
//! offsets per unrolled copy. This file also holds the vector rules for
//! the nodes that read memory or indices (loads, `iota`): whether they have
//! a vector form ([`load_vectorises`], [`iota_vectorises`]) beside that
//! form.
//!
//! Every access here is inside its buffer when the kernel description
//! passed `verify::check_kernels`: unclamped loads are in range for every
//! value of the loop variables, clamped ones are clamped into their buffer
//! (per element, or per row for a vector loop: every lane stays inside),
//! stores write their output at offsets the verifier has bounded.

use cranelift_codegen::ir::{ConstantData, InstBuilder, Value, condcodes::IntCC, types};
use oxla_ir::{ElementType, Result};

use crate::entity::{BufferId, LoopVar, NodeId};
use crate::graph::{Cond, Node};
use crate::ix::{Atom, Ix};

use super::loops::KernelEmitter;
use super::{Mode, bug, clif_type, flags, int_type, size_of, vector_type};

/// Whether a load of `numel` elements of `ty` at `offset` has a vector
/// form in a loop over `inner` (`inner_extent` long) with lanes of `w`
/// bytes: read at stride 1 (and the buffer holds a whole row), or
/// backwards (a `reverse` of the innermost axis, not under a guard: a
/// vector load and a lane reversal, [`KernelEmitter::load_reversed`]).
pub(super) fn load_vectorises(
    offset: &Ix,
    ty: ElementType,
    numel: i64,
    clamp: bool,
    inner: LoopVar,
    inner_extent: i64,
    w: u32,
) -> bool {
    match offset.affine_coefficient(inner) {
        Some(1) => numel >= inner_extent && (ty.is_pred() || size_of(ty) == w),
        Some(-1) => !clamp && !ty.is_pred() && size_of(ty) == w,
        _ => false,
    }
}

/// Whether `iota` of `ty` at `index` has a vector form in a loop over
/// `inner`: the index steps by 1 along it, and the lane values convert
/// exactly (f32 lanes below `2^31`).
pub(super) fn iota_vectorises(
    ty: ElementType,
    index: &Ix,
    inner: LoopVar,
    inner_extent: i64,
) -> bool {
    index.affine_coefficient(inner) == Some(1)
        && (ty.is_integer()
            || (ty == ElementType::F32 && inner_extent < (1 << 31))
            || ty == ElementType::F64)
}

impl KernelEmitter<'_, '_> {
    /// The `i64` constant `v`.
    pub(super) fn int64(&mut self, v: i64) -> Value {
        self.b.ins().iconst(types::I64, v)
    }

    /// The base pointer of `buf`, read from the buffer table.
    pub(super) fn buffer_base(&mut self, buf: BufferId) -> Value {
        if let Some(v) = self.buffer_bases[buf] {
            return v;
        }
        // Loaded in the entry block (see `emit_kernel`), so always set there.
        let p = self
            .b
            .ins()
            .load(types::I64, flags(), self.table, (buf.index() * 8) as i32);
        self.buffer_bases[buf] = Some(p);
        p
    }

    /// The value of index expression `e` at the current loop indices.
    pub(super) fn index_value(&mut self, e: &Ix) -> Value {
        let mut acc: Option<Value> = None;
        for (atom, c) in e.terms() {
            let a = match atom {
                Atom::Var(v) => self.loop_index[*v].unwrap_or_else(|| {
                    // Unreachable for a well-formed nest: every variable is
                    // bound before the nodes of its level are emitted.
                    self.b.ins().iconst(types::I64, 0)
                }),
                Atom::Div(x, d) => {
                    let xv = self.index_value(x);
                    let dv = self.int64(*d);
                    self.b.ins().sdiv(xv, dv)
                }
                Atom::Mod(x, d) => {
                    let xv = self.index_value(x);
                    let dv = self.int64(*d);
                    self.b.ins().srem(xv, dv)
                }
                Atom::Data { node, .. } => self.data_value(*node),
            };
            let t = if *c == 1 {
                a
            } else {
                let cv = self.int64(*c);
                self.b.ins().imul(a, cv)
            };
            acc = Some(match acc {
                None => t,
                Some(s) => self.b.ins().iadd(s, t),
            });
        }
        let k = e.constant_part();
        match acc {
            None => self.int64(k),
            Some(s) if k == 0 => s,
            Some(s) => {
                let kv = self.int64(k);
                self.b.ins().iadd(s, kv)
            }
        }
    }

    /// The value of data index `node`: bound by the node being emitted
    /// ([`KernelEmitter::bind_data`]), else the node's hoisted value in the
    /// kernel's own scope (a row pointer, a write offset).
    fn data_value(&mut self, node: NodeId) -> Value {
        if let Some(&(_, v)) = self.data_values.iter().find(|(n, _)| *n == node) {
            return v;
        }
        let hoisted = match self.fold_depth {
            0 => self.scalar.get(node).copied().flatten(),
            _ => None,
        };
        match hoisted {
            Some(v) => v,
            None => {
                self.missing_data = true;
                self.int64(0)
            }
        }
    }

    /// Binds the data indices `node`'s index expressions read to their
    /// values: the tail of its operand values `ops` (see `Node::operands`).
    pub(super) fn bind_data(&mut self, node: &Node, ops: &[Value]) {
        self.data_values.clear();
        let mut data = Vec::new();
        for ix in node.index_exprs() {
            ix.data_nodes(&mut data);
        }
        if data.is_empty() || data.len() > ops.len() {
            return;
        }
        let first = ops.len() - data.len();
        self.data_values
            .extend(data.into_iter().zip(ops[first..].iter().copied()));
    }

    /// Whether every data index `offset` reads is computed above the
    /// innermost loop (so a row pointer can hold it).
    pub(super) fn data_hoisted(&self, offset: &Ix) -> bool {
        let mut data = Vec::new();
        offset.data_nodes(&mut data);
        data.iter()
            .all(|&n| self.schedule.level[n] < self.schedule.loop_count)
    }

    /// A data index: integer `x` of type `from` widened to `i64` as the
    /// interpreter widens indices (`u64` above `i64::MAX` saturates), then
    /// clamped into `lo..=hi`.
    pub(super) fn index_clamp(&mut self, x: Value, from: ElementType, lo: i64, hi: i64) -> Value {
        let t = self.b.func.dfg.value_type(x);
        let wide = if from.is_unsigned_integer() {
            let w = if t == types::I64 {
                x
            } else {
                self.b.ins().uextend(types::I64, x)
            };
            if from.byte_size() >= 8 {
                let m = self.int64(i64::MAX);
                self.b.ins().umin(w, m)
            } else {
                w
            }
        } else if t == types::I64 {
            x
        } else {
            self.b.ins().sextend(types::I64, x)
        };
        let lov = self.int64(lo);
        let hiv = self.int64(hi);
        self.clamp_i64(wide, lov, hiv)
    }

    /// `v` clamped into `lo..=hi`.
    pub(super) fn clamp_i64(&mut self, v: Value, lo: Value, hi: Value) -> Value {
        let a = self.b.ins().smax(v, lo);
        self.b.ins().smin(a, hi)
    }

    /// `base + offset * size` (`size` a power of two).
    pub(super) fn address(&mut self, base: Value, offset: Value, size: u32) -> Value {
        let off = if size == 1 {
            offset
        } else {
            let sh = self.int64(size.trailing_zeros() as i64);
            self.b.ins().ishl(offset, sh)
        };
        self.b.ins().iadd(base, off)
    }

    /// One condition of a guard, as a `pred` (an `i8` 0 or 1).
    pub(super) fn condition(&mut self, c: &Cond) -> Value {
        match c {
            Cond::Range { ix, lo, hi } => {
                let v = self.index_value(ix);
                let lov = self.int64(*lo);
                let hiv = self.int64(*hi);
                let a = self.b.ins().icmp(IntCC::SignedGreaterThanOrEqual, v, lov);
                let b = self.b.ins().icmp(IntCC::SignedLessThan, v, hiv);
                self.b.ins().band(a, b)
            }
            Cond::Divisible { ix, d } => {
                let v = self.index_value(ix);
                let dv = self.int64(*d);
                let r = self.b.ins().srem(v, dv);
                let z = self.int64(0);
                self.b.ins().icmp(IntCC::Equal, r, z)
            }
        }
    }

    /// Stores `v` (scalar, or vector copy `u`) at element `i` of `row`.
    pub(super) fn store_at(
        &mut self,
        mode: Mode,
        et: ElementType,
        row: Value,
        i: Value,
        u: u32,
        v: Value,
    ) {
        let size = size_of(et);
        let a = self.address(row, i, size);
        match mode {
            Mode::Scalar => {
                self.b.ins().store(flags(), v, a, 0);
            }
            Mode::Vector(w) => {
                let lanes = 16 / w;
                let off = (u * lanes * size) as i32;
                if et.is_pred() {
                    let bytes = self.mask_to_bytes(w, v);
                    self.b.ins().store(flags(), bytes, a, off);
                } else {
                    self.b.ins().store(flags(), v, a, off);
                }
            }
        }
    }

    /// Loads element `i` of `row` (scalar, or vector copy `u`).
    pub(super) fn load_at(
        &mut self,
        mode: Mode,
        et: ElementType,
        row: Value,
        i: Value,
        u: u32,
    ) -> Value {
        let size = size_of(et);
        let a = self.address(row, i, size);
        match mode {
            Mode::Scalar => self.b.ins().load(clif_type(et), flags(), a, 0),
            Mode::Vector(w) => {
                let lanes = 16 / w;
                let off = (u * lanes * size) as i32;
                if et.is_pred() {
                    self.bytes_to_mask(w, a, off)
                } else {
                    self.b.ins().load(vector_type(et, w), flags(), a, off)
                }
            }
        }
    }

    /// Lanes `i + u·lanes ..` of a row read backwards (element `j` at
    /// `row - j·size`): the vector ending at `row - (i + u·lanes)·size`,
    /// its lanes reversed with a byte shuffle (`pshufb`).
    pub(super) fn load_reversed(
        &mut self,
        w: u32,
        et: ElementType,
        row: Value,
        i: Value,
        u: u32,
    ) -> Value {
        let size = size_of(et);
        let lanes = 16 / w;
        let ni = self.b.ins().ineg(i);
        let a = self.address(row, ni, size);
        let off = -(((u * lanes + lanes - 1) * size) as i32);
        let vt = vector_type(et, w);
        let v = self.b.ins().load(vt, flags(), a, off);
        let mut idx = [0u8; 16];
        for (k, b) in idx.iter_mut().enumerate() {
            let (lane, byte) = (k as u32 / w, k as u32 % w);
            *b = ((lanes - 1 - lane) * w + byte) as u8;
        }
        let imm = self
            .b
            .func
            .dfg
            .immediates
            .push(ConstantData::from(&idx[..]));
        let bytes = self.bitcast_to(types::I8X16, v);
        let r = self.b.ins().shuffle(bytes, bytes, imm);
        self.bitcast_to(vt, r)
    }

    /// Loads `16 / w` `pred` bytes at `a + off` as a lane mask of `w` bytes.
    pub(super) fn bytes_to_mask(&mut self, w: u32, a: Value, off: i32) -> Value {
        let mut v = match w {
            1 => self.b.ins().load(types::I8X16, flags(), a, off),
            _ => {
                let (st, vt) = match w {
                    2 => (types::I64, types::I64X2),
                    4 => (types::I32, types::I32X4),
                    _ => (types::I16, types::I16X8),
                };
                let s = self.b.ins().load(st, flags(), a, off);
                let v = self.b.ins().scalar_to_vector(vt, s);
                self.bitcast_to(types::I8X16, v)
            }
        };
        let mut lw = 1;
        while lw < w {
            v = self.b.ins().uwiden_low(v);
            lw *= 2;
        }
        let t = int_type(w).by(16 / w).unwrap_or(types::I8X16);
        let z = self.b.ins().iconst(int_type(w), 0);
        let zv = self.b.ins().splat(t, z);
        self.b.ins().icmp(IntCC::NotEqual, v, zv)
    }

    /// A lane mask of `w` bytes as `16 / w` bytes 0/1 (a scalar or vector
    /// value to store).
    pub(super) fn mask_to_bytes(&mut self, w: u32, m: Value) -> Value {
        let one8 = self.b.ins().iconst(types::I8, 1);
        let ones = self.b.ins().splat(types::I8X16, one8);
        match w {
            1 => {
                let m = self.bitcast_to(types::I8X16, m);
                self.b.ins().band(m, ones)
            }
            2 | 4 => {
                let mut v = m;
                if w == 4 {
                    v = self.b.ins().snarrow(v, v);
                }
                v = self.b.ins().snarrow(v, v);
                let v = self.b.ins().band(v, ones);
                let (vt, st) = if w == 2 {
                    (types::I64X2, types::I64)
                } else {
                    (types::I32X4, types::I32)
                };
                let _ = st;
                let v = self.bitcast_to(vt, v);
                self.b.ins().extractlane(v, 0)
            }
            _ => {
                let bytes = self.bitcast_to(types::I8X16, m);
                let mut idx = [0u8; 16];
                idx[1] = 8;
                let imm = self
                    .b
                    .func
                    .dfg
                    .immediates
                    .push(ConstantData::from(&idx[..]));
                let s = self.b.ins().shuffle(bytes, bytes, imm);
                let s = self.b.ins().band(s, ones);
                let v = self.bitcast_to(types::I16X8, s);
                self.b.ins().extractlane(v, 0)
            }
        }
    }

    /// One element of buffer `base` at `offset` (clamped into the buffer's
    /// `numel` elements when `clamp`: a guarded read).
    pub(super) fn load_scalar(
        &mut self,
        base: Value,
        ty: ElementType,
        offset: &Ix,
        numel: i64,
        clamp: bool,
    ) -> Value {
        let mut off = self.index_value(offset);
        if clamp {
            let z = self.int64(0);
            let m = self.int64(numel - 1);
            off = self.clamp_i64(off, z, m);
        }
        let a = self.address(base, off, size_of(ty));
        self.b.ins().load(clif_type(ty), flags(), a, 0)
    }

    /// Load node `n` of `ty` from `buf` at `offset` (`numel` elements,
    /// clamped when `clamp`), in `mode` (vector copy `u`): through its row
    /// pointer in the innermost loop, else from the buffer base.
    #[allow(clippy::too_many_arguments, reason = "the fields of one Load node")]
    pub(super) fn load_node(
        &mut self,
        mode: Mode,
        n: NodeId,
        u: u32,
        buf: BufferId,
        ty: ElementType,
        offset: &Ix,
        numel: i64,
        clamp: bool,
    ) -> Value {
        let loop_count = self.schedule.loop_count;
        match (mode, self.row_ptr[n], self.inner_index) {
            (Mode::Vector(w), Some(row), Some(i))
                if offset.affine_coefficient(self.kernel.loop_order[loop_count - 1])
                    == Some(-1) =>
            {
                self.load_reversed(w, ty, row, i, u)
            }
            (Mode::Vector(_), Some(row), Some(i)) => self.load_at(mode, ty, row, i, u),
            (Mode::Scalar, Some(row), Some(i))
                if !clamp && self.schedule.level[n] == loop_count =>
            {
                let inner = self.kernel.loop_order[loop_count - 1];
                let s = offset.affine_coefficient(inner).unwrap_or(0);
                let off = if s == 1 {
                    i
                } else {
                    let sv = self.int64(s);
                    self.b.ins().imul(i, sv)
                };
                let a = self.address(row, off, size_of(ty));
                self.b.ins().load(clif_type(ty), flags(), a, 0)
            }
            _ => {
                let base = self.buffer_base(buf);
                self.load_scalar(base, ty, offset, numel, clamp)
            }
        }
    }

    /// `iota` of `ty` at `index`: the index converted, or in vector mode
    /// (copy `u`) the lanes `i + u * lanes + 0, 1, ...` along the innermost
    /// loop.
    pub(super) fn iota(
        &mut self,
        mode: Mode,
        u: u32,
        ty: ElementType,
        index: &Ix,
    ) -> Result<Value> {
        Ok(match mode {
            Mode::Scalar => {
                let v = self.index_value(index);
                self.convert(Mode::Scalar, ElementType::S64, ty, v)?
            }
            Mode::Vector(w) => {
                let inner = self.kernel.loop_order[self.schedule.loop_count - 1];
                let rest = index.without_var(inner);
                let r = self.index_value(&rest);
                let i = self.inner_index.ok_or_else(|| bug("iota outside a loop"))?;
                let lanes = 16 / w;
                let s = self.b.ins().iadd(r, i);
                let uo = self.int64((u * lanes) as i64);
                let s = self.b.ins().iadd(s, uo);
                let it = int_type(w);
                let s = if it == types::I64 {
                    s
                } else {
                    self.b.ins().ireduce(it, s)
                };
                let vt = it.by(lanes).unwrap_or(types::I32X4);
                let sv = self.b.ins().splat(vt, s);
                let lane_ids: Vec<i64> = (0..lanes as i64).collect();
                let c = self.vconst_lanes(vt, &lane_ids);
                let v = self.b.ins().iadd(sv, c);
                if ty.is_float() {
                    self.b.ins().fcvt_from_sint(vector_type(ty, w), v)
                } else {
                    v
                }
            }
        })
    }
}
