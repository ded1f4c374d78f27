//! The per-kernel profile: with `OXLA_PROFILE=1` in the environment, every
//! executable times each item it runs (a kernel launch, a buffer copy) and
//! the setup of each run (output and scratch allocation), and prints the
//! totals to stderr when it is dropped, slowest first, so a slow model shows
//! where its time goes. [`crate::Executable::profile_text`] returns the same
//! table.
//!
//! Invariants: the variable is read once per process; with it unset the
//! run loop pays one relaxed load of a cached flag per item and takes no
//! lock. Timing never changes what runs or in which order.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// The environment variable that switches the profile on.
pub const PROFILE_VAR: &str = "OXLA_PROFILE";

/// Whether profiling is on (`OXLA_PROFILE` set to anything but `0` or
/// empty), read once.
pub(crate) fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var(PROFILE_VAR).is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// Totals per item of one executable.
#[derive(Default)]
pub(crate) struct Profile {
    /// Keyed by the item's address in the program (stable for the
    /// executable's life): label, total time, calls.
    items: Mutex<HashMap<usize, (String, Duration, u64)>>,
    /// Whole runs: total time, calls.
    runs: Mutex<(Duration, u64)>,
}

impl Profile {
    /// Adds `t` to the item at `key`, labelled by `label()` when new.
    pub(crate) fn add(&self, key: usize, label: impl FnOnce() -> String, t: Duration) {
        if let Ok(mut m) = self.items.lock() {
            let e = m.entry(key).or_insert_with(|| (label(), Duration::ZERO, 0));
            e.1 += t;
            e.2 += 1;
        }
    }

    /// Adds one whole run of `t`.
    pub(crate) fn add_run(&self, t: Duration) {
        if let Ok(mut r) = self.runs.lock() {
            r.0 += t;
            r.1 += 1;
        }
    }

    /// The table: one line per item, slowest first, with its share of the
    /// total run time; `None` when nothing ran.
    pub(crate) fn text(&self, name: &str) -> Option<String> {
        let (total, runs) = *self.runs.lock().ok()?;
        if runs == 0 {
            return None;
        }
        let mut items: Vec<(String, Duration, u64)> =
            self.items.lock().ok()?.values().cloned().collect();
        items.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let mut s = format!(
            "profile of `{name}`: {runs} run(s), {:.3} ms per run\n  {:>9} {:>6} {:>9}  item\n",
            ms(total) / runs as f64,
            "ms/run",
            "%",
            "calls/run"
        );
        for (label, t, calls) in &items {
            let _ = writeln!(
                s,
                "  {:>9.3} {:>5.1}% {:>9.1}  {label}",
                ms(*t) / runs as f64,
                100.0 * t.as_secs_f64() / total.as_secs_f64().max(1e-12),
                *calls as f64 / runs as f64
            );
        }
        Some(s)
    }
}
