//! Package names → Rust identifiers, deterministically and injectively.
//!
//! No string from a package reaches generated code except through here (as
//! an identifier) or as an escaped literal / escaped comment. Identifiers are
//! ASCII: other characters become `x<hex>` so that no Unicode lint
//! (confusables, mixed scripts, bidi controls) can fire on generated code.
//! Keywords get a trailing `_`. Collisions after sanitizing get `_2`, `_3`, …
//! in the order names are claimed, which is the package's declaration order.
//! Names the generated code itself defines or uses unqualified are reserved
//! in the namespace they live in ([`RESERVED`]), so a package name never
//! takes one. [`ApiNames`] claims every identifier of a module's typed API
//! from the program's catalog.

use crate::program::Catalog;
use crate::program::RelationKind;
use crate::program::{local_name, Lit, PredId};
use proc_macro2::{Ident, Span};
use std::collections::{HashMap, HashSet};

/// Rust's keywords (strict, reserved and weak): a name equal to one gets a
/// trailing `_`.
pub const KEYWORDS: &[&str] = &[
    "as",
    "async",
    "await",
    "break",
    "const",
    "continue",
    "crate",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "fn",
    "for",
    "gen",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "self",
    "Self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
    "abstract",
    "become",
    "box",
    "do",
    "final",
    "macro",
    "override",
    "priv",
    "try",
    "typeof",
    "unsized",
    "virtual",
    "yield",
    "union",
    "macro_rules",
];

/// Splits a name into lowercase ASCII words; other characters become
/// `x<hex>` words so distinct names stay distinct.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if c.is_ascii_alphanumeric() {
            // camelCase boundary
            if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
            cur.push(c.to_ascii_lowercase());
        } else {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            if !matches!(c, '_' | '-' | '.' | ' ' | '/' | ':' | '#') {
                out.push(format!("x{:x}", c as u32));
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `snake_case`, never empty, never a keyword, never starting with a digit.
pub fn snake(name: &str) -> String {
    let w = words(name);
    let mut s = if w.is_empty() {
        "unnamed".to_owned()
    } else {
        w.join("_")
    };
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'n');
    }
    if KEYWORDS.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// `CamelCase`, never empty, never a keyword, never starting with a digit.
pub fn camel(name: &str) -> String {
    let w = words(name);
    let mut s: String = w
        .iter()
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect();
    if s.is_empty() {
        s = "Unnamed".to_owned();
    }
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'T');
    }
    if KEYWORDS.contains(&s.as_str()) {
        s.push('_');
    }
    s
}

/// `SCREAMING_SNAKE_CASE` for associated constants.
pub fn screaming(name: &str) -> String {
    let s = snake(name).trim_end_matches('_').to_ascii_uppercase();
    if s.is_empty() {
        "UNNAMED".to_owned()
    } else {
        s
    }
}

/// A namespace of the generated module in which names from a package are
/// claimed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scope {
    /// The module's types: one per entity type (`Game`).
    Types,
    /// Methods of `Facts` and `Case` (and fields of `Columns`): one per
    /// entity type, input literal and judgment.
    FactsMethods,
    /// Methods of `Conclusions`: four per institutional literal.
    ConclusionsMethods,
    /// Parameters of a generated method: one per predicate parameter.
    Params,
}

/// The names generated code defines or uses unqualified, per namespace: the
/// one table of them. A package name never takes one (it gets `_2`).
pub const RESERVED: &[(Scope, &[&str])] = &[
    (
        Scope::Types,
        &[
            // The std prelude: generated code names these unqualified, and a
            // package type called `Vec` must not shadow them (found by the
            // differential tests).
            "Vec",
            "Option",
            "Some",
            "None",
            "Result",
            "Ok",
            "Err",
            "String",
            "Box",
            "Default",
            "Clone",
            "Copy",
            "Debug",
            "Hash",
            "Eq",
            "PartialEq",
            "Ord",
            "PartialOrd",
            "Send",
            "Sync",
            "Sized",
            "Fn",
            "FnMut",
            "FnOnce",
            "Drop",
            "Iterator",
            "IntoIterator",
            "Extend",
            "ToString",
            "ToOwned",
            "From",
            "Into",
            "TryFrom",
            "TryInto",
            "AsRef",
            "AsMut",
            "Unpin",
            "DoubleEndedIterator",
            "ExactSizeIterator",
            "FromIterator",
            // The module's own items and what it imports.
            "Batch",
            "Facts",
            "Conclusions",
            "Verdict",
            "Request",
            "Policy",
            "Error",
            "Arg",
            "Explanation",
            "Entity",
            "PACKAGE",
            "PROGRAM",
            "PACKAGE_NAME",
            "PACKAGE_VERSION",
            "CONSTANTS",
            "Outputs",
            "Batching",
            "evaluate_many",
            "evaluate_batch",
            "evaluate_indexed",
            "Row",
            "spare_facts",
            "CASES_PER_RUN",
            // The typed input without names, and what it is built with.
            "Case",
            "Columns",
            "Input",
            "evaluate_cases",
            "evaluate_columns",
            "fill_cases",
            "columns_order",
            "columns_dates",
            "gather_columns",
            "first_contradiction",
            "constant_id",
            "FIRST_ID",
            "NAMELESS",
            "INPUT_RELS",
            "columns_fields",
            "NEGATABLE",
        ],
    ),
    (
        Scope::FactsMethods,
        &[
            "new",
            "evaluate",
            "from_json",
            "as_of",
            "name",
            "default",
            "clone",
            "fmt",
            // No longer methods of `Facts`; kept reserved so that no
            // package's method names change.
            "normalize",
            "contradiction",
            "get",
            "__intern",
            "__push",
        ],
    ),
    (
        Scope::ConclusionsMethods,
        &[
            "policy",
            "requests",
            "name",
            "explain",
            "explain_in",
            "to_json",
            "to_canonical",
            "clone",
            "fmt",
            "facts",
            "concluded_counts",
            "get",
            "entity_name",
            // Private helpers of `Conclusions`.
            "new",
            "collect_requests",
            "requests_on",
            "__rows",
            "__explain",
            "__entity",
            "__verdict",
        ],
    ),
    (
        Scope::Params,
        &["self", "holds", "t", "args", "verdict", "__verdict"],
    ),
];

/// Methods of the prelude's traits that method-call syntax finds before an
/// inherent `&mut self` or `&self` method of the same name: the by-value and
/// `&self` steps of the lookup come first, so `facts.into(a, b)` resolves to
/// `Into::into` and never reaches a generated `into` (found by the injection
/// test). Reserved in every namespace of methods ([`Scope::is_methods`]): the
/// traits the generated types derive or get by a blanket impl, and the
/// comparison and conversion traits in case they come to.
pub const TRAIT_METHODS: &[&str] = &[
    "into",
    "try_into",
    "to_owned",
    "clone_into",
    "clone_from",
    "to_string",
    "eq",
    "ne",
    "partial_cmp",
    "lt",
    "le",
    "gt",
    "ge",
    "cmp",
    "max",
    "min",
    "clamp",
    "as_ref",
    "as_mut",
    "into_iter",
    "extend",
    "borrow",
    "borrow_mut",
    "type_id",
];

impl Scope {
    /// The names reserved in this namespace: its row of [`RESERVED`], and
    /// [`TRAIT_METHODS`] in a namespace of methods.
    pub fn reserved(self) -> impl Iterator<Item = &'static str> {
        let own = RESERVED
            .iter()
            .find(|(s, _)| *s == self)
            .map_or(&[][..], |(_, names)| names);
        let traits = if self.is_methods() {
            TRAIT_METHODS
        } else {
            &[]
        };
        own.iter().chain(traits).copied()
    }

    /// Whether the names claimed here are methods called with `.`.
    pub fn is_methods(self) -> bool {
        matches!(self, Scope::FactsMethods | Scope::ConclusionsMethods)
    }
}

/// One namespace of generated identifiers: claims names in order, making
/// each unique.
#[derive(Default)]
pub struct Namespace {
    taken: HashSet<String>,
}

impl Namespace {
    /// A namespace in which the names reserved in `scope` are already taken.
    pub fn new(scope: Scope) -> Self {
        Namespace {
            taken: scope.reserved().map(str::to_owned).collect(),
        }
    }

    /// Claims `base`, or `base_2`, `base_3`, … if taken.
    pub fn claim(&mut self, base: String) -> String {
        if self.taken.insert(base.clone()) {
            return base;
        }
        let stem = base.trim_end_matches('_');
        for n in 2.. {
            let cand = format!("{stem}_{n}");
            if self.taken.insert(cand.clone()) {
                return cand;
            }
        }
        unreachable!("an unbounded counter always finds a free name")
    }
}

/// Text safe inside a `//` comment: printable ASCII only, the rest escaped,
/// so no newline, bidi control or other surprise ends or reorders the comment.
pub fn comment(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        if (' '..='~').contains(&c) {
            s.push(c);
        } else {
            s.push_str(&format!("\\u{{{:x}}}", c as u32));
        }
    }
    s
}

/// Markdown-safe rustdoc text: every ASCII punctuation character that
/// markdown or rustdoc could read as syntax is backslash-escaped, and lines
/// lose their leading whitespace, so a label can never open a code block
/// (which rustdoc would run as a doctest), a link, an HTML tag or a heading.
pub fn doc(text: &str) -> String {
    let mut s = String::new();
    for (i, line) in text.lines().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        for c in line.trim_start().chars() {
            if c.is_ascii_punctuation() && !matches!(c, ',' | '.' | ';' | ':' | '\'' | '?' | '%') {
                s.push('\\');
            }
            // Control characters other than the line breaks handled above
            // have no business in documentation.
            if c.is_control() || is_invisible(c) {
                s.push_str(&format!("\\u{{{:x}}}", c as u32));
            } else {
                s.push(c);
            }
        }
    }
    s
}

/// Bidi controls, zero-width and line-separator characters: rustc denies the
/// bidi ones in comments and literals (`text_direction_codepoint_in_*`), and
/// none of them belongs in generated documentation.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

/// Every identifier of one module's typed API, claimed from the program's
/// catalog in declaration order (so the same package always gets the same
/// names).
pub(super) struct ApiNames {
    /// Per entity type: its id type (`Game`).
    pub types: Vec<Ident>,
    /// Per entity type: its constants, (name, associated const ident).
    pub type_consts: Vec<Vec<(String, Ident)>>,
    /// Per entity type: the `Facts` method interning one (`game`).
    pub entity_methods: Vec<Ident>,
    /// The `Facts` method stating each input literal (`p`, `not_p`).
    pub facts_methods: HashMap<Lit, Ident>,
    /// The `Facts` method recording a decision of each judgment.
    pub decide_methods: HashMap<PredId, Ident>,
    /// Per institutional literal: the verdict function, its `_all`
    /// iterator, `explain_*` and `explain_*_in`.
    pub verdict_methods: HashMap<Lit, (Ident, Ident, Ident, Ident)>,
    /// Per predicate: the names of its parameters.
    pub params: Vec<Vec<Ident>>,
}

fn ident(s: &str) -> Ident {
    Ident::new(s, Span::call_site())
}

impl ApiNames {
    /// The names of `cat`'s API; `has_facts` tells which input literals have
    /// a facts relation (and so a `Facts` method).
    pub fn new(cat: &Catalog, has_facts: impl Fn(Lit) -> bool) -> Self {
        let mut types_ns = Namespace::new(Scope::Types);
        let types: Vec<Ident> = cat
            .types
            .iter()
            .map(|t| ident(&types_ns.claim(camel(&t.name))))
            .collect();
        let mut type_consts = vec![Vec::new(); cat.types.len()];
        let mut const_ns: Vec<Namespace> =
            (0..cat.types.len()).map(|_| Namespace::default()).collect();
        for c in &cat.constants {
            let t = c.ty.0 as usize;
            // Typed API names are local names (docs/reference.md#imports), made unique by the namespace.
            let id = ident(&const_ns[t].claim(screaming(local_name(&c.id))));
            type_consts[t].push((c.local.clone(), id));
        }

        let mut facts_ns = Namespace::new(Scope::FactsMethods);
        let entity_methods = cat
            .types
            .iter()
            .map(|t| ident(&facts_ns.claim(snake(&t.name))))
            .collect();
        let mut facts_methods = HashMap::new();
        let mut decide_methods = HashMap::new();
        let mut concl_ns = Namespace::new(Scope::ConclusionsMethods);
        let mut verdict_methods = HashMap::new();
        let mut params = Vec::new();
        for (i, p) in cat.preds.iter().enumerate() {
            let pid = PredId(i as u32);
            // The local name even where two packages share it (then `local`
            // is the full id): the namespace makes the second one unique.
            let base = snake(local_name(&p.id));
            let not = |negative: bool| {
                if negative {
                    format!("not_{base}")
                } else {
                    base.clone()
                }
            };
            match p.kind {
                RelationKind::Empirical => {
                    for negative in [false, true] {
                        let l = Lit {
                            pred: pid,
                            negative,
                        };
                        if has_facts(l) {
                            facts_methods.insert(l, ident(&facts_ns.claim(not(negative))));
                        }
                    }
                }
                RelationKind::Judgment => {
                    decide_methods.insert(pid, ident(&facts_ns.claim(format!("decide_{base}"))));
                }
                RelationKind::Institutional => {
                    for negative in [false, true] {
                        let l = Lit {
                            pred: pid,
                            negative,
                        };
                        let b = not(negative);
                        let v = ident(&concl_ns.claim(b.clone()));
                        let all = ident(&concl_ns.claim(format!("{b}_all")));
                        let ex = ident(&concl_ns.claim(format!("explain_{b}")));
                        let ex_in = ident(&concl_ns.claim(format!("explain_{b}_in")));
                        verdict_methods.insert(l, (v, all, ex, ex_in));
                    }
                }
            }
            let mut params_ns = Namespace::new(Scope::Params);
            params.push(
                p.params
                    .iter()
                    .enumerate()
                    .map(|(k, _)| {
                        let n = p
                            .param_names
                            .get(k)
                            .cloned()
                            .flatten()
                            .unwrap_or_else(|| format!("a{k}"));
                        ident(&params_ns.claim(snake(&n)))
                    })
                    .collect(),
            );
        }
        ApiNames {
            types,
            type_consts,
            entity_methods,
            facts_methods,
            decide_methods,
            verdict_methods,
            params,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_valid_and_distinct() {
        assert_eq!(snake("game_drawn"), "game_drawn");
        assert_eq!(snake("fn"), "fn_");
        assert_eq!(snake("self"), "self_");
        assert_eq!(snake("9lives"), "n9lives");
        assert_eq!(snake(""), "unnamed");
        assert_eq!(snake("CastlingLegal"), "castling_legal");
        assert_eq!(camel("game"), "Game");
        assert_eq!(camel("Self"), "Self_");
        assert_eq!(camel("7up"), "T7up");
        assert_ne!(snake("партия"), snake("игра"));
        assert!(snake("партия").is_ascii());
        assert_eq!(
            snake("\"); std::process::exit(1); //"),
            "x22_x29_x3b_std_process_exit_x28_1_x29_x3b"
        );
        assert_eq!(screaming("Ended"), "ENDED");
        assert_eq!(screaming("self"), "SELF");
    }

    #[test]
    fn namespaces_disambiguate_in_claim_order() {
        let mut ns = Namespace::new(Scope::FactsMethods);
        assert_eq!(ns.claim("new".into()), "new_2");
        assert_eq!(ns.claim("a".into()), "a");
        assert_eq!(ns.claim("a".into()), "a_2");
        assert_eq!(ns.claim("a_2".into()), "a_2_2");
    }

    #[test]
    fn comments_and_docs_cannot_escape() {
        assert_eq!(comment("a\nb */ \u{202e}"), "a\\u{a}b */ \\u{202e}");
        let d = doc("    fn main() {}\n```rust\n<script> [x](y) #h");
        assert!(!d.contains("```"));
        assert!(d.lines().all(|l| !l.starts_with(' ')));
        assert!(d.contains("\\<script\\>"));
    }

    #[test]
    fn reserved_names_are_identifiers_claimed_once() {
        // Every scope has its names, each an identifier and listed once, and
        // a package name never lands on a reserved one.
        for scope in [
            Scope::Types,
            Scope::FactsMethods,
            Scope::ConclusionsMethods,
            Scope::Params,
        ] {
            assert!(scope.reserved().next().is_some(), "{scope:?}");
            let mut seen = HashSet::new();
            let mut ns = Namespace::new(scope);
            for n in scope.reserved() {
                assert!(
                    syn::parse_str::<syn::Ident>(n).is_ok() || n == "self",
                    "{scope:?}: `{n}`"
                );
                assert!(seen.insert(n), "{scope:?}: `{n}` twice");
                assert_ne!(ns.claim(n.to_owned()), n);
            }
        }
    }
}
