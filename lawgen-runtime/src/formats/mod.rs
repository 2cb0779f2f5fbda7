//! The formats at the edges of evaluation: facts files in ([`facts`], with
//! the facts of deprecated inputs found by [`deprecated`]), the canonical
//! output out ([`output`]). Both are defined in `docs/reference.md`
//! of the lawgen repository ("Facts files", "Canonical output").

#[cfg(feature = "serde")]
pub mod deprecated;
#[cfg(feature = "serde")]
pub mod facts;
pub mod output;

/// JSON string escaping as `json.dumps(..., ensure_ascii=False)` and serde_json do it.
pub fn write_string(out: &mut String, s: &str) {
    use std::fmt::Write;
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Turns a serde_json parse error into a diagnostic with line and column.
#[cfg(feature = "serde")]
pub fn json_error(e: &serde_json::Error) -> crate::diagnostics::Diagnostic {
    use crate::diagnostics::{Code, Location};
    let text = e.to_string();
    let (code, message, help) = if text.contains("recursion limit") {
        (
            Code::TooDeep,
            format!(
                "the JSON nests too deeply (line {}, column {}): more than 128 levels",
                e.line(),
                e.column()
            ),
            "a package or facts file never needs this depth; the file is corrupt or hostile",
        )
    } else if text.contains("surrogate in hex escape") || text.contains("end of hex escape") {
        // serde_json calls a lone trailing surrogate a "leading" one, and a
        // leading surrogate without `\u` after it an "end of hex escape".
        (
            Code::MalformedJson,
            format!(
                "the input is not valid JSON: a `\\u` escape near line {}, column {} is half of a UTF-16 surrogate pair (U+D800 to U+DFFF) without its other half, which is no character",
                e.line(),
                e.column()
            ),
            "write the character itself, or both halves of its pair (`\\ud83d\\ude00` for U+1F600)",
        )
    } else if e.is_eof() {
        (
            Code::MalformedJson,
            format!(
                "the JSON ends early at line {}, column {} (truncated file?)",
                e.line(),
                e.column()
            ),
            "complete the file: every `{` and `[` needs its closing bracket",
        )
    } else {
        (
            Code::MalformedJson,
            format!("the input is not valid JSON: {text}"),
            "fix the JSON syntax at that line and column (a JSON linter shows it)",
        )
    };
    crate::diagnostics::Diagnostic::new(code, Location::default(), message, help)
}

#[cfg(all(test, feature = "serde"))]
mod tests {
    use super::facts::{read_facts, read_facts_from, write_facts};
    use super::output::canonical_json;
    use crate::interp::conclusions_from;
    use crate::program::{Catalog, Lit, Output, PredId, Program, RelId, Section, Value};
    use crate::test_support::program;
    use crate::Policy;
    use std::collections::BTreeSet;

    fn package() -> Program {
        program(
            "type Game
             type Player
             pred moves(Game, int) empirical
             pred player_of(Game, Player) empirical
             pred game_drawn(Game) institutional",
            &[],
        )
    }

    /// Reads `file` and compares the facts it states, one `p(args)` per row
    /// (and `@Type(name)` per listed entity), or its errors, one per line as
    /// `pointer: message` (a JSON pointer: `~` is written `~0`).
    fn check(cat: &Catalog, file: &str, expect: &str) {
        let got = match read_facts(file.as_bytes(), cat) {
            Ok(f) => {
                let mut lines: Vec<String> = Vec::new();
                for (ty, names) in &f.entities {
                    for n in names {
                        lines.push(format!("@{}({n})", cat.types[ty.0 as usize].name));
                    }
                }
                for (lit, rows) in &f.rows {
                    for r in rows {
                        let args: Vec<String> = r.iter().map(Value::to_string).collect();
                        lines.push(format!("{}({})", cat.lit_name(*lit), args.join(", ")));
                    }
                }
                if f.duplicates > 0 {
                    lines.push(format!("{} duplicate(s)", f.duplicates));
                }
                lines
            }
            Err(d) => d
                .iter()
                .map(|d| format!("{}: {}", d.location.pointer, d.message))
                .collect(),
        };
        let want: Vec<&str> = expect
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(got, want, "{file}");
    }

    #[test]
    fn facts_are_read_as_typed_rows() {
        let p = package();
        check(
            &p.catalog,
            r#"{"entities": {"Player": ["white"]},
                "facts": {"moves": [["g1", 75], ["g1", 75], ["g2", -1]],
                          "~player_of": [["g1", "black"]],
                          "urn:t#player_of": [["g1", "white"]]}}"#,
            "@Player(white)
             moves(g1, 75)
             moves(g2, -1)
             player_of(g1, white)
             ~player_of(g1, black)
             1 duplicate(s)",
        );
    }

    /// Every error names the key and row (a JSON pointer), says what is
    /// wrong, and all of them are reported at once.
    #[test]
    fn every_bad_row_is_named() {
        let p = package();
        check(
            &p.catalog,
            r#"{"facts": {"moves": [["g1"], ["g1", "75"], 3],
                          "nothing": [],
                          "game_drawn": [["g1"]],
                          "player_of": [["g1", "p"]], "~player_of": [["g1", "p"]]},
                "entities": {"Board": []},
                "extra": 1}"#,
            "/entities/Board: unknown entity type `Board`
             /extra: unknown top-level key `extra`
             /facts/game_drawn: `game_drawn` is institutional: it is concluded by the rules, not given
             /facts/moves/0: `moves` takes 2 value(s), this row has 1
             /facts/moves/1/1: value 2 of `moves` must be an integer in the i64 range, found \"75\"
             /facts/moves/2: a row must be an array of values
             /facts/nothing: unknown predicate `nothing`
             /facts/~0player_of: both `player_of(g1, p)` and `~player_of(g1, p)` are given",
        );
        check(&p.catalog, "[1]", ": a facts file must be a JSON object");
        check(
            &p.catalog,
            r#"{"facts": {"#,
            ": the JSON ends early at line 1, column 11 (truncated file?)",
        );
    }

    /// What `write_facts` writes reads back to the same facts, from a
    /// stream as from bytes.
    #[test]
    fn written_facts_read_back() {
        let p = package();
        let file = r#"{"entities": {"Player": ["b", "a"]},
                       "facts": {"moves": [["g\"1", 3]], "~player_of": [["g1", "a"]]}}"#;
        let facts = read_facts(file.as_bytes(), &p.catalog).unwrap();
        let written = write_facts(&facts, &p.catalog);
        assert_eq!(
            written,
            "{\n  \"entities\": {\n    \"Player\": [\"a\", \"b\"]\n  },\n  \"facts\": {\n    \"moves\": [\n      [\"g\\\"1\", 3]\n    ],\n    \"~player_of\": [\n      [\"g1\", \"a\"]\n    ]\n  }\n}\n"
        );
        let back = read_facts_from(written.as_bytes(), &p.catalog).unwrap();
        assert_eq!(back.rows, facts.rows);
        assert_eq!(back.entities, facts.entities);
    }

    /// Keys sorted, rows sorted (strings by code point: a newline before a
    /// digit), one row per line.
    #[test]
    fn the_canonical_output_sorts_keys_and_rows() {
        let mut p = program(
            "type Game
             pred game_drawn(Game, int) institutional
             rel d(Game, int)",
            &[],
        );
        let lit = Lit {
            pred: PredId(0),
            negative: false,
        };
        p.outputs.push(Output {
            section: Section::Defeasibly,
            lit,
            rel: RelId(0),
            minus: None,
            on: Vec::new(),
        });
        let rows: BTreeSet<Vec<Value>> = [
            vec![Value::Entity("g\n2".into()), Value::Int(10)],
            vec![Value::Entity("g1".into()), Value::Int(-3)],
        ]
        .into_iter()
        .collect();
        let c = conclusions_from(&p, Policy::Propagating, None, &mut |_| rows.clone());
        assert_eq!(
            canonical_json(&c),
            r#"{
  "asOf": null,
  "defeasibly": {
    "game_drawn": [
      ["g\n2", 10],
      ["g1", -3]
    ]
  },
  "definitely": {},
  "editions": [],
  "package": "t",
  "pending": {},
  "policy": "propagating",
  "requests": [],
  "supported": {},
  "version": "1"
}
"#
        );
    }

    #[test]
    fn as_of_is_a_calendar_date_or_null() {
        let cat = crate::program::Catalog::default();
        let f = read_facts(br#"{"asOf": "2024-02-29", "facts": {}}"#, &cat).unwrap();
        assert_eq!(
            f.as_of.map(|d| d.to_string()).as_deref(),
            Some("2024-02-29")
        );
        assert_eq!(
            read_facts(write_facts(&f, &cat).as_bytes(), &cat)
                .unwrap()
                .as_of,
            f.as_of
        );
        assert_eq!(read_facts(br#"{"asOf": null}"#, &cat).unwrap().as_of, None);
        for bad in [r#"{"asOf": "2023-02-29"}"#, r#"{"asOf": 20240101}"#] {
            let e = read_facts(bad.as_bytes(), &cat).unwrap_err().render();
            assert!(e.contains("error[E087]") && e.contains("/asOf"), "{e}");
        }
    }

    #[test]
    fn strings_are_escaped_as_json() {
        let cases = [
            ("plain", r#""plain""#),
            ("q\"b\\", r#""q\"b\\""#),
            ("\n\r\t\u{8}\u{c}", r#""\n\r\t\b\f""#),
            ("\u{1}\u{1f}", r#""\u0001\u001f""#),
            ("ферзь ♕", "\"ферзь ♕\""),
        ];
        for (s, want) in cases {
            let mut out = String::new();
            super::write_string(&mut out, s);
            assert_eq!(out, want);
            assert_eq!(serde_json::from_str::<String>(&out).unwrap(), s);
        }
    }
}
