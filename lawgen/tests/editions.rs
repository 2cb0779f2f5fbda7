//! As-of evaluation (docs/reference.md#as-of-evaluation): every refusal of a
//! case's date with its exact message (`tests/ui/editions/<case>/`: a
//! package, a facts file and the extra arguments of `lawgen eval`), and the
//! meaning on a date compared with the package with what is not in force
//! deleted by hand.
//!
//! To accept new messages: `LAWGEN_BLESS=1 cargo test -p lawgen --test editions`.

use lawgen_test_support as support;
use std::path::PathBuf;
use std::process::Command;

#[test]
fn every_refused_date_has_its_exact_message() {
    let ui = support::workspace().join("tests/ui/editions");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&ui)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 4, "only {} cases", cases.len());
    let mut failures = Vec::new();
    for dir in &cases {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let rel = format!("tests/ui/editions/{name}");
        let args: Vec<String> = std::fs::read_to_string(dir.join("args"))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect();
        let out = Command::new(env!("CARGO_BIN_EXE_lawgen"))
            .current_dir(support::workspace())
            .args([
                "eval",
                &format!("{rel}/root.json"),
                "--facts",
                &format!("{rel}/facts.json"),
            ])
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        if out.status.code() != Some(1) {
            failures.push(format!(
                "{name}: exit {:?} (1 expected):\n{stderr}",
                out.status.code()
            ));
            continue;
        }
        let code = name.split('_').next().unwrap().to_ascii_uppercase();
        if !stderr.starts_with(&format!("error[{code}]")) {
            failures.push(format!("{name}: the first error is not {code}:\n{stderr}"));
        }
        let expected_path = ui.join(format!("{name}.stderr"));
        if support::bless() {
            std::fs::write(&expected_path, &stderr).unwrap();
            continue;
        }
        match std::fs::read_to_string(&expected_path) {
            Ok(e) if e == stderr => {}
            Ok(e) => failures.push(format!("{name}: expected\n{e}\nactual\n{stderr}")),
            Err(_) => failures.push(format!(
                "{name}: no {name}.stderr (LAWGEN_BLESS=1):\n{stderr}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
