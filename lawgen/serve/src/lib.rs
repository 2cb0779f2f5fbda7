//! The lawgen decision service (docs/service.md): loaded packages answered
//! over HTTP. A thin shell over the library: the HTTP layer parses, bounds
//! and logs; evaluation is the call `lawgen eval` makes
//! (`lawgen::driver::evaluate`) with [`Engine::Interp`], or worker
//! processes of each package's compiled crate with [`Engine::Direct`]
//! ([`engine`]), and its answer is the canonical output `lawgen eval`
//! prints, inside a receipt ([`receipt`]).
//!
//! Routes: `GET /v1/packages`, `POST /v1/packages/{name}/evaluate`,
//! `POST /v1/packages/{name}/evaluate-batch`, `POST /v1/packages/{name}/explain`, `GET /healthz`, `GET /readyz`,
//! `GET /metrics`. Every refusal is a JSON error
//! `{"error": {"code", "message", "field"}}` ([`ApiError`]).

#![forbid(unsafe_code)]

pub mod engine;
mod metrics;
pub mod receipt;
pub mod replay;
pub mod signing;

use axum::body::Bytes;
use axum::extract::{MatchedPath, Path as UrlPath, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use lawgen::driver::{self, Loaded, ReadLimits};
use lawgen_runtime::interp::{Conclusions, Facts, Store};
use lawgen_runtime::program::Program;
use lawgen_runtime::Policy;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

pub use ed25519_dalek::VerifyingKey;
pub use engine::{Compile, Compiled};
pub use receipt::Receipt;

/// How decisions are evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Engine {
    /// The reference interpreter (`lawgen eval --backend interp`): no
    /// compiler or cargo at run time.
    Interp,
    /// Each package compiled with the Direct engine ([`Config::compile`]),
    /// evaluated by worker processes of its crate ([`engine`]).
    Direct,
}

impl Engine {
    /// The engine as receipts name it.
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Interp => "interp",
            Engine::Direct => "direct",
        }
    }

    /// The engine a receipt names, if it is one of these.
    pub fn from_name(name: &str) -> Option<Engine> {
        [Engine::Interp, Engine::Direct]
            .into_iter()
            .find(|e| e.as_str() == name)
    }
}

/// What the service loads and how it bounds requests.
#[derive(Clone, Debug)]
pub struct Config {
    /// The package files to serve, each with its import closure.
    pub packages: Vec<PathBuf>,
    /// Directories searched for imported packages (as `--import-path`).
    pub import_path: Vec<PathBuf>,
    /// Limits on the packages read at start and on each facts body.
    pub limits: ReadLimits,
    /// The address to listen on (port 0: any free port).
    pub listen: SocketAddr,
    /// Where each answered decision's receipt is appended, one JSON line.
    pub decision_log: Option<PathBuf>,
    /// The largest request body accepted, in bytes.
    pub max_body_bytes: usize,
    /// The longest a request may take, body read and evaluation included.
    pub timeout: Duration,
    /// The longest a request's head (its request line and headers) may
    /// take to arrive, and a kept-alive connection may wait for its next
    /// request; the connection is closed after it.
    pub header_timeout: Duration,
    /// The most requests to `/v1/` answered at once; more are refused with
    /// `overloaded`.
    pub max_concurrent: usize,
    /// The most cases in one batch.
    pub max_cases: usize,
    /// The evaluator.
    pub engine: Engine,
    /// With [`Engine::Direct`]: what builds each package's compiled crate.
    pub compile: Option<Arc<dyn Compile>>,
    /// With [`Engine::Direct`]: the worker processes per package.
    pub workers: usize,
    /// A secret key file of `lawgen keygen`: every receipt is signed with it.
    pub signing_key: Option<PathBuf>,
}

impl Config {
    /// A service of `packages` on 127.0.0.1:8080 with the default limits.
    pub fn new(packages: Vec<PathBuf>) -> Config {
        Config {
            packages,
            import_path: Vec::new(),
            limits: ReadLimits::default(),
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            decision_log: None,
            max_body_bytes: 16 * 1024 * 1024,
            timeout: Duration::from_secs(30),
            header_timeout: Duration::from_secs(10),
            max_concurrent: 64,
            max_cases: 10_000,
            engine: Engine::Interp,
            compile: None,
            workers: std::thread::available_parallelism().map_or(1, usize::from),
            signing_key: None,
        }
    }
}

/// Why the service did not start or stopped with an error.
#[derive(Debug)]
pub struct ServeError(pub String);

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServeError {}

/// Loads the packages, binds the address, prints
/// `lawgen serve: listening on http://ADDR` on standard output, and answers
/// until SIGTERM or ctrl-c, then finishes the requests in flight.
pub fn run(config: Config) -> Result<(), ServeError> {
    let app = App::load(&config)?;
    let compile = match (config.engine, &config.compile) {
        (Engine::Direct, None) => {
            return Err(ServeError(
                "error: the Direct engine needs a compiler, and none was given to the service\n  = help: serve with `--engine interp`".into(),
            ))
        }
        (Engine::Direct, Some(c)) => Some(c.clone()),
        (Engine::Interp, _) => None,
    };
    // Set when the compiled engines cannot start: the service then stops.
    let failed: Arc<Mutex<Option<String>>> = Arc::default();
    let (fail_tx, fail_rx) = tokio::sync::oneshot::channel::<()>();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| ServeError(format!("error: cannot start the runtime: {e}")))?;
    let failed_in = failed.clone();
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(config.listen)
            .await
            .map_err(|e| ServeError(format!("error: cannot listen on {}: {e}", config.listen)))?;
        let addr = listener
            .local_addr()
            .map_err(|e| ServeError(format!("error: cannot listen on {}: {e}", config.listen)))?;
        println!("lawgen serve: listening on http://{addr}");
        if let Some(compile) = compile {
            let (app, failed, workers) = (app.clone(), failed_in, config.workers);
            let timeout = config.timeout;
            std::thread::spawn(move || {
                if let Err(e) = app.start_engines(&*compile, workers, timeout) {
                    *failed.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                    let _ = fail_tx.send(());
                }
            });
        }
        let failure = async {
            if fail_rx.await.is_err() {
                std::future::pending::<()>().await;
            }
        };
        let stop = async {
            tokio::select! {
                () = shutdown_signal() => {},
                () = failure => {},
            }
        };
        serve(listener, app.router(&config), config.header_timeout, stop).await;
        Ok::<(), ServeError>(())
    })?;
    if let Some(e) = failed.lock().unwrap_or_else(|p| p.into_inner()).take() {
        return Err(ServeError(e));
    }
    eprintln!("lawgen serve: stopped");
    Ok(())
}

/// Accepts connections until `stop` (SIGTERM, ctrl-c, or engines that
/// cannot start), each served by hyper's
/// HTTP/1 with a time limit on its request head (`header_timeout`, which
/// tower-http's per-request timeout cannot cover: it starts once the head
/// is read), then waits for the requests in flight. What `axum::serve`
/// does, but for the head's time limit, which it does not set.
async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    header_timeout: Duration,
    stop: impl std::future::Future<Output = ()>,
) {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(header_timeout);
    let mut shutdown = std::pin::pin!(stop);
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    // Answers are written whole: no reason to wait for an
                    // acknowledgement before sending the next one.
                    let _ = stream.set_nodelay(true);
                    let service = hyper_util::service::TowerToHyperService::new(router.clone());
                    let conn = http.serve_connection(hyper_util::rt::TokioIo::new(stream), service);
                    let conn = graceful.watch(conn);
                    tokio::spawn(async move {
                        // A connection's error (a client gone, a head too
                        // slow) ends that connection only.
                        let _ = conn.await;
                    });
                }
                Err(e) => accept_error(e).await,
            },
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    graceful.shutdown().await;
}

/// An error accepting a connection: one about that connection is skipped;
/// any other (out of file descriptors) waits a second before accepting
/// again, as `axum::serve` does, instead of spinning or stopping.
async fn accept_error(e: std::io::Error) {
    use std::io::ErrorKind;
    if !matches!(
        e.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    ) {
        eprintln!("lawgen serve: cannot accept a connection: {e}");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

async fn shutdown_signal() {
    let ctrl_c = async {
        // An error installing the handler leaves SIGTERM as the only way out.
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    eprintln!("lawgen serve: shutting down, finishing the requests in flight");
}

/// One served package: the checked package and what its receipts name.
struct Served {
    loaded: Loaded,
    /// Its lowered program, lowered once at start: what `driver::evaluate`
    /// lowers on each call.
    program: Program,
    identity: receipt::PackageId,
    closure: Vec<receipt::PackageId>,
    /// With the Direct engine: its workers, once its crate is built.
    direct: OnceLock<engine::Pool>,
}

/// The loaded packages and the service's shared state.
#[derive(Clone)]
pub struct App {
    inner: Arc<Inner>,
}

struct Inner {
    packages: BTreeMap<String, Served>,
    limits: ReadLimits,
    engine: Engine,
    log: Option<Mutex<BufWriter<File>>>,
    metrics: metrics::Metrics,
    permits: Arc<tokio::sync::Semaphore>,
    signer: Option<ed25519_dalek::SigningKey>,
    max_cases: usize,
}

impl App {
    /// Loads and checks every package of `config` with its closure, and
    /// opens the decision log for appending.
    pub fn load(config: &Config) -> Result<App, ServeError> {
        if config.packages.is_empty() {
            return Err(ServeError(
                "error: no package to serve\n  = help: name one or more with `--package FILE`"
                    .into(),
            ));
        }
        let mut packages = BTreeMap::new();
        for path in &config.packages {
            let loaded = driver::load_file_with(path, &config.limits, &config.import_path)
                .map_err(|e| ServeError(e.to_string()))?;
            let program = driver::lower(&loaded).map_err(|e| ServeError(format!("error: {e}")))?;
            let closure = receipt::closure(&loaded.catalog);
            let identity = closure[0].clone();
            if packages.contains_key(&identity.name) {
                return Err(ServeError(format!(
                    "error: two packages named `{}` to serve ({})\n  = help: serve one version of a package per service",
                    identity.name,
                    path.display()
                )));
            }
            packages.insert(
                identity.name.clone(),
                Served {
                    loaded,
                    program,
                    identity,
                    closure,
                    direct: OnceLock::new(),
                },
            );
        }
        let log = match &config.decision_log {
            Some(p) => {
                let f = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)
                    .map_err(|e| {
                        ServeError(format!(
                            "error: cannot open the decision log {}: {e}",
                            p.display()
                        ))
                    })?;
                Some(Mutex::new(BufWriter::new(f)))
            }
            None => None,
        };
        let signer = match &config.signing_key {
            Some(p) => Some(signing::read_signing_key(p).map_err(ServeError)?),
            None => None,
        };
        Ok(App {
            inner: Arc::new(Inner {
                signer,
                max_cases: config.max_cases,
                packages,
                limits: config.limits,
                engine: config.engine,
                log,
                metrics: metrics::Metrics::default(),
                permits: Arc::new(tokio::sync::Semaphore::new(config.max_concurrent.max(1))),
            }),
        })
    }

    /// Builds every package's compiled crate with `compile` and starts
    /// `workers` workers of each (each stopped when it takes longer than
    /// `timeout`, the limit per request, to answer), printing progress and
    /// timing on standard error; `/readyz` answers ready once all are up.
    fn start_engines(
        &self,
        compile: &dyn Compile,
        workers: usize,
        timeout: Duration,
    ) -> Result<(), String> {
        for s in self.inner.packages.values() {
            let id = &s.identity;
            eprintln!(
                "lawgen serve: building {} {} with the Direct engine…",
                id.name, id.version
            );
            let built = compile.compile(&s.loaded)?;
            if built.cached {
                eprintln!("lawgen serve: {}: cached", id.name);
            } else {
                eprintln!(
                    "lawgen serve: {}: built in {:.1} s",
                    id.name, built.build_secs
                );
            }
            let pool = engine::Pool::start(&built, workers, timeout).map_err(|e| {
                format!("error: cannot start the Direct engine of {}: {e}", id.name)
            })?;
            let _ = s.direct.set(pool);
        }
        eprintln!(
            "lawgen serve: ready: {} package(s) on the Direct engine, {} worker(s) each",
            self.inner.packages.len(),
            workers.max(1)
        );
        Ok(())
    }

    /// The packages whose engine is not up yet.
    fn starting(&self) -> Vec<&str> {
        match self.inner.engine {
            Engine::Interp => Vec::new(),
            Engine::Direct => self
                .inner
                .packages
                .iter()
                .filter(|(_, s)| s.direct.get().is_none())
                .map(|(n, _)| n.as_str())
                .collect(),
        }
    }

    /// The routes with their limits: the body size and time per request
    /// (tower-http), the concurrency limit on `/v1/`, and every error
    /// response made JSON.
    pub fn router(&self, config: &Config) -> Router {
        let v1 = Router::new()
            .route("/v1/packages", get(list_packages))
            .route("/v1/packages/{name}/evaluate", post(evaluate))
            .route("/v1/packages/{name}/explain", post(explain))
            .route("/v1/packages/{name}/evaluate-batch", post(evaluate_batch))
            .route_layer(middleware::from_fn_with_state(
                self.clone(),
                limit_concurrency,
            ));
        Router::new()
            .merge(v1)
            .route("/healthz", get(healthz))
            .route("/readyz", get(readyz))
            .route("/metrics", get(metrics_text))
            .fallback(not_found)
            .layer(tower_http::timeout::TimeoutLayer::with_status_code(
                StatusCode::SERVICE_UNAVAILABLE,
                config.timeout,
            ))
            .layer(axum::extract::DefaultBodyLimit::disable())
            .layer(tower_http::limit::RequestBodyLimitLayer::new(
                config.max_body_bytes,
            ))
            .layer(middleware::map_response(json_errors))
            .layer(middleware::from_fn_with_state(self.clone(), measure))
            .with_state(self.clone())
    }
}

/// A refusal: the HTTP status, and the JSON body
/// `{"error": {"code", "message", "field"}}` (docs/service.md, "Errors").
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    /// A stable code, snake case (`unknown_package`, `invalid_facts`, …).
    pub code: &'static str,
    /// What is wrong and how to fix it, lower case.
    pub message: String,
    /// The part of the request at fault: a JSON pointer into the body, a
    /// header or query parameter name, or `null`.
    pub field: Option<String>,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            field: None,
        }
    }

    fn at(mut self, field: impl Into<String>) -> ApiError {
        self.field = Some(field.into());
        self
    }

    fn body(&self) -> String {
        let mut s = serde_json::json!({
            "error": {
                "code": self.code,
                "message": self.message,
                "field": self.field,
            }
        })
        .to_string();
        s.push('\n');
        s
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut r = (self.status, json_headers(), self.body()).into_response();
        r.extensions_mut().insert(ErrorCode(self.code));
        r
    }
}

/// The code of an error response, for the metrics.
#[derive(Clone, Copy)]
struct ErrorCode(&'static str);

fn json_headers() -> [(header::HeaderName, HeaderValue); 1] {
    [(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    )]
}

/// Error responses made by the layers (a body over the limit, a timeout, a
/// method the route does not take) carry no JSON of their own: each gets
/// one here, so every refusal has the same shape.
async fn json_errors(r: Response) -> Response {
    if r.status().is_success() || r.extensions().get::<ErrorCode>().is_some() {
        return r;
    }
    let e = match r.status() {
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            "the request body is over the service's limit; send fewer facts per request, or raise `--max-body-bytes`",
        ),
        StatusCode::SERVICE_UNAVAILABLE | StatusCode::REQUEST_TIMEOUT => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "timeout",
            "the request took longer than the service's limit per request (`--timeout`); send the body at once, or fewer facts",
        ),
        StatusCode::METHOD_NOT_ALLOWED => ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "this path does not take that method: `GET /v1/packages`; `POST /v1/packages/{name}/evaluate`, `/evaluate-batch` or `/explain`",
        ),
        s => ApiError::new(s, "http_error", format!("the request was refused: {s}")),
    };
    e.into_response()
}

/// Refuses a `/v1/` request with `overloaded` when the most requests
/// allowed at once are being answered.
async fn limit_concurrency(State(app): State<App>, mut req: Request, next: Next) -> Response {
    match app.inner.permits.clone().try_acquire_owned() {
        Ok(permit) => {
            // The handler's evaluation holds it too: an evaluation the
            // timeout abandons runs to its end on the blocking pool, and
            // keeps its place until then.
            req.extensions_mut().insert(Held(Arc::new(permit)));
            next.run(req).await
        }
        Err(_) => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "overloaded",
            "the service is answering as many requests as it allows at once (`--max-concurrent`); retry later",
        )
        .into_response(),
    }
}

/// A place among the requests answered at once (`--max-concurrent`).
#[derive(Clone)]
struct Held(#[allow(dead_code)] Arc<tokio::sync::OwnedSemaphorePermit>);

/// Counts every request by route and status, its latency, and its error code.
async fn measure(State(app): State<App>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |p| p.as_str())
        .to_owned();
    let start = Instant::now();
    let r = next.run(req).await;
    let code = r.extensions().get::<ErrorCode>().map(|c| c.0);
    app.inner
        .metrics
        .request(&route, r.status().as_u16(), start.elapsed(), code);
    r
}

async fn not_found() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        "no such path: the service answers `GET /v1/packages`, `POST /v1/packages/{name}/evaluate`, `POST /v1/packages/{name}/evaluate-batch`, `POST /v1/packages/{name}/explain`, `/healthz`, `/readyz` and `/metrics`",
    )
}

async fn healthz() -> Response {
    (StatusCode::OK, json_headers(), "{\"status\":\"ok\"}\n").into_response()
}

async fn readyz(State(app): State<App>) -> Response {
    let starting = app.starting();
    if !starting.is_empty() {
        let body = serde_json::json!({
            "status": "starting",
            "packages": app.inner.packages.len(),
            "starting": starting,
        });
        let mut r = (
            StatusCode::SERVICE_UNAVAILABLE,
            json_headers(),
            format!("{body}\n"),
        )
            .into_response();
        // Its own body, not an error's: kept as it is by `json_errors`.
        r.extensions_mut().insert(ErrorCode("not_ready"));
        return r;
    }
    let body = serde_json::json!({
        "status": "ready",
        "packages": app.inner.packages.len(),
    });
    (StatusCode::OK, json_headers(), format!("{body}\n")).into_response()
}

async fn metrics_text(State(app): State<App>) -> Response {
    (
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"),
        )],
        app.inner.metrics.render(),
    )
        .into_response()
}

async fn list_packages(State(app): State<App>) -> Response {
    let list: Vec<serde_json::Value> = app
        .inner
        .packages
        .values()
        .map(|s| {
            let mut v = s.identity.to_json();
            v["closure"] = s.closure.iter().map(|p| p.to_json()).collect();
            v["engine"] = app.inner.engine.as_str().into();
            if let Some(pool) = s.direct.get() {
                v["generatedSha256"] = pool.source_sha256.as_str().into();
            }
            v
        })
        .collect();
    let body = serde_json::json!({ "packages": list });
    (StatusCode::OK, json_headers(), format!("{body}\n")).into_response()
}

/// The query parameters of `evaluate` and `explain`.
fn policy_of(q: &HashMap<String, String>) -> Result<Policy, ApiError> {
    match q.get("policy").map(String::as_str) {
        None | Some("blocking") => Ok(Policy::Blocking),
        Some("propagating") => Ok(Policy::Propagating),
        Some(other) => Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_parameter",
            format!("unknown policy `{other}`: write `blocking` (the default) or `propagating`"),
        )
        .at("policy")),
    }
}

fn query_of(
    q: Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>,
) -> Result<HashMap<String, String>, ApiError> {
    q.map(|Query(q)| q).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_parameter",
            format!("the query string does not parse: {}", e.body_text()),
        )
    })
}

/// The facts body of a request: JSON, well formed, a valid facts file for
/// the package (checked as `lawgen eval` checks a facts file), with a date
/// on which the package's law is in force.
fn read_facts(
    app: &App,
    served: &Served,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Facts, ApiError> {
    content_type(headers, "application/json", "a facts file")?;
    parse_case(app, served, body)
}

/// Refuses a body not sent as `want`.
fn content_type(headers: &HeaderMap, want: &str, what: &str) -> Result<(), ApiError> {
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = ct.split(';').next().unwrap_or("").trim();
    if !essence.eq_ignore_ascii_case(want) {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            format!("the body must be {what} sent as `{want}`, not `{ct}`; set the header `Content-Type: {want}`"),
        )
        .at("content-type"));
    }
    Ok(())
}

/// One facts file: within the facts limit, JSON, valid for the package
/// (checked as `lawgen eval` checks a facts file), dated on a day the
/// package's law is in force.
fn parse_case(app: &App, served: &Served, body: &[u8]) -> Result<Facts, ApiError> {
    if body.len() > app.inner.limits.max_facts_bytes {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!(
                "the facts file is {} bytes, over the limit of {} (`--max-facts-bytes`); send fewer facts per request",
                body.len(),
                app.inner.limits.max_facts_bytes
            ),
        ));
    }
    let catalog = &served.loaded.catalog;
    // Read once: a body the facts reader refuses is then parsed as JSON
    // alone, to tell malformed JSON from a facts file the checker refuses
    // (the reader's JSON parse is as strict: what it reads is JSON).
    let facts = lawgen_runtime::formats::facts::read_facts(body, catalog).map_err(|d| {
        if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(body) {
            return ApiError::new(
                StatusCode::BAD_REQUEST,
                "malformed_json",
                format!("the body is not JSON: {e}"),
            );
        }
        let field = d.iter().next().map(|d| d.location.pointer.clone());
        let mut e = ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_facts",
            format!(
                "{}error: the request body is not a valid facts file for {}",
                d.render(),
                served.identity.name
            ),
        );
        e.field = field;
        e
    })?;
    if let Err(e) = lawgen_runtime::interp::in_force(&served.program, &facts) {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "no_law_in_force",
            format!("{e}; evaluate the case as of a date on which the work has an edition in force (the facts file's `asOf`)"),
        )
        .at("/asOf"));
    }
    Ok(facts)
}

/// The case evaluated by the reference interpreter: the calls
/// `lawgen::driver::evaluate` makes, on the program lowered at start.
fn evaluate_case(s: &Served, facts: &Facts, policy: Policy) -> (Store, Conclusions) {
    let store = lawgen_runtime::interp::evaluate(&s.program, facts, policy);
    let conclusions = lawgen_runtime::interp::conclusions(&s.program, &store, policy);
    (store, conclusions)
}

/// The receipt of the case, evaluated by the service's engine.
fn decide(app: &App, s: &Served, facts: &Facts, policy: Policy) -> Result<Receipt, ApiError> {
    let now = std::time::SystemTime::now();
    let Engine::Direct = app.inner.engine else {
        let (_, conclusions) = evaluate_case(s, facts, policy);
        return Ok(Receipt::new(
            s.identity.clone(),
            s.closure.clone(),
            facts,
            &s.loaded.catalog,
            &conclusions,
            app.inner.engine.as_str(),
            now,
        ));
    };
    let name = &s.identity.name;
    let pool = s.direct.get().ok_or_else(|| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "not_ready",
            format!("the compiled engine of {name} is still starting; retry when `/readyz` answers ready"),
        )
    })?;
    let text = lawgen_runtime::formats::facts::write_facts(facts, &s.loaded.catalog);
    let output = pool.evaluate(&text, policy).map_err(|f| match f {
        engine::Failure::Died(e) => ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "engine_failed",
            format!("the compiled engine of {name} stopped while evaluating the case ({e}); it was started again: send the request again"),
        ),
        engine::Failure::Refused(e) => internal(format!(
            "the compiled engine of {name} refused a case the checker accepted: {e}"
        )),
    })?;
    let decided = receipt::Decided::compiled(&s.program, facts, policy, output);
    let mut r = Receipt::of(
        s.identity.clone(),
        s.closure.clone(),
        facts,
        &s.loaded.catalog,
        decided,
        app.inner.engine.as_str(),
        now,
    );
    r.generated_sha256 = Some(pool.source_sha256.clone());
    Ok(r)
}

fn served<'a>(app: &'a App, name: &str) -> Result<&'a Served, ApiError> {
    app.inner.packages.get(name).ok_or_else(|| {
        let known: Vec<&str> = app.inner.packages.keys().map(String::as_str).collect();
        ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_package",
            format!(
                "no package `{name}` is served; the service serves {}",
                known.join(", ")
            ),
        )
        .at("name")
    })
}

fn body_of(
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Bytes, ApiError> {
    body.map_err(|e| {
        let status = e.status();
        if status == StatusCode::PAYLOAD_TOO_LARGE {
            ApiError::new(
                status,
                "body_too_large",
                "the request body is over the service's limit; send fewer facts per request, or raise `--max-body-bytes`",
            )
        } else {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "unreadable_body",
                format!("the request body could not be read: {}", e.body_text()),
            )
        }
    })
}

fn internal(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal",
        format!("a lawgen bug: {e}"),
    )
}

/// `POST /v1/packages/{name}/evaluate`: the receipt of the decision, whose
/// `output` is the canonical output `lawgen eval` prints.
async fn evaluate(
    State(app): State<App>,
    held: Option<axum::Extension<Held>>,
    UrlPath(name): UrlPath<String>,
    query: Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Response, ApiError> {
    let policy = policy_of(&query_of(query)?)?;
    served(&app, &name)?;
    let body = body_of(body)?;
    let app2 = app.clone();
    let receipt = tokio::task::spawn_blocking(move || -> Result<Receipt, ApiError> {
        let _held = held;
        let s = served(&app2, &name)?;
        let facts = read_facts(&app2, s, &headers, &body)?;
        decide(&app2, s, &facts, policy)
    })
    .await
    .map_err(internal)??;
    let line = signed_line(&app, &receipt);
    // Logged with no await between the write and the answer: a request the
    // timeout abandons is neither answered nor logged, and a logged one is
    // answered.
    log_decisions(&app, &line)?;
    app.inner.metrics.cases(&receipt.package.name, 1);
    Ok((StatusCode::OK, json_headers(), line).into_response())
}

/// A receipt's line, signed when the service has a key.
fn signed_line(app: &App, receipt: &Receipt) -> String {
    let mut json = receipt.to_json();
    if let Some(key) = &app.inner.signer {
        json["signature"] = signing::sign(key, &json);
    }
    format!("{json}\n")
}

/// Appends the lines of answered decisions to the log, at once, and
/// flushes: lines of concurrent requests never interleave.
fn log_decisions(app: &App, lines: &str) -> Result<(), ApiError> {
    if let Some(log) = &app.inner.log {
        let mut w = log.lock().unwrap_or_else(|p| p.into_inner());
        w.write_all(lines.as_bytes())
            .and_then(|()| w.flush())
            .map_err(|e| internal(format!("cannot write the decision log: {e}")))?;
    }
    Ok(())
}

/// `POST /v1/packages/{name}/evaluate-batch`: many cases, one facts file a
/// line (`application/jsonl`), evaluated on every core; the answer is
/// their receipts, a line each, in the order of the cases. A batch with
/// one case the service refuses is refused whole, naming the line.
async fn evaluate_batch(
    State(app): State<App>,
    held: Option<axum::Extension<Held>>,
    UrlPath(name): UrlPath<String>,
    query: Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Response, ApiError> {
    let policy = policy_of(&query_of(query)?)?;
    let package = served(&app, &name)?.identity.name.clone();
    let body = body_of(body)?;
    content_type(&headers, "application/jsonl", "facts files, one a line,")?;
    let app2 = app.clone();
    let lines = tokio::task::spawn_blocking(move || -> Result<(String, usize), ApiError> {
        let _held = held;
        let s = served(&app2, &name)?;
        let cases: Vec<(usize, &[u8])> = body
            .split(|b| *b == b'\n')
            .enumerate()
            .filter(|(_, l)| l.iter().any(|b| !b.is_ascii_whitespace()))
            .map(|(i, l)| (i + 1, l))
            .collect();
        if cases.is_empty() {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "empty_batch",
                "the batch holds no case: send one facts file a line",
            ));
        }
        if cases.len() > app2.inner.max_cases {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_many_cases",
                format!(
                    "the batch holds {} cases, over the limit of {} (`--max-cases`); split it",
                    cases.len(),
                    app2.inner.max_cases
                ),
            ));
        }
        // Each thread takes the next case not yet taken: the cases differ
        // in cost, and a thread that drew cheap ones is not left idle while
        // another works through dear ones.
        let threads = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(cases.len());
        let next = std::sync::atomic::AtomicUsize::new(0);
        let answer = |(n, line): &(usize, &[u8])| -> Result<String, ApiError> {
            let facts = parse_case(&app2, s, line).map_err(|mut e| {
                e.message = format!("line {n}: {}", e.message);
                e.field = Some(format!(
                    "line {n}{}",
                    e.field
                        .as_deref()
                        .map_or(String::new(), |f| format!(" {f}"))
                ));
                e
            })?;
            let receipt = decide(&app2, s, &facts, policy)?;
            Ok(signed_line(&app2, &receipt))
        };
        let mut answers: Vec<Option<Result<String, ApiError>>> =
            std::iter::repeat_with(|| None).take(cases.len()).collect();
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    let (next, cases, answer) = (&next, &cases, &answer);
                    scope.spawn(move || {
                        let mut mine = Vec::new();
                        loop {
                            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(case) = cases.get(i) else { break };
                            mine.push((i, answer(case)));
                        }
                        mine
                    })
                })
                .collect();
            for h in handles {
                match h.join() {
                    Ok(mine) => {
                        for (i, a) in mine {
                            answers[i] = Some(a);
                        }
                    }
                    Err(_) => {
                        answers[0] = Some(Err(internal("an evaluation of the batch panicked")))
                    }
                }
            }
        });
        let mut out = String::new();
        for a in answers {
            out.push_str(&a.ok_or_else(|| internal("a case of the batch was not evaluated"))??);
        }
        Ok((out, cases.len()))
    })
    .await
    .map_err(internal)??;
    let (lines, n) = lines;
    log_decisions(&app, &lines)?;
    app.inner.metrics.cases(&package, n as u64);
    Ok((
        StatusCode::OK,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/jsonl"),
        )],
        lines,
    )
        .into_response())
}

/// `POST /v1/packages/{name}/explain?literal=L[&lang=en]`: the explanation
/// JSON `lawgen explain --format json` prints.
async fn explain(
    State(app): State<App>,
    held: Option<axum::Extension<Held>>,
    UrlPath(name): UrlPath<String>,
    query: Result<Query<HashMap<String, String>>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    body: Result<Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<Response, ApiError> {
    let q = query_of(query)?;
    let policy = policy_of(&q)?;
    let Some(literal) = q.get("literal").cloned() else {
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            "missing_parameter",
            "name the literal to explain: `?literal=game_drawn(g1)` (percent-encoded)",
        )
        .at("literal"));
    };
    let lang = q.get("lang").cloned().unwrap_or_else(|| "en".to_owned());
    let package = served(&app, &name)?.identity.name.clone();
    let body = body_of(body)?;
    let app2 = app.clone();
    let text = tokio::task::spawn_blocking(move || -> Result<String, ApiError> {
        let _held = held;
        let s = served(&app2, &name)?;
        let facts = read_facts(&app2, s, &headers, &body)?;
        let query =
            lawgen_runtime::explain::parse_query(&s.loaded.catalog, &literal).map_err(|m| {
                ApiError::new(StatusCode::BAD_REQUEST, "invalid_literal", m).at("literal")
            })?;
        let (store, conclusions) = evaluate_case(s, &facts, policy);
        let e =
            lawgen_runtime::explain::explain(&s.program, &store, conclusions.policy, &query, &lang);
        Ok(e.to_json())
    })
    .await
    .map_err(internal)??;
    app.inner.metrics.cases(&package, 1);
    Ok((StatusCode::OK, json_headers(), text).into_response())
}
