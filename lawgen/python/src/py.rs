//! The PyO3 layer: the module's functions, constants and exceptions.
//!
//! Each function is defined once for every package and finds its package
//! through the module it belongs to (`pass_module`): [`register`] stores the
//! package's [`Bindings`] in the module, with the module's own exception
//! types. Functions convert their arguments, release the GIL for the work
//! (done by [`Bindings`]), and turn lawgen's errors into exceptions.

use crate::{ArrowError, Bindings, Package, ENGINES, EXPLAIN_LANGUAGES};
use arrow_array::ffi::{FFI_ArrowArray, FFI_ArrowSchema};
use arrow_array::{Array, RecordBatch, StructArray};
use arrow_schema::DataType;
use lawgen_runtime::{Batching, Error, Explanation, Policy};
use pyo3::exceptions::{PyException, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule, PyDict, PyString, PyTuple, PyType};
use std::ffi::CString;

/// The module attribute that holds the package's [`Handle`].
const HANDLE: &str = "_lawgen";

/// Registers the functions, exceptions and constants of the Python module
/// `name` of the generated package `P` in `m`, with the docstring `doc`.
/// What the `#[pymodule]` of [`crate::python_module!`] calls.
pub fn register<P: Package>(m: &Bound<'_, PyModule>, name: &str, doc: &str) -> PyResult<()> {
    let py = m.py();
    let errors = Exceptions::new(py, name)?;
    let bindings = Bindings::<P>::new().map_err(|e| PyErr::from_type(errors.lawgen(py), e))?;
    let arity = bindings.arity();
    m.add("__doc__", doc)?;
    m.add("PACKAGE", P::NAME)?;
    m.add("VERSION", P::VERSION)?;
    m.add("ENGINES", PyTuple::new(py, ENGINES)?)?;
    m.add("EXPLAIN_LANGUAGES", PyTuple::new(py, EXPLAIN_LANGUAGES)?)?;
    m.add("ARITY", arity)?;
    m.add("LawgenError", errors.lawgen(py))?;
    m.add("FactsError", errors.facts.bind(py))?;
    m.add("QueryError", errors.query.bind(py))?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_json, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_many, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_arrow, m)?)?;
    let handle = Handle {
        module: Box::new(bindings),
        errors,
    };
    m.add(HANDLE, Bound::new(py, handle)?)?;
    Ok(())
}

/// A package's bindings with the type of the generated module erased, so
/// that every function is written once.
trait Module: Send + Sync {
    fn evaluate_json(&self, facts: &[u8], policy: Policy) -> Result<String, Error>;
    fn evaluate_many(
        &self,
        cases: &[Vec<u8>],
        policy: Policy,
        batching: &Batching,
    ) -> Vec<Result<String, Error>>;
    fn explain(
        &self,
        facts: &[u8],
        literal: &str,
        lang: &str,
        policy: Policy,
    ) -> Result<Explanation, Error>;
    fn evaluate_arrow(
        &self,
        input: &RecordBatch,
        policy: Policy,
        batching: &Batching,
        include_empirical: bool,
    ) -> Result<RecordBatch, ArrowError>;
}

impl<P: Package> Module for Bindings<P> {
    fn evaluate_json(&self, facts: &[u8], policy: Policy) -> Result<String, Error> {
        Bindings::evaluate_json(self, facts, policy)
    }
    fn evaluate_many(
        &self,
        cases: &[Vec<u8>],
        policy: Policy,
        batching: &Batching,
    ) -> Vec<Result<String, Error>> {
        Bindings::evaluate_many(self, cases, policy, batching)
    }
    fn explain(
        &self,
        facts: &[u8],
        literal: &str,
        lang: &str,
        policy: Policy,
    ) -> Result<Explanation, Error> {
        Bindings::explain(self, facts, literal, lang, policy)
    }
    fn evaluate_arrow(
        &self,
        input: &RecordBatch,
        policy: Policy,
        batching: &Batching,
        include_empirical: bool,
    ) -> Result<RecordBatch, ArrowError> {
        Bindings::evaluate_arrow(self, input, policy, batching, include_empirical)
    }
}

/// What a module's functions find in it: the package and its exceptions.
#[pyclass(frozen)]
struct Handle {
    module: Box<dyn Module>,
    errors: Exceptions,
}

/// The module's exception types: `LawgenError`, and its subclasses
/// `FactsError` and `QueryError`, named after the module.
struct Exceptions {
    lawgen: Py<PyType>,
    facts: Py<PyType>,
    query: Py<PyType>,
}

impl Exceptions {
    fn new(py: Python<'_>, module: &str) -> PyResult<Exceptions> {
        let new = |name: &str, doc: &str, base: &Bound<'_, PyType>| {
            let name = CString::new(format!("{module}.{name}"))
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            let doc = CString::new(doc).map_err(|e| PyValueError::new_err(e.to_string()))?;
            PyErr::new_type(py, &name, Some(&doc), Some(base), None)
        };
        let lawgen = new(
            "LawgenError",
            "An error reported by lawgen; the message is lawgen's diagnostic text.",
            &py.get_type::<PyException>(),
        )?;
        let facts = new(
            "FactsError",
            "Facts that do not fit the package (docs/reference.md#facts-files): unknown predicate, wrong arity or type, a fact for an institutional predicate, or `p` and `~p` for the same tuple.",
            lawgen.bind(py),
        )?;
        let query = new(
            "QueryError",
            "A literal to explain that names no predicate of the package or has wrong arguments.",
            lawgen.bind(py),
        )?;
        Ok(Exceptions {
            lawgen,
            facts,
            query,
        })
    }

    fn lawgen<'py>(&self, py: Python<'py>) -> Bound<'py, PyType> {
        self.lawgen.bind(py).clone()
    }

    /// lawgen's error as the exception Python code catches.
    fn error(&self, py: Python<'_>, e: Error) -> PyErr {
        let ty = match e {
            Error::Contradiction { .. } | Error::Facts(_) => &self.facts,
            Error::Query(_) => &self.query,
            Error::Internal(_) => &self.lawgen,
        };
        PyErr::from_type(ty.bind(py).clone(), e.to_string())
    }
}

/// The handle of the module a function belongs to.
fn handle<'py>(m: &Bound<'py, PyModule>) -> PyResult<Bound<'py, Handle>> {
    Ok(m.getattr(HANDLE)?.cast_into::<Handle>()?)
}

fn parse_policy(policy: &str) -> PyResult<Policy> {
    policy.parse().map_err(|_| {
        PyValueError::new_err(format!(
            "unknown policy `{policy}`: use \"blocking\" (ambiguity blocking, the default) or \"propagating\""
        ))
    })
}

fn check_engine(engine: &str) -> PyResult<()> {
    if ENGINES.contains(&engine) {
        return Ok(());
    }
    Err(PyValueError::new_err(format!(
        "unknown engine `{engine}`: this module was compiled with the engine(s) {}",
        ENGINES
            .iter()
            .map(|e| format!("\"{e}\""))
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

fn batching(threads: Option<usize>) -> PyResult<Batching> {
    let mut b = Batching::default();
    match threads {
        Some(0) => {
            return Err(PyValueError::new_err(
                "threads must be at least 1 (None uses every core)",
            ))
        }
        Some(t) => b.threads = t,
        None => {}
    }
    Ok(b)
}

/// docs/reference.md#facts-files facts given as a dict (serialized by
/// Python's `json`), a JSON `str` or UTF-8 `bytes`.
fn facts_bytes(facts: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    if let Ok(s) = facts.cast::<PyString>() {
        return Ok(s.to_cow()?.as_bytes().to_vec());
    }
    if let Ok(b) = facts.cast::<PyBytes>() {
        return Ok(b.as_bytes().to_vec());
    }
    if facts.cast::<PyDict>().is_ok() {
        let json = facts.py().import("json")?;
        let text = json.call_method1("dumps", (facts,))?;
        return Ok(text.cast::<PyString>()?.to_cow()?.as_bytes().to_vec());
    }
    Err(PyTypeError::new_err(format!(
        "facts must be a dict, a JSON str or bytes (docs/reference.md#facts-files), not {}",
        facts.get_type().name()?
    )))
}

fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// Evaluates docs/reference.md#facts-files facts and returns the docs/reference.md#the-canonical-output canonical output as a dict.
///
/// `facts` is a dict, a JSON str or bytes; `policy` is "blocking" or
/// "propagating"; `engine` one of `ENGINES`. Raises `FactsError` with lawgen's
/// diagnostics for facts that do not fit the package.
#[pyfunction]
#[pyo3(pass_module, signature = (facts, policy = "blocking", engine = "ascent"))]
fn evaluate<'py>(
    m: &Bound<'py, PyModule>,
    facts: &Bound<'py, PyAny>,
    policy: &str,
    engine: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let text = evaluate_json(m, facts, policy, engine)?;
    json_loads(m.py(), &text)
}

/// As `evaluate`, but returns the canonical output as the exact text
/// `lawgen eval` prints.
#[pyfunction]
#[pyo3(pass_module, signature = (facts, policy = "blocking", engine = "ascent"))]
fn evaluate_json(
    m: &Bound<'_, PyModule>,
    facts: &Bound<'_, PyAny>,
    policy: &str,
    engine: &str,
) -> PyResult<String> {
    let py = m.py();
    let h = handle(m)?;
    let h = h.get();
    check_engine(engine)?;
    let policy = parse_policy(policy)?;
    let bytes = facts_bytes(facts)?;
    py.detach(|| h.module.evaluate_json(&bytes, policy))
        .map_err(|e| h.errors.error(py, e))
}

/// Evaluates many cases (each as `evaluate` takes it) on `threads` threads
/// (default: every core), without holding the GIL, and returns their outputs
/// in order. Raises `FactsError` naming the first case (by index) whose facts
/// do not fit the package.
#[pyfunction]
#[pyo3(pass_module, signature = (cases, policy = "blocking", threads = None, engine = "ascent"))]
fn evaluate_many<'py>(
    m: &Bound<'py, PyModule>,
    cases: &Bound<'py, PyAny>,
    policy: &str,
    threads: Option<usize>,
    engine: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let py = m.py();
    let h = handle(m)?;
    let h = h.get();
    check_engine(engine)?;
    let policy = parse_policy(policy)?;
    let batching = batching(threads)?;
    let mut inputs = Vec::new();
    for case in cases.try_iter()? {
        inputs.push(facts_bytes(&case?)?);
    }
    let outputs = py.detach(|| h.module.evaluate_many(&inputs, policy, &batching));
    let mut results = Vec::with_capacity(outputs.len());
    for (i, r) in outputs.into_iter().enumerate() {
        let text = r.map_err(|e| {
            let err = h.errors.error(py, e);
            let msg = format!("case {i}: {}", err.value(py));
            PyErr::from_type(err.get_type(py), msg)
        })?;
        results.push(json_loads(py, &text)?);
    }
    Ok(results)
}

/// Explains one ground literal (`"game_drawn(g1)"`, `"~game_drawn(g1)"`):
/// the rule that concluded it with its label and article, the rules that lost
/// and why, or why it does not hold. `format="text"` returns the tree
/// `lawgen explain` prints, `format="json"` the same as a dict. `lang` is one
/// of `EXPLAIN_LANGUAGES`.
#[pyfunction]
#[pyo3(pass_module, signature = (facts, literal, lang = "en", format = "text", policy = "blocking", engine = "ascent"))]
fn explain<'py>(
    m: &Bound<'py, PyModule>,
    facts: &Bound<'py, PyAny>,
    literal: &str,
    lang: &str,
    format: &str,
    policy: &str,
    engine: &str,
) -> PyResult<Bound<'py, PyAny>> {
    let py = m.py();
    let h = handle(m)?;
    let h = h.get();
    check_engine(engine)?;
    let policy = parse_policy(policy)?;
    if !EXPLAIN_LANGUAGES.contains(&lang) {
        return Err(PyValueError::new_err(format!(
            "explanations in `{lang}` are not available: this version of lawgen renders them in {}",
            EXPLAIN_LANGUAGES.join(", ")
        )));
    }
    let json = match format {
        "text" => false,
        "json" => true,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown format `{format}`: use \"text\" or \"json\""
            )))
        }
    };
    let bytes = facts_bytes(facts)?;
    let e = py
        .detach(|| h.module.explain(&bytes, literal, lang, policy))
        .map_err(|e| h.errors.error(py, e))?;
    if json {
        json_loads(py, &e.to_json())
    } else {
        Ok(PyString::new(py, &e.text()).into_any())
    }
}

/// Evaluates a batch of cases in the columnar layout (see the module doc):
/// a pyarrow.RecordBatch of facts in, a pyarrow.RecordBatch of verdicts out,
/// on `threads` threads (default: every core) without the GIL and without
/// JSON. The verdicts are the conclusions on institutional literals and the
/// requests; with `include_empirical=True` also the literals of the other
/// predicates (the facts given, the negatives closures derive), so that a
/// case's rows are its whole docs/reference.md#the-canonical-output output. A case whose facts do not fit
/// the package gets one `error` row with lawgen's diagnostics; the other
/// cases are unaffected.
#[pyfunction]
#[pyo3(pass_module, signature = (batch, policy = "blocking", threads = None, engine = "ascent", include_empirical = false))]
fn evaluate_arrow<'py>(
    m: &Bound<'py, PyModule>,
    batch: &Bound<'py, PyAny>,
    policy: &str,
    threads: Option<usize>,
    engine: &str,
    include_empirical: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let py = m.py();
    let h = handle(m)?;
    let h = h.get();
    check_engine(engine)?;
    let policy = parse_policy(policy)?;
    let batching = batching(threads)?;
    let input = import_batch(batch)?;
    let verdicts = py
        .detach(|| {
            h.module
                .evaluate_arrow(&input, policy, &batching, include_empirical)
        })
        .map_err(|e| match e {
            ArrowError::Type(m) => PyTypeError::new_err(m),
            ArrowError::Value(m) => PyValueError::new_err(m),
            ArrowError::Internal(m) => PyErr::from_type(h.errors.lawgen(py), m),
        })?;
    export_batch(py, verdicts).map_err(|e| match e {
        ExportError::Py(e) => e,
        ExportError::Internal(m) => PyErr::from_type(h.errors.lawgen(py), m),
    })
}

/// Reads a record batch through the Arrow PyCapsule interface
/// (`__arrow_c_array__`: pyarrow ≥ 14, polars, DuckDB, …).
fn import_batch(batch: &Bound<'_, PyAny>) -> PyResult<RecordBatch> {
    if !batch.hasattr("__arrow_c_array__")? {
        return Err(PyTypeError::new_err(format!(
            "evaluate_arrow takes a record batch (pyarrow.RecordBatch or any object with __arrow_c_array__), not {}; \
             for a pyarrow.Table, pass each of table.to_batches()",
            batch.get_type().name()?
        )));
    }
    let (schema, array): (Bound<'_, PyCapsule>, Bound<'_, PyCapsule>) =
        batch.call_method0("__arrow_c_array__")?.extract()?;
    let schema = schema
        .pointer_checked(Some(c"arrow_schema"))?
        .cast::<FFI_ArrowSchema>();
    let array = array
        .pointer_checked(Some(c"arrow_array"))?
        .cast::<FFI_ArrowArray>();
    // SAFETY: the capsules hold an ArrowSchema and an ArrowArray as the
    // PyCapsule interface defines them; the array is moved out (its capsule
    // then holds a released struct), the schema only borrowed and released
    // by its capsule.
    let data = unsafe {
        let array = FFI_ArrowArray::from_raw(array.as_ptr());
        arrow_array::ffi::from_ffi(array, schema.as_ref())
    }
    .map_err(|e| PyValueError::new_err(format!("cannot read the Arrow batch: {e}")))?;
    if !matches!(data.data_type(), DataType::Struct(_)) {
        return Err(PyTypeError::new_err(format!(
            "evaluate_arrow takes a record batch, not an array of {}",
            data.data_type()
        )));
    }
    Ok(RecordBatch::from(StructArray::from(data)))
}

/// Why a verdict batch could not be handed to pyarrow.
enum ExportError {
    Py(PyErr),
    /// The batch has no C data interface schema (a lawgen bug).
    Internal(String),
}

/// Hands a record batch to pyarrow through the Arrow C data interface.
fn export_batch<'py>(
    py: Python<'py>,
    batch: RecordBatch,
) -> Result<Bound<'py, PyAny>, ExportError> {
    let schema = FFI_ArrowSchema::try_from(batch.schema().as_ref()).map_err(|e| {
        ExportError::Internal(format!("internal error in lawgen (please report): {e}"))
    })?;
    let array = FFI_ArrowArray::new(&StructArray::from(batch).into_data());
    let (schema, array) = (Box::new(schema), Box::new(array));
    // pyarrow moves both structs out (leaving them released); the boxes are
    // dropped afterwards either way.
    let import = || -> PyResult<Bound<'py, PyAny>> {
        let rb = py.import("pyarrow")?.getattr("RecordBatch")?;
        rb.call_method1(
            "_import_from_c",
            (
                &*array as *const FFI_ArrowArray as usize,
                &*schema as *const FFI_ArrowSchema as usize,
            ),
        )
    };
    import().map_err(ExportError::Py)
}
