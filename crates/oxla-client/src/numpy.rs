//! NumPy / Array API broadcasting, lowered to the strict IR.
//!
//! The [Array API rule](https://data-apis.org/array-api/latest/API_specification/broadcasting.html):
//! line the shapes up at their **last** dimension, prepend 1s to the
//! shorter one, and at every dimension take the size that is not 1 (the
//! sizes must be equal or one of them 1).
//!
//! ```text
//! A      (4d array):  8 x 1 x 6 x 1
//! B      (3d array):      7 x 1 x 5
//! ----------------------------------
//! Result (4d array):  8 x 7 x 6 x 5
//! ```
//!
//! The wrappers compute the result shape with [`broadcast_shapes`] (so a
//! refusal is a NumPy-style message that names the right-aligned dimension
//! and each operand's own axis), then emit the core's op with the
//! right-aligned mapping of the lower-rank operand as its
//! `broadcast_dimensions` ([`broadcast_dimensions`]): `B` above lowers to
//! `broadcast_dimensions={1,2,3}`, and the core's degenerate rule stretches
//! the 1s. Nothing implicit is left in the built computation.
//!
//! | lhs          | rhs        | NumPy result   | emitted `broadcast_dimensions` |
//! |--------------|------------|----------------|--------------------------------|
//! | `[2,3]`      | `[3]`      | `[2,3]`        | `{1}`                          |
//! | `[2,3]`      | `[]`       | `[2,3]`        | `{}` (scalar)                  |
//! | `[2,1]`      | `[1,3]`    | `[2,3]`        | `{}` (equal ranks)             |
//! | `[8,1,6,1]`  | `[7,1,5]`  | `[8,7,6,5]`    | `{1,2,3}`                      |
//! | `[4]`        | `[1,2]`    | error          | 4 vs 2 at dimension -1         |
//! | `[2,3]`      | `[2]`      | error          | 3 vs 2 at dimension -1         |
//! | `[15,3,5]`   | `[15,3]`   | error          | 1s are prepended, never appended |
//!
//! Element types are not promoted: both operands must already have the
//! same element type (the core's rule), and [`Np::scalar_like`] makes a
//! constant of an array's type, the Array API's treatment of a Python
//! scalar.
//!
//! # In-place semantics
//!
//! `x[index] = a` (and `x[index] += a`) may not change the shape of `x`:
//! `a` must broadcast to the shape of the selected region *without
//! changing it* ([`check_in_place`]). oxla has no mutation, so
//! [`Np::assign`] and [`Np::update`] return the updated array as a new op.
//!
//! ```
//! use oxla_client::numpy::{Index, Np};
//! use oxla_ir::{Builder, ElementType::F32, Shape};
//! let mut b = Builder::new("setitem");
//! let x = b.parameter(0, Shape::new(F32, &[2, 3, 4]), "x")?;
//! let a = b.parameter(1, Shape::new(F32, &[1, 3, 4]), "a")?;
//! let mut np = Np::new(&mut b);
//! let y = np.assign(x, &[Index::Ellipsis], a)?; // x[...] = a: allowed
//! assert_eq!(np.builder().shape(y)?.to_string(), "f32[2,3,4]");
//! let err = np.assign(x, &[Index::At(1), Index::Ellipsis], a).unwrap_err(); // x[1, ...] = a
//! assert!(err.to_string().contains("may not change the target's shape"));
//! # Ok::<(), oxla_ir::Error>(())
//! ```

use std::fmt;

use oxla_ir::{
    BinaryOp, Builder, ComparisonDirection, ComparisonOrder, ElementType, Error, Literal, Op,
    Result,
};

use crate::lower::{dims_list, internal, place, right_aligned};

fn invalid(op: &str, message: String) -> Error {
    Error::FrontEnd {
        world: "numpy".into(),
        op: format!("numpy.{op}"),
        message,
    }
}

/// The shape of the result of broadcasting `shapes` together under the
/// Array API rule; `[]` for no shapes.
///
/// Runs the specification's algorithm over any number of shapes: for each
/// dimension, from the last, every shape that reaches it must have either
/// size 1 or the one size that is not 1. A refusal names the two shapes
/// that disagree, the dimension counted from the right, and each shape's own
/// axis index; a negative size is an [`Error::InvalidShape`].
///
/// ```
/// use oxla_client::numpy::broadcast_shapes;
/// assert_eq!(broadcast_shapes(&[&[8, 1, 6, 1], &[7, 1, 5]])?, vec![8, 7, 6, 5]);
/// assert_eq!(broadcast_shapes(&[&[5, 4], &[1]])?, vec![5, 4]);
/// assert_eq!(broadcast_shapes(&[&[2, 1], &[3], &[4, 1, 1]])?, vec![4, 2, 3]);
/// assert_eq!(broadcast_shapes(&[])?, Vec::<i64>::new());
/// let err = broadcast_shapes(&[&[2, 1], &[8, 4, 3]]).unwrap_err();
/// assert!(err.to_string().contains(
///     "dimension -2 (counting from the right; axis 0 of the first, axis 1 of the second) has sizes 2 and 4"
/// ));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn broadcast_shapes(shapes: &[&[i64]]) -> Result<Vec<i64>> {
    let names: Vec<String> = shapes.iter().map(|s| dims_list(s)).collect();
    broadcast_named("broadcast_shapes", "shapes", shapes, &names)
}

/// [`broadcast_shapes`] with the shapes printed as `names` in messages
/// (dims lists, or XLA shapes for the op wrappers) and `noun` for them.
fn broadcast_named(op: &str, noun: &str, shapes: &[&[i64]], names: &[String]) -> Result<Vec<i64>> {
    for (s, name) in shapes.iter().zip(names) {
        if let Some((axis, &d)) = s.iter().enumerate().find(|&(_, &d)| d < 0) {
            return Err(Error::InvalidShape {
                shape: name.clone(),
                reason: format!("dimension {axis} has negative size {d}"),
            });
        }
    }
    let n = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1i64; n];
    // The specification's loop: i = N-1 down to 0, so the rightmost
    // mismatch is the one reported.
    for i in (0..n).rev() {
        // The first shape with a size other than 1 here, and that size.
        let mut chosen: Option<(usize, i64)> = None;
        for (k, s) in shapes.iter().enumerate() {
            let Some(axis) = (i + s.len()).checked_sub(n) else {
                continue; // a prepended 1
            };
            let d = s[axis];
            match chosen {
                _ if d == 1 => {}
                None => chosen = Some((k, d)),
                Some((_, c)) if c == d => {}
                Some((j, _)) => {
                    return Err(invalid(
                        op,
                        mismatch_message(noun, shapes, names, (j, k), i, n),
                    ));
                }
            }
        }
        out[i] = chosen.map_or(1, |(_, d)| d);
    }
    Ok(out)
}

/// "A and B" or "A, B and C".
fn join_names(names: &[String]) -> String {
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// The refusal of shapes `j` and `k` at position `i` of the padded rank `n`.
fn mismatch_message(
    noun: &str,
    shapes: &[&[i64]],
    names: &[String],
    (j, k): (usize, usize),
    i: usize,
    n: usize,
) -> String {
    let (a, b) = (shapes[j], shapes[k]);
    let (axis_a, axis_b) = (a.len() + i - n, b.len() + i - n);
    let from_right = i as i64 - n as i64;
    let whose = if shapes.len() == 2 {
        format!("axis {axis_a} of the first, axis {axis_b} of the second")
    } else {
        format!(
            "axis {axis_a} of #{j} {}, axis {axis_b} of #{k} {}",
            names[j], names[k]
        )
    };
    let help = appended_ones_help(a, &names[j], b, &names[k]).unwrap_or_else(|| {
        "NumPy lines shapes up at their last dimension and prepends 1s to the shorter; at \
         every dimension the sizes must then be equal or one of them 1. Slice or reshape an \
         operand so that they are."
            .to_string()
    });
    format!(
        "{noun} {} do not broadcast: dimension {from_right} (counting from the right; {whose}) \
         has sizes {} and {}, and neither is 1.\nhelp: {help}",
        join_names(names),
        a[axis_a],
        b[axis_b]
    )
}

/// When the shorter shape would fit the longer one if 1s were *appended*
/// (the spec's `15x3x5` vs `15x3` example), says so.
fn appended_ones_help(a: &[i64], a_name: &str, b: &[i64], b_name: &str) -> Option<String> {
    let ((short, short_name), (long, long_name)) = if a.len() < b.len() {
        ((a, a_name), (b, b_name))
    } else if b.len() < a.len() {
        ((b, b_name), (a, a_name))
    } else {
        return None;
    };
    let fits_left = short
        .iter()
        .zip(long)
        .all(|(&s, &l)| s == l || s == 1 || l == 1);
    if !fits_left {
        return None;
    }
    let mut padded = short.to_vec();
    padded.resize(long.len(), 1);
    Some(format!(
        "size-1 dimensions are only ever prepended, never appended: {short_name} lines up with \
         the last {} dimension(s) of {long_name}. To line it up with the first ones instead, \
         reshape it to {} first.",
        short.len(),
        dims_list(&padded)
    ))
}

/// The `broadcast_dimensions` the wrappers pass for operands of ranks
/// `lhs_rank` and `rhs_rank`: the lower-rank operand's dims mapped onto the
/// *last* dims of the higher-rank one; empty for equal ranks and scalars.
///
/// ```
/// use oxla_client::numpy::broadcast_dimensions;
/// assert_eq!(broadcast_dimensions(2, 1), vec![1]); // [2,3] + [3]
/// assert_eq!(broadcast_dimensions(4, 3), vec![1, 2, 3]); // [8,1,6,1] + [7,1,5]
/// assert_eq!(broadcast_dimensions(1, 3), vec![2]); // either side may be the lower
/// assert!(broadcast_dimensions(2, 0).is_empty()); // a scalar needs no mapping
/// assert!(broadcast_dimensions(2, 2).is_empty());
/// ```
pub fn broadcast_dimensions(lhs_rank: usize, rhs_rank: usize) -> Vec<i64> {
    if lhs_rank == rhs_rank {
        return Vec::new(); // the core's canonical form for equal ranks
    }
    right_aligned(lhs_rank.min(rhs_rank), lhs_rank.max(rhs_rank))
}

/// The wrapper's name for `op` (the [`Np`] method), for messages.
fn op_label(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "add",
        BinaryOp::Sub => "sub",
        BinaryOp::Mul => "mul",
        BinaryOp::Div => "div",
        BinaryOp::Rem => "rem",
        BinaryOp::Max => "max",
        BinaryOp::Min => "min",
        BinaryOp::Pow => "pow",
        BinaryOp::Atan2 => "atan2",
        BinaryOp::And => "and",
        BinaryOp::Or => "or",
        BinaryOp::Xor => "xor",
        BinaryOp::ShiftLeft => "shift_left",
        BinaryOp::ShiftRightArithmetic => "shift_right_arithmetic",
        BinaryOp::ShiftRightLogical => "shift_right_logical",
        BinaryOp::Compare(ComparisonDirection::Eq, _) => "eq",
        BinaryOp::Compare(ComparisonDirection::Ne, _) => "ne",
        BinaryOp::Compare(ComparisonDirection::Lt, _) => "lt",
        BinaryOp::Compare(ComparisonDirection::Le, _) => "le",
        BinaryOp::Compare(ComparisonDirection::Gt, _) => "gt",
        BinaryOp::Compare(ComparisonDirection::Ge, _) => "ge",
    }
}

/// Python's augmented assignment for `op` (`+=`), or the wrapper's name
/// with `=` where Python has no operator (`max=`).
fn augmented_sign(op: BinaryOp) -> &'static str {
    match op {
        BinaryOp::Add => "+=",
        BinaryOp::Sub => "-=",
        BinaryOp::Mul => "*=",
        BinaryOp::Div => "/=",
        BinaryOp::Rem => "%=",
        BinaryOp::Pow => "**=",
        BinaryOp::And => "&=",
        BinaryOp::Or => "|=",
        BinaryOp::Xor => "^=",
        BinaryOp::ShiftLeft => "<<=",
        BinaryOp::ShiftRightArithmetic | BinaryOp::ShiftRightLogical => ">>=",
        BinaryOp::Max => "max=",
        BinaryOp::Min => "min=",
        BinaryOp::Atan2 => "atan2=",
        BinaryOp::Compare(ComparisonDirection::Eq, _) => "eq=",
        BinaryOp::Compare(ComparisonDirection::Ne, _) => "ne=",
        BinaryOp::Compare(ComparisonDirection::Lt, _) => "lt=",
        BinaryOp::Compare(ComparisonDirection::Le, _) => "le=",
        BinaryOp::Compare(ComparisonDirection::Gt, _) => "gt=",
        BinaryOp::Compare(ComparisonDirection::Ge, _) => "ge=",
    }
}

/// One entry of a NumPy basic index, as in `x[1, 2:4, ...]`.
///
/// Integers (`At`) select one position and drop the dimension; ranges and
/// `Full` keep it; one `Ellipsis` stands for as many `Full` as needed, and
/// an index shorter than the rank ends with an implied `...`.
///
/// ```
/// use oxla_client::numpy::{indexed_shape, Index::*};
/// // x[1, ..., 0:2] for x of shape (2, 3, 4)
/// assert_eq!(indexed_shape(&[2, 3, 4], &[At(1), Ellipsis, Range(0, 2)])?, vec![3, 2]);
/// assert_eq!(indexed_shape(&[2, 3, 4], &[At(1)])?, vec![3, 4]); // x[1] is x[1, ...]
/// # Ok::<(), oxla_ir::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Index {
    /// `i`: one position; a negative `i` counts from the end. Out of
    /// bounds is an error.
    At(i64),
    /// `start:stop` with step 1; negative bounds count from the end and
    /// both are clipped to the dimension, as in Python.
    Range(i64, i64),
    /// `:`, the whole dimension.
    Full,
    /// `...`, as many `:` as the rank needs.
    Ellipsis,
}

impl fmt::Display for Index {
    /// Python syntax: `1`, `1:3`, `:`, `...`.
    ///
    /// ```
    /// use oxla_client::numpy::Index;
    /// assert_eq!(Index::At(-1).to_string(), "-1");
    /// assert_eq!(Index::Range(1, 3).to_string(), "1:3");
    /// assert_eq!(Index::Ellipsis.to_string(), "...");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Index::At(i) => write!(f, "{i}"),
            Index::Range(a, b) => write!(f, "{a}:{b}"),
            Index::Full => f.write_str(":"),
            Index::Ellipsis => f.write_str("..."),
        }
    }
}

/// `[1, ...]`.
fn index_text(index: &[Index]) -> String {
    let parts: Vec<String> = index.iter().map(Index::to_string).collect();
    format!("[{}]", parts.join(", "))
}

/// A resolved index: the box `starts..limits` of the target, and which
/// dimensions the result keeps (integer-indexed ones are dropped).
struct Selection {
    starts: Vec<i64>,
    limits: Vec<i64>,
    kept: Vec<bool>,
}

impl Selection {
    /// The box's dims at the target's rank (1 at integer-indexed dims).
    fn box_dims(&self) -> Vec<i64> {
        self.starts
            .iter()
            .zip(&self.limits)
            .map(|(s, l)| l - s)
            .collect()
    }

    /// The shape of `x[index]`.
    fn region_dims(&self) -> Vec<i64> {
        self.box_dims()
            .into_iter()
            .zip(&self.kept)
            .filter_map(|(d, &k)| k.then_some(d))
            .collect()
    }

    /// `true` when the index selects all of the target, keeping every dim.
    fn is_everything(&self, dims: &[i64]) -> bool {
        self.kept.iter().all(|&k| k) && self.starts.iter().all(|&s| s == 0) && self.limits == dims
    }
}

/// Resolves `index` against dims `dims` (of the target printed as
/// `target`), with NumPy's rules and, where NumPy has one, its message.
fn resolve(op: &str, target: &str, dims: &[i64], index: &[Index]) -> Result<Selection> {
    let at = || format!("(target {target}, index {})", index_text(index));
    let ellipses = index.iter().filter(|i| **i == Index::Ellipsis).count();
    if ellipses > 1 {
        return Err(invalid(
            op,
            format!(
                "an index can only have a single ellipsis ('...'), but it has {ellipses} {}.",
                at()
            ),
        ));
    }
    let named = index.len() - ellipses;
    if named > dims.len() {
        return Err(invalid(
            op,
            format!(
                "too many indices for array: array is {}-dimensional, but {named} were indexed {}.",
                dims.len(),
                at()
            ),
        ));
    }
    let mut expanded: Vec<Index> = Vec::with_capacity(dims.len());
    for &i in index {
        if i == Index::Ellipsis {
            expanded.extend(std::iter::repeat_n(Index::Full, dims.len() - named));
        } else {
            expanded.push(i);
        }
    }
    expanded.resize(dims.len(), Index::Full);
    let mut sel = Selection {
        starts: Vec::with_capacity(dims.len()),
        limits: Vec::with_capacity(dims.len()),
        kept: Vec::with_capacity(dims.len()),
    };
    for (axis, (&i, &d)) in expanded.iter().zip(dims).enumerate() {
        let (start, limit, keep) = match i {
            Index::At(p) => {
                let q = if p < 0 { p.saturating_add(d) } else { p };
                if q < 0 || q >= d {
                    return Err(invalid(
                        op,
                        format!(
                            "index {p} is out of bounds for axis {axis} with size {d} {}.",
                            at()
                        ),
                    ));
                }
                (q, q + 1, false)
            }
            Index::Range(a, b) => {
                let clip = |x: i64| {
                    if x < 0 {
                        x.saturating_add(d).max(0)
                    } else {
                        x.min(d)
                    }
                };
                let (s, l) = (clip(a), clip(b));
                (s, l.max(s), true)
            }
            Index::Full | Index::Ellipsis => (0, d, true),
        };
        sel.starts.push(start);
        sel.limits.push(limit);
        sel.kept.push(keep);
    }
    Ok(sel)
}

/// The shape of `x[index]` for `x` of dims `dims`.
///
/// ```
/// use oxla_client::numpy::{indexed_shape, Index::*};
/// assert_eq!(indexed_shape(&[2, 3, 4], &[Ellipsis])?, vec![2, 3, 4]);
/// assert_eq!(indexed_shape(&[2, 3, 4], &[At(1), Ellipsis])?, vec![3, 4]);
/// assert_eq!(indexed_shape(&[2, 3, 4], &[Ellipsis, Range(1, 3)])?, vec![2, 3, 2]);
/// assert_eq!(indexed_shape(&[2, 3, 4], &[At(-1), At(0)])?, vec![4]);
/// assert!(indexed_shape(&[2, 3, 4], &[At(2)]).is_err()); // out of bounds for axis 0
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn indexed_shape(dims: &[i64], index: &[Index]) -> Result<Vec<i64>> {
    Ok(resolve("indexed_shape", &dims_list(dims), dims, index)?.region_dims())
}

/// Why `value` cannot broadcast to `target` without changing it, if it
/// cannot. `noun` names the target ("target" or "target region"), `rule`
/// is the sentence that forbids the change.
fn in_place_problem(target: &[i64], value: &[i64], noun: &str, rule: &str) -> Option<String> {
    let (t, v) = (target.len(), value.len());
    if v > t {
        let extra = &value[..v - t];
        let mut text = format!(
            "the value has rank {v} but the {noun} only {t}, so broadcasting would add {} \
             leading dimension(s) to the {noun}, and {rule}.",
            v - t
        );
        if extra.iter().all(|&d| d == 1)
            && in_place_problem(target, &value[v - t..], noun, rule).is_none()
        {
            text.push_str(&format!(
                "\nhelp: the extra leading dimensions all have size 1: reshape the value to {} \
                 first. (NumPy drops leading 1s of an assigned value silently; the Array API \
                 specification refuses them.)",
                dims_list(&value[v - t..])
            ));
        }
        return Some(text);
    }
    for from_right in 1..=v {
        let (at, av) = (t - from_right, v - from_right);
        let (dt, dv) = (target[at], value[av]);
        if dv == dt || dv == 1 {
            continue;
        }
        let place = format!(
            "dimension -{from_right} (axis {at} of the {noun}, axis {av} of the value) has size \
             {dt} in the {noun} and {dv} in the value"
        );
        return Some(if dt == 1 {
            format!("{place}; broadcasting would stretch the {noun} to {dv} there, and {rule}.")
        } else {
            format!("{place}; the value's size must equal the {noun}'s or be 1.")
        });
    }
    None
}

const IN_PLACE_RULE: &str = "in-place broadcasting may not change the target's shape";

/// Checks that a value of dims `value` may be written in place into a
/// target (or indexed region of one) of dims `target`: it must broadcast to
/// `target` without changing it, so its rank is at most the target's and
/// each of its sizes equals the target's or is 1.
///
/// ```
/// use oxla_client::numpy::check_in_place;
/// check_in_place(&[2, 3, 4], &[1, 3, 4])?; // x[...] = a
/// let err = check_in_place(&[3, 4], &[1, 3, 4]).unwrap_err(); // x[1, ...] = a
/// assert!(err.to_string().contains("the value has rank 3 but the target only 2"));
/// assert!(check_in_place(&[1, 4], &[3, 4]).is_err()); // would stretch the target
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn check_in_place(target: &[i64], value: &[i64]) -> Result<()> {
    for (dims, what) in [(target, "target"), (value, "value")] {
        if let Some((axis, &d)) = dims.iter().enumerate().find(|&(_, &d)| d < 0) {
            return Err(Error::InvalidShape {
                shape: dims_list(dims),
                reason: format!("dimension {axis} of the {what} has negative size {d}"),
            });
        }
    }
    match in_place_problem(target, value, "target", IN_PLACE_RULE) {
        None => Ok(()),
        Some(problem) => Err(invalid(
            "check_in_place",
            format!(
                "the value's shape {} cannot broadcast to the target's shape {} in place: {problem}",
                dims_list(value),
                dims_list(target)
            ),
        )),
    }
}

/// NumPy-style implicit broadcasting over a [`Builder`].
///
/// Every method checks its operands with the NumPy rule, then emits the
/// strict core op with explicit `broadcast_dimensions`; the builder stays
/// usable for everything else through [`Np::builder`], or once the `Np` is
/// dropped.
///
/// ```
/// use oxla_client::numpy::Np;
/// use oxla_ir::{Builder, ElementType::F32, Shape};
/// let mut b = Builder::new("np");
/// let x = b.parameter(0, Shape::new(F32, &[8, 1, 6, 1]), "x")?;
/// let y = b.parameter(1, Shape::new(F32, &[7, 1, 5]), "y")?;
/// let z = Np::new(&mut b).add(x, y)?;
/// let comp = b.build(z)?;
/// assert_eq!(comp.result_shape().to_string(), "f32[8,7,6,5]");
/// assert!(comp.to_hlo_text().contains("add(x, y), broadcast_dimensions={1,2,3}"));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
#[derive(Debug)]
pub struct Np<'a> {
    b: &'a mut Builder,
}

macro_rules! np_binary {
    ($($ty:literal $method:ident => $op:expr;)*) => {$(
        #[doc = concat!(
            "`", stringify!($method), "` with NumPy broadcasting: [`Np::binary`] with `",
            stringify!($op), "`.\n\n",
            "```\n",
            "use oxla_client::numpy::Np;\n",
            "use oxla_ir::{Builder, ElementType, Shape};\n",
            "let t = ElementType::from_name(\"", $ty, "\").unwrap();\n",
            "let mut b = Builder::new(\"", stringify!($method), "\");\n",
            "let x = b.parameter(0, Shape::new(t, &[2, 3]), \"x\")?;\n",
            "let v = b.parameter(1, Shape::new(t, &[3]), \"v\")?;\n",
            "let y = Np::new(&mut b).", stringify!($method), "(x, v)?;\n",
            "assert_eq!(b.shape(y)?.dims(), &[2, 3]);\n",
            "assert!(b.build(y)?.to_hlo_text().contains(\"broadcast_dimensions={1}\"));\n",
            "# Ok::<(), oxla_ir::Error>(())\n",
            "```"
        )]
        pub fn $method(&mut self, lhs: Op, rhs: Op) -> Result<Op> {
            self.binary($op, lhs, rhs)
        }
    )*};
}

impl<'a> Np<'a> {
    /// Wraps `b`; ops go into it, and `b` is usable again once the `Np` is
    /// no longer used.
    ///
    /// ```
    /// use oxla_client::numpy::Np;
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("new");
    /// let x = b.parameter(0, Shape::new(F32, &[2, 1]), "x")?;
    /// let y = b.parameter(1, Shape::new(F32, &[1, 3]), "y")?;
    /// let z = Np::new(&mut b).mul(x, y)?; // the outer product
    /// assert_eq!(b.build(z)?.result_shape().to_string(), "f32[2,3]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn new(b: &'a mut Builder) -> Np<'a> {
        Np { b }
    }

    /// The wrapped builder, for the ops that need no broadcasting.
    ///
    /// ```
    /// use oxla_client::numpy::Np;
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("mixed");
    /// let mut np = Np::new(&mut b);
    /// let x = np.builder().parameter(0, Shape::new(F32, &[2, 3]), "x")?;
    /// let e = np.builder().exp(x)?;
    /// let y = np.add(e, x)?;
    /// assert_eq!(np.builder().shape(y)?.to_string(), "f32[2,3]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn builder(&mut self) -> &mut Builder {
        self.b
    }

    /// Any binary op of the core with NumPy broadcasting: the result shape
    /// is [`broadcast_shapes`] of the operands', and the core op gets the
    /// right-aligned [`broadcast_dimensions`]. Element types must match.
    ///
    /// ```
    /// use oxla_client::numpy::Np;
    /// use oxla_ir::{BinaryOp, Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("bin");
    /// let x = b.parameter(0, Shape::new(F32, &[2, 1]), "x")?;
    /// let y = b.parameter(1, Shape::new(F32, &[8, 4, 3]), "y")?;
    /// let err = Np::new(&mut b).binary(BinaryOp::Add, x, y).unwrap_err();
    /// assert!(err.to_string().starts_with(
    ///     "Invalid numpy.add: operands f32[2,1] and f32[8,4,3] do not broadcast: dimension -2"
    /// ));
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn binary(&mut self, op: BinaryOp, lhs: Op, rhs: Op) -> Result<Op> {
        let (ls, rs) = (self.b.shape(lhs)?, self.b.shape(rhs)?);
        if ls.is_array() && rs.is_array() {
            broadcast_named(
                op_label(op),
                "operands",
                &[ls.dims(), rs.dims()],
                &[ls.to_string(), rs.to_string()],
            )?;
        }
        // Tuples fall through to the core, which refuses them.
        self.b
            .binary(lhs, rhs, op, &broadcast_dimensions(ls.rank(), rs.rank()))
    }

    np_binary! {
        "f32" add => BinaryOp::Add;
        "f32" sub => BinaryOp::Sub;
        "f32" mul => BinaryOp::Mul;
        "f32" div => BinaryOp::Div;
        "f32" rem => BinaryOp::Rem;
        "f32" max => BinaryOp::Max;
        "f32" min => BinaryOp::Min;
        "f32" pow => BinaryOp::Pow;
        "f32" atan2 => BinaryOp::Atan2;
        "u32" and => BinaryOp::And;
        "u32" or => BinaryOp::Or;
        "u32" xor => BinaryOp::Xor;
        "s32" shift_left => BinaryOp::ShiftLeft;
        "s32" shift_right_arithmetic => BinaryOp::ShiftRightArithmetic;
        "s32" shift_right_logical => BinaryOp::ShiftRightLogical;
        "f32" eq => BinaryOp::Compare(ComparisonDirection::Eq, ComparisonOrder::Natural);
        "f32" ne => BinaryOp::Compare(ComparisonDirection::Ne, ComparisonOrder::Natural);
        "f32" lt => BinaryOp::Compare(ComparisonDirection::Lt, ComparisonOrder::Natural);
        "f32" le => BinaryOp::Compare(ComparisonDirection::Le, ComparisonOrder::Natural);
        "f32" gt => BinaryOp::Compare(ComparisonDirection::Gt, ComparisonOrder::Natural);
        "f32" ge => BinaryOp::Compare(ComparisonDirection::Ge, ComparisonOrder::Natural);
    }

    /// A comparison with the direction as a value; the result is `pred`.
    ///
    /// ```
    /// use oxla_client::numpy::Np;
    /// use oxla_ir::{Builder, ComparisonDirection, ElementType::S32, Shape};
    /// let mut b = Builder::new("cmp");
    /// let x = b.parameter(0, Shape::new(S32, &[3]), "x")?;
    /// let y = b.parameter(1, Shape::new(S32, &[1, 3]), "y")?;
    /// let z = Np::new(&mut b).compare(ComparisonDirection::Lt, x, y)?;
    /// assert_eq!(b.shape(z)?.to_string(), "pred[1,3]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn compare(&mut self, direction: ComparisonDirection, lhs: Op, rhs: Op) -> Result<Op> {
        self.binary(
            BinaryOp::Compare(direction, ComparisonOrder::Natural),
            lhs,
            rhs,
        )
    }

    /// `np.broadcast_to(x, dims)`: `x` broadcast to `dims`, which must not
    /// change (the in-place rule of [`check_in_place`]); lowered to one
    /// `broadcast` with the right-aligned dimensions. Returns `x` itself when
    /// it already has `dims`.
    ///
    /// ```
    /// use oxla_client::numpy::Np;
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("bt");
    /// let x = b.parameter(0, Shape::new(F32, &[3, 1]), "x")?;
    /// let mut np = Np::new(&mut b);
    /// let y = np.broadcast_to(x, &[2, 3, 4])?;
    /// assert_eq!(np.builder().shape(y)?.to_string(), "f32[2,3,4]");
    /// assert!(np.broadcast_to(x, &[4]).is_err()); // [3,1] has more dims than [4]
    /// assert!(np.broadcast_to(x, &[3, 1, 2]).is_err()); // x's 3 meets a 1 of the target
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn broadcast_to(&mut self, x: Op, dims: &[i64]) -> Result<Op> {
        let xs = self.b.shape(x)?;
        if xs.is_array() && xs.dims() == dims {
            return Ok(x);
        }
        if let Some((axis, &d)) = dims.iter().enumerate().find(|&(_, &d)| d < 0) {
            return Err(Error::InvalidShape {
                shape: dims_list(dims),
                reason: format!("dimension {axis} has negative size {d}"),
            });
        }
        let rule = "broadcast_to may not change the shape it is asked for";
        if let Some(problem) = in_place_problem(dims, xs.dims(), "target", rule) {
            return Err(invalid(
                "broadcast_to",
                format!(
                    "{xs} cannot broadcast to the shape {}: {problem}",
                    dims_list(dims)
                ),
            ));
        }
        self.b
            .broadcast_in_dim(x, dims, &right_aligned(xs.rank(), dims.len()))
    }

    /// A rank-0 constant of `like`'s element type holding `value`: the Array
    /// API's treatment of a Python scalar in `x + 2`, which takes the
    /// array's type. An error when `value` is not exactly representable
    /// (`2.5` for an integer type, `300` for `u8`, anything but 0 and 1 for
    /// `pred`); `f32` rounds.
    ///
    /// ```
    /// use oxla_client::numpy::Np;
    /// use oxla_ir::{Builder, ElementType::S32, Shape};
    /// let mut b = Builder::new("scalar");
    /// let x = b.parameter(0, Shape::new(S32, &[2, 3]), "x")?;
    /// let mut np = Np::new(&mut b);
    /// let two = np.scalar_like(x, 2.0)?;
    /// let y = np.mul(x, two)?;
    /// assert_eq!(np.builder().shape(y)?.to_string(), "s32[2,3]");
    /// assert!(np.scalar_like(x, 2.5).is_err());
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn scalar_like(&mut self, like: Op, value: f64) -> Result<Op> {
        let shape = self.b.shape(like)?;
        let literal = scalar_literal(shape.element_type(), value).ok_or_else(|| {
            invalid(
                "scalar_like",
                format!(
                    "the scalar {value} cannot be represented exactly in {} (the element type \
                     of {shape}); oxla does not promote types, so make a constant of another \
                     type and convert the array first.",
                    shape.element_type()
                ),
            )
        })?;
        self.b.constant(literal)
    }

    /// `x[index]` (basic indexing): a `slice`, then a `reshape` that drops
    /// the integer-indexed dims. Returns `x` itself for `x[...]`.
    ///
    /// ```
    /// use oxla_client::numpy::{Index::*, Np};
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("get");
    /// let x = b.parameter(0, Shape::new(F32, &[2, 3, 4]), "x")?;
    /// let mut np = Np::new(&mut b);
    /// let row = np.get(x, &[At(1), Ellipsis, Range(0, 2)])?;
    /// assert_eq!(np.builder().shape(row)?.to_string(), "f32[3,2]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn get(&mut self, x: Op, index: &[Index]) -> Result<Op> {
        let xs = self.b.shape(x)?;
        let sel = resolve("get", &xs.to_string(), xs.dims(), index)?;
        if sel.is_everything(xs.dims()) {
            return Ok(x);
        }
        let strides = vec![1; xs.rank()];
        let boxed = self.b.slice(x, &sel.starts, &sel.limits, &strides)?;
        let region = sel.region_dims();
        if region.len() == xs.rank() {
            return Ok(boxed);
        }
        self.b.reshape(boxed, &region)
    }

    /// `target[index] = value`, functionally: returns the updated array.
    ///
    /// `value` must broadcast to the shape of `target[index]` without
    /// changing it ([`check_in_place`]) and have the target's element type.
    /// Lowered to `broadcast` (right-aligned) and `reshape` of the value to
    /// the selected box, then, unless the box is all of the target, `pad`
    /// of the value and of a `pred` mask, and a `select`.
    ///
    /// ```
    /// use oxla_client::numpy::{Index::*, Np};
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("set");
    /// let x = b.parameter(0, Shape::new(F32, &[2, 3, 4]), "x")?;
    /// let row = b.parameter(1, Shape::new(F32, &[4]), "row")?;
    /// let y = Np::new(&mut b).assign(x, &[At(1), Ellipsis], row)?; // x[1, ...] = row
    /// assert_eq!(b.shape(y)?.to_string(), "f32[2,3,4]");
    /// assert!(b.build(y)?.to_hlo_text().contains("select("));
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn assign(&mut self, target: Op, index: &[Index], value: Op) -> Result<Op> {
        self.write("assign", "=", target, index, value)
    }

    /// `target[index] op= value` (`x[...] += a`): the in-place rule of
    /// [`check_in_place`] applies to `value` against `target[index]`, then
    /// the op's result is written back as by [`Np::assign`].
    ///
    /// ```
    /// use oxla_client::numpy::{Index::*, Np};
    /// use oxla_ir::{BinaryOp, Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("iadd");
    /// let x = b.parameter(0, Shape::new(F32, &[3]), "x")?;
    /// let a = b.parameter(1, Shape::new(F32, &[2, 3]), "a")?;
    /// let mut np = Np::new(&mut b);
    /// // x + a would be [2,3]; x += a may not change x's shape.
    /// assert!(np.update(BinaryOp::Add, x, &[Ellipsis], a).is_err());
    /// let y = np.update(BinaryOp::Add, a, &[Ellipsis], x)?; // a += x is fine
    /// assert_eq!(np.builder().shape(y)?.to_string(), "f32[2,3]");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn update(&mut self, op: BinaryOp, target: Op, index: &[Index], value: Op) -> Result<Op> {
        let label = "update";
        let ts = self.b.shape(target)?;
        let vs = self.b.shape(value)?;
        let sel = resolve(label, &ts.to_string(), ts.dims(), index)?;
        let region = sel.region_dims();
        if let Some(problem) = in_place_problem(&region, vs.dims(), "target region", IN_PLACE_RULE)
        {
            return Err(invalid(
                label,
                in_place_message(augmented_sign(op), &ts, index, &region, &vs, &problem),
            ));
        }
        let current = self.get(target, index)?;
        let updated = self.binary(op, current, value)?;
        self.write(label, "=", target, index, updated)
    }

    fn write(
        &mut self,
        op: &str,
        sign: &str,
        target: Op,
        index: &[Index],
        value: Op,
    ) -> Result<Op> {
        let ts = self.b.shape(target)?;
        let vs = self.b.shape(value)?;
        for (s, what) in [(&ts, "target"), (&vs, "value")] {
            if !s.is_array() {
                return Err(invalid(
                    op,
                    format!("the {what} must be an array, but is the tuple {s}."),
                ));
            }
        }
        let sel = resolve(op, &ts.to_string(), ts.dims(), index)?;
        let region = sel.region_dims();
        if let Some(problem) = in_place_problem(&region, vs.dims(), "target region", IN_PLACE_RULE)
        {
            return Err(invalid(
                op,
                in_place_message(sign, &ts, index, &region, &vs, &problem),
            ));
        }
        if vs.element_type() != ts.element_type() {
            return Err(invalid(
                op,
                format!(
                    "target{} {sign} value with target {ts} and value {vs}: the element types \
                     differ, and oxla converts no types implicitly; convert the value to {} first \
                     (NumPy would cast it).",
                    index_text(index),
                    ts.element_type()
                ),
            ));
        }
        let stretched = if vs.dims() == region.as_slice() {
            value
        } else {
            self.b
                .broadcast_in_dim(value, &region, &right_aligned(vs.rank(), region.len()))?
        };
        let box_dims = sel.box_dims();
        let boxed = if box_dims == region {
            stretched
        } else {
            self.b.reshape(stretched, &box_dims)?
        };
        let out = place(self.b, op, target, &sel.starts, boxed)?;
        let os = self.b.shape(out)?;
        if os != ts {
            return Err(internal(op, format!("the update gave {os}, not {ts}")));
        }
        Ok(out)
    }
}

/// `target[1, ...] = value with target f32[2,3,4] and value f32[1,3,4]: ...`
fn in_place_message(
    sign: &str,
    target: &oxla_ir::Shape,
    index: &[Index],
    region: &[i64],
    value: &oxla_ir::Shape,
    problem: &str,
) -> String {
    let idx = index_text(index);
    format!(
        "target{idx} {sign} value with target {target} and value {value}: the value cannot \
         broadcast in place to the region target{idx}, of shape {}: {problem}",
        oxla_ir::Shape::new(target.element_type(), region)
    )
}

/// `value` as a rank-0 literal of `ty`, if it is exactly representable
/// (rounded for `f32`).
fn scalar_literal(ty: ElementType, value: f64) -> Option<Literal> {
    fn int<T: oxla_ir::NativeType + TryFrom<i128>>(value: f64) -> Option<Literal> {
        if value.fract() != 0.0 || !value.is_finite() || value.abs() > 1e20 {
            return None;
        }
        T::try_from(value as i128).ok().map(Literal::scalar)
    }
    fn sub_byte<T: oxla_ir::NativeType + oxla_ir::SubByteInt>(value: f64) -> Option<Literal> {
        if value.fract() != 0.0 || !value.is_finite() || value.abs() > 1e20 {
            return None;
        }
        T::new(value as i64).map(Literal::scalar)
    }
    match ty {
        ElementType::Pred if value == 0.0 || value == 1.0 => Some(Literal::scalar(value == 1.0)),
        ElementType::Pred => None,
        ElementType::S8 => int::<i8>(value),
        ElementType::S16 => int::<i16>(value),
        ElementType::S32 => int::<i32>(value),
        ElementType::S64 => int::<i64>(value),
        ElementType::U8 => int::<u8>(value),
        ElementType::U16 => int::<u16>(value),
        ElementType::U32 => int::<u32>(value),
        ElementType::U64 => int::<u64>(value),
        ElementType::S1 => sub_byte::<oxla_ir::Int1>(value),
        ElementType::S2 => sub_byte::<oxla_ir::Int2>(value),
        ElementType::S4 => sub_byte::<oxla_ir::Int4>(value),
        ElementType::U1 => sub_byte::<oxla_ir::Uint1>(value),
        ElementType::U2 => sub_byte::<oxla_ir::Uint2>(value),
        ElementType::U4 => sub_byte::<oxla_ir::Uint4>(value),
        ElementType::F32 => Some(Literal::scalar(value as f32)),
        ElementType::F64 => Some(Literal::scalar(value)),
        ElementType::F4E2M1FN
        | ElementType::F8E3M4
        | ElementType::F8E4M3
        | ElementType::F8E4M3FN
        | ElementType::F8E4M3FNUZ
        | ElementType::F8E4M3B11FNUZ
        | ElementType::F8E5M2
        | ElementType::F8E5M2FNUZ
        | ElementType::F8E8M0FNU
        | ElementType::Bf16
        | ElementType::F16 => Literal::float_scalar(ty, value),
        ElementType::C64 => Some(Literal::scalar(oxla_ir::Complex64::new(value as f32, 0.0))),
        ElementType::C128 => Some(Literal::scalar(oxla_ir::Complex128::new(value, 0.0))),
        ElementType::Tuple | ElementType::Token => None,
    }
}
