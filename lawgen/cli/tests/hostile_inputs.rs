//! Hostile input files, and the exit code of a user's error.
//!
//! Every file lawgen opens as input is read within its size limit, however
//! it is made: a symbolic link to `/dev/zero` (git stores symbolic links,
//! so a cloned suite or package directory can carry one), a FIFO fed more
//! than the limit, a sparse file larger than memory. Each must be refused
//! with the size error (E090) at once, or with the error its first bytes
//! earn, never read whole; each message is pinned here. The suite's own
//! files are in `suite_cli.rs`.
//!
//! A package lawgen cannot build as asked (a Python keyword as its name)
//! is the user's to change: exit code 1, not 3 (an internal error).

#![cfg(unix)]

use lawgen_test_support as support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const PACKAGE: &str = "docs/examples/derogation/package.ir.json";
const BASE: &str = "docs/examples/derogation/base.ir.json";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lawgen-bounded-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs lawgen; a run that reads an endless input whole would never end
/// (or end killed), so each has 60 seconds.
fn lawgen(args: &[&str]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lawgen"))
        .current_dir(support::workspace())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("lawgen {args:?} still ran after 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// A FIFO at `path`, and a thread writing `bytes` blanks into it (it ends
/// when the reader stops reading).
fn fifo_with_writer(path: &Path, bytes: usize) -> std::thread::JoinHandle<()> {
    let ok = Command::new("mkfifo").arg(path).status().unwrap().success();
    assert!(ok, "mkfifo {}", path.display());
    let path = path.to_owned();
    std::thread::spawn(move || {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        let chunk = vec![b' '; 1 << 16];
        let mut left = bytes;
        while left > 0 {
            let n = left.min(chunk.len());
            if f.write_all(&chunk[..n]).is_err() {
                return;
            }
            left -= n;
        }
    })
}

fn package_too_large(path: &Path, size: &str, limit: usize) -> String {
    format!(
        "error[E090]: the package is {size}more than the limit of {limit} bytes\n  \
         --> the document root\n  \
         = help: split the package, or raise the limit (`--max-package-bytes`, `Builder::limits`)\n\n\
         error: 1 error found\nerror: {} is not a valid rule package\n",
        path.display()
    )
}

#[test]
fn a_package_linked_to_dev_zero_is_refused_at_the_limit() {
    let dir = scratch("zero");
    for name in ["zero.ir.json", "zero.law"] {
        let link = dir.join(name);
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        let l = link.display().to_string();
        let expected = package_too_large(&link, "", 1000);
        for args in [
            vec!["doc", &l],
            vec!["check", &l],
            vec!["lint", &l],
            vec!["fmt", "--check", &l],
            vec!["convert", &l, "/nonexistent/out.law"],
        ] {
            let mut a = args.clone();
            a.extend(["--max-package-bytes", "1000"]);
            let (code, _, err) = lawgen(&a);
            assert_eq!(code, 1, "{a:?}: {err}");
            let err = err.strip_prefix("lawgen: ").unwrap_or(&err);
            assert_eq!(err, expected, "{a:?}");
        }
        // `build` says it in its own words, with the same diagnostic.
        let (code, _, err) = lawgen(&[
            "build",
            &l,
            "--out",
            "/nonexistent",
            "--max-package-bytes",
            "1000",
        ]);
        assert_eq!(code, 1);
        assert!(
            err.contains("\nerror[E090]: the package is more than the limit of 1000 bytes\n"),
            "{err}"
        );
        // The default limit (64 MiB) is reached as fast.
        let (code, _, err) = lawgen(&["check", &l]);
        assert_eq!(code, 1);
        assert!(
            err.starts_with("error[E090]: the package is more than the limit of 67108864 bytes\n"),
            "{err}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_package_in_a_fifo_stops_at_the_limit() {
    let dir = scratch("fifo");
    let fifo = dir.join("p.ir.json");
    let writer = fifo_with_writer(&fifo, 200 << 20);
    let (code, _, err) = lawgen(&[
        "check",
        &fifo.display().to_string(),
        "--max-package-bytes",
        "1000",
    ]);
    writer.join().unwrap();
    assert_eq!(code, 1);
    assert_eq!(err, package_too_large(&fifo, "", 1000));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_sparse_file_larger_than_memory_is_refused_unread() {
    let dir = scratch("sparse");
    let big = dir.join("big.ir.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(1 << 40)
        .unwrap();
    let (code, _, err) = lawgen(&["check", &big.display().to_string()]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        package_too_large(&big, "1099511627776 bytes, ", 64 << 20)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn facts_files_are_read_within_their_limit() {
    let dir = scratch("facts");
    let fifo = dir.join("facts.json");
    let writer = fifo_with_writer(&fifo, 200 << 20);
    let f = fifo.display().to_string();
    let (code, _, err) = lawgen(&["eval", PACKAGE, "--facts", &f, "--max-facts-bytes", "1000"]);
    writer.join().unwrap();
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "error[E090]: the facts file is more than the limit of 1000 bytes\n  \
             --> the document root\n  \
             = help: split the facts, or raise the limit (`--max-facts-bytes`, `ReadLimits::max_facts_bytes`)\n\n\
             error: 1 error found\nerror: {f} is not a valid facts file for example.national\n"
        )
    );
    // A regular file over the limit is refused by its size, unread.
    std::fs::remove_file(&fifo).unwrap();
    let facts = r#"{"facts": {"position_repeated": [["g1", 5]]}}"#;
    std::fs::write(&fifo, facts).unwrap();
    for cmd in ["eval", "verdicts"] {
        let (code, _, err) = lawgen(&[cmd, PACKAGE, "--facts", &f, "--max-facts-bytes", "10"]);
        assert_eq!(code, 1, "{cmd}");
        let want = format!(
            "error[E090]: the facts file is {} bytes, more than the limit of 10 bytes\n",
            facts.len()
        );
        assert!(err.starts_with(&want), "{cmd}: {err}");
    }
    // Within the limit, the same file evaluates.
    let exact = facts.len().to_string();
    let (code, _, err) = lawgen(&["eval", PACKAGE, "--facts", &f, "--max-facts-bytes", &exact]);
    assert_eq!(code, 0, "{err}");
    // Linked to /dev/zero: not JSON at its first byte, whatever the limit.
    std::fs::remove_file(&fifo).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &fifo).unwrap();
    let (code, _, err) = lawgen(&["eval", PACKAGE, "--facts", &f]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with(
            "error[E001]: the input is not valid JSON: expected value at line 1 column 1\n"
        ),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_properties_file_linked_to_dev_zero_is_refused_at_the_limit() {
    let dir = scratch("properties");
    let link = dir.join("props.json");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let l = link.display().to_string();
    let (code, _, err) = lawgen(&[
        "analyze",
        BASE,
        "--properties",
        &l,
        "--max-package-bytes",
        "100000",
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        format!(
            "error[E090]: {l}: the file is more than the limit of 100000 bytes\n  \
             = help: a properties file is held to the package size limit: raise it with `--max-package-bytes`\n"
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Import resolution reads every candidate's header: links to devices,
/// FIFOs without a writer and sparse giants in the import directory are
/// passed over, never read (or waited on), and the import is found.
#[test]
fn hostile_files_beside_an_import_are_passed_over() {
    let dir = scratch("imports");
    std::fs::copy(
        support::workspace().join(PACKAGE),
        dir.join("package.ir.json"),
    )
    .unwrap();
    std::fs::copy(support::workspace().join(BASE), dir.join("base.ir.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("a-zero.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.join("a-zero.law")).unwrap();
    let ok = Command::new("mkfifo")
        .arg(dir.join("a-fifo.json"))
        .status()
        .unwrap()
        .success();
    assert!(ok);
    std::fs::File::create(dir.join("a-huge.json"))
        .unwrap()
        .set_len(1 << 40)
        .unwrap();
    let (code, out, err) = lawgen(&["check", &dir.join("package.ir.json").display().to_string()]);
    assert_eq!(code, 0, "{out}{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_package_named_like_a_python_keyword_is_a_user_error() {
    let dir = scratch("class");
    let mut p: serde_json::Value = serde_json::from_slice(&support::read(BASE)).unwrap();
    p["package"]["name"] = "class".into();
    let file = dir.join("class.ir.json");
    std::fs::write(&file, p.to_string()).unwrap();
    let out = dir.join("out");
    let (code, _, err) = lawgen(&[
        "build",
        &file.display().to_string(),
        "--python",
        "--out",
        &out.display().to_string(),
    ]);
    assert_eq!(
        (code, err.as_str()),
        (
            1,
            "lawgen: the module name `class` is not a Python identifier; give one with --module-name (Package::module_name)\n"
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A straight-line limit in the environment that is not a number is an
/// error naming the variable and what to write, and nothing is built.
#[test]
fn a_straight_line_limit_that_is_not_a_number_is_refused() {
    let dir = scratch("straight-line");
    let out = dir.join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_lawgen"))
        .current_dir(support::workspace())
        .env("LAWGEN_STRAIGHT_LINE_RULES", "many")
        .args([
            "build",
            "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json",
            "--out",
            &out.display().to_string(),
        ])
        .output()
        .unwrap();
    assert_eq!(
        (
            run.status.code(),
            String::from_utf8(run.stderr).unwrap().as_str()
        ),
        (
            Some(1),
            "lawgen: generating code for packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json: \
             LAWGEN_STRAIGHT_LINE_RULES is `many`, not a number of rules: set it to one (e.g. \
             2500), or unset it for the default of 12000\n"
        )
    );
    assert!(!out.exists(), "a crate was written");
    let _ = std::fs::remove_dir_all(&dir);
}
