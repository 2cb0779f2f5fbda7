//! `lawgen doc` on a closure with several editions of one work
//! (docs/review-document.md#editions): each article's text in every edition,
//! and "Изменения редакций" / "Changes between editions", the rules that
//! enter and leave force at each date, per article. The FIDE history package
//! (2009, 2017 and 2023 editions of the Laws) is the case; a package with one
//! edition has no such part, and the seed review document's paragraphs are
//! still there, in order, in the part of the imported 2023 package.

use lawgen::doc::{Builder, Format, Lang};
use lawgen_test_support as support;

fn history(lang: Lang, format: Format) -> String {
    let root = support::workspace();
    Builder::new()
        .package(
            root.join("packages/fide.laws.chess.history/fide.laws.chess.history-0.1.0.ir.json"),
        )
        .import_path(root.join("packages/fide.laws.chess"))
        .import_path(root.join("packages/fide.laws.chess.2017"))
        .import_path(root.join("packages/fide.laws.chess.2009"))
        .lang(lang)
        .format(format)
        .render()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The paragraphs of the entry titled `title` in the section titled `section`.
fn entry<'a>(doc: &'a str, section: &str, title: &str) -> Vec<&'a str> {
    let paras: Vec<&str> = doc.trim_end().split("\n\n").collect();
    let start = paras
        .iter()
        .position(|p| *p == section)
        .unwrap_or_else(|| panic!("no section {section:?}"));
    let at = paras[start..]
        .iter()
        .position(|p| *p == title)
        .unwrap_or_else(|| panic!("no entry {title:?} in {section:?}"))
        + start;
    paras[at + 1..]
        .iter()
        .take_while(|p| !p.starts_with("article/") && !p.starts_with("preface/"))
        .copied()
        .collect()
}

/// The paragraphs after the date line `date` up to the next date line.
fn at_date<'a>(entry: &[&'a str], date: &str) -> Vec<&'a str> {
    let start = entry
        .iter()
        .position(|p| p.starts_with(&format!("{date}: ")))
        .unwrap_or_else(|| panic!("no date {date} in {entry:#?}"));
    entry[start + 1..]
        .iter()
        .take_while(|p| !p.as_bytes().first().is_some_and(u8::is_ascii_digit))
        .copied()
        .collect()
}

fn names(paras: &[&str], word: &str) -> Vec<String> {
    paras
        .iter()
        .filter_map(|p| p.strip_prefix(word))
        .map(|p| p.split(['«', '»']).nth(1).unwrap_or("").to_owned())
        .collect()
}

#[test]
fn the_changes_of_article_5_are_listed_per_date() {
    let doc = history(Lang::Ru, Format::Text);
    let art5 = entry(&doc, "Изменения редакций", "article/5");
    let enters = "Вступает в силу правило ";
    let leaves = "Утрачивает силу правило ";

    let d2009 = at_date(&art5, "2009-07-01");
    assert_eq!(
        names(&d2009, enters),
        [
            "CheckmateEndsTheGame2009",
            "CheckmateWins2009",
            "ResignationEndsTheGame2009",
            "ResignationWinsForOpponent2009",
            "StalemateDraws2009",
            "StalemateEndsTheGame2009",
            "DeadPositionDraws2009",
            "DeadPositionEndsTheGame2009",
            "AgreedDraw2009",
            "AgreedDrawEndsTheGame2009",
        ]
    );
    assert!(names(&d2009, leaves).is_empty());

    let d2017 = at_date(&art5, "2017-07-01");
    let in2017 = [
        "CheckmateEndsTheGame2017",
        "CheckmateWins2017",
        "ResignationEndsTheGame2017",
        "ResignationWinsForOpponent2017",
    ];
    assert_eq!(names(&d2017, enters), in2017);
    assert_eq!(names(&d2017, leaves).len(), 10);

    let d2023 = at_date(&art5, "2023-01-01");
    let entering = names(&d2023, enters);
    for r in [
        "ResignationLoses",
        "ResignationDrawnIfMateImpossible",
        "ResignationEndsTheGame",
        "AgreedDraw",
        "CheckmateWins",
    ] {
        assert!(
            entering.iter().any(|e| e == r),
            "{r} does not enter: {d2023:#?}"
        );
    }
    assert_eq!(names(&d2023, leaves), in2017);
    // Each line names the package and quotes the rule's label.
    assert!(d2023.contains(
        &"Вступает в силу правило «ResignationLoses» пакета «fide.laws.chess»: Article 5.1.2. The game is lost by the player who declares he/she resigns, unless the opponent cannot checkmate."
    ));
    // The priority of Article 9 enters with its edition; the timeless
    // game-play rules are never listed.
    let art9 = entry(&doc, "Изменения редакций", "article/9");
    assert!(at_date(&art9, "2023-01-01")
        .contains(&"Вступает в силу приоритет «CheckmateOverSeventyFiveMoves» пакета «fide.laws.chess»: Article 9.6.2. Checkmate takes precedence over the 75-move draw."));
    assert!(!doc.contains("«GamePlay/"));
    let art6 = entry(&doc, "Изменения редакций", "article/6");
    assert_eq!(
        art6,
        [
            "2009-07-01: вступает в силу редакция «FIDE_LAWS_2009».",
            "Правила этой статьи не меняются.",
            "2017-07-01: вступает в силу редакция «FIDE_LAWS_2017».",
            "Правила этой статьи не меняются.",
            "2023-01-01: вступает в силу редакция «FIDE_LAWS_2023».",
            "Правила этой статьи не меняются.",
        ]
    );
}

#[test]
fn each_article_is_shown_in_every_edition() {
    let doc = history(Lang::En, Format::Text);
    let art5 = entry(&doc, "Article texts in each edition", "article/5");
    let lines: Vec<&str> = art5
        .iter()
        .filter(|p| p.starts_with("Edition “"))
        .copied()
        .collect();
    assert_eq!(
        lines,
        [
            "Edition “FIDE_LAWS_2009”, in force from 2009-07-01 to 2017-06-30:",
            "Edition “FIDE_LAWS_2017”, in force from 2017-07-01 to 2022-12-31:",
            "Edition “FIDE_LAWS_2023”, in force from 2023-01-01:",
        ]
    );
    assert!(art5.contains(
        &"(b) партнер, которого заявляет, что сдается. Это немедленно заканчивает игру."
    ));
    assert!(art5.contains(
        &"5.1.2. Партию выигрывает игрок, соперник которого заявляет, что он сдается. Это немедленно заканчивает игру."
    ));
    assert!(art5
        .iter()
        .any(|p| p.starts_with("5.1.2 The game is lost by the player who declares")));
    // Article 6 is only in the lettered text; the others lack it.
    let art6 = entry(&doc, "Article texts in each edition", "article/6");
    let lacks = "The text of this edition that the package holds lacks this article: no rule for it is in force while this edition is.";
    assert_eq!(art6.iter().filter(|p| **p == lacks).count(), 2);
    assert!(art6.contains(&"Статья 6: ШАХМАТНЫЕ ЧАСЫ"));
    // Articles in the order of their numbers.
    let titles: Vec<&str> = doc
        .split("\n\n")
        .skip_while(|p| *p != "Changes between editions")
        .filter(|p| p.starts_with("article/") || p.starts_with("preface/"))
        .collect();
    assert_eq!(
        titles,
        [
            "article/3",
            "article/4",
            "article/5",
            "article/6",
            "article/7",
            "article/9",
            "article/12",
            "preface/0.2"
        ]
    );
}

#[test]
fn the_seed_paragraphs_stay_reproduced_and_one_edition_has_no_editions_part() {
    let seed = std::fs::read_to_string(
        support::workspace().join("lawgen/tests/doc/fide.laws.chess-0.1.0.review.ru.txt"),
    )
    .unwrap();
    let doc = history(Lang::Ru, Format::Text);
    let paras: Vec<&str> = doc.split("\n\n").collect();
    // Every paragraph of the seed after its four header paragraphs, in order.
    let mut at = 0;
    for p in seed.trim_end().split("\n\n").skip(4) {
        match paras[at..].iter().position(|q| *q == p) {
            Some(i) => at += i + 1,
            None => panic!("the seed paragraph {p:?} is not in the history document (in order)"),
        }
    }
    let alone = Builder::new()
        .package(support::path(support::CHESS))
        .lang(Lang::Ru)
        .render()
        .unwrap();
    assert!(!alone.contains("Изменения редакций"));
    assert!(doc.contains("\n\nИзменения редакций\n\n"));
    for format in [Format::Markdown, Format::Html] {
        let out = history(Lang::En, format);
        assert!(out.contains("Changes between editions"), "{format:?}");
    }
}

#[test]
fn a_repealed_edition_leaves_force_with_its_rules() {
    let dir = std::env::temp_dir().join(format!("lawgen-doc-editions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("repealed.law");
    std::fs::write(
        &file,
        r#"schema "law.core.ir/0.2"
package "example.repeal" namespace "urn:example:repeal" version "0.1.0"
default package "urn:example:repeal"
default label {"language":"en"}
default text {"language":"en"}

type Game
relation empirical fee_paid(game: Game)
relation institutional registered(game: Game)

rule Old strict
  registered(g) :- fee_paid(g)
  vars [g: Game]
  anchors [OldArt1]
  label "Article 1 (old). A paid fee registers the game"

rule New strict
  registered(g) :- fee_paid(g)
  vars [g: Game]
  anchors [NewArt1]
  label "Article 1 (new). A paid fee registers the game"

work Act
edition First of Act
  lifecycle [{"status":"in_force","extent":"2020-01-01"}]
edition Second of Act
  lifecycle [{"status":"in_force","extent":"2021-03-01"},{"status":"repealed","extent":"2024-02-29"}]

fragment OldArt1
  in First
  locator "article/1"
  text "1. Old text."

fragment NewArt1
  in Second
  locator "article/1"
  text "1. New text."
"#,
    )
    .unwrap();
    let doc = Builder::new()
        .package(&file)
        .lang(Lang::En)
        .render()
        .unwrap_or_else(|e| panic!("{e}"));
    let _ = std::fs::remove_dir_all(&dir);
    let art1 = entry(&doc, "Changes between editions", "article/1");
    assert_eq!(
        art1,
        [
            "2020-01-01: edition enters into force: “First”.",
            "Enters into force: rule “Old” of package “example.repeal”: Article 1 (old). A paid fee registers the game.",
            "2021-03-01: edition enters into force: “Second”.",
            "Enters into force: rule “New” of package “example.repeal”: Article 1 (new). A paid fee registers the game.",
            "Leaves force: rule “Old” of package “example.repeal”: Article 1 (old). A paid fee registers the game.",
            "2024-02-29: edition repealed: “Second”.",
            "Leaves force: rule “New” of package “example.repeal”: Article 1 (new). A paid fee registers the game.",
        ]
    );
    let texts = entry(&doc, "Article texts in each edition", "article/1");
    assert!(texts.contains(&"Edition “Second”, in force from 2021-03-01 to 2024-02-28:"));
}
