//! Explanations of a small overlay written by hand, as lowering would write
//! it: `q(X)` is concluded by `r0` (defeasible, from `a(X)`) and attacked by
//! `r1` (a defeater, from `b(X)`) and `r2` (defeasible, `~q(X)` from
//! `c(X)`), with a priority `r0 > r2`; `j` is a judgment whose domain is
//! what `a` and `b` mention.

use super::{explain, parse_query, Condition, Node, NodeKind};
use crate::interp::evaluate;
use crate::program::{
    Attack, Beat, Domain, Level, Lit, Meaning, Output, PredId, PriorityInfo, Program, Read, RelId,
    RuleInfo, Section, SourceAtom, SourceItem, Status, Strength, Term, Value, View, World,
};
use crate::test_support::{facts, program};
use crate::Policy;

const DECLS: &str = "
    type Thing
    pred a(Thing) empirical
    pred b(Thing) empirical
    pred c(Thing) empirical
    pred q(Thing) institutional
    pred j(Thing) judgment
    input fa(Thing) = a
    input fb(Thing) = b
    input fc(Thing) = c
    input fj(Thing) = j
    input fnj(Thing) = ~j
    flag propagating
    rel app_r0(Thing)
    rel appS_r0(Thing)
    rel app_r1(Thing)
    rel appS_r1(Thing)
    rel app_r2(Thing)
    rel appS_r2(Thing)
    rel D_q(Thing)
    rel P_q(Thing)
    rel S_q(Thing)
    rel cand_q(Thing)
    rel ok_q_r1(Thing)
    rel ok_q_r2(Thing)
    rel D_nq(Thing)
    rel P_nq(Thing)
    rel S_nq(Thing)
    rel cand_nq(Thing)
    rel ok_nq_r0(Thing)
    rel dom_Thing(Thing)
    rel undecided_j(Thing)
";

fn app(rule: u32, level: Level) -> Meaning {
    Meaning::Applicable {
        rule,
        level,
        world: World::Certain,
        reads: vec![Some(Read {
            level,
            world: World::Certain,
        })],
    }
}

/// Not established discards only under blocking, not supported under both.
fn discarded(attacker: u32, level: Level) -> Meaning {
    Meaning::Discarded {
        attacker,
        level,
        under: (level == Level::Defeasible).then_some(Policy::Blocking),
    }
}

fn overlay() -> Program {
    use Level::{Defeasible as D, Supported as S};
    let mut p = program(
        DECLS,
        &[
            ("app_r0(X) :- fa(X).", app(0, D)),
            ("appS_r0(X) :- fa(X).", app(0, S)),
            ("app_r1(X) :- fb(X).", app(1, D)),
            ("appS_r1(X) :- fb(X).", app(1, S)),
            ("app_r2(X) :- fc(X).", app(2, D)),
            ("appS_r2(X) :- fc(X).", app(2, S)),
            ("S_q(X) :- D_q(X).", Meaning::FromDefinite),
            ("P_q(X) :- D_q(X).", Meaning::FromDefinite),
            ("S_q(X) :- appS_r0(X).", Meaning::Supports { rule: 0 }),
            ("cand_q(X) :- app_r0(X).", Meaning::Candidate { rule: 0 }),
            ("ok_q_r1(X) :- cand_q(X), !appS_r1(X).", discarded(1, S)),
            (
                "ok_q_r1(X) :- cand_q(X), !app_r1(X), !propagating().",
                discarded(1, D),
            ),
            ("ok_q_r2(X) :- cand_q(X), !appS_r2(X).", discarded(2, S)),
            (
                "ok_q_r2(X) :- cand_q(X), !app_r2(X), !propagating().",
                discarded(2, D),
            ),
            (
                "ok_q_r2(X) :- app_r0(X).",
                Meaning::Defeated {
                    attacker: 2,
                    by: 0,
                    priority: 0,
                },
            ),
            (
                "P_q(X) :- cand_q(X), ok_q_r1(X), ok_q_r2(X).",
                Meaning::Established {
                    attackers: vec![
                        Attack {
                            rule: 1,
                            item: 1,
                            blocks: true,
                            beats: Vec::new(),
                        },
                        Attack {
                            rule: 2,
                            item: 2,
                            blocks: false,
                            beats: Vec::new(),
                        },
                    ],
                },
            ),
            ("S_nq(X) :- D_nq(X).", Meaning::FromDefinite),
            ("P_nq(X) :- D_nq(X).", Meaning::FromDefinite),
            ("S_nq(X) :- appS_r2(X).", Meaning::Supports { rule: 2 }),
            ("cand_nq(X) :- app_r2(X).", Meaning::Candidate { rule: 2 }),
            ("ok_nq_r0(X) :- cand_nq(X), !appS_r0(X).", discarded(0, S)),
            (
                "ok_nq_r0(X) :- cand_nq(X), !app_r0(X), !propagating().",
                discarded(0, D),
            ),
            (
                "P_nq(X) :- cand_nq(X), ok_nq_r0(X).",
                Meaning::Established {
                    attackers: vec![Attack {
                        rule: 0,
                        item: 1,
                        blocks: false,
                        beats: vec![Beat {
                            rule: 2,
                            priority: 0,
                        }],
                    }],
                },
            ),
            ("dom_Thing(X) :- fa(X).", Meaning::Domain),
            ("dom_Thing(X) :- fb(X).", Meaning::Domain),
            (
                "undecided_j(X) :- dom_Thing(X), !fj(X), !fnj(X).",
                Meaning::Undecided {
                    pred: PredId(4),
                    domain: Vec::new(),
                },
            ),
        ],
    );
    let rel = |name: &str| {
        RelId(
            p.relations
                .iter()
                .position(|r| r.name == name)
                .unwrap_or_else(|| panic!("{name}")) as u32,
        )
    };
    let lit = |pred: u32, negative: bool| Lit {
        pred: PredId(pred),
        negative,
    };
    let dom = rel("dom_Thing");
    for r in &mut p.rules {
        if let Meaning::Undecided { domain, .. } = &mut r.meaning {
            *domain = vec![Domain::Relation(dom)];
        }
    }
    // Which relation holds each literal at each level in each world (one
    // world: no judgment is in `q`'s past); facts serve every level.
    let mut views = Vec::new();
    for (l, d, pr, s) in [
        (lit(0, false), "fa", "fa", "fa"),
        (lit(1, false), "fb", "fb", "fb"),
        (lit(2, false), "fc", "fc", "fc"),
        (lit(3, false), "D_q", "P_q", "S_q"),
        (lit(3, true), "D_nq", "P_nq", "S_nq"),
        (lit(4, false), "fj", "fj", "fj"),
        (lit(4, true), "fnj", "fnj", "fnj"),
    ] {
        for world in [World::Certain, World::Possible] {
            for (level, r) in [
                (Level::Definite, d),
                (Level::Defeasible, pr),
                (Level::Supported, s),
            ] {
                views.push(View {
                    lit: l,
                    level,
                    world,
                    rel: rel(r),
                });
            }
        }
    }
    p.views = views;
    for (l, d, pr, s) in [
        (lit(3, false), "D_q", "P_q", "S_q"),
        (lit(3, true), "D_nq", "P_nq", "S_nq"),
        (lit(4, false), "fj", "fj", "fj"),
    ] {
        for (section, r) in [
            (Section::Definitely, d),
            (Section::Defeasibly, pr),
            (Section::Supported, s),
        ] {
            p.outputs.push(Output {
                section,
                lit: l,
                rel: rel(r),
                minus: None,
                on: Vec::new(),
            });
        }
    }
    let source = |pred: u32, negative: bool| SourceAtom {
        lit: lit(pred, negative),
        args: vec![Term::Var(0)],
    };
    let rule = |name: &str, strength, head, body: SourceAtom| RuleInfo {
        id: format!("urn:t#{name}"),
        local: name.into(),
        strength,
        head,
        body: vec![SourceItem::Status {
            status: Status::Established,
            atom: body,
        }],
        vars: vec!["X".into()],
        labels: Vec::new(),
        anchors: Vec::new(),
        package: 0,
    };
    p.catalog.rules = vec![
        rule(
            "r0",
            Strength::Defeasible,
            source(3, false),
            source(0, false),
        ),
        rule("r1", Strength::Defeater, source(3, true), source(1, false)),
        rule(
            "r2",
            Strength::Defeasible,
            source(3, true),
            source(2, false),
        ),
    ];
    p.catalog.priorities = vec![PriorityInfo {
        id: "urn:t#special".into(),
        local: "special".into(),
        higher: 0,
        lower: 2,
        reason: Some("lex_specialis".into()),
        labels: Vec::new(),
        package: 0,
    }];
    p
}

/// Explains `query` on `facts_text` under `policy` and compares the text.
fn check(facts_text: &str, query: &str, policy: Policy, expect: &str) {
    let p = overlay();
    let store = evaluate(&p, &facts(&p, facts_text), policy);
    let q = parse_query(&p.catalog, query).unwrap();
    let got = explain(&p, &store, policy, &q, "en").text();
    let want: String = expect
        .trim()
        .lines()
        .map(|l| format!("{}\n", l.trim_start_matches("        ")))
        .collect();
    assert_eq!(got, want, "\n{got}");
}

#[test]
fn an_established_literal_names_its_rule_and_each_attacker() {
    check(
        "a(x).",
        "q(x)",
        Policy::Blocking,
        "
        q(x): DEFEASIBLY holds (not definitely)
        └─ rule r0 (defeasible)
           ├─ a(x): given as a fact
           └─ attackers (rules for ~q):
              ├─ r1 (defeater): discarded — b(x) is not established
              └─ r2 (defeasible): discarded — c(x) is not established
        ",
    );
}

/// The priority is the one lowering recorded for the defeat.
#[test]
fn a_defeated_attacker_names_the_priority() {
    check(
        "a(x). c(x).",
        "q(x)",
        Policy::Blocking,
        "
        q(x): DEFEASIBLY holds (not definitely)
        └─ rule r0 (defeasible)
           ├─ a(x): given as a fact
           └─ attackers (rules for ~q):
              ├─ r1 (defeater): discarded — b(x) is not established
              └─ r2 (defeasible): defeated by r0 under priority special (lex_specialis)
        ",
    );
}

/// An attacker that wins says whom it beats, under which priority.
#[test]
fn a_prevailing_attacker_names_the_rules_it_beats() {
    check(
        "a(x). c(x).",
        "~q(x)",
        Policy::Blocking,
        "
        ~q(x): only SUPPORTED (there are grounds, but it is not established)
        ├─ rule r2 (defeasible)
        │  └─ c(x): given as a fact
        └─ why it is not established:
           └─ r0 (defeasible): applies and is not defeated; r2 is defeated by r0 under priority special (lex_specialis)
              └─ a(x): given as a fact
        ",
    );
}

/// A defeater that applies blocks the literal, and concludes nothing.
#[test]
fn a_defeater_blocks() {
    check(
        "a(x). b(x).",
        "q(x)",
        Policy::Blocking,
        "
        q(x): only SUPPORTED (there are grounds, but it is not established)
        ├─ rule r0 (defeasible)
        │  └─ a(x): given as a fact
        └─ why it is not established:
           └─ r1 (defeater): applies and is not defeated (a defeater: it blocks the conclusion without concluding the opposite)
              └─ b(x): given as a fact
        ",
    );
    check(
        "a(x). b(x).",
        "~q(x)",
        Policy::Blocking,
        "
        ~q(x): NOT CONCLUDED
        └─ rule r2 (defeasible): does not apply — c(x) is not established
           └─ c(x): not concluded
              └─ it is not given as a fact
        ",
    );
}

/// What does not hold: each rule's first failing item, with its values.
#[test]
fn a_literal_not_concluded_names_the_failing_item() {
    check(
        "b(y).",
        "q(y)",
        Policy::Propagating,
        "
        q(y): NOT CONCLUDED
        └─ rule r0 (defeasible): does not apply — a(y) is not established
           └─ a(y): not concluded
              └─ it is not given as a fact
        ",
    );
}

/// The same why-not, typed: the nodes carry the literal's id and values,
/// and the text is made from them only when rendered.
#[test]
fn a_why_not_carries_ids_and_values() {
    let p = overlay();
    let store = evaluate(&p, &facts(&p, "b(y)."), Policy::Propagating);
    let q = parse_query(&p.catalog, "q(y)").unwrap();
    let e = explain(&p, &store, Policy::Propagating, &q, "en");
    let y = || Some(Value::Entity("y".into()));
    assert_eq!(e.literal.lit, q.lit);
    assert_eq!(e.literal.args, vec![y()]);
    let a = parse_query(&p.catalog, "a(y)").unwrap().lit;
    let [Node {
        kind: NodeKind::Unsatisfied { rule, item, .. },
        children,
        ..
    }] = e.tree.as_slice()
    else {
        panic!("one rule that does not apply:\n{e}");
    };
    assert_eq!(rule.name, "r0");
    let Condition::Holds(atom) = item else {
        panic!("a status item: {item:?}");
    };
    assert_eq!((atom.lit, atom.args.clone()), (a, vec![y()]));
    assert_eq!(children[0].literal.as_ref(), Some(atom));
    assert_eq!(item.text("en"), "a(y)");
}

/// A judgment atom over the domain (what `a` and `b` mention) is
/// undecided; one over a value nothing mentions is simply not decided.
#[test]
fn the_judgment_domain_is_lowerings_dom_relation() {
    check(
        "a(x).",
        "j(x)",
        Policy::Blocking,
        "
        j(x): UNDECIDED judgment (no decision is requested: no rule needs it here)
        └─ undecided judgment — not requested from Arbiter (decide): no rule instance whose other items may hold reads it
        ",
    );
    check(
        "a(x).",
        "j(nobody)",
        Policy::Blocking,
        "
        j(nobody): NOT CONCLUDED
        └─ not decided
        ",
    );
    check(
        "a(x). ~j(x).",
        "j(x)",
        Policy::Blocking,
        "
        j(x): NOT CONCLUDED
        └─ decided the other way: ~j(x) is given
        ",
    );
}

/// Where lowering made no `dom[T]`, the domain is the input columns it
/// recorded (and the constants): here only what `b` mentions, so a value
/// `a` alone mentions is not in it, though `dom_Thing` holds it.
#[test]
fn the_judgment_domain_is_the_input_columns_lowering_recorded() {
    let mut p = overlay();
    let fb = RelId(p.relations.iter().position(|r| r.name == "fb").unwrap() as u32);
    for r in &mut p.rules {
        if let Meaning::Undecided { domain, .. } = &mut r.meaning {
            *domain = vec![Domain::Inputs(vec![(fb, 0)])];
        }
    }
    let store = evaluate(&p, &facts(&p, "a(x). b(y)."), Policy::Blocking);
    let text = |query: &str| {
        let q = parse_query(&p.catalog, query).unwrap();
        explain(&p, &store, Policy::Blocking, &q, "en").text()
    };
    assert_eq!(
        text("j(y)"),
        "j(y): UNDECIDED judgment (no decision is requested: no rule needs it here)\n\
         └─ undecided judgment — not requested from Arbiter (decide): no rule instance whose other items may hold reads it\n"
    );
    assert_eq!(text("j(x)"), "j(x): NOT CONCLUDED\n└─ not decided\n");
}

/// Explaining reads rule bodies from their given head, by columns
/// evaluation did not index: the finished store indexes them once, so the
/// next explanation looks them up instead of scanning each relation (what
/// keeps `lawgen verdicts` linear in the literals it explains). The same
/// answers either way.
#[test]
fn explanations_index_a_finished_store_once() {
    let p = overlay();
    let store = evaluate(&p, &facts(&p, "a(x). a(y). b(y). c(z)."), Policy::Blocking);
    let late = || store.late_index_count();
    let explain_all = || -> Vec<String> {
        ["q(x)", "q(y)", "q(z)", "~q(y)"]
            .iter()
            .map(|query| {
                let q = parse_query(&p.catalog, query).unwrap();
                explain(&p, &store, Policy::Blocking, &q, "en").text()
            })
            .collect()
    };
    let before = late();
    let first = explain_all();
    let built = late();
    assert!(built > before, "no lookup was indexed");
    let again = explain_all();
    assert_eq!(late(), built, "an index was built twice");
    assert_eq!(first, again);
}

/// The typed accessor names the rule at the top of the tree, concluding or
/// supporting, and nothing for a literal no rule concludes: what a caller reads without parsing the
/// JSON.
#[test]
fn deciding_rules_are_the_rules_at_the_top_of_the_tree() {
    let p = overlay();
    let policy = Policy::Blocking;
    let store = evaluate(&p, &facts(&p, "a(x). c(x)."), policy);
    let explained = |query: &str| {
        explain(
            &p,
            &store,
            policy,
            &parse_query(&p.catalog, query).unwrap(),
            "en",
        )
    };
    let q = explained("q(x)");
    let names: Vec<&str> = q.deciding_rules().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["r0"], "{}", q.text());
    // Only supported: the rule that supports it.
    let not_q = explained("~q(x)");
    let names: Vec<&str> = not_q.deciding_rules().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["r2"], "{}", not_q.text());
    let other = explained("q(y)");
    assert_eq!(other.deciding_rules().count(), 0, "{}", other.text());
}
