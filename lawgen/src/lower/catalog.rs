//! The catalog of a lowered program, from the checked model: what run time
//! needs of the package beside the rules the engines run (names, types,
//! labels, rules as written, anchors with their article texts, derogations,
//! priorities, closures).

use super::*;

/// What run time needs of the package: names, types, labels, rules as
/// written, anchors with their article texts, priorities, closures.
pub fn catalog(m: &Model) -> Catalog {
    let rule_info = |r: &model::Rule| rule_info(m, r);
    let mut c = Catalog::new(
        m.namespace.clone(),
        m.semantic_hash.clone(),
        m.types
            .iter()
            .map(|t| TypeInfo {
                id: t.id.clone(),
                name: t.name.clone(),
                labels: t.labels.clone(),
            })
            .collect(),
        m.preds
            .iter()
            .map(|p| PredInfo {
                id: p.id.clone(),
                local: p.local.clone(),
                kind: p.kind,
                params: p.params.clone(),
                param_names: p.param_names.clone(),
                labels: p.labels.clone(),
                external: p.external.as_ref().map(|e| External {
                    authority: e.authority.clone(),
                    capability: e.capability.clone(),
                }),
            })
            .collect(),
        m.constants
            .iter()
            .map(|c| ConstInfo {
                id: c.id.clone(),
                local: c.local.clone(),
                ty: c.ty,
            })
            .collect(),
        m.rules.iter().map(rule_info).collect(),
        m.priorities
            .iter()
            .map(|p| PriorityInfo {
                id: p.id.clone(),
                local: crate::program::local_name(&p.id).to_owned(),
                higher: p.higher.0,
                lower: p.lower.0,
                reason: p.reason.clone(),
                labels: p.labels.clone(),
                package: m.package_index_of(&p.id) as u32,
            })
            .collect(),
        m.closures
            .iter()
            .map(|c| ClosureInfo {
                id: c.id.clone(),
                local: crate::program::local_name(&c.id).to_owned(),
                pred: c.pred,
                domain: c.domain,
                derive_negative: c.derive_negative,
                snapshot: c.snapshot.clone(),
                complete_as_of: c.complete_as_of.clone(),
                labels: c.labels.clone(),
                package: m.package_index_of(&c.id) as u32,
            })
            .collect(),
    );
    c.derogations = m
        .derogations
        .iter()
        .map(|d| DerogationInfo {
            id: d.id.clone(),
            local: d.local.clone(),
            labels: d.labels.clone(),
            anchors: d.anchors.iter().map(|&f| anchor_info(m, f)).collect(),
            rules: d.rules.iter().map(|&k| k as u32).collect(),
            priorities: d.priorities.clone(),
            package: m.package_index_of(&d.id) as u32,
            gated: d.gated.iter().map(|r| r.0).collect(),
        })
        .collect();
    c.set_aside = m
        .set_aside
        .iter()
        .map(|a| SetAsideInfo {
            rule: rule_info(&a.rule),
            by: a.by.iter().map(|&d| d as u32).collect(),
        })
        .collect();
    c.deprecations = m
        .deprecations
        .iter()
        .map(|d| DeprecationInfo {
            id: d.id.clone(),
            local: d.local.clone(),
            pred: d.pred,
            one_per: d.one_per,
            replaced_by: d.replaced_by.clone(),
            package: m.package_index_of(&d.id) as u32,
        })
        .collect();
    if m.packages.len() > 1 {
        c.semantic_hashes = m.packages.iter().map(|p| p.semantic_hash.clone()).collect();
    }
    c.packages = m
        .packages
        .iter()
        .map(|p| format!("{} {}", p.name, p.version))
        .collect();
    c.ambiguous_preds = m.ambiguous_preds.clone();
    c.ambiguous_consts = m.ambiguous_consts.clone();
    // The dated law without the program's in-force inputs (lowering adds
    // them): enough to date a case and refuse one no law governs.
    c.law = law(m);
    c
}

/// A rule as run time shows it: as written, with its anchors' texts.
fn rule_info(m: &Model, r: &model::Rule) -> RuleInfo {
    let atom = |a: &model::Atom| SourceAtom {
        lit: a.lit(),
        args: terms(&a.args),
    };
    RuleInfo {
        id: r.id.clone(),
        local: r.local.clone(),
        strength: r.strength,
        head: atom(&r.head),
        body: r
            .body
            .iter()
            .map(|i| match i {
                MItem::Status { status, atom: a } => SourceItem::Status {
                    status: *status,
                    atom: atom(a),
                },
                MItem::Compare { left, op, right } => SourceItem::Compare {
                    left: term(left),
                    op: *op,
                    right: term(right),
                },
                MItem::Not { status, atom: a } => SourceItem::Not {
                    status: *status,
                    atom: atom(a),
                },
            })
            .collect(),
        vars: r.vars.iter().map(|(n, _)| n.clone()).collect(),
        labels: r.labels.clone(),
        anchors: r.anchors.iter().map(|&f| anchor_info(m, f)).collect(),
        package: m.package_index_of(&r.id) as u32,
    }
}

fn anchor_info(m: &Model, f: model::FragId) -> AnchorInfo {
    let frag = &m.fragments[f.0 as usize];
    AnchorInfo {
        fragment: frag.id.clone(),
        locator: frag.locator.clone(),
        texts: frag.texts.clone(),
        package: m.package_index_of(&frag.id) as u32,
        edition: frag.edition.map(|e| m.editions[e].local.clone()),
        dated: frag.edition.and_then(|e| dated_index(m)[e]),
    }
}
