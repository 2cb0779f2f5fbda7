//! Arrow: the columnar layout of facts and verdicts (docs/python.md). A
//! case's facts are read by the runtime's Arrow reader into the generated
//! `Facts`; its conclusions are read, as ids, through the runtime's layout of
//! the canonical output, and written as verdict rows.

use crate::Package;
use arrow_array::builder::{Int64Builder, StringBuilder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use lawgen_runtime::__private::Embedded;
use lawgen_runtime::arrow::{BatchError, FactKeys, FactsColumns, Sink};
use lawgen_runtime::interp::Layout;
use lawgen_runtime::program::{Program, RelId, Ty};
use lawgen_runtime::Policy;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Why `evaluate_arrow` refused a batch (a case that does not fit the
/// package is not refused: it gets an `error` row).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArrowError {
    /// A column of the wrong Arrow type (Python: `TypeError`).
    Type(String),
    /// A value the layout does not allow (Python: `ValueError`).
    Value(String),
    /// A lawgen bug (Python: `LawgenError`).
    Internal(String),
}

impl From<BatchError> for ArrowError {
    fn from(e: BatchError) -> ArrowError {
        match e {
            BatchError::Type(m) => ArrowError::Type(m),
            BatchError::Value(m) => ArrowError::Value(m),
        }
    }
}

impl std::fmt::Display for ArrowError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ArrowError::Type(m) | ArrowError::Value(m) | ArrowError::Internal(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ArrowError {}

/// The checked model and lowered program of the package, read once from the
/// text the generated module embeds: the relation numbers the generated
/// `Facts` takes rows by, and the layout of the canonical output.
pub(crate) struct Shared {
    pub(crate) program: &'static Program,
    /// Input relation and column types by the names a facts file may use,
    /// and the number of `e<i>`/`n<i>` column pairs.
    pub(crate) facts: FactKeys,
    /// By relation: does an institutional literal's section or a request
    /// read it? (The others hold input facts and closure-derived negatives
    /// of empirical predicates, which `evaluate_arrow` lists only when asked.)
    institutional: Vec<bool>,
    /// The name of every literal (`p`, `~p`) a section can hold and every
    /// judgment a request can name; verdict rows refer to them by index.
    lit_names: Vec<String>,
    /// The canonical output's layout, and for each of its entries, the
    /// index of its literal in `lit_names` and whether it is institutional.
    layout: Layout,
    entry_lits: Vec<(u32, bool)>,
    /// For each request view, the index of its predicate in `lit_names`.
    request_lits: Vec<u32>,
    /// The sizes of the last case's [`CaseRows`] (rows, slots, text bytes),
    /// which the next case's start with: cases of one batch are alike, and
    /// growing three buffers from empty was a tenth of the cost of reading
    /// a case's verdicts. The last case's, not the largest's, so that one
    /// large case does not make every later one allocate as much.
    sizes: [AtomicUsize; 3],
}

impl Shared {
    /// Reads the program a generated module embeds (decoded once, by the
    /// runtime) and the lookup tables of the layout.
    pub(crate) fn new(embedded: &'static Embedded) -> Result<Shared, String> {
        let program =
            lawgen_runtime::__private::embedded_program(embedded).map_err(|e| e.to_string())?;
        let model = &program.catalog;
        let mut institutional = vec![false; program.relations.len()];
        let mut lits: HashMap<String, (u32, bool)> = HashMap::new();
        let mut lit_names = Vec::new();
        let mut lit = |name: String, inst: bool| {
            let next = lit_names.len() as u32;
            let e = lits.entry(name.clone()).or_insert_with(|| {
                lit_names.push(name);
                (next, inst)
            });
            e.1 |= inst;
        };
        for o in &program.outputs {
            let inst =
                model.pred(o.lit.pred).kind == lawgen_runtime::program::RelationKind::Institutional;
            if inst {
                institutional[o.rel.0 as usize] = true;
                if let Some(m) = o.minus {
                    institutional[m.0 as usize] = true;
                }
            }
            lit(model.lit_name(o.lit), inst);
        }
        for r in &program.requests {
            institutional[r.rel.0 as usize] = true;
            lit(model.pred(r.lit.pred).local.clone(), false);
        }
        let layout = Layout::new(program);
        let missing = |lit: &str| {
            format!("internal error in lawgen (please report): the literal `{lit}` is not among the package's outputs")
        };
        let entry_lits = layout
            .entries()
            .iter()
            .map(|e| {
                lits.get(&e.literal)
                    .copied()
                    .ok_or_else(|| missing(&e.literal))
            })
            .collect::<Result<Vec<_>, String>>()?;
        let request_lits = program
            .requests
            .iter()
            .map(|r| {
                let p = &model.pred(r.lit.pred).local;
                lits.get(p).map(|&(i, _)| i).ok_or_else(|| missing(p))
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Shared {
            program,
            facts: FactKeys::new(program),
            institutional,
            lit_names,
            layout,
            entry_lits,
            request_lits,
            sizes: Default::default(),
        })
    }
}

/// The generated `Facts` as the Arrow reader fills it.
struct FactsSink<P: Package>(P::Facts, PhantomData<fn() -> P>);

impl<P: Package> Sink for FactsSink<P> {
    fn intern(&mut self, name: &str) -> i64 {
        i64::from(P::intern(&mut self.0, name))
    }
    fn push(&mut self, rel: usize, row: &[i64]) {
        P::push(&mut self.0, rel, row)
    }
}

/// fit the package (the case's error is then [`case_error`]'s).
pub(crate) fn case_facts<P: Package>(
    s: &Shared,
    cols: &FactsColumns<'_>,
    rows: &[u32],
) -> Option<P::Facts> {
    let mut facts = FactsSink::<P>(P::new_facts(), PhantomData);
    s.facts.case_rows(cols, rows, &mut facts)?;
    // The case's date (`asOf`): one that is no date, has no law in force,
    // or two dates for one case get their message from `case_error`.
    if let Some(d) = cols.case_date(rows).ok()? {
        let d = lawgen_runtime::__private::Date::parse(d)?;
        P::as_of(&mut facts.0, d).ok()?;
    }
    Some(facts.0)
}

/// Lawgen's own message for a case [`case_facts`] refused: its rows are
/// written as a docs/reference.md#facts-files facts file and read by the package's reader, so an
/// Arrow case fails with the diagnostics a facts file with the same content
/// gets (the JSON pointers are into that file: `/facts/<predicate>/<row>`).
pub(crate) fn case_error<P: Package>(s: &Shared, cols: &FactsColumns<'_>, rows: &[u32]) -> String {
    let text = match s.facts.case_file(cols, rows) {
        Ok(text) => text,
        Err(message) => return message,
    };
    match P::facts_from_json(text.as_bytes()) {
        Err(e) => e.to_string(),
        Ok(_) => format!(
            "internal error in lawgen (please report): the Arrow reader refused a case that the facts reader accepts: {text}"
        ),
    }
}

/// What one case evaluated to: its verdict rows, or its error.
pub(crate) enum CaseOut {
    Rows(CaseRows),
    Failed(String),
}

/// A value of a verdict row: an entity name in [`CaseRows::text`], or an integer.
#[derive(Clone, Copy)]
enum Slot {
    Name(u32, u32),
    Int(i64),
}

/// One case's verdict rows, compact: made on the worker thread right after
/// the case is evaluated, from lawgen's reading of its conclusions, which is
/// dropped there while it is still in cache; the calling thread only copies
/// these into the batch.
pub(crate) struct CaseRows {
    /// (section, index into `Shared::lit_names`, first slot, number of slots).
    /// A request's slots end with its authority and capability.
    rows: Vec<(&'static str, u32, u32, u32)>,
    slots: Vec<Slot>,
    text: String,
}

impl CaseRows {
    fn name(&mut self, s: &str) -> Slot {
        let start = self.text.len() as u32;
        self.text.push_str(s);
        Slot::Name(start, self.text.len() as u32)
    }

    fn get(&self, slot: Slot) -> Result<&str, i64> {
        match slot {
            Slot::Name(a, b) => Ok(&self.text[a as usize..b as usize]),
            Slot::Int(v) => Err(v),
        }
    }
}

/// The verdict rows of `c`, in the canonical output's order: read through
/// the runtime's [`Layout`] of that output (the definition `to_json` reads
/// by) with the rows kept as ids, so that only the names of the rows listed
/// are copied, once, into the case's text. Without `all`, only institutional
/// literals and requests (the relations of the others are not even read).
pub(crate) fn case_rows<P: Package>(
    s: &Shared,
    c: &P::Conclusions,
    all: bool,
) -> Result<CaseRows, String> {
    let prog = s.program;
    let name = |id: i64| P::entity_name(c, id as u32).unwrap_or_default();
    // Rows of ids, ordered as the canonical output orders decoded rows:
    // integers numerically, entities by name.
    let order = |cols: &[Ty], a: &Vec<i64>, b: &Vec<i64>| {
        cols.iter()
            .zip(a.iter().zip(b))
            .map(|(ty, (&x, &y))| match ty {
                Ty::Int => x.cmp(&y),
                Ty::Entity(_) => name(x).cmp(name(y)),
            })
            .find(|o| o.is_ne())
            .unwrap_or_else(|| a.len().cmp(&b.len()))
    };
    let mut rows = |rel: RelId| {
        if !all && !s.institutional[rel.0 as usize] {
            return Vec::new();
        }
        P::rows(c, rel.0 as usize)
    };
    let [rows_hint, slots_hint, text_hint] = s.sizes.each_ref().map(|a| a.load(Ordering::Relaxed));
    let mut out = CaseRows {
        rows: Vec::with_capacity(rows_hint),
        slots: Vec::with_capacity(slots_hint),
        text: String::with_capacity(text_hint),
    };
    let push = |out: &mut CaseRows, cols: &[Ty], row: &[i64]| {
        for (ty, &v) in cols.iter().zip(row) {
            let slot = match ty {
                Ty::Int => Slot::Int(v),
                Ty::Entity(_) => out.name(name(v)),
            };
            out.slots.push(slot);
        }
    };
    for (e, &(li, institutional)) in s.layout.entries().iter().zip(&s.entry_lits) {
        if !(all || institutional) {
            continue;
        }
        let cols = &prog.relation(e.rel).columns;
        for row in s.layout.rows(prog, e, &mut rows, &|a, b| order(cols, a, b)) {
            let first = out.slots.len() as u32;
            push(&mut out, cols, &row);
            out.rows
                .push((e.section.as_str(), li, first, row.len() as u32));
        }
    }
    let requests = s.layout.requests(prog, &mut rows, &|rel, a, b| {
        order(&prog.relation(rel).columns, a, b)
    });
    for (i, args) in requests {
        let r = &prog.requests[i];
        let cols = &prog.relation(r.rel).columns;
        let first = out.slots.len() as u32;
        push(&mut out, cols, &args);
        let (a, k) = (out.name(&r.authority), out.name(&r.capability));
        out.slots.extend([a, k]);
        out.rows
            .push(("request", s.request_lits[i], first, args.len() as u32 + 2));
    }
    // Every case of the input appears in the output: one with no conclusion
    // and no request gets a `none` row.
    if out.rows.is_empty() {
        out.rows.push(("none", u32::MAX, 0, 0));
    }
    for (a, n) in s
        .sizes
        .iter()
        .zip([out.rows.len(), out.slots.len(), out.text.len()])
    {
        a.store(n, Ordering::Relaxed);
    }
    Ok(out)
}

/// The verdicts batch, built row by row.
pub(crate) struct Verdicts {
    case: Int64Builder,
    section: StringBuilder,
    literal: StringBuilder,
    entities: Vec<StringBuilder>,
    ints: Vec<Int64Builder>,
    authority: StringBuilder,
    capability: StringBuilder,
    message: StringBuilder,
    /// `asOf`, when the facts batch has the column: the date each row's
    /// case was judged as of.
    as_of: Option<StringBuilder>,
}

impl Verdicts {
    /// `dated`: the facts batch has an `asOf` column, and so does this.
    pub(crate) fn new(arity: usize, dated: bool) -> Verdicts {
        Verdicts {
            as_of: dated.then(StringBuilder::new),
            case: Int64Builder::new(),
            section: StringBuilder::new(),
            literal: StringBuilder::new(),
            entities: (0..arity).map(|_| StringBuilder::new()).collect(),
            ints: (0..arity).map(|_| Int64Builder::new()).collect(),
            authority: StringBuilder::new(),
            capability: StringBuilder::new(),
            message: StringBuilder::new(),
        }
    }

    /// The rows of one case, judged as of `date` (`YYYY-MM-DD`; `None`
    /// for a case whose date could not be read).
    pub(crate) fn add(&mut self, s: &Shared, case: i64, out: &CaseOut, date: Option<&str>) {
        if let Some(b) = &mut self.as_of {
            let rows = match out {
                CaseOut::Failed(_) => 1,
                CaseOut::Rows(c) => c.rows.len(),
            };
            for _ in 0..rows {
                b.append_option(date);
            }
        }
        match out {
            CaseOut::Failed(message) => {
                self.case.append_value(case);
                self.section.append_value("error");
                self.literal.append_null();
                for (e, n) in self.entities.iter_mut().zip(&mut self.ints) {
                    e.append_null();
                    n.append_null();
                }
                self.authority.append_null();
                self.capability.append_null();
                self.message.append_value(message);
            }
            CaseOut::Rows(c) => {
                for &(section, lit, first, len) in &c.rows {
                    let slots = &c.slots[first as usize..(first + len) as usize];
                    let (values, meta) = match section {
                        "request" => slots.split_at(slots.len().saturating_sub(2)),
                        _ => (slots, &[][..]),
                    };
                    self.case.append_value(case);
                    self.section.append_value(section);
                    self.literal
                        .append_option(s.lit_names.get(lit as usize).map(String::as_str));
                    for (j, (e, n)) in self.entities.iter_mut().zip(&mut self.ints).enumerate() {
                        match values.get(j).map(|v| c.get(*v)) {
                            Some(Ok(name)) => {
                                e.append_value(name);
                                n.append_null();
                            }
                            Some(Err(v)) => {
                                e.append_null();
                                n.append_value(v);
                            }
                            None => {
                                e.append_null();
                                n.append_null();
                            }
                        }
                    }
                    match meta {
                        [a, k] => {
                            self.authority.append_option(c.get(*a).ok());
                            self.capability.append_option(c.get(*k).ok());
                        }
                        _ => {
                            self.authority.append_null();
                            self.capability.append_null();
                        }
                    }
                    self.message.append_null();
                }
            }
        }
    }

    pub(crate) fn finish(mut self, s: &Shared, policy: Policy) -> Result<RecordBatch, ArrowError> {
        let mut fields = vec![
            Field::new("case", DataType::Int64, false),
            Field::new("section", DataType::Utf8, false),
            Field::new("literal", DataType::Utf8, true),
        ];
        let mut columns: Vec<ArrayRef> = vec![
            Arc::new(self.case.finish()),
            Arc::new(self.section.finish()),
            Arc::new(self.literal.finish()),
        ];
        for (j, e) in self.entities.iter_mut().enumerate() {
            fields.push(Field::new(format!("e{j}"), DataType::Utf8, true));
            columns.push(Arc::new(e.finish()));
        }
        for (j, n) in self.ints.iter_mut().enumerate() {
            fields.push(Field::new(format!("n{j}"), DataType::Int64, true));
            columns.push(Arc::new(n.finish()));
        }
        for (name, b) in [
            ("authority", &mut self.authority),
            ("capability", &mut self.capability),
            ("message", &mut self.message),
        ] {
            fields.push(Field::new(name, DataType::Utf8, true));
            columns.push(Arc::new(b.finish()));
        }
        if let Some(b) = &mut self.as_of {
            fields.push(Field::new("asOf", DataType::Utf8, true));
            columns.push(Arc::new(b.finish()));
        }
        // An Arrow batch's cases without a date (`asOf`) are judged as of
        // the package's current date (docs/python.md): that date's `asOf`
        // and `editions` of the canonical output go with the batch.
        let law = &s.program.catalog.law;
        let as_of = law.current();
        let editions = law.on(as_of).map(|f| law.rows(&f)).unwrap_or_default();
        let metadata = HashMap::from([
            ("lawgen.package".to_owned(), s.program.package.clone()),
            ("lawgen.version".to_owned(), s.program.version.clone()),
            ("lawgen.policy".to_owned(), policy.as_str().to_owned()),
            (
                "lawgen.asOf".to_owned(),
                lawgen_runtime::formats::output::as_of_json(as_of),
            ),
            (
                "lawgen.editions".to_owned(),
                lawgen_runtime::formats::output::editions_json(&editions),
            ),
        ]);
        let schema = Arc::new(Schema::new_with_metadata(fields, metadata));
        RecordBatch::try_new(schema, columns).map_err(|e| {
            ArrowError::Internal(format!("internal error in lawgen (please report): {e}"))
        })
    }
}
