//! Diagnostics: stable error codes, a one-line form for logs, and a drawn
//! form that lines the shapes up the way XLA's broadcasting text does.
//!
//! ```text
//! error[OX0106]: Broadcast dimension 0 mismatch: 3 != 2
//!   in add, broadcast_dimensions={0}
//!
//!     f32[2,3]  [ 2  3 ]
//!     f32[3]    [ 3    ]
//!                 ^ size 3 cannot broadcast to size 2 (neither is 1)
//!
//! help: broadcast_dimensions={1} would be valid:
//!
//!     f32[2,3]  [ 2  3 ]
//!     f32[3]    [    3 ]
//! ```
//!
//! `Display` on [`Error`] stays the full sentence (with its `help:`), and
//! every code is explained in `docs/errors.md`.

use crate::shape_inference::valid_broadcast_dimensions;
use crate::{Error, Shape};

impl Error {
    /// The stable code of this kind of error (`OX0106`), explained in
    /// `docs/errors.md`.
    ///
    /// ```
    /// use oxla_ir::{Builder, ElementType::F32, Shape};
    /// let mut b = Builder::new("e");
    /// let x = b.parameter(0, Shape::new(F32, &[2, 3]), "x")?;
    /// let v = b.parameter(1, Shape::new(F32, &[3]), "v")?;
    /// assert_eq!(b.add(x, v, &[0]).unwrap_err().code(), "OX0106");
    /// # Ok::<(), oxla_ir::Error>(())
    /// ```
    pub fn code(&self) -> &'static str {
        match self {
            Error::ElementTypeMismatch { .. } => "OX0001",
            Error::UnsupportedElementType { .. } => "OX0002",
            Error::BroadcastDimensionsNotIdentity { .. } => "OX0101",
            Error::ShapesMustBeEqualRank { .. } => "OX0102",
            Error::BroadcastDimensionsSize { .. } => "OX0103",
            Error::BroadcastDimensionNegative { .. } => "OX0104",
            Error::BroadcastDimensionTooLarge { .. } => "OX0105",
            Error::BroadcastDimensionMismatch { .. } => "OX0106",
            Error::BroadcastDimensionsOrder { .. } => "OX0107",
            Error::IncompatibleShapes { .. } => "OX0108",
            Error::InvalidShape { .. } => "OX0201",
            Error::InvalidOp { .. } => "OX0202",
            Error::FrontEnd { .. } => "OX0205",
            Error::ForeignOp { .. } => "OX0203",
            Error::InvalidParameter { .. } => "OX0204",
            Error::LiteralSize { .. } => "OX0301",
            Error::LiteralType { .. } => "OX0302",
            Error::ArgumentCount { .. } => "OX0401",
            Error::ArgumentShape { .. } => "OX0402",
            Error::OutputShape { .. } => "OX0403",
            Error::Verification { .. } => "OX0501",
            Error::Evaluation { .. } => "OX0601",
            Error::Parse { .. } => "OX0701",
            Error::JitNodeBudget { .. } => "OX0802",
            Error::JitFoldDepth { .. } => "OX0803",
            Error::JitAllocation { .. } => "OX0804",
            Error::Backend { .. } => "OX0801",
            Error::UnsupportedOp { .. } => "OX0805",
            Error::Io { .. } => "OX0901",
            Error::Internal { .. } => "OX0999",
        }
    }

    /// One line for logs: `[OX0106] Broadcast dimension 0 mismatch: 3 != 2;
    /// f32[3] and f32[2,3] (in add: ...)` — the message without its `help:`
    /// and with newlines folded.
    pub fn summary(&self) -> String {
        let text = self.to_string();
        let head = text.split("\nhelp:").next().unwrap_or(&text);
        let folded: Vec<&str> = head
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        format!("[{}] {}", self.code(), folded.join(" "))
    }

    /// The full diagnostic: code and headline, the shapes drawn aligned by
    /// the mapping that was asked for with a marker under the dimension that
    /// fails, and a `help:` with a drawing of a valid mapping when one
    /// exists (or why none does). Errors that are not about broadcasting
    /// render as their message under the code.
    pub fn render(&self) -> String {
        let text = self.to_string();
        let headline = text.lines().next().unwrap_or("").trim_end_matches('.');
        let headline = headline.split(" (in ").next().unwrap_or(headline);
        let mut out = format!("error[{}]: {headline}\n", self.code());
        match self.drawing() {
            Some(d) => out.push_str(&d),
            None => {
                for line in text.lines().skip(1) {
                    out.push_str(line);
                    out.push('\n');
                }
            }
        }
        out
    }

    fn drawing(&self) -> Option<String> {
        match self {
            Error::ShapesMustBeEqualRank {
                op,
                smaller,
                larger,
                ..
            } => Some(in_dim_drawing(
                op,
                smaller,
                larger,
                &[],
                None,
                "no mapping was given for the lower-rank operand",
            )),
            Error::BroadcastDimensionsSize {
                op,
                smaller,
                larger,
                broadcast_dimensions,
                ..
            } => Some(in_dim_drawing(
                op,
                smaller,
                larger,
                broadcast_dimensions,
                None,
                &format!(
                    "{} dimension(s) need {} mapping entries, {} were given",
                    smaller.rank(),
                    smaller.rank(),
                    broadcast_dimensions.len()
                ),
            )),
            Error::BroadcastDimensionNegative {
                op,
                smaller,
                larger,
                broadcast_dimensions,
                dimension,
                ..
            } => Some(in_dim_drawing(
                op,
                smaller,
                larger,
                broadcast_dimensions,
                broadcast_dimensions.iter().position(|d| d == dimension),
                &format!("dimension numbers start at 0; {dimension} names no dimension"),
            )),
            Error::BroadcastDimensionTooLarge {
                op,
                smaller,
                larger,
                broadcast_dimensions,
                dimension,
                rank,
                ..
            } => Some(in_dim_drawing(
                op,
                smaller,
                larger,
                broadcast_dimensions,
                broadcast_dimensions.iter().position(|d| d == dimension),
                &format!("{larger} has dimensions 0..{rank}; {dimension} is past the end"),
            )),
            Error::BroadcastDimensionMismatch {
                op,
                smaller,
                larger,
                broadcast_dimensions,
                index,
                smaller_size,
                larger_size,
                ..
            } => Some(in_dim_drawing(
                op,
                smaller,
                larger,
                broadcast_dimensions,
                Some(*index),
                &format!(
                    "size {smaller_size} cannot broadcast to size {larger_size} (neither is 1)"
                ),
            )),
            Error::BroadcastDimensionsOrder {
                op,
                smaller,
                larger,
                broadcast_dimensions,
                dimension,
                previous,
                ..
            } => Some(in_dim_drawing(
                op,
                smaller,
                larger,
                broadcast_dimensions,
                broadcast_dimensions.iter().position(|d| d == dimension),
                &format!(
                    "{dimension} comes after {previous}: the mapping must keep the order of the dimensions"
                ),
            )),
            Error::IncompatibleShapes {
                op,
                lhs,
                rhs,
                dimension,
                lhs_size,
                rhs_size,
                ..
            } => {
                let labels = [lhs.to_string(), rhs.to_string()];
                let rows = [
                    cells(lhs.dims(), lhs.rank(), None),
                    cells(rhs.dims(), rhs.rank(), None),
                ];
                let mut out = format!("  in {op}, equal ranks: sizes must match or be 1\n\n");
                out.push_str(&table(
                    &labels,
                    &rows,
                    Some(*dimension),
                    &format!("{lhs_size} vs {rhs_size}: neither is 1"),
                ));
                out.push_str(
                    "\nhelp: reshape, slice or broadcast one operand so that at every dimension the sizes are equal or one of them is 1.\n",
                );
                Some(out)
            }
            Error::BroadcastDimensionsNotIdentity {
                op,
                lhs,
                rhs,
                broadcast_dimensions,
                help,
            } => Some(format!(
                "  in {op}({lhs}, {rhs}), broadcast_dimensions={broadcast_dimensions}\n\n  operands of equal rank are matched dimension by dimension; a mapping cannot reorder them.\n\nhelp: {help}\n"
            )),
            _ => None,
        }
    }
}

/// A cell per dimension of `width` columns: `Some(size)` shows the size.
fn cells(dims: &[i64], width: usize, map: Option<&[i64]>) -> Vec<Option<i64>> {
    let mut row = vec![None; width];
    match map {
        None => {
            for (i, &d) in dims.iter().enumerate() {
                if i < width {
                    row[i] = Some(d);
                }
            }
        }
        Some(map) => {
            for (i, &d) in dims.iter().enumerate() {
                if let Some(&col) = map.get(i)
                    && col >= 0
                    && (col as usize) < width
                {
                    row[col as usize] = Some(d);
                }
            }
        }
    }
    row
}

/// Draws rows of dims in aligned columns; `mark` puts a caret under that
/// column of the last row with `note` beside it.
fn table(labels: &[String], rows: &[Vec<Option<i64>>], mark: Option<usize>, note: &str) -> String {
    let ncols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let col_width = rows
        .iter()
        .flatten()
        .flatten()
        .map(|v| v.to_string().len())
        .max()
        .unwrap_or(1)
        .max(1);
    let label_width = labels.iter().map(String::len).max().unwrap_or(0);
    let mut out = String::new();
    for (label, row) in labels.iter().zip(rows) {
        out.push_str(&format!("    {label:<label_width$}  ["));
        for c in 0..ncols {
            match row.get(c).copied().flatten() {
                Some(v) => out.push_str(&format!(" {v:>col_width$}")),
                None => out.push_str(&" ".repeat(col_width + 1)),
            }
        }
        out.push_str(" ]\n");
    }
    if let Some(m) = mark {
        let col = 4 + label_width + 3 + m.min(ncols) * (col_width + 1) + col_width - 1;
        out.push_str(&format!("{}^ {note}\n", " ".repeat(col)));
    } else if !note.is_empty() {
        out.push_str(&format!("    {note}\n"));
    }
    out
}

fn in_dim_drawing(
    op: &str,
    smaller: &Shape,
    larger: &Shape,
    map: &[i64],
    failing: Option<usize>,
    note: &str,
) -> String {
    let map_text = crate::shape::dims_text(map);
    let mut out = format!("  in {op}, broadcast_dimensions={map_text}\n\n");
    let labels = [larger.to_string(), smaller.to_string()];
    // Lay the smaller operand under the columns it was mapped to; when the
    // mapping is unusable (too short, out of range), left-align it.
    let usable =
        map.len() == smaller.rank() && map.iter().all(|&d| d >= 0 && (d as usize) < larger.rank());
    let small_row = if usable {
        cells(smaller.dims(), larger.rank(), Some(map))
    } else {
        cells(smaller.dims(), larger.rank().max(smaller.rank()), None)
    };
    let mark = failing.and_then(|i| {
        if usable {
            map.get(i).map(|&d| d as usize)
        } else {
            Some(i)
        }
    });
    let rows = [cells(larger.dims(), larger.rank(), None), small_row];
    out.push_str(&table(&labels, &rows, mark, note));
    match valid_broadcast_dimensions(smaller, larger).first() {
        Some(valid) => {
            out.push_str(&format!(
                "\nhelp: broadcast_dimensions={} would be valid:\n\n",
                crate::shape::dims_text(valid)
            ));
            let rows = [
                cells(larger.dims(), larger.rank(), None),
                cells(smaller.dims(), larger.rank(), Some(valid)),
            ];
            out.push_str(&table(&labels, &rows, None, ""));
        }
        None => out.push_str(&format!(
            "\nhelp: no broadcast_dimensions is valid: the dimensions of {smaller} cannot be matched, in increasing order, to dimensions of {larger} of equal size or size 1; reshape or transpose an operand first.\n"
        )),
    }
    out
}
