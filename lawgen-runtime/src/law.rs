//! The law as of a date (docs/reference.md#as-of-evaluation): the works and
//! dated editions of a package's import closure, which edition of each work
//! is in force on a date, and the in-force inputs of a lowered program.
//!
//! Lowering decides, once, which rules, priorities and derogations depend on
//! the date, and gives each distinct condition one nullary input relation (a
//! [`Gate`], [`crate::program::Role::InForce`]). A case's date sets those
//! inputs and nothing else: the engines read them as they read facts, so an
//! evaluation as of a date needs no special case anywhere. A condition that
//! holds on every date a case can have (the rules of a work with one
//! edition) has no input at all, so a package with one edition costs nothing.

#[cfg(feature = "data")]
use serde::{Deserialize, Serialize};
use std::fmt;

use crate::program::Label;

/// A calendar date, `YYYY-MM-DD`, held as the number `YYYYMMDD` (so that
/// the order of the numbers is the order of the dates).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Date(pub u32);

impl Date {
    /// Reads `YYYY-MM-DD` (a real calendar date, years 0001–9999), or `None`.
    pub fn parse(s: &str) -> Option<Date> {
        let b = s.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        let num = |r: std::ops::Range<usize>| -> Option<u32> {
            b[r].iter().try_fold(0u32, |acc, &c| {
                c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0'))
            })
        };
        let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        if y == 0 || !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
            return None;
        }
        Some(Date(y * 10000 + m * 100 + d))
    }

    /// The year, month and day.
    pub fn ymd(self) -> (u32, u32, u32) {
        (self.0 / 10000, self.0 / 100 % 100, self.0 % 100)
    }

    /// The day before (`None` before 0001-01-01).
    pub fn pred(self) -> Option<Date> {
        let (y, m, d) = self.ymd();
        if d > 1 {
            Some(Date(self.0 - 1))
        } else if m > 1 {
            Some(Date(y * 10000 + (m - 1) * 100 + days_in_month(y, m - 1)))
        } else if y > 1 {
            Some(Date((y - 1) * 10000 + 1231))
        } else {
            None
        }
    }

    /// The day after (`None` after 9999-12-31).
    pub fn succ(self) -> Option<Date> {
        let (y, m, d) = self.ymd();
        if d < days_in_month(y, m) {
            Some(Date(self.0 + 1))
        } else if m < 12 {
            Some(Date(y * 10000 + (m + 1) * 100 + 1))
        } else if y < 9999 {
            Some(Date((y + 1) * 10000 + 101))
        } else {
            None
        }
    }
}

fn days_in_month(y: u32, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (y, m, d) = self.ymd();
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

/// A work of the closure that some dated edition belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct WorkInfo {
    /// Full id.
    pub id: String,
    /// Local name (what the canonical output's `editions` says).
    pub local: String,
    /// A rule of the closure is anchored to one of its dated editions: on a
    /// date none of them is in force, no case can be judged.
    pub required: bool,
}

/// A dated edition (one with an `in_force` entry).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct EditionInfo {
    /// Full id.
    pub id: String,
    /// Local name.
    pub local: String,
    /// Its work (index into [`Law::works`]).
    pub work: u32,
    /// Its `in_force` extents, sorted.
    pub in_force: Vec<Date>,
    /// Its `repealed` extents, sorted.
    pub repealed: Vec<Date>,
    /// Its labels, in every language.
    #[cfg_attr(
        feature = "data",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub labels: Vec<Label>,
}

/// The condition of one in-force input: it holds on a date when some
/// edition of `any` is in force (or `any` is empty) and, for each set of
/// `none`, no edition of it is (a derogation in force sets the rule aside).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Gate {
    /// Editions (indices into [`Law::editions`]), sorted.
    pub any: Vec<u32>,
    /// Sets of editions, each sorted; the list sorted.
    #[cfg_attr(
        feature = "data",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub none: Vec<Vec<u32>>,
}

/// The dated law of a closure.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "data", derive(Serialize, Deserialize))]
pub struct Law {
    /// Works with dated editions, sorted by local name, then id.
    pub works: Vec<WorkInfo>,
    /// Dated editions.
    pub editions: Vec<EditionInfo>,
    /// The conditions of the program's in-force inputs.
    #[cfg_attr(
        feature = "data",
        serde(default, skip_serializing_if = "Vec::is_empty")
    )]
    pub gates: Vec<Gate>,
}

/// What is in force on one date.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InForce {
    /// The date (`None`: the closure has no dated edition).
    pub date: Option<Date>,
    /// Per edition of [`Law::editions`]: the extent it entered into force,
    /// if it is in force on the date.
    pub editions: Vec<Option<Date>>,
    /// Per gate of [`Law::gates`]: does it hold?
    pub gates: Vec<bool>,
}

impl InForce {
    /// Is edition `e` in force?
    pub fn edition(&self, e: u32) -> bool {
        self.editions.get(e as usize).is_some_and(Option::is_some)
    }
}

/// One row of the canonical output's `editions`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct EditionInForce {
    /// The work's local name.
    pub work: String,
    /// The edition's local name.
    pub edition: String,
    /// The extent it entered into force (`YYYY-MM-DD`).
    pub in_force: String,
}

/// A period during which an edition of a work is in force: from `from`
/// until the day before `until` (`None`: still in force).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Period {
    /// The edition (index into [`Law::editions`]).
    pub edition: u32,
    /// Its first day.
    pub from: Date,
    /// The first day it is no longer in force.
    pub until: Option<Date>,
}

/// No edition of a work some rule is anchored to is in force on the date.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoLaw {
    /// The work's full id.
    pub work: String,
    /// The work's local name.
    pub work_local: String,
    /// The date.
    pub date: Date,
    /// When the work does have an edition in force.
    pub periods: Vec<(Date, Option<Date>)>,
}

impl fmt::Display for NoLaw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no edition of the work `{}` is in force on {}",
            self.work_local, self.date
        )?;
        if self.periods.is_empty() {
            return f.write_str(": it has no date on which an edition is in force");
        }
        f.write_str(": it has an edition in force ")?;
        for (i, (from, until)) in self.periods.iter().enumerate() {
            if i > 0 {
                f.write_str(if i + 1 == self.periods.len() {
                    " and "
                } else {
                    ", "
                })?;
            }
            match until.and_then(Date::pred) {
                Some(last) => write!(f, "from {from} to {last}")?,
                None => write!(f, "from {from}")?,
            }
        }
        Ok(())
    }
}

/// A work as generated code lists it: id, local name, required.
pub type WorkRow = (&'static str, &'static str, bool);
/// An edition as generated code lists it: id, local name, work, `in_force`
/// and `repealed` extents (`YYYYMMDD`).
pub type EditionRow = (
    &'static str,
    &'static str,
    u32,
    &'static [u32],
    &'static [u32],
);
/// A gate as generated code lists it: `any`, `none`.
pub type GateRow = (&'static [u32], &'static [&'static [u32]]);

impl Law {
    /// The law of a generated module, from the tables it embeds (built once
    /// per module, on first use).
    pub fn from_tables(works: &[WorkRow], editions: &[EditionRow], gates: &[GateRow]) -> Law {
        Law {
            works: works
                .iter()
                .map(|&(id, local, required)| WorkInfo {
                    id: id.to_owned(),
                    local: local.to_owned(),
                    required,
                })
                .collect(),
            editions: editions
                .iter()
                .map(|&(id, local, work, in_force, repealed)| EditionInfo {
                    id: id.to_owned(),
                    local: local.to_owned(),
                    work,
                    in_force: in_force.iter().map(|&d| Date(d)).collect(),
                    repealed: repealed.iter().map(|&d| Date(d)).collect(),
                    labels: Vec::new(),
                })
                .collect(),
            gates: gates
                .iter()
                .map(|&(any, none)| Gate {
                    any: any.to_vec(),
                    none: none.iter().map(|s| s.to_vec()).collect(),
                })
                .collect(),
        }
    }

    /// Nothing dated and no gate (what a program lowered before editions
    /// were read has, and encodes as).
    pub fn is_empty(&self) -> bool {
        self.works.is_empty() && self.editions.is_empty() && self.gates.is_empty()
    }

    /// Does the closure date anything?
    pub fn is_dated(&self) -> bool {
        !self.editions.is_empty()
    }

    /// The package's current date: the latest `in_force` extent of its
    /// editions (`None`: nothing is dated).
    pub fn current(&self) -> Option<Date> {
        self.editions
            .iter()
            .flat_map(|e| e.in_force.iter().copied())
            .max()
    }

    /// The extent edition `e` entered into force as of `d`, if it is in
    /// force on `d`: an `in_force` extent `x ≤ d` such that no other edition
    /// of its work entered into force in `(x, d]`, and no `repealed` extent
    /// `≤ d`.
    pub fn in_force_since(&self, e: u32, d: Date) -> Option<Date> {
        let ed = &self.editions[e as usize];
        if ed.repealed.iter().any(|&r| r <= d) {
            return None;
        }
        let x = ed.in_force.iter().copied().filter(|&x| x <= d).max()?;
        let superseded = self.editions.iter().enumerate().any(|(j, o)| {
            j as u32 != e && o.work == ed.work && o.in_force.iter().any(|&y| x < y && y <= d)
        });
        (!superseded).then_some(x)
    }

    /// Every period during which some edition of work `w` is in force, in
    /// order (adjacent periods of different editions stay apart).
    pub fn periods(&self, w: u32) -> Vec<Period> {
        // Every day on which the answer can change: an entry into force or
        // a repeal of an edition of the work.
        let mut days: Vec<Date> = self
            .editions
            .iter()
            .filter(|e| e.work == w)
            .flat_map(|e| e.in_force.iter().chain(&e.repealed).copied())
            .collect();
        days.sort();
        days.dedup();
        // Between two such days the edition in force stays the same.
        let mut out: Vec<Period> = Vec::new();
        for &d in &days {
            let now = (0..self.editions.len() as u32)
                .filter(|&e| self.editions[e as usize].work == w)
                .find(|&e| self.in_force_since(e, d).is_some());
            let open = out.last().filter(|p| p.until.is_none()).map(|p| p.edition);
            if open == now {
                continue;
            }
            if let Some(last) = out.last_mut().filter(|p| p.until.is_none()) {
                last.until = Some(d);
            }
            if let Some(e) = now {
                out.push(Period {
                    edition: e,
                    from: d,
                    until: None,
                });
            }
        }
        out
    }

    /// What is in force on `d` (`None`: the package's current date), or the
    /// first required work with no edition in force then.
    pub fn on(&self, d: Option<Date>) -> Result<InForce, NoLaw> {
        let Some(d) = d.or_else(|| self.current()) else {
            return Ok(InForce {
                date: None,
                editions: Vec::new(),
                gates: vec![true; self.gates.len()],
            });
        };
        if !self.is_dated() {
            return Ok(InForce {
                date: None,
                editions: Vec::new(),
                gates: vec![true; self.gates.len()],
            });
        }
        let editions: Vec<Option<Date>> = (0..self.editions.len() as u32)
            .map(|e| self.in_force_since(e, d))
            .collect();
        for (w, work) in self.works.iter().enumerate() {
            if !work.required {
                continue;
            }
            let any = self
                .editions
                .iter()
                .zip(&editions)
                .any(|(e, x)| e.work == w as u32 && x.is_some());
            if !any {
                return Err(NoLaw {
                    work: work.id.clone(),
                    work_local: work.local.clone(),
                    date: d,
                    periods: merge(self.periods(w as u32)),
                });
            }
        }
        let on = |e: &u32| editions[*e as usize].is_some();
        let gates = self
            .gates
            .iter()
            .map(|g| {
                (g.any.is_empty() || g.any.iter().any(on))
                    && !g.none.iter().any(|s| s.iter().any(on))
            })
            .collect();
        Ok(InForce {
            date: Some(d),
            editions,
            gates,
        })
    }

    /// The canonical output's `editions` on `f`: for each required work, the
    /// edition in force, sorted by work.
    pub fn rows(&self, f: &InForce) -> Vec<EditionInForce> {
        let mut out: Vec<EditionInForce> = Vec::new();
        for (e, since) in self.editions.iter().zip(&f.editions) {
            let (Some(since), Some(w)) = (since, self.works.get(e.work as usize)) else {
                continue;
            };
            if !w.required {
                continue;
            }
            out.push(EditionInForce {
                work: w.local.clone(),
                edition: e.local.clone(),
                in_force: since.to_string(),
            });
        }
        out.sort();
        out
    }

    /// The period of edition `e` that contains `d`, or else its first one
    /// (for "in force from … to …").
    pub fn period_of(&self, e: u32, d: Option<Date>) -> Option<Period> {
        let w = self.editions.get(e as usize)?.work;
        let ps: Vec<Period> = self
            .periods(w)
            .into_iter()
            .filter(|p| p.edition == e)
            .collect();
        d.and_then(|d| {
            ps.iter()
                .find(|p| p.from <= d && p.until.is_none_or(|u| d < u))
                .cloned()
        })
        .or_else(|| {
            // The period nearest after d, else the last one before it.
            d.and_then(|d| ps.iter().find(|p| p.from > d).cloned())
                .or_else(|| ps.last().cloned())
        })
    }
}

/// Adjacent periods of successive editions as one.
fn merge(ps: Vec<Period>) -> Vec<(Date, Option<Date>)> {
    let mut out: Vec<(Date, Option<Date>)> = Vec::new();
    for p in ps {
        match out.last_mut() {
            Some(last) if last.1 == Some(p.from) => last.1 = p.until,
            _ => out.push((p.from, p.until)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Date {
        Date::parse(s).unwrap()
    }

    fn law(editions: &[(&str, u32, &[&str], &[&str])], works: usize) -> Law {
        Law {
            works: (0..works)
                .map(|w| WorkInfo {
                    id: format!("urn:x#W{w}"),
                    local: format!("W{w}"),
                    required: true,
                })
                .collect(),
            editions: editions
                .iter()
                .map(|(name, w, inf, rep)| EditionInfo {
                    id: format!("urn:x#{name}"),
                    local: (*name).to_owned(),
                    work: *w,
                    in_force: inf.iter().map(|s| d(s)).collect(),
                    repealed: rep.iter().map(|s| d(s)).collect(),
                    labels: Vec::new(),
                })
                .collect(),
            gates: Vec::new(),
        }
    }

    #[test]
    fn dates_parse_only_real_days() {
        assert_eq!(d("2024-02-29").to_string(), "2024-02-29");
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2023-13-01",
            "2023-00-10",
            "2023-04-31",
            "0000-01-01",
            "2023-1-01",
            "2023/01/01",
            "２023-01-01",
            "",
            "2023-01-01T00:00",
        ] {
            assert_eq!(Date::parse(bad), None, "{bad}");
        }
        assert_eq!(d("2000-02-29").to_string(), "2000-02-29");
        assert_eq!(d("2023-01-01").pred(), Some(d("2022-12-31")));
        assert_eq!(d("2024-03-01").pred(), Some(d("2024-02-29")));
        assert_eq!(d("2022-12-31").succ(), Some(d("2023-01-01")));
        assert_eq!(d("2023-02-28").succ(), Some(d("2023-03-01")));
    }

    #[test]
    fn the_later_edition_replaces_the_earlier_and_a_repeal_ends_it() {
        let l = law(
            &[
                ("E2017", 0, &["2017-07-01"], &[]),
                ("E2023", 0, &["2023-01-01"], &["2030-01-01"]),
            ],
            1,
        );
        let on = |s: &str| l.on(Some(d(s)));
        assert!(on("2017-06-30").is_err());
        let f = on("2017-07-01").unwrap();
        assert_eq!(f.editions, vec![Some(d("2017-07-01")), None]);
        let f = on("2022-12-31").unwrap();
        assert!(f.edition(0) && !f.edition(1));
        let f = on("2023-01-01").unwrap();
        assert!(!f.edition(0) && f.edition(1));
        let err = on("2030-01-01").unwrap_err();
        assert_eq!(
            err.to_string(),
            "no edition of the work `W0` is in force on 2030-01-01: it has an edition in force from 2017-07-01 to 2029-12-31"
        );
        let err = on("2000-01-01").unwrap_err();
        assert!(err.to_string().ends_with("from 2017-07-01 to 2029-12-31"));
        assert_eq!(l.current(), Some(d("2023-01-01")));
        assert_eq!(
            l.period_of(0, Some(d("2019-05-01"))),
            Some(Period {
                edition: 0,
                from: d("2017-07-01"),
                until: Some(d("2023-01-01"))
            })
        );
    }

    #[test]
    fn an_edition_repealed_before_the_next_leaves_a_gap() {
        let l = law(
            &[
                ("A", 0, &["2010-01-01"], &["2012-01-01"]),
                ("B", 0, &["2015-01-01"], &[]),
            ],
            1,
        );
        assert!(l.on(Some(d("2013-01-01"))).is_err());
        assert_eq!(
            l.on(Some(d("2013-01-01"))).unwrap_err().to_string(),
            "no edition of the work `W0` is in force on 2013-01-01: it has an edition in force from 2010-01-01 to 2011-12-31 and from 2015-01-01"
        );
        // A repeal of the earlier edition after the later one took over
        // changes nothing.
        let l = law(
            &[
                ("A", 0, &["2010-01-01"], &["2020-01-01"]),
                ("B", 0, &["2015-01-01"], &[]),
            ],
            1,
        );
        let f = l.on(Some(d("2021-01-01"))).unwrap();
        assert!(!f.edition(0) && f.edition(1));
        assert_eq!(
            l.on(Some(d("2014-12-31"))).unwrap().editions[0],
            Some(d("2010-01-01"))
        );
    }

    #[test]
    fn gates_read_any_and_none() {
        let mut l = law(
            &[
                ("A", 0, &["2010-01-01"], &[]),
                ("B", 0, &["2015-01-01"], &[]),
                ("C", 1, &["2012-01-01"], &[]),
            ],
            2,
        );
        l.gates = vec![
            Gate {
                any: vec![0],
                none: vec![],
            },
            Gate {
                any: vec![],
                none: vec![vec![1]],
            },
            Gate {
                any: vec![0, 1],
                none: vec![vec![2]],
            },
        ];
        let f = l.on(Some(d("2013-01-01"))).unwrap();
        assert_eq!(f.gates, vec![true, true, false]);
        let f = l.on(Some(d("2016-01-01"))).unwrap();
        assert_eq!(f.gates, vec![false, false, false]);
        assert!(l.on(Some(d("2011-01-01"))).is_err());
    }
}
