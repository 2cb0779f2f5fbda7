//! The plan: what every engine needs to know of a lowered program, worked
//! out once.
//!
//! [`emit`](super::emit) builds one [`Plan`] from the lowered program after
//! [`unfold`](super::unfold), [`cse`](super::cse) and
//! [`preload`](super::preload) have rewritten its rules for the engine. Both backends ([`Backend`](super::Backend):
//! `ascent.rs`, `direct/`) and the typed API read it, so that each fact of
//! the program is decided in one place:
//!
//! - which relations an engine stores, and the type of their rows;
//! - the batch loader: the relation of each input literal, entity type and
//!   the policy flag, what each loaded row also pushes (the preloaded rules),
//!   and the pairs of relations a contradiction is found in;
//! - the relations a case's conclusions keep;
//! - how a rule's constants and comparisons are written (one table each);
//! - the engine's rules grouped into components in dependency order.
//!
//! The plan says *what* an engine computes and stores, never *how*: a
//! backend is free to give a relation a hash table, a per-case table, a bit
//! set or no storage at all, and to run a component as a fixpoint loop or
//! as straight-line code.

use super::preload::{LoadArg, LoadRule};
use super::{names, EmitError};
use crate::program::CmpOp;
use crate::program::{EdgeOrder, Item, Program, RelId, Role, Term};
use crate::program::{Lit, PredId, Ty, TypeId, Value};
use proc_macro2::{Ident, Literal, Punct, Spacing, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What the engine runs and stores for one lowered program.
pub(super) struct Plan<'p> {
    /// The lowered program: relation numbers and roles, outputs, requests
    /// and the catalog, all unchanged by `unfold` and `preload`.
    pub program: &'p Program,
    /// The rules the engine runs: `program` unfolded, without the rules
    /// applied while loading (same relations; its strata hold the rules that
    /// remain).
    pub engine: Program,
    /// The rules applied while a batch is loaded.
    pub preload: Vec<LoadRule>,
    /// Every relation an engine stores, in index order: the inputs and the
    /// policy flag (the batch fills them), the kept relations (the API reads
    /// them), the heads of preloaded rules, and whatever a remaining rule
    /// mentions.
    pub storage: BTreeSet<RelId>,
    /// The input relations (facts and declared entities), in index order.
    pub inputs: Vec<RelId>,
    /// The facts relation of each input literal (`p`, `~p`, and a
    /// judgment's two decisions).
    pub facts_rel: HashMap<Lit, RelId>,
    /// The entities relation of each entity type.
    pub entities_rel: HashMap<TypeId, RelId>,
    /// The policy flag: one row when the batch runs under `Propagating`.
    pub policy: Option<RelId>,
    /// The derived relations a case's conclusions keep: every output (and
    /// the relation subtracted from it) and every request relation, grouped
    /// by row type ([`Plan::outputs`]); a kept relation's index here is its
    /// index in every table of the batch's `Outputs`.
    pub kept: Vec<RelId>,
    /// How a batch's `Outputs` hold the kept relations.
    pub outputs: OutputLayout,
    /// Each predicate's facts relation and that of its explicit negation (a
    /// tuple in both is a contradiction: docs/reference.md#facts-files).
    pub negations: Vec<(PredId, RelId, RelId)>,
    /// The fixed ids of entity constants.
    pub constants: Constants,
    /// Above how many arms a function of the typed API with one per
    /// relation is split (`super::split`).
    pub split_above: usize,
}

/// How a batch's `Outputs` hold the kept relations: one array of `ByCase`
/// per row type (`t0`, `t1`, …), not one field per relation, so that the
/// struct and every function reading all of it have one item per row type
/// (per relation they were a fifth of a large module: docs/performance.md,
/// "Large packages").
pub(super) struct OutputLayout {
    /// Per row type, in order of first appearance by relation id: its
    /// columns' Rust types (after the case column), and the range of
    /// [`Plan::kept`] it holds.
    pub types: Vec<(Vec<&'static str>, std::ops::Range<usize>)>,
    /// Each kept relation's index in [`Plan::kept`], and its row type.
    index: HashMap<RelId, (usize, usize)>,
}

impl OutputLayout {
    /// Groups `kept` (in relation order) by row type: the kept relations in
    /// their new order, and the layout.
    fn new(program: &Program, kept: Vec<RelId>) -> (Vec<RelId>, Self) {
        let mut groups: Vec<(Vec<&'static str>, Vec<RelId>)> = Vec::new();
        for r in kept {
            let cols: Vec<&'static str> = program
                .relation(r)
                .columns
                .iter()
                .map(|t| column_type(*t))
                .collect();
            match groups.iter_mut().find(|(c, _)| *c == cols) {
                Some((_, rels)) => rels.push(r),
                None => groups.push((cols, vec![r])),
            }
        }
        let mut order = Vec::new();
        let mut layout = OutputLayout {
            types: Vec::new(),
            index: HashMap::new(),
        };
        for (ty, (cols, rels)) in groups.into_iter().enumerate() {
            let start = order.len();
            for r in rels {
                layout.index.insert(r, (order.len(), ty));
                order.push(r);
            }
            layout.types.push((cols, start..order.len()));
        }
        (order, layout)
    }

    /// The index of kept relation `r` in [`Plan::kept`]: its `k` in the
    /// functions of `Outputs`.
    pub fn index(&self, r: RelId) -> usize {
        self.index[&r].0
    }

    /// `t0[3]`: where `Outputs` holds kept relation `r`.
    pub fn place(&self, r: RelId) -> TokenStream {
        let (k, ty) = self.index[&r];
        let field = out_type_ident(ty);
        let slot = Literal::usize_unsuffixed(k - self.types[ty].1.start);
        quote!(#field[#slot])
    }
}

/// The field of `Outputs` holding the kept relations of row type `ty`.
pub(super) fn out_type_ident(ty: usize) -> Ident {
    format_ident!("t{ty}")
}

/// Entity constants and their fixed interned ids: the package's constants,
/// then any other entity a rule names, in first-appearance order.
pub(super) struct Constants {
    ids: BTreeMap<String, u32>,
    /// The names, in id order.
    pub in_order: Vec<String>,
}

impl Constants {
    fn new(program: &Program) -> Self {
        let mut c = Constants {
            ids: BTreeMap::new(),
            in_order: Vec::new(),
        };
        for k in &program.catalog.constants {
            c.add(&k.local);
        }
        for r in &program.rules {
            for t in r
                .head
                .args
                .iter()
                .chain(r.body.iter().flat_map(|i| i.terms()))
            {
                if let Term::Value(Value::Entity(e)) = t {
                    c.add(e);
                }
            }
        }
        c
    }

    fn add(&mut self, name: &str) {
        if !self.ids.contains_key(name) {
            self.ids.insert(name.to_owned(), self.in_order.len() as u32);
            self.in_order.push(name.to_owned());
        }
    }

    /// The id of a constant: every entity a rule of the program names has
    /// one ([`Constants::new`] reads every rule, and `unfold` and `preload`
    /// only move terms between rules).
    pub fn id(&self, name: &str) -> u32 {
        self.ids[name]
    }
}

/// Relations whose rows come from a case's `Facts` (filled by `evaluate_batch`):
/// its facts, entities, and the in-force inputs its date sets.
pub(super) fn is_input_role(role: &Role) -> bool {
    matches!(
        role,
        Role::Facts(_) | Role::Entities(Ty::Entity(_)) | Role::InForce(_) | Role::AsOf
    )
}

/// Relations the batch fills: the inputs and the policy flag. Rules that
/// read nothing else are applied while loading ([`super::preload`]).
pub(super) fn is_loaded_role(role: &Role) -> bool {
    is_input_role(role) || *role == Role::PolicyPropagating
}

impl<'p> Plan<'p> {
    /// The plan of `program`, whose engine runs `engine` (the program after
    /// `unfold` and `preload`) and applies `preload` while loading.
    pub fn new(program: &'p Program, engine: Program, preload: Vec<LoadRule>) -> Self {
        let mut facts_rel = HashMap::new();
        let mut entities_rel = HashMap::new();
        let mut policy = None;
        let mut inputs = Vec::new();
        for (i, r) in program.relations.iter().enumerate() {
            let id = RelId(i as u32);
            if is_input_role(&r.role) {
                inputs.push(id);
            }
            match &r.role {
                Role::Facts(l) => {
                    facts_rel.insert(*l, id);
                }
                Role::Entities(Ty::Entity(t)) => {
                    entities_rel.insert(*t, id);
                }
                Role::PolicyPropagating => policy = Some(id),
                Role::Entities(Ty::Int) | Role::InForce(_) | Role::AsOf | Role::Derived => {}
            }
        }
        let mut kept = BTreeSet::new();
        for o in &program.outputs {
            kept.insert(o.rel);
            kept.extend(o.minus);
        }
        kept.extend(program.requests.iter().map(|rv| rv.rel));
        let kept: Vec<RelId> = kept
            .into_iter()
            .filter(|&r| !is_input_role(&program.relation(r).role))
            .collect();
        let (kept, outputs) = OutputLayout::new(program, kept);
        let negations = (0..program.catalog.preds.len() as u32)
            .map(PredId)
            .filter_map(|pred| {
                let lit = |negative| Lit { pred, negative };
                let pos = *facts_rel.get(&lit(false))?;
                let neg = *facts_rel.get(&lit(true))?;
                Some((pred, pos, neg))
            })
            .collect();
        let mut storage: BTreeSet<RelId> = (0..program.relations.len() as u32)
            .map(RelId)
            .filter(|&r| program.relation(r).role != Role::Derived)
            .chain(kept.iter().copied())
            .chain(preload.iter().map(|l| l.head))
            .collect();
        for rule in &engine.rules {
            storage.insert(rule.head.rel);
            storage.extend(rule.body.iter().filter_map(|i| match i {
                Item::Pos(a) | Item::Neg(a) => Some(a.rel),
                Item::Cmp(..) => None,
            }));
        }
        Plan {
            program,
            constants: Constants::new(program),
            engine,
            preload,
            storage,
            inputs,
            facts_rel,
            entities_rel,
            policy,
            kept,
            outputs,
            negations,
            split_above: super::split::SPLIT_ABOVE,
        }
    }

    /// Is `r` filled from a case's facts?
    pub fn is_input(&self, r: RelId) -> bool {
        is_input_role(&self.program.relation(r).role)
    }

    /// The Rust types of the columns of `r`'s rows (without a case column).
    pub fn column_types(&self, r: RelId) -> impl Iterator<Item = &'static str> + '_ {
        self.program
            .relation(r)
            .columns
            .iter()
            .map(|t| column_type(*t))
    }

    /// `(u32, i64)`: the type of a row of `r` as tokens (without a case column).
    pub fn row_type(&self, r: RelId) -> TokenStream {
        let cols = self.column_types(r).map(|t| format_ident!("{t}"));
        quote!((#(#cols,)*))
    }

    /// A constant as engine code.
    pub fn value(&self, v: &Value) -> Const {
        match v {
            Value::Int(i) => Const::Int(*i),
            Value::Entity(e) => Const::Id(self.constants.id(e)),
        }
    }

    /// The columns of a `Facts` row `v` of input relation `r` in the
    /// engine's types (`v[0] as u32`, `v[1]`, …).
    pub fn fact_columns(&self, r: RelId) -> Vec<TokenStream> {
        self.program
            .relation(r)
            .columns
            .iter()
            .enumerate()
            .map(|(k, t)| match t {
                Ty::Int => quote!(v[#k]),
                Ty::Entity(_) => quote!(v[#k] as u32),
            })
            .collect()
    }

    /// The heads of the preloaded rules (each case's rows of them are
    /// deduplicated by a backend that keeps duplicates).
    pub fn preload_heads(&self) -> BTreeSet<RelId> {
        self.preload.iter().map(|l| l.head).collect()
    }

    // -- the batch loader ----------------------------------------------------

    /// The rows one case starts with before any fact: those of the constant
    /// rules among the preloaded ones.
    pub fn load_constants(&self, store: Store<'_>) -> Vec<TokenStream> {
        self.preloaded_from(None, store)
    }

    /// Loads a case's facts, `rows` (an expression for a slice of
    /// `(rel, v)` pairs): each row stored in its input relation, followed
    /// by the rows of the rules preloaded from it.
    pub fn load_facts(&self, store: Store<'_>, rows: TokenStream) -> TokenStream {
        let arms = self.inputs.iter().map(|&r| {
            let row = store(r, self.fact_columns(r));
            let derived = self.preloaded_from(Some(r), store);
            let rel = r.0;
            quote!(#rel => { #row #(#derived)* })
        });
        quote! {
            for (rel, v) in #rows {
                match *rel {
                    #(#arms)*
                    _ => {}
                }
            }
        }
    }

    /// Sets the policy flag (and what is preloaded from it) when `policy`
    /// is `Propagating`; `None` if the program has no flag.
    pub fn load_policy(&self, store: Store<'_>) -> Option<TokenStream> {
        self.policy.map(|r| {
            let row = store(r, Vec::new());
            let derived = self.preloaded_from(Some(r), store);
            quote!(if policy == __rt::Policy::Propagating { #row #(#derived)* })
        })
    }

    /// The rows of the rules preloaded from a row `v` of `source`, or once
    /// per case for `None` (`emit::preload`).
    fn preloaded_from(&self, source: Option<RelId>, store: Store<'_>) -> Vec<TokenStream> {
        self.preload
            .iter()
            .filter(|l| l.source == source)
            .map(|l| {
                let head = self.program.relation(l.head);
                let cols = l
                    .args
                    .iter()
                    .zip(&head.columns)
                    .map(|(a, ty)| match (a, ty) {
                        (LoadArg::Col(k), Ty::Int) => quote!(v[#k]),
                        (LoadArg::Col(k), Ty::Entity(_)) => quote!(v[#k] as u32),
                        (LoadArg::Value(x), _) => self.value(x).into_token_stream(),
                    })
                    .collect();
                store(l.head, cols)
            })
            .collect()
    }

    // -- the engine's rules in dependency order --------------------------------

    /// The engine's rules grouped into strongly connected components of
    /// their relations (over positive and negated dependencies,
    /// [`Program::rule_components`]), in the order they run: every component
    /// after those it reads, and independent ones by [`EdgeOrder::Relation`],
    /// whatever the order of the rules.
    pub fn components(&self) -> Result<Vec<Component>, EmitError> {
        let prog = &self.engine;
        let mut out = Vec::new();
        for c in prog.rule_components(EdgeOrder::Relation).components() {
            if c.rules.is_empty() {
                continue;
            }
            if let Some((ri, _)) = c.negated {
                return Err(EmitError::Format(format!(
                    "rule `{}` negates a relation of its own component (the lowered program is not stratified)",
                    names::comment(&prog.rules[ri].origin)
                )));
            }
            out.push(Component {
                rels: c.relations.iter().copied().collect(),
                rules: c.rules.clone(),
                recursive: c.recursive,
            });
        }
        Ok(out)
    }
}

/// How a backend stores one row: `store(relation, columns)` is a statement
/// that adds the row whose columns are those expressions (in the case being
/// loaded, for an engine that keeps a case column).
pub(super) type Store<'a> = &'a dyn Fn(RelId, Vec<TokenStream>) -> TokenStream;

/// Relations that depend on each other, and the rules deriving them.
pub(super) struct Component {
    pub rels: BTreeSet<RelId>,
    /// Indices into the engine program's rules.
    pub rules: Vec<usize>,
    /// Does some rule read a relation of the component?
    pub recursive: bool,
}

/// The Rust type of a column: integers are `i64`, entities their interned
/// `u32` id.
pub(super) fn column_type(t: Ty) -> &'static str {
    match t {
        Ty::Int => "i64",
        Ty::Entity(_) => "u32",
    }
}

/// A constant of a rule in engine code, spelt the same way by every engine
/// (as text by the ascent program, as tokens elsewhere): `5i64`, `-5i64`,
/// `3u32` for an entity's id, and the extreme integers as paths, since
/// rustc's `unused_comparisons` lint fires on a comparison with the literal
/// (`x <= 9223372036854775807i64`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Const {
    Int(i64),
    Id(u32),
}

impl std::fmt::Display for Const {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Const::Int(i64::MIN) => f.write_str("i64::MIN"),
            Const::Int(i64::MAX) => f.write_str("i64::MAX"),
            Const::Int(i) => write!(f, "{i}i64"),
            Const::Id(id) => write!(f, "{id}u32"),
        }
    }
}

impl ToTokens for Const {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(match *self {
            Const::Int(i64::MIN) => quote!(i64::MIN),
            Const::Int(i64::MAX) => quote!(i64::MAX),
            Const::Int(i) if i < 0 => {
                let a = Literal::i64_suffixed(-i);
                quote!(-#a)
            }
            Const::Int(i) => Literal::i64_suffixed(i).into_token_stream(),
            Const::Id(id) => Literal::u32_suffixed(id).into_token_stream(),
        });
    }
}

/// Rust's operator for a comparison of a rule body: the one table every
/// engine writes comparisons with.
pub(super) fn operator(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

/// [`operator`] as tokens.
pub(super) fn operator_tokens(op: CmpOp) -> TokenStream {
    let s = operator(op);
    let n = s.chars().count();
    s.chars()
        .enumerate()
        .map(|(i, c)| {
            let spacing = if i + 1 < n {
                Spacing::Joint
            } else {
                Spacing::Alone
            };
            TokenTree::Punct(Punct::new(c, spacing))
        })
        .collect()
}

/// The field of relation `r` in an engine's storage.
pub(super) fn rel_ident(r: RelId) -> Ident {
    format_ident!("r{}", r.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_and_operators_are_spelt_alike_as_text_and_tokens() {
        for c in [
            Const::Int(0),
            Const::Int(7),
            Const::Int(-7),
            Const::Int(i64::MIN),
            Const::Int(i64::MAX),
            Const::Id(3),
        ] {
            // Tokens print with spaces between them; the text has none.
            let tokens = c.to_token_stream().to_string().replace(' ', "");
            assert_eq!(tokens, c.to_string());
        }
        for op in [
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
        ] {
            let t = operator_tokens(op);
            assert_eq!(t.to_string(), operator(op));
            let e: syn::Expr = syn::parse2(quote!(a #t b)).unwrap();
            assert!(matches!(e, syn::Expr::Binary(_)));
        }
    }
}
