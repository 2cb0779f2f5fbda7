//! A deterministic generator of random `law.core.ir/0.2` packages and facts
//! files (no external crates), shared by the property tests and the
//! differential test (compiled ascent crate against the reference interpreter).
//!
//! A package has two entity types, two or three constants, empirical,
//! judgment and institutional predicates of arity 0–3 over entity and integer
//! columns, strict / defeasible / defeater rules of both polarities,
//! `established` and `supported` items of both polarities, `not` items (with
//! existential variables), comparisons (all six operators on integers, `eq` /
//! `ne` on entities), constants and values in literals, priorities between
//! conflicting rules, closures (domains empirical, judgment or institutional),
//! positive recursion (an institutional predicate whose rules read itself or a
//! mutually recursive partner), labels, and — with a small probability —
//! names and strings chosen to stress identifier sanitization and JSON
//! escaping (Rust keywords, `has-dash` next to `has_dash`, quotes,
//! backslashes, control characters, non-BMP characters, the empty string).
//! `GenConfig::hostile` (the injection test) makes every name and string a
//! candidate for much larger hostile pools, and adds provenance (fragments
//! with article texts that rules anchor).
//!
//! Stratifiability is kept by construction, so nearly every package passes the
//! checker: institutional predicates are numbered into *groups*, each with a
//! level; a rule reads only predicates of strictly lower levels, except that a
//! positive rule for a *monotone* predicate (one whose complement has only
//! defeaters) may read predicates of its own group (recursion). `not` items
//! and the bodies of contested rules therefore always read strictly lower
//! strata. A predicate closed over a domain sits one level above the domain.

use lawgen::internals::syntax::hash::node_hash;
use serde_json::{json, Map, Value as J};
use std::collections::BTreeSet;

/// The namespace of every generated id.
pub const NS: &str = "urn:t";
const INT: &str = "urn:law:std#Integer";

/// xorshift64*, seeded through splitmix64 (nearby seeds give unrelated streams).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng(z | 1) // 0 is a fixpoint of xorshift
    }

    // A step of the generator, not an iterator: it never ends, and the
    // tests call it by this name throughout.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, pct: u64) -> bool {
        self.next() % 100 < pct
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// What to generate.
#[derive(Clone, Debug)]
pub struct GenConfig {
    /// Everything about the package and its facts follows from the seed.
    pub seed: u64,
    /// How many facts files to generate for the package.
    pub facts_files: usize,
    /// Percent chance, per name or string, of an "odd" one (keywords,
    /// punctuation, escapes, non-ASCII) instead of a plain one.
    pub odd_pct: u64,
    /// Number of rules: `min_rules..=max_rules` (rules for institutional heads).
    pub min_rules: usize,
    pub max_rules: usize,
    /// Empirical, judgment and institutional predicates: `(min, max)` of
    /// each (at least one empirical and one institutional).
    pub predicates: [(usize, usize); 3],
    /// May a variable occur twice in one literal (`p(X, X)`)?
    pub repeat_vars: bool,
    /// Hostile mode, for the injection test: every odd name or string comes
    /// from the hostile pools below (keywords, `r#` forms, digits first,
    /// names that collide after sanitizing, prelude and API names, random
    /// Unicode, comment / markdown / attribute breakers), parameters and rule,
    /// priority and closure ids are odd too, and provenance nodes (fragments
    /// with article texts, anchored by rules) are added. Off, the generator
    /// is unchanged: the same seed gives the same bytes as before the hostile
    /// mode existed.
    pub hostile: bool,
    /// Dated mode, for as-of evaluation: one work with two or three dated
    /// editions (sometimes one of them repealed), a fragment per edition,
    /// rules and priorities anchored to one, two or no edition, and facts
    /// files with an `asOf` on a day around a boundary on which some
    /// edition is in force. Its choices come from a generator of their own,
    /// so the rest of the package is what the same seed gives without it.
    pub dated: bool,
}

impl GenConfig {
    pub fn new(seed: u64) -> GenConfig {
        GenConfig {
            seed,
            facts_files: 1,
            odd_pct: 6,
            min_rules: 4,
            max_rules: 12,
            predicates: [(3, 5), (0, 2), (3, 6)],
            repeat_vars: true,
            hostile: false,
            dated: false,
        }
    }
}

/// The seed of package `i` of a run seeded with `base` (what `GenConfig::seed`
/// must be to regenerate it alone).
pub fn package_seed(base: u64, i: u64) -> u64 {
    base.wrapping_add(i)
}

/// A generated package with its facts files.
pub struct Generated {
    /// The package JSON (node hashes filled in).
    pub package: Vec<u8>,
    /// `GenConfig::facts_files` facts files.
    pub facts: Vec<Vec<u8>>,
    /// One line: what the package contains.
    pub description: String,
}

/// Generates one package and its facts files.
pub fn generate(cfg: &GenConfig) -> Generated {
    let mut g = Gen {
        rng: Rng::new(cfg.seed),
        cfg: cfg.clone(),
        nodes: Vec::new(),
        used: BTreeSet::new(),
        types: Vec::new(),
        consts: Vec::new(),
        preds: Vec::new(),
        fragments: Vec::new(),
        stats: Stats::default(),
        drng: Rng::new(cfg.seed ^ 0xda7e_da7e_da7e_da7e),
        editions: Vec::new(),
        dates: Vec::new(),
    };
    if cfg.hostile {
        // The entity types' ids.
        g.used.extend(["type0".to_owned(), "type1".to_owned()]);
    }
    g.declarations();
    if cfg.hostile {
        g.provenance();
    }
    if cfg.dated {
        g.timeline();
    }
    g.closures();
    let rules = g.rules();
    g.priorities(&rules);
    let mut package = if cfg.hostile {
        let (name, version, hash) = (g.hostile_text(), g.hostile_text(), g.hostile_text());
        json!({"name": name, "namespace": NS, "version": version, "semanticHash": hash})
    } else {
        let name = if g.odd() {
            g.rng.pick(ODD_PACKAGE).to_string()
        } else {
            "random".to_owned()
        };
        let version = if g.odd() { "1.0.0-β+\"x\"" } else { "0.0.1" };
        json!({"name": name, "namespace": NS, "version": version})
    };
    if cfg.hostile && g.rng.chance(50) {
        // The emitter's default module name comes from the package name.
        package["name"] = J::from(g.hostile_name());
    }
    let pkg = json!({"schemaVersion": "law.core.ir/0.2",
        "package": package,
        "imports": [], "strata": [], "nodes": g.nodes});
    let facts = (0..cfg.facts_files).map(|_| g.facts_file()).collect();
    let s = &g.stats;
    let mut description = format!(
        "{}seed {:#x}: {} empirical, {} judgment, {} institutional ({} monotone), {} rules ({} reading their own group), {} priorities, {} closures, {} not items, {} comparisons",
        if cfg.hostile { "hostile " } else { "" },
        cfg.seed,
        g.count(Kind::Empirical),
        g.count(Kind::Judgment),
        g.count(Kind::Institutional),
        s.recursive_preds,
        rules.len(),
        s.recursive_rules,
        s.priorities,
        s.closures,
        s.nots,
        s.comparisons,
    );
    if cfg.hostile {
        description = format!("{description}, {} fragments", g.fragments.len());
    }
    if cfg.dated {
        description = format!(
            "{description}, {} dated editions, dates {}",
            g.editions.len(),
            g.dates.join(" ")
        );
    }
    Generated {
        package: serde_json::to_vec_pretty(&pkg).unwrap(),
        facts,
        description,
    }
}

const ODD_PACKAGE: &[&str] = &["ra\"nd.om", "пакет", "a b\\c", "fn"];
const ODD_TYPES: &[&str] = &[
    "Self",
    "type",
    "Thing-Kind",
    "Thing_Kind",
    "Ärger",
    "Facts",
    "Vec",
    "Policy",
    "Conclusions",
    "Option",
    "String",
    "Integer",
    "i64",
    "Entity",
];
const ODD_PREDS: &[&str] = &[
    "type",
    "fn",
    "self",
    "Self",
    "super",
    "crate",
    "match",
    "async",
    "r#try",
    "has-dash",
    "has_dash",
    "HasDash",
    "ünï",
    "a.b",
    "Facts",
    "Conclusions",
    "std",
    "core",
    "ascent",
    "Policy",
    "Error",
    "Vec",
    "String",
    "Option",
    "Result",
    "Some",
    "None",
    "i64",
    "lawgen_runtime",
    "evaluate",
    "from_json",
    "to_json",
    "_",
    "__",
    "0start",
    "x y",
    "q\"uote",
    "back\\slash",
    "relation",
    "lattice",
    "Box",
    "include",
    "mod",
    "E0",
    "e0_",
    "agg",
];
const ODD_CONSTS: &[&str] = &["None", "Some", "self", "k-0", "ü", "true", "Self", "a"];
const ODD_VARS: &[&str] = &["_", "self", "type", "X", "_x", "fn", "r#v", "v-1", "Self"];
const ODD_ENTITIES: &[&str] = &[
    "", "A", "é", "a b", "q\"t", "b\\s", "日本", "z😀", "\u{ff61}", "\u{1}", "tab\tx", "nl\nx",
    "\u{7f}", "}",
];
const LABELS: &[&str] = &[
    "the rule",
    "*/ /* not a comment end",
    "```\nnot rust at all {\n```",
    "line one\nline two",
    "\"quoted\" `code` <b>html</b> & [link](x)",
    "a \\ backslash",
    "#[doc = \"x\"] ## heading",
    "ünï 日本 😀",
];
const AUTHORITIES: &[(&str, &str)] = &[
    ("Court", "judgment:Court"),
    ("Arbiter", "judgment:Arbiter"),
    ("Odd\"Authority", "cap\\ability \"x\""),
];

// -- hostile mode (`GenConfig::hostile`) ------------------------------------

/// Names for anything that becomes an identifier, in groups (a group is
/// picked, then a name): every Rust keyword (strict, reserved, weak), `r#`
/// and other prefixed forms, digits first, names that collide after
/// sanitizing (with each other, with keyword suffixes, with the `x<hex>`
/// escapes, with the names derived from them: `not_p`, `p_all`,
/// `explain_p`, `decide_p`), the std prelude and primitive types, the
/// generated API's own names, and injection attempts.
fn hostile_names() -> [&'static [&'static str]; 9] {
    [
        keywords(),
        LOOKALIKES,
        PREFIXED,
        DIGITS_FIRST,
        SANITIZED_ALIKE,
        DERIVED,
        PRELUDE,
        API_NAMES,
        INJECTIONS,
    ]
}

/// Keywords: the emitter's own table of them, then names close to one.
fn keywords() -> &'static [&'static str] {
    static KEYWORDS: std::sync::OnceLock<Vec<&str>> = std::sync::OnceLock::new();
    KEYWORDS.get_or_init(|| {
        let mut k = lawgen::internals::emit::KEYWORDS.to_vec();
        k.extend(KEYWORD_LIKE);
        k
    })
}

/// Not keywords, but close to one.
#[rustfmt::skip]
const KEYWORD_LIKE: &[&str] = &["'static", "safe", "raw", "auto", "default", "SELF", "Type", "FN"];
/// Raw and prefixed forms.
#[rustfmt::skip]
const PREFIXED: &[&str] = &[
    "r#type", "r#fn", "r#self", "r#Self", "r#crate", "r#super", "r#try", "r#gen", "r#", "r#_",
    "r#r#x", "k#x", "br", "b", "c", "r", "cr", "b'x'", "c\"x\"", "r\"x\"", "'a",
];
/// Digits first.
#[rustfmt::skip]
const DIGITS_FIRST: &[&str] = &[
    "0", "0start", "9lives", "n9lives", "7up", "T7up", "123", "1_000", "0x1f", "1e10", "1.5", "٣",
    "𝟙", "²",
];
/// Collisions after sanitizing.
#[rustfmt::skip]
const SANITIZED_ALIKE: &[&str] = &[
    "has-dash", "has_dash", "HasDash", "has dash", "has.dash", "has:dash", "has/dash", "hasDash",
    "HAS_DASH", "has__dash", "_has_dash", "has_dash_", "has#dash", "has—dash", "has_x2014_dash",
    "q\"t", "q x22 t", "q_x22_t", "fn_", "type_", "self_", "Self_", "FN_", "unnamed", "Unnamed",
    "UNNAMED", "", "_", "__", "___", "-", ".", " ", "#", ":", "/", "a", "A", "a_2", "a_2_2", "a_3",
];
/// Names derived from other names.
#[rustfmt::skip]
const DERIVED: &[&str] = &[
    "p", "not_p", "p_all", "not_p_all", "explain_p", "explain_not_p", "decide_p", "not", "all",
    "explain", "decide", "not_not_p",
];
/// The prelude, its traits' methods and primitive types.
#[rustfmt::skip]
const PRELUDE: &[&str] = &[
    "Option", "Vec", "String", "Box", "Result", "Some", "None", "Ok", "Err", "Default", "Iterator",
    "Send", "Sync", "Sized", "Copy", "Clone", "Drop", "From", "Into", "ToString", "drop", "panic",
    "assert", "format", "vec", "println", "u32", "i64", "str", "bool", "char", "usize", "f64",
    "std", "core", "alloc", "into", "try_into", "to_owned", "clone_into", "eq", "max",
];
/// Names generated code uses.
#[rustfmt::skip]
const API_NAMES: &[&str] = &[
    "ascent", "lawgen_runtime", "lawgen", "__rt", "__engine", "__lawgen_engine", "Engine", "__case",
    "r0", "o0", "v0", "w0", "t", "main", "test", "doc", "cfg", "allow", "deny", "Facts",
    "Conclusions", "Verdict", "Request", "Policy", "Error", "Arg", "Explanation", "Entity", "Batch",
    "Batching", "Outputs", "Row", "ByCase", "Embedded", "Interner", "PACKAGE", "SOURCE",
    "PACKAGE_NAME", "PACKAGE_VERSION", "CONSTANTS", "constant_id", "evaluate", "evaluate_many",
    "evaluate_batch", "evaluate_indexed", "new", "from_json", "to_json", "name", "get", "requests",
    "requests_on", "collect_requests", "policy", "facts", "concluded_counts", "normalize",
    "contradiction", "__intern", "__push", "__rows", "clone", "fmt", "id", "__from_id", "TYPE_NAME",
    "interner", "rows", "batch", "case",
];
/// Names in one script that read as Latin ones (Unicode TR #39 whole-script
/// confusables): valid on their own, refused (E019) only beside the name
/// they look like, which no pool holds.
#[rustfmt::skip]
const LOOKALIKES: &[&str] = &[
    "\u{441}\u{43e}\u{440}\u{443}", "\u{440}\u{430}\u{440}\u{435}", "\u{455}\u{441}\u{43e}\u{440}\u{435}",
    "\u{391}\u{392}\u{395}", "\u{1d41f}\u{1d422}\u{1d427}\u{1d41e}_\u{1d41d}\u{1d42e}\u{1d41e}",
    "\u{ff46}\u{ff49}\u{ff4e}\u{ff45}", "\u{4bb}\u{435}\u{4cf}\u{4cf}\u{43e}",
];
/// Injection attempts.
#[rustfmt::skip]
const INJECTIONS: &[&str] = &[
    "\"); std::process::exit(1); //", "); std::process::exit(1); //", "*/", "/*", "\"#", "}", "{",
    ")", ";", "'", "\\", "\n", "a\nb", "x\"y", "<b>", "`x`",
];

/// One name, spelled so that all spellings sanitize alike.
#[rustfmt::skip]
const COLLIDING: &[&str] = &[
    "has-dash", "has_dash", "HasDash", "has dash", "has.dash", "has:dash", "has/dash", "hasDash",
    "HAS_DASH", "has__dash", "_has_dash", "has#dash",
];

/// Strings that become docs, comments or literals (labels, article texts and
/// locators, authorities, package name and version): everything that could
/// end a comment, open a code block (a doctest!), a link, an HTML tag or an
/// attribute, raw-string terminators, control and bidi characters.
const HOSTILE_TEXTS: &[&str] = &[
    "*/",
    "/*",
    "*/ /* not a comment end */",
    "/** doc */",
    "//! inner doc",
    "/// outer doc",
    "\"#",
    "\"##",
    "r#\"raw\"#",
    "r##\"x\"##\"#",
    "`",
    "``",
    "```",
    "```rust\nfn main() { std::process::exit(1) }\n```",
    "```\nnot rust at all {\n```",
    "a\n```\nlet x = 1;\n```\nb",
    "a\n```\nstd::process::exit(1);\n```\nb",
    "~~~\ncode\n~~~",
    "text\n\n    indented(code);\n    block();",
    "#[cfg(any())]",
    "#![allow(warnings)]",
    "#![doc = include_str!(\"/etc/passwd\")]",
    "#[doc(hidden)]",
    "#[doc = \"x\"] ## heading",
    "# heading",
    "line one\nline two",
    "cr\rlf\r\nend\r",
    "); std::process::exit(1); //",
    "\"); std::process::exit(1); //",
    "*/ std::process::exit(1); /*",
    "\n#[cfg(any())] fn x() {}\n",
    "<script>alert(1)</script>",
    "<details><summary>open</summary>",
    "</details>",
    "<b>bold</b> & <i>",
    "<!-- comment",
    "-->",
    "<p",
    "[link](x)",
    "[link](javascript:alert(1))",
    "[broken intra-doc]",
    "[`Facts`]",
    "[crate::nope]",
    "[self::Missing]",
    "[^footnote]",
    "![image](x.png)",
    "https://example.org/a?b=1&c=<d>",
    "<https://example.org>",
    "www.example.org",
    "mailto:a@example.org",
    "*emphasis* _under_ **bold** ~~strike~~",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "> quote\n- item\n1. list",
    "\\",
    "\\\\n",
    "\\u{202e}",
    "{}",
    "{0}",
    "{{x}}",
    "%s %n",
    "$crate::x",
    "'static",
    "\"",
    "'",
    "",
    " ",
    "    ",
    "\t",
    "\u{202e}rtl override\u{202c}",
    "\u{2066}isolate\u{2069}",
    "zero\u{200b}width\u{200d}",
    "\u{feff}bom",
    "nel\u{85}x",
    "ls\u{2028}ps\u{2029}",
    "\u{0}nul\u{1}soh\u{1b}[31mred",
    "\u{1b}]8;;https://example.org\u{7}OSC 8 link\u{1b}]8;;\u{7}",
    "\u{1b}]0;window title\u{1b}\\",
    "\u{1b}[2J\u{1b}[Hcleared",
    "\u{9b}31mC1 CSI\u{9c}",
    "1\"\"\"; import os; os.system(\"touch pwned\"); \"\"\"",
    "'''; import os; '''",
    "\\N{BULLET} \\N \\x \\u12",
    "ends in a quote\"",
    "fine_du\u{435}",
    "\u{202e}eud_enif\u{202c}",
    "e\u{301}\u{301}\u{301}",
    "emoji 😀 𝕏 𐍈 \u{10ffff}",
    "עברית",
    "العربية",
    "ünï 日本",
    "Article 1.2 */ the rule",
    "1.2 ```\nrm -rf /\n```",
    "Article 3 <script>",
    // Noncharacters: valid in Rust strings and JSON, but no XML can carry them.
    "non\u{fffe}char\u{ffff}",
];

/// Parameter names that are locals or parameters inside generated method
/// bodies (a parameter must not shadow them).
#[rustfmt::skip]
const HOSTILE_PARAMS: &[&str] = &[
    "self", "Self", "holds", "t", "args", "verdict", "c", "r", "v", "out", "policy", "batch",
    "case", "facts", "engine", "name", "id", "rows", "row", "f", "e", "i", "n", "k", "x",
    "interner", "sink", "make", "map", "bytes", "rel", "negation", "a0", "a1", "a2", "_", "", "0",
    "__rt", "PACKAGE", "u32", "i64", "Some", "None", "Ok", "Err", "fn", "r#type",
];

/// Code point ranges random Unicode is drawn from.
const UNICODE: &[(u32, u32)] = &[
    (0x21, 0x7e),       // printable ASCII, punctuation included
    (0x30, 0x39),       // digits
    (0x00, 0x1f),       // C0 controls
    (0x7f, 0x9f),       // DEL, C1 controls
    (0xc0, 0x17f),      // Latin
    (0x300, 0x36f),     // combining marks
    (0x391, 0x3c9),     // Greek
    (0x410, 0x44f),     // Cyrillic
    (0x5d0, 0x5ea),     // Hebrew (RTL)
    (0x627, 0x64a),     // Arabic (RTL)
    (0x200b, 0x200f),   // zero width, LRM, RLM
    (0x2028, 0x202e),   // separators, bidi embeddings and overrides
    (0x2066, 0x2069),   // bidi isolates
    (0x4e00, 0x4e40),   // CJK
    (0xfe00, 0xfe0f),   // variation selectors
    (0xfff9, 0xffff),   // specials, noncharacters
    (0xff01, 0xff5e),   // fullwidth ASCII
    (0x1d400, 0x1d433), // mathematical bold (NFKC-folds to ASCII)
    (0x10330, 0x1034a), // Gothic
    (0x1f600, 0x1f64f), // emoji
    (0xe0001, 0xe007f), // tags
    (0x10fffe, 0x10ffff),
];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Empirical,
    Judgment,
    Institutional,
}

/// A column: an integer, or an entity of type `Ent(i)`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Col {
    Int,
    Ent(usize),
}

struct Pred {
    name: String,
    kind: Kind,
    cols: Vec<Col>,
    /// Rules for a predicate read predicates of strictly lower levels (and of
    /// their own group, when recursion is allowed).
    level: usize,
    /// Institutional only: the complement gets defeaters only, so positive
    /// rules may read the predicate's own group.
    mono: bool,
    /// Institutional only: predicates of one group may be mutually recursive.
    group: usize,
    closed: bool,
    is_domain: bool,
}

#[derive(Default)]
struct Stats {
    recursive_preds: usize,
    recursive_rules: usize,
    priorities: usize,
    closures: usize,
    nots: usize,
    comparisons: usize,
}

struct Gen {
    rng: Rng,
    cfg: GenConfig,
    nodes: Vec<J>,
    /// Local names of ids already taken (predicates and constants share a namespace).
    used: BTreeSet<String>,
    /// Entity type names; the id of type `i` is `urn:t#type{i}`.
    types: Vec<String>,
    /// Constants: local name and type.
    consts: Vec<(String, usize)>,
    preds: Vec<Pred>,
    /// Hostile mode: fragment ids, for rule anchors.
    fragments: Vec<String>,
    stats: Stats,
    /// Dated mode: its own choices, so the rest stays as without it.
    drng: Rng,
    /// Dated mode: per edition, its fragment's id.
    editions: Vec<String>,
    /// Dated mode: the days a facts file may be as of.
    dates: Vec<String>,
}

struct RuleInfo {
    id: String,
    head: usize,
    negative: bool,
}

fn hashed(mut node: J) -> J {
    let h = node_hash(node.as_object().unwrap());
    node["contentHash"] = J::from(h);
    node
}

fn id(local: &str) -> String {
    format!("{NS}#{local}")
}

fn type_ref(c: Col) -> J {
    match c {
        Col::Int => json!({"name": INT}),
        Col::Ent(t) => json!({"name": id(&format!("type{t}"))}),
    }
}

fn var(name: &str) -> J {
    json!({"kind": "var", "var": name})
}

fn literal(pred: &str, negative: bool, args: Vec<J>) -> J {
    json!({"kind": "literal", "predicate": id(pred),
        "polarity": if negative {"negative"} else {"positive"}, "args": args})
}

/// Variables of a rule being built.
#[derive(Default)]
struct RuleVars {
    /// Name and column type.
    vars: Vec<(String, Col)>,
    /// Indices of variables occurring in a status item.
    bound: Vec<usize>,
}

impl RuleVars {
    fn bound_of(&self, c: Col) -> Vec<usize> {
        self.bound
            .iter()
            .copied()
            .filter(|&v| self.vars[v].1 == c)
            .collect()
    }
}

impl Gen {
    fn odd(&mut self) -> bool {
        self.rng.chance(self.cfg.odd_pct)
    }

    fn count(&self, k: Kind) -> usize {
        self.preds.iter().filter(|p| p.kind == k).count()
    }

    fn labels(&mut self) -> J {
        if self.cfg.hostile {
            return self.hostile_labels();
        }
        if self.rng.chance(25) {
            let text = if self.odd() || self.rng.chance(20) {
                self.rng.pick(LABELS).to_string()
            } else {
                "a plain label".to_owned()
            };
            json!([{"language": "en", "status": "official", "text": text}])
        } else {
            json!([])
        }
    }

    /// A fresh local name: `plain`, or now and then an unused odd one.
    fn name(&mut self, plain: String, odd: &[&str]) -> String {
        if self.cfg.hostile {
            return self.hostile_id(plain);
        }
        if self.odd() {
            let cand = self.rng.pick(odd).to_string();
            if !self.used.contains(&cand) {
                self.used.insert(cand.clone());
                return cand;
            }
        }
        self.used.insert(plain.clone());
        plain
    }

    fn col(&mut self) -> Col {
        match self.rng.below(100) {
            0..=19 => Col::Int,
            20..=69 => Col::Ent(0),
            _ => Col::Ent(1),
        }
    }

    fn declarations(&mut self) {
        // Two entity types.
        for (i, plain) in ["Thing", "Place"].into_iter().enumerate() {
            let mut name = plain.to_owned();
            if self.cfg.hostile {
                if self.odd() {
                    let cand = self.hostile_name();
                    if !self.types.contains(&cand) {
                        name = cand;
                    }
                }
            } else if self.odd() {
                let cand = self.rng.pick(ODD_TYPES).to_string();
                if !self.types.contains(&cand) {
                    name = cand;
                }
            }
            let labels = self.labels();
            self.nodes.push(hashed(
                json!({"id": id(&format!("type{i}")), "kind": "type_decl",
                "name": name, "typeKind": "entity", "labels": labels}),
            ));
            self.types.push(name);
        }
        // Constants: k0 (type 0), k1 (type 1), sometimes k2 (type 0).
        let n = if self.rng.chance(50) { 3 } else { 2 };
        for i in 0..n {
            let t = usize::from(i == 1);
            let name = self.name(format!("k{i}"), ODD_CONSTS);
            let labels = self.labels();
            self.nodes.push(hashed(json!({"id": id(&name), "kind": "symbol_decl", "symbolKind": "constant",
                "name": name, "parameters": [], "returnType": type_ref(Col::Ent(t)), "labels": labels})));
            self.consts.push((name, t));
        }
        // Predicates.
        let [e, j, q] = self.cfg.predicates;
        let kinds = [
            ("e", Kind::Empirical, e.0 + self.rng.below(e.1 - e.0 + 1)),
            ("j", Kind::Judgment, j.0 + self.rng.below(j.1 - j.0 + 1)),
            (
                "q",
                Kind::Institutional,
                q.0 + self.rng.below(q.1 - q.0 + 1),
            ),
        ];
        let mut group = 0;
        let mut prev_mono = false;
        for (prefix, kind, n) in kinds {
            for i in 0..n {
                let arity = match self.rng.below(100) {
                    0..=9 => 0,
                    10..=44 => 1,
                    45..=79 => 2,
                    _ => 3,
                };
                let cols = (0..arity).map(|_| self.col()).collect();
                let name = self.name(format!("{prefix}{i}"), ODD_PREDS);
                let (mut mono, mut level) = (false, 0);
                if kind == Kind::Institutional {
                    mono = self.rng.chance(45);
                    // A monotone predicate after a monotone one may join its group.
                    if !(mono && prev_mono && self.rng.chance(50)) && i > 0 {
                        group += 1;
                    }
                    prev_mono = mono;
                    level = 2 * group + 2;
                }
                self.preds.push(Pred {
                    name,
                    kind,
                    cols,
                    level,
                    mono,
                    group,
                    closed: false,
                    is_domain: false,
                });
            }
        }
        for i in 0..self.preds.len() {
            let cols = self.preds[i].cols.clone();
            let params: Vec<J> = cols
                .iter()
                .enumerate()
                .map(|(k, c)| {
                    let name = if self.cfg.hostile && self.odd() {
                        self.hostile_param()
                    } else {
                        format!("a{k}")
                    };
                    json!({"name": name, "type": type_ref(*c)})
                })
                .collect();
            let p = &self.preds[i];
            let kind = match p.kind {
                Kind::Empirical => "empirical",
                Kind::Judgment => "judgment",
                Kind::Institutional => "institutional",
            };
            let (name, judgment) = (p.name.clone(), p.kind == Kind::Judgment);
            let labels = self.labels();
            self.nodes.push(hashed(
                json!({"id": id(&name), "kind": "symbol_decl", "symbolKind": "relation",
                "name": name, "relationKind": kind, "parameters": params, "labels": labels}),
            ));
            if judgment && self.cfg.hostile {
                let (auth, cap) = (self.hostile_text(), self.hostile_text());
                self.nodes.push(hashed(
                    json!({"id": format!("{}/external", id(&name)), "kind": "external_decl",
                    "symbol": id(&name), "authority": {"kind": "const_ref", "id": id(&auth)},
                    "capability": cap, "effect": "judgment"}),
                ));
            } else if judgment {
                let (auth, cap) = if self.odd() {
                    *self.rng.pick(AUTHORITIES)
                } else {
                    AUTHORITIES[self.rng.below(2)]
                };
                self.nodes.push(hashed(
                    json!({"id": format!("{}/external", id(&name)), "kind": "external_decl",
                    "symbol": id(&name), "authority": {"kind": "const_ref", "id": id(auth)},
                    "capability": cap, "effect": "judgment"}),
                ));
            }
        }
        self.stats.recursive_preds = self.preds.iter().filter(|p| p.mono).count();
    }

    /// Closures over empirical predicates; each closed predicate moves one level
    /// above its domain. A closed predicate is never a domain and vice versa, so
    /// levels are final once assigned.
    fn closures(&mut self) {
        for e in 0..self.preds.len() {
            if self.preds[e].kind != Kind::Empirical
                || self.preds[e].is_domain
                || !self.rng.chance(30)
            {
                continue;
            }
            let cands: Vec<usize> = (0..self.preds.len())
                .filter(|&d| {
                    d != e && !self.preds[d].closed && self.preds[d].cols == self.preds[e].cols
                })
                .collect();
            if cands.is_empty() {
                continue;
            }
            let d = *self.rng.pick(&cands);
            self.preds[e].closed = true;
            self.preds[e].level = self.preds[d].level + 1;
            self.preds[d].is_domain = true;
            let derive = !self.rng.chance(10);
            let labels = self.labels();
            let (en, dn) = (self.preds[e].name.clone(), self.preds[d].name.clone());
            let cid = if self.cfg.hostile {
                self.hostile_id(format!("close{e}"))
            } else {
                format!("close{e}")
            };
            self.nodes
                .push(hashed(json!({"id": id(&cid), "kind": "closure_policy",
                "predicate": id(&en), "domain": {"kind": "const_ref", "id": id(&dn)},
                "deriveExplicitNegative": derive, "snapshot": "snap", "completeAsOf": "2026-01-01",
                "labels": labels})));
            self.stats.closures += 1;
        }
    }

    fn int_value(&mut self) -> i64 {
        if self.rng.chance(3) {
            *self.rng.pick(&[i64::MIN, i64::MAX])
        } else if self.rng.chance(85) {
            *self.rng.pick(&[-1, 0, 1, 2])
        } else {
            *self.rng.pick(&[-3, 5, 10])
        }
    }

    /// An entity name of type `t` for facts and `value` terms.
    fn entity(&mut self, t: usize) -> String {
        if self.cfg.hostile && self.odd() {
            return if self.rng.chance(50) {
                self.hostile_text()
            } else {
                self.hostile_name()
            };
        }
        if self.odd() {
            return self.rng.pick(ODD_ENTITIES).to_string();
        }
        let mut pool: Vec<String> = if t == 0 {
            vec!["a".into(), "b".into(), "c".into()]
        } else {
            vec!["a".into(), "p".into()]
        };
        pool.extend(self.consts.iter().filter(|c| c.1 == t).map(|c| c.0.clone()));
        self.rng.pick(&pool).clone()
    }

    /// A ground term of column type `c`: an integer `value`, a `const_ref`, or
    /// an entity `value`.
    fn const_term(&mut self, c: Col) -> J {
        match c {
            Col::Int => json!({"kind": "value", "type": {"name": INT}, "value": self.int_value()}),
            Col::Ent(t) => {
                let consts: Vec<String> = self
                    .consts
                    .iter()
                    .filter(|k| k.1 == t)
                    .map(|k| k.0.clone())
                    .collect();
                if self.rng.chance(65) {
                    let k = self.rng.pick(&consts).clone();
                    json!({"kind": "const_ref", "id": id(&k)})
                } else {
                    let e = self.entity(t);
                    json!({"kind": "value", "type": type_ref(c), "value": e})
                }
            }
        }
    }

    fn new_var(&mut self, vs: &mut RuleVars, c: Col) -> usize {
        let plain = format!("v{}", vs.vars.len());
        let mut name = plain.clone();
        if self.cfg.hostile {
            if self.odd() {
                let cand = self.hostile_name();
                if !vs.vars.iter().any(|v| v.0 == cand) {
                    name = cand;
                }
            }
        } else if self.odd() {
            let cand = self.rng.pick(ODD_VARS).to_string();
            if !vs.vars.iter().any(|v| v.0 == cand) {
                name = cand;
            }
        }
        if vs.vars.iter().any(|v| v.0 == name) {
            name = format!("{plain}_");
        }
        vs.vars.push((name, c));
        vs.vars.len() - 1
    }

    /// An argument of a status item: a constant, or a (re)used variable, bound.
    fn status_arg(&mut self, vs: &mut RuleVars, c: Col, this: &mut Vec<usize>) -> J {
        if self.rng.chance(8) {
            return self.const_term(c);
        }
        let mut same = vs.bound_of(c);
        if !self.cfg.repeat_vars {
            same.retain(|v| !this.contains(v));
        }
        let v = if !same.is_empty() && self.rng.chance(60) {
            *self.rng.pick(&same)
        } else {
            self.new_var(vs, c)
        };
        if !vs.bound.contains(&v) {
            vs.bound.push(v);
        }
        this.push(v);
        var(&vs.vars[v].0)
    }

    fn status_item(&mut self, p: usize, vs: &mut RuleVars) -> J {
        let cols = self.preds[p].cols.clone();
        let mut this = Vec::new();
        let args: Vec<J> = cols
            .iter()
            .map(|&c| self.status_arg(vs, c, &mut this))
            .collect();
        let status = if self.rng.chance(20) {
            "supported"
        } else {
            "established"
        };
        let negative = self.rng.chance(20);
        json!({"kind": "status", "status": status, "formula": literal(&self.preds[p].name, negative, args)})
    }

    /// `not` over a predicate of a strictly lower level: bound variables,
    /// constants and existential variables (occurring only here).
    fn not_item(&mut self, p: usize, vs: &mut RuleVars) -> J {
        let cols = self.preds[p].cols.clone();
        let mut exist: Vec<usize> = Vec::new();
        let mut args = Vec::new();
        let mut this: Vec<usize> = Vec::new();
        for c in cols {
            let mut bound = vs.bound_of(c);
            if !self.cfg.repeat_vars {
                bound.retain(|v| !this.contains(v));
            }
            let r = self.rng.below(100);
            let t = if r < 40 && !bound.is_empty() {
                let v = *self.rng.pick(&bound);
                this.push(v);
                var(&vs.vars[v].0)
            } else if r < 55 {
                self.const_term(c)
            } else {
                let same: Vec<usize> = exist
                    .iter()
                    .copied()
                    .filter(|&v| vs.vars[v].1 == c)
                    .collect();
                let v = if !same.is_empty() && self.cfg.repeat_vars && self.rng.chance(30) {
                    *self.rng.pick(&same)
                } else {
                    let v = self.new_var(vs, c);
                    exist.push(v);
                    v
                };
                var(&vs.vars[v].0)
            };
            args.push(t);
        }
        let status = if self.rng.chance(30) {
            "supported"
        } else {
            "established"
        };
        let negative = self.rng.chance(20);
        self.stats.nots += 1;
        json!({"kind": "not", "item": {"kind": "status", "status": status,
            "formula": literal(&self.preds[p].name, negative, args)}})
    }

    fn comparison(&mut self, vs: &RuleVars) -> J {
        const ALL: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];
        let ints = vs.bound_of(Col::Int);
        let ents: Vec<usize> = vs
            .bound
            .iter()
            .copied()
            .filter(|&v| vs.vars[v].1 != Col::Int)
            .collect();
        let (mut l, op, mut r) = match self.rng.below(100) {
            0..=39 if !ints.is_empty() => {
                let v = *self.rng.pick(&ints);
                let op = *self.rng.pick(&ALL);
                (var(&vs.vars[v].0), op, self.const_term(Col::Int))
            }
            40..=59 if !ints.is_empty() => {
                let (a, b) = (*self.rng.pick(&ints), *self.rng.pick(&ints));
                let op = *self.rng.pick(&ALL);
                (var(&vs.vars[a].0), op, var(&vs.vars[b].0))
            }
            60..=79 if !ents.is_empty() => {
                let v = *self.rng.pick(&ents);
                let op = *self.rng.pick(&["eq", "ne"]);
                (var(&vs.vars[v].0), op, self.const_term(vs.vars[v].1))
            }
            80..=94 if !ents.is_empty() => {
                let a = *self.rng.pick(&ents);
                let same: Vec<usize> = ents
                    .iter()
                    .copied()
                    .filter(|&b| vs.vars[b].1 == vs.vars[a].1)
                    .collect();
                let b = *self.rng.pick(&same);
                let op = *self.rng.pick(&["eq", "ne"]);
                (var(&vs.vars[a].0), op, var(&vs.vars[b].0))
            }
            _ => {
                // Ground on both sides.
                if self.rng.chance(50) {
                    let op = *self.rng.pick(&ALL);
                    (self.const_term(Col::Int), op, self.const_term(Col::Int))
                } else {
                    let t = self.rng.below(2);
                    let op = *self.rng.pick(&["eq", "ne"]);
                    (
                        self.const_term(Col::Ent(t)),
                        op,
                        self.const_term(Col::Ent(t)),
                    )
                }
            }
        };
        if self.rng.chance(30) {
            std::mem::swap(&mut l, &mut r);
        }
        self.stats.comparisons += 1;
        json!({"kind": "comparison", "left": l, "op": op, "right": r})
    }

    fn rules(&mut self) -> Vec<RuleInfo> {
        let inst: Vec<usize> = (0..self.preds.len())
            .filter(|&i| self.preds[i].kind == Kind::Institutional)
            .collect();
        let n = self.cfg.min_rules + self.rng.below(self.cfg.max_rules - self.cfg.min_rules + 1);
        let mut out = Vec::new();
        for r in 0..n {
            let head = *self.rng.pick(&inst);
            out.push(self.rule(r, head));
        }
        out
    }

    fn rule(&mut self, r: usize, head: usize) -> RuleInfo {
        let (mono, level, group) = {
            let h = &self.preds[head];
            (h.mono, h.level, h.group)
        };
        let negative = self.rng.chance(35);
        let strength = if mono && negative {
            "defeater"
        } else {
            *self
                .rng
                .pick(&["strict", "defeasible", "defeasible", "defeater"])
        };
        let lower: Vec<usize> = (0..self.preds.len())
            .filter(|&p| self.preds[p].level < level)
            .collect();
        let same: Vec<usize> = if mono && !negative {
            (0..self.preds.len())
                .filter(|&p| {
                    self.preds[p].kind == Kind::Institutional && self.preds[p].group == group
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut vs = RuleVars::default();
        let mut items = Vec::new();
        // `lower` is empty only if every input predicate is closed over an
        // institutional domain: then the rule reads its own group or nothing.
        let nstatus = if self.rng.chance(5) || (lower.is_empty() && same.is_empty()) {
            0
        } else {
            1 + self.rng.below(3)
        };
        let rec_slot = (!same.is_empty() && nstatus > 0 && self.rng.chance(55))
            .then(|| self.rng.below(nstatus));
        if rec_slot.is_some() {
            self.stats.recursive_rules += 1;
        }
        for k in 0..nstatus {
            let p = if rec_slot == Some(k) || lower.is_empty() {
                *self.rng.pick(&same)
            } else {
                *self.rng.pick(&lower)
            };
            let item = self.status_item(p, &mut vs);
            items.push(item);
        }
        let nnot = match self.rng.below(100) {
            _ if lower.is_empty() => 0,
            0..=77 => 0,
            78..=95 => 1,
            _ => 2,
        };
        for _ in 0..nnot {
            let p = *self.rng.pick(&lower);
            let item = self.not_item(p, &mut vs);
            items.push(item);
        }
        let ncmp = match self.rng.below(100) {
            0..=59 => 0,
            60..=89 => 1,
            _ => 2,
        };
        for _ in 0..ncmp {
            let item = self.comparison(&vs);
            items.push(item);
        }
        // Shuffle the items a little: order must not matter.
        if items.len() > 1 && self.rng.chance(30) {
            let a = self.rng.below(items.len());
            let b = self.rng.below(items.len());
            items.swap(a, b);
        }
        let cols = self.preds[head].cols.clone();
        let head_args: Vec<J> = cols
            .iter()
            .map(|&c| {
                let cands = vs.bound_of(c);
                if !cands.is_empty() && self.rng.chance(85) {
                    var(&vs.vars[*self.rng.pick(&cands)].0)
                } else {
                    self.const_term(c)
                }
            })
            .collect();
        let body = if items.len() == 1 && self.rng.chance(30) {
            items.pop().unwrap()
        } else {
            json!({"kind": "and", "items": items})
        };
        let rid = if self.cfg.hostile {
            let local = self.hostile_id(format!("r{r}"));
            id(&local)
        } else {
            id(&format!("r{r}"))
        };
        let variables: Vec<J> = vs
            .vars
            .iter()
            .map(|(n, c)| json!({"id": n, "type": type_ref(*c)}))
            .collect();
        let labels = self.labels();
        let mut anchors: Vec<J> = Vec::new();
        if self.cfg.hostile && !self.fragments.is_empty() {
            for _ in 0..self.rng.below(3) {
                let f = id(&self.rng.pick(&self.fragments).clone());
                if !anchors.contains(&J::from(f.as_str())) {
                    anchors.push(J::from(f));
                }
            }
        }
        anchors.extend(self.dated_anchors().into_iter().map(J::from));
        let name = self.preds[head].name.clone();
        self.nodes.push(hashed(
            json!({"id": rid, "kind": "rule", "strength": strength,
            "head": literal(&name, negative, head_args),
            "body": body, "variables": variables, "anchors": anchors, "labels": labels,
            "scope": {"kind": "boolean", "value": true}}),
        ));
        RuleInfo {
            id: rid,
            head,
            negative,
        }
    }

    /// Priorities between conflicting rules, always from a higher rank to a
    /// lower one (so `>` is acyclic).
    fn priorities(&mut self, rules: &[RuleInfo]) {
        let rank: Vec<usize> = rules.iter().map(|_| self.rng.below(1000)).collect();
        for a in 0..rules.len() {
            for b in a + 1..rules.len() {
                if rules[a].head != rules[b].head
                    || rules[a].negative == rules[b].negative
                    || !self.rng.chance(50)
                {
                    continue;
                }
                let (hi, lo) = if (rank[a], a) > (rank[b], b) {
                    (a, b)
                } else {
                    (b, a)
                };
                let pid = if self.cfg.hostile {
                    self.hostile_id(format!("prio{a}_{b}"))
                } else {
                    format!("prio{a}_{b}")
                };
                let mut node = json!({"id": id(&pid), "kind": "priority_rule",
                    "higher": {"kind": "const_ref", "id": rules[hi].id},
                    "lower": {"kind": "const_ref", "id": rules[lo].id},
                    "priorityKind": "direct", "condition": {"kind": "boolean", "value": true}});
                if self.rng.chance(30) {
                    node["reason"] = J::from(id("lex_specialis"));
                }
                node["labels"] = self.labels();
                let anchors = self.dated_anchors();
                if !anchors.is_empty() {
                    node["anchors"] = J::from(anchors);
                }
                self.nodes.push(hashed(node));
                self.stats.priorities += 1;
            }
        }
    }

    // -- hostile mode ---------------------------------------------------------

    /// `n` random characters from [`UNICODE`].
    fn unicode(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| {
                let (lo, hi) = *self.rng.pick(UNICODE);
                char::from_u32(lo + self.rng.below((hi - lo + 1) as usize) as u32).unwrap()
            })
            .collect()
    }

    /// A hostile name the checker accepts on its own: no invisible
    /// character, one script (`check::lookalikes`; names that break those
    /// rules are in tests/ui and `lawgen/cli/tests/hostile_text.rs`).
    fn hostile_name(&mut self) -> String {
        loop {
            let name = self.any_hostile_name();
            if !lawgen::internals::check::lookalikes::refused_alone(&name) {
                return name;
            }
        }
    }

    /// A hostile name: from the pools, random Unicode, or a combination.
    fn any_hostile_name(&mut self) -> String {
        match self.rng.below(100) {
            0..=11 => self.rng.pick(COLLIDING).to_string(),
            12..=44 => self.pick_name(),
            45..=59 => {
                let n = 1 + self.rng.below(6);
                self.unicode(n)
            }
            60..=79 => {
                let a = self.pick_name();
                let sep = *self.rng.pick(&["", "-", "_", " ", ".", "__", "\u{301}"]);
                let b = self.pick_name();
                format!("{a}{sep}{b}")
            }
            80..=89 => self.rng.pick(HOSTILE_TEXTS).to_string(),
            _ => {
                let pre = *self
                    .rng
                    .pick(&["0", "9", "_", "r#", "__", "Ü", "not_", "explain_"]);
                let n = 1 + self.rng.below(3);
                format!("{pre}{}", self.unicode(n))
            }
        }
    }

    /// A name from [`hostile_names`].
    fn pick_name(&mut self) -> String {
        let group = *self.rng.pick(&hostile_names());
        self.rng.pick(group).to_string()
    }

    /// A hostile parameter name.
    fn hostile_param(&mut self) -> String {
        if self.rng.chance(60) {
            self.rng.pick(HOSTILE_PARAMS).to_string()
        } else {
            self.hostile_name()
        }
    }

    /// A hostile text (a label, an article text, a locator).
    fn hostile_text(&mut self) -> String {
        match self.rng.below(100) {
            0..=59 => self.rng.pick(HOSTILE_TEXTS).to_string(),
            60..=74 => {
                let n = 2 + self.rng.below(2);
                (0..n)
                    .map(|_| self.rng.pick(HOSTILE_TEXTS).to_string())
                    .collect::<Vec<_>>()
                    .join(*self.rng.pick(&[" ", "\n", "", "\n\n"]))
            }
            75..=89 => {
                let n = 1 + self.rng.below(20);
                self.unicode(n)
            }
            _ => self.pick_name(),
        }
    }

    /// A fresh local name for an id: hostile now and then (`odd_pct`), else
    /// `plain`; never one already used, never starting with `~` (a facts key
    /// `~p` names the negation of `p`).
    fn hostile_id(&mut self, plain: String) -> String {
        let mut name = if self.odd() {
            self.hostile_name()
        } else {
            plain
        };
        if name.starts_with('~') {
            name.insert(0, 'x');
        }
        while self.used.contains(&name) {
            name.push('_');
        }
        self.used.insert(name.clone());
        name
    }

    /// Zero to three labels in several languages, hostile texts.
    fn hostile_labels(&mut self) -> J {
        let n = match self.rng.below(100) {
            0..=24 => 0,
            25..=79 => 1,
            80..=94 => 2,
            _ => 3,
        };
        let labels: Vec<J> = (0..n)
            .map(|_| {
                let lang = *self.rng.pick(&["en", "en", "de", "ru", "", "en\"x"]);
                let status = *self.rng.pick(&["official", "unofficial"]);
                let text = if self.odd() {
                    self.hostile_text()
                } else {
                    "a plain label".to_owned()
                };
                json!({"language": lang, "status": status, "text": text})
            })
            .collect();
        J::Array(labels)
    }

    /// A hostile article text: paragraphs numbered so that labels citing
    /// `1.2` pick one of them, sometimes long (the quote is trimmed at 240
    /// characters, some of them multi-byte).
    fn article_text(&mut self) -> String {
        match self.rng.below(100) {
            0..=39 => self.hostile_text(),
            40..=69 => {
                let (a, b, c) = (
                    self.hostile_text(),
                    self.hostile_text(),
                    self.hostile_text(),
                );
                format!("Article 1.\n1.2 {a}\n1.2.1 {b}\n\n{c}")
            }
            _ => {
                let mut t = String::new();
                while t.chars().count() < 300 {
                    let piece = if self.rng.chance(50) {
                        self.hostile_text()
                    } else {
                        self.unicode(8)
                    };
                    t.push_str(&piece);
                    t.push(' ');
                }
                t
            }
        }
    }

    /// Dated mode: a work, its editions in force from July 1 of two or
    /// three years (sometimes the first repealed before the next enters
    /// into force, leaving a gap, or the last repealed), a fragment each,
    /// and the days around every boundary on which some edition is in force.
    fn timeline(&mut self) {
        use lawgen_runtime::law::Date;
        self.nodes.push(hashed(
            json!({"id": id("dated_work"), "kind": "source_work"}),
        ));
        let n = 2 + self.drng.below(2);
        let mut years: Vec<u32> = Vec::new();
        while years.len() < n {
            let y = 2011 + self.drng.below(14) as u32;
            if !years.contains(&y) {
                years.push(y);
            }
        }
        years.sort();
        let day = |y: u32, md: u32| Date(y * 10000 + md);
        let in_force: Vec<Date> = years.iter().map(|&y| day(y, 701)).collect();
        let mut repealed: Vec<Option<Date>> = vec![None; n];
        match self.drng.below(3) {
            // The first edition repealed before the second enters into force.
            0 if years[1] > years[0] + 1 => repealed[0] = Some(day(years[0] + 1, 115)),
            // The last one repealed.
            1 => repealed[n - 1] = Some(day(years[n - 1] + 2, 301)),
            _ => {}
        }
        for e in 0..n {
            let mut lifecycle =
                vec![json!({"status": "in_force", "extent": in_force[e].to_string()})];
            if let Some(r) = repealed[e] {
                lifecycle.push(json!({"status": "repealed", "extent": r.to_string()}));
            }
            let ed = format!("dated_edition{e}");
            self.nodes
                .push(hashed(json!({"id": id(&ed), "kind": "source_edition",
                "work": id("dated_work"), "lifecycle": lifecycle})));
            let f = format!("dated_art{e}");
            self.nodes
                .push(hashed(json!({"id": id(&f), "kind": "fragment",
                "edition": id(&ed), "fragmentKind": "article", "locator": format!("article/{e}"),
                "texts": []})));
            self.editions.push(f);
        }
        // Some edition in force on `d`: the latest to enter into force by
        // then, not repealed by then.
        let governed = |d: Date| {
            (0..n)
                .rev()
                .find(|&e| in_force[e] <= d)
                .is_some_and(|e| repealed[e].is_none_or(|r| d < r))
        };
        let mut days: Vec<Date> = in_force
            .iter()
            .chain(repealed.iter().flatten())
            .flat_map(|&d| [d.pred(), Some(d), d.succ()])
            .flatten()
            .filter(|&d| governed(d))
            .collect();
        days.sort();
        days.dedup();
        self.dates = days.iter().map(Date::to_string).collect();
    }

    /// Dated mode: the anchors of a rule or priority — none (timeless), the
    /// fragment of one edition, or of two.
    fn dated_anchors(&mut self) -> Vec<String> {
        if self.editions.is_empty() {
            return Vec::new();
        }
        let k = match self.drng.below(10) {
            0..=1 => 0,
            2..=7 => 1,
            _ => 2,
        };
        let mut out: Vec<String> = Vec::new();
        for _ in 0..k {
            let f = id(&self.drng.pick(&self.editions).clone());
            if !out.contains(&f) {
                out.push(f);
            }
        }
        out
    }

    /// Provenance: a work, an edition, a publication and one to three
    /// fragments with hostile locators and article texts (rules anchor them).
    fn provenance(&mut self) {
        let work = self.hostile_id("work".to_owned());
        let labels = self.labels();
        self.nodes.push(hashed(
            json!({"id": id(&work), "kind": "source_work", "labels": labels}),
        ));
        let edition = self.hostile_id("edition".to_owned());
        let labels = self.labels();
        self.nodes.push(hashed(
            json!({"id": id(&edition), "kind": "source_edition", "work": id(&work), "labels": labels}),
        ));
        let publication = self.hostile_id("publication".to_owned());
        let uri = self.hostile_text();
        self.nodes.push(hashed(
            json!({"id": id(&publication), "kind": "publication", "edition": id(&edition), "uri": uri}),
        ));
        for i in 0..1 + self.rng.below(3) {
            let f = self.hostile_id(format!("art{i}"));
            let locator = self.hostile_text();
            let texts: Vec<J> = (0..self.rng.below(3))
                .map(|_| {
                    let text = self.article_text();
                    let lang = *self.rng.pick(&["en", "de", ""]);
                    let hash = format!("sha256:{}", lawgen::internals::syntax::hash::sha256_hex(text.as_bytes()));
                    json!({"language": lang, "status": "official", "text": text, "contentHash": hash})
                })
                .collect();
            let labels = self.labels();
            self.nodes.push(hashed(
                json!({"id": id(&f), "kind": "fragment", "edition": id(&edition),
                "fragmentKind": "article", "locator": locator, "texts": texts, "labels": labels}),
            ));
            self.fragments.push(f);
        }
    }

    fn fact_value(&mut self, c: Col) -> J {
        match c {
            Col::Int => J::from(self.int_value()),
            Col::Ent(t) => J::from(self.entity(t)),
        }
    }

    /// One facts file: rows for empirical and judgment predicates (some of them
    /// explicit negations, some decisions left open), sometimes `entities`,
    /// sometimes full ids as keys, sometimes a duplicate row.
    fn facts_file(&mut self) -> Vec<u8> {
        let mut facts = Map::new();
        for i in 0..self.preds.len() {
            if self.preds[i].kind == Kind::Institutional {
                continue;
            }
            let cols = self.preds[i].cols.clone();
            let judgment = self.preds[i].kind == Kind::Judgment;
            let n = if cols.is_empty() {
                self.rng.below(2)
            } else {
                self.rng.below(5)
            };
            let (mut pos, mut neg): (Vec<J>, Vec<J>) = (Vec::new(), Vec::new());
            for _ in 0..n {
                let row = J::Array(cols.iter().map(|&c| self.fact_value(c)).collect());
                let pct = if judgment { 40 } else { 25 };
                if self.rng.chance(pct) {
                    neg.push(row)
                } else {
                    pos.push(row)
                }
            }
            neg.retain(|r| !pos.contains(r));
            if !pos.is_empty() && self.rng.chance(5) {
                pos.push(pos[0].clone()); // duplicates are accepted once
            }
            let key = if self.rng.chance(5) {
                id(&self.preds[i].name)
            } else {
                self.preds[i].name.clone()
            };
            if !pos.is_empty() {
                facts.insert(key.clone(), J::Array(pos));
            }
            if !neg.is_empty() {
                facts.insert(format!("~{key}"), J::Array(neg));
            }
        }
        let mut root = json!({"facts": facts});
        if !self.dates.is_empty() && !self.drng.chance(15) {
            root["asOf"] = J::from(self.drng.pick(&self.dates).clone());
        }
        if self.rng.chance(30) {
            let mut ents = Map::new();
            for t in 0..self.types.len() {
                if self.rng.chance(60) {
                    let names: Vec<J> = (0..1 + self.rng.below(2))
                        .map(|_| J::from(self.entity(t)))
                        .collect();
                    ents.insert(self.types[t].clone(), J::Array(names));
                }
            }
            root["entities"] = J::Object(ents);
        }
        serde_json::to_vec_pretty(&root).unwrap()
    }
}
