//! Receipts (docs/service.md, "Receipts"): what makes a decision
//! reproducible and attributable. A receipt holds the canonical output, the
//! canonical facts it was evaluated on and their SHA-256, the package and
//! every package of its closure by name, version and semantic hash, the
//! date and the editions in force, the policy, the engine, the lawgen
//! version and the time it was made. It is written as one JSON line with
//! keys sorted, the line the decision log appends.

use lawgen_runtime::formats::facts::write_facts;
use lawgen_runtime::formats::output::canonical_json;
use lawgen_runtime::interp::{Conclusions, Facts};
use lawgen_runtime::program::{Catalog, Program};
use lawgen_runtime::Policy;
use serde_json::{json, Value};
use std::time::SystemTime;

/// The format name every receipt carries, and its version.
pub const FORMAT: &str = "lawgen.receipt/0.1";

/// A package as receipts name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackageId {
    pub name: String,
    pub version: String,
    /// The package's top-level `semanticHash`, when it declares one (the
    /// checker verifies a declared hash against the package).
    pub semantic_hash: Option<String>,
}

impl PackageId {
    /// `{"name", "semanticHash", "version"}`.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "version": self.version,
            "semanticHash": self.semantic_hash,
        })
    }
}

/// Every package of a checked package's import closure, the root first.
pub fn closure(catalog: &Catalog) -> Vec<PackageId> {
    catalog
        .packages
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (name, version) = p.rsplit_once(' ').unwrap_or((p.as_str(), ""));
            let semantic_hash = if catalog.semantic_hashes.is_empty() {
                (i == 0).then(|| catalog.semantic_hash.clone()).flatten()
            } else {
                catalog.semantic_hashes.get(i).cloned().flatten()
            };
            PackageId {
                name: name.to_owned(),
                version: version.to_owned(),
                semantic_hash,
            }
        })
        .collect()
}

/// One answered decision.
#[derive(Clone, Debug)]
pub struct Receipt {
    pub package: PackageId,
    pub closure: Vec<PackageId>,
    /// The facts as evaluated, written canonically
    /// (`lawgen_runtime::formats::facts::write_facts`): what a replay reads.
    pub facts: String,
    /// SHA-256 of [`Receipt::facts`], lower-case hex.
    pub facts_sha256: String,
    /// The canonical output, byte for byte what `lawgen eval` prints.
    pub output: String,
    /// The case's date, `YYYY-MM-DD`, when the package is dated.
    pub as_of: Option<String>,
    /// The editions in force on that date: (work, edition, in force).
    pub editions: Vec<(String, String, String)>,
    pub policy: String,
    pub engine: String,
    /// With a compiled engine: the SHA-256 of the generated module's
    /// source that evaluated it (`generatedSha256`, absent otherwise).
    pub generated_sha256: Option<String>,
    /// The version of lawgen that evaluated it.
    pub lawgen: String,
    /// When it was made, RFC 3339 in UTC to the second.
    pub made_at: String,
}

impl Receipt {
    /// The receipt of `conclusions`, evaluated on `facts`.
    pub fn new(
        package: PackageId,
        closure: Vec<PackageId>,
        facts: &Facts,
        catalog: &Catalog,
        conclusions: &Conclusions,
        engine: &str,
        now: SystemTime,
    ) -> Receipt {
        Receipt::of(
            package,
            closure,
            facts,
            catalog,
            Decided::of(conclusions),
            engine,
            now,
        )
    }

    /// The receipt of a decision on `facts`, however it was evaluated.
    pub fn of(
        package: PackageId,
        closure: Vec<PackageId>,
        facts: &Facts,
        catalog: &Catalog,
        decided: Decided,
        engine: &str,
        now: SystemTime,
    ) -> Receipt {
        let facts = write_facts(facts, catalog);
        Receipt {
            package,
            closure,
            facts_sha256: lawgen::sha256_hex(facts.as_bytes()),
            facts,
            output: decided.output,
            as_of: decided.as_of,
            editions: decided.editions,
            policy: decided.policy.as_str().to_owned(),
            engine: engine.to_owned(),
            generated_sha256: None,
            lawgen: env!("CARGO_PKG_VERSION").to_owned(),
            made_at: humantime::format_rfc3339_seconds(now).to_string(),
        }
    }

    /// The receipt as JSON, keys sorted.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "format": FORMAT,
            "package": self.package.to_json(),
            "closure": self.closure.iter().map(PackageId::to_json).collect::<Vec<_>>(),
            "facts": self.facts,
            "factsSha256": self.facts_sha256,
            "output": self.output,
            "asOf": self.as_of,
            "editions": self.editions.iter().map(|(work, edition, in_force)| json!({
                "work": work,
                "edition": edition,
                "inForce": in_force,
            })).collect::<Vec<_>>(),
            "policy": self.policy,
            "engine": self.engine,
            "lawgen": self.lawgen,
            "madeAt": self.made_at,
        });
        if let Some(h) = &self.generated_sha256 {
            v["generatedSha256"] = h.as_str().into();
        }
        v
    }
}

/// What a receipt records of an evaluation: the canonical output, the date
/// and editions it was evaluated as of, the policy.
#[derive(Clone, Debug)]
pub struct Decided {
    pub output: String,
    pub as_of: Option<String>,
    /// (work, edition, in force), as the output's `editions`.
    pub editions: Vec<(String, String, String)>,
    pub policy: Policy,
}

impl Decided {
    /// The reference interpreter's conclusions.
    pub fn of(conclusions: &Conclusions) -> Decided {
        Decided {
            output: canonical_json(conclusions),
            as_of: conclusions.as_of.map(|d| d.to_string()),
            editions: conclusions
                .editions
                .iter()
                .map(|e| (e.work.clone(), e.edition.clone(), e.in_force.clone()))
                .collect(),
            policy: conclusions.policy,
        }
    }

    /// `output`, the canonical output of `facts` under `policy` that a
    /// compiled engine printed; dated as the interpreter dates the case
    /// (the date and editions of the law in force on the facts' `asOf`).
    pub fn compiled(program: &Program, facts: &Facts, policy: Policy, output: String) -> Decided {
        let in_force = lawgen_runtime::interp::in_force(program, facts).ok();
        Decided {
            output,
            as_of: in_force
                .as_ref()
                .and_then(|f| f.date)
                .map(|d| d.to_string()),
            editions: in_force
                .as_ref()
                .map_or_else(Vec::new, |f| program.catalog.law.rows(f))
                .into_iter()
                .map(|e| (e.work, e.edition, e.in_force))
                .collect(),
            policy,
        }
    }
}
