//! The one-screen summary `lawgen check` prints for a valid package.

use crate::driver::Loaded;

/// Renders the summary of a checked package.
pub fn render(loaded: &Loaded) -> String {
    let m = &loaded.model;
    format!(
        "{} {}: {} predicates, {} rules, {} strata\n",
        m.name,
        m.version,
        m.preds.len(),
        m.rules.len(),
        m.strata.len()
    )
}
