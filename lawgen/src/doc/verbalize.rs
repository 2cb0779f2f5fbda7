//! Syntax tree → [`Document`]: one entry per node, chosen by an exhaustive
//! match over [`NodeKind`] (no wildcard arm), so a node kind added to the
//! reader does not compile here until it has its sentence.

use super::tree::*;
use super::{Lang, Scenarios};
use crate::driver::Loaded;
use crate::program::{Status, Strength};
use crate::syntax::{
    self, Item, Literal, Node, NodeKind, Package, Scalar, Term, TermKind, INTEGER_TYPE,
};
use lawgen_runtime::program::{label_in, local_name};
use std::collections::{BTreeMap, HashMap};

/// Builds the document of `loaded`'s whole closure.
pub(crate) fn document(loaded: &Loaded, lang: Lang, scenarios: Option<&Scenarios>) -> Document {
    let closure: Vec<&Package> = if loaded.closure.is_empty() {
        vec![&loaded.package]
    } else {
        loaded.closure.iter().collect()
    };
    let ix = Index::new(&closure);
    let mut v = Verbalizer {
        lang,
        ix: &ix,
        scenarios,
    };
    let root = closure[0];
    let header = vec![
        lang.generated_by(),
        lang.title(&clean(&root.name), &clean(&root.version)),
        lang.disclaimer().to_owned(),
        lang.verbalization_line(root.semantic_hash.as_deref().map(clean).as_deref()),
    ];
    let mut parts: Vec<Part> = closure
        .iter()
        .enumerate()
        .map(|(p, pkg)| v.part(p, pkg))
        .collect();
    parts.extend(super::editions::part(&closure, lang));
    let packages = closure
        .iter()
        .enumerate()
        .map(|(p, pkg)| PackageRow {
            name: clean(&pkg.name),
            version: clean(&pkg.version),
            namespace: clean(&pkg.namespace),
            hash: pkg.semantic_hash.as_deref().map(clean),
            anchor: part_anchor(p),
        })
        .collect();
    let overrides = v.overrides();
    Document {
        lang,
        header,
        parts,
        packages,
        overrides,
        features: root.features.iter().map(|f| clean(f)).collect(),
    }
}

/// Makes a package string visible (`lawgen_runtime::text`, the escaping of
/// every rendering): control characters become escapes (`\n`, `\u{1b}`) and
/// format characters `<U+202E>`, so that a package string can neither break
/// a line of the text form nor hide in it. Markup is the writers' business;
/// this is the one cleaning every format shares.
pub(crate) fn clean(s: &str) -> String {
    lawgen_runtime::text::escape_for_display(s)
}

/// [`clean`], but a line break stays a line break (article texts).
pub(crate) fn clean_text(s: &str) -> String {
    lawgen_runtime::text::escape_text(s)
}

pub(crate) fn part_anchor(p: usize) -> String {
    format!("p{p}")
}

/// The page anchor of node `i` of package `p`: unique by position, readable
/// by the ASCII letters and digits of its local name.
fn node_anchor(p: usize, i: usize, id: &str) -> String {
    let slug: String = local_name(id)
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .take(40)
        .collect();
    if slug.is_empty() {
        format!("n{p}-{i}")
    } else {
        format!("n{p}-{i}-{slug}")
    }
}

/// Every node of the closure by id, with where it is.
pub(crate) struct Index<'a> {
    pub packages: Vec<&'a Package>,
    /// id → (package, node position).
    pub nodes: HashMap<&'a str, (usize, usize)>,
    /// Rule ids by head predicate, for defeaters and their targets.
    rules_by_head: HashMap<&'a str, Vec<&'a str>>,
    /// id → page anchor.
    pub anchors: HashMap<String, String>,
}

impl<'a> Index<'a> {
    fn new(packages: &[&'a Package]) -> Index<'a> {
        let mut nodes = HashMap::new();
        let mut rules_by_head: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut anchors = HashMap::new();
        for (p, pkg) in packages.iter().enumerate() {
            for (i, n) in pkg.nodes.iter().enumerate() {
                // The first declaration wins, as the checker refuses a second.
                nodes.entry(n.id.as_str()).or_insert((p, i));
                anchors
                    .entry(n.id.clone())
                    .or_insert_with(|| node_anchor(p, i, &n.id));
                if let NodeKind::Rule(r) = &n.kind {
                    rules_by_head
                        .entry(r.head.predicate.id.as_str())
                        .or_default()
                        .push(n.id.as_str());
                }
            }
        }
        Index {
            packages: packages.to_vec(),
            nodes,
            rules_by_head,
            anchors,
        }
    }

    pub fn node(&self, id: &str) -> Option<(usize, &'a Node)> {
        let &(p, i) = self.nodes.get(id)?;
        Some((p, &self.packages[p].nodes[i]))
    }

    /// The name a node is called by in sentences: a declaration's `name`,
    /// otherwise the local id.
    fn name(&self, id: &str) -> String {
        let name = match self.node(id).map(|(_, n)| &n.kind) {
            Some(NodeKind::TypeDecl { name }) | Some(NodeKind::Constant { name, .. }) => {
                name.as_str()
            }
            Some(NodeKind::Relation(r)) => r.name.as_str(),
            _ => local_name(id),
        };
        clean(name)
    }

    fn package_of(&self, id: &str) -> Option<usize> {
        self.node(id).map(|(p, _)| p)
    }

    /// The dated editions (local names, sorted) of `anchors`: a derogation
    /// anchored to one is in force only while one of them is
    /// (docs/reference.md#as-of-evaluation).
    fn dated_editions(&self, anchors: &[syntax::Ref]) -> Vec<String> {
        let mut out: Vec<String> = anchors
            .iter()
            .filter_map(|a| match self.node(&a.id).map(|(_, n)| &n.kind) {
                Some(NodeKind::Fragment(f)) => f.edition.as_ref(),
                _ => None,
            })
            .filter(|e| {
                matches!(
                    self.node(&e.id).map(|(_, n)| &n.kind),
                    Some(NodeKind::SourceEdition { edition, .. })
                        if edition.lifecycle.iter().any(|st| st.status == "in_force")
                )
            })
            .map(|e| clean(local_name(&e.id)))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    fn rule(&self, id: &str) -> Option<&'a syntax::Rule> {
        match self.node(id).map(|(_, n)| &n.kind) {
            Some(NodeKind::Rule(r)) => Some(r),
            _ => None,
        }
    }

    /// The rules a defeater with this head attacks: every strict or
    /// defeasible rule for the complement.
    fn attacked_by(&self, head: &Literal) -> Vec<&'a str> {
        let mut out: Vec<&str> = self
            .rules_by_head
            .get(head.predicate.id.as_str())
            .into_iter()
            .flatten()
            .copied()
            .filter(|id| {
                self.rule(id).is_some_and(|r| {
                    r.head.negative != head.negative && r.strength != Strength::Defeater
                })
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Placeholders for links inside a sentence: the templates in `words` take
/// strings, so a name that should become a link goes in as a marker
/// (`\0k\0`, which no cleaned package string contains) and the finished
/// sentence is cut into spans at the markers.
#[derive(Default)]
struct Links {
    links: Vec<(String, Option<String>)>,
}

impl Links {
    fn mark(&mut self, text: String, to: Option<&str>) -> String {
        self.links.push((text, to.map(str::to_owned)));
        format!("\0{}\0", self.links.len() - 1)
    }

    fn spans(&self, s: &str) -> Vec<Span> {
        let mut out = Vec::new();
        for (i, piece) in s.split('\0').enumerate() {
            if i % 2 == 0 {
                if !piece.is_empty() {
                    match out.last_mut() {
                        Some(Span::Text(t)) => t.push_str(piece),
                        _ => out.push(Span::Text(piece.to_owned())),
                    }
                }
                continue;
            }
            let Some((text, to)) = piece.parse::<usize>().ok().and_then(|k| self.links.get(k))
            else {
                continue;
            };
            match to {
                Some(to) => out.push(Span::Link {
                    text: text.clone(),
                    to: to.clone(),
                }),
                None => match out.last_mut() {
                    Some(Span::Text(t)) => t.push_str(text),
                    _ => out.push(Span::Text(text.clone())),
                },
            }
        }
        out
    }
}

struct Verbalizer<'a, 'b> {
    lang: Lang,
    ix: &'b Index<'a>,
    scenarios: Option<&'b Scenarios>,
}

/// Variables of one rule: declared id → short name.
type VarNames = HashMap<String, String>;

impl<'a> Verbalizer<'a, '_> {
    fn part(&mut self, p: usize, pkg: &'a Package) -> Part {
        let l = self.lang;
        let mut by_section: BTreeMap<SectionKind, Vec<(u8, String, Entry)>> = BTreeMap::new();
        for (i, node) in pkg.nodes.iter().enumerate() {
            let (section, order, entry) = self.entry(p, i, node);
            by_section
                .entry(section)
                .or_default()
                .push((order, node.id.clone(), entry));
        }
        let mut sections = Vec::new();
        if p == 0 && !pkg.imports.is_empty() {
            sections.push(self.imports(pkg));
        }
        for kind in SectionKind::ALL {
            let Some(mut entries) = by_section.remove(&kind) else {
                continue;
            };
            entries.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
            sections.push(Section {
                kind,
                title: l.section(kind).to_owned(),
                anchor: format!("{}-{}", part_anchor(p), kind.slug()),
                entries: entries.into_iter().map(|(_, _, e)| e).collect(),
            });
        }
        let heading = if p == 0 {
            Vec::new()
        } else {
            vec![
                l.imported_part(&clean(&pkg.name), &clean(&pkg.version)),
                l.part_identity(
                    &clean(&pkg.namespace),
                    pkg.semantic_hash.as_deref().map(clean).as_deref(),
                ),
            ]
        };
        Part {
            anchor: part_anchor(p),
            heading,
            sections,
        }
    }

    fn imports(&self, pkg: &Package) -> Section {
        let l = self.lang;
        let entries = pkg
            .imports
            .iter()
            .enumerate()
            .map(|(i, imp)| {
                let mut paras = vec![Para::text(l.import(
                    &clean(&imp.name),
                    &clean(&imp.version),
                    &clean(&imp.namespace),
                ))];
                paras.push(Para::text(l.pinned_hash(&clean(&imp.semantic_hash))));
                Entry {
                    node: None,
                    anchor: format!("imp-{i}"),
                    title: clean(&imp.name),
                    paras,
                    anchors: Vec::new(),
                    extra: Extra::default(),
                }
            })
            .collect();
        Section {
            kind: SectionKind::Imports,
            title: l.section(SectionKind::Imports).to_owned(),
            anchor: format!("{}-imports", part_anchor(0)),
            entries,
        }
    }

    /// The entry of one node, with its section and its order key in it.
    fn entry(&mut self, p: usize, i: usize, node: &'a Node) -> (SectionKind, u8, Entry) {
        let l = self.lang;
        let id = node.id.as_str();
        let mut paras: Vec<Para> = Vec::new();
        let mut anchors = Vec::new();
        let mut extra = Extra {
            label: label_in(&node.labels, l.tag()).map(clean),
            ..Extra::default()
        };
        let (section, order) = match &node.kind {
            NodeKind::SourceWork(w) => {
                paras.push(Para::text(l.source_work(&clean(local_name(id)))));
                let mut about = Vec::new();
                for s in [&w.number, &w.authority, &w.jurisdiction, &w.source_kind]
                    .into_iter()
                    .flatten()
                {
                    about.push(clean(local_name(s)));
                }
                if !about.is_empty() {
                    extra.facts.push((
                        l.ui(super::words::Ui::Work).to_owned(),
                        vec![Span::Text(about.join(" · "))],
                    ));
                }
                (SectionKind::Sources, 0)
            }
            NodeKind::SourceEdition { work, edition } => {
                let mut k = Links::default();
                let w = k.mark(self.ix.name(&work.id), self.target(&work.id));
                let s = l.edition(
                    &clean(local_name(id)),
                    &w,
                    edition.language.as_deref().map(clean).as_deref(),
                );
                paras.push(Para::Prose(k.spans(&s)));
                for st in &edition.lifecycle {
                    paras.push(Para::text(
                        l.lifecycle(&clean(&st.status), &clean(&st.extent)),
                    ));
                }
                (SectionKind::Sources, 1)
            }
            NodeKind::Publication {
                edition,
                publication,
            } => {
                let mut k = Links::default();
                let e = k.mark(self.ix.name(&edition.id), self.target(&edition.id));
                let s = l.publication(&e, publication.uri.as_deref().map(clean).as_deref());
                paras.push(Para::Prose(k.spans(&s)));
                if let Some(d) = l.publication_details(
                    publication.document_hash.as_deref().map(clean).as_deref(),
                    publication.media_type.as_deref().map(clean).as_deref(),
                    publication.retrieved_at.as_deref().map(clean).as_deref(),
                ) {
                    paras.push(Para::text(d));
                }
                (SectionKind::Publications, 0)
            }
            NodeKind::Fragment(f) => {
                let mut k = Links::default();
                let e = f
                    .edition
                    .as_ref()
                    .map(|e| k.mark(self.ix.name(&e.id), self.target(&e.id)));
                let s = l.fragment(&clean(&f.locator), e.as_deref());
                paras.push(Para::Prose(k.spans(&s)));
                let several = f.texts.len() > 1;
                for (t, text) in f.texts.iter().enumerate() {
                    let meta = f.text_meta.get(t).cloned().unwrap_or_default();
                    if several {
                        paras.push(Para::text(l.fragment_text(
                            &clean(&text.language),
                            meta.status.as_deref().map(clean).as_deref(),
                        )));
                    }
                    for piece in text.text.split("\n\n") {
                        let piece = piece.trim_matches('\n');
                        if !piece.trim().is_empty() {
                            paras.push(Para::Article(clean_text(piece)));
                        }
                    }
                    if let Some(h) = &meta.content_hash {
                        paras.push(Para::text(l.text_hash(
                            &clean(h),
                            meta.status.as_deref().map(clean).as_deref(),
                        )));
                    }
                }
                if f.texts.is_empty() {
                    paras.push(Para::text(l.no_text()));
                }
                extra.anchored = Some(self.anchored_to(id));
                (SectionKind::Fragments, 0)
            }
            NodeKind::TypeDecl { name } => {
                paras.push(Para::text(l.concept(&clean(name))));
                (SectionKind::Concepts, 0)
            }
            NodeKind::Relation(r) => {
                paras.push(Para::text(l.relation(&clean(&r.name))));
                if !r.params.is_empty() {
                    let mut k = Links::default();
                    let list: Vec<String> = r
                        .params
                        .iter()
                        .enumerate()
                        .map(|(j, prm)| {
                            let n = match &prm.name {
                                Some(n) => l.argument_name(&clean(n)),
                                None => l.unnamed_argument(j + 1),
                            };
                            format!("{n}: {}", self.type_name(&prm.ty.id, &mut k))
                        })
                        .collect();
                    paras.push(Para::Prose(k.spans(&l.arguments(&list.join(", ")))));
                }
                extra.kind = Some(
                    l.ui(match r.relation_kind {
                        crate::program::RelationKind::Empirical => super::words::Ui::Empirical,
                        crate::program::RelationKind::Institutional => {
                            super::words::Ui::Institutional
                        }
                        crate::program::RelationKind::Judgment => super::words::Ui::Judgment,
                    })
                    .to_owned(),
                );
                (SectionKind::Relations, 0)
            }
            NodeKind::Constant { name, ty } => {
                let mut k = Links::default();
                let ty = self.type_name(&ty.id, &mut k);
                paras.push(Para::Prose(k.spans(&l.constant(&clean(name), &ty))));
                (SectionKind::Relations, 0)
            }
            NodeKind::External {
                symbol,
                authority,
                capability,
            } => {
                let mut k = Links::default();
                let s = k.mark(self.ix.name(&symbol.id), self.target(&symbol.id));
                let s = l.external(&s, &clean(local_name(authority)));
                paras.push(Para::Prose(k.spans(&s)));
                paras.push(Para::text(l.capability(&clean(capability))));
                (SectionKind::Externals, 0)
            }
            NodeKind::Closure(c) => {
                let mut k = Links::default();
                let s = k.mark(self.ix.name(&c.predicate.id), self.target(&c.predicate.id));
                let s = l.closure(
                    &s,
                    c.complete_as_of.as_deref().map(clean).as_deref(),
                    c.derive_negative,
                );
                paras.push(Para::Prose(k.spans(&s)));
                let mut k = Links::default();
                let d = k.mark(self.ix.name(&c.domain.id), self.target(&c.domain.id));
                extra
                    .facts
                    .push((l.ui(super::words::Ui::Domain).to_owned(), k.spans(&d)));
                if let Some(s) = &c.snapshot {
                    extra.facts.push((
                        l.ui(super::words::Ui::Snapshot).to_owned(),
                        vec![Span::Text(clean(s))],
                    ));
                }
                (SectionKind::Closures, 0)
            }
            NodeKind::Rule(r) => {
                let (vars, names) = self.variables(&r.variables);
                if !vars.is_empty() {
                    paras.push(Para::text(l.for_variables(&vars)));
                }
                paras.push(Para::Prose(self.rule_sentence(r, &names)));
                anchors = r.anchors.iter().map(|a| a.id.clone()).collect();
                extra.kind = Some(
                    l.ui(match r.strength {
                        Strength::Strict => super::words::Ui::Strict,
                        Strength::Defeasible => super::words::Ui::Defeasible,
                        Strength::Defeater => super::words::Ui::Defeater,
                    })
                    .to_owned(),
                );
                self.rule_relations(id, p, r, &mut extra);
                if let Some(s) = self.scenarios {
                    extra.scenarios = Some(s.outcomes(id, l));
                }
                (SectionKind::Rules, 0)
            }
            NodeKind::Priority {
                higher,
                lower,
                reason,
                anchors: a,
            } => {
                let mut k = Links::default();
                let h = self.rule_ref(&higher.id, p, &mut k);
                let lo = self.rule_ref(&lower.id, p, &mut k);
                paras.push(Para::Prose(k.spans(&l.priority(&h, &lo))));
                anchors = a.iter().map(|a| a.id.clone()).collect();
                if let Some(r) = reason {
                    extra.facts.push((
                        l.ui(super::words::Ui::Reason).to_owned(),
                        vec![Span::Text(clean(local_name(r)))],
                    ));
                }
                (SectionKind::Priorities, 0)
            }
            NodeKind::Derogation(d) => {
                let mut k = Links::default();
                let rules: Vec<String> = d
                    .rules
                    .iter()
                    .map(|r| self.rule_ref(&r.id, p, &mut k))
                    .collect();
                let eds = self.ix.dated_editions(&d.anchors);
                paras.push(Para::Prose(k.spans(&l.derogation(&rules, &eds))));
                anchors = d.anchors.iter().map(|a| a.id.clone()).collect();
                (SectionKind::Derogations, 0)
            }
            NodeKind::InputDeprecation(d) => {
                let mut k = Links::default();
                let pred = k.mark(self.ix.name(&d.predicate.id), self.target(&d.predicate.id));
                let per_type = d
                    .per_type
                    .as_ref()
                    .map(|t| k.mark(self.ix.name(&t.id), self.target(&t.id)));
                let instead: Vec<String> = d
                    .replaced_by
                    .iter()
                    .map(|r| k.mark(self.ix.name(&r.id), self.target(&r.id)))
                    .collect();
                let s = l.input_deprecation(&pred, per_type.as_deref(), &instead);
                paras.push(Para::Prose(k.spans(&s)));
                anchors = d.anchors.iter().map(|a| a.id.clone()).collect();
                (SectionKind::Deprecations, 0)
            }
        };
        let entry = Entry {
            node: Some(node.id.clone()),
            anchor: self
                .ix
                .anchors
                .get(id)
                .cloned()
                .unwrap_or_else(|| node_anchor(p, i, id)),
            title: clean(local_name(id)),
            paras,
            anchors,
            extra,
        };
        (section, order, entry)
    }

    /// The page anchor of a node, when the closure has it.
    fn target<'i>(&self, id: &'i str) -> Option<&'i str> {
        self.ix.nodes.contains_key(id).then_some(id)
    }

    fn type_name(&self, ty: &str, k: &mut Links) -> String {
        if ty == INTEGER_TYPE {
            self.lang.integer().to_owned()
        } else {
            k.mark(self.ix.name(ty), self.target(ty))
        }
    }

    /// A rule named by a priority or derogation of package `from`.
    fn rule_ref(&self, id: &str, from: usize, k: &mut Links) -> String {
        let name = k.mark(clean(local_name(id)), self.target(id));
        let package = self
            .ix
            .package_of(id)
            .filter(|&p| p != from)
            .map(|p| clean(&self.ix.packages[p].name));
        self.lang.rule_name(&name, package.as_deref())
    }

    /// `Game G (v0)`, … and the names given, in declaration order: the first
    /// letter of the type's name (`Ц`/`N` for integers), numbered from the
    /// second variable with the same letter on (`P`, `P2`, `P3`).
    fn variables(&self, decls: &[syntax::VarDecl]) -> (Vec<String>, VarNames) {
        let l = self.lang;
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut out = Vec::new();
        let mut names = VarNames::new();
        for d in decls {
            let integer = d.ty.id == INTEGER_TYPE;
            let ty = if integer {
                String::new()
            } else {
                self.ix.name(&d.ty.id)
            };
            let base = if integer {
                l.integer_letter().to_owned()
            } else {
                letter(&ty)
            };
            let n = seen.entry(base.clone()).or_insert(0);
            *n += 1;
            let name = if *n == 1 { base } else { format!("{base}{n}") };
            let var = clean(&d.name);
            out.push(if integer {
                l.integer_variable(&name, &var)
            } else {
                l.entity_variable(&ty, &name, &var)
            });
            names.entry(d.name.clone()).or_insert(name);
        }
        (out, names)
    }

    /// The rule's main sentence.
    fn rule_sentence(&self, r: &syntax::Rule, names: &VarNames) -> Vec<Span> {
        let l = self.lang;
        let mut k = Links::default();
        let items: Vec<String> = r
            .body
            .iter()
            .map(|it| self.item(it, names, &mut k))
            .collect();
        let body = (!items.is_empty()).then(|| items.join(l.and()));
        let head = self.literal(&r.head, names, &mut k);
        let s = match r.strength {
            Strength::Strict => l.strict(body.as_deref(), &l.head(&head, r.head.negative)),
            Strength::Defeasible => l.defeasible(body.as_deref(), &l.head(&head, r.head.negative)),
            Strength::Defeater => l.defeater(body.as_deref(), &l.head(&head, !r.head.negative)),
        };
        k.spans(&s)
    }

    fn item(&self, it: &Item, names: &VarNames, k: &mut Links) -> String {
        let l = self.lang;
        match it {
            Item::Status {
                status, literal, ..
            } => {
                let lit = self.literal(literal, names, k);
                match status {
                    Status::Established => l.established(&lit, literal.negative),
                    Status::Supported => l.supported(&lit, literal.negative),
                }
            }
            Item::Not {
                status, literal, ..
            } => {
                let lit = self.literal(literal, names, k);
                match status {
                    Status::Established => l.not_established(&lit, literal.negative),
                    Status::Supported => l.not_supported(&lit, literal.negative),
                }
            }
            Item::Comparison {
                left, op, right, ..
            } => l.comparison(&self.term(left, names, k), *op, &self.term(right, names, k)),
        }
    }

    /// `«p» (game: G, кто: P)`, without polarity (the templates add it).
    fn literal(&self, lit: &Literal, names: &VarNames, k: &mut Links) -> String {
        let l = self.lang;
        let id = lit.predicate.id.as_str();
        let params: &[syntax::Param] = match self.ix.node(id).map(|(_, n)| &n.kind) {
            Some(NodeKind::Relation(r)) => &r.params,
            _ => &[],
        };
        let args: Vec<String> = lit
            .args
            .iter()
            .enumerate()
            .map(|(j, t)| {
                let n = match params.get(j).and_then(|p| p.name.as_deref()) {
                    Some(n) => l.argument_name(&clean(n)),
                    None => l.unnamed_argument(j + 1),
                };
                format!("{n}: {}", self.term(t, names, k))
            })
            .collect();
        let pred = k.mark(self.ix.name(id), self.target(id));
        l.literal(&pred, &args)
    }

    fn term(&self, t: &Term, names: &VarNames, k: &mut Links) -> String {
        let l = self.lang;
        match &t.kind {
            TermKind::Var(v) => names.get(v).cloned().unwrap_or_else(|| clean(v)),
            TermKind::Const(c) => l.quote(&k.mark(self.ix.name(&c.id), self.target(&c.id))),
            TermKind::Value { value, .. } => l.quote(&match value {
                Scalar::Int(i) => i.to_string(),
                Scalar::Str(s) => clean(s),
                Scalar::Other(s) => clean(s),
            }),
        }
    }

    /// For a fragment: the rules and priorities anchored to it, each with
    /// its main sentence.
    fn anchored_to(&self, fragment: &str) -> Vec<(String, Vec<Span>)> {
        let mut out = Vec::new();
        for pkg in &self.ix.packages {
            for n in &pkg.nodes {
                let sentence = match &n.kind {
                    NodeKind::Rule(r) if r.anchors.iter().any(|a| a.id == fragment) => {
                        let (_, names) = self.variables(&r.variables);
                        self.rule_sentence(r, &names)
                    }
                    NodeKind::Priority {
                        higher,
                        lower,
                        anchors,
                        ..
                    } if anchors.iter().any(|a| a.id == fragment) => {
                        let from = self.ix.package_of(&n.id).unwrap_or(0);
                        let mut k = Links::default();
                        let h = self.rule_ref(&higher.id, from, &mut k);
                        let lo = self.rule_ref(&lower.id, from, &mut k);
                        k.spans(&self.lang.priority(&h, &lo))
                    }
                    NodeKind::Derogation(d) if d.anchors.iter().any(|a| a.id == fragment) => {
                        let from = self.ix.package_of(&n.id).unwrap_or(0);
                        let mut k = Links::default();
                        let rules: Vec<String> = d
                            .rules
                            .iter()
                            .map(|r| self.rule_ref(&r.id, from, &mut k))
                            .collect();
                        let eds = self.ix.dated_editions(&d.anchors);
                        k.spans(&self.lang.derogation(&rules, &eds))
                    }
                    _ => continue,
                };
                out.push((n.id.clone(), sentence));
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Priorities, defeaters and derogations that touch rule `id`.
    fn rule_relations(&self, id: &str, p: usize, r: &syntax::Rule, extra: &mut Extra) {
        use super::words::Ui;
        let l = self.lang;
        let mut over = Vec::new();
        let mut under = Vec::new();
        let mut set_aside = Vec::new();
        for pkg in &self.ix.packages {
            for n in &pkg.nodes {
                match &n.kind {
                    NodeKind::Priority { higher, lower, .. } => {
                        if higher.id == id {
                            over.push((lower.id.clone(), n.id.clone()));
                        }
                        if lower.id == id {
                            under.push((higher.id.clone(), n.id.clone()));
                        }
                    }
                    NodeKind::Derogation(d) if d.rules.iter().any(|r| r.id == id) => {
                        set_aside.push(n.id.as_str());
                    }
                    _ => {}
                }
            }
        }
        if !set_aside.is_empty() {
            set_aside.sort_unstable();
            let mut k = Links::default();
            let names: Vec<String> = set_aside
                .iter()
                .map(|d| {
                    let name = k.mark(clean(local_name(d)), self.target(d));
                    match self.ix.package_of(d).filter(|&q| q != p) {
                        Some(q) => l.rule_name(&name, Some(&clean(&self.ix.packages[q].name))),
                        None => l.quote(&name),
                    }
                })
                .collect();
            extra
                .facts
                .push((l.ui(Ui::SetAsideBy).to_owned(), k.spans(&names.join(", "))));
        }
        let mut line = |what: Ui, pairs: &mut Vec<(String, String)>| {
            if pairs.is_empty() {
                return;
            }
            pairs.sort();
            let mut k = Links::default();
            let parts: Vec<String> = pairs
                .iter()
                .map(|(rule, via)| {
                    let r = self.rule_ref(rule, p, &mut k);
                    let v = k.mark(clean(local_name(via)), self.target(via));
                    format!("{r} ({} {v})", l.ui(Ui::ByPriority))
                })
                .collect();
            extra
                .facts
                .push((l.ui(what).to_owned(), k.spans(&parts.join("; "))));
        };
        line(Ui::PrevailsOver, &mut over);
        line(Ui::YieldsTo, &mut under);
        let mut k = Links::default();
        if r.strength == Strength::Defeater {
            let attacked = self.ix.attacked_by(&r.head);
            if !attacked.is_empty() {
                let names: Vec<String> = attacked
                    .iter()
                    .map(|a| self.rule_ref(a, p, &mut k))
                    .collect();
                extra
                    .facts
                    .push((l.ui(Ui::Blocks).to_owned(), k.spans(&names.join(", "))));
            }
        } else {
            let mut blockers: Vec<&str> = self
                .ix
                .rules_by_head
                .get(r.head.predicate.id.as_str())
                .into_iter()
                .flatten()
                .copied()
                .filter(|d| {
                    self.ix.rule(d).is_some_and(|x| {
                        x.strength == Strength::Defeater && x.head.negative != r.head.negative
                    })
                })
                .collect();
            blockers.sort_unstable();
            blockers.dedup();
            if !blockers.is_empty() {
                let names: Vec<String> = blockers
                    .iter()
                    .map(|a| self.rule_ref(a, p, &mut k))
                    .collect();
                extra
                    .facts
                    .push((l.ui(Ui::BlockedBy).to_owned(), k.spans(&names.join(", "))));
            }
        }
    }

    /// Every priority, defeater and derogation of the closure, as "who
    /// overrides whom" rows, in document order.
    fn overrides(&self) -> Vec<Override> {
        use super::words::Ui;
        let l = self.lang;
        let layer = |id: &str| {
            self.ix
                .package_of(id)
                .map_or_else(String::new, |p| clean(&self.ix.packages[p].name))
        };
        let named = |id: &str| (clean(local_name(id)), id.to_owned(), layer(id));
        let mut out = Vec::new();
        for pkg in &self.ix.packages {
            let mut nodes: Vec<&Node> = pkg.nodes.iter().collect();
            nodes.sort_by(|a, b| a.id.cmp(&b.id));
            for n in nodes {
                match &n.kind {
                    NodeKind::Priority { higher, lower, .. } => out.push(Override {
                        winner: named(&higher.id),
                        how: (
                            l.ui(Ui::ByPriority).to_owned(),
                            clean(local_name(&n.id)),
                            n.id.clone(),
                        ),
                        over: vec![named(&lower.id)],
                    }),
                    NodeKind::Derogation(d) => out.push(Override {
                        winner: named(&n.id),
                        how: (
                            l.ui(Ui::ByDerogation).to_owned(),
                            clean(local_name(&n.id)),
                            n.id.clone(),
                        ),
                        over: d.rules.iter().map(|r| named(&r.id)).collect(),
                    }),
                    NodeKind::Rule(r) if r.strength == Strength::Defeater => out.push(Override {
                        winner: named(&n.id),
                        how: (
                            l.ui(Ui::ByDefeater).to_owned(),
                            clean(local_name(&n.id)),
                            n.id.clone(),
                        ),
                        over: self
                            .ix
                            .attacked_by(&r.head)
                            .into_iter()
                            .map(named)
                            .collect(),
                    }),
                    _ => {}
                }
            }
        }
        out
    }
}

/// The short name's letter: the first letter of the type's name,
/// upper-cased; `X` when there is none, or when upper-casing gives a digit
/// (a trailing number would collide with the numbering).
fn letter(ty: &str) -> String {
    let Some(c) = ty.chars().find(|c| c.is_alphabetic()) else {
        return "X".to_owned();
    };
    let up: String = c.to_uppercase().collect();
    if up.chars().any(|c| c.is_numeric()) {
        "X".to_owned()
    } else {
        up
    }
}
