//! The editions part of the review document: for every work of the closure
//! that has two dated editions or more, each article's text in every edition
//! (matched by the fragments' `locator`), then "Изменения редакций" /
//! "Changes between editions": per article, the rules, priorities and
//! derogations anchored to it that enter and leave force on each date of the
//! work (docs/reference.md#as-of-evaluation: an edition is in force from its `in_force` date until the
//! next edition of its work enters into force or it is repealed; a node is in
//! force when one of its anchors belongs to an edition in force, and timeless
//! when none belongs to a dated edition).
//!
//! A closure with at most one dated edition per work has no such part, so
//! the document of such a package is what it was before editions.

use super::tree::*;
use super::verbalize::{clean, clean_text};
use super::Lang;
use crate::syntax::{NodeKind, Package, Ref};
use lawgen_runtime::program::{label_in, local_name};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One edition of a work, as its lifecycle dates it.
struct Edition<'a> {
    id: &'a str,
    work: &'a str,
    /// The `in_force` extent (the first, if several are written).
    in_force: Option<&'a str>,
    /// The earliest `repealed` extent.
    repealed: Option<&'a str>,
}

/// A rule, priority or derogation: what can enter and leave force.
struct Dated<'a> {
    id: &'a str,
    package: &'a str,
    what: What,
    labels: &'a [lawgen_runtime::program::Label],
    anchors: &'a [Ref],
}

#[derive(Clone, Copy)]
enum What {
    Rule,
    Priority,
    Derogation,
}

/// The editions part, or `None` when no work has two dated editions.
pub(crate) fn part(closure: &[&Package], lang: Lang) -> Option<Part> {
    let mut editions: Vec<Edition> = Vec::new();
    let mut fragments: HashMap<&str, (&str, &str, Vec<&str>)> = HashMap::new();
    let mut dated: Vec<Dated> = Vec::new();
    for pkg in closure {
        for n in &pkg.nodes {
            match &n.kind {
                NodeKind::SourceEdition { work, edition } => {
                    let first = |status: &str| {
                        edition
                            .lifecycle
                            .iter()
                            .filter(|s| s.status == status)
                            .map(|s| s.extent.as_str())
                            .min()
                    };
                    editions.push(Edition {
                        id: &n.id,
                        work: &work.id,
                        in_force: edition
                            .lifecycle
                            .iter()
                            .find(|s| s.status == "in_force")
                            .map(|s| s.extent.as_str()),
                        repealed: first("repealed"),
                    });
                }
                NodeKind::Fragment(f) => {
                    if let Some(e) = &f.edition {
                        let texts = f.texts.iter().map(|t| t.text.as_str()).collect();
                        fragments.insert(&n.id, (e.id.as_str(), f.locator.as_str(), texts));
                    }
                }
                NodeKind::Rule(r) => dated.push(Dated {
                    id: &n.id,
                    package: &pkg.name,
                    what: What::Rule,
                    labels: &n.labels,
                    anchors: &r.anchors,
                }),
                NodeKind::Priority { anchors, .. } => dated.push(Dated {
                    id: &n.id,
                    package: &pkg.name,
                    what: What::Priority,
                    labels: &n.labels,
                    anchors,
                }),
                NodeKind::Derogation(d) => dated.push(Dated {
                    id: &n.id,
                    package: &pkg.name,
                    what: What::Derogation,
                    labels: &n.labels,
                    anchors: &d.anchors,
                }),
                _ => {}
            }
        }
    }
    let mut works: BTreeMap<&str, Vec<&Edition>> = BTreeMap::new();
    for e in &editions {
        if e.in_force.is_some() {
            works.entry(e.work).or_default().push(e);
        }
    }
    works.retain(|_, eds| eds.len() >= 2);
    if works.is_empty() {
        return None;
    }
    let by_id: HashMap<&str, &Edition> = editions.iter().map(|e| (e.id, e)).collect();
    let in_force_on = |e: &Edition, d: &str| -> bool {
        let Some(start) = e.in_force else {
            return false;
        };
        start <= d
            && e.repealed.is_none_or(|r| r > d)
            && !editions.iter().any(|o| {
                o.work == e.work && o.id != e.id && o.in_force.is_some_and(|x| start < x && x <= d)
            })
    };
    // A node's state on a date: None when timeless, else whether in force.
    let node_on = |n: &Dated, d: Option<&str>| -> Option<bool> {
        let anchored: Vec<&Edition> = n
            .anchors
            .iter()
            .filter_map(|a| fragments.get(a.id.as_str()))
            .filter_map(|(e, _, _)| by_id.get(e).copied())
            .filter(|e| e.in_force.is_some())
            .collect();
        if anchored.is_empty() {
            return None;
        }
        Some(d.is_some_and(|d| anchored.iter().any(|e| in_force_on(e, d))))
    };

    let mut texts = Vec::new();
    let mut changes = Vec::new();
    for (work, eds) in &works {
        let mut eds = eds.clone();
        eds.sort_by_key(|e| (e.in_force, e.id));
        let mut dates: BTreeSet<&str> = BTreeSet::new();
        for e in &eds {
            dates.extend(e.in_force);
            dates.extend(e.repealed);
        }
        let dates: Vec<&str> = dates.into_iter().collect();
        // The articles of the work, by locator.
        let mut locators: BTreeMap<(Vec<Key>, &str), Vec<&str>> = BTreeMap::new();
        for (fid, (e, loc, _)) in &fragments {
            if by_id.get(e).is_some_and(|e| e.work == *work) {
                locators.entry((natural(loc), *loc)).or_default().push(fid);
            }
        }
        for ((_, loc), mut frags) in locators {
            frags.sort_unstable();
            let slug = slug(&format!("{}-{loc}", local_name(work)));
            // Each edition's text of the article.
            let mut paras = Vec::new();
            for (i, e) in eds.iter().enumerate() {
                let until = eds
                    .get(i + 1)
                    .and_then(|n| n.in_force)
                    .into_iter()
                    .chain(e.repealed)
                    .min();
                paras.push(Para::Prose(vec![
                    Span::Text(lang.edition_word().to_owned()),
                    Span::Link {
                        text: quote(lang, &clean(local_name(e.id))),
                        to: e.id.to_owned(),
                    },
                    Span::Text(lang.period(
                        &clean(e.in_force.unwrap_or("")),
                        until.map(|u| day_before(u).unwrap_or_else(|| clean(u))),
                    )),
                ]));
                let mine: Vec<&&str> = frags.iter().filter(|f| fragments[**f].0 == e.id).collect();
                if mine.is_empty() {
                    paras.push(Para::text(lang.no_article()));
                }
                for f in mine {
                    for t in &fragments[*f].2 {
                        for piece in t.split("\n\n") {
                            let piece = piece.trim_matches('\n');
                            if !piece.trim().is_empty() {
                                paras.push(Para::Article(clean_text(piece)));
                            }
                        }
                    }
                }
            }
            texts.push(Entry {
                node: None,
                anchor: format!("ed-{slug}"),
                title: clean(loc),
                paras,
                anchors: Vec::new(),
                extra: Extra::default(),
            });
            // What enters and leaves force at each date.
            let mut here: Vec<&Dated> = dated
                .iter()
                .filter(|n| n.anchors.iter().any(|a| frags.contains(&a.id.as_str())))
                .collect();
            // By label (which names the point of the article), then id.
            here.sort_by_key(|n| (label_in(n.labels, lang.code()), n.id));
            let mut paras = Vec::new();
            for (i, d) in dates.iter().enumerate() {
                let before = i.checked_sub(1).map(|j| dates[j]);
                let starting: Vec<&&Edition> =
                    eds.iter().filter(|e| e.in_force == Some(*d)).collect();
                let ending: Vec<&&Edition> =
                    eds.iter().filter(|e| e.repealed == Some(*d)).collect();
                let mut head = vec![Span::Text(format!("{}: ", clean(d)))];
                for (k, e) in starting.iter().enumerate() {
                    if k > 0 {
                        head.push(Span::Text("; ".to_owned()));
                    }
                    head.push(Span::Text(lang.enters_edition().to_owned()));
                    head.push(Span::Link {
                        text: quote(lang, &clean(local_name(e.id))),
                        to: e.id.to_owned(),
                    });
                }
                for (k, e) in ending.iter().enumerate() {
                    if k > 0 || !starting.is_empty() {
                        head.push(Span::Text("; ".to_owned()));
                    }
                    head.push(Span::Text(lang.repealed_edition().to_owned()));
                    head.push(Span::Link {
                        text: quote(lang, &clean(local_name(e.id))),
                        to: e.id.to_owned(),
                    });
                }
                head.push(Span::Text(".".to_owned()));
                paras.push(Para::Prose(head));
                let mut any = false;
                for (enters, word) in [(true, lang.enters()), (false, lang.leaves())] {
                    for n in &here {
                        let (Some(now), Some(then)) = (node_on(n, Some(d)), node_on(n, before))
                        else {
                            continue;
                        };
                        if now == then || now != enters {
                            continue;
                        }
                        any = true;
                        let mut spans = vec![
                            Span::Text(format!("{word}{}", lang.what(n.what))),
                            Span::Link {
                                text: quote(lang, &clean(local_name(n.id))),
                                to: n.id.to_owned(),
                            },
                            Span::Text(lang.of_package(&clean(n.package))),
                        ];
                        if let Some(label) = label_in(n.labels, lang.code()) {
                            spans.push(Span::Text(format!(": {}", clean(label))));
                        }
                        spans.push(Span::Text(".".to_owned()));
                        paras.push(Para::Prose(spans));
                    }
                }
                if !any {
                    paras.push(Para::text(lang.no_change()));
                }
            }
            changes.push(Entry {
                node: None,
                anchor: format!("ch-{slug}"),
                title: clean(loc),
                paras,
                anchors: Vec::new(),
                extra: Extra::default(),
            });
        }
    }
    let heading = vec![
        lang.editions_heading().to_owned(),
        lang.editions_intro().to_owned(),
    ];
    Some(Part {
        anchor: "editions".to_owned(),
        heading,
        sections: vec![
            Section {
                kind: SectionKind::Fragments,
                title: lang.texts_section().to_owned(),
                anchor: "editions-texts".to_owned(),
                entries: texts,
            },
            Section {
                kind: SectionKind::Fragments,
                title: lang.changes_section().to_owned(),
                anchor: "editions-changes".to_owned(),
                entries: changes,
            },
        ],
    })
}

/// A locator split into runs of digits (compared as numbers) and the rest,
/// so that `article/9` comes before `article/12`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Num(u64, usize),
    Text(String),
}

fn natural(s: &str) -> Vec<Key> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        let n = if c.is_ascii_digit() {
            rest.bytes().take_while(u8::is_ascii_digit).count()
        } else {
            rest.find(|c: char| c.is_ascii_digit())
                .unwrap_or(rest.len())
        };
        let (run, tail) = rest.split_at(n);
        out.push(match run.parse::<u64>() {
            Ok(v) if c.is_ascii_digit() => Key::Num(v, run.len()),
            _ => Key::Text(run.to_owned()),
        });
        rest = tail;
    }
    out
}

/// The day before a `YYYY-MM-DD` date, or `None` for anything else (an
/// extent that is not a date is refused by the checker before this runs).
fn day_before(d: &str) -> Option<String> {
    let b = d.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, day): (u32, u32, u32) = (
        d[..4].parse().ok()?,
        d[5..7].parse().ok()?,
        d[8..].parse().ok()?,
    );
    let leap = |y: u32| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = |y: u32, m: u32| match m {
        2 if leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    };
    if !(1..=12).contains(&m) || day == 0 || day > days(y, m) {
        return None;
    }
    let (y, m, day) = match (m, day) {
        (1, 1) => (y.checked_sub(1)?, 12, 31),
        (m, 1) => (y, m - 1, days(y, m - 1)),
        (m, day) => (y, m, day - 1),
    };
    Some(format!("{y:04}-{m:02}-{day:02}"))
}

fn slug(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(60)
        .collect()
}

fn quote(lang: Lang, s: &str) -> String {
    match lang {
        Lang::Ru => format!("«{s}»"),
        Lang::En => format!("“{s}”"),
    }
}

impl Lang {
    fn code(self) -> &'static str {
        match self {
            Lang::Ru => "ru",
            Lang::En => "en",
        }
    }

    fn editions_heading(self) -> &'static str {
        match self {
            Lang::Ru => "Редакции",
            Lang::En => "Editions",
        }
    }

    fn editions_intro(self) -> &'static str {
        match self {
            Lang::Ru => "Редакция действует со дня вступления в силу до вступления в силу следующей редакции того же акта или до отмены. Правило, приоритет или отступление действует, когда хотя бы один его анкер относится к действующей редакции; не привязанное ни к одной датированной редакции действует всегда и здесь не упоминается. Статьи сопоставлены по локатору фрагмента.",
            Lang::En => "An edition is in force from the day it enters into force until the next edition of the same work does, or until it is repealed. A rule, priority or derogation is in force when one of its anchors belongs to an edition in force; one anchored to no dated edition is timeless and is not listed here. Articles are matched by the fragments' locator.",
        }
    }

    fn texts_section(self) -> &'static str {
        match self {
            Lang::Ru => "Тексты статей в редакциях",
            Lang::En => "Article texts in each edition",
        }
    }

    fn changes_section(self) -> &'static str {
        match self {
            Lang::Ru => "Изменения редакций",
            Lang::En => "Changes between editions",
        }
    }

    fn edition_word(self) -> &'static str {
        match self {
            Lang::Ru => "Редакция ",
            Lang::En => "Edition ",
        }
    }

    fn period(self, from: &str, until: Option<String>) -> String {
        match (self, until) {
            (Lang::Ru, Some(u)) => format!(", в силе с {from} по {u}:"),
            (Lang::Ru, None) => format!(", в силе с {from}:"),
            (Lang::En, Some(u)) => format!(", in force from {from} to {u}:"),
            (Lang::En, None) => format!(", in force from {from}:"),
        }
    }

    fn no_article(self) -> &'static str {
        match self {
            Lang::Ru => "Этой статьи нет в тексте редакции, которым располагает пакет: пока редакция действует, правила по этой статье не действуют.",
            Lang::En => "The text of this edition that the package holds lacks this article: no rule for it is in force while this edition is.",
        }
    }

    fn enters_edition(self) -> &'static str {
        match self {
            Lang::Ru => "вступает в силу редакция ",
            Lang::En => "edition enters into force: ",
        }
    }

    fn repealed_edition(self) -> &'static str {
        match self {
            Lang::Ru => "отменяется редакция ",
            Lang::En => "edition repealed: ",
        }
    }

    fn enters(self) -> &'static str {
        match self {
            Lang::Ru => "Вступает в силу ",
            Lang::En => "Enters into force: ",
        }
    }

    fn leaves(self) -> &'static str {
        match self {
            Lang::Ru => "Утрачивает силу ",
            Lang::En => "Leaves force: ",
        }
    }

    fn what(self, w: What) -> &'static str {
        match (self, w) {
            (Lang::Ru, What::Rule) => "правило ",
            (Lang::Ru, What::Priority) => "приоритет ",
            (Lang::Ru, What::Derogation) => "отступление ",
            (Lang::En, What::Rule) => "rule ",
            (Lang::En, What::Priority) => "priority ",
            (Lang::En, What::Derogation) => "derogation ",
        }
    }

    fn of_package(self, p: &str) -> String {
        match self {
            Lang::Ru => format!(" пакета «{p}»"),
            Lang::En => format!(" of package “{p}”"),
        }
    }

    fn no_change(self) -> &'static str {
        match self {
            Lang::Ru => "Правила этой статьи не меняются.",
            Lang::En => "No rule of this article changes.",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_day_before_crosses_months_years_and_leap_days() {
        assert_eq!(day_before("2017-07-01").as_deref(), Some("2017-06-30"));
        assert_eq!(day_before("2023-01-01").as_deref(), Some("2022-12-31"));
        assert_eq!(day_before("2024-03-01").as_deref(), Some("2024-02-29"));
        assert_eq!(day_before("2100-03-01").as_deref(), Some("2100-02-28"));
        assert_eq!(day_before("2009-07-15").as_deref(), Some("2009-07-14"));
        assert_eq!(day_before("2023-02-30"), None);
        assert_eq!(day_before("0000-01-01"), None);
        assert_eq!(day_before("soon"), None);
    }

    #[test]
    fn locators_sort_by_their_numbers() {
        let mut l = vec![
            "article/12",
            "article/9",
            "article/9.10",
            "article/9.2",
            "preface/0.2",
        ];
        l.sort_by_key(|s| natural(s));
        assert_eq!(
            l,
            [
                "article/9",
                "article/9.2",
                "article/9.10",
                "article/12",
                "preface/0.2"
            ]
        );
    }
}
