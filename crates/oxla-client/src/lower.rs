//! Lowering helpers shared by both worlds: the right-aligned mapping of a
//! lower-rank operand, and the functional update of a box-shaped region of
//! an array (what `x[i, ...] = v` becomes in a language without mutation).
//!
//! Everything here emits ops of the strict [`Builder`] only.

use oxla_ir::{Builder, Error, Literal, Op, PadDim, Result, Shape};

/// The dimensions that line a rank-`lower` operand up with the last
/// `lower` dimensions of a rank-`higher` one: `higher-lower .. higher`
/// (the identity for equal ranks, empty for a scalar). `lower` is at most
/// `higher`.
pub(crate) fn right_aligned(lower: usize, higher: usize) -> Vec<i64> {
    (higher.saturating_sub(lower) as i64..higher as i64).collect()
}

/// Dims printed as a list, `[2, 1]` (`[]` for a scalar), the way the
/// dims-only functions name shapes in their messages.
pub(crate) fn dims_list(dims: &[i64]) -> String {
    format!("{dims:?}")
}

/// An internal inconsistency turned into an error instead of a panic.
pub(crate) fn internal(op: &str, what: String) -> Error {
    Error::Internal {
        stage: format!("oxla-client ({op})"),
        message: what,
    }
}

/// Returns `target` with the box starting at `starts` replaced by `region`,
/// which has the target's rank and element type.
///
/// When the box is the whole target, `region` itself is the result;
/// otherwise the region is padded with zeros to the target's dims, a
/// `pred` mask (true inside the box) is built the same way, and a `select`
/// picks between the two:
///
/// ```text
/// padded = pad(region, 0, lo=starts, hi=dims-limits)
/// mask   = pad(broadcast(true, region dims), false, same config)
/// result = select(mask, padded, target)
/// ```
pub(crate) fn place(
    b: &mut Builder,
    op: &str,
    target: Op,
    starts: &[i64],
    region: Op,
) -> Result<Op> {
    let ts = b.shape(target)?;
    let rs = b.shape(region)?;
    if ts.rank() != rs.rank() || starts.len() != ts.rank() {
        return Err(internal(
            op,
            format!("region {rs} at {starts:?} does not have the rank of the target {ts}"),
        ));
    }
    let covers_all = starts.iter().all(|&s| s == 0) && rs.dims() == ts.dims();
    if covers_all {
        return Ok(region);
    }
    let config: Vec<PadDim> = starts
        .iter()
        .zip(rs.dims().iter().zip(ts.dims()))
        .map(|(&lo, (&r, &t))| PadDim {
            lo,
            hi: t - lo - r,
            interior: 0,
        })
        .collect();
    let zero = b.constant(Literal::zeros(&Shape::scalar(rs.element_type()))?)?;
    let padded = b.pad(region, zero, &config)?;
    let yes = b.constant_scalar(true)?;
    let no = b.constant_scalar(false)?;
    let inside = b.broadcast(yes, rs.dims())?;
    let mask = b.pad(inside, no, &config)?;
    b.select(mask, padded, target)
}
