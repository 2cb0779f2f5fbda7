//! `lawgen doc`, the review document (docs/review-document.md):
//!
//! - the chess package's Russian text reproduces the review rendering it was
//!   published with (`tests/doc/fide.laws.chess-0.1.0.review.ru.txt`),
//!   paragraph for paragraph, except the two paragraphs that name the
//!   verbalizer;
//! - the documents committed beside each package (`packages/*/NAME.review.
//!   {ru,en}.{txt,html}`, the pages with the package's scenario suite) are
//!   what lawgen generates now, so a package change nobody reviewed shows up
//!   here (`LAWGEN_BLESS=1` rewrites them, and removes stale ones);
//! - totality: every node of every package of the closure has exactly one
//!   identifier line (text, Markdown) or one `data-node` element (HTML), in
//!   both languages, for every package in the repository, random packages,
//!   random packages cut into importing layers (half of them with
//!   derogations), and hostile packages;
//! - the same package gives the same bytes twice.

use lawgen_test_support as support;

use lawgen::doc::{render, Builder, Format, Lang, Options, Scenarios};
use lawgen::driver::{self, Loaded};
use lawgen_runtime::Policy;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use support::bless;
use support::derogate::derogate;
use support::gen::{generate, package_seed, GenConfig, Rng};
use support::split::split;

const LANGS: [Lang; 2] = [Lang::Ru, Lang::En];
const FORMATS: [Format; 3] = [Format::Text, Format::Markdown, Format::Html];

fn doc(loaded: &Loaded, lang: Lang, format: Format) -> String {
    render(loaded, &Options::new(lang, format))
        .unwrap_or_else(|e| panic!("{}: {e}", loaded.package().name))
}

// ---- the seed --------------------------------------------------------------

#[test]
fn the_chess_package_reads_as_its_published_review_document() {
    let seed = std::fs::read_to_string(
        support::workspace().join("lawgen/tests/doc/fide.laws.chess-0.1.0.review.ru.txt"),
    )
    .unwrap();
    let text = Builder::new()
        .package(support::path(support::CHESS))
        .lang(Lang::Ru)
        .format(Format::Text)
        .render()
        .unwrap();
    let expected: Vec<&str> = seed.trim_end().split("\n\n").collect();
    let actual: Vec<&str> = text.trim_end().split("\n\n").collect();
    let mut differing = Vec::new();
    for i in 0..expected.len().max(actual.len()) {
        let (e, a) = (expected.get(i), actual.get(i));
        if e == a {
            continue;
        }
        // The paragraphs that name the verbalizer name lawgen instead, and
        // the language it wrote in (docs/review-document.md#the-language-tag);
        // the rest of them is the seed's.
        if let (Some(e), Some(a)) = (e, a) {
            let lawgen = format!("lawgen {}", env!("CARGO_PKG_VERSION"));
            let e = e
                .replace(
                    "паком law.verb.ru@0.7.0,",
                    &format!("программой {lawgen} (lawgen doc),"),
                )
                .replace(
                    "law.verb.ru@0.7.0 · язык ru-KZ ·",
                    &format!("{lawgen} · язык ru ·"),
                );
            if e != expected[i] && e == *a {
                continue;
            }
        }
        differing.push(format!(
            "paragraph {}:\n  seed:   {}\n  lawgen: {}",
            i + 1,
            e.unwrap_or(&"(none)"),
            a.unwrap_or(&"(none)")
        ));
    }
    assert!(
        differing.is_empty(),
        "{} of {} paragraphs differ from the seed review document:\n\n{}",
        differing.len(),
        expected.len(),
        differing.join("\n\n")
    );
    // Exactly the two verbalizer paragraphs differ, and they are the seed's first and fourth.
    let named: Vec<usize> = expected
        .iter()
        .enumerate()
        .filter(|(_, p)| p.contains("law.verb.ru@"))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(named, [0, 3]);
}

// ---- the committed documents ----------------------------------------------

/// `fide.laws.chess-0.1.0` for `…/fide.laws.chess-0.1.0.ir.json`.
fn stem(path: &Path) -> String {
    let name = path.file_name().unwrap().to_string_lossy();
    name.trim_end_matches(".json")
        .trim_end_matches(".ir")
        .to_owned()
}

/// The scenario suite of each package directory, for the pages.
fn suite(package_dir: &str) -> Option<&'static str> {
    match package_dir {
        "fide.laws.chess" => Some("tests/scenarios/chess"),
        "ru.chess.competition" => Some("tests/scenarios/ru"),
        "fide.laws.chess.history" => Some("tests/scenarios/chess-history"),
        _ => None,
    }
}

#[test]
fn the_committed_review_documents_are_current() {
    let root = support::workspace();
    let mut stale = Vec::new();
    let mut checked = 0;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("packages"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let dir_name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut packages: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.to_string_lossy().ends_with(".ir.json"))
            .collect();
        packages.sort();
        let mut wanted = Vec::new();
        for package in &packages {
            let loaded = driver::load_file_with(
                package,
                &Default::default(),
                &[
                    root.join("packages/fide.laws.chess"),
                    root.join("packages/fide.laws.chess.2017"),
                    root.join("packages/fide.laws.chess.2009"),
                ],
            )
            .unwrap_or_else(|e| panic!("{e}"));
            let scenarios = suite(&dir_name).map(|s| {
                Scenarios::collect(
                    &loaded,
                    &root.join(s),
                    Policy::Blocking,
                    &Default::default(),
                )
                .unwrap_or_else(|e| panic!("{e}"))
            });
            for lang in LANGS {
                for (format, ext) in [(Format::Text, "txt"), (Format::Html, "html")] {
                    let mut options = Options::new(lang, format);
                    if format == Format::Html {
                        options.scenarios = scenarios.clone();
                    }
                    let actual = render(&loaded, &options).unwrap();
                    let file = dir.join(format!("{}.review.{}.{ext}", stem(package), lang.tag()));
                    wanted.push(file.clone());
                    checked += 1;
                    if bless() {
                        std::fs::write(&file, &actual).unwrap();
                        continue;
                    }
                    match std::fs::read_to_string(&file) {
                        Ok(committed) if committed == actual => {}
                        Ok(committed) => stale.push(format!(
                            "{} differs from what lawgen generates:\n{}",
                            file.display(),
                            first_difference(&committed, &actual)
                        )),
                        Err(_) => stale.push(format!("{} is missing", file.display())),
                    }
                }
            }
        }
        // A document of a package that is gone (an older version).
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.to_string_lossy().contains(".review.") && !wanted.contains(&p) {
                if bless() {
                    std::fs::remove_file(&p).unwrap();
                } else {
                    stale.push(format!(
                        "{} documents no package of {}",
                        p.display(),
                        dir.display()
                    ));
                }
            }
        }
    }
    assert!(checked >= 8, "only {checked} documents checked");
    assert!(
        stale.is_empty(),
        "{}\n\nreview the change, then regenerate: LAWGEN_BLESS=1 cargo test -p lawgen --test doc",
        stale.join("\n\n")
    );
}

/// The first differing paragraph of two documents, with its neighbour.
fn first_difference(expected: &str, actual: &str) -> String {
    let e: Vec<&str> = expected.split("\n\n").collect();
    let a: Vec<&str> = actual.split("\n\n").collect();
    let i = (0..e.len().max(a.len()))
        .find(|&i| e.get(i) != a.get(i))
        .unwrap_or(0);
    format!(
        "paragraph {}:\n- {}\n+ {}",
        i + 1,
        e.get(i).unwrap_or(&"(none)"),
        a.get(i).unwrap_or(&"(none)")
    )
}

// ---- totality --------------------------------------------------------------

/// What the document writes for a package string (control characters
/// escaped, format characters shown as `<U+202E>`).
fn clean(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else if lawgen_runtime::text::is_format(c) {
            out.push_str(&format!("<U+{:04X}>", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

fn code_span(s: &str) -> String {
    let (mut longest, mut run) = (0, 0);
    for c in s.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    format!("{fence} {s} {fence}")
}

fn html_unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Every node id of the closure, the root's first.
fn node_ids(loaded: &Loaded) -> Vec<String> {
    loaded
        .closure()
        .iter()
        .flat_map(|p| p.nodes.iter().map(|n| n.id.clone()))
        .collect()
}

/// Checks that every node has exactly one identifier line or element, and
/// nothing else has one; returns what is wrong.
fn totality(loaded: &Loaded, lang: Lang, format: Format, out: &str) -> Vec<String> {
    let ids = node_ids(loaded);
    let mut wrong = Vec::new();
    match format {
        Format::Html => {
            let mut seen: BTreeMap<String, usize> = BTreeMap::new();
            for piece in out.split(" data-node=\"").skip(1) {
                let value = piece.split('"').next().unwrap_or("");
                *seen.entry(html_unescape(value)).or_default() += 1;
            }
            for id in &ids {
                match seen.remove(&clean(id)) {
                    Some(1) => {}
                    n => wrong.push(format!("`{id}`: {} elements", n.unwrap_or(0))),
                }
            }
            for (id, n) in seen {
                wrong.push(format!("`{id}`: {n} elements of no node"));
            }
        }
        Format::Text | Format::Markdown => {
            let label = match lang {
                Lang::Ru => "Идентификатор: ",
                _ => "Identifier: ",
            };
            let anchors = match lang {
                Lang::Ru => " Анкер",
                _ => " Anchor",
            };
            let lines: Vec<&str> = out.lines().filter(|l| l.starts_with(label)).collect();
            let mut total = 0;
            for id in &ids {
                let written = if format == Format::Text {
                    clean(id)
                } else {
                    code_span(&clean(id))
                };
                let prefix = format!("{label}{written}");
                let n = lines
                    .iter()
                    .filter(|l| {
                        l.strip_prefix(prefix.as_str())
                            .is_some_and(|rest| rest.is_empty() || rest.starts_with(anchors))
                    })
                    .count();
                total += n;
                if n != 1 {
                    wrong.push(format!("`{id}`: {n} identifier lines"));
                }
            }
            if total != lines.len() {
                wrong.push(format!(
                    "{} identifier lines for {} nodes",
                    lines.len(),
                    ids.len()
                ));
            }
        }
        _ => wrong.push("a format this test does not know".to_owned()),
    }
    wrong
}

/// Renders every language and format of `loaded` and checks each is total
/// and deterministic; panics naming `what`.
fn check_total(loaded: &Loaded, what: &str) {
    for lang in LANGS {
        for format in FORMATS {
            let out = doc(loaded, lang, format);
            let mut wrong = totality(loaded, lang, format, &out);
            // Package strings are cleaned, and no placeholder of the
            // verbalizer's survives: no control character but line breaks.
            if let Some(c) = out.chars().find(|c| c.is_control() && *c != '\n') {
                wrong.push(format!("a control character {c:?} in the output"));
            }
            assert!(
                wrong.is_empty(),
                "{what}, {lang:?} {format:?}: not total:\n{}",
                wrong.join("\n")
            );
            assert_eq!(out, doc(loaded, lang, format), "{what}: not deterministic");
        }
    }
}

/// Package files (`.json`, `.law`) under `dir`.
fn package_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if p.is_dir() {
            if name != "target" && name != "node_modules" && !name.starts_with('.') {
                package_files(&p, out);
            }
        } else if (name.ends_with(".json")
            && !name.ends_with(".facts.json")
            && !name.ends_with(".expected.json"))
            || name.ends_with(".law")
        {
            out.push(p);
        }
    }
}

#[test]
fn every_package_of_the_repository_is_documented_totally() {
    let root = support::workspace();
    let mut files = Vec::new();
    for d in ["packages", "tests", "examples", "docs"] {
        package_files(&root.join(d), &mut files);
    }
    files.sort();
    let mut documented = Vec::new();
    for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            continue;
        };
        // Package files only: a header naming the schema (text form: a `package` line).
        let text = String::from_utf8_lossy(&bytes);
        if !text.contains("law.core.ir/") && !text.trim_start().starts_with("package ") {
            continue;
        }
        // Broken packages (ui tests) are refused by the loader, as they must be.
        let Ok(loaded) = driver::load_file_with(
            f,
            &Default::default(),
            &[
                root.join("packages/fide.laws.chess"),
                root.join("packages/fide.laws.chess.2017"),
                root.join("packages/fide.laws.chess.2009"),
                root.join("tests/imports/example"),
            ],
        ) else {
            continue;
        };
        check_total(&loaded, &f.display().to_string());
        documented.push(f.strip_prefix(&root).unwrap_or(f).display().to_string());
    }
    for must in [
        "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json",
        "tests/imports/example/club/example.club-1.0.0.json",
    ] {
        assert!(
            documented.iter().any(|d| d == must),
            "{must} was not documented; documented: {documented:?}"
        );
    }
    assert!(
        documented
            .iter()
            .any(|d| d.starts_with("packages/ru.chess.competition/")),
        "the Russian package was not documented"
    );
    assert!(documented.len() >= 5, "only {documented:?}");
}

#[test]
fn random_and_hostile_packages_are_documented_totally() {
    let (mut random, mut hostile) = (0, 0);
    for i in 0..80 {
        let mut cfg = GenConfig::new(package_seed(0xd0c_0000, i));
        cfg.hostile = i % 2 == 1;
        let g = generate(&cfg);
        let Ok(loaded) = driver::load_bytes(&g.package, &Default::default()) else {
            continue;
        };
        check_total(&loaded, &g.description);
        if cfg.hostile {
            hostile += 1;
        } else {
            random += 1;
        }
    }
    assert!(
        random >= 30 && hostile >= 30,
        "{random} random, {hostile} hostile packages documented"
    );
}

#[test]
fn random_packages_cut_into_importing_layers_are_documented_totally() {
    let dir = std::env::temp_dir().join(format!("lawgen-doc-{}", std::process::id()));
    let (mut layered, mut derogated) = (0, 0);
    for i in 0..40 {
        let seed = package_seed(0xd0c_1a7e, i);
        let mut cfg = GenConfig::new(seed);
        cfg.hostile = i % 4 == 3;
        let g = generate(&cfg);
        if driver::load_bytes(&g.package, &Default::default()).is_err() {
            continue;
        }
        let layers = 2 + (i as usize % 3);
        let mut rng = Rng::new(seed ^ 0xd0c);
        // Every other package: a layer sets rules of the layers below aside.
        let (files, derogations) = match (i % 2 == 1)
            .then(|| derogate(&g.package, layers, &mut rng))
            .flatten()
        {
            Some(d) => (d.layers, d.derogations),
            None => (split(&g.package, layers, &mut rng).0, 0),
        };
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for l in &files {
            std::fs::write(
                dir.join(&l.file),
                serde_json::to_vec_pretty(&l.json).unwrap(),
            )
            .unwrap();
        }
        let top = dir.join(&files.last().unwrap().file);
        let loaded = driver::load_file(&top, &Default::default())
            .unwrap_or_else(|e| panic!("the layers of seed {seed:#x} do not load:\n{e}"));
        assert_eq!(loaded.closure().len(), layers);
        check_total(&loaded, &format!("{} in {layers} layers", g.description));
        // Each imported package has its part, after the root's.
        let text = doc(&loaded, Lang::En, Format::Text);
        assert_eq!(
            text.matches("\n\nImported package “").count(),
            layers - 1,
            "seed {seed:#x}: one part per imported package"
        );
        assert_eq!(
            text.matches("\n\nDerogation: wherever this package applies")
                .count(),
            derogations,
            "seed {seed:#x}: one sentence per derogation"
        );
        derogated += usize::from(derogations > 0);
        layered += 1;
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(layered >= 25, "only {layered} layered packages documented");
    assert!(
        derogated >= 8,
        "only {derogated} packages with derogations documented"
    );
}

// ---- the page --------------------------------------------------------------

#[test]
fn every_link_of_the_page_goes_to_an_anchor_of_the_page() {
    let root = support::workspace();
    let loaded = driver::load_file_with(
        &root.join("packages/ru.chess.competition/ru.chess.competition-0.3.0.ir.json"),
        &Default::default(),
        &[root.join("packages/fide.laws.chess")],
    )
    .unwrap();
    for lang in LANGS {
        let page = doc(&loaded, lang, Format::Html);
        let ids: std::collections::BTreeSet<&str> = page
            .split(" id=\"")
            .skip(1)
            .map(|p| p.split('"').next().unwrap())
            .collect();
        let hrefs: Vec<&str> = page
            .split(" href=\"")
            .skip(1)
            .map(|p| p.split('"').next().unwrap())
            .collect();
        assert!(hrefs.len() > 300, "only {} links", hrefs.len());
        for h in hrefs {
            let target = h
                .strip_prefix('#')
                .unwrap_or_else(|| panic!("{h}: not an internal link"));
            assert!(ids.contains(target), "{h}: no such anchor");
        }
        assert!(!page.contains("<script") && !page.contains(" src=") && !page.contains("url("));
    }
}

#[test]
fn a_derogation_reads_as_one_and_the_page_says_whom_it_sets_aside() {
    let loaded = driver::load_file(
        &support::workspace().join("docs/examples/derogation/package.ir.json"),
        &Default::default(),
    )
    .unwrap();
    let ru = doc(&loaded, Lang::Ru, Format::Text);
    assert!(
        ru.contains("Отступление: там, где применяется этот пакет (сам или импортированный), не применяется правило «FivefoldDraws» пакета «example.base», а также приоритеты, в которых оно названо."),
        "{ru}"
    );
    assert!(
        ru.contains("\n\nОтступления\n\n"),
        "the derogations section"
    );
    let en = doc(&loaded, Lang::En, Format::Text);
    assert!(
        en.contains("Derogation: wherever this package applies (on its own or imported), rule “FivefoldDraws” of package “example.base” does not apply, nor do the priorities that name it."),
        "{en}"
    );
    let page = doc(&loaded, Lang::En, Format::Html);
    // The set-aside rule, in the imported part, says by what.
    let rule = page
        .split("<article ")
        .find(|a| a.contains("data-node=\"urn:example:base#FivefoldDraws\""))
        .unwrap();
    assert!(rule.contains("<dt>Set aside by derogation</dt>"), "{rule}");
    // And the table of who overrides whom has its row.
    let table = page
        .split("id=\"overrides\"")
        .nth(1)
        .unwrap()
        .split("</table>")
        .next()
        .unwrap();
    assert!(table.contains("derogation <a href="), "{table}");
    assert!(
        table.contains("FivefoldDraws</a> <span class=\"layer\">(layer example.base)"),
        "{table}"
    );
}
