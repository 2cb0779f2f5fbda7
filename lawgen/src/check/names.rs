//! Pass 1: declarations and name resolution.
//!
//! Builds the scope (id → declaration) and the model's declarations (types,
//! predicates, constants, fragments), and checks every reference that is not
//! inside a rule body: parameter types, constant types, anchors, editions,
//! works. References inside rules are resolved by `types` through [`Scope`].

use crate::diagnostics::{Code, Diagnostics, Location};
use crate::model::{self, FragId, Model, RuleId};
use crate::program::{local_name, PredId, Ty, TypeId};
use crate::syntax::{pick_label, NodeKind, Package, Ref, INTEGER_TYPE};
use std::collections::HashMap;

/// What an id declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Decl {
    Type(TypeId),
    Pred(PredId),
    Const(usize),
    /// A relation or constant whose declaration has errors (reported there);
    /// references to it resolve to nothing, silently.
    Broken,
    Rule,
    Fragment(FragId),
    Edition,
    Work,
    Other(&'static str),
}

impl Decl {
    fn describe(self) -> &'static str {
        match self {
            Decl::Type(_) => "a type",
            Decl::Pred(_) => "a predicate",
            Decl::Const(_) => "a constant",
            // Relations and constants are `Broken` until numbered (and stay
            // so when their own declaration has errors).
            Decl::Broken => "a symbol_decl (a predicate or constant)",
            Decl::Rule => "a rule",
            Decl::Fragment(_) => "a fragment",
            Decl::Edition => "a source edition",
            Decl::Work => "a source work",
            Decl::Other(what) => what,
        }
    }
}

#[derive(Default)]
pub(super) struct Scope {
    pub decls: HashMap<String, Decl>,
    /// Filled by `types` for every rule it could build (and renumbered by
    /// `derogations`, which takes the rules it sets aside out).
    pub rules: HashMap<String, RuleId>,
    /// Rules set aside by a derogation, by id: index into `Model::set_aside`.
    pub set_aside: HashMap<String, usize>,
}

impl Scope {
    fn lookup(
        &self,
        r: &Ref,
        node: &str,
        diags: &mut Diagnostics,
        code: Code,
        want: &str,
    ) -> Option<Decl> {
        match self.decls.get(&r.id) {
            Some(d) => Some(*d),
            None => {
                diags.error(
                    code,
                    Location::new(Some(node), &r.ptr),
                    format!("`{}` is not declared as {want}", r.id),
                    format!(
                        "declare {want} with id `{}`, or fix the reference to name an existing one",
                        r.id
                    ),
                );
                None
            }
        }
    }

    fn wrong_kind(r: &Ref, node: &str, diags: &mut Diagnostics, found: Decl, want: &str) {
        diags.error(
            Code::WrongNodeKind,
            Location::new(Some(node), &r.ptr),
            format!("`{}` is {}, not {want}", r.id, found.describe()),
            format!("refer to {want} here"),
        );
    }

    pub fn pred(&self, r: &Ref, node: &str, diags: &mut Diagnostics) -> Option<PredId> {
        match self.lookup(r, node, diags, Code::UnknownPredicate, "a predicate")? {
            Decl::Pred(p) => Some(p),
            Decl::Broken => None,
            other => {
                Self::wrong_kind(r, node, diags, other, "a predicate");
                None
            }
        }
    }

    pub fn constant(&self, r: &Ref, node: &str, diags: &mut Diagnostics) -> Option<usize> {
        match self.lookup(r, node, diags, Code::UnknownConstant, "a constant")? {
            Decl::Const(c) => Some(c),
            Decl::Broken => None,
            other => {
                Self::wrong_kind(r, node, diags, other, "a constant");
                None
            }
        }
    }

    pub fn ty(&self, r: &Ref, node: &str, diags: &mut Diagnostics) -> Option<Ty> {
        if r.id == INTEGER_TYPE {
            return Some(Ty::Int);
        }
        match self.lookup(r, node, diags, Code::UnknownType, "a type")? {
            Decl::Type(t) => Some(Ty::Entity(t)),
            other => {
                Self::wrong_kind(r, node, diags, other, "a type");
                None
            }
        }
    }

    pub fn rule(&self, r: &Ref, node: &str, diags: &mut Diagnostics) -> Option<RuleId> {
        match self.lookup(r, node, diags, Code::UnknownRule, "a rule")? {
            Decl::Rule => {
                // A rule that failed to type-check is not in the model; its own
                // errors are reported already.
                self.rules.get(&r.id).copied()
            }
            other => {
                Self::wrong_kind(r, node, diags, other, "a rule");
                None
            }
        }
    }

    fn provenance(&self, r: &Ref, node: &str, diags: &mut Diagnostics, want: Decl) -> Option<Decl> {
        let what = want.describe();
        let d = self.lookup(r, node, diags, Code::UnknownProvenance, what)?;
        if std::mem::discriminant(&d) != std::mem::discriminant(&want) {
            Self::wrong_kind(r, node, diags, d, what);
            return None;
        }
        Some(d)
    }
}

/// `layer_of[i]` is the package (of an import closure) node `i` of `pkg`
/// comes from; `None` when `pkg` is one package on its own.
pub(super) fn declarations(
    pkg: &Package,
    layer_of: Option<&[u32]>,
    diags: &mut Diagnostics,
) -> (Scope, Model) {
    let layer = |i: usize| layer_of.map_or(0, |l| l.get(i).copied().unwrap_or(0));
    let mut scope = Scope::default();
    let mut model = Model {
        name: pkg.name.clone(),
        namespace: pkg.namespace.clone(),
        version: pkg.version.clone(),
        semantic_hash: pkg.semantic_hash.clone(),
        types: Vec::new(),
        preds: Vec::new(),
        constants: Vec::new(),
        rules: Vec::new(),
        priorities: Vec::new(),
        closures: Vec::new(),
        fragments: Vec::new(),
        derogations: Vec::new(),
        deprecations: Vec::new(),
        set_aside: Vec::new(),
        strata: Vec::new(),
        works: Vec::new(),
        editions: Vec::new(),
        packages: vec![model::PackageInfo {
            name: pkg.name.clone(),
            namespace: pkg.namespace.clone(),
            version: pkg.version.clone(),
            semantic_hash: pkg.semantic_hash.clone(),
            file: String::new(),
            imports: Vec::new(),
        }],
        origin: Default::default(),
        ambiguous_preds: Default::default(),
        ambiguous_consts: Default::default(),
        index: Default::default(),
    };
    // The package of each predicate, for the local-name rule below.
    let mut pred_layer: Vec<u32> = Vec::new();
    // Declarations first, so references may point forward.
    for n in &pkg.nodes {
        let decl = match &n.kind {
            NodeKind::TypeDecl { name } => {
                model.types.push(model::EntityType {
                    id: n.id.clone(),
                    name: name.clone(),
                    label: pick_label(&n.labels).map(str::to_owned),
                    labels: n.labels.clone(),
                });
                Decl::Type(TypeId(model.types.len() as u32 - 1))
            }
            // Numbered below, once their types resolve.
            NodeKind::Relation(_) | NodeKind::Constant { .. } => Decl::Broken,
            NodeKind::Rule(_) => Decl::Rule,
            NodeKind::Fragment(f) => {
                model.fragments.push(model::Fragment {
                    id: n.id.clone(),
                    edition: None,
                    locator: f.locator.clone(),
                    text: pick_label(&f.texts).map(str::to_owned),
                    texts: f.texts.clone(),
                });
                Decl::Fragment(FragId(model.fragments.len() as u32 - 1))
            }
            NodeKind::SourceEdition { .. } => Decl::Edition,
            NodeKind::SourceWork(_) => Decl::Work,
            NodeKind::Priority { .. } => Decl::Other("a priority rule"),
            NodeKind::Closure(_) => Decl::Other("a closure policy"),
            NodeKind::External { .. } => Decl::Other("an external declaration"),
            NodeKind::Publication { .. } => Decl::Other("a publication"),
            NodeKind::Derogation(_) => Decl::Other("a derogation"),
            NodeKind::InputDeprecation(_) => Decl::Other("an input deprecation"),
        };
        // Duplicate ids were reported by the reader; the first one wins.
        scope.decls.entry(n.id.clone()).or_insert(decl);
    }
    for (ni, n) in pkg.nodes.iter().enumerate() {
        let node = n.id.as_str();
        match &n.kind {
            NodeKind::Relation(r) => {
                let mut params = Vec::new();
                let mut ok = true;
                for p in &r.params {
                    match scope.ty(&p.ty, node, diags) {
                        Some(t) => params.push(t),
                        None => ok = false,
                    }
                }
                // A duplicate id keeps the first declaration (the reader reported it).
                if !ok || is_numbered(&scope, node) {
                    continue;
                }
                let id = PredId(model.preds.len() as u32);
                scope.decls.insert(n.id.clone(), Decl::Pred(id));
                model.preds.push(model::Pred {
                    id: n.id.clone(),
                    local: local_name(&n.id).to_owned(),
                    kind: r.relation_kind,
                    params,
                    param_names: r.params.iter().map(|p| p.name.clone()).collect(),
                    label: pick_label(&n.labels).map(str::to_owned),
                    labels: n.labels.clone(),
                    external: None,
                    stratum: 0,
                    ptr: n.ptr.clone(),
                });
                pred_layer.push(layer(ni));
            }
            NodeKind::Constant { ty, .. } => {
                let Some(t) = scope.ty(ty, node, diags) else {
                    continue;
                };
                let Ty::Entity(t) = t else {
                    diags.error(
                        Code::TypeMismatch,
                        Location::new(Some(node), &ty.ptr),
                        "a constant must be of an entity type, not Integer",
                        "use a `value` term for integer literals; constants name entities",
                    );
                    continue;
                };
                if is_numbered(&scope, node) {
                    continue;
                }
                scope
                    .decls
                    .insert(n.id.clone(), Decl::Const(model.constants.len()));
                model.constants.push(model::Constant {
                    id: n.id.clone(),
                    local: local_name(&n.id).to_owned(),
                    ty: t,
                });
            }
            NodeKind::Rule(r) => {
                for a in &r.anchors {
                    scope.provenance(a, node, diags, Decl::Fragment(FragId(0)));
                }
            }
            NodeKind::Priority { anchors, .. }
            | NodeKind::Derogation(crate::syntax::Derogation { anchors, .. })
            | NodeKind::InputDeprecation(crate::syntax::InputDeprecation { anchors, .. }) => {
                for a in anchors {
                    scope.provenance(a, node, diags, Decl::Fragment(FragId(0)));
                }
            }
            NodeKind::Fragment(f) => {
                if let Some(e) = &f.edition {
                    scope.provenance(e, node, diags, Decl::Edition);
                }
            }
            NodeKind::Publication { edition, .. } => {
                scope.provenance(edition, node, diags, Decl::Edition);
            }
            NodeKind::SourceEdition { work, .. } => {
                scope.provenance(work, node, diags, Decl::Work);
            }
            _ => {}
        }
    }
    // Facts files and conclusions name predicates by local name (docs/reference.md):
    // two predicates of one package with one local name would be silently
    // conflated there. Across the packages of an import closure a shared
    // local name is allowed, and those predicates are named by full id
    // (docs/reference.md#imports).
    let mut locals: HashMap<&str, (&str, u32)> = HashMap::new();
    let mut shared: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (p, &l) in model.preds.iter().zip(&pred_layer) {
        match locals.get(p.local.as_str()) {
            Some(&(first, fl)) if fl == l => diags.error(
                Code::DuplicateId,
                Location::new(Some(&p.id), crate::diagnostics::pointer_push(&p.ptr, "id")),
                format!(
                    "predicates `{first}` and `{}` share the local name `{}`",
                    p.id, p.local
                ),
                "facts files and conclusions name a predicate by its local name (the part after the first `#`): rename one of them",
            ),
            Some(&(first, _)) => {
                let ids = shared.entry(p.local.clone()).or_default();
                if ids.is_empty() {
                    ids.push(first.to_owned());
                }
                ids.push(p.id.clone());
            }
            None => {
                locals.insert(&p.local, (&p.id, l));
            }
        }
    }
    for p in &mut model.preds {
        if shared.contains_key(&p.local) {
            p.local = p.id.clone();
        }
    }
    model.ambiguous_preds = shared;
    // Constants likewise (their local name is the entity they denote), but a
    // shared local name is never an error: the full id then denotes it.
    let mut consts: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for c in &model.constants {
        consts
            .entry(c.local.clone())
            .or_default()
            .push(c.id.clone());
    }
    consts.retain(|_, ids| ids.len() > 1);
    for c in &mut model.constants {
        if consts.contains_key(&c.local) {
            c.local = c.id.clone();
        }
    }
    model.ambiguous_consts = consts;
    // Likewise entity types, by name, in the facts' `entities` and in generated code.
    // This holds across the packages of an import closure too (docs/imports.md).
    let mut names: HashMap<&str, &str> = HashMap::new();
    for n in &pkg.nodes {
        let NodeKind::TypeDecl { name } = &n.kind else {
            continue;
        };
        if let Some(&first) = names.get(name.as_str()) {
            diags.error(
                Code::DuplicateId,
                Location::new(Some(&n.id), crate::diagnostics::pointer_push(&n.ptr, "name")),
                format!("types `{first}` and `{}` share the name `{name}`", n.id),
                if layer_of.is_some() {
                    "facts files (`entities`) and generated code name a type by its name, in every package of an import closure: rename one of them, or use the imported type"
                } else {
                    "facts files (`entities`) and generated code name a type by its name: rename one of them"
                },
            );
        } else {
            names.insert(name, &n.id);
        }
    }
    (scope, model)
}

/// Has this id been given its real declaration already (first of duplicates)?
fn is_numbered(scope: &Scope, id: &str) -> bool {
    scope.decls.get(id) != Some(&Decl::Broken)
}
