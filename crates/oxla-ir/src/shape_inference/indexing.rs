//! Shape inference for the indexing family: `gather`, `scatter`,
//! `dynamic-slice` and `dynamic-update-slice`.
//!
//! The checks run in the order of XLA's `InferGatherShape`,
//! `InferScatterShape`, `InferDynamicSliceShape` and
//! `InferDynamicUpdateSliceShape` (confirmed against the HLO parser of the
//! XLA in jaxlib 0.10.2, which infers an omitted shape with these
//! functions), each failure an [`OpProblem`] whose message starts with XLA's
//! sentence. After XLA's own checks come the ones StableHLO's spec adds and
//! XLA leaves out (XLA accepts, and then computes something arbitrary for):
//! collapsed (inserted) and batching dimensions are disjoint, the index map
//! names no batching dimension, the index vector dimension is not a batching
//! dimension, paired batching dimensions have one size, and a variadic
//! scatter's inputs (and updates) share their dims.
//!
//! Invariant: a dimension-number set that passes these checks describes a
//! gather or scatter the interpreter can evaluate without any further
//! bounds check on the dimension numbers themselves: every list entry is a
//! dimension of what it indexes, the lists partition the dimensions they
//! must, and every slice fits in its operand.

use super::{invalid, require_array, validate_result};
use crate::ir::{GatherDimensionNumbers, ScatterDimensionNumbers};
use crate::{OpProblem, Result, Shape};

const GATHER: &str = "gather";
const SCATTER: &str = "scatter";

/// The indices' dims with the implicit trailing 1 when `index_vector_dim`
/// equals their rank (XLA's "expanded" start indices shape).
fn expanded_indices_dims(indices: &Shape, index_vector_dim: i64) -> Vec<i64> {
    let mut dims = indices.dims().to_vec();
    if index_vector_dim as usize == dims.len() {
        dims.push(1);
    }
    dims
}

/// Checks that `indices` is an integer array and that `index_vector_dim`
/// is in `[0, rank]`; returns the expanded indices dims.
fn check_indices(op: &'static str, indices: &Shape, index_vector_dim: i64) -> Result<Vec<i64>> {
    if !indices.element_type().is_integer() {
        return Err(invalid(
            op,
            OpProblem::IndicesNotIntegral {
                op,
                indices: indices.clone(),
            },
        ));
    }
    if index_vector_dim < 0 || index_vector_dim as usize > indices.rank() {
        return Err(invalid(
            op,
            OpProblem::IndexVectorDimOutOfRange {
                op,
                indices: indices.clone(),
                index_vector_dim,
            },
        ));
    }
    Ok(expanded_indices_dims(indices, index_vector_dim))
}

/// One check of a dimension list, so that each list can run its checks in
/// the order XLA runs them.
#[derive(Clone, Copy)]
enum ListCheck {
    /// Non-decreasing (XLA's `c_is_sorted`).
    Sorted,
    /// No two equal neighbours (after sorting when the list need not be
    /// sorted).
    Unique,
    /// Every entry in `[0, bound)`.
    InRange(i64),
}

fn check_list(
    op: &'static str,
    list: &'static str,
    dims: &[i64],
    checks: &[ListCheck],
) -> Result<()> {
    for check in checks {
        let problem = match *check {
            ListCheck::Sorted => (!dims.is_sorted()).then(|| OpProblem::IndexDimsUnsorted {
                op,
                list,
                dims: dims.to_vec(),
            }),
            ListCheck::Unique => {
                let mut sorted = dims.to_vec();
                sorted.sort_unstable();
                sorted
                    .windows(2)
                    .any(|w| w[0] == w[1])
                    .then(|| OpProblem::IndexDimsRepeated {
                        op,
                        list,
                        dims: dims.to_vec(),
                    })
            }
            ListCheck::InRange(bound) => {
                dims.iter()
                    .position(|&d| d < 0 || d >= bound)
                    .map(|position| OpProblem::IndexDimOutOfRange {
                        op,
                        list,
                        dims: dims.to_vec(),
                        position,
                        bound,
                    })
            }
        };
        if let Some(problem) = problem {
            return Err(invalid(op, problem));
        }
    }
    Ok(())
}

/// StableHLO's rule that two lists share no dimension.
fn check_disjoint(
    op: &'static str,
    (first, first_dims): (&'static str, &[i64]),
    (second, second_dims): (&'static str, &[i64]),
) -> Result<()> {
    match first_dims.iter().find(|d| second_dims.contains(d)) {
        None => Ok(()),
        Some(&dimension) => Err(invalid(
            op,
            OpProblem::IndexDimsOverlap {
                op,
                first,
                first_dims: first_dims.to_vec(),
                second,
                second_dims: second_dims.to_vec(),
                dimension,
            },
        )),
    }
}

/// StableHLO's batching rules: the index vector dimension is not a batching
/// dimension of the indices, and paired batching dimensions have one size.
/// The lists are in range and of one length (checked before).
#[allow(clippy::too_many_arguments)]
fn check_batching_pairs(
    op: &'static str,
    operand: &Shape,
    indices: &Shape,
    expanded: &[i64],
    index_vector_dim: i64,
    indices_list: &'static str,
    operand_batching: &[i64],
    indices_batching: &[i64],
) -> Result<()> {
    if indices_batching.contains(&index_vector_dim) {
        return Err(invalid(
            op,
            OpProblem::IndexVectorDimIsBatching {
                op,
                list: indices_list,
                dims: indices_batching.to_vec(),
                index_vector_dim,
                indices: indices.clone(),
            },
        ));
    }
    for (&o, &i) in operand_batching.iter().zip(indices_batching) {
        if operand.dims()[o as usize] != expanded[i as usize] {
            return Err(invalid(
                op,
                OpProblem::BatchingDimSizes {
                    operand: operand.clone(),
                    indices: indices.clone(),
                    operand_dimension: o,
                    indices_dimension: i,
                },
            ));
        }
    }
    Ok(())
}

/// `gather`: XLA's `InferGatherShape`, then StableHLO's extra rules.
///
/// The result has rank `|offset_dims| + rank(indices) - 1` (counting an
/// implicit trailing index vector dimension): at `offset_dims`, the slice
/// sizes of the operand dimensions that are neither collapsed nor
/// batching, in order; elsewhere, the indices' dimensions other than
/// `index_vector_dim`, in order.
///
/// ```
/// use oxla_ir::{shape_inference::infer_gather_shape, ElementType::{F32, S32}};
/// use oxla_ir::{GatherDimensionNumbers, Shape};
/// // An embedding lookup: rows of f32[10,3] at 5 ids.
/// let dims = GatherDimensionNumbers {
///     offset_dims: vec![1],
///     collapsed_slice_dims: vec![0],
///     start_index_map: vec![0],
///     index_vector_dim: 1,
///     ..Default::default()
/// };
/// let table = Shape::new(F32, &[10, 3]);
/// let ids = Shape::new(S32, &[5]);
/// assert_eq!(infer_gather_shape(&table, &ids, &dims, &[1, 3])?.to_string(), "f32[5,3]");
/// let err = infer_gather_shape(&table, &ids, &dims, &[2, 3]).unwrap_err();
/// assert!(err.to_string().contains("Gather op can only collapse slice dims with bound 1 or 0"));
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_gather_shape(
    operand: &Shape,
    indices: &Shape,
    dims: &GatherDimensionNumbers,
    slice_sizes: &[i64],
) -> Result<Shape> {
    use ListCheck::{InRange, Sorted, Unique};
    let op = GATHER;
    require_array(op, "the input tensor operand of gather op", operand)?;
    require_array(op, "the gather indices operand of gather op", indices)?;
    let ivd = dims.index_vector_dim;
    let expanded = check_indices(op, indices, ivd)?;
    // XLA's ValidateGatherDimensionNumbers.
    let result_rank = (dims.offset_dims.len() + expanded.len() - 1) as i64;
    check_list(
        op,
        "offset_dims",
        &dims.offset_dims,
        &[Sorted, Unique, InRange(result_rank)],
    )?;
    let bound = expanded[ivd as usize];
    if dims.start_index_map.len() as i64 != bound {
        return Err(invalid(
            op,
            OpProblem::IndexVectorSize {
                op,
                list: "start_index_map",
                entries: dims.start_index_map.len(),
                index_vector_dim: ivd,
                bound,
            },
        ));
    }
    let operand_rank = operand.rank() as i64;
    check_list(
        op,
        "start_index_map",
        &dims.start_index_map,
        &[InRange(operand_rank), Unique],
    )?;
    check_list(
        op,
        "collapsed_slice_dims",
        &dims.collapsed_slice_dims,
        &[InRange(operand_rank), Sorted, Unique],
    )?;
    if dims.operand_batching_dims.len() != dims.start_indices_batching_dims.len() {
        return Err(invalid(
            op,
            OpProblem::BatchingDimsLength {
                op,
                operand_dims: dims.operand_batching_dims.clone(),
                indices_dims: dims.start_indices_batching_dims.clone(),
            },
        ));
    }
    check_list(
        op,
        "operand_batching_dims",
        &dims.operand_batching_dims,
        &[InRange(operand_rank), Sorted, Unique],
    )?;
    check_list(
        op,
        "start_indices_batching_dims",
        &dims.start_indices_batching_dims,
        &[InRange(expanded.len() as i64), Unique],
    )?;
    // The rest of XLA's InferGatherShape.
    if slice_sizes.len() != operand.rank() {
        return Err(invalid(
            op,
            OpProblem::GatherSliceSizesCount {
                operand: operand.clone(),
                slice_sizes: slice_sizes.to_vec(),
            },
        ));
    }
    let components =
        dims.offset_dims.len() + dims.collapsed_slice_dims.len() + dims.operand_batching_dims.len();
    if slice_sizes.len() != components {
        return Err(invalid(
            op,
            OpProblem::GatherOffsetComponents {
                slice_sizes: slice_sizes.to_vec(),
                offset_dims: dims.offset_dims.clone(),
                collapsed_slice_dims: dims.collapsed_slice_dims.clone(),
                operand_batching_dims: dims.operand_batching_dims.clone(),
            },
        ));
    }
    for (index, (&size, &dim)) in slice_sizes.iter().zip(operand.dims()).enumerate() {
        if size < 0 || size > dim {
            return Err(invalid(
                op,
                OpProblem::GatherSliceSize {
                    operand: operand.clone(),
                    index,
                    size,
                },
            ));
        }
    }
    for (batching, list) in [
        (false, &dims.collapsed_slice_dims),
        (true, &dims.operand_batching_dims),
    ] {
        for (position, &dimension) in list.iter().enumerate() {
            let size = slice_sizes[dimension as usize];
            if size > 1 {
                return Err(invalid(
                    op,
                    OpProblem::GatherSliceBound {
                        batching,
                        dimension,
                        size,
                        position,
                    },
                ));
            }
        }
    }
    // StableHLO's rules.
    check_disjoint(
        op,
        ("collapsed_slice_dims", &dims.collapsed_slice_dims),
        ("operand_batching_dims", &dims.operand_batching_dims),
    )?;
    check_disjoint(
        op,
        ("start_index_map", &dims.start_index_map),
        ("operand_batching_dims", &dims.operand_batching_dims),
    )?;
    check_batching_pairs(
        op,
        operand,
        indices,
        &expanded,
        ivd,
        "start_indices_batching_dims",
        &dims.operand_batching_dims,
        &dims.start_indices_batching_dims,
    )?;
    // The result: slice sizes at the offset dims, batch dims elsewhere.
    let mut window = (0..operand_rank)
        .filter(|d| {
            !dims.collapsed_slice_dims.contains(d) && !dims.operand_batching_dims.contains(d)
        })
        .map(|d| slice_sizes[d as usize]);
    let mut batch = (0..expanded.len())
        .filter(|&d| d as i64 != ivd)
        .map(|d| expanded[d]);
    let out: Vec<i64> = (0..result_rank)
        .map(|i| {
            if dims.offset_dims.contains(&i) {
                window.next()
            } else {
                batch.next()
            }
            .unwrap_or(0)
        })
        .collect();
    validate_result(
        op,
        Shape::new(operand.element_type(), &out),
        &[operand, indices],
    )
}

/// XLA's `ValidateScatterDimensionNumbers` (with the batching lists of
/// current XLA), then StableHLO's extra rules, for one input.
fn check_scatter_dimension_numbers(
    input: &Shape,
    indices: &Shape,
    expanded: &[i64],
    updates: &Shape,
    dims: &ScatterDimensionNumbers,
) -> Result<()> {
    use ListCheck::{InRange, Sorted, Unique};
    let op = SCATTER;
    let input_rank = input.rank() as i64;
    check_list(
        op,
        "update_window_dims",
        &dims.update_window_dims,
        &[Sorted, Unique, InRange(updates.rank() as i64)],
    )?;
    check_list(
        op,
        "inserted_window_dims",
        &dims.inserted_window_dims,
        &[Sorted, Unique, InRange(input_rank)],
    )?;
    let window_size = (dims.update_window_dims.len()
        + dims.inserted_window_dims.len()
        + dims.input_batching_dims.len()) as i64;
    if window_size != input_rank {
        return Err(invalid(
            op,
            OpProblem::ScatterWindowSize {
                window_size,
                input: input.clone(),
            },
        ));
    }
    let ivd = dims.index_vector_dim;
    let bound = expanded[ivd as usize];
    if dims.scatter_dims_to_operand_dims.len() as i64 != bound {
        return Err(invalid(
            op,
            OpProblem::IndexVectorSize {
                op,
                list: "scatter_dims_to_operand_dims",
                entries: dims.scatter_dims_to_operand_dims.len(),
                index_vector_dim: ivd,
                bound,
            },
        ));
    }
    check_list(
        op,
        "scatter_dims_to_operand_dims",
        &dims.scatter_dims_to_operand_dims,
        &[InRange(input_rank), Unique],
    )?;
    if dims.input_batching_dims.len() != dims.scatter_indices_batching_dims.len() {
        return Err(invalid(
            op,
            OpProblem::BatchingDimsLength {
                op,
                operand_dims: dims.input_batching_dims.clone(),
                indices_dims: dims.scatter_indices_batching_dims.clone(),
            },
        ));
    }
    check_list(
        op,
        "input_batching_dims",
        &dims.input_batching_dims,
        &[Sorted, Unique, InRange(input_rank)],
    )?;
    check_list(
        op,
        "scatter_indices_batching_dims",
        &dims.scatter_indices_batching_dims,
        &[InRange(expanded.len() as i64), Unique],
    )?;
    // StableHLO's rules.
    check_disjoint(
        op,
        ("inserted_window_dims", &dims.inserted_window_dims),
        ("input_batching_dims", &dims.input_batching_dims),
    )?;
    check_disjoint(
        op,
        (
            "scatter_dims_to_operand_dims",
            &dims.scatter_dims_to_operand_dims,
        ),
        ("input_batching_dims", &dims.input_batching_dims),
    )?;
    check_batching_pairs(
        op,
        input,
        indices,
        expanded,
        ivd,
        "scatter_indices_batching_dims",
        &dims.input_batching_dims,
        &dims.scatter_indices_batching_dims,
    )
}

/// XLA's `VerifyReducerShape` for an update computation over `inputs`
/// arrays: `2N` scalar parameters `(acc_0..acc_{N-1}, x_0..x_{N-1})`, the
/// result a scalar (N = 1) or an N-tuple of scalars, `acc_i` of the
/// result's `i`-th type, which is `input_types[i]`, and `x_i` of
/// `update_types[i]`.
fn verify_update_computation(
    op: &'static str,
    parameters: &[Shape],
    result: &Shape,
    input_types: &[Shape],
    update_types: &[Shape],
) -> Result<()> {
    let n = input_types.len();
    let fail = |problem| Err(invalid(op, problem));
    if parameters.len() != 2 * n {
        return fail(OpProblem::ReductionFunctionParameterCount {
            expected: 2 * n,
            parameters: parameters.to_vec(),
            result: result.clone(),
        });
    }
    let accumulators: Vec<&Shape> = if result.is_array() {
        if n != 1 {
            return fail(OpProblem::ReductionFunctionResultArity {
                expected: n,
                result: result.clone(),
            });
        }
        vec![result]
    } else {
        if result.tuple_shapes().len() != n {
            return fail(OpProblem::ReductionFunctionResultArity {
                expected: n,
                result: result.clone(),
            });
        }
        result.tuple_shapes().iter().collect()
    };
    if accumulators.iter().any(|a| !a.is_scalar()) {
        return fail(OpProblem::ReductionFunctionResultNotScalar {
            result: result.clone(),
        });
    }
    for i in 0..n {
        let acc = accumulators[i];
        if *acc != parameters[i] {
            return fail(OpProblem::ReductionFunctionParameterResult {
                index: i,
                parameter: parameters[i].clone(),
                result: acc.clone(),
            });
        }
        if *acc != input_types[i] {
            return fail(OpProblem::ReductionFunctionAccumulatorInit {
                index: i,
                accumulator: acc.clone(),
                init: input_types[i].clone(),
            });
        }
        if parameters[n + i] != update_types[i] {
            return fail(OpProblem::ReductionFunctionInputType {
                index: n + i,
                parameter: parameters[n + i].clone(),
                input: update_types[i].clone(),
            });
        }
        if *acc != parameters[n + i] {
            return fail(OpProblem::ReductionFunctionParameterMatch {
                index: n + i,
                parameter: parameters[n + i].clone(),
                result: acc.clone(),
            });
        }
    }
    Ok(())
}

/// `scatter` over `operands = [input_0..input_{N-1}, indices,
/// update_0..update_{N-1}]`, with the update computation's signature:
/// XLA's `InferScatterShape`, then StableHLO's extra rules. The result is
/// the input's shape (N = 1) or the tuple of the inputs' shapes.
///
/// ```
/// use oxla_ir::{shape_inference::infer_scatter_shape, ElementType::{F32, S32}};
/// use oxla_ir::{ScatterDimensionNumbers, Shape};
/// // x.at[idx].add(u) for x: f32[6], idx: s32[4], u: f32[4].
/// let dims = ScatterDimensionNumbers {
///     inserted_window_dims: vec![0],
///     scatter_dims_to_operand_dims: vec![0],
///     index_vector_dim: 1,
///     ..Default::default()
/// };
/// let (x, idx, u) = (Shape::new(F32, &[6]), Shape::new(S32, &[4]), Shape::new(F32, &[4]));
/// let add = [Shape::scalar(F32), Shape::scalar(F32)];
/// let s = infer_scatter_shape(&[&x, &idx, &u], &dims, &add, &Shape::scalar(F32))?;
/// assert_eq!(s.to_string(), "f32[6]");
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_scatter_shape(
    operands: &[&Shape],
    dims: &ScatterDimensionNumbers,
    to_apply_parameters: &[Shape],
    to_apply_result: &Shape,
) -> Result<Shape> {
    let op = SCATTER;
    let n = operands.len() / 2;
    if operands.len() != 2 * n + 1 || n == 0 {
        return Err(invalid(
            op,
            OpProblem::ScatterOperandCount {
                operands: operands.iter().map(|s| (*s).clone()).collect(),
            },
        ));
    }
    let (inputs, rest) = operands.split_at(n);
    let (indices, updates) = (rest[0], &rest[1..]);
    require_array(op, "the scatter indices of scatter op", indices)?;
    let ivd = dims.index_vector_dim;
    let expanded = check_indices(op, indices, ivd)?;
    for (i, (&input, &update)) in inputs.iter().zip(updates).enumerate() {
        require_array(op, &format!("operand {i} of scatter op"), input)?;
        require_array(op, &format!("updates {i} of scatter op"), update)?;
        let expected = (expanded.len() - 1 + dims.update_window_dims.len()) as i64;
        if update.rank() as i64 != expected {
            return Err(invalid(
                op,
                OpProblem::ScatterUpdatesRank {
                    expected,
                    updates: update.clone(),
                    indices: indices.clone(),
                },
            ));
        }
        check_scatter_dimension_numbers(input, indices, &expanded, update, dims)?;
        // The window bounds: the input dims that are neither inserted nor
        // batching, in order, pair with update_window_dims.
        let window_bounds: Vec<i64> = (0..input.rank() as i64)
            .filter(|d| {
                !dims.inserted_window_dims.contains(d) && !dims.input_batching_dims.contains(d)
            })
            .map(|d| input.dims()[d as usize])
            .collect();
        for (&dimension, &operand_bound) in dims.update_window_dims.iter().zip(&window_bounds) {
            let updates_bound = update.dims()[dimension as usize];
            if updates_bound > operand_bound {
                return Err(invalid(
                    op,
                    OpProblem::ScatterWindowBound {
                        dimension,
                        updates_bound,
                        operand_bound,
                    },
                ));
            }
        }
        let mut scatter_dims = (0..expanded.len())
            .filter(|&d| d as i64 != ivd)
            .map(|d| expanded[d]);
        for (dimension, &updates_bound) in update.dims().iter().enumerate() {
            let dimension = dimension as i64;
            if dims.update_window_dims.contains(&dimension) {
                continue;
            }
            let indices_bound = scatter_dims.next().unwrap_or(-1);
            if updates_bound != indices_bound {
                return Err(invalid(
                    op,
                    OpProblem::ScatterScatterBound {
                        dimension,
                        updates_bound,
                        indices_bound,
                    },
                ));
            }
        }
    }
    // StableHLO: one shape for all inputs, one for all updates.
    for (what, group) in [("inputs", inputs), ("updates", updates)] {
        if group.iter().any(|s| s.dims() != group[0].dims()) {
            return Err(invalid(
                op,
                OpProblem::ScatterOperandDims {
                    what,
                    shapes: group.iter().map(|s| (*s).clone()).collect(),
                },
            ));
        }
    }
    let scalars = |group: &[&Shape]| -> Vec<Shape> {
        group
            .iter()
            .map(|s| Shape::scalar(s.element_type()))
            .collect()
    };
    verify_update_computation(
        op,
        to_apply_parameters,
        to_apply_result,
        &scalars(inputs),
        &scalars(updates),
    )?;
    Ok(if n == 1 {
        inputs[0].clone()
    } else {
        Shape::tuple(inputs.iter().map(|s| (*s).clone()).collect())
    })
}

/// Checks the start indices of `dynamic-slice` or `dynamic-update-slice`
/// (XLA's two forms: one scalar per operand dimension, all of one type, or
/// the older single rank-1 index vector).
fn check_dynamic_indices(op: &'static str, operand: &Shape, indices: &[&Shape]) -> Result<()> {
    let fail = |problem| Err(invalid(op, problem));
    let vector_form = indices
        .first()
        .is_some_and(|i| i.is_array() && i.rank() == 1);
    if vector_form {
        if indices.len() != 1 {
            return fail(OpProblem::DynamicSliceIndexVectorCount {
                op,
                indices: indices.len(),
            });
        }
        let index = indices[0];
        if !index.element_type().is_integer() {
            return fail(OpProblem::DynamicSliceIndexType {
                op,
                index: index.clone(),
            });
        }
        if index.dims()[0] != operand.rank() as i64 {
            return fail(OpProblem::DynamicSliceIndexVectorLength {
                op,
                index: index.clone(),
                operand: operand.clone(),
            });
        }
        return Ok(());
    }
    if indices.len() != operand.rank() {
        return fail(OpProblem::DynamicSliceIndexCount {
            op,
            indices: indices.len(),
            operand: operand.clone(),
        });
    }
    let Some(&first) = indices.first() else {
        return Ok(());
    };
    if !first.is_scalar() {
        return fail(OpProblem::DynamicSliceIndexNotScalar {
            op,
            index: first.clone(),
        });
    }
    if !first.element_type().is_integer() {
        return fail(OpProblem::DynamicSliceIndexType {
            op,
            index: first.clone(),
        });
    }
    match indices.iter().find(|i| **i != first) {
        None => Ok(()),
        Some(other) => fail(OpProblem::DynamicSliceIndexShapes {
            op,
            first: first.clone(),
            other: (*other).clone(),
        }),
    }
}

/// `dynamic-slice`: XLA's `InferDynamicSliceShape`. The result is the
/// operand's element type with `slice_sizes`.
///
/// ```
/// use oxla_ir::{shape_inference::infer_dynamic_slice_shape, ElementType::{F32, S32}, Shape};
/// let x = Shape::new(F32, &[4, 4]);
/// let i = Shape::scalar(S32);
/// assert_eq!(infer_dynamic_slice_shape(&x, &[&i, &i], &[2, 2])?.to_string(), "f32[2,2]");
/// assert!(infer_dynamic_slice_shape(&x, &[&i, &i], &[5, 2]).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_dynamic_slice_shape(
    operand: &Shape,
    indices: &[&Shape],
    slice_sizes: &[i64],
) -> Result<Shape> {
    let op = "dynamic-slice";
    require_array(op, "the operand of dynamic slice", operand)?;
    check_dynamic_indices(op, operand, indices)?;
    if slice_sizes.len() != operand.rank() {
        return Err(invalid(
            op,
            OpProblem::DynamicSliceSizesCount {
                operand: operand.clone(),
                slice_sizes: slice_sizes.to_vec(),
            },
        ));
    }
    for (dimension, (&size, &dim)) in slice_sizes.iter().zip(operand.dims()).enumerate() {
        if size < 0 {
            return Err(invalid(
                op,
                OpProblem::DynamicSliceNegativeSize {
                    operand: operand.clone(),
                    size,
                },
            ));
        }
        if size > dim {
            return Err(invalid(
                op,
                OpProblem::DynamicSliceSizeTooLarge {
                    op,
                    operand: operand.clone(),
                    dimension,
                    size,
                },
            ));
        }
    }
    Ok(Shape::new(operand.element_type(), slice_sizes))
}

/// `dynamic-update-slice`: XLA's `InferDynamicUpdateSliceShape`. The
/// result is the operand's shape.
///
/// ```
/// use oxla_ir::{shape_inference::infer_dynamic_update_slice_shape, ElementType::{F32, S32}, Shape};
/// let (x, u, i) = (Shape::new(F32, &[4, 4]), Shape::new(F32, &[2, 2]), Shape::scalar(S32));
/// assert_eq!(infer_dynamic_update_slice_shape(&x, &u, &[&i, &i])?.to_string(), "f32[4,4]");
/// assert!(infer_dynamic_update_slice_shape(&x, &u, &[&i]).is_err());
/// # Ok::<(), oxla_ir::Error>(())
/// ```
pub fn infer_dynamic_update_slice_shape(
    operand: &Shape,
    update: &Shape,
    indices: &[&Shape],
) -> Result<Shape> {
    let op = "dynamic-update-slice";
    require_array(op, "the operand of dynamic update slice", operand)?;
    require_array(op, "the update of dynamic update slice", update)?;
    check_dynamic_indices(op, operand, indices)?;
    if update.rank() != operand.rank() {
        return Err(invalid(
            op,
            OpProblem::DynamicUpdateSliceRank {
                operand: operand.clone(),
                update: update.clone(),
            },
        ));
    }
    if update.element_type() != operand.element_type() {
        return Err(invalid(
            op,
            OpProblem::DynamicUpdateSliceType {
                operand: operand.clone(),
                update: update.clone(),
            },
        ));
    }
    for (dimension, (&size, &dim)) in update.dims().iter().zip(operand.dims()).enumerate() {
        if size > dim {
            return Err(invalid(
                op,
                OpProblem::DynamicSliceSizeTooLarge {
                    op,
                    operand: operand.clone(),
                    dimension,
                    size,
                },
            ));
        }
    }
    Ok(operand.clone())
}
