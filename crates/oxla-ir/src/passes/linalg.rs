//! `cholesky` and `triangular-solve` built from primitives in the
//! interpreter's order
//! (`oxla_interp`'s `misc/linalg.rs`: Cholesky–Banachiewicz), so that a
//! backend computing the primitives exactly gives its bits: column `j` of
//! `L` is `s_i = a[i][j] - Σ_{k<j} l[i][k]·l[j][k]` (the sum subtracted
//! term by term, `k` ascending), `l[j][j] = sqrt(s_j)`, `l[i][j] = s_i /
//! l[j][j]` below it, zero above. The loops over `j` and `k` are `while`
//! loops; each step works on a whole column of every matrix of the batch
//! at once (elementwise, so every element keeps its own order). A matrix
//! whose factorisation meets a NaN pivot is all NaN; `lower=false` factors
//! the transposed matrix and transposes the result (`U = L^T`).
//! `triangular-solve` substitutes row by row the same way
//! ([`triangular_solve`]). For `bf16` and `f16` the expansion is the same
//! graph in the narrow type: each primitive is computed in `f32` and
//! rounded to the type, as the interpreter computes every step of the two
//! algorithms (and as XLA:CPU computes their elementwise ops).

use crate::{Builder, Computation, ElementType, Error, Literal, Op, OpKind, Result, Shape};

fn internal(message: String) -> Error {
    Error::Internal {
        stage: "cholesky expansion".into(),
        message,
    }
}

fn float(b: &mut Builder, ty: ElementType, v: f64) -> Result<Op> {
    let c = Literal::float_scalar(ty, v).ok_or_else(|| internal(format!("no {ty} constant")))?;
    b.constant(c)
}

/// `x[:, :, k]` of `x: [batch, n, n]` at the `s32` scalar `k`, as `[batch, n]`.
fn column(b: &mut Builder, x: Op, k: Op, batch: i64, n: i64) -> Result<Op> {
    let zero = b.constant_scalar(0i32)?;
    let c = b.dynamic_slice(x, &[zero, zero, k], &[batch, n, 1])?;
    b.reshape(c, &[batch, n])
}

/// `x[:, j]` of `x: [batch, n]` at the `s32` scalar `j`, broadcast to
/// `[batch, n]`.
fn entry(b: &mut Builder, x: Op, j: Op, batch: i64, n: i64) -> Result<Op> {
    let zero = b.constant_scalar(0i32)?;
    let e = b.dynamic_slice(x, &[zero, j], &[batch, 1])?;
    let e = b.reshape(e, &[batch])?;
    b.broadcast_in_dim(e, &[batch, n], &[0])
}

/// `i < bound` for a counter in a state tuple at `index`, bound at
/// `bound_index` (or the constant `n`).
fn counting_condition(
    state: &Shape,
    index: i64,
    bound: std::result::Result<i64, i64>,
) -> Result<Computation> {
    let mut c = Builder::new("cholesky_cond");
    let s = c.parameter(0, state.clone(), "s")?;
    let i = c.get_tuple_element(s, index)?;
    let limit = match bound {
        Ok(at) => c.get_tuple_element(s, at)?,
        Err(n) => c.constant_scalar(n as i32)?,
    };
    let lt = c.lt(i, limit, &[])?;
    c.build(lt)
}

/// The Cholesky factor of `a: [batch, n, n]` (lower), NaN matrices where a
/// pivot is NaN.
fn cholesky_lower(b: &mut Builder, a: Op, ty: ElementType, batch: i64, n: i64) -> Result<Op> {
    let mat = Shape::new(ty, &[batch, n, n]);
    let vec = Shape::new(ty, &[batch, n]);
    let flags = Shape::new(ElementType::Pred, &[batch]);
    let s32 = Shape::scalar(ElementType::S32);
    // Inner loop: (k, j, s, l): s -= l[:, :, k] * l[:, j, k].
    let inner_state = Shape::tuple(vec![s32.clone(), s32.clone(), vec.clone(), mat.clone()]);
    let inner_cond = counting_condition(&inner_state, 0, Ok(1))?;
    let inner_body = {
        let mut c = Builder::new("cholesky_dot");
        let st = c.parameter(0, inner_state.clone(), "s")?;
        let k = c.get_tuple_element(st, 0)?;
        let j = c.get_tuple_element(st, 1)?;
        let s = c.get_tuple_element(st, 2)?;
        let l = c.get_tuple_element(st, 3)?;
        let lk = column(&mut c, l, k, batch, n)?;
        let ljk = entry(&mut c, lk, j, batch, n)?;
        let p = c.mul(lk, ljk, &[])?;
        let s = c.sub(s, p, &[])?;
        let one = c.constant_scalar(1i32)?;
        let k = c.add(k, one, &[])?;
        let t = c.tuple(&[k, j, s, l])?;
        c.build(t)?
    };
    // Outer loop: (j, a, l, failed).
    let outer_state = Shape::tuple(vec![s32.clone(), mat.clone(), mat.clone(), flags.clone()]);
    let outer_cond = counting_condition(&outer_state, 0, Err(n))?;
    let outer_body = {
        let mut c = Builder::new("cholesky_column");
        let st = c.parameter(0, outer_state.clone(), "s")?;
        let j = c.get_tuple_element(st, 0)?;
        let a = c.get_tuple_element(st, 1)?;
        let l = c.get_tuple_element(st, 2)?;
        let failed = c.get_tuple_element(st, 3)?;
        let s = column(&mut c, a, j, batch, n)?;
        let zero = c.constant_scalar(0i32)?;
        let init = c.tuple(&[zero, j, s, l])?;
        let done = c.while_loop(&inner_cond, &inner_body, init)?;
        let s = c.get_tuple_element(done, 2)?;
        let d = entry(&mut c, s, j, batch, n)?;
        let d = c.sqrt(d)?;
        let q = c.div(s, d, &[])?;
        let i = c.iota(Shape::new(ElementType::S32, &[batch, n]), 1)?;
        let on = c.eq(i, j, &[])?;
        let above = c.lt(i, j, &[])?;
        let fzero = float(&mut c, ty, 0.0)?;
        let col = c.select(on, d, q)?;
        let fz = c.broadcast_in_dim(fzero, &[batch, n], &[])?;
        let col = c.select(above, fz, col)?;
        let col = c.reshape(col, &[batch, n, 1])?;
        let l = c.dynamic_update_slice(l, col, &[zero, zero, j])?;
        // NaN pivot: d[:, 0] (every column of d holds the pivot).
        let pivot = c.slice(d, &[0, 0], &[batch, 1], &[1, 1])?;
        let pivot = c.reshape(pivot, &[batch])?;
        let nan = c.ne(pivot, pivot, &[])?;
        let failed = c.or(failed, nan, &[])?;
        let one = c.constant_scalar(1i32)?;
        let j = c.add(j, one, &[])?;
        let t = c.tuple(&[j, a, l, failed])?;
        c.build(t)?
    };
    let zero = b.constant_scalar(0i32)?;
    let fzero = float(b, ty, 0.0)?;
    let l0 = b.broadcast_in_dim(fzero, &[batch, n, n], &[])?;
    let no = b.constant_scalar(false)?;
    let f0 = b.broadcast_in_dim(no, &[batch], &[])?;
    let init = b.tuple(&[zero, a, l0, f0])?;
    let done = b.while_loop(&outer_cond, &outer_body, init)?;
    let l = b.get_tuple_element(done, 2)?;
    let failed = b.get_tuple_element(done, 3)?;
    let failed = b.broadcast_in_dim(failed, &[batch, n, n], &[0])?;
    let nan = float(b, ty, f64::NAN)?;
    let nan = b.broadcast_in_dim(nan, &[batch, n, n], &[])?;
    b.select(failed, nan, l)
}

/// `cholesky(a)` of `a` (f32, f64, bf16 or f16, `[..., n, n]`) built from primitives
/// in the interpreter's order (see the module docs); `None` for another
/// element type.
///
/// ```
/// use oxla_ir::{Builder, ElementType::F64, Shape, passes::linalg};
/// let mut b = Builder::new("chol");
/// let a = b.parameter(0, Shape::new(F64, &[2, 3, 3]), "a")?;
/// let l = linalg::cholesky(&mut b, a, true)?.unwrap();
/// assert_eq!(b.shape(l)?.to_string(), "f64[2,3,3]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn cholesky(b: &mut Builder, a: Op, lower: bool) -> Result<Option<Op>> {
    let shape = b.shape(a)?;
    let ty = shape.element_type();
    if !matches!(
        ty,
        ElementType::F32 | ElementType::F64 | ElementType::Bf16 | ElementType::F16
    ) {
        return Ok(None);
    }
    let dims = shape.dims().to_vec();
    let [batch_dims @ .., rows, cols] = dims.as_slice() else {
        return Ok(None);
    };
    if rows != cols {
        return Ok(None);
    }
    let n = *rows;
    if n == 0 {
        // No elements: nothing to factor.
        return Ok(Some(a));
    }
    let batch = batch_dims.iter().product::<i64>().max(0);
    let flat = b.reshape(a, &[batch, n, n])?;
    let flat = if lower {
        flat
    } else {
        b.transpose(flat, &[0, 2, 1])?
    };
    let l = cholesky_lower(b, flat, ty, batch, n)?;
    let l = if lower {
        l
    } else {
        b.transpose(l, &[0, 2, 1])?
    };
    b.reshape(l, &dims).map(Some)
}

/// Solves `m x = rhs` for `m: [batch, k, k]` triangular (`lower` or
/// upper) and `rhs: [batch, k, r]` by substitution in the interpreter's
/// order: row `i` (ascending for `lower`, else descending) is `(rhs_i -
/// Σ_j m[i][j]·x_j) / m[i][i]` over the solved rows `j` ascending, every
/// column and matrix at once.
fn substitute(
    b: &mut Builder,
    m: Op,
    rhs: Op,
    ty: ElementType,
    (batch, k, r): (i64, i64, i64),
    lower: bool,
) -> Result<Op> {
    let mat = Shape::new(ty, &[batch, k, k]);
    let xs = Shape::new(ty, &[batch, k, r]);
    let row = Shape::new(ty, &[batch, r]);
    let s32 = Shape::scalar(ElementType::S32);
    // m[:, i, j] broadcast over the columns of a row.
    let coefficient = |c: &mut Builder, m: Op, i: Op, j: Op| -> Result<Op> {
        let zero = c.constant_scalar(0i32)?;
        let e = c.dynamic_slice(m, &[zero, i, j], &[batch, 1, 1])?;
        let e = c.reshape(e, &[batch])?;
        c.broadcast_in_dim(e, &[batch, r], &[0])
    };
    let row_of = |c: &mut Builder, x: Op, i: Op| -> Result<Op> {
        let zero = c.constant_scalar(0i32)?;
        let e = c.dynamic_slice(x, &[zero, i, zero], &[batch, 1, r])?;
        c.reshape(e, &[batch, r])
    };
    // Inner loop: (u, count, base, i, s, x, m): s -= m[i][base + u] * x[base + u].
    let inner_state = Shape::tuple(vec![
        s32.clone(),
        s32.clone(),
        s32.clone(),
        s32.clone(),
        row.clone(),
        xs.clone(),
        mat.clone(),
    ]);
    let inner_cond = counting_condition(&inner_state, 0, Ok(1))?;
    let inner_body = {
        let mut c = Builder::new("solve_dot");
        let st = c.parameter(0, inner_state.clone(), "s")?;
        let parts: Vec<Op> = (0..7)
            .map(|t| c.get_tuple_element(st, t))
            .collect::<Result<_>>()?;
        let [u, count, base, i, s, x, m] = parts[..] else {
            return Err(internal("a 7-tuple state".into()));
        };
        let j = c.add(base, u, &[])?;
        let mij = coefficient(&mut c, m, i, j)?;
        let xj = row_of(&mut c, x, j)?;
        let p = c.mul(mij, xj, &[])?;
        let s = c.sub(s, p, &[])?;
        let one = c.constant_scalar(1i32)?;
        let u = c.add(u, one, &[])?;
        let t = c.tuple(&[u, count, base, i, s, x, m])?;
        c.build(t)?
    };
    // Outer loop: (t, x, m).
    let outer_state = Shape::tuple(vec![s32.clone(), xs.clone(), mat.clone()]);
    let outer_cond = counting_condition(&outer_state, 0, Err(k))?;
    let outer_body = {
        let mut c = Builder::new("solve_row");
        let st = c.parameter(0, outer_state.clone(), "s")?;
        let t = c.get_tuple_element(st, 0)?;
        let x = c.get_tuple_element(st, 1)?;
        let m = c.get_tuple_element(st, 2)?;
        let one = c.constant_scalar(1i32)?;
        let zero = c.constant_scalar(0i32)?;
        let (i, count, base) = if lower {
            (t, t, zero)
        } else {
            let last = c.constant_scalar((k - 1) as i32)?;
            let i = c.sub(last, t, &[])?;
            let base = c.add(i, one, &[])?;
            (i, t, base)
        };
        let s = row_of(&mut c, x, i)?;
        let init = c.tuple(&[zero, count, base, i, s, x, m])?;
        let done = c.while_loop(&inner_cond, &inner_body, init)?;
        let s = c.get_tuple_element(done, 4)?;
        let d = coefficient(&mut c, m, i, i)?;
        let v = c.div(s, d, &[])?;
        let v = c.reshape(v, &[batch, 1, r])?;
        let x = c.dynamic_update_slice(x, v, &[zero, i, zero])?;
        let t = c.add(t, one, &[])?;
        let out = c.tuple(&[t, x, m])?;
        c.build(out)?
    };
    let zero = b.constant_scalar(0i32)?;
    let init = b.tuple(&[zero, rhs, m])?;
    let done = b.while_loop(&outer_cond, &outer_body, init)?;
    b.get_tuple_element(done, 1)
}

/// `triangular-solve(a, rhs)` (f32, f64, bf16 or f16) built from primitives in the
/// interpreter's order: `op(a)` made dense (the triangle read, ones on the
/// diagonal for `unit_diagonal`, zeros elsewhere, transposed for
/// `TRANSPOSE`/`ADJOINT`), then substitution; the right side solves the
/// transposed system and transposes back. `None` for another type.
///
/// ```
/// use oxla_ir::{Builder, ElementType::F32, Shape, Transpose, TriangularSolveOptions, passes::linalg};
/// let mut b = Builder::new("solve");
/// let a = b.parameter(0, Shape::new(F32, &[3, 3]), "a")?;
/// let y = b.parameter(1, Shape::new(F32, &[3, 2]), "y")?;
/// let options = TriangularSolveOptions {
///     left_side: true, lower: true, unit_diagonal: false, transpose_a: Transpose::NoTranspose,
/// };
/// let x = linalg::triangular_solve(&mut b, a, y, &options)?.unwrap();
/// assert_eq!(b.shape(x)?.to_string(), "f32[3,2]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn triangular_solve(
    b: &mut Builder,
    a: Op,
    rhs: Op,
    options: &crate::TriangularSolveOptions,
) -> Result<Option<Op>> {
    let ashape = b.shape(a)?;
    let bshape = b.shape(rhs)?;
    let ty = bshape.element_type();
    if !matches!(
        ty,
        ElementType::F32 | ElementType::F64 | ElementType::Bf16 | ElementType::F16
    ) {
        return Ok(None);
    }
    let dims = bshape.dims().to_vec();
    let [batch_dims @ .., rows, cols] = dims.as_slice() else {
        return Ok(None);
    };
    let (rows, cols) = (*rows, *cols);
    let k = if options.left_side { rows } else { cols };
    let batch = batch_dims.iter().product::<i64>().max(0);
    if ashape.element_count() != batch * k * k || batch * rows * cols == 0 {
        // No right-hand side: nothing to solve (the result is empty).
        return if batch * rows * cols == 0 {
            Ok(Some(rhs))
        } else {
            Ok(None)
        };
    }
    let transposed = match options.transpose_a {
        crate::Transpose::NoTranspose => false,
        crate::Transpose::Transpose | crate::Transpose::Adjoint => true,
    };
    // m = op(a), dense.
    let a3 = b.reshape(a, &[batch, k, k])?;
    let idx = Shape::new(ElementType::S32, &[batch, k, k]);
    let i = b.iota(idx.clone(), 1)?;
    let j = b.iota(idx, 2)?;
    let in_triangle = if options.lower {
        b.ge(i, j, &[])?
    } else {
        b.le(i, j, &[])?
    };
    let zero = float(b, ty, 0.0)?;
    let zeros = b.broadcast_in_dim(zero, &[batch, k, k], &[])?;
    let mut m = b.select(in_triangle, a3, zeros)?;
    if options.unit_diagonal {
        let on = b.eq(i, j, &[])?;
        let one = float(b, ty, 1.0)?;
        let ones = b.broadcast_in_dim(one, &[batch, k, k], &[])?;
        m = b.select(on, ones, m)?;
    }
    if transposed {
        m = b.transpose(m, &[0, 2, 1])?;
    }
    let rhs3 = b.reshape(rhs, &[batch, rows, cols])?;
    let op_lower = options.lower != transposed;
    let lower = op_lower == options.left_side;
    let x = if options.left_side {
        substitute(b, m, rhs3, ty, (batch, k, cols), lower)?
    } else {
        let mt = b.transpose(m, &[0, 2, 1])?;
        let bt = b.transpose(rhs3, &[0, 2, 1])?;
        let xt = substitute(b, mt, bt, ty, (batch, k, rows), lower)?;
        b.transpose(xt, &[0, 2, 1])?
    };
    b.reshape(x, &dims).map(Some)
}

/// `comp` with every `cholesky` and `triangular-solve` of f32, f64, bf16
/// or f16 built from primitives ([`cholesky`], [`triangular_solve`]).
///
/// ```
/// use oxla_ir::{Builder, ElementType::F32, OpKind, Shape, passes::linalg};
/// let mut b = Builder::new("chol");
/// let a = b.parameter(0, Shape::new(F32, &[4, 4]), "a")?;
/// let l = b.cholesky(a, false)?;
/// let comp = b.build(l)?;
/// let out = linalg::expand_all(&comp)?;
/// let mut ops = out.bodies().iter().flat_map(|b| &b.instructions);
/// assert!(ops.all(|i| !matches!(i.kind, OpKind::Cholesky { .. })));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn expand_all(comp: &Computation) -> Result<Computation> {
    super::expand_ops(comp, "linalg::expand_all pass", |inst, operands| {
        let mut b = Builder::new(&inst.kind.opcode_name().replace('-', "_"));
        let out = if let (OpKind::Cholesky { lower }, [operand]) = (&inst.kind, operands) {
            let a = b.parameter(0, operand.clone(), "a")?;
            cholesky(&mut b, a, *lower)?
        } else if let (OpKind::TriangularSolve { options }, [sa, sb]) = (&inst.kind, operands) {
            let a = b.parameter(0, sa.clone(), "a")?;
            let y = b.parameter(1, sb.clone(), "b")?;
            triangular_solve(&mut b, a, y, options)?
        } else {
            return Ok(None);
        };
        match out {
            Some(root) => b.build(root).map(Some),
            None => Ok(None),
        }
    })
}
