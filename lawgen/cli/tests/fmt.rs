//! `lawgen fmt`: an edited package that `lawgen check` refuses for its
//! hashes is repaired (every hash recomputed, nothing else changed), the
//! changed nodes are named, and `--check` tells canonical from not.

use lawgen::driver;
use lawgen::driver::ReadLimits;
use lawgen::internals::syntax::canon;
use lawgen_test_support as support;
use std::path::{Path, PathBuf};
use std::process::Command;

const CHESS: &str = "packages/fide.laws.chess/fide.laws.chess-0.1.0.ir.json";

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lawgen-fmt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The chess package with the 75-move threshold changed to 80 by hand.
fn edited_chess() -> String {
    let seed = std::fs::read_to_string(support::workspace().join(CHESS)).unwrap();
    let old = r#"{"kind":"value","type":{"name":"urn:law:std#Integer"},"value":75}"#;
    assert_eq!(seed.matches(old).count(), 1);
    seed.replace(old, &old.replace("75", "80"))
}

fn lawgen(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_lawgen"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn fmt_repairs_an_edited_package_that_check_refuses() {
    let edited = edited_chess();
    let d = driver::load_bytes(edited.as_bytes(), &ReadLimits::default()).unwrap_err();
    let first = d.iter().next().unwrap();
    assert_eq!(d.len(), 1, "{}", d.render());
    assert_eq!(
        first.location.node.as_deref(),
        Some("urn:fide:laws:clir:chess#SeventyFiveAutomaticDraw")
    );
    assert!(first.help.contains("lawgen fmt"), "{}", first.help);

    let r = lawgen::format::canonical(Path::new("chess.json"), edited.as_bytes()).unwrap();
    assert_eq!(r.changes.len(), 1);
    assert_eq!(
        r.changes[0].id.as_deref(),
        Some("urn:fide:laws:clir:chess#SeventyFiveAutomaticDraw")
    );
    let loaded = driver::load_bytes(r.output.as_bytes(), &ReadLimits::default())
        .unwrap_or_else(|d| panic!("{}", d.render()));
    assert_eq!(loaded.model().rules.len(), 47);
    // Only that node's hash changed: the rest of the file is the seed's bytes.
    let seed = std::fs::read_to_string(support::workspace().join(CHESS)).unwrap();
    let differing = seed
        .split("\"contentHash\":")
        .zip(r.output.split("\"contentHash\":"))
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(differing, 2, "the value and the hash after it");
    // Formatting is idempotent.
    let again = lawgen::format::canonical(Path::new("chess.json"), r.output.as_bytes()).unwrap();
    assert_eq!(again.output, r.output);
    assert!(again.changes.is_empty());
}

#[test]
fn fmt_on_the_command_line() {
    let dir = temp_dir("cli");
    let file = dir.join("chess.json");
    std::fs::write(&file, edited_chess()).unwrap();
    let f = file.to_str().unwrap();

    let (code, _, err) = lawgen(&["check", f]);
    assert_eq!(code, 1);
    assert!(
        err.contains("error[E007]") && err.contains("run `lawgen fmt FILE`"),
        "{err}"
    );

    let (code, _, err) = lawgen(&["fmt", "--check", f]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("is not in canonical form"), "{err}");
    assert!(
        err.contains("recomputed the contentHash of node `urn:fide:laws:clir:chess#SeventyFiveAutomaticDraw`"),
        "{err}"
    );

    let (code, _, err) = lawgen(&["fmt", f]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("rewrote"), "{err}");
    let (code, out, err) = lawgen(&["check", f]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("fide.laws.chess"), "{out}");
    let (code, _, err) = lawgen(&["fmt", "--check", f]);
    assert_eq!(code, 0, "{err}");

    // The seed itself is canonical.
    let (code, _, err) = lawgen(&[
        "fmt",
        "--check",
        support::workspace().join(CHESS).to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fmt_lays_out_the_text_form_and_keeps_comments() {
    let dir = temp_dir("text");
    let law = dir.join("p.law");
    let messy = r#"// A small package.
schema "law.core.ir/0.2"   package "demo" namespace "urn:demo" version "0.1.0"
type Game  type Player
relation empirical resigned(who: Player)
relation empirical player_of(game: Game, who: Player)
relation institutional game_lost_by(game: Game, who: Player)
// Article 5.1.2, first sentence.
rule ResignationLoses strict game_lost_by(g,p):-player_of(g,p),
  // the player of this game
  resigned(p) vars [g: Game, p: Player] // keyed by player
// end
"#;
    std::fs::write(&law, messy).unwrap();
    let r = lawgen::format::canonical(&law, messy.as_bytes()).unwrap();
    let expected = r#"// A small package.
schema "law.core.ir/0.2"
package "demo" namespace "urn:demo" version "0.1.0"

type Game

type Player

relation empirical resigned(who: Player)

relation empirical player_of(game: Game, who: Player)

relation institutional game_lost_by(game: Game, who: Player)

// Article 5.1.2, first sentence.
// the player of this game
// keyed by player
rule ResignationLoses strict
  game_lost_by(g, p) :- player_of(g, p), resigned(p)
  vars [g: Game, p: Player]

// end
"#;
    assert_eq!(r.output, expected);
    // The layout is a fixed point, and means the same package.
    let again = lawgen::format::canonical(&law, r.output.as_bytes()).unwrap();
    assert_eq!(again.output, r.output);
    let a = lawgen::internals::syntax::text::parse(messy).unwrap().json;
    let b = lawgen::internals::syntax::text::parse(&r.output)
        .unwrap()
        .json;
    assert_eq!(a, b);
    assert_eq!(canon::serialize(&a), canon::serialize(&b));

    let l = law.to_str().unwrap();
    let (code, _, _) = lawgen(&["fmt", "--check", l]);
    assert_eq!(code, 1);
    let (code, _, err) = lawgen(&["fmt", l]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = lawgen(&["fmt", "--check", l]);
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn convert_round_trips_the_seed_byte_for_byte_on_the_command_line() {
    let dir = temp_dir("convert");
    let law = dir.join("chess.law");
    let json = dir.join("chess.json");
    let seed = support::workspace().join(CHESS);
    let (code, _, err) = lawgen(&["convert", seed.to_str().unwrap(), law.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = lawgen(&["convert", law.to_str().unwrap(), json.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read(&json).unwrap(), std::fs::read(&seed).unwrap());
    // Every command reads the text form.
    let (code, out, err) = lawgen(&["check", law.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("47"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
