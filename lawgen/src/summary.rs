//! The one-screen summary of a checked package that `lawgen check` prints
//! ([`render`]): its name, version and namespace, semantic hash, import
//! closure, entity types, predicates by kind, rules by strength,
//! priorities, derogations, editions, closures, judgments and who decides
//! them, and its strata, each stratum with why its predicates sit there.
//!
//! Deterministic (names sorted, rules counted, no timing; paths only of the
//! files of an import closure, as given), so it can be snapshot-tested, and
//! safe for hostile packages: every string taken from the package goes
//! through [`escape_for_display`], so an id with a newline or a terminal
//! escape cannot forge extra lines.

use crate::check::strata::{dependency_edges, Edge, EdgeKind};
use crate::diagnostics::escape_for_display;
use crate::driver::Loaded;
use crate::model::{Model, Pred};
use crate::program::{local_name, PredId};
use crate::program::{RelationKind, Strength};
use std::collections::VecDeque;
use std::fmt::Write as _;

/// The words of the summary: English, or Russian for `ru` (`lawgen check
/// --lang ru`); names from the package are never translated.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lang {
    En,
    Ru,
}

impl Lang {
    fn of(tag: &str) -> Lang {
        if tag.split(['-', '_']).next() == Some("ru") {
            Lang::Ru
        } else {
            Lang::En
        }
    }

    /// The Russian for one of the summary's fixed words.
    fn w(self, en: &'static str) -> &'static str {
        if self == Lang::En {
            return en;
        }
        match en {
            "package" => "пакет",
            "namespace" => "пространство имён",
            "none" => "нет",
            "semantic hash" => "семантический хеш",
            "entity types" => "типы сущностей",
            "predicates" => "предикаты",
            "empirical" => "эмпирические",
            "institutional" => "институциональные",
            "judgment" => "решения",
            "rules" => "правила",
            "strict" => "строгих",
            "defeasible" => "оспоримых",
            "defeaters" => "опровергающих",
            "priorities" => "приоритеты",
            "closures" => "правила полноты",
            "over" => "над",
            "snapshot" => "срез",
            "complete as of" => "полно на",
            "judgments" => "решения",
            "decided by" => "решает",
            "capability" => "полномочие",
            "strata" => "страты",
            "stratum" => "страта",
            "imports" => "импортирует",
            "reads" => "читает",
            "lifted" => "поднят",
            _ => en,
        }
    }
}

/// The packages of an import closure, each with its file and what it declares.
fn closure(out: &mut String, m: &Model, lang: Lang) {
    let e = escape_for_display;
    let n = m.packages.len();
    let mut counts = vec![[0usize; 7]; n];
    let mut add = |id: &str, what: usize| counts[m.package_index_of(id).min(n - 1)][what] += 1;
    m.types.iter().for_each(|x| add(&x.id, 0));
    m.preds.iter().for_each(|x| add(&x.id, 1));
    m.constants.iter().for_each(|x| add(&x.id, 2));
    m.rules.iter().for_each(|x| add(&x.id, 3));
    m.priorities.iter().for_each(|x| add(&x.id, 4));
    m.closures.iter().for_each(|x| add(&x.id, 5));
    m.fragments.iter().for_each(|x| add(&x.id, 6));
    let _ = match lang {
        Lang::En => writeln!(out, "closure ({n} packages, the root first):"),
        Lang::Ru => writeln!(out, "замыкание импортов (пакетов: {n}, корневой первым):"),
    };
    for (i, p) in m.packages.iter().enumerate() {
        let words = [
            ("type", "types"),
            ("predicate", "predicates"),
            ("constant", "constants"),
            ("rule", "rules"),
            ("priority", "priorities"),
            ("closure", "closures"),
            ("fragment", "fragments"),
        ];
        let mut parts: Vec<String> = counts[i]
            .iter()
            .zip(words)
            .map(|(&c, (one, many))| match lang {
                Lang::En => format!("{c} {}", if c == 1 { one } else { many }),
                Lang::Ru => format!("{}: {c}", ru_count(many)),
            })
            .collect();
        // Rules a derogation set aside are not among its rules any more.
        let aside = m
            .set_aside
            .iter()
            .filter(|a| m.package_index_of(&a.rule.id) == i)
            .count();
        if aside > 0 {
            parts[3].push_str(&match lang {
                Lang::En => format!(" (and {aside} set aside)"),
                Lang::Ru => format!(" (и исключено: {aside})"),
            });
        }
        let _ = write!(
            out,
            "  {} {} ({}): {}",
            e(&p.name),
            e(&p.version),
            e(&p.file),
            parts.join(", ")
        );
        if !p.imports.is_empty() {
            let imports: Vec<String> = p
                .imports
                .iter()
                .map(|&j| format!("{} {}", e(&m.packages[j].name), e(&m.packages[j].version)))
                .collect();
            let _ = write!(out, "; {} {}", lang.w("imports"), imports.join(", "));
        }
        out.push('\n');
    }
}

/// The derogations of the closure: what each sets aside, on which article.
fn derogations(out: &mut String, m: &Model, lang: Lang) {
    let e = escape_for_display;
    let _ = match lang {
        Lang::En => writeln!(
            out,
            "derogations ({}), {} rule{} set aside:",
            m.derogations.len(),
            m.set_aside.len(),
            if m.set_aside.len() == 1 { "" } else { "s" }
        ),
        Lang::Ru => writeln!(
            out,
            "изъятия ({}), исключено правил: {}:",
            m.derogations.len(),
            m.set_aside.len()
        ),
    };
    let layered = |id: &str| {
        let p = m.package_of(id);
        format!("{} [{} {}]", e(local_name(id)), e(&p.name), e(&p.version))
    };
    for d in &m.derogations {
        let anchors: Vec<String> = d
            .anchors
            .iter()
            .map(|f| e(&m.fragments[f.0 as usize].locator))
            .collect();
        let rules: Vec<String> = if d.dated {
            d.gated.iter().map(|&r| layered(&m.rule(r).id)).collect()
        } else {
            d.rules
                .iter()
                .map(|&k| layered(&m.set_aside[k].rule.id))
                .collect()
        };
        // A dated derogation sets its rules aside while one of its
        // editions is in force.
        let mut eds: Vec<String> = d
            .anchors
            .iter()
            .filter_map(|f| m.fragments[f.0 as usize].edition)
            .filter(|&x| m.editions[x].is_dated())
            .map(|x| e(&m.editions[x].local))
            .collect();
        eds.sort();
        eds.dedup();
        let verb = match (lang, d.dated) {
            (Lang::En, false) => "sets aside".to_owned(),
            (Lang::Ru, false) => "исключает".to_owned(),
            (Lang::En, true) => format!(
                "sets aside, while edition {} is in force,",
                eds.join(" or ")
            ),
            (Lang::Ru, true) => {
                format!("исключает, пока действует редакция {},", eds.join(" или "))
            }
        };
        let _ = write!(
            out,
            "  {} ({}) {} {}",
            layered(&d.id),
            anchors.join(", "),
            verb,
            if rules.is_empty() {
                lang.w("none").to_owned()
            } else {
                rules.join(", ")
            }
        );
        if !d.priorities.is_empty() {
            let ps: Vec<String> = d.priorities.iter().map(|p| e(local_name(p))).collect();
            let _ = write!(
                out,
                "; {} {}",
                match lang {
                    Lang::En => "and the priorities",
                    Lang::Ru => "и приоритеты",
                },
                ps.join(", ")
            );
        }
        out.push('\n');
    }
}

/// The editions of the closure, one a line by work, then by the day each
/// enters into force (docs/reference.md#as-of-evaluation): when each is in
/// force, or that it is undated (what is anchored to it is timeless). A
/// single edition goes on the heading's line.
fn editions(out: &mut String, loaded: &Loaded, lang: Lang) {
    let e = escape_for_display;
    let m = &loaded.model;
    let law = crate::driver::law(loaded);
    let mut rows: Vec<(String, Option<lawgen_runtime::law::Date>, String)> = Vec::new();
    for ed in &m.editions {
        let work = ed
            .work
            .map_or_else(|| "?".to_owned(), |w| e(&m.works[w].local));
        let periods: Vec<String> = law
            .editions
            .iter()
            .position(|x| x.id == ed.id)
            .map(|k| {
                law.periods(law.editions[k].work)
                    .into_iter()
                    .filter(|p| p.edition == k as u32)
                    .map(|p| match (lang, p.until.and_then(|u| u.pred())) {
                        (Lang::En, Some(last)) => format!("from {} to {last}", p.from),
                        (Lang::En, None) => format!("from {}", p.from),
                        (Lang::Ru, Some(last)) => format!("с {} по {last}", p.from),
                        (Lang::Ru, None) => format!("с {}", p.from),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let when = match (lang, ed.is_dated(), periods.is_empty()) {
            (Lang::En, false, _) => "undated (what is anchored to it is timeless)".to_owned(),
            (Lang::Ru, false, _) => "без даты (привязанное к ней действует всегда)".to_owned(),
            (Lang::En, true, true) => "in force on no day".to_owned(),
            (Lang::Ru, true, true) => "не действует ни в какой день".to_owned(),
            (Lang::En, true, false) => format!("in force {}", periods.join(" and ")),
            (Lang::Ru, true, false) => format!("действует {}", periods.join(" и ")),
        };
        rows.push((
            work.clone(),
            ed.in_force.first().copied(),
            format!("{work}: {} {when}", e(&ed.local)),
        ));
    }
    rows.sort();
    let heading = match lang {
        Lang::En => format!("editions ({})", rows.len()),
        Lang::Ru => format!("редакции ({})", rows.len()),
    };
    if let [(_, _, only)] = &rows[..] {
        let _ = writeln!(out, "{heading}: {only}");
        return;
    }
    let _ = writeln!(out, "{heading}:");
    for (_, _, row) in rows {
        let _ = writeln!(out, "  {row}");
    }
}

/// Lines are wrapped at this width where a list can be wrapped.
const WIDTH: usize = 100;

/// The Russian heading of a per-package count.
fn ru_count(many: &str) -> &'static str {
    match many {
        "types" => "типов",
        "predicates" => "предикатов",
        "constants" => "констант",
        "rules" => "правил",
        "priorities" => "приоритетов",
        "closures" => "правил полноты",
        _ => "фрагментов",
    }
}

/// The summary of a checked package, one line per item of the module
/// documentation, in language `lang`: Russian for `ru` (or `ru-RU`,
/// `ru_RU`), English for anything else (`lawgen check --lang`). Names from
/// the package are never translated.
pub fn render(loaded: &Loaded, lang: &str) -> String {
    let lang = Lang::of(lang);
    let m = &loaded.model;
    let e = escape_for_display;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} {} {} ({} {})",
        lang.w("package"),
        e(&m.name),
        e(&m.version),
        lang.w("namespace"),
        if m.namespace.is_empty() {
            lang.w("none").to_owned()
        } else {
            e(&m.namespace)
        }
    );
    let _ = writeln!(
        out,
        "{} {}",
        lang.w("semantic hash"),
        m.semantic_hash
            .as_deref()
            .map_or(lang.w("none").to_owned(), e)
    );

    if m.is_layered() {
        closure(&mut out, m, lang);
    }

    let mut types: Vec<String> = m.types.iter().map(|t| e(&t.name)).collect();
    types.sort();
    list(
        &mut out,
        "",
        &format!("{} ({})", lang.w("entity types"), types.len()),
        &types,
        lang,
    );

    let _ = writeln!(out, "{} ({}):", lang.w("predicates"), m.preds.len());
    for (kind, word) in [
        (RelationKind::Empirical, "empirical"),
        (RelationKind::Institutional, "institutional"),
        (RelationKind::Judgment, "judgment"),
    ] {
        let names = sorted_names(m.preds.iter().filter(|p| p.kind == kind));
        list(
            &mut out,
            "  ",
            &format!("{} ({})", lang.w(word), names.len()),
            &names,
            lang,
        );
    }

    let count = |s: Strength| m.rules.iter().filter(|r| r.strength == s).count();
    let defeaters = count(Strength::Defeater);
    let _ = match lang {
        Lang::En => writeln!(
            out,
            "rules ({}): {} strict, {} defeasible, {} defeater{}",
            m.rules.len(),
            count(Strength::Strict),
            count(Strength::Defeasible),
            defeaters,
            if defeaters == 1 { "" } else { "s" }
        ),
        Lang::Ru => writeln!(
            out,
            "правила ({}): строгих {}, оспоримых {}, опровергающих {}",
            m.rules.len(),
            count(Strength::Strict),
            count(Strength::Defeasible),
            defeaters,
        ),
    };

    let _ = writeln!(out, "{} ({}):", lang.w("priorities"), m.priorities.len());
    for p in &m.priorities {
        let _ = write!(
            out,
            "  {} > {}",
            e(&m.rule(p.higher).local),
            e(&m.rule(p.lower).local)
        );
        if let Some(r) = &p.reason {
            let _ = write!(out, " ({})", e(local_name(r)));
        }
        out.push('\n');
    }

    if !m.derogations.is_empty() {
        derogations(&mut out, m, lang);
    }

    if m.editions.iter().any(|x| x.is_dated()) {
        editions(&mut out, loaded, lang);
    }

    // The completeness date is usually one for the whole package: say it once.
    let dates: Vec<Option<&str>> = m
        .closures
        .iter()
        .map(|c| c.complete_as_of.as_deref())
        .collect();
    let shared = match dates.first() {
        Some(Some(d)) if dates.iter().all(|x| *x == Some(*d)) => Some(*d),
        _ => None,
    };
    match shared {
        Some(d) => {
            let _ = match lang {
                Lang::En => writeln!(
                    out,
                    "closures ({}), all complete as of {}:",
                    m.closures.len(),
                    e(d)
                ),
                Lang::Ru => writeln!(
                    out,
                    "правила полноты ({}), все полны на {}:",
                    m.closures.len(),
                    e(d)
                ),
            };
        }
        None => {
            let _ = writeln!(out, "{} ({}):", lang.w("closures"), m.closures.len());
        }
    }
    for c in &m.closures {
        let _ = write!(
            out,
            "  {} {} {}",
            e(&m.pred(c.pred).local),
            lang.w("over"),
            e(&m.pred(c.domain).local)
        );
        let mut notes = Vec::new();
        if let Some(s) = &c.snapshot {
            notes.push(format!("{} {}", lang.w("snapshot"), e(s)));
        }
        if shared.is_none() {
            match &c.complete_as_of {
                Some(d) => notes.push(format!("{} {}", lang.w("complete as of"), e(d))),
                None => notes.push(match lang {
                    Lang::En => "no completeAsOf".to_owned(),
                    Lang::Ru => "completeAsOf не указано".to_owned(),
                }),
            }
        }
        if !c.derive_negative {
            notes.push(match lang {
                Lang::En => "derives nothing: deriveExplicitNegative is false".to_owned(),
                Lang::Ru => "ничего не выводит: deriveExplicitNegative ложно".to_owned(),
            });
        }
        if !notes.is_empty() {
            let _ = write!(out, " ({})", notes.join(", "));
        }
        out.push('\n');
    }

    let mut judgments: Vec<_> = m
        .preds
        .iter()
        .filter(|p| p.kind == RelationKind::Judgment)
        .collect();
    judgments.sort_by(|a, b| a.local.cmp(&b.local));
    let _ = writeln!(out, "{} ({}):", lang.w("judgments"), judgments.len());
    for p in judgments {
        match &p.external {
            Some(x) => {
                let _ = writeln!(
                    out,
                    "  {}: {} {} ({} {})",
                    e(&p.local),
                    lang.w("decided by"),
                    e(&x.authority),
                    lang.w("capability"),
                    e(&x.capability)
                );
            }
            None => {
                let _ = match lang {
                    Lang::En => writeln!(out, "  {}: no external_decl", e(&p.local)),
                    Lang::Ru => writeln!(out, "  {}: нет external_decl", e(&p.local)),
                };
            }
        }
    }

    let _ = writeln!(out, "{} ({}):", lang.w("strata"), m.strata.len());
    for line in strata_lines(m, lang) {
        let _ = writeln!(out, "  {line}");
    }
    out
}

/// Local names, display-escaped and sorted.
fn sorted_names<'a>(preds: impl Iterator<Item = &'a Pred>) -> Vec<String> {
    let mut v: Vec<String> = preds.map(|p| escape_for_display(&p.local)).collect();
    v.sort();
    v
}

/// `indent head: a, b, c` wrapped at [`WIDTH`], continuation lines indented
/// under the first name.
fn list(out: &mut String, indent: &str, head: &str, names: &[String], lang: Lang) {
    let first = format!("{indent}{head}:");
    if names.is_empty() {
        let _ = writeln!(out, "{first} {}", lang.w("none"));
        return;
    }
    let cont = " ".repeat(indent.len() + 4);
    let mut line = first;
    let mut at_start = true;
    for (i, n) in names.iter().enumerate() {
        let piece = if i + 1 < names.len() {
            format!("{n},")
        } else {
            n.clone()
        };
        if !at_start && line.chars().count() + 1 + piece.chars().count() > WIDTH {
            let _ = writeln!(out, "{line}");
            line = format!("{cont}{piece}");
        } else {
            line.push(' ');
            line.push_str(&piece);
        }
        at_start = false;
    }
    let _ = writeln!(out, "{line}");
}

/// One line per stratum: which predicates sit there and why.
///
/// Stratum 0 holds the inputs and everything computed from them without a
/// conflict; a predicate sits higher either because a non-monotonic edge
/// lifts it (its rules are contested, or it reads a `not` item) or because
/// it reads, positively, a predicate so lifted.
fn strata_lines(m: &Model, lang: Lang) -> Vec<String> {
    let edges = dependency_edges(m);
    let stratum = |p: PredId| m.pred(p).stratum;
    let mut lines = Vec::new();
    for (s, preds) in m.strata.iter().enumerate() {
        if s == 0 {
            let names = sorted_names(
                preds
                    .iter()
                    .map(|&p| m.pred(p))
                    .filter(|p| p.kind == RelationKind::Institutional),
            );
            let n = names.len();
            let what = match (lang, m.strata.len() == 1) {
                (Lang::En, true) => format!(
                    "stratum 0: every predicate, {n} institutional (no conflicts, no `not` items)"
                ),
                (Lang::En, false) => format!(
                    "stratum 0: the inputs and the other {n} institutional predicate{}",
                    if n == 1 { "" } else { "s" }
                ),
                (Lang::Ru, true) => format!(
                    "страта 0: все предикаты, институциональных {n} (конфликтов и `not` нет)"
                ),
                (Lang::Ru, false) => {
                    format!(
                        "страта 0: входные данные и остальные институциональные предикаты ({n})"
                    )
                }
            };
            // The full list is in `predicates` above; repeat it only when short.
            if n > 0 && n <= 6 {
                lines.push(format!("{what}: {}", names.join(", ")));
            } else {
                lines.push(what);
            }
            continue;
        }
        // Predicates lifted by a non-monotonic edge, with the reason.
        let mut groups: Vec<(PredId, String, Vec<PredId>)> = Vec::new();
        for &p in preds {
            if let Some(edge) = edges
                .iter()
                .find(|e| e.to == p && e.non_monotonic && stratum(e.from) + 1 == s)
            {
                groups.push((p, lift_reason(m, edge, lang), Vec::new()));
            }
        }
        // Every other predicate here reads a lifted one (through positive edges).
        for &p in preds {
            if groups.iter().any(|g| g.0 == p) {
                continue;
            }
            let root = lifted_root(m, &edges, p, s, &groups);
            match root.and_then(|r| groups.iter_mut().find(|g| g.0 == r)) {
                Some(g) => g.2.push(p),
                None => groups.push((p, lang.w("lifted").to_owned(), Vec::new())),
            }
        }
        let mut parts: Vec<String> = groups
            .iter()
            .map(|(p, why, _)| format!("{} ({why})", escape_for_display(&m.pred(*p).local)))
            .collect();
        for (p, _, followers) in &groups {
            if followers.is_empty() {
                continue;
            }
            let mut names: Vec<String> = followers
                .iter()
                .map(|&f| escape_for_display(&m.pred(f).local))
                .collect();
            names.sort();
            parts.push(match lang {
                Lang::En => format!(
                    "{} (read{} {})",
                    names.join(", "),
                    if names.len() == 1 { "s" } else { "" },
                    escape_for_display(&m.pred(*p).local)
                ),
                Lang::Ru => format!(
                    "{} (читают {})",
                    names.join(", "),
                    escape_for_display(&m.pred(*p).local)
                ),
            });
        }
        let head = format!("{} {s}:", lang.w("stratum"));
        let one = format!("{head} {}", parts.join("; "));
        if one.chars().count() + 2 <= WIDTH {
            lines.push(one);
        } else {
            lines.push(head);
            lines.extend(parts.into_iter().map(|p| format!("  {p}")));
        }
    }
    lines
}

/// Why a non-monotonic edge lifts its head predicate.
fn lift_reason(m: &Model, edge: &Edge, lang: Lang) -> String {
    let from = escape_for_display(&m.pred(edge.from).local);
    if edge.kind == EdgeKind::NotItem {
        return format!("`not` {} {from}", lang.w("over"));
    }
    // The rule is in a conflict: say what contests it.
    let Some(r) = edge.rule else {
        return format!("{} {from}", lang.w("reads"));
    };
    let head = m.rule(r).head.lit();
    let (other, holder) = if head.negative {
        // A rule for ~p attacks p: name the attacker.
        (head, r)
    } else {
        let c = head.complement();
        let strongest = m.rules_for(c).min_by_key(|&x| m.rule(x).strength);
        match strongest {
            Some(x) => (c, x),
            None => return format!("{} {from}", lang.w("reads")),
        }
    };
    let lit = escape_for_display(&m.lit_name(other));
    match (lang, m.rule(holder).strength) {
        (Lang::En, Strength::Strict) => format!("contested: {lit} has a strict rule"),
        (Lang::En, Strength::Defeasible) => format!("contested: {lit} has a defeasible rule"),
        (Lang::En, Strength::Defeater) => format!("contested: {lit} has a defeater"),
        (Lang::Ru, Strength::Strict) => format!("оспаривается: у {lit} есть строгое правило"),
        (Lang::Ru, Strength::Defeasible) => format!("оспаривается: у {lit} есть оспоримое правило"),
        (Lang::Ru, Strength::Defeater) => {
            format!("оспаривается: у {lit} есть опровергающее правило")
        }
    }
}

/// The lifted predicate of stratum `s` that `p` reads through positive
/// edges within the stratum (breadth-first, so the nearest one).
fn lifted_root(
    m: &Model,
    edges: &[Edge],
    p: PredId,
    s: usize,
    groups: &[(PredId, String, Vec<PredId>)],
) -> Option<PredId> {
    let mut seen = vec![false; m.preds.len()];
    let mut q = VecDeque::from([p]);
    seen[p.0 as usize] = true;
    while let Some(v) = q.pop_front() {
        for e in edges.iter().filter(|e| e.to == v) {
            let f = e.from;
            if m.pred(f).stratum != s || seen[f.0 as usize] {
                continue;
            }
            if groups.iter().any(|g| g.0 == f) {
                return Some(f);
            }
            seen[f.0 as usize] = true;
            q.push_back(f);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::driver::load_bytes;

    const CHESS: &[u8] =
        include_bytes!("../../packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json");

    fn chess() -> String {
        let loaded =
            load_bytes(CHESS, &Default::default()).unwrap_or_else(|d| panic!("{}", d.render()));
        render(&loaded, "en")
    }

    #[test]
    fn chess_summary_has_the_key_lines() {
        let s = chess();
        for want in [
            "package fide.laws.chess 0.1.0 (namespace urn:fide:laws:clir:chess)",
            "semantic hash sha256:4c92dc6ccf68aba3e0e7d752b4fd0d2755a3a6d9d9d08df00b2f4c497fcc950c",
            "entity types (8): Arbiter, CastlingSide, Game, GamePlayState, GamePlayTransition, Piece, Player,",
            "predicates (54):",
            "  judgment (2): case_not_precisely_regulated, piece_touched_intentionally",
            "rules (47): 45 strict, 2 defeasible, 0 defeaters",
            "priorities (1):",
            "  CheckmateTakesPrecedenceOverSeventyFive > SeventyFiveAutomaticDraw (lex_specialis)",
            "editions (1): FIDE_LAWS_OF_CHESS: FIDE_LAWS_2023 in force from 2023-01-01",
            "closures (6), all complete as of 2023-01-01T00:00:00Z:",
            "  castling_path_attacked over checked_castling_side (snapshot urn:fide:snapshot:castling-attack:2023-01-01)",
            "judgments (2):",
            "  piece_touched_intentionally: decided by FIDEArbiter (capability judgment:FIDEArbiter)",
            "strata (2):",
            "  stratum 0: the inputs and the other 17 institutional predicates",
            "  stratum 1:",
            "    game_drawn (contested: ~game_drawn has a defeasible rule)",
            "    entered_state, valid_transition (read game_drawn)",
        ] {
            assert!(s.lines().any(|l| l == want), "missing line {want:?} in:\n{s}");
        }
        assert!(s.contains("  empirical (32): arbiter_of,"), "{s}");
        assert!(
            s.contains("  institutional (20): agreed_draw_has_ended_the_game,"),
            "{s}"
        );
        assert!(s.lines().count() <= 40, "{} lines:\n{s}", s.lines().count());
        assert!(s.lines().all(|l| l.chars().count() <= 110), "{s}");
    }

    #[test]
    fn summary_is_deterministic() {
        assert_eq!(chess(), chess());
    }
}
