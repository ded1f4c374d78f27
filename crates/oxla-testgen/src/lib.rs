//! # oxla-testgen: random programs for differential testing
//!
//! Generates random **valid** computations (random shapes of rank 0–5 with
//! sizes 0, 1 and larger; chains of every op and element type; random legal
//! `broadcast_dimensions`, compositions of InDim and degenerate broadcasting
//! included; reducer bodies that hold reduces and dots of their own, nested
//! up to two levels) together with argument values that include the edge cases
//! (NaN, ±inf, ±0, integer MIN/MAX, 0, -1), and random **invalid** binary
//! ops (wrong ranks, out-of-range, repeated or decreasing dims, mismatched
//! sizes, mixed element types).
//!
//! Everything is driven by a seeded [`Rng`], so a failure is reproduced from
//! its seed; [`Program::reproducer`] prints the program as HLO text with its
//! arguments.
//!
//! The generator is deliberately independent of shape inference: it decides
//! validity from its own model ([`model_broadcast`]), so that a test can
//! check the two against each other.
//!
//! ```
//! use oxla_testgen::{Rng, GenConfig, gen_program};
//! let mut rng = Rng::new(7);
//! let p = gen_program(&mut rng, &GenConfig::default()).unwrap();
//! let args: Vec<&oxla_ir::Literal> = p.args.iter().collect();
//! assert_eq!(args.len(), p.comp.parameter_shapes().len());
//! ```

mod ctrl;
mod indexing;

// Steps for the misc family (bitcasts, reduce-precision, rng, linear
// algebra, batch norm).
mod misc;

use oxla_ir::ir::{BinaryOp, ComparisonDirection, DotDimensionNumbers, PadDim, UnaryOp};

// The windows family: convolution, reduce-window, select-and-scatter.
mod windows;
use oxla_ir::{
    ArrayData, Builder, Computation, ElementType, Literal, Op, OpClass, OpKind, Result, Shape,
};
pub use windows::{gen_convolution, model_convolution, model_window};

// The sort family: sort and topk.
mod sorts;

/// A small, fast, seedable PRNG (xorshift64*). Not for cryptography.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (any value; 0 is remapped).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// `true` with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
    /// One element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// What the generator may produce.
#[derive(Debug, Clone)]
pub struct GenConfig {
    /// Highest rank of any array.
    pub max_rank: usize,
    /// Largest dimension size (sizes 0 and 1 are always possible).
    pub max_dim: i64,
    /// Ops added after the parameters.
    pub max_ops: usize,
    /// Element types the program may use.
    pub element_types: Vec<ElementType>,
    /// Whether transcendental float ops (exp, log, sin, ...) may appear.
    pub transcendentals: bool,
    /// Whether float sums whose order a backend may change (add-reduce,
    /// dot) may appear. Off for bit-exact differential testing. Folds
    /// inside reducer bodies are not such sums: the JIT runs them in the
    /// interpreter's order (docs/jit.md), so they appear either way.
    pub float_reassociation: bool,
    /// The chance that a generated `reduce` gets a reducer body with folds
    /// of its own (a `reduce` or `dot` inside it, see [`gen_program`])
    /// instead of `add`, `max` or `min`.
    pub nested_bodies: f64,
    /// Whether control flow and tuples may appear: counted `while` loops,
    /// both `conditional` forms, `map`, argmax-style variadic `reduce`,
    /// `opt-barrier` and `get-tuple-element`. Off by default (it changes
    /// which programs a seed gives); the differential test of exact
    /// programs turns it on.
    pub control_flow: bool,
    /// Whether `convolution`, `reduce-window` and `select-and-scatter` may
    /// appear (see the `windows` module). Off by default (it changes the
    /// mix of programs); the differential test's exact run turns it on.
    pub windows: bool,
    /// Whether the misc family's ops the JIT compiles (same-width
    /// `bitcast-convert`, `bitcast`, `reduce-precision`) may appear.
    pub misc_ops: bool,
    /// Whether the misc ops the JIT runs as expansions into primitives may
    /// appear: `rng-bit-generator`, width-changing `bitcast-convert`,
    /// `cholesky`, integer `ragged-dot`,
    /// uniform `rng`, `batch-norm-inference` (normal `rng` only with
    /// `transcendentals`, `batch-norm-training`/`-grad` and float
    /// `ragged-dot` only with `float_reassociation`,
    /// whose sums a backend may reorder). Off by default (it changes the
    /// mix of programs); the differential test's exact run turns it on.
    pub expanded_ops: bool,
    /// Whether the ops of [`GenConfig::expanded_ops`] and
    /// `stochastic-convert` and tokens may appear (their rounding kinds,
    /// normal `rng`, batch-norm training and grad, float `ragged-dot`,
    /// still only as `transcendentals` and `float_reassociation` say; off
    /// by default). The name is historical: the JIT refused these ops
    /// before issue 14.
    pub jit_unsupported_ops: bool,
    /// Whether `gather`, `scatter`, `dynamic-slice` and
    /// `dynamic-update-slice` may appear (see the `indexing` module); a
    /// scatter of two inputs (a tuple) only with `control_flow` too. Off
    /// by default (it changes the mix of programs); the differential
    /// test's exact run and the interpreter-only property run turn it on.
    pub indexing: bool,
    /// Whether `sort` and `topk` may appear (see the `sorts` module). Off
    /// by default, so that existing seeds keep their programs; the
    /// differential test's sort run and the property run turn it on.
    pub sorts: bool,
}

/// The element types before issue 13: [`GenConfig`]'s default (so that
/// existing seeds keep their programs). The rest (`bf16`, `f16`, float8,
/// `f4e2m1fn`, sub-byte integers, complex) are [`new_types`], added by
/// [`GenConfig::with_new_types`]; the JIT compiles all of them but the
/// complex types (the differential test's `narrow_type_programs_agree_
/// bit_for_bit` draws every real type).
pub const BASE_TYPES: [ElementType; 11] = [
    ElementType::Pred,
    ElementType::S8,
    ElementType::S16,
    ElementType::S32,
    ElementType::S64,
    ElementType::U8,
    ElementType::U16,
    ElementType::U32,
    ElementType::U64,
    ElementType::F32,
    ElementType::F64,
];

/// The element types of issue 13 (the JIT compiles the real ones).
pub fn new_types() -> Vec<ElementType> {
    ElementType::ALL
        .into_iter()
        .filter(|t| !BASE_TYPES.contains(t))
        .collect()
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            max_rank: 4,
            max_dim: 6,
            max_ops: 6,
            element_types: BASE_TYPES.to_vec(),
            transcendentals: true,
            float_reassociation: true,
            nested_bodies: 0.5,
            control_flow: false,
            windows: false,
            misc_ops: true,
            expanded_ops: false,
            jit_unsupported_ops: false,
            indexing: false,
            sorts: false,
        }
    }
}

impl GenConfig {
    /// This configuration with every element type (the JIT's and
    /// [`new_types`]): programs only the interpreter runs.
    pub fn with_new_types(mut self) -> GenConfig {
        self.element_types = ElementType::ALL.to_vec();
        self
    }

    /// Programs whose every op is exact, so two correct backends agree bit
    /// for bit: no transcendental ops, no float add-reductions or dots
    /// (but float sums inside reducer bodies, which fold in a fixed order).
    pub fn exact() -> GenConfig {
        GenConfig {
            transcendentals: false,
            float_reassociation: false,
            ..GenConfig::default()
        }
    }
}

/// A generated program with its arguments.
#[derive(Debug, Clone)]
pub struct Program {
    /// The computation (verified).
    pub comp: Computation,
    /// One argument per parameter.
    pub args: Vec<Literal>,
    /// The ops used, by HLO name, for coverage counts.
    pub ops: Vec<&'static str>,
}

impl Program {
    /// The program as HLO text followed by its arguments in literal
    /// notation: what a failing test prints.
    pub fn reproducer(&self) -> String {
        let mut s = self.comp.to_hlo_text();
        for (i, a) in self.args.iter().enumerate() {
            s.push_str(&format!("// argument {i}: {a}\n"));
        }
        s
    }
}

/// The broadcast rule as an independent model: the result dims of a binary
/// op, or `None` if XLA would refuse it. Written from the XLA text, not from
/// `shape_inference`.
pub fn model_broadcast(lhs: &[i64], rhs: &[i64], dims: &[i64]) -> Option<Vec<i64>> {
    let (small, large, small_is_lhs) = if lhs.len() <= rhs.len() {
        (lhs, rhs, true)
    } else {
        (rhs, lhs, false)
    };
    let _ = small_is_lhs;
    // Place the smaller operand in the larger's rank: unmapped dims are 1.
    let placed: Vec<i64> = if small.len() == large.len() {
        let identity: Vec<i64> = (0..small.len() as i64).collect();
        if !(dims.is_empty() || dims == identity.as_slice()) {
            return None;
        }
        small.to_vec()
    } else if small.is_empty() {
        if !dims.is_empty() {
            return None;
        }
        vec![1; large.len()]
    } else {
        if dims.len() != small.len() || dims.windows(2).any(|w| w[0] >= w[1]) {
            return None;
        }
        if dims.iter().any(|&d| d < 0 || d as usize >= large.len()) {
            return None;
        }
        let mut p = vec![1; large.len()];
        for (i, &d) in dims.iter().enumerate() {
            p[d as usize] = small[i];
        }
        p
    };
    placed
        .iter()
        .zip(large)
        .map(|(&a, &b)| match (a, b) {
            (1, b) => Some(b),
            (a, 1) => Some(a),
            (a, b) if a == b => Some(a),
            _ => None,
        })
        .collect()
}

fn random_dims(rng: &mut Rng, cfg: &GenConfig, rank: usize) -> Vec<i64> {
    (0..rank)
        .map(|_| match rng.below(10) {
            0 => 0,
            1 | 2 => 1,
            _ => 2 + rng.below(cfg.max_dim.max(2) as u64 - 1) as i64,
        })
        .collect()
}

/// Random values of `shape`, a quarter of them edge values.
pub fn random_literal(rng: &mut Rng, shape: &Shape) -> Result<Literal> {
    literal_with_edges(rng, shape, 0.25, 0.2)
}

/// `n` random values over the whole range of a sub-byte integer type.
fn sub_bytes<T: oxla_ir::SubByteInt + oxla_ir::NativeType>(rng: &mut Rng, n: usize) -> ArrayData {
    let values: Vec<T> = (0..n)
        .map(|_| T::wrapping_from(rng.below(256) as i64))
        .collect();
    T::into_data(values)
}

/// `f32` values rounded to a narrower float type.
fn narrow<T: oxla_ir::RealFloat>(values: Vec<f32>) -> ArrayData {
    T::into_data(values.into_iter().map(T::from_f32).collect())
}

/// Random values of `shape`: integers edge values with chance
/// `int_edges`, floats with chance `float_edges`, small values otherwise.
fn literal_with_edges(
    rng: &mut Rng,
    shape: &Shape,
    int_edges: f64,
    float_edges: f64,
) -> Result<Literal> {
    let n = shape.element_count() as usize;
    macro_rules! ints {
        ($t:ty) => {{
            let edge: [$t; 5] = [<$t>::MIN, <$t>::MAX, 0, 1, <$t>::MAX / 2];
            (0..n)
                .map(|_| {
                    if rng.chance(int_edges) {
                        rng.pick(&edge)
                    } else {
                        (rng.below(41) as i64 - 20) as $t
                    }
                })
                .collect::<Vec<$t>>()
        }};
    }
    macro_rules! floats {
        ($t:ty) => {{
            let edge: [$t; 9] = [
                <$t>::NAN,
                <$t>::INFINITY,
                <$t>::NEG_INFINITY,
                0.0,
                -0.0,
                <$t>::MIN_POSITIVE,
                <$t>::MAX,
                1.0,
                -1.0,
            ];
            (0..n)
                .map(|_| {
                    if rng.chance(float_edges) {
                        rng.pick(&edge)
                    } else {
                        ((rng.below(2001) as f64 - 1000.0) / 100.0) as $t
                    }
                })
                .collect::<Vec<$t>>()
        }};
    }
    let data: ArrayData = match shape.element_type() {
        ElementType::Pred => (0..n)
            .map(|_| rng.chance(0.5))
            .collect::<Vec<bool>>()
            .into(),
        ElementType::S8 => ints!(i8).into(),
        ElementType::S16 => ints!(i16).into(),
        ElementType::S32 => ints!(i32).into(),
        ElementType::S64 => ints!(i64).into(),
        ElementType::U8 => ints!(u8).into(),
        ElementType::U16 => ints!(u16).into(),
        ElementType::U32 => ints!(u32).into(),
        ElementType::U64 => ints!(u64).into(),
        ElementType::F32 => floats!(f32).into(),
        ElementType::F64 => floats!(f64).into(),
        ElementType::S1 => sub_bytes::<oxla_ir::Int1>(rng, n),
        ElementType::S2 => sub_bytes::<oxla_ir::Int2>(rng, n),
        ElementType::S4 => sub_bytes::<oxla_ir::Int4>(rng, n),
        ElementType::U1 => sub_bytes::<oxla_ir::Uint1>(rng, n),
        ElementType::U2 => sub_bytes::<oxla_ir::Uint2>(rng, n),
        ElementType::U4 => sub_bytes::<oxla_ir::Uint4>(rng, n),
        ElementType::F4E2M1FN => narrow::<oxla_ir::Float4E2M1FN>(floats!(f32)),
        ElementType::F8E3M4 => narrow::<oxla_ir::Float8E3M4>(floats!(f32)),
        ElementType::F8E4M3 => narrow::<oxla_ir::Float8E4M3>(floats!(f32)),
        ElementType::F8E4M3FN => narrow::<oxla_ir::Float8E4M3FN>(floats!(f32)),
        ElementType::F8E4M3FNUZ => narrow::<oxla_ir::Float8E4M3FNUZ>(floats!(f32)),
        ElementType::F8E4M3B11FNUZ => narrow::<oxla_ir::Float8E4M3B11FNUZ>(floats!(f32)),
        ElementType::F8E5M2 => narrow::<oxla_ir::Float8E5M2>(floats!(f32)),
        ElementType::F8E5M2FNUZ => narrow::<oxla_ir::Float8E5M2FNUZ>(floats!(f32)),
        ElementType::F8E8M0FNU => narrow::<oxla_ir::Float8E8M0FNU>(floats!(f32)),
        ElementType::Bf16 => narrow::<oxla_ir::bf16>(floats!(f32)),
        ElementType::F16 => narrow::<oxla_ir::f16>(floats!(f32)),
        ElementType::C64 => {
            let (re, im) = (floats!(f32), floats!(f32));
            let z = re
                .into_iter()
                .zip(im)
                .map(|(a, b)| oxla_ir::Complex64::new(a, b));
            z.collect::<Vec<_>>().into()
        }
        ElementType::C128 => {
            let (re, im) = (floats!(f64), floats!(f64));
            let z = re
                .into_iter()
                .zip(im)
                .map(|(a, b)| oxla_ir::Complex128::new(a, b));
            z.collect::<Vec<_>>().into()
        }
        ElementType::Tuple | ElementType::Token => {
            return Err(oxla_ir::Error::InvalidShape {
                shape: shape.to_string(),
                reason: "tuples have no random values".into(),
            });
        }
    };
    Literal::from_array_data(shape.dims(), data)
}

struct Gen<'a> {
    rng: &'a mut Rng,
    cfg: &'a GenConfig,
    b: Builder,
    params: Vec<Shape>,
    values: Vec<(Op, Shape)>,
    ops: Vec<&'static str>,
    /// What generated reducer bodies hold (`"reduce in a body"`, ...),
    /// apart from `ops`, whose length counts the steps.
    body_ops: Vec<&'static str>,
    /// Values the root must return: reduces with generated bodies, which
    /// a backend would otherwise be free to skip when nothing reads them.
    keep: Vec<Op>,
}

impl Gen<'_> {
    fn param(&mut self, shape: Shape) -> Result<Op> {
        let n = self.params.len();
        let op = self
            .b
            .parameter(n as i64, shape.clone(), &format!("p{n}"))?;
        self.params.push(shape.clone());
        self.values.push((op, shape));
        Ok(op)
    }

    /// An existing value of element type `ty`, or a new parameter.
    fn value_of_type(&mut self, ty: ElementType) -> Result<(Op, Shape)> {
        let candidates: Vec<usize> = (0..self.values.len())
            .filter(|&i| self.values[i].1.element_type() == ty)
            .collect();
        if !candidates.is_empty() && self.rng.chance(0.8) {
            let i = self.rng.pick(&candidates);
            return Ok(self.values[i].clone());
        }
        let rank = self.rng.below(self.cfg.max_rank as u64 + 1) as usize;
        let shape = Shape::new(ty, &random_dims(self.rng, self.cfg, rank));
        let op = self.param(shape.clone())?;
        Ok((op, shape))
    }

    /// A partner shape for `a` under a random broadcast pattern, and the
    /// `broadcast_dimensions` that goes with it (partner listed second).
    fn partner(&mut self, a: &Shape) -> (Vec<i64>, Vec<i64>) {
        let r = a.rank();
        match self.rng.below(5) {
            // Same dims.
            0 => (a.dims().to_vec(), vec![]),
            // Scalar.
            1 => (vec![], vec![]),
            // Degenerate: some dims become 1 (on either side).
            2 => {
                let max = self.cfg.max_dim.max(2) as u64;
                let dims = a
                    .dims()
                    .iter()
                    .map(|&d| match d {
                        // A 1 on this side lets the partner have any size.
                        1 if self.rng.chance(0.5) => 2 + self.rng.below(max - 1) as i64,
                        _ if self.rng.chance(0.4) => 1,
                        _ => d,
                    })
                    .collect();
                (dims, vec![])
            }
            // InDim, possibly composed with degenerate dims on both sides.
            _ if r > 0 => {
                let k = self.rng.below(r as u64) as usize; // lower rank k < r
                let mut chosen: Vec<i64> = (0..r as i64).collect();
                while chosen.len() > k {
                    let i = self.rng.below(chosen.len() as u64) as usize;
                    chosen.remove(i);
                }
                let max = self.cfg.max_dim.max(2) as u64;
                let dims = chosen
                    .iter()
                    .map(|&d| match a.dims()[d as usize] {
                        1 if self.rng.chance(0.5) => 2 + self.rng.below(max - 1) as i64,
                        _ if self.rng.chance(0.3) => 1,
                        n => n,
                    })
                    .collect();
                (dims, chosen)
            }
            _ => (vec![], vec![]),
        }
    }

    fn step(&mut self) -> Result<()> {
        let ty = self.rng.pick(&self.cfg.element_types);
        let (a, ashape) = self.value_of_type(ty)?;
        // The sort family, when enabled, takes its own draw (none is made
        // otherwise, so existing seeds give the same programs).
        if self.cfg.sorts && self.rng.chance(0.25) {
            return self.sort_step(a, &ashape);
        }
        // Control-flow steps (6 choices), the windows family (3) and the
        // indexing ops (4) are drawn only when enabled, so that programs
        // without them are the same as before for every seed; the misc
        // family's steps come last.
        let control = if self.cfg.control_flow { 6 } else { 0 };
        let windows = if self.cfg.windows { 3 } else { 0 };
        let indexing = if self.cfg.indexing { 4 } else { 0 };
        let choice = self
            .rng
            .below(18 + control + windows + indexing + self.misc_kinds());
        let (op, shape, name): (Op, Shape, &'static str) = match choice {
            0..=5 => {
                let candidates: Vec<BinaryOp> = BinaryOp::ALL
                    .iter()
                    .copied()
                    .filter(|&o| binary_accepts(o, ty, self.cfg.transcendentals))
                    .collect();
                if candidates.is_empty() {
                    return Ok(());
                }
                let bop = self.rng.pick(&candidates);
                let (pdims, bdims) = self.partner(&ashape);
                let pshape = Shape::new(ty, &pdims);
                let p = self.param(pshape.clone())?;
                let (l, r, ls, rs) = if self.rng.chance(0.5) {
                    (a, p, &ashape, &pshape)
                } else {
                    (p, a, &pshape, &ashape)
                };
                let Some(model) = model_broadcast(ls.dims(), rs.dims(), &bdims) else {
                    return Err(oxla_ir::Error::Internal {
                        stage: "generator".into(),
                        message: format!("produced an invalid pattern {ls} {rs} {bdims:?}"),
                    });
                };
                let op = self.b.binary(l, r, bop, &bdims)?;
                let rty = if bop.is_compare() {
                    ElementType::Pred
                } else {
                    ty
                };
                (op, Shape::new(rty, &model), bop.name())
            }
            6 | 7 => {
                let candidates: Vec<UnaryOp> = UnaryOp::ALL
                    .iter()
                    .copied()
                    .filter(|&o| unary_accepts(o, ty, self.cfg.transcendentals))
                    .collect();
                if candidates.is_empty() {
                    return Ok(());
                }
                let uop = self.rng.pick(&candidates);
                let op = self.b.unary(uop, a)?;
                let s = self.b.shape(op)?;
                (op, s, uop.name())
            }
            8 => {
                let to = self.rng.pick(&self.cfg.element_types);
                let op = self.b.convert(a, to)?;
                (op, ashape.with_element_type(to), "convert")
            }
            9 => {
                // select(compare(a, partner), a, other)
                let other = self.param(ashape.clone())?;
                let pred_shape = if self.rng.chance(0.2) {
                    Shape::scalar(ElementType::Pred)
                } else {
                    ashape.with_element_type(ElementType::Pred)
                };
                let p = self.param(pred_shape)?;
                let op = self.b.select(p, a, other)?;
                (op, ashape.clone(), "select")
            }
            10 => {
                // Complex numbers have no order to clamp by.
                if !oxla_ir::Opcode::Clamp.accepts(ty) {
                    return Ok(());
                }
                let lo = self.param(Shape::scalar(ty))?;
                let hi = self.param(Shape::scalar(ty))?;
                let op = self.b.clamp(lo, a, hi)?;
                (op, ashape.clone(), "clamp")
            }
            11 => {
                // broadcast_in_dim to a higher rank, stretching some 1s.
                let extra = self.rng.below(2) as usize + 1;
                if ashape.rank() + extra > self.cfg.max_rank + 1 {
                    return Ok(());
                }
                let out_rank = ashape.rank() + extra;
                let mut map: Vec<i64> = (0..out_rank as i64).collect();
                while map.len() > ashape.rank() {
                    let i = self.rng.below(map.len() as u64) as usize;
                    map.remove(i);
                }
                let mut out = random_dims(self.rng, self.cfg, out_rank);
                for (i, &d) in map.iter().enumerate() {
                    out[d as usize] = if ashape.dims()[i] == 1 && self.rng.chance(0.5) {
                        out[d as usize]
                    } else {
                        ashape.dims()[i]
                    };
                }
                let op = self.b.broadcast_in_dim(a, &out, &map)?;
                (op, Shape::new(ty, &out), "broadcast")
            }
            12 if ashape.rank() >= 2 => {
                let mut perm: Vec<i64> = (0..ashape.rank() as i64).collect();
                for i in (1..perm.len()).rev() {
                    let j = self.rng.below(i as u64 + 1) as usize;
                    perm.swap(i, j);
                }
                let op = self.b.transpose(a, &perm)?;
                let dims: Vec<i64> = perm.iter().map(|&p| ashape.dims()[p as usize]).collect();
                (op, Shape::new(ty, &dims), "transpose")
            }
            13 if ashape.rank() >= 1 => {
                let r = ashape.rank();
                let (mut st, mut li, mut sd) = (vec![], vec![], vec![]);
                for &n in ashape.dims() {
                    let s = self.rng.below(n as u64 + 1) as i64;
                    let l = s + self.rng.below((n - s) as u64 + 1) as i64;
                    st.push(s);
                    li.push(l);
                    sd.push(1 + self.rng.below(2) as i64);
                }
                let op = if self.rng.chance(0.5) {
                    self.b.slice(a, &st, &li, &sd)?
                } else {
                    let dims: Vec<i64> = (0..r as i64).filter(|_| self.rng.chance(0.5)).collect();
                    self.b.reverse(a, &dims)?
                };
                let s = self.b.shape(op)?;
                (op, s, "slice/reverse")
            }
            14 if ashape.rank() >= 1 => {
                let v = self.param(Shape::scalar(ty))?;
                let config: Vec<PadDim> = ashape
                    .dims()
                    .iter()
                    .map(|&n| PadDim {
                        lo: self.rng.below(3) as i64 - if n > 1 { 1 } else { 0 },
                        hi: self.rng.below(3) as i64,
                        interior: self.rng.below(2) as i64,
                    })
                    .collect();
                let op = self.b.pad(a, v, &config)?;
                let s = self.b.shape(op)?;
                (op, s, "pad")
            }
            15 if ashape.rank() >= 1 && !ty.is_pred() => {
                let dims: Vec<i64> = (0..ashape.rank() as i64)
                    .filter(|_| self.rng.chance(0.5))
                    .collect();
                let kind = if ty.is_float() && !self.cfg.float_reassociation {
                    1 + self.rng.below(2) // max or min: exact in any order
                } else {
                    self.rng.below(3)
                };
                // A reduce of an empty operand never runs its body.
                let nested = ashape.element_count() > 0 && self.rng.chance(self.cfg.nested_bodies);
                let reducer = if nested {
                    // The interpreter runs the body once per element.
                    let n = ashape.element_count().max(1);
                    let budget = (BODY_WORK / n).clamp(16, 4_000);
                    body_with_folds(self.rng, self.cfg, ty, budget, 1, &mut self.body_ops)?
                } else {
                    reducer(ty, kind)?
                };
                let init = self.param(Shape::scalar(ty))?;
                let op = self.b.reduce(a, init, &dims, &reducer)?;
                if nested {
                    self.keep.push(op);
                }
                let s = self.b.shape(op)?;
                (op, s, "reduce")
            }
            16 | 17 if ashape.rank() == 2 && (!ty.is_float() || self.cfg.float_reassociation) => {
                let n = 1 + self.rng.below(self.cfg.max_dim as u64) as i64;
                let rhs = self.param(Shape::new(ty, &[ashape.dims()[1], n]))?;
                let dims = DotDimensionNumbers {
                    lhs_contracting: vec![1],
                    rhs_contracting: vec![0],
                    ..Default::default()
                };
                // Half the integer dots (and every `pred` one) sum in a
                // wider result type, the operands converted up
                // (`s8 x s8 -> s32`, `pred x pred -> s32`); half the
                // narrow float dots give `f32` (`bf16 x bf16 -> f32`), the
                // others round their `f32` sum to the narrow type.
                let wide = if ty.is_pred() {
                    Some(ElementType::S32)
                } else if ty.is_narrow_float() && self.rng.below(2) == 0 {
                    Some(ElementType::F32)
                } else if ty.is_integer() && ty.bit_width() < 32 && self.rng.below(2) == 0 {
                    Some(if ty.is_signed_integer() {
                        ElementType::S32
                    } else {
                        ElementType::U32
                    })
                } else {
                    None
                };
                let out_ty = wide.unwrap_or(ty);
                let op = match wide {
                    Some(w) => self.b.dot_general_with_type(a, rhs, &dims, w)?,
                    None => self.b.dot_general(a, rhs, &dims)?,
                };
                (op, Shape::new(out_ty, &[ashape.dims()[0], n]), "dot")
            }
            c if c >= 18 && c < 18 + control => match self.control_step(a, &ashape)? {
                Some(step) => step,
                None => return Ok(()),
            },
            c if c >= 18 + control && c < 18 + control + windows => {
                match self.window_step(a, &ashape)? {
                    Some(step) => step,
                    None => return Ok(()),
                }
            }
            // The misc family (`misc.rs`).
            c if c >= 18 + control + windows + indexing => {
                match self.misc_step(c - 18 - control - windows - indexing, a, &ashape)? {
                    Some(made) => made,
                    None => return Ok(()),
                }
            }
            c if c >= 18 + control + windows => match self.indexing_step(a, &ashape)? {
                Some(step) => step,
                None => return Ok(()),
            },
            _ => return Ok(()),
        };
        let got = self.b.shape(op)?;
        if got != shape {
            return Err(oxla_ir::Error::Internal {
                stage: "generator".into(),
                message: format!(
                    "{name}: builder inferred {got}, the generator's model says {shape}"
                ),
            });
        }
        self.ops.push(name);
        self.values.push((op, shape));
        Ok(())
    }
}

/// Which unary ops the generator may apply to `ty`: what the op table
/// accepts, without the transcendentals unless `transcendentals` (their
/// results are compared within an ulp bound, not bit for bit).
pub fn unary_accepts(op: UnaryOp, ty: ElementType, transcendentals: bool) -> bool {
    // `rsqrt` of a complex value computes a cosine and a sine: a
    // transcendental there (within ulps on the JIT, not exact).
    let complex_rsqrt = ty.is_complex() && op == UnaryOp::Rsqrt;
    op.accepts(ty) && (transcendentals || (op.class() != OpClass::Transcendental && !complex_rsqrt))
}

/// Which binary ops the generator may apply to `ty`, as for
/// [`unary_accepts`]; `power` on integers is exact, so it stays in.
pub fn binary_accepts(op: BinaryOp, ty: ElementType, transcendentals: bool) -> bool {
    // Complex numbers compare EQ and NE only (shape inference says so).
    let ordered_complex = ty.is_complex()
        && matches!(
            op,
            BinaryOp::Compare(ComparisonDirection::Lt | ComparisonDirection::Le, _)
                | BinaryOp::Compare(ComparisonDirection::Gt | ComparisonDirection::Ge, _)
        );
    op.accepts(ty)
        && !ordered_complex
        && (transcendentals || op.class() != OpClass::Transcendental || !ty.is_float())
}

/// A reducer `(T[], T[]) -> T[]`: add (0), max (1) or min (2); always
/// add for complex `T`.
pub fn reducer(ty: ElementType, kind: u64) -> Result<Computation> {
    // Complex numbers have no max or min: they always add.
    let kind = if ty.is_complex() { 0 } else { kind };
    let mut r = Builder::new(["add", "max", "min"][kind.min(2) as usize]);
    let a = r.parameter(0, Shape::scalar(ty), "a")?;
    let c = r.parameter(1, Shape::scalar(ty), "c")?;
    let y = match kind {
        0 => r.add(a, c, &[])?,
        1 => r.max(a, c, &[])?,
        _ => r.min(a, c, &[])?,
    };
    r.build(y)
}

/// Element steps the interpreter may spend in the reducer bodies of one
/// generated `reduce` (the body's budget is this over the number of
/// elements reduced), so that a program with folds in its reducer stays
/// about as fast to evaluate as one without.
const BODY_WORK: i64 = 60_000;

/// How deep generated reducer bodies nest: a body's fold may use a body
/// with folds of its own, whose folds use one-op reducers.
const MAX_BODY_DEPTH: usize = 2;

/// The largest extent of an array inside a generated body.
const MAX_BODY_EXTENT: i64 = 8;

/// A reducer body `(acc, x) -> T[]` with folds of its own, at nesting
/// level `depth` (1 for the reducer of a reduce of the entry), spending
/// about `budget` element steps per call. `ops` collects what it holds.
///
/// The body computes one to three *folds*, each a scalar, and combines
/// them with its parameters by elementwise ops:
///
/// - a reduce of a small array (extents up to 8) made of a broadcast of a
///   scalar of the body, an iota or a constant, possibly combined with a
///   second such array and passed through a unary op; reduced in one step
///   or in two (the second reading the first along its own dimensions);
///   sometimes in another element type (converted there and back); with
///   `add`, `max`, `min`, another one-op reducer (`acc - x`, `acc * x`,
///   ...), or (up to [`MAX_BODY_DEPTH`]) a generated body of its own;
/// - a rank-0 dot of two scalars of the body;
/// - a dot of two vectors built like the reduce's arrays;
/// - a matrix dot, plain, batched, or contracting two dimensions listed
///   out of order, reduced to a scalar;
/// - when the budget allows, a reduce of a constant of a few hundred
///   elements (scaled by a scalar of the body).
///
/// Every shape is the generator's own (reduce drops the reduced dims, a
/// dot lists batch, lhs free, rhs free dims; elementwise ops go through
/// [`model_broadcast`]) and is checked against the builder's.
fn body_with_folds(
    rng: &mut Rng,
    cfg: &GenConfig,
    ty: ElementType,
    budget: i64,
    depth: usize,
    ops: &mut Vec<&'static str>,
) -> Result<Computation> {
    let mut r = Builder::new(&format!("folds{depth}"));
    let a = r.parameter(0, Shape::scalar(ty), "acc")?;
    let x = r.parameter(1, Shape::scalar(ty), "x")?;
    let mut g = BodyGen {
        rng,
        cfg,
        r,
        ty,
        scalars: vec![a, x],
        budget,
        depth,
        ops,
    };
    if depth > 1 {
        g.ops.push("body in a body");
    }
    let n = 1 + g.rng.below(if depth == 1 { 3 } else { 2 });
    let mut folds = Vec::new();
    for _ in 0..n {
        let y = g.fold()?;
        g.scalars.push(y);
        folds.push(y);
    }
    let mut y = folds[0];
    let mut rest = folds[1..].to_vec();
    for p in [a, x] {
        if g.rng.chance(0.5) {
            rest.push(p);
        }
    }
    for v in rest {
        let (l, r) = if g.rng.chance(0.5) { (y, v) } else { (v, y) };
        y = g.elementwise(ty, l, r)?;
    }
    g.r.build(y)
}

/// The state of [`body_with_folds`].
struct BodyGen<'a> {
    rng: &'a mut Rng,
    cfg: &'a GenConfig,
    r: Builder,
    /// The body's element type.
    ty: ElementType,
    /// Scalars of `ty` computed so far, the parameters first.
    scalars: Vec<Op>,
    /// Element steps one call may still spend (it may run a little over).
    budget: i64,
    depth: usize,
    ops: &'a mut Vec<&'static str>,
}

impl BodyGen<'_> {
    /// `op` if the builder agrees with the generator's `dims` and `ty`.
    fn expect(&self, op: Op, ty: ElementType, dims: &[i64], what: &str) -> Result<Op> {
        let want = Shape::new(ty, dims);
        let got = self.r.shape(op)?;
        if got != want {
            return Err(oxla_ir::Error::Internal {
                stage: "generator".into(),
                message: format!(
                    "{what} in a reducer body: builder inferred {got}, the generator's model says {want}"
                ),
            });
        }
        Ok(op)
    }

    /// The largest element count an array may have now.
    fn cap(&self) -> i64 {
        (self.budget / 4).clamp(1, 64)
    }

    /// `rank` extents of at most [`MAX_BODY_EXTENT`] (0 and 1 included)
    /// whose product is at most `cap`.
    fn extents(&mut self, rank: usize, cap: i64) -> Vec<i64> {
        let mut dims: Vec<i64> = (0..rank)
            .map(|_| match self.rng.below(16) {
                0 => 0,
                1 | 2 => 1,
                _ => 2 + self.rng.below(MAX_BODY_EXTENT as u64 - 1) as i64,
            })
            .collect();
        while dims.iter().product::<i64>() > cap {
            let i = (0..rank).max_by_key(|&i| dims[i]).unwrap_or(0);
            dims[i] /= 2;
        }
        dims
    }

    fn scalar(&mut self) -> Op {
        self.rng.pick(&self.scalars)
    }

    /// A scalar of `ty` to start a fold from: one of the body's, or a
    /// constant.
    fn init(&mut self, ty: ElementType) -> Result<Op> {
        if ty == self.ty && self.rng.chance(0.7) {
            return Ok(self.scalar());
        }
        let c = random_literal(self.rng, &Shape::scalar(ty))?;
        self.r.constant(c)
    }

    /// A scalar of `ty`: one of the body's, converted if need be.
    fn source(&mut self, ty: ElementType) -> Result<Op> {
        let s = self.scalar();
        if ty == self.ty {
            return Ok(s);
        }
        let c = self.r.convert(s, ty)?;
        self.expect(c, ty, &[], "convert")
    }

    /// An array of `dims`: a broadcast of a scalar of the body, an iota,
    /// or a constant; sometimes combined with a second one and passed
    /// through a unary op.
    fn array(&mut self, ty: ElementType, dims: &[i64]) -> Result<Op> {
        let mut t = self.leaf(ty, dims)?;
        if self.rng.chance(0.4) {
            let u = self.leaf(ty, dims)?;
            t = self.elementwise(ty, t, u)?;
        }
        if self.rng.chance(0.2) {
            let candidates: Vec<UnaryOp> = UnaryOp::ALL
                .iter()
                .copied()
                .filter(|&o| {
                    // `abs` of a complex value is real: not this type.
                    o != UnaryOp::IsFinite
                        && !(ty.is_complex() && o == UnaryOp::Abs)
                        && unary_accepts(o, ty, self.cfg.transcendentals)
                })
                .collect();
            if !candidates.is_empty() {
                let op = self.rng.pick(&candidates);
                let u = self.r.unary(op, t)?;
                t = self.expect(u, ty, dims, op.name())?;
            }
        }
        Ok(t)
    }

    fn leaf(&mut self, ty: ElementType, dims: &[i64]) -> Result<Op> {
        let shape = Shape::new(ty, dims);
        let op = match self.rng.below(6) {
            0..=2 => {
                let s = self.source(ty)?;
                self.r.broadcast(s, dims)?
            }
            3 | 4 if !dims.is_empty() && oxla_ir::Opcode::Iota.accepts(ty) => {
                let d = self.rng.below(dims.len() as u64) as i64;
                self.r.iota(shape, d)?
            }
            _ => {
                let c = literal_with_edges(self.rng, &shape, 0.05, 0.05)?;
                self.r.constant(c)?
            }
        };
        self.expect(op, ty, dims, "an array")
    }

    /// `op(l, r)` for a random op of `ty` other than a comparison (mostly
    /// `add`, `subtract`, `multiply`, `maximum`, `minimum`); `l` and `r`
    /// are scalars or arrays of one shape.
    fn elementwise(&mut self, ty: ElementType, l: Op, r: Op) -> Result<Op> {
        let op = self.binary_op(ty);
        let (ls, rs) = (self.r.shape(l)?, self.r.shape(r)?);
        let Some(model) = model_broadcast(ls.dims(), rs.dims(), &[]) else {
            return Err(oxla_ir::Error::Internal {
                stage: "generator".into(),
                message: format!("combined {ls} and {rs} in a reducer body"),
            });
        };
        let y = self.r.binary(l, r, op, &[])?;
        self.expect(y, ty, &model, op.name())
    }

    fn binary_op(&mut self, ty: ElementType) -> BinaryOp {
        let common = [
            BinaryOp::Add,
            BinaryOp::Sub,
            BinaryOp::Mul,
            BinaryOp::Max,
            BinaryOp::Min,
        ];
        if self.rng.chance(0.8) {
            let op = self.rng.pick(&common);
            // Complex numbers have no max or min.
            return if op.accepts(ty) { op } else { BinaryOp::Add };
        }
        let candidates: Vec<BinaryOp> = BinaryOp::ALL
            .iter()
            .copied()
            .filter(|&o| !o.is_compare() && binary_accepts(o, ty, self.cfg.transcendentals))
            .collect();
        self.rng.pick(&candidates)
    }

    /// The reducer of a fold of `steps` elements: `add`, `max` or `min`,
    /// another one-op reducer, or a generated body with folds of its own.
    fn reducer(&mut self, ty: ElementType, steps: i64) -> Result<Computation> {
        let inner = self.budget / steps.max(1);
        if self.depth < MAX_BODY_DEPTH && inner >= 16 && self.rng.chance(0.2) {
            self.budget -= steps * inner;
            return body_with_folds(self.rng, self.cfg, ty, inner, self.depth + 1, self.ops);
        }
        if self.rng.chance(0.7) {
            return reducer(ty, self.rng.below(3));
        }
        let op = self.binary_op(ty);
        let mut r = Builder::new(op.name());
        let a = r.parameter(0, Shape::scalar(ty), "a")?;
        let c = r.parameter(1, Shape::scalar(ty), "c")?;
        let y = r.binary(a, c, op, &[])?;
        r.build(y)
    }

    /// One fold: a scalar of the body's type.
    fn fold(&mut self) -> Result<Op> {
        let ty = self.ty;
        match self.rng.below(10) {
            0..=3 => {
                let others: Vec<ElementType> = self
                    .cfg
                    .element_types
                    .iter()
                    .copied()
                    .filter(|&t| t != ty && !t.is_pred())
                    .collect();
                if !others.is_empty() && self.rng.chance(0.15) {
                    let other = self.rng.pick(&others);
                    let y = self.reduce_fold(other)?;
                    let c = self.r.convert(y, ty)?;
                    self.expect(c, ty, &[], "convert")
                } else {
                    self.reduce_fold(ty)
                }
            }
            4 => {
                let (p, q) = (self.scalar(), self.scalar());
                let d = self.r.dot_general(p, q, &DotDimensionNumbers::default())?;
                self.ops.push("dot in a body");
                self.expect(d, ty, &[], "a rank-0 dot")
            }
            5 | 6 => {
                let cap = self.cap();
                let k = self.extents(1, cap);
                let u = self.array(ty, &k)?;
                let v = self.array(ty, &k)?;
                self.budget -= 4 * k[0];
                let dims = DotDimensionNumbers {
                    lhs_contracting: vec![0],
                    rhs_contracting: vec![0],
                    ..Default::default()
                };
                let d = self.r.dot_general(u, v, &dims)?;
                self.ops.push("dot in a body");
                self.expect(d, ty, &[], "a vector dot")
            }
            7 | 8 => self.matrix_dot(),
            _ if self.budget >= 1_000 => self.constant_fold(),
            _ => self.reduce_fold(ty),
        }
    }

    /// A reduce of an array of `ty` to a scalar, in one step or two.
    fn reduce_fold(&mut self, ty: ElementType) -> Result<Op> {
        let rank = 1 + self.rng.below(3) as usize;
        let cap = self.cap();
        let mut dims = self.extents(rank, cap);
        let mut t = self.array(ty, &dims)?;
        self.budget -= 4 * dims.iter().product::<i64>();
        if rank >= 2 && self.rng.chance(0.3) {
            // A first reduce over some of the dims; the second reads it
            // along the rest.
            let mut first: Vec<i64> = (0..rank as i64).filter(|_| self.rng.chance(0.5)).collect();
            if first.is_empty() || first.len() == rank {
                first = vec![self.rng.below(rank as u64) as i64];
            }
            let steps: i64 = first.iter().map(|&d| dims[d as usize]).product();
            let kept: Vec<i64> = (0..rank)
                .filter(|&d| !first.contains(&(d as i64)))
                .map(|d| dims[d])
                .collect();
            let init = self.init(ty)?;
            let red = self.reducer(ty, steps)?;
            let s = self.r.reduce(t, init, &first, &red)?;
            self.ops.push("reduce in a body");
            t = self.expect(s, ty, &kept, "a partial reduce")?;
            if self.rng.chance(0.5) {
                let u = self.leaf(ty, &kept)?;
                t = self.elementwise(ty, t, u)?;
            }
            dims = kept;
        }
        self.reduce_all(ty, t, &dims)
    }

    /// A reduce of `t` (of `dims`) over every dimension.
    fn reduce_all(&mut self, ty: ElementType, t: Op, dims: &[i64]) -> Result<Op> {
        let all: Vec<i64> = (0..dims.len() as i64).collect();
        let init = self.init(ty)?;
        let red = self.reducer(ty, dims.iter().product())?;
        let y = self.r.reduce(t, init, &all, &red)?;
        self.ops.push("reduce in a body");
        self.expect(y, ty, &[], "a reduce")
    }

    /// A matrix dot of small arrays, reduced to a scalar.
    fn matrix_dot(&mut self) -> Result<Op> {
        let ty = self.ty;
        let cap = self.cap().min(32);
        let e = self.extents(4, cap);
        let (m, k, n, w) = (e[0], e[1], e[2], e[3]);
        let (lhs, rhs, dims, out) = match self.rng.below(3) {
            // [m,k] x [k,n] -> [m,n]
            0 => (
                vec![m, k],
                vec![k, n],
                DotDimensionNumbers {
                    lhs_contracting: vec![1],
                    rhs_contracting: vec![0],
                    ..Default::default()
                },
                vec![m, n],
            ),
            // [w,m,k] x [w,k,n] -> [w,m,n]
            1 => (
                vec![w, m, k],
                vec![w, k, n],
                DotDimensionNumbers {
                    lhs_batch: vec![0],
                    rhs_batch: vec![0],
                    lhs_contracting: vec![2],
                    rhs_contracting: vec![1],
                },
                vec![w, m, n],
            ),
            // [m,k,w] x [w,k,n] -> [m,n], contracting (w, k): listed out
            // of the lhs's order.
            _ => (
                vec![m, k, w],
                vec![w, k, n],
                DotDimensionNumbers {
                    lhs_contracting: vec![2, 1],
                    rhs_contracting: vec![0, 1],
                    ..Default::default()
                },
                vec![m, n],
            ),
        };
        let l = self.array(ty, &lhs)?;
        let r = self.array(ty, &rhs)?;
        self.budget -= 2
            * (e.iter().product::<i64>()
                + lhs.iter().product::<i64>()
                + rhs.iter().product::<i64>());
        let d = self.r.dot_general(l, r, &dims)?;
        self.ops.push("dot in a body");
        let d = self.expect(d, ty, &out, "a matrix dot")?;
        self.reduce_all(ty, d, &out)
    }

    /// A reduce of a constant of a few hundred elements, sometimes scaled
    /// by a scalar of the body.
    fn constant_fold(&mut self) -> Result<Op> {
        let ty = self.ty;
        let n = 100 + self.rng.below(301) as i64;
        let dims = if self.rng.chance(0.5) {
            vec![n]
        } else {
            let rows = 2 + self.rng.below(19) as i64;
            vec![rows, n / rows]
        };
        let shape = Shape::new(ty, &dims);
        let c = literal_with_edges(self.rng, &shape, 0.01, 0.01)?;
        let mut t = self.r.constant(c)?;
        if self.rng.chance(0.5) {
            let s = self.scalar();
            t = self.elementwise(ty, t, s)?;
        }
        self.budget -= 2 * dims.iter().product::<i64>();
        let all: Vec<i64> = (0..dims.len() as i64).collect();
        let init = self.init(ty)?;
        let red = reducer(ty, self.rng.below(3))?;
        let y = self.r.reduce(t, init, &all, &red)?;
        self.ops.push("reduce in a body");
        self.expect(y, ty, &[], "a reduce of a constant")
    }
}

/// How deep reducer bodies with folds of their own nest in what `comp`
/// computes: 0 when no called body holds a `reduce` or `dot`, 1 when some
/// does, 2 when such a body's fold uses a reducer that holds one too, and
/// so on. Only what runs counts: instructions the root depends on (a
/// backend may skip the others), and the reducer of a reduce whose operand
/// is not empty. Read from the IR, not from the generator's bookkeeping,
/// so that tests count what was built.
///
/// ```
/// use oxla_testgen::{GenConfig, Rng, body_nesting, gen_program};
/// let cfg = GenConfig { nested_bodies: 1.0, ..GenConfig::exact() };
/// let deepest = (0..300)
///     .map(|seed| body_nesting(&gen_program(&mut Rng::new(seed), &cfg).unwrap().comp))
///     .max();
/// assert_eq!(deepest, Some(2));
/// ```
pub fn body_nesting(comp: &Computation) -> usize {
    // The nesting under each live instruction of `body`, from the depths
    // of the bodies before it (called bodies come before their callers).
    fn deepest(body: &oxla_ir::Body, depth: &[usize]) -> Option<usize> {
        let mut live = vec![false; body.instructions.len()];
        live[body.root.index()] = true;
        let mut deepest = None;
        for (i, inst) in body.instructions.iter().enumerate().rev() {
            if !live[i] {
                continue;
            }
            for o in &inst.operands {
                live[o.index()] = true;
            }
            let here = if let OpKind::Reduce { to_apply, .. } = &inst.kind {
                let runs = (inst.operands.first())
                    .is_some_and(|&x| body.inst(x).shape.element_count() > 0);
                Some(if runs { depth[to_apply.index()] } else { 0 })
            } else if let OpKind::DotGeneral { .. } = &inst.kind {
                Some(0)
            } else {
                None
            };
            deepest = deepest.max(here);
        }
        deepest
    }
    let bodies = comp.bodies();
    let mut depth = vec![0; bodies.len()];
    for (i, body) in bodies.iter().enumerate() {
        // A body with a fold nests one deeper than the folds' reducers.
        depth[i] = deepest(body, &depth).map_or(0, |d| d + 1);
    }
    // The entry's reduces and dots have buffers: only its callees count.
    deepest(comp.entry(), &depth).unwrap_or(0)
}

/// One random valid program with random arguments. A reduce gets a
/// reducer body with reduces and dots of its own with chance
/// [`GenConfig::nested_bodies`] (folds of small broadcasts, iotas and
/// constants, rank-0, vector and matrix dots, nested up to two levels);
/// the root returns every such reduce, so that a backend runs its body.
/// An `Err` means the
/// builder refused something the generator's model thinks valid (or
/// inferred another shape): a bug in one of them.
pub fn gen_program(rng: &mut Rng, cfg: &GenConfig) -> Result<Program> {
    let mut g = Gen {
        rng,
        cfg,
        b: Builder::new("generated"),
        params: Vec::new(),
        values: Vec::new(),
        ops: Vec::new(),
        body_ops: Vec::new(),
        keep: Vec::new(),
    };
    let nops = 1 + g.rng.below(cfg.max_ops.max(1) as u64) as usize;
    for _ in 0..nops * 3 {
        if g.ops.len() >= nops {
            break;
        }
        g.step()?;
    }
    if g.values.is_empty() {
        let ty = g.rng.pick(&cfg.element_types);
        g.value_of_type(ty)?;
    }
    // The root: the last value, or a tuple of the last two; with the
    // reduces whose bodies were generated added to the tuple.
    let (last, _) = g.values[g.values.len() - 1].clone();
    let mut results = if g.values.len() >= 2 && g.rng.chance(0.2) {
        let (prev, _) = g.values[g.values.len() - 2].clone();
        vec![prev, last]
    } else {
        vec![last]
    };
    for &k in &g.keep {
        if !results.contains(&k) {
            results.push(k);
        }
    }
    let root = match results[..] {
        [one] => one,
        _ => g.b.tuple(&results)?,
    };
    let comp = g.b.build(root)?;
    let shapes = g.params.clone();
    let args = shapes
        .iter()
        .map(|s| random_literal(g.rng, s))
        .collect::<Result<Vec<_>>>()?;
    let mut ops = g.ops;
    ops.extend(g.body_ops);
    Ok(Program { comp, args, ops })
}

/// A random binary-op setup that XLA's rules refuse, by construction, with
/// a label of what is wrong: `(label, lhs, rhs, broadcast_dimensions)`.
pub fn gen_invalid_binary(
    rng: &mut Rng,
    cfg: &GenConfig,
) -> (&'static str, Shape, Shape, Vec<i64>) {
    let ty = rng.pick(&[ElementType::F32, ElementType::S32, ElementType::U8]);
    loop {
        let rank = 1 + rng.below(cfg.max_rank as u64) as usize;
        let large: Vec<i64> = (0..rank)
            .map(|_| 2 + rng.below(cfg.max_dim.max(3) as u64 - 1) as i64)
            .collect();
        let k = rng.below(rank as u64) as usize; // smaller rank
        let mut map: Vec<i64> = (0..rank as i64).collect();
        while map.len() > k {
            let i = rng.below(map.len() as u64) as usize;
            map.remove(i);
        }
        let small: Vec<i64> = map.iter().map(|&d| large[d as usize]).collect();
        let (label, small, map, other_ty) = match rng.below(7) {
            0 if k >= 1 => ("no mapping for a lower rank", small, vec![], ty),
            1 if k >= 1 => (
                "out-of-range dimension",
                small,
                {
                    let mut m = map.clone();
                    m[k - 1] = rank as i64 + rng.below(3) as i64;
                    m
                },
                ty,
            ),
            2 if k >= 1 => (
                "negative dimension",
                small,
                {
                    let mut m = map.clone();
                    m[0] = -1 - rng.below(3) as i64;
                    m
                },
                ty,
            ),
            3 if k >= 2 => (
                "decreasing or repeated dims",
                small,
                {
                    let mut m = map.clone();
                    m.swap(0, 1);
                    if rng.chance(0.5) {
                        m[1] = m[0];
                    }
                    m
                },
                ty,
            ),
            4 if k >= 1 => (
                "mismatched size",
                {
                    let mut s = small.clone();
                    let i = rng.below(k as u64) as usize;
                    s[i] = large[map[i] as usize] + 1 + rng.below(3) as i64;
                    s
                },
                map,
                ty,
            ),
            5 => (
                "mixed element types",
                small,
                map,
                if ty == ElementType::F32 {
                    ElementType::S32
                } else {
                    ElementType::F32
                },
            ),
            6 if k >= 1 => (
                "wrong mapping length",
                small,
                {
                    let mut m = map.clone();
                    m.push(rank as i64 - 1);
                    m
                },
                ty,
            ),
            _ => continue,
        };
        let lhs = Shape::new(ty, &large);
        let rhs = Shape::new(other_ty, &small);
        // A few mutations can land on a valid pattern by chance (e.g. a
        // "mismatch" against a dimension of size 1): the model decides.
        if other_ty == ty && model_broadcast(&large, rhs.dims(), &map).is_some() {
            continue;
        }
        return if rng.chance(0.5) {
            (label, lhs, rhs, map)
        } else {
            (label, rhs, lhs, map)
        };
    }
}

/// The comparison directions, for tests that sweep them.
pub const DIRECTIONS: [ComparisonDirection; 6] = [
    ComparisonDirection::Eq,
    ComparisonDirection::Ne,
    ComparisonDirection::Lt,
    ComparisonDirection::Le,
    ComparisonDirection::Gt,
    ComparisonDirection::Ge,
];
