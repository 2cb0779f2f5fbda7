//! [`ApiModel`]: what the typed API of one module says, computed once from
//! the lowered `Program`, its plan and its names, as plain data. The
//! renderers (`ids`, `facts`, `case`, `columns`, `conclusions`, …) read this
//! model only; every package string in it is either written with
//! `Literal::string` by a renderer or has gone through `names`.

use super::super::names::ApiNames;
use super::super::plan::{out_type_ident, Plan};
use super::super::{code, names, EmitOptions};
use crate::program::{default_label, Catalog, Program, RelId, Role, Section};
use crate::program::{Lit, PredId, Ty, TypeId};
use crate::program::{RelationKind, Strength};
use lawgen_runtime::law::Law;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// An output relation and the relation subtracted from it (for `pending`).
pub(super) type OutputRel = (RelId, Option<RelId>);

/// The sections of a literal, in the order the runtime's `verdict` ranks
/// them (as `lawgen explain` does).
pub(super) const SECTIONS: [Section; 4] = [
    Section::Definitely,
    Section::Defeasibly,
    Section::Pending,
    Section::Supported,
];

/// The typed API of one module, as data.
pub(super) struct ApiModel<'a> {
    /// Above how many arms a function with one per relation is split.
    pub split_above: usize,
    /// Width of a `Facts` row: the largest input arity (at least 1).
    pub width: usize,
    /// The embedded package and its constants.
    pub package: PackageModel,
    /// The package's dated law, and the relations a case's date sets.
    pub law: LawModel<'a>,
    /// Per entity type, in declaration order.
    pub types: Vec<EntityModel>,
    /// Every method of the typed input, in the order `Facts` lists them.
    pub inputs: Vec<InputMethod>,
    /// Per input relation (sorted), the method stating its rows.
    pub input_rels: Vec<(RelId, String)>,
    /// Per predicate with an explicit negation, its two facts relations.
    pub negations: Vec<NegationModel>,
    /// The fields of `Outputs`, one per row type of the kept relations.
    pub out_types: Vec<OutType>,
    /// The derived relations a case's conclusions keep, and where.
    pub kept: BTreeMap<RelId, KeptRel>,
    /// Where the open requests of each judgment are.
    pub requests: Vec<RequestModel>,
    /// Per institutional literal (`p`, then `~p`), in declaration order.
    pub lits: Vec<LitModel>,
    /// Every relation whose rows the reference bridge asks for, sorted.
    pub row_rels: Vec<RelId>,
    /// Per relation of the program: its column types and whether it is an
    /// input.
    pub rels: Vec<RelModel<'a>>,
}

/// What the package items say.
pub(super) struct PackageModel {
    pub name: String,
    pub version: String,
    pub semantic_hash: String,
    /// The lowered program, encoded as the runtime reads it.
    pub embedded: String,
    /// The constants' names, in id order.
    pub constants: Vec<String>,
    /// What separates a type name from an index in a nameless case's names.
    pub separator: String,
}

/// The dated law of the package.
pub(super) struct LawModel<'a> {
    /// Works, editions and in-force conditions.
    pub law: &'a Law,
    /// The input relation of each in-force condition.
    pub in_force: Vec<u32>,
    /// The input relation of a case's date, if the package dates anything.
    pub as_of: Option<u32>,
}

impl LawModel<'_> {
    /// Does some rule depend on the date (so a case starts with in-force rows)?
    pub fn has_gates(&self) -> bool {
        !self.law.gates.is_empty()
    }
}

/// One entity type.
pub(super) struct EntityModel {
    /// Its id type (`Game`).
    pub ident: Ident,
    /// The package's name of it.
    pub name: String,
    pub doc: String,
    /// Its constants: associated const, fixed id, doc.
    pub consts: Vec<(Ident, u32, String)>,
}

/// A method of the typed input (`Case`, `Facts`) and `Columns` field.
pub(super) struct InputMethod {
    pub name: Ident,
    pub doc: String,
    /// Its typed arguments (a decision's `holds` comes after them).
    pub params: Vec<(Ident, Ty)>,
    pub kind: InputKind,
}

/// The rows an input method states.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum InputKind {
    /// A row of an input literal's facts relation.
    Fact(RelId),
    /// A judgment's decision: a row of the first if it holds, else the second.
    Decide(RelId, RelId),
    /// A row of a type's entities relation (a declared entity).
    Entity(RelId),
    /// A type with no entities relation (no rule needs its domain): a
    /// declaration states no row.
    Nothing,
}

/// A predicate whose facts and explicit negations are both inputs.
pub(super) struct NegationModel {
    pub pos: u32,
    pub neg: u32,
    /// The predicate's local name.
    pub local: String,
}

/// One field of `Outputs`: the kept relations of one row type.
pub(super) struct OutType {
    pub field: Ident,
    /// The Rust types of a row's columns after the case column.
    pub columns: Vec<&'static str>,
    /// Their indices among the kept relations (`k` in `Outputs`' functions).
    pub range: std::ops::Range<usize>,
}

/// Where `Outputs` holds a kept relation.
pub(super) struct KeptRel {
    /// Its index among the kept relations.
    pub index: usize,
    /// `t0[3]`: its field and slot.
    pub place: TokenStream,
}

/// The open requests of one judgment.
pub(super) struct RequestModel {
    pub rel: RelId,
    /// The judgment's predicate id: what a pending verdict's requests are
    /// matched by.
    pub pred: u32,
    /// The judgment's local name.
    pub local: String,
    pub authority: String,
    pub capability: String,
}

/// One relation of the program, as the API sees it.
pub(super) struct RelModel<'a> {
    pub columns: &'a [Ty],
    pub input: bool,
}

/// One institutional literal and its four methods on `Conclusions`.
pub(super) struct LitModel {
    /// The verdict method, its `_all` iterator, `explain_*`, `explain_*_in`.
    pub verdict: Ident,
    pub all: Ident,
    pub explain: Ident,
    pub explain_in: Ident,
    pub negative: bool,
    /// The predicate's full id, and the literal as text (`~p`).
    pub full_id: String,
    pub text: String,
    /// Its arguments: names and types.
    pub args: Vec<Ident>,
    pub params: Vec<Ty>,
    /// Per section of [`SECTIONS`], its relations (`rel \ minus`).
    pub sections: [Vec<OutputRel>; 4],
    /// The judgments a pending verdict waits on, by predicate id (empty
    /// without a pending section).
    pub judgments: Vec<u32>,
    /// The docs of the verdict method.
    pub doc: String,
}

impl LitModel {
    /// Is some section of this literal kept (else it is never concluded)?
    pub fn concluded_ever(&self) -> bool {
        self.sections.iter().any(|s| !s.is_empty())
    }

    /// The relation of its defeasible section, which `_all` and
    /// `concluded_counts` read.
    pub fn defeasibly(&self) -> Option<RelId> {
        self.sections[1].first().map(|(r, _)| *r)
    }
}

impl<'a> ApiModel<'a> {
    /// The model of the module `plan` is for.
    pub fn new(plan: &'a Plan<'a>, names: &'a ApiNames, opts: &'a EmitOptions) -> Self {
        let b = Builder {
            plan,
            prog: plan.program,
            cat: &plan.program.catalog,
            names,
            doc_language: opts.doc_language.as_deref(),
        };
        let inputs = b.input_methods();
        ApiModel {
            split_above: plan.split_above,
            width: b.row_width(),
            package: b.package(),
            law: b.law(),
            types: b.types(),
            input_rels: input_rels(&inputs),
            inputs,
            negations: b.negations(),
            out_types: (plan.outputs.types.iter().enumerate())
                .map(|(ty, (columns, range))| OutType {
                    field: out_type_ident(ty),
                    columns: columns.clone(),
                    range: range.clone(),
                })
                .collect(),
            kept: (plan.kept.iter())
                .map(|&rel| {
                    let place = plan.outputs.place(rel);
                    let index = plan.outputs.index(rel);
                    (rel, KeptRel { index, place })
                })
                .collect(),
            requests: b.requests(),
            lits: b.lits(),
            row_rels: plan
                .inputs
                .iter()
                .chain(&plan.kept)
                .copied()
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect(),
            rels: b.rels(),
        }
    }

    /// `self.batch.out.t0[3]`: kept relation `r` in a method of
    /// `Conclusions`.
    pub fn out(&self, r: RelId) -> TokenStream {
        let place = &self.kept[&r].place;
        quote!(self.batch.out.#place)
    }

    /// Relation `r`.
    pub fn rel(&self, r: RelId) -> &RelModel<'a> {
        &self.rels[r.0 as usize]
    }

    /// The package's name of entity type `t`.
    pub fn type_name(&self, t: TypeId) -> &str {
        &self.types[t.0 as usize].name
    }

    /// The id type of entity type `t`.
    pub fn type_ident(&self, t: TypeId) -> &Ident {
        &self.types[t.0 as usize].ident
    }
}

/// What a message about a bad id says of each input relation, sorted.
fn input_rels(methods: &[InputMethod]) -> Vec<(RelId, String)> {
    let mut rels: Vec<(RelId, String)> = Vec::new();
    for im in methods {
        match im.kind {
            InputKind::Entity(r) | InputKind::Fact(r) => rels.push((r, im.name.to_string())),
            InputKind::Decide(y, n) => {
                rels.push((y, im.name.to_string()));
                rels.push((n, im.name.to_string()));
            }
            InputKind::Nothing => {}
        }
    }
    rels.sort();
    rels
}

/// Builds the model: reads the program, its catalog and the plan.
struct Builder<'a> {
    plan: &'a Plan<'a>,
    prog: &'a Program,
    cat: &'a Catalog,
    names: &'a ApiNames,
    /// See [`EmitOptions::doc_language`].
    doc_language: Option<&'a str>,
}

impl<'a> Builder<'a> {
    fn row_width(&self) -> usize {
        self.plan
            .inputs
            .iter()
            .map(|&r| self.prog.relation(r).columns.len())
            .max()
            .unwrap_or(0)
            .max(1)
    }

    fn rels(&self) -> Vec<RelModel<'a>> {
        (0..self.prog.relations.len())
            .map(|i| {
                let r = RelId(i as u32);
                RelModel {
                    columns: &self.prog.relation(r).columns,
                    input: self.plan.is_input(r),
                }
            })
            .collect()
    }

    fn package(&self) -> PackageModel {
        let constants = self.plan.constants.in_order.clone();
        let const_names: Vec<&str> = constants.iter().map(String::as_str).collect();
        let type_names: Vec<&str> = self.cat.types.iter().map(|t| t.name.as_str()).collect();
        PackageModel {
            name: self.prog.package.clone(),
            version: self.prog.version.clone(),
            semantic_hash: self.cat.semantic_hash.clone().unwrap_or_default(),
            embedded: self.prog.embed(),
            separator: lawgen_runtime::__private::Nameless::separator(&const_names, &type_names),
            constants,
        }
    }

    fn law(&self) -> LawModel<'a> {
        let law = &self.cat.law;
        let mut in_force = vec![0u32; law.gates.len()];
        let mut as_of = None;
        for (i, r) in self.prog.relations.iter().enumerate() {
            match r.role {
                Role::InForce(k) => in_force[k as usize] = i as u32,
                Role::AsOf => as_of = Some(i as u32),
                _ => {}
            }
        }
        LawModel {
            law,
            in_force,
            as_of,
        }
    }

    fn types(&self) -> Vec<EntityModel> {
        let mut types = Vec::new();
        for (i, t) in self.cat.types.iter().enumerate() {
            let mut doc = format!("Entity type `{}`", code(&t.name));
            if let Some(l) = self.doc_label(&t.labels, default_label(&t.labels)) {
                doc.push_str(" — ");
                doc.push_str(&names::doc(l));
            }
            doc.push_str(
                ". An entity id: from `Facts` (which names it), from `from_index` (a \
                 nameless `Case`), or a package constant.",
            );
            let consts = self.names.type_consts[i]
                .iter()
                .map(|(n, c)| {
                    let doc = format!("The package constant `{}`.", code(n));
                    (c.clone(), self.plan.constants.id(n), doc)
                })
                .collect();
            types.push(EntityModel {
                ident: self.names.types[i].clone(),
                name: t.name.clone(),
                doc,
                consts,
            });
        }
        types
    }

    fn negations(&self) -> Vec<NegationModel> {
        let negations = self.plan.negations.iter().copied();
        negations
            .map(|(pid, pos, neg)| {
                let p = self.cat.pred(pid);
                NegationModel {
                    pos: pos.0,
                    neg: neg.0,
                    local: p.local.clone(),
                }
            })
            .collect()
    }

    fn requests(&self) -> Vec<RequestModel> {
        let requests = self.prog.requests.iter();
        requests
            .map(|rv| RequestModel {
                rel: rv.rel,
                pred: rv.lit.pred.0,
                local: self.cat.pred(rv.lit.pred).local.clone(),
                authority: rv.authority.clone(),
                capability: rv.capability.clone(),
            })
            .collect()
    }

    // -- input methods --------------------------------------------------------

    /// Every method of the typed input: per entity type its declaration, per
    /// input literal its fact method, per judgment its `decide_` method; in
    /// the order `Facts` has always listed them.
    fn input_methods(&self) -> Vec<InputMethod> {
        let mut out: Vec<InputMethod> = (0..self.cat.types.len())
            .map(|i| self.declaration(TypeId(i as u32)))
            .collect();
        for (i, p) in self.cat.preds.iter().enumerate() {
            let pid = PredId(i as u32);
            match p.kind {
                RelationKind::Empirical => {
                    out.extend([false, true].into_iter().filter_map(|negative| {
                        self.fact_method(Lit {
                            pred: pid,
                            negative,
                        })
                    }));
                }
                RelationKind::Judgment => out.extend(self.decide_method(pid)),
                RelationKind::Institutional => {}
            }
        }
        out
    }

    fn params(&self, p: PredId) -> Vec<(Ident, Ty)> {
        let i = p.0 as usize;
        let names = self.names.params[i].iter().cloned();
        names
            .zip(self.cat.preds[i].params.iter().copied())
            .collect()
    }

    /// The declaration of an entity of type `ty`.
    fn declaration(&self, ty: TypeId) -> InputMethod {
        let i = ty.0 as usize;
        InputMethod {
            name: self.names.entity_methods[i].clone(),
            doc: format!(
                "Declares the `{}` entity `entity` (it counts for the domains of undecided judgments even if no fact names it).",
                code(&self.cat.types[i].name)
            ),
            params: vec![(format_ident!("entity"), Ty::Entity(ty))],
            kind: match self.plan.entities_rel.get(&ty) {
                Some(&r) => InputKind::Entity(r),
                None => InputKind::Nothing,
            },
        }
    }

    /// The fact method of input literal `l`, if it has a facts relation.
    fn fact_method(&self, l: Lit) -> Option<InputMethod> {
        let (Some(mn), Some(&r)) = (
            self.names.facts_methods.get(&l),
            self.plan.facts_rel.get(&l),
        ) else {
            return None;
        };
        let p = self.cat.pred(l.pred);
        let what = if l.negative {
            format!("States the explicit negation `~{}`: ", code(&p.local))
        } else {
            "States the fact ".to_owned()
        };
        Some(InputMethod {
            name: mn.clone(),
            doc: format!(
                "{what}{}{}",
                self.pred_doc(l.pred),
                self.deprecation_doc(l.pred)
            ),
            params: self.params(l.pred),
            kind: InputKind::Fact(r),
        })
    }

    /// The `decide_` method of judgment `pid`, if it has both facts relations.
    fn decide_method(&self, pid: PredId) -> Option<InputMethod> {
        let lit = |negative| Lit {
            pred: pid,
            negative,
        };
        let yes = *self.plan.facts_rel.get(&lit(false))?;
        let no = *self.plan.facts_rel.get(&lit(true))?;
        let p = self.cat.pred(pid);
        let auth = p
            .external
            .as_ref()
            .map(|e| e.authority.clone())
            .unwrap_or_default();
        Some(InputMethod {
            name: self.names.decide_methods[&pid].clone(),
            doc: format!(
                "Records the decision of {} on the judgment {}: `holds` = decided yes, `false` = decided no. Undecided judgments are requested (see `Verdict::Pending`).{}",
                names::doc(&auth),
                self.pred_doc(pid),
                self.deprecation_doc(pid)
            ),
            params: self.params(pid),
            kind: InputKind::Decide(yes, no),
        })
    }

    // -- institutional literals -------------------------------------------------

    fn outputs_by_lit(&self) -> BTreeMap<(Lit, Section), Vec<OutputRel>> {
        let mut outputs: BTreeMap<(Lit, Section), Vec<OutputRel>> = BTreeMap::new();
        for o in &self.prog.outputs {
            outputs
                .entry((o.lit, o.section))
                .or_default()
                .push((o.rel, o.minus));
        }
        outputs
    }

    /// Judgments in the dependency past of each predicate, whose requests a
    /// pending verdict names (lowering records them on the pending sections).
    fn judgments_before(&self) -> Vec<BTreeSet<PredId>> {
        let mut judgments_before = vec![BTreeSet::new(); self.cat.preds.len()];
        for o in &self.prog.outputs {
            judgments_before[o.lit.pred.0 as usize].extend(o.on.iter().copied());
        }
        judgments_before
    }

    fn lits(&self) -> Vec<LitModel> {
        let outputs = self.outputs_by_lit();
        let before = self.judgments_before();
        let mut lits = Vec::new();
        for (i, p) in self.cat.preds.iter().enumerate() {
            if p.kind != RelationKind::Institutional {
                continue;
            }
            let judgments: Vec<u32> = before[i].iter().map(|j| j.0).collect();
            for negative in [false, true] {
                let l = Lit {
                    pred: PredId(i as u32),
                    negative,
                };
                lits.push(self.lit(l, &outputs, &judgments));
            }
        }
        lits
    }

    fn lit(
        &self,
        l: Lit,
        outputs: &BTreeMap<(Lit, Section), Vec<OutputRel>>,
        judgments: &[u32],
    ) -> LitModel {
        let p = self.cat.pred(l.pred);
        let (vn, alln, exn, exn_in) = &self.names.verdict_methods[&l];
        let sections = SECTIONS.map(|s| outputs.get(&(l, s)).cloned().unwrap_or_default());
        let pending = outputs.contains_key(&(l, Section::Pending));
        let text = self.cat.lit_name(l);
        let doc = format!(
            "The verdict on `{}`: {}{}",
            code(&text),
            self.pred_doc(l.pred),
            self.rules_doc(l)
        );
        LitModel {
            verdict: vn.clone(),
            all: alln.clone(),
            explain: exn.clone(),
            explain_in: exn_in.clone(),
            negative: l.negative,
            full_id: p.id.clone(),
            text,
            args: self.names.params[l.pred.0 as usize].clone(),
            params: p.params.clone(),
            sections,
            judgments: if pending {
                judgments.to_vec()
            } else {
                Vec::new()
            },
            doc,
        }
    }

    // -- docs -----------------------------------------------------------------

    /// The label rustdoc shows: in the module's doc language when asked
    /// for and the node has one, else `default` (English, else the first).
    fn doc_label<'l>(
        &self,
        labels: &'l [crate::program::Label],
        default: Option<&'l str>,
    ) -> Option<&'l str> {
        match self.doc_language {
            Some(lang) => crate::program::label_in(labels, lang),
            None => default,
        }
    }

    /// What an input deprecation of the package says of `p`
    /// (docs/reference.md#deprecated-inputs), as a sentence to append to
    /// its method's doc; empty for an input no deprecation names.
    fn deprecation_doc(&self, p: PredId) -> String {
        let Some(d) = self.cat.deprecations.iter().find(|d| d.pred == p) else {
            return String::new();
        };
        let instead: Vec<String> = d
            .replaced_by
            .iter()
            .map(|q| format!("`{}`", code(&self.cat.pred(*q).local)))
            .collect();
        match d.one_per {
            None => format!(" Deprecated: state {} instead.", instead.join(", ")),
            Some(t) => format!(
                " Valid for one `{}` per case: in a case holding several, state {} instead.",
                code(self.cat.type_name(Ty::Entity(t))),
                instead.join(", ")
            ),
        }
    }

    fn pred_doc(&self, p: PredId) -> String {
        let pred = self.cat.pred(p);
        let sig: Vec<String> = pred
            .params
            .iter()
            .map(|t| self.cat.type_name(*t).to_owned())
            .collect();
        let mut d = format!("`{}({})`", code(&pred.local), code(&sig.join(", ")));
        if let Some(l) = self.doc_label(&pred.labels, default_label(&pred.labels)) {
            d.push_str(" — ");
            d.push_str(&names::doc(l));
        }
        d
    }

    /// Rule docs for an institutional literal: label, strength, anchors.
    fn rules_doc(&self, l: Lit) -> String {
        let mut d = String::new();
        for (_, rule) in self.cat.rules_for(l) {
            let strength = match rule.strength {
                Strength::Strict => "strict",
                Strength::Defeasible => "defeasible",
                Strength::Defeater => "defeater",
            };
            let _ = write!(d, "\n\n- rule `{}` ({strength})", code(&rule.local));
            let label = self.doc_label(&rule.labels, default_label(&rule.labels));
            if let Some(label) = label {
                let _ = write!(d, ": {}", names::doc(label));
            }
            for frag in &rule.anchors {
                let _ = write!(d, "\n\n  anchor {}", names::doc(&frag.locator));
                if let Some(t) = self.doc_label(&frag.texts, default_label(&frag.texts)) {
                    let q = crate::explain::anchor_quote(t, label);
                    let _ = write!(d, ": “{}”", names::doc(&q.replace('\n', " ")));
                }
            }
        }
        d
    }
}
