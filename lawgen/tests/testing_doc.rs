//! docs/testing.md against the repository: every test file of `lawgen/tests`
//! and `lawgen/cli/tests` has its row in the page (what it checks, and how long it takes alone),
//! every `--test NAME` the page names exists, the counts the page states
//! (scenarios, golden modules, fuzz targets, fuzz regressions) are the
//! number of files, and the page's table of environment variables lists
//! exactly the `LAWGEN_*` variables the repository's code reads.

use lawgen_test_support as support;

use std::collections::BTreeSet;
use std::path::Path;

fn page() -> String {
    String::from_utf8(support::read("docs/testing.md")).expect("docs/testing.md is UTF-8")
}

/// The names of the files in `dir` (relative to the workspace) that end
/// with `suffix`.
fn files(dir: &str, suffix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in std::fs::read_dir(support::path(dir)).unwrap_or_else(|e| panic!("{dir}: {e}")) {
        let name = e.unwrap().file_name().into_string().unwrap();
        if name.ends_with(suffix) {
            out.insert(name);
        }
    }
    out
}

/// The number written just before `suffix` in the page (`57` or `ten`);
/// fails when the page no longer says it.
fn number_before(page: &str, suffix: &str) -> usize {
    let at = page
        .find(suffix)
        .unwrap_or_else(|| panic!("docs/testing.md no longer says `{suffix}`"));
    let word = page[..at]
        .split_whitespace()
        .last()
        .unwrap_or_default()
        .trim_start_matches('(')
        .to_lowercase();
    const WORDS: [&str; 13] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    word.replace(',', "")
        .parse()
        .ok()
        .or_else(|| WORDS.iter().position(|w| *w == word))
        .unwrap_or_else(|| panic!("no number before `{suffix}` (found `{word}`)"))
}

/// The integration-test folders and the package whose `cargo test -p` runs
/// each: the compiler's own, and the command's (the tests that run the
/// `lawgen` binary live beside it).
const TEST_DIRS: [(&str, &str); 2] = [
    ("lawgen/tests", "lawgen"),
    ("lawgen/cli/tests", "lawgen-cli"),
];

#[test]
fn every_integration_test_has_its_rows_and_every_named_test_exists() {
    let page = page();
    let mut all = BTreeSet::new();
    let mut missing = Vec::new();
    for (dir, package) in TEST_DIRS {
        for f in files(dir, ".rs") {
            let t = f.trim_end_matches(".rs").to_owned();
            if !page.contains(&format!("\n| `{t}` | ")) {
                missing.push(format!("`{t}` ({dir}): no row saying what it checks"));
            }
            if !page.contains(&format!("\n| `cargo test -p {package} --test {t}` | ")) {
                missing.push(format!(
                    "`{t}` ({dir}): no row saying how long `cargo test -p {package} --test {t}` takes"
                ));
            }
            all.insert(t);
        }
    }
    for (i, _) in page.match_indices("--test ") {
        let name: String = page[i + 7..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        // `--test NAME` (upper case) is the page's placeholder.
        let placeholder = name.chars().all(|c| c.is_ascii_uppercase());
        if !name.is_empty() && !placeholder && !all.contains(&name) {
            missing.push(format!(
                "`--test {name}`: no such file in lawgen/tests or lawgen/cli/tests"
            ));
        }
    }
    assert!(
        missing.is_empty(),
        "docs/testing.md and the test folders disagree:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_counts_the_page_states_are_the_files_there_are() {
    let page = page();
    let counts = [
        (
            "hand-derived scenarios in `tests/scenarios/chess/`",
            files("tests/scenarios/chess", ".expected.json").len(),
        ),
        (
            "modules in `tests/golden/generated/`",
            files("tests/golden/generated", ".rs").len(),
        ),
        (
            "cargo-fuzz targets",
            files("fuzz/fuzz_targets", ".rs").len(),
        ),
    ];
    for (claim, actual) in counts {
        assert_eq!(
            number_before(&page, claim),
            actual,
            "docs/testing.md: the number before `{claim}`"
        );
    }
    // The table of crashes found lists every regression input, and the
    // sentence before it counts them.
    let regressions: BTreeSet<String> = files("tests/fuzz-regressions", "")
        .into_iter()
        .filter(|f| f != "README.md")
        .collect();
    let table = &page[page
        .find("#### Crashes found and fixed")
        .expect("the crashes table")..];
    let table = &table[..table.find("\n\n####").unwrap_or(table.len())];
    let listed: BTreeSet<String> = table
        .lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| l.split('`').next())
        .map(str::to_owned)
        .collect();
    assert_eq!(
        listed, regressions,
        "docs/testing.md's crashes table against tests/fuzz-regressions/"
    );
    assert_eq!(
        number_before(&page, "crashes were found in all"),
        regressions.len()
    );
}

/// The `LAWGEN_*` names in a file's text.
fn variables(text: &str, into: &mut BTreeSet<String>) {
    for (i, _) in text.match_indices("LAWGEN_") {
        let rest: String = text[i + 7..]
            .chars()
            .take_while(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || *c == '_')
            .collect();
        if !rest.is_empty() {
            into.insert(format!("LAWGEN_{rest}"));
        }
    }
}

fn walk(dir: &Path, into: &mut BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries {
        let e = e.unwrap();
        let path = e.path();
        let name = e.file_name().into_string().unwrap_or_default();
        if name.starts_with('.')
            || ["target", "node_modules", "corpus", "artifacts"].contains(&name.as_str())
        {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            walk(&path, into);
        } else if [".rs", ".sh", ".py", ".mjs", ".toml"]
            .iter()
            .any(|s| name.ends_with(s))
        {
            if let Ok(text) = std::fs::read_to_string(&path) {
                variables(&text, into);
            }
        }
    }
}

#[test]
fn the_environment_variables_table_lists_what_the_code_reads() {
    let page = page();
    let section = &page[page.find("## Environment variables").expect("the section")..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let mut documented = BTreeSet::new();
    for row in section.lines().filter(|l| l.starts_with("| `LAWGEN_")) {
        variables(row.split(" | ").next().unwrap(), &mut documented);
    }
    let mut read = BTreeSet::new();
    for dir in [
        "lawgen",
        "lawgen-runtime",
        "tests",
        "benches",
        "scripts",
        "fuzz",
        "examples",
        "docs/examples",
        ".ci",
    ] {
        walk(&support::path(dir), &mut read);
    }
    assert!(read.contains("LAWGEN_BLESS"), "the walk found the code");
    let undocumented: Vec<_> = read.difference(&documented).collect();
    let unread: Vec<_> = documented.difference(&read).collect();
    assert!(
        undocumented.is_empty() && unread.is_empty(),
        "docs/testing.md, Environment variables: read but not in the table: {undocumented:?}; \
         in the table but read nowhere: {unread:?}"
    );
}
