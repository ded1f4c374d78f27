//! Complex numbers as pairs of real arrays, for a backend that computes
//! in real arithmetic only (the JIT): [`lower`] rewrites a computation
//! with `c64`/`c128` values into one with none, every complex value
//! becoming two arrays of its part type (`f32` for `c64`, `f64` for
//! `c128`), the real and imaginary parts.
//!
//! Why a pass: complex arithmetic is a handful of real formulas, and the
//! data movement of a complex array is the same movement of each part, so
//! a backend that compiles the real ops compiles the complex ones with no
//! kernels of its own.
//!
//! Invariants:
//! - **Exactness.** Each formula is the interpreter's (`oxla-interp`'s
//!   `complex.rs`), op for op in the same types. Where the interpreter
//!   uses a fused multiply-add (the parts of a product, `|z|`), the pass
//!   computes it exactly from real ops: for `f32` parts the product is
//!   exact in `f64`, the sum is rounded to odd in `f64` (an error-free
//!   two-sum, then one step of the last bit), and the `f64 -> f32`
//!   conversion then rounds once, correctly ([`fma_f32`]). So every op
//!   lowered here gives the interpreter's bits. `f64` parts have no wider
//!   type: the ops that need a fused multiply-add are refused for `c128`.
//! - **Boundary.** In the entry, a complex parameter `c64[d]` becomes a
//!   parameter `f32[d,2]` (the same bytes: each element's parts side by
//!   side) sliced into its parts, and a complex result (or result leaf)
//!   is interleaved back into `f32[d,2]`; the caller reinterprets the
//!   bytes ([`Lowered::parameter_shapes`] gives the original shapes). A
//!   tuple parameter holding a complex value is refused.
//! - **Regions.** In a loop or branch body, a complex array state is the
//!   tuple `(re, im)`, and a tuple's complex element is two consecutive
//!   elements (the tuple grows; nesting stays as it was). A reducer of
//!   a complex `reduce` takes each complex parameter as two parameters and
//!   returns the tuple of parts: the reduce becomes a variadic reduce over
//!   the parts, folded in the same order.
//! - **Refusals.** An op on complex values the pass does not lower yet is
//!   an [`Error::UnsupportedOp`] naming it; nothing is silently changed.
//!   The output is verified.

use std::collections::HashSet;

use crate::ir::{
    BinaryOp, Body, ComparisonDirection, ComparisonOrder, ComputationId, DotDimensionNumbers,
    InstId, Instruction, UnaryOp,
};
use crate::{ArrayData, Computation, ElementType, Error, Literal, OpKind, Result, Shape};

/// `true` when `shape` (a tuple's leaves included) holds a complex type.
pub fn shape_has_complex(shape: &Shape) -> bool {
    if shape.is_tuple() {
        shape.tuple_shapes().iter().any(shape_has_complex)
    } else {
        shape.element_type().is_complex()
    }
}

/// `true` when some value of `comp` is complex.
pub fn has_complex(comp: &Computation) -> bool {
    comp.bodies()
        .iter()
        .any(|b| b.instructions.iter().any(|i| shape_has_complex(&i.shape)))
}

/// A complex computation lowered to real arithmetic (see the module docs).
#[derive(Debug, Clone)]
pub struct Lowered {
    /// The computation, with no complex value anywhere.
    pub computation: Computation,
}

/// `comp` with every complex value split into its parts (see the module
/// docs); `None` when `comp` has no complex value. `backend` names the
/// backend in a refusal.
///
/// ```
/// use oxla_ir::{Builder, ElementType::{C64, F32}, Shape, passes::complex};
/// let mut b = Builder::new("m");
/// let x = b.parameter(0, Shape::new(C64, &[3]), "x")?;
/// let y = b.mul(x, x, &[])?;
/// let comp = b.build(y)?;
/// let real = complex::lower(&comp, "jit")?.unwrap().computation;
/// assert!(!complex::has_complex(&real));
/// assert_eq!(real.parameter_shapes(), vec![Shape::new(F32, &[3, 2])]);
/// assert_eq!(real.result_shape(), &Shape::new(F32, &[3, 2]));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn lower(comp: &Computation, backend: &str) -> Result<Option<Lowered>> {
    // A scan of the shapes first: a computation with no complex value
    // (nearly all) costs no verification here.
    if !has_complex(comp) {
        return Ok(None);
    }
    crate::verifier::verify(comp)?;
    // Every operand of an elementwise op gets the result's dims first.
    let comp = super::expand_broadcasts(comp)?;
    let n = comp.bodies().len();
    let entry = comp.entry_id().index();
    // Which bodies hold complex values, and how each is called.
    let mut has = vec![false; n];
    for (bi, body) in comp.bodies().iter().enumerate() {
        has[bi] = body.instructions.iter().any(|i| {
            shape_has_complex(&i.shape)
                || i.kind
                    .called_computations()
                    .iter()
                    .any(|c| has.get(c.index()).copied().unwrap_or(false))
        });
    }
    let mut modes = vec![Mode::Keep; n];
    if has[entry] {
        modes[entry] = Mode::Entry;
    }
    for body in comp.bodies() {
        for inst in &body.instructions {
            for c in inst.kind.called_computations() {
                if !has[c.index()] {
                    continue;
                }
                let mode = if matches!(inst.kind, OpKind::While { .. } | OpKind::Conditional { .. })
                {
                    Mode::Region
                } else if matches!(inst.kind, OpKind::Reduce { .. }) {
                    Mode::Flat
                } else {
                    return Err(refuse(
                        backend,
                        body,
                        inst,
                        "the JIT does not compile this op with complex values yet",
                    ));
                };
                let m = &mut modes[c.index()];
                if *m != Mode::Keep && *m != mode {
                    return Err(refuse(
                        backend,
                        body,
                        inst,
                        "a computation with complex values called both per element and as a \
                         region",
                    ));
                }
                *m = mode;
            }
        }
    }
    let mut taken: HashSet<String> = comp
        .bodies()
        .iter()
        .flat_map(|b| {
            b.instructions
                .iter()
                .map(|i| i.name.clone())
                .chain(std::iter::once(b.name.clone()))
        })
        .collect();
    let mut bodies = Vec::with_capacity(n);
    let mut extras = Vec::new();
    for (bi, body) in comp.bodies().iter().enumerate() {
        bodies.push(match modes[bi] {
            Mode::Keep => body.clone(),
            mode => Lowering {
                backend,
                body,
                mode,
                insts: Vec::new(),
                taken: &mut taken,
                bodies: comp.bodies(),
                extras: &mut extras,
            }
            .run()?,
        });
    }
    // The extra bodies first: every other id moves up by their number.
    let k = extras.len();
    for body in &mut bodies {
        for inst in &mut body.instructions {
            for c in inst.kind.called_computations_mut() {
                *c = final_id(*c, k);
            }
        }
    }
    let bodies: Vec<Body> = extras.into_iter().chain(bodies).collect();
    let computation =
        Computation::from_bodies(comp.name(), bodies).map_err(|e| Error::Internal {
            stage: "complex::lower pass".into(),
            message: format!("the lowered computation does not verify (a bug in the pass):\n{e}"),
        })?;
    Ok(Some(Lowered { computation }))
}

/// How a body is lowered.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    /// No complex value: kept as it is.
    Keep,
    /// The entry: the byte-compatible boundary of the module docs.
    Entry,
    /// A loop or branch body: complex values as tuples of parts.
    Region,
    /// A reducer: each complex parameter as two, the result as a tuple.
    Flat,
}

/// A lowered value: one instruction, or a complex value's two parts.
#[derive(Clone, Copy, Debug)]
enum Val {
    One(InstId),
    Pair(InstId, InstId),
}

/// The part type of complex `ty` (`ty` itself otherwise).
fn part(ty: ElementType) -> ElementType {
    ty.complex_component().unwrap_or(ty)
}

/// The elements a value of `shape` becomes inside a lowered tuple.
fn lower_elems(shape: &Shape) -> Vec<Shape> {
    if shape.is_tuple() {
        vec![lower_shape(shape)]
    } else if shape.element_type().is_complex() {
        let p = shape.with_element_type(part(shape.element_type()));
        vec![p.clone(), p]
    } else {
        vec![shape.clone()]
    }
}

/// The shape of `shape`'s value in a region: a complex array is the tuple
/// of its parts, a tuple's complex element is two elements.
fn lower_shape(shape: &Shape) -> Shape {
    if shape.is_tuple() {
        Shape::tuple(shape.tuple_shapes().iter().flat_map(lower_elems).collect())
    } else if shape.element_type().is_complex() {
        Shape::tuple(lower_elems(shape))
    } else {
        shape.clone()
    }
}

fn refuse(backend: &str, body: &Body, inst: &Instruction, reason: &str) -> Error {
    Error::UnsupportedOp {
        backend: backend.into(),
        op: inst.kind.opcode_name().into(),
        instruction: inst.name.clone(),
        computation: body.name.clone(),
        reason: format!("{reason}; the interpreter (oxla_interp::evaluate) runs it"),
    }
}

/// The lowering of one body.
struct Lowering<'a> {
    backend: &'a str,
    body: &'a Body,
    mode: Mode,
    insts: Vec<Instruction>,
    taken: &'a mut HashSet<String>,
    bodies: &'a [Body],
    /// Bodies made by the lowering (the reducers of complex dots), placed
    /// first in the output; referred to by [`extra_id`] until then.
    extras: &'a mut Vec<Body>,
}

/// The placeholder id of extra body `j` (see [`Lowering::extras`]).
fn extra_id(j: usize) -> ComputationId {
    ComputationId(u32::MAX - j as u32)
}

/// The final id of `id` once `extras` bodies are placed first.
fn final_id(id: ComputationId, extras: usize) -> ComputationId {
    let from_top = (u32::MAX - id.0) as usize;
    if from_top < extras {
        ComputationId(from_top as u32)
    } else {
        ComputationId(id.0 + extras as u32)
    }
}

impl Lowering<'_> {
    fn fresh(&mut self, base: &str) -> String {
        let mut n = 0usize;
        loop {
            let name = if n == 0 {
                base.to_string()
            } else {
                format!("{base}.{n}")
            };
            n += 1;
            if self.taken.insert(name.clone()) {
                return name;
            }
        }
    }

    fn shape(&self, id: InstId) -> &Shape {
        &self.insts[id.index()].shape
    }

    fn push_named(&mut self, name: String, kind: OpKind, ops: Vec<InstId>, shape: Shape) -> InstId {
        self.insts.push(Instruction {
            name,
            kind,
            operands: ops,
            shape,
        });
        InstId(self.insts.len() as u32 - 1)
    }

    fn push(&mut self, base: &str, kind: OpKind, ops: Vec<InstId>, shape: Shape) -> InstId {
        let name = self.fresh(base);
        self.push_named(name, kind, ops, shape)
    }

    fn binary(&mut self, base: &str, op: BinaryOp, a: InstId, b: InstId) -> InstId {
        let shape = if matches!(op, BinaryOp::Compare(..)) {
            self.shape(a).with_element_type(ElementType::Pred)
        } else {
            self.shape(a).clone()
        };
        let kind = OpKind::Binary {
            op,
            broadcast_dimensions: vec![],
        };
        self.push(base, kind, vec![a, b], shape)
    }

    fn cmp(&mut self, base: &str, dir: ComparisonDirection, a: InstId, b: InstId) -> InstId {
        self.binary(base, BinaryOp::Compare(dir, ComparisonOrder::Natural), a, b)
    }

    fn unary(&mut self, base: &str, op: UnaryOp, a: InstId) -> InstId {
        let shape = self.shape(a).clone();
        self.push(base, OpKind::Unary(op), vec![a], shape)
    }

    fn convert(&mut self, base: &str, a: InstId, ty: ElementType) -> InstId {
        if self.shape(a).element_type() == ty {
            return a;
        }
        let shape = self.shape(a).with_element_type(ty);
        self.push(base, OpKind::Convert, vec![a], shape)
    }

    fn select(&mut self, base: &str, p: InstId, a: InstId, b: InstId) -> InstId {
        let shape = self.shape(a).clone();
        self.push(base, OpKind::Select, vec![p, a, b], shape)
    }

    fn bitcast(&mut self, base: &str, a: InstId, ty: ElementType) -> InstId {
        let shape = self.shape(a).with_element_type(ty);
        self.push(base, OpKind::BitcastConvert, vec![a], shape)
    }

    /// `literal` (a scalar) broadcast to `dims`.
    fn splat(&mut self, base: &str, literal: Literal, dims: &[i64]) -> InstId {
        let ty = literal.element_type();
        let c = self.push(
            base,
            OpKind::Constant { literal },
            vec![],
            Shape::scalar(ty),
        );
        if dims.is_empty() {
            return c;
        }
        self.push(
            base,
            OpKind::Broadcast { dimensions: vec![] },
            vec![c],
            Shape::new(ty, dims),
        )
    }

    /// The float `value` of type `ty` broadcast to `dims`.
    fn float(&mut self, base: &str, ty: ElementType, value: f64, dims: &[i64]) -> Result<InstId> {
        let literal = Literal::float_scalar(ty, value).ok_or_else(|| Error::Internal {
            stage: "complex::lower pass".into(),
            message: format!("no {ty} constant"),
        })?;
        Ok(self.splat(base, literal, dims))
    }

    fn tuple(&mut self, base: &str, elems: Vec<InstId>) -> InstId {
        let shape = Shape::tuple(elems.iter().map(|&e| self.shape(e).clone()).collect());
        self.push(base, OpKind::Tuple, elems, shape)
    }

    fn gte(&mut self, base: &str, t: InstId, index: usize) -> InstId {
        let shape = self.shape(t).tuple_shapes()[index].clone();
        self.push(
            base,
            OpKind::GetTupleElement {
                index: index as i64,
            },
            vec![t],
            shape,
        )
    }

    /// The lowered form of `v` as one instruction (a pair as a tuple).
    fn pack(&mut self, base: &str, v: Val) -> InstId {
        match v {
            Val::One(i) => i,
            Val::Pair(re, im) => self.tuple(base, vec![re, im]),
        }
    }

    /// The value of `id`, whose lowered shape is that of `old`'s value.
    fn unpack(&mut self, base: &str, id: InstId, old: &Shape) -> Val {
        if !old.is_tuple() && old.element_type().is_complex() {
            Val::Pair(self.gte(base, id, 0), self.gte(base, id, 1))
        } else {
            Val::One(id)
        }
    }

    /// `fma(a, c, x)` of `f32` arrays of one shape, correctly rounded
    /// (`f32::mul_add`'s bits) from real ops: `a·c` is exact in `f64`;
    /// `a·c + x` rounded to odd in `f64` (a two-sum gives the error `e`;
    /// when `e ≠ 0` and the sum's last bit is even, the sum steps one
    /// unit towards `e`), then rounded to `f32` once. Rounding to odd in
    /// a format of at least two more bits makes the second rounding
    /// correct. Infinities and NaN: the error is NaN and the sum stands.
    fn fma_f32(&mut self, base: &str, a: InstId, c: InstId, x: InstId) -> Result<InstId> {
        use ComparisonDirection::{Eq, Ge, Ne};
        use ElementType::{F32, F64, S64};
        let dims = self.shape(a).dims().to_vec();
        let a = self.convert(base, a, F64);
        let c = self.convert(base, c, F64);
        let x = self.convert(base, x, F64);
        let p = self.binary(base, BinaryOp::Mul, a, c);
        let s = self.binary(base, BinaryOp::Add, p, x);
        // Knuth's two-sum: e = (p - (s - bb)) + (x - bb), bb = s - p.
        let bb = self.binary(base, BinaryOp::Sub, s, p);
        let sbb = self.binary(base, BinaryOp::Sub, s, bb);
        let e1 = self.binary(base, BinaryOp::Sub, p, sbb);
        let e2 = self.binary(base, BinaryOp::Sub, x, bb);
        let e = self.binary(base, BinaryOp::Add, e1, e2);
        let zero = self.float(base, F64, 0.0, &dims)?;
        let inexact = self.cmp(base, Ne, e, zero);
        let not_nan = self.cmp(base, Eq, e, e);
        let inexact = self.binary(base, BinaryOp::And, inexact, not_nan);
        let bits = self.bitcast(base, s, S64);
        let one = self.splat(base, Literal::scalar(1i64), &dims);
        let zero_i = self.splat(base, Literal::scalar(0i64), &dims);
        let low = self.binary(base, BinaryOp::And, bits, one);
        let even = self.cmp(base, Eq, low, zero_i);
        let adjust = self.binary(base, BinaryOp::And, inexact, even);
        // Towards e: up in magnitude when e and s share a sign.
        let ebits = self.bitcast(base, e, S64);
        let signs = self.binary(base, BinaryOp::Xor, bits, ebits);
        let same = self.cmp(base, Ge, signs, zero_i);
        let minus = self.splat(base, Literal::scalar(-1i64), &dims);
        let step = self.select(base, same, one, minus);
        let stepped = self.binary(base, BinaryOp::Add, bits, step);
        let stepped = self.bitcast(base, stepped, F64);
        let odd = self.select(base, adjust, stepped, s);
        Ok(self.convert(base, odd, F32))
    }

    /// `fma(a, c, x)` for parts of type `ty`, or a refusal for `f64`.
    fn fma(
        &mut self,
        inst: &Instruction,
        ty: ElementType,
        a: InstId,
        c: InstId,
        x: InstId,
    ) -> Result<InstId> {
        if ty != ElementType::F32 {
            return Err(self.refusal(
                inst,
                "the JIT does not compile this op of c128 yet (it needs a fused multiply-add \
                 of f64)",
            ));
        }
        let base = inst.name.clone();
        self.fma_f32(&base, a, c, x)
    }

    fn refusal(&self, inst: &Instruction, reason: &str) -> Error {
        refuse(self.backend, self.body, inst, reason)
    }

    /// `z·w` as the interpreter computes it: `fma(a, c, -bd) + i fma(b,
    /// c, ad)`.
    fn mul(&mut self, inst: &Instruction, ty: ElementType, z: Val, w: Val) -> Result<Val> {
        let (Val::Pair(a, b), Val::Pair(c, d)) = (z, w) else {
            return Err(self.internal(inst, "a complex multiply of a real value"));
        };
        let base = inst.name.clone();
        let bd = self.binary(&base, BinaryOp::Mul, b, d);
        let nbd = self.unary(&base, UnaryOp::Neg, bd);
        let re = self.fma(inst, ty, a, c, nbd)?;
        let ad = self.binary(&base, BinaryOp::Mul, a, d);
        let im = self.fma(inst, ty, b, c, ad)?;
        Ok(Val::Pair(re, im))
    }

    /// `-x`-free sign test: `x`'s sign bit is set (`-0` and NaNs with the
    /// bit included), for `f32` `x`.
    fn sign_bit(&mut self, base: &str, x: InstId) -> InstId {
        let dims = self.shape(x).dims().to_vec();
        let bits = self.bitcast(base, x, ElementType::S32);
        let zero = self.splat(base, Literal::scalar(0i32), &dims);
        self.cmp(base, ComparisonDirection::Lt, bits, zero)
    }

    /// `copysign(v, x)` for the non-negative constant `v`, `f32` `x`.
    fn copysign_const(&mut self, base: &str, v: f64, x: InstId) -> Result<InstId> {
        let dims = self.shape(x).dims().to_vec();
        let neg = self.sign_bit(base, x);
        let plus = self.float(base, ElementType::F32, v, &dims)?;
        let minus = self.float(base, ElementType::F32, -v, &dims)?;
        Ok(self.select(base, neg, minus, plus))
    }

    /// `copysign(1, x)` where `x` is infinite, `copysign(0, x)` else.
    fn unit(&mut self, base: &str, x: InstId) -> Result<InstId> {
        let inf = self.is_inf(base, x)?;
        let one = self.copysign_const(base, 1.0, x)?;
        let zero = self.copysign_const(base, 0.0, x)?;
        Ok(self.select(base, inf, one, zero))
    }

    fn is_inf(&mut self, base: &str, x: InstId) -> Result<InstId> {
        let dims = self.shape(x).dims().to_vec();
        let ty = self.shape(x).element_type();
        let inf = self.float(base, ty, f64::INFINITY, &dims)?;
        let a = self.unary(base, UnaryOp::Abs, x);
        Ok(self.cmp(base, ComparisonDirection::Eq, a, inf))
    }

    fn is_nan(&mut self, base: &str, x: InstId) -> InstId {
        self.cmp(base, ComparisonDirection::Ne, x, x)
    }

    /// Neither infinite nor NaN.
    fn is_finite(&mut self, base: &str, x: InstId) -> Result<InstId> {
        let inf = self.is_inf(base, x)?;
        let nan = self.is_nan(base, x);
        let bad = self.binary(base, BinaryOp::Or, inf, nan);
        Ok(self.unary(base, UnaryOp::Not, bad))
    }

    fn and(&mut self, base: &str, a: InstId, b: InstId) -> InstId {
        self.binary(base, BinaryOp::And, a, b)
    }

    fn or(&mut self, base: &str, a: InstId, b: InstId) -> InstId {
        self.binary(base, BinaryOp::Or, a, b)
    }

    /// `z / w` as the interpreter computes it (`c64` only): Smith's
    /// algorithm, scaling by the larger part of `w`, both branches
    /// computed and one selected per element, then XLA's three corner
    /// cases where both parts are NaN.
    fn div(&mut self, inst: &Instruction, ty: ElementType, z: Val, w: Val) -> Result<Val> {
        use BinaryOp::{Add, Div, Mul, Sub};
        let (Val::Pair(ar, ai), Val::Pair(c, d)) = (z, w) else {
            return Err(self.internal(inst, "a complex divide of a real value"));
        };
        if ty != ElementType::F32 {
            // The fused multiply-adds below.
            self.fma(inst, ty, ar, ar, ar)?;
        }
        let base = inst.name.clone();
        let base = base.as_str();
        let dims = self.shape(ar).dims().to_vec();
        // Smith: lt = |c| < |d|.
        let abs_c = self.unary(base, UnaryOp::Abs, c);
        let abs_d = self.unary(base, UnaryOp::Abs, d);
        let lt = self.cmp(base, ComparisonDirection::Lt, abs_c, abs_d);
        let c_d = self.binary(base, Div, c, d);
        let d_c = self.binary(base, Div, d, c);
        let r = self.select(base, lt, c_d, d_c);
        let x1 = self.select(base, lt, c, d);
        let x2 = self.select(base, lt, d, c);
        let den = self.fma(inst, ty, r, x1, x2)?;
        let y1 = self.select(base, lt, ar, ai);
        let y2 = self.select(base, lt, ai, ar);
        let re = self.fma(inst, ty, r, y1, y2)?;
        let re = self.binary(base, Div, re, den);
        let neg_r = self.unary(base, UnaryOp::Neg, r);
        let neg_ar = self.unary(base, UnaryOp::Neg, ar);
        let m = self.select(base, lt, r, neg_r);
        let y1 = self.select(base, lt, ai, ar);
        let y2 = self.select(base, lt, neg_ar, ai);
        let im = self.fma(inst, ty, m, y1, y2)?;
        let im = self.binary(base, Div, im, den);
        let re_nan = self.is_nan(base, re);
        let im_nan = self.is_nan(base, im);
        let both_nan = self.and(base, re_nan, im_nan);
        // Case 1: a zero divisor, a numerator not all NaN.
        let zero = self.float(base, ty, 0.0, &dims)?;
        let c0 = self.cmp(base, ComparisonDirection::Eq, c, zero);
        let d0 = self.cmp(base, ComparisonDirection::Eq, d, zero);
        let w0 = self.and(base, c0, d0);
        let ar_nan = self.is_nan(base, ar);
        let ai_nan = self.is_nan(base, ai);
        let a_nan = self.and(base, ar_nan, ai_nan);
        let a_some = self.unary(base, UnaryOp::Not, a_nan);
        let case1 = self.and(base, w0, a_some);
        let s = self.copysign_const(base, f64::INFINITY, c)?;
        let re1 = self.binary(base, Mul, s, ar);
        let im1 = self.binary(base, Mul, s, ai);
        // Case 2: an infinite part in z, w finite.
        let ar_inf = self.is_inf(base, ar)?;
        let ai_inf = self.is_inf(base, ai)?;
        let z_inf = self.or(base, ar_inf, ai_inf);
        let c_fin = self.is_finite(base, c)?;
        let d_fin = self.is_finite(base, d)?;
        let w_fin = self.and(base, c_fin, d_fin);
        let case2 = self.and(base, z_inf, w_fin);
        let x = self.unit(base, ar)?;
        let y = self.unit(base, ai)?;
        let inf = self.float(base, ty, f64::INFINITY, &dims)?;
        let xc = self.binary(base, Mul, x, c);
        let yd = self.binary(base, Mul, y, d);
        let t = self.binary(base, Add, xc, yd);
        let re2 = self.binary(base, Mul, inf, t);
        let yc = self.binary(base, Mul, y, c);
        let xd = self.binary(base, Mul, x, d);
        let t = self.binary(base, Sub, yc, xd);
        let im2 = self.binary(base, Mul, inf, t);
        // Case 3: z finite, an infinite part in w.
        let ar_fin = self.is_finite(base, ar)?;
        let ai_fin = self.is_finite(base, ai)?;
        let z_fin = self.and(base, ar_fin, ai_fin);
        let c_inf = self.is_inf(base, c)?;
        let d_inf = self.is_inf(base, d)?;
        let w_inf = self.or(base, c_inf, d_inf);
        let case3 = self.and(base, z_fin, w_inf);
        let x = self.unit(base, c)?;
        let y = self.unit(base, d)?;
        let arx = self.binary(base, Mul, ar, x);
        let aiy = self.binary(base, Mul, ai, y);
        let t = self.binary(base, Add, arx, aiy);
        let re3 = self.binary(base, Mul, zero, t);
        let aix = self.binary(base, Mul, ai, x);
        let ary = self.binary(base, Mul, ar, y);
        let t = self.binary(base, Sub, aix, ary);
        let im3 = self.binary(base, Mul, zero, t);
        // The first case that holds, where Smith gives NaN in both parts.
        let mut re_out = re;
        let mut im_out = im;
        for (case, cre, cim) in [(case3, re3, im3), (case2, re2, im2), (case1, re1, im1)] {
            let take = self.and(base, both_nan, case);
            re_out = self.select(base, take, cre, re_out);
            im_out = self.select(base, take, cim, im_out);
        }
        Ok(Val::Pair(re_out, im_out))
    }

    /// A complex `dot` as the interpreter computes it: for each result
    /// element, `acc = acc + l·r` over the contracting positions in
    /// row-major order of the contracting dimensions as listed, from
    /// `acc = 0`. Built as the products of every (result, position) pair
    /// (the operands transposed to `[batch, free, contracting]` and
    /// broadcast to `[result dims, positions]`), then a variadic reduce of
    /// the parts over the positions, folding in that order.
    fn dot(
        &mut self,
        inst: &Instruction,
        dims: &DotDimensionNumbers,
        ty: ElementType,
        op_types: &[ElementType],
        ops: &[Val],
    ) -> Result<Val> {
        if op_types.iter().any(|t| !t.is_complex() && part(*t) != ty)
            || op_types.iter().any(|t| t.is_complex() && part(*t) != ty)
        {
            return Err(self.refusal(
                inst,
                "the JIT does not compile a complex dot of mixed types yet",
            ));
        }
        let name = inst.name.clone();
        let base = name.as_str();
        let out_dims = inst.shape.dims().to_vec();
        let rank = out_dims.len();
        let nb = dims.lhs_batch.len();
        let operand_dims: Vec<Vec<i64>> = inst
            .operands
            .iter()
            .map(|o| self.body.inst(*o).shape.dims().to_vec())
            .collect();
        let sides = [
            (&dims.lhs_batch, &dims.lhs_contracting),
            (&dims.rhs_batch, &dims.rhs_contracting),
        ];
        let nfree: Vec<usize> = (0..2)
            .map(|k| operand_dims[k].len() - sides[k].0.len() - sides[k].1.len())
            .collect();
        let positions: i64 = dims
            .lhs_contracting
            .iter()
            .map(|&d| operand_dims[0][d as usize])
            .product();
        let wide = [out_dims.as_slice(), &[positions]].concat();
        let mut parts: Vec<Val> = Vec::new();
        for k in 0..2 {
            let (batch, contracting) = sides[k];
            let od = &operand_dims[k];
            let free: Vec<i64> = (0..od.len() as i64)
                .filter(|d| !batch.contains(d) && !contracting.contains(d))
                .collect();
            let perm: Vec<i64> = batch
                .iter()
                .chain(free.iter())
                .chain(contracting.iter())
                .copied()
                .collect();
            let tdims: Vec<i64> = perm.iter().map(|&d| od[d as usize]).collect();
            let flat: Vec<i64> = tdims[..nb + free.len()]
                .iter()
                .copied()
                .chain([positions])
                .collect();
            // Where this operand's dims go in `wide`.
            let mut bdims: Vec<i64> = (0..nb as i64).collect();
            let start = if k == 0 { nb } else { nb + nfree[0] };
            bdims.extend((start..start + free.len()).map(|d| d as i64));
            bdims.push(rank as i64);
            let v = match ops[k] {
                Val::Pair(re, im) => [re, im],
                Val::One(x) => {
                    let zero = self.float(base, ty, 0.0, od)?;
                    [self.real_to_part(base, x, ty), zero]
                }
            };
            let mut out = [InstId(0); 2];
            for (o, x) in out.iter_mut().zip(v) {
                let t = self.push(
                    base,
                    OpKind::Transpose {
                        permutation: perm.clone(),
                    },
                    vec![x],
                    Shape::new(ty, &tdims),
                );
                let r = self.push(base, OpKind::Reshape, vec![t], Shape::new(ty, &flat));
                *o = self.push(
                    base,
                    OpKind::Broadcast {
                        dimensions: bdims.clone(),
                    },
                    vec![r],
                    Shape::new(ty, &wide),
                );
            }
            parts.push(Val::Pair(out[0], out[1]));
        }
        let prod = self.mul(inst, ty, parts[0], parts[1])?;
        let Val::Pair(pre, pim) = prod else {
            return Err(self.internal(inst, "a complex product of one part"));
        };
        let zero = self.float(base, ty, 0.0, &[])?;
        let reducer = self.complex_add_body(base, ty);
        let shape = Shape::new(ty, &out_dims);
        let sum = self.push(
            base,
            OpKind::Reduce {
                dimensions: vec![rank as i64],
                to_apply: reducer,
            },
            vec![pre, pim, zero, zero],
            Shape::tuple(vec![shape.clone(), shape]),
        );
        Ok(Val::Pair(self.gte(base, sum, 0), self.gte(base, sum, 1)))
    }

    /// A reducer adding complex numbers as parts: `(acc_re, acc_im, x_re,
    /// x_im) -> (acc_re + x_re, acc_im + x_im)`, as an extra body.
    fn complex_add_body(&mut self, base: &str, ty: ElementType) -> ComputationId {
        let scalar = Shape::scalar(ty);
        let mut insts = Vec::new();
        for (k, n) in ["acc_re", "acc_im", "x_re", "x_im"].iter().enumerate() {
            insts.push(Instruction {
                name: self.fresh(&format!("{base}.{n}")),
                kind: OpKind::Parameter { number: k as i64 },
                operands: vec![],
                shape: scalar.clone(),
            });
        }
        for (a, b) in [(0u32, 2u32), (1, 3)] {
            insts.push(Instruction {
                name: self.fresh(&format!("{base}.sum")),
                kind: OpKind::Binary {
                    op: BinaryOp::Add,
                    broadcast_dimensions: vec![],
                },
                operands: vec![InstId(a), InstId(b)],
                shape: scalar.clone(),
            });
        }
        insts.push(Instruction {
            name: self.fresh(&format!("{base}.pair")),
            kind: OpKind::Tuple,
            operands: vec![InstId(4), InstId(5)],
            shape: Shape::tuple(vec![scalar.clone(), scalar]),
        });
        let j = self.extras.len();
        let name = self.fresh(&format!("{base}.complex_add"));
        self.extras.push(Body {
            name,
            instructions: insts,
            root: InstId(6),
        });
        extra_id(j)
    }

    /// XLA's `maximum` (`minimum` when `min`): NaN if either operand is.
    fn max_nan(&mut self, base: &str, a: InstId, b: InstId, min: bool) -> Result<InstId> {
        use ComparisonDirection::{Ge, Le};
        let dims = self.shape(a).dims().to_vec();
        let ty = self.shape(a).element_type();
        let an = self.is_nan(base, a);
        let bn = self.is_nan(base, b);
        let nan = self.or(base, an, bn);
        let pick = self.cmp(base, if min { Le } else { Ge }, a, b);
        let v = self.select(base, pick, a, b);
        let qnan = self.float(base, ty, f64::NAN, &dims)?;
        Ok(self.select(base, nan, qnan, v))
    }

    fn bin(&mut self, base: &str, op: BinaryOp, a: InstId, b: InstId) -> InstId {
        self.binary(base, op, a, b)
    }

    /// `hypot(mx, mn)` as the interpreter (StableHLO's expander) writes
    /// it: `√2·mx` where `mx == mn`; else with `r = (mn/mx)²`,
    /// `q = sqrt(1 + r)`: `mx + mx·r/2` where `q == 1` and `r > 0`, else
    /// `mx·q`.
    fn hypot(&mut self, base: &str, mx: InstId, mn: InstId) -> Result<InstId> {
        use BinaryOp::{Add, Div, Mul};
        use ComparisonDirection::{Eq, Gt};
        let dims = self.shape(mx).dims().to_vec();
        let ty = self.shape(mx).element_type();
        let one = self.float(base, ty, 1.0, &dims)?;
        let two = self.float(base, ty, 2.0, &dims)?;
        let zero = self.float(base, ty, 0.0, &dims)?;
        let sq2 = self.float(base, ty, std::f64::consts::SQRT_2, &dims)?;
        let d = self.bin(base, Div, mn, mx);
        let r = self.bin(base, Mul, d, d);
        let opr = self.bin(base, Add, one, r);
        let q = self.unary(base, UnaryOp::Sqrt, opr);
        let equal = self.cmp(base, Eq, mx, mn);
        let q1 = self.cmp(base, Eq, q, one);
        let rpos = self.cmp(base, Gt, r, zero);
        let tiny = self.and(base, q1, rpos);
        let s2 = self.bin(base, Mul, sq2, mx);
        let mr = self.bin(base, Mul, mx, r);
        let mr2 = self.bin(base, Div, mr, two);
        let near = self.bin(base, Add, mx, mr2);
        let far = self.bin(base, Mul, mx, q);
        let t = self.select(base, tiny, near, far);
        Ok(self.select(base, equal, s2, t))
    }

    /// `sqrt(z)` as the interpreter (StableHLO's expander) computes it,
    /// op for op: every step is a correctly rounded `sqrt`, `/`, `·`, `+`
    /// or a select, so the result is bit-exact, `c128` included.
    fn sqrt(&mut self, inst: &Instruction, z: Val) -> Result<Val> {
        use BinaryOp::{Add, Div, Mul};
        use ComparisonDirection::{Eq, Ge, Gt, Lt};
        let Val::Pair(x, y) = z else {
            return Err(self.internal(inst, "the complex sqrt of a real value"));
        };
        let name = inst.name.clone();
        let base = name.as_str();
        let dims = self.shape(x).dims().to_vec();
        let ty = self.shape(x).element_type();
        let c = |s: &mut Self, v: f64| s.float(base, ty, v, &dims);
        let (zero, one, two) = (c(self, 0.0)?, c(self, 1.0)?, c(self, 2.0)?);
        let sq2 = c(self, std::f64::consts::SQRT_2)?;
        let inf = c(self, f64::INFINITY)?;
        let ax = self.unary(base, UnaryOp::Abs, x);
        let ay = self.unary(base, UnaryOp::Abs, y);
        let sq_ax = self.unary(base, UnaryOp::Sqrt, ax);
        let sq_ay = self.unary(base, UnaryOp::Sqrt, ay);
        let eq = self.cmp(base, Eq, ax, ay);
        let lt = self.cmp(base, Lt, ax, ay);
        let gt = self.cmp(base, Gt, ax, ay);
        let mx = self.max_nan(base, ax, ay, false)?;
        let mn = self.max_nan(base, ax, ay, true)?;
        let hy = self.hypot(base, mx, mn)?;
        let h2 = self.bin(base, Div, hy, two);
        let ax2 = self.bin(base, Div, ax, two);
        let s = self.bin(base, Add, h2, ax2);
        let u0 = self.unary(base, UnaryOp::Sqrt, s);
        let axay = self.bin(base, Div, ax, ay);
        let ayax = self.bin(base, Div, ay, ax);
        let r0 = self.select(base, lt, axay, ayax);
        let r0 = self.select(base, eq, one, r0);
        let ar0 = self.unary(base, UnaryOp::Abs, r0);
        let hmx = self.max_nan(base, one, ar0, false)?;
        let hmn = self.max_nan(base, one, ar0, true)?;
        let h = self.hypot(base, hmx, hmn)?;
        let oph = self.bin(base, Add, one, h);
        let sq_1h = self.unary(base, UnaryOp::Sqrt, oph);
        let rph = self.bin(base, Add, r0, h);
        let sq_rh = self.unary(base, UnaryOp::Sqrt, rph);
        let u0z = self.cmp(base, Eq, u0, zero);
        let u0i = self.cmp(base, Eq, u0, inf);
        let rescale = self.or(base, u0z, u0i);
        // u.
        let k1 = c(self, 1.553_773_974_030_037_4)?;
        let ue = self.bin(base, Mul, sq_ax, k1);
        let ue = self.bin(base, Div, ue, sq2);
        let t = self.bin(base, Div, sq_1h, sq2);
        let ug = self.bin(base, Mul, sq_ax, t);
        let t = self.bin(base, Div, sq_rh, sq2);
        let ul = self.bin(base, Mul, sq_ay, t);
        let ur = self.select(base, gt, ug, ul);
        let ur = self.select(base, rescale, ur, u0);
        let u = self.select(base, eq, ue, ur);
        // v.
        let q1 = self.bin(base, Div, sq_ax, sq_ay);
        let q2 = self.bin(base, Div, sq_ay, sq_ax);
        let q = self.select(base, lt, q1, q2);
        let q = self.select(base, eq, one, q);
        let k2 = c(self, 2.197_368_226_935_62)?;
        let ve = self.bin(base, Div, sq_ay, k2);
        let n = self.bin(base, Mul, sq_ay, q);
        let d = self.bin(base, Mul, sq_1h, sq2);
        let vg = self.bin(base, Div, n, d);
        let d = self.bin(base, Mul, sq_rh, sq2);
        let vl = self.bin(base, Div, sq_ay, d);
        let u02 = self.bin(base, Mul, u0, two);
        let vo = self.bin(base, Div, ay, u02);
        let vr = self.select(base, gt, vg, vl);
        let vr = self.select(base, rescale, vr, vo);
        let v = self.select(base, eq, ve, vr);
        // The parts.
        let neg_y = self.cmp(base, Lt, y, zero);
        let x_ge = self.cmp(base, Ge, x, zero);
        let x_lt = self.cmp(base, Lt, x, zero);
        let re = self.select(base, x_ge, u, v);
        let nu = self.unary(base, UnaryOp::Neg, u);
        let nv = self.unary(base, UnaryOp::Neg, v);
        let iu = self.select(base, neg_y, nu, u);
        let iv = self.select(base, neg_y, nv, v);
        let im = self.select(base, x_lt, iu, iv);
        Ok(Val::Pair(re, im))
    }

    /// `|z|` as the interpreter computes it: `max · sqrt(fma(r, r, 1))`,
    /// `r = min / max`; `|re| + |im|` when a part is NaN; `min` where the
    /// formula gives NaN.
    fn magnitude(&mut self, inst: &Instruction, ty: ElementType, z: Val) -> Result<InstId> {
        use ComparisonDirection::{Ge, Ne};
        let Val::Pair(re, im) = z else {
            return Err(self.internal(inst, "the magnitude of a real value"));
        };
        let base = inst.name.clone();
        let dims = self.shape(re).dims().to_vec();
        let a = self.unary(&base, UnaryOp::Abs, re);
        let b = self.unary(&base, UnaryOp::Abs, im);
        let a_nan = self.cmp(&base, Ne, a, a);
        let b_nan = self.cmp(&base, Ne, b, b);
        let nan = self.binary(&base, BinaryOp::Or, a_nan, b_nan);
        let sum = self.binary(&base, BinaryOp::Add, a, b);
        let a_ge = self.cmp(&base, Ge, a, b);
        let max = self.select(&base, a_ge, a, b);
        let min = self.select(&base, a_ge, b, a);
        let r = self.binary(&base, BinaryOp::Div, min, max);
        let one = self.float(&base, ty, 1.0, &dims)?;
        let q = self.fma(inst, ty, r, r, one)?;
        let root = self.unary(&base, UnaryOp::Sqrt, q);
        let m = self.binary(&base, BinaryOp::Mul, max, root);
        let m_nan = self.cmp(&base, Ne, m, m);
        let m = self.select(&base, m_nan, min, m);
        Ok(self.select(&base, nan, sum, m))
    }

    fn internal(&self, inst: &Instruction, message: &str) -> Error {
        Error::Internal {
            stage: "complex::lower pass".into(),
            message: format!("{message} at {}", inst.name),
        }
    }

    /// Real `x` converted to part type `ty` as the interpreter converts a
    /// real value to a complex one (through `f64`).
    fn real_to_part(&mut self, base: &str, x: InstId, ty: ElementType) -> InstId {
        let from = self.shape(x).element_type();
        let x = if from.bit_width() == 64 && !from.is_float() && ty != ElementType::F64 {
            self.convert(base, x, ElementType::F64)
        } else {
            x
        };
        self.convert(base, x, ty)
    }

    /// Runs the lowering; gives the new body.
    fn run(mut self) -> Result<Body> {
        let body = self.body;
        // Flat mode: the first new parameter number of each old one.
        let mut flat_numbers = Vec::new();
        if self.mode == Mode::Flat {
            let mut next = 0i64;
            for s in body.parameter_shapes() {
                flat_numbers.push(next);
                next += if shape_has_complex(&s) { 2 } else { 1 };
            }
        }
        let mut vals: Vec<Val> = Vec::with_capacity(body.instructions.len());
        for inst in &body.instructions {
            let v = self.lower_inst(inst, &vals, &flat_numbers)?;
            vals.push(v);
        }
        let root_old = body.root_inst();
        let root_val = vals[body.root.index()];
        let base = root_old.name.clone();
        let root = match self.mode {
            Mode::Entry => self.interleave(&base, root_val, &root_old.shape)?,
            Mode::Region | Mode::Flat | Mode::Keep => self.pack(&base, root_val),
        };
        Ok(Body {
            name: body.name.clone(),
            instructions: self.insts,
            root,
        })
    }

    /// The entry's result: each complex leaf as `part[dims, 2]`.
    fn interleave(&mut self, base: &str, v: Val, old: &Shape) -> Result<InstId> {
        match v {
            Val::Pair(re, im) => {
                // One elementwise pass over the result: part `j` of
                // element `i` is `select(j == 0, re[i], im[i])` (a
                // concatenate along the last dimension would write each
                // part as a strided column).
                let dims = old.dims().to_vec();
                let rank = dims.len();
                let ty = self.shape(re).element_type();
                let out = [dims.as_slice(), &[2]].concat();
                let keep: Vec<i64> = (0..rank as i64).collect();
                let mut wide = [InstId(0); 2];
                for (w, x) in wide.iter_mut().zip([re, im]) {
                    *w = self.push(
                        base,
                        OpKind::Broadcast {
                            dimensions: keep.clone(),
                        },
                        vec![x],
                        Shape::new(ty, &out),
                    );
                }
                let j = self.push(
                    base,
                    OpKind::Iota {
                        dimension: rank as i64,
                    },
                    vec![],
                    Shape::new(ElementType::S32, &out),
                );
                let zero = self.splat(base, Literal::scalar(0i32), &out);
                let first = self.cmp(base, ComparisonDirection::Eq, j, zero);
                Ok(self.select(base, first, wide[0], wide[1]))
            }
            Val::One(id) if old.is_tuple() && shape_has_complex(old) => {
                let mut elems = Vec::new();
                let mut k = 0;
                for s in old.tuple_shapes() {
                    let v = if !s.is_tuple() && s.element_type().is_complex() {
                        let re = self.gte(base, id, k);
                        let im = self.gte(base, id, k + 1);
                        k += 2;
                        Val::Pair(re, im)
                    } else {
                        k += 1;
                        Val::One(self.gte(base, id, k - 1))
                    };
                    elems.push(self.interleave(base, v, s)?);
                }
                Ok(self.tuple(base, elems))
            }
            Val::One(id) => Ok(id),
        }
    }

    /// The lowered value of `inst`.
    fn lower_inst(&mut self, inst: &Instruction, vals: &[Val], flat: &[i64]) -> Result<Val> {
        let ops: Vec<Val> = inst.operands.iter().map(|o| vals[o.index()]).collect();
        let any_pair = ops.iter().any(|v| matches!(v, Val::Pair(..)));
        let complex_result = shape_has_complex(&inst.shape);
        let calls_complex = inst
            .kind
            .called_computations()
            .iter()
            .any(|c| self.bodies.get(c.index()).is_some_and(body_has_complex));
        let one = |v: &Val| match v {
            Val::One(i) => *i,
            Val::Pair(re, _) => *re,
        };
        let name = inst.name.clone();
        // A parameter: the mode's boundary.
        if let OpKind::Parameter { number } = inst.kind {
            return self.parameter(inst, number, flat);
        }
        let plain = !any_pair
            && !complex_result
            && !calls_complex
            && !matches!(
                inst.kind,
                OpKind::Real
                    | OpKind::Imag
                    | OpKind::Complex
                    | OpKind::Tuple
                    | OpKind::GetTupleElement { .. }
            );
        if plain {
            let mut copy = inst.clone();
            copy.operands = ops.iter().map(one).collect();
            self.taken.insert(copy.name.clone());
            return Ok(Val::One(self.push_named(
                copy.name.clone(),
                copy.kind,
                copy.operands,
                copy.shape,
            )));
        }
        let ety = inst.shape.element_type();
        let pty = part(if inst.shape.is_tuple() {
            ElementType::F32
        } else {
            ety
        });
        // The element type of operand `k`.
        let op_types: Vec<ElementType> = inst
            .operands
            .iter()
            .map(|o| self.body.inst(*o).shape.element_type())
            .collect();
        let op_ty = |k: usize| op_types.get(k).copied();
        match &inst.kind {
            OpKind::Tuple => {
                let mut elems = Vec::new();
                for v in &ops {
                    match *v {
                        Val::One(i) => elems.push(i),
                        Val::Pair(re, im) => elems.extend([re, im]),
                    }
                }
                Ok(Val::One(self.tuple(&name, elems)))
            }
            OpKind::GetTupleElement { index } => {
                let t = self.body.inst(inst.operands[0]).shape.clone();
                let index = *index as usize;
                let offset: usize = t.tuple_shapes()[..index]
                    .iter()
                    .map(|s| lower_elems(s).len())
                    .sum();
                let elem = &t.tuple_shapes()[index];
                let tid = one(&ops[0]);
                if !elem.is_tuple() && elem.element_type().is_complex() {
                    Ok(Val::Pair(
                        self.gte(&name, tid, offset),
                        self.gte(&name, tid, offset + 1),
                    ))
                } else {
                    Ok(Val::One(self.gte(&name, tid, offset)))
                }
            }
            OpKind::While { .. } | OpKind::OptimizationBarrier => {
                let init = self.pack(&name, ops[0]);
                let id = self.push(
                    &name,
                    inst.kind.clone(),
                    vec![init],
                    lower_shape(&inst.shape),
                );
                Ok(self.unpack(&name, id, &inst.shape))
            }
            OpKind::Conditional { .. } => {
                let mut operands = vec![one(&ops[0])];
                for v in &ops[1..] {
                    operands.push(self.pack(&name, *v));
                }
                let id = self.push(&name, inst.kind.clone(), operands, lower_shape(&inst.shape));
                Ok(self.unpack(&name, id, &inst.shape))
            }
            OpKind::Reduce { .. } => {
                let mut operands = Vec::new();
                for v in &ops {
                    match *v {
                        Val::One(i) => operands.push(i),
                        Val::Pair(re, im) => operands.extend([re, im]),
                    }
                }
                let shape = lower_shape(&inst.shape);
                if !shape_has_complex(&inst.shape) {
                    // A real reduce whose reducer computes in complex.
                    return Ok(Val::One(self.push(
                        &name,
                        inst.kind.clone(),
                        operands,
                        shape,
                    )));
                }
                let id = self.push(&name, inst.kind.clone(), operands, shape);
                Ok(self.unpack(&name, id, &inst.shape))
            }
            OpKind::Constant { literal } => {
                let (re, im, pty): (ArrayData, ArrayData, ElementType) = match literal.array_data()
                {
                    Some(ArrayData::C64(v)) => (
                        ArrayData::F32(v.iter().map(|c| c.re).collect()),
                        ArrayData::F32(v.iter().map(|c| c.im).collect()),
                        ElementType::F32,
                    ),
                    Some(ArrayData::C128(v)) => (
                        ArrayData::F64(v.iter().map(|c| c.re).collect()),
                        ArrayData::F64(v.iter().map(|c| c.im).collect()),
                        ElementType::F64,
                    ),
                    _ => return Err(self.internal(inst, "a complex constant without values")),
                };
                let dims = inst.shape.dims();
                let shape = Shape::new(pty, dims);
                let re = Literal::from_array_data(dims, re)?;
                let im = Literal::from_array_data(dims, im)?;
                let re = self.push(
                    &name,
                    OpKind::Constant { literal: re },
                    vec![],
                    shape.clone(),
                );
                let im = self.push(&name, OpKind::Constant { literal: im }, vec![], shape);
                Ok(Val::Pair(re, im))
            }
            OpKind::Complex => Ok(Val::Pair(one(&ops[0]), one(&ops[1]))),
            OpKind::Real | OpKind::Imag => {
                let imag = inst.kind == OpKind::Imag;
                match ops[0] {
                    Val::Pair(re, im) => Ok(Val::One(if imag { im } else { re })),
                    Val::One(_) if imag => {
                        Ok(Val::One(self.float(&name, ety, 0.0, inst.shape.dims())?))
                    }
                    Val::One(x) => Ok(Val::One(x)),
                }
            }
            OpKind::Convert => {
                let from = op_ty(0).unwrap_or(ety);
                match ops[0] {
                    Val::Pair(re, im) if ety.is_complex() => Ok(Val::Pair(
                        self.convert(&name, re, pty),
                        self.convert(&name, im, pty),
                    )),
                    Val::Pair(re, im) if ety == ElementType::Pred => {
                        let dims = inst.shape.dims().to_vec();
                        let z = self.float(&name, part(from), 0.0, &dims)?;
                        let a = self.cmp(&name, ComparisonDirection::Ne, re, z);
                        let b = self.cmp(&name, ComparisonDirection::Ne, im, z);
                        Ok(Val::One(self.binary(&name, BinaryOp::Or, a, b)))
                    }
                    Val::Pair(re, _) => Ok(Val::One(self.convert(&name, re, ety))),
                    Val::One(x) => {
                        let re = self.real_to_part(&name, x, pty);
                        let im = self.float(&name, pty, 0.0, inst.shape.dims())?;
                        Ok(Val::Pair(re, im))
                    }
                }
            }
            OpKind::Unary(UnaryOp::Neg) => Ok(self.per_part(inst, &ops)),
            OpKind::Unary(UnaryOp::Sign) => {
                // z / |z|, and z itself (a signed zero) where |z| = 0.
                let ty = part(op_ty(0).unwrap_or(ety));
                let Val::Pair(re, im) = ops[0] else {
                    return Err(self.internal(inst, "the sign of a real value"));
                };
                let m = self.magnitude(inst, ty, ops[0])?;
                let zero = self.float(&name, ty, 0.0, inst.shape.dims())?;
                let is0 = self.cmp(&name, ComparisonDirection::Eq, m, zero);
                let qre = self.binary(&name, BinaryOp::Div, re, m);
                let qim = self.binary(&name, BinaryOp::Div, im, m);
                Ok(Val::Pair(
                    self.select(&name, is0, re, qre),
                    self.select(&name, is0, im, qim),
                ))
            }
            OpKind::Unary(UnaryOp::Sqrt) => self.sqrt(inst, ops[0]),
            OpKind::Unary(UnaryOp::Exp) => {
                // The interpreter's (StableHLO's) formula from the real
                // exp, cos and sin: not bit-exact (the JIT's real
                // functions are within an ulp of libm's), within the
                // bound of docs/jit-accuracy.md.
                let (Val::Pair(x, y), ElementType::F32) = (ops[0], pty) else {
                    return Err(
                        self.refusal(inst, "the JIT does not compile exponential of c128 yet")
                    );
                };
                let dims = inst.shape.dims().to_vec();
                let e = self.unary(&name, UnaryOp::Exp, x);
                let half = self.float(&name, pty, 0.5, &dims)?;
                let xh = self.binary(&name, BinaryOp::Mul, x, half);
                let h = self.unary(&name, UnaryOp::Exp, xh);
                let c = self.unary(&name, UnaryOp::Cos, y);
                let sn = self.unary(&name, UnaryOp::Sin, y);
                let inf = self.float(&name, pty, f64::INFINITY, &dims)?;
                let big = self.cmp(&name, ComparisonDirection::Eq, e, inf);
                let hc = self.binary(&name, BinaryOp::Mul, h, c);
                let hch = self.binary(&name, BinaryOp::Mul, hc, h);
                let ec = self.binary(&name, BinaryOp::Mul, e, c);
                let re = self.select(&name, big, hch, ec);
                let hs = self.binary(&name, BinaryOp::Mul, h, sn);
                let hsh = self.binary(&name, BinaryOp::Mul, hs, h);
                let es = self.binary(&name, BinaryOp::Mul, e, sn);
                let im = self.select(&name, big, hsh, es);
                let zero = self.float(&name, pty, 0.0, &dims)?;
                let y0 = self.cmp(&name, ComparisonDirection::Eq, y, zero);
                Ok(Val::Pair(re, self.select(&name, y0, zero, im)))
            }
            OpKind::DotGeneral { dims } if ety.is_complex() => {
                self.dot(inst, dims, pty, &op_types, &ops)
            }
            OpKind::Unary(UnaryOp::Abs) => {
                let ty = part(op_ty(0).unwrap_or(ety));
                Ok(Val::One(self.magnitude(inst, ty, ops[0])?))
            }
            OpKind::Binary {
                op: BinaryOp::Add | BinaryOp::Sub,
                ..
            } => Ok(self.per_part(inst, &ops)),
            OpKind::Binary {
                op: BinaryOp::Mul, ..
            } => self.mul(inst, pty, ops[0], ops[1]),
            OpKind::Binary {
                op: BinaryOp::Div, ..
            } => self.div(inst, pty, ops[0], ops[1]),
            OpKind::Binary {
                op: BinaryOp::Compare(dir, ComparisonOrder::Natural),
                ..
            } if matches!(dir, ComparisonDirection::Eq | ComparisonDirection::Ne) => {
                let (Val::Pair(a, b), Val::Pair(c, d)) = (ops[0], ops[1]) else {
                    return Err(self.internal(inst, "a complex comparison of a real value"));
                };
                let (join, re, im) = if *dir == ComparisonDirection::Eq {
                    (
                        BinaryOp::And,
                        self.cmp(&name, ComparisonDirection::Eq, a, c),
                        self.cmp(&name, ComparisonDirection::Eq, b, d),
                    )
                } else {
                    (
                        BinaryOp::Or,
                        self.cmp(&name, ComparisonDirection::Ne, a, c),
                        self.cmp(&name, ComparisonDirection::Ne, b, d),
                    )
                };
                Ok(Val::One(self.binary(&name, join, re, im)))
            }
            OpKind::Select
            | OpKind::Broadcast { .. }
            | OpKind::Reshape
            | OpKind::Bitcast
            | OpKind::Transpose { .. }
            | OpKind::Slice { .. }
            | OpKind::Concatenate { .. }
            | OpKind::Reverse { .. }
            | OpKind::Pad { .. }
            | OpKind::Gather { .. }
            | OpKind::DynamicSlice { .. }
            | OpKind::DynamicUpdateSlice
                if !inst.shape.is_tuple() && ety.is_complex() =>
            {
                Ok(self.per_part(inst, &ops))
            }
            // What the lowering does not cover (and the covered ops whose
            // guards above did not hold).
            OpKind::Parameter { .. }
            | OpKind::Iota { .. }
            | OpKind::Unary { .. }
            | OpKind::Binary { .. }
            | OpKind::Select
            | OpKind::Clamp
            | OpKind::Broadcast { .. }
            | OpKind::Reshape
            | OpKind::Transpose { .. }
            | OpKind::Slice { .. }
            | OpKind::Concatenate { .. }
            | OpKind::Reverse { .. }
            | OpKind::Pad { .. }
            | OpKind::DotGeneral { .. }
            | OpKind::BitcastConvert
            | OpKind::Bitcast
            | OpKind::ReducePrecision { .. }
            | OpKind::Rng { .. }
            | OpKind::RngBitGenerator { .. }
            | OpKind::Cholesky { .. }
            | OpKind::TriangularSolve { .. }
            | OpKind::BatchNormTraining { .. }
            | OpKind::BatchNormInference { .. }
            | OpKind::BatchNormGrad { .. }
            | OpKind::Map { .. }
            | OpKind::Convolution { .. }
            | OpKind::ReduceWindow { .. }
            | OpKind::SelectAndScatter { .. }
            | OpKind::Gather { .. }
            | OpKind::Scatter { .. }
            | OpKind::DynamicSlice { .. }
            | OpKind::DynamicUpdateSlice
            | OpKind::Fft { .. }
            | OpKind::Sort { .. }
            | OpKind::TopK { .. }
            | OpKind::CustomCall { .. }
            | OpKind::AfterAll
            | OpKind::AddDependency
            | OpKind::StochasticConvert
            | OpKind::RngGetAndUpdateState { .. }
            | OpKind::RaggedDot { .. } => Err(self.refusal(
                inst,
                "the JIT does not compile this op with complex values yet",
            )),
        }
    }

    /// `inst` applied to each part: operands that are pairs give their
    /// part, the others (indices, predicates) stay; the result has the
    /// part type.
    fn per_part(&mut self, inst: &Instruction, ops: &[Val]) -> Val {
        let pty = part(inst.shape.element_type());
        let shape = inst.shape.with_element_type(pty);
        let mut parts = [InstId(0); 2];
        for (k, p) in parts.iter_mut().enumerate() {
            let operands = ops
                .iter()
                .map(|v| match *v {
                    Val::One(i) => i,
                    Val::Pair(re, im) => [re, im][k],
                })
                .collect();
            let base = format!("{}.{}", inst.name, ["re", "im"][k]);
            *p = self.push(&base, inst.kind.clone(), operands, shape.clone());
        }
        Val::Pair(parts[0], parts[1])
    }

    /// Parameter `number` of shape `inst.shape` in this body's mode.
    fn parameter(&mut self, inst: &Instruction, number: i64, flat: &[i64]) -> Result<Val> {
        let shape = &inst.shape;
        let name = inst.name.clone();
        let complex_array = !shape.is_tuple() && shape.element_type().is_complex();
        match self.mode {
            Mode::Keep => Ok(Val::One(self.push_named(
                name,
                inst.kind.clone(),
                vec![],
                shape.clone(),
            ))),
            Mode::Entry if complex_array => {
                let pty = part(shape.element_type());
                let dims = shape.dims().to_vec();
                let rank = dims.len();
                let wide = [dims.as_slice(), &[2]].concat();
                let p = self.push_named(
                    name.clone(),
                    OpKind::Parameter { number },
                    vec![],
                    Shape::new(pty, &wide),
                );
                let mut parts = [InstId(0); 2];
                for (k, slot) in parts.iter_mut().enumerate() {
                    let mut starts = vec![0; rank + 1];
                    let mut limits = wide.clone();
                    starts[rank] = k as i64;
                    limits[rank] = k as i64 + 1;
                    let col = [dims.as_slice(), &[1]].concat();
                    let s = self.push(
                        &name,
                        OpKind::Slice {
                            starts,
                            limits,
                            strides: vec![1; rank + 1],
                        },
                        vec![p],
                        Shape::new(pty, &col),
                    );
                    *slot = self.push(&name, OpKind::Reshape, vec![s], Shape::new(pty, &dims));
                }
                Ok(Val::Pair(parts[0], parts[1]))
            }
            Mode::Entry if shape_has_complex(shape) => Err(self.refusal(
                inst,
                "the JIT does not compile a tuple parameter holding complex values yet",
            )),
            Mode::Entry => Ok(Val::One(self.push_named(
                name,
                inst.kind.clone(),
                vec![],
                shape.clone(),
            ))),
            Mode::Region => {
                let p =
                    self.push_named(name.clone(), inst.kind.clone(), vec![], lower_shape(shape));
                Ok(self.unpack(&name, p, shape))
            }
            Mode::Flat => {
                let first = usize::try_from(number)
                    .ok()
                    .and_then(|n| flat.get(n))
                    .copied()
                    .ok_or_else(|| self.internal(inst, "a parameter out of range"))?;
                if shape.is_tuple() {
                    return Err(self.refusal(
                        inst,
                        "the JIT does not compile a reducer with a tuple parameter holding \
                         complex values",
                    ));
                }
                if !complex_array {
                    return Ok(Val::One(self.push_named(
                        name,
                        OpKind::Parameter { number: first },
                        vec![],
                        shape.clone(),
                    )));
                }
                let pshape = shape.with_element_type(part(shape.element_type()));
                let re = self.push_named(
                    name.clone(),
                    OpKind::Parameter { number: first },
                    vec![],
                    pshape.clone(),
                );
                let im_name = self.fresh(&format!("{name}.im"));
                let im = self.push_named(
                    im_name,
                    OpKind::Parameter { number: first + 1 },
                    vec![],
                    pshape,
                );
                Ok(Val::Pair(re, im))
            }
        }
    }
}

/// `true` when some value of `body` is complex.
fn body_has_complex(body: &Body) -> bool {
    body.instructions
        .iter()
        .any(|i| shape_has_complex(&i.shape))
}
