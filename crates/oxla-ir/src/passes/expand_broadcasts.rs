//! `expand_broadcasts`: rewrites a computation into XLA's strict HLO form.
//! (Being written.)

use crate::{Computation, Result};

/// Rewrites `comp` so that no instruction broadcasts implicitly.
pub fn expand_broadcasts(comp: &Computation) -> Result<Computation> {
    Ok(comp.clone())
}
