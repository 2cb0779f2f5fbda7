//! Imports (docs/reference.md#imports): finding the packages a package builds on, and checking
//! the union of their nodes as one program.
//!
//! Resolution works on package files through [`Files`]: the file system on
//! a search path ([`SearchPath`]) or the files of a closure bundle embedded
//! in generated code ([`InMemory`]). Every file is read through
//! `syntax::files` (`read_header`, `read_package_file`), the one place that
//! knows package formats.
//!
//! The steps, each a gate:
//!
//! 1. [`resolve`] — read the root, find and read every import, transitively,
//!    depth first: cycles, version clashes, namespace and `semanticHash`
//!    mismatches and missing packages are refused at the import entry; an
//!    error inside an imported file is reported as that package's.
//! 2. [`check_closure`] — every node lies in its package's namespace, no id
//!    is declared by two packages; then each package is checked with its own
//!    closure (docs/reference.md#a-package in full), imports first, and finally the root's closure
//!    gives the [`Model`].

use crate::diagnostics::{Code, Diagnostics, Location};
use crate::model::{Model, PackageInfo};
use crate::syntax::files::{law_to_json, read_header, read_package_file, Format, Header};
use crate::syntax::hash::{canonical_json, sha256_hex};
use crate::syntax::{Import, Package, ReadLimits};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// One package of a closure, as read.
#[derive(Clone, Debug)]
pub struct Layer {
    pub package: Package,
    /// The file it was read from (as found on the search path).
    pub file: PathBuf,
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// Indices into [`Closure::layers`] of the packages it imports directly.
    pub imports: Vec<usize>,
}

impl Layer {
    /// `` `name` version (file) ``.
    pub fn describe(&self) -> String {
        describe(&self.package.name, &self.package.version, &self.file)
    }
}

fn describe(name: &str, version: &str, file: &Path) -> String {
    if file.as_os_str().is_empty() {
        format!("`{name}` {version}")
    } else {
        format!("`{name}` {version} ({})", file.display())
    }
}

/// A package and everything it imports, transitively.
#[derive(Clone, Debug)]
pub struct Closure {
    /// Every package once, each after the packages it imports; the root last.
    pub layers: Vec<Layer>,
}

impl Closure {
    /// The root package (`None` only for a closure built by hand without layers).
    pub fn root(&self) -> Option<&Layer> {
        self.layers.last()
    }
}

/// What the search path holds for one import entry.
#[derive(Clone, Debug)]
pub enum Found {
    /// Exactly one package file: its path, header and bytes.
    One(PathBuf, Header, Vec<u8>),
    /// No package file.
    Nothing,
    /// Several files, in search-path order: the import is ambiguous.
    Many(Vec<PathBuf>),
}

impl Found {
    /// The file found, or the first of several.
    fn first(&self) -> Option<&Path> {
        match self {
            Found::One(p, _, _) => Some(p),
            Found::Many(ps) => ps.first().map(PathBuf::as_path),
            Found::Nothing => None,
        }
    }
}

/// Where imported packages are found.
pub trait Files {
    /// The directories (or other places) searched for an import of a
    /// package read from `importer`, in order, as the not-found error lists them.
    fn search_path(&self, importer: &Path) -> Vec<String>;

    /// Every package file on the search path whose header names `name`
    /// and `version`: one is the import, more than one an ambiguity.
    fn find(&mut self, importer: &Path, name: &str, version: &str, limits: &ReadLimits) -> Found;

    /// The lock file that pins the imports of the root package read from
    /// `root` (docs/reference.md#lock-files), where these files have one.
    fn lock_file(&self, _root: &Path) -> Option<PathBuf> {
        None
    }
}

/// A package file of a search-path directory, as listed once.
#[derive(Clone, Debug)]
struct Candidate {
    path: PathBuf,
    /// The canonical path, so that a directory listed twice (the
    /// importer's own, given again with `--import-path`) is one candidate.
    real: PathBuf,
}

/// The file system: the importing file's own directory, then each
/// `--import-path` / `Builder::import_path` directory, in order.
#[derive(Clone, Debug, Default)]
pub struct SearchPath {
    pub dirs: Vec<PathBuf>,
    /// Each directory's package files by `(name, version)`, read once, so
    /// that resolving a closure reads every candidate's header once.
    listed: HashMap<PathBuf, HashMap<(String, String), Vec<Candidate>>>,
}

impl SearchPath {
    pub fn new(dirs: &[PathBuf]) -> Self {
        SearchPath {
            dirs: dirs.to_vec(),
            listed: HashMap::new(),
        }
    }

    fn dirs_for(&self, importer: &Path) -> Vec<PathBuf> {
        let mut dirs = Vec::new();
        if !importer.as_os_str().is_empty() {
            let own = importer.parent().unwrap_or(Path::new(""));
            dirs.push(if own.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                own.to_owned()
            });
        }
        dirs.extend(self.dirs.iter().cloned());
        dirs
    }

    /// The package files of `dir` by `(name, version)`, sorted by path.
    fn list(dir: &Path, limits: &ReadLimits) -> HashMap<(String, String), Vec<Candidate>> {
        let mut by_id: HashMap<(String, String), Vec<Candidate>> = HashMap::new();
        let Ok(entries) = std::fs::read_dir(dir) else {
            return by_id;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| Format::of(p).is_some() && p.is_file())
            .collect();
        files.sort();
        for path in files {
            // A directory given as `.` names its files without `./`.
            let path = path.strip_prefix(".").map(Path::to_owned).unwrap_or(path);
            let Some(header) = read_candidate(&path, limits).map(|(h, _)| h) else {
                continue;
            };
            let real = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
            by_id
                .entry((header.name, header.version))
                .or_default()
                .push(Candidate { path, real });
        }
        by_id
    }
}

/// The header and bytes of a package file, or `None` when it is too large,
/// unreadable or not a package.
fn read_candidate(path: &Path, limits: &ReadLimits) -> Option<(Header, Vec<u8>)> {
    let bytes = crate::syntax::files::read_limited(path, limits.max_bytes).ok()?;
    let header = read_header(path, &bytes, limits)?;
    Some((header, bytes))
}

impl Files for SearchPath {
    fn search_path(&self, importer: &Path) -> Vec<String> {
        self.dirs_for(importer)
            .iter()
            .map(|d| d.display().to_string())
            .collect()
    }

    fn find(&mut self, importer: &Path, name: &str, version: &str, limits: &ReadLimits) -> Found {
        let key = (name.to_owned(), version.to_owned());
        let mut hits: Vec<&Candidate> = Vec::new();
        let dirs = self.dirs_for(importer);
        for dir in &dirs {
            if !self.listed.contains_key(dir) {
                let listing = SearchPath::list(dir, limits);
                self.listed.insert(dir.clone(), listing);
            }
        }
        for dir in &dirs {
            for c in self.listed[dir].get(&key).into_iter().flatten() {
                if !hits.iter().any(|h| h.real == c.real) {
                    hits.push(c);
                }
            }
        }
        match hits.as_slice() {
            [] => Found::Nothing,
            [one] => match read_candidate(&one.path, limits) {
                // Read again: the file may have changed since it was listed.
                Some((h, bytes)) if h.name == name && h.version == version => {
                    Found::One(one.path.clone(), h, bytes)
                }
                _ => Found::Nothing,
            },
            many => Found::Many(many.iter().map(|c| c.path.clone()).collect()),
        }
    }

    fn lock_file(&self, root: &Path) -> Option<PathBuf> {
        (!root.as_os_str().is_empty()).then(|| lock_path(root))
    }
}

/// Package files held in memory (a closure bundle), searched in order.
#[derive(Clone, Debug)]
pub struct InMemory {
    pub files: Vec<(PathBuf, Vec<u8>)>,
    /// Each file's header, read on the first search (`None` for a file
    /// that is not a package), so a closure reads each header once.
    headers: Option<Vec<Option<Header>>>,
}

impl InMemory {
    pub fn new(files: Vec<(PathBuf, Vec<u8>)>) -> Self {
        InMemory {
            files,
            headers: None,
        }
    }
}

impl Files for InMemory {
    fn search_path(&self, _: &Path) -> Vec<String> {
        vec!["the packages embedded with the generated module".to_owned()]
    }

    fn find(&mut self, _: &Path, name: &str, version: &str, limits: &ReadLimits) -> Found {
        let files = &self.files;
        let headers = self.headers.get_or_insert_with(|| {
            files
                .iter()
                .map(|(path, bytes)| read_header(path, bytes, limits))
                .collect()
        });
        let mut hits: Vec<usize> = headers
            .iter()
            .enumerate()
            .filter(|(_, h)| {
                h.as_ref()
                    .is_some_and(|h| h.name == name && h.version == version)
            })
            .map(|(i, _)| i)
            .collect();
        match hits.len() {
            0 => Found::Nothing,
            1 => {
                let i = hits.remove(0);
                let (path, bytes) = &self.files[i];
                match &headers[i] {
                    Some(h) => Found::One(path.clone(), h.clone(), bytes.clone()),
                    None => Found::Nothing,
                }
            }
            _ => Found::Many(hits.into_iter().map(|i| self.files[i].0.clone()).collect()),
        }
    }
}

/// Reads the package in `bytes` (from `path`) and, transitively, every
/// package it imports.
pub fn resolve(
    path: &Path,
    // The root's package JSON (a `.law` root converted by the caller).
    bytes: Vec<u8>,
    files: &mut dyn Files,
    limits: &ReadLimits,
) -> Result<Closure, Diagnostics> {
    let mut r = Resolver {
        files,
        limits,
        layers: Vec::new(),
        by_name: HashMap::new(),
        stack: Vec::new(),
        on_stack: HashMap::new(),
        diags: Diagnostics::new(),
    };
    let root = r.visit(path.to_owned(), bytes, None);
    let mut diags = r.diags;
    if root.is_some() && diags.is_empty() {
        let closure = Closure { layers: r.layers };
        if let Some(lock) = files.lock_file(path) {
            diags = verify_lock(&closure, &lock, limits);
        }
        if diags.is_empty() {
            return Ok(closure);
        }
    }
    diags.sort();
    Err(diags)
}

struct Resolver<'a> {
    files: &'a mut dyn Files,
    limits: &'a ReadLimits,
    layers: Vec<Layer>,
    /// Loaded packages by name.
    by_name: HashMap<String, usize>,
    /// The packages being visited, outermost first: name, version, file.
    stack: Vec<(String, String, PathBuf)>,
    /// Each name on `stack`, with its position there.
    on_stack: HashMap<String, usize>,
    diags: Diagnostics,
}

impl Resolver<'_> {
    /// Reads one package and its imports; `label` is how diagnostics name it
    /// (`None` for the root). Returns its index in `layers`.
    fn visit(&mut self, file: PathBuf, bytes: Vec<u8>, label: Option<String>) -> Option<usize> {
        // The root arrives as package JSON whatever its form (the caller
        // converted a `.law` root and rendered its syntax errors); imported
        // files are read in their own form.
        let read = if label.is_none() {
            crate::syntax::read_package(&bytes, self.limits)
        } else {
            read_package_file(&file, &bytes, self.limits)
        };
        let package = match read {
            Ok(p) => p,
            Err(d) => {
                self.diags.extend(match &label {
                    Some(l) => d.in_package(l),
                    None => d,
                });
                return None;
            }
        };
        let here = |loc: Location| match &label {
            Some(l) => loc.in_package(l.clone()),
            None => loc,
        };
        self.on_stack.insert(package.name.clone(), self.stack.len());
        self.stack
            .push((package.name.clone(), package.version.clone(), file.clone()));
        let mut imports = Vec::new();
        let mut ok = true;
        for entry in &package.imports {
            let at = here(Location::new(None, &entry.ptr));
            match self.import(entry, &file, at) {
                Some(i) => imports.push(i),
                None => ok = false,
            }
        }
        if let Some((name, _, _)) = self.stack.pop() {
            self.on_stack.remove(&name);
        }
        if !ok {
            return None;
        }
        // Not loaded yet: `import` reuses a loaded package, and refuses one
        // that is still on the stack.
        self.by_name.insert(package.name.clone(), self.layers.len());
        self.layers.push(Layer {
            package,
            file,
            bytes,
            imports,
        });
        Some(self.layers.len() - 1)
    }

    fn import(&mut self, entry: &Import, importer: &Path, at: Location) -> Option<usize> {
        let this = describe(&entry.name, &entry.version, Path::new(""));
        // On the way in from the root: a cycle, or another version of a
        // package that is still being read.
        if self.stack.len() >= MAX_IMPORT_DEPTH {
            self.diags.error(
                Code::Limit,
                at,
                format!("the imports nest more than {MAX_IMPORT_DEPTH} packages deep (here {this})"),
                "import the packages a layer builds on directly rather than through a long chain, or merge layers",
            );
            return None;
        }
        if let Some(&pos) = self.on_stack.get(&entry.name) {
            let (_, version, file) = self.stack[pos].clone();
            if version == entry.version {
                let mut cycle: Vec<String> = self.stack[pos..]
                    .iter()
                    .map(|(n, v, _)| describe(n, v, Path::new("")))
                    .collect();
                cycle.push(this);
                self.diags.error(
                    Code::ImportCycle,
                    at,
                    format!("import cycle: {}", cycle.join(" → ")),
                    "a package cannot import itself, directly or through others: move what both need into a package that both import",
                );
            } else {
                let other = self
                    .files
                    .find(importer, &entry.name, &entry.version, self.limits);
                self.clash(entry, &version, &file, other.first(), at);
            }
            return None;
        }
        if let Some(&i) = self.by_name.get(&entry.name) {
            let l = &self.layers[i];
            if l.package.version != entry.version {
                let (version, file) = (l.package.version.clone(), l.file.clone());
                let other = self
                    .files
                    .find(importer, &entry.name, &entry.version, self.limits);
                self.clash(entry, &version, &file, other.first(), at);
                return None;
            }
            let header = Header {
                name: l.package.name.clone(),
                version: l.package.version.clone(),
                namespace: Some(l.package.namespace.clone()),
                semantic_hash: l.package.semantic_hash.clone(),
            };
            let file = l.file.clone();
            return self.identity(entry, &header, &file, at).then_some(i);
        }
        let (file, header, bytes) = match self.files.find(
            importer,
            &entry.name,
            &entry.version,
            self.limits,
        ) {
            Found::One(file, header, bytes) => (file, header, bytes),
            Found::Many(files) => {
                let list: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
                self.diags.error(
                    Code::ImportAmbiguous,
                    at,
                    format!(
                        "{} files on the import search path are package {this}: {}",
                        files.len(),
                        list.join(", ")
                    ),
                    "keep one file with this `package.name` and `package.version` on the search path (remove the others, or move them out of these directories), so that what is imported does not depend on the order of the search path",
                );
                return None;
            }
            Found::Nothing => {
                let path = self.files.search_path(importer);
                self.diags.error(
                    Code::ImportNotFound,
                    at,
                    format!(
                        "no package {this} on the import search path: {}",
                        if path.is_empty() {
                            "(empty: the package was not read from a file and no import path is given)".to_owned()
                        } else {
                            path.join(", ")
                        }
                    ),
                    "put the package's file (`*.json`, with this `package.name` and `package.version`) in one of these directories, or add its directory with `--import-path DIR` (`Builder::import_path`)",
                );
                return None;
            }
        };
        if !self.identity(entry, &header, &file, at) {
            return None;
        }
        let label = describe(&entry.name, &entry.version, &file);
        self.visit(file, bytes, Some(label))
    }

    /// The namespace and `semanticHash` an entry pins, against the package found.
    fn identity(&mut self, entry: &Import, found: &Header, file: &Path, at: Location) -> bool {
        let this = describe(&entry.name, &entry.version, Path::new(""));
        let mut ok = true;
        let ns = found.namespace.as_deref().unwrap_or("");
        if ns != entry.namespace {
            self.diags.error(
                Code::ImportNamespace,
                at.clone(),
                format!(
                    "the import of {this} expects namespace `{}`, the package in {} has namespace `{ns}`",
                    entry.namespace,
                    file.display()
                ),
                "fix the import entry's `namespace`, or put the intended package on the search path",
            );
            ok = false;
        }
        if found.semantic_hash.as_deref() != Some(entry.semantic_hash.as_str()) {
            self.diags.error(
                Code::ImportSemanticHash,
                at,
                format!(
                    "the import of {this} pins semanticHash `{}`, the package in {} has {}",
                    entry.semantic_hash,
                    file.display(),
                    match &found.semantic_hash {
                        Some(h) => format!("`{h}`"),
                        None => "none".to_owned(),
                    }
                ),
                "the imported package is not the one this import was written against: review what changed, then pin its semanticHash, or import the version that has the pinned one",
            );
            ok = false;
        }
        ok
    }

    fn clash(
        &mut self,
        entry: &Import,
        version: &str,
        file: &Path,
        other: Option<&Path>,
        at: Location,
    ) {
        let other = match other {
            Some(p) => p.display().to_string(),
            None => "not found on the search path".to_owned(),
        };
        self.diags.error(
            Code::ImportVersionClash,
            at,
            format!(
                "two versions of `{}` in one import closure: {version} ({}) and {} ({other})",
                entry.name,
                file.display(),
                entry.version
            ),
            "every package of an import closure must import the same version of a package: align the `version` (and `semanticHash`) of these imports",
        );
    }
}

/// Checks a resolved closure (step 2 of the module docs) and builds the
/// [`Model`] of its root.
pub fn check_closure(closure: &Closure) -> Result<Model, Diagnostics> {
    let n = closure.layers.len();
    if n == 0 {
        let mut d = Diagnostics::new();
        d.error(
            Code::BadField,
            Location::default(),
            "an import closure without packages",
            "resolve a package with `imports::resolve` first",
        );
        return Err(d);
    }
    let root = n - 1;
    if n == 1 {
        let mut model = crate::check::check(&closure.layers[0].package)?;
        model.packages[0].file = closure.layers[0].file.display().to_string();
        return Ok(model);
    }
    let label = |i: usize| (i != root).then(|| closure.layers[i].describe());
    let tag = |i: usize, d: Diagnostics| match label(i) {
        Some(l) => d.in_package(&l),
        None => d,
    };
    let mut diags = Diagnostics::new();
    // Global ids: each in its package's namespace, and declared once.
    let mut owner: HashMap<&str, usize> = HashMap::new();
    for (i, l) in closure.layers.iter().enumerate() {
        let ns = &l.package.namespace;
        let mut d = Diagnostics::new();
        for node in &l.package.nodes {
            if let Some(&first) = owner.get(node.id.as_str()) {
                // The real story; that the id lies outside this package's
                // namespace follows from it.
                d.error(
                    Code::DuplicateId,
                    Location::new(Some(&node.id), crate::diagnostics::pointer_push(&node.ptr, "id")),
                    format!(
                        "the id is declared by two packages: {} and {}",
                        closure.layers[first].describe(),
                        l.describe()
                    ),
                    "a package can neither change nor redeclare an imported node: give this node a new id in its own namespace (a defeater or a priority sets an imported rule aside)",
                );
                continue;
            }
            owner.insert(&node.id, i);
            let prefixed = node
                .id
                .strip_prefix(ns.as_str())
                .is_some_and(|rest| rest.starts_with('#'));
            if ns.is_empty() || !prefixed || node.package.as_deref() != Some(ns.as_str()) {
                d.error(
                    Code::ImportForeignNode,
                    Location::new(Some(&node.id), &node.ptr),
                    format!(
                        "in a package that imports or is imported, every node's id must begin with its namespace `{ns}` followed by `#`, and its `package` field must be that namespace (found {})",
                        match &node.package {
                            Some(p) => format!("`package` `{p}`"),
                            None => "no `package` field".to_owned(),
                        }
                    ),
                    "ids are global across an import closure: give the node an id in its own package's namespace (a package cannot change an imported node, only add its own)",
                );
            }
        }
        diags.extend(tag(i, d));
    }
    if !diags.is_empty() {
        diags.sort();
        return Err(diags);
    }
    // Each package with its own closure, imports first, so that an error
    // inside an imported package is reported as that package's. That is
    // the sum of the closures' sizes, quadratic in the depth of a chain of
    // imports: bounded before any of it is done.
    let members: Vec<Vec<usize>> = (0..n).map(|i| closure_of(closure, i)).collect();
    let sizes: Vec<usize> = closure
        .layers
        .iter()
        .map(|l| l.package.nodes.len().max(1))
        .collect();
    let total: usize = sizes.iter().sum();
    let work: usize = members
        .iter()
        .map(|m| m.iter().map(|&j| sizes[j]).sum::<usize>())
        .sum();
    let limit = MAX_CLOSURE_CHECK.max(8 * total);
    if work > limit {
        let mut d = Diagnostics::new();
        d.error(
            Code::Limit,
            Location::default(),
            format!(
                "the imports nest too deep to check: each of the {n} packages is checked with its own imports, {work} nodes in all, more than the limit of {limit} (8 times the closure's {total} nodes, and at least {MAX_CLOSURE_CHECK})"
            ),
            "import the packages a layer builds on directly rather than through a long chain, or merge layers",
        );
        return Err(d);
    }
    let check = |i: usize| {
        let members = members[i].clone();
        let (pkg, layer_of) = union(closure, i, &members);
        crate::check::check_layered(&pkg, &layer_of)
            .map(|model| (model, members))
            .map_err(|d| {
                let mut d = tag_by_origin(d, closure, &owner, i);
                d.sort();
                d
            })
    };
    for i in 0..root {
        check(i)?;
    }
    let (mut model, members) = check(root)?;
    fill_origins(&mut model, closure, &members);
    Ok(model)
}

/// Most nodes checked across the packages of a closure, each with its own
/// imports (docs/security.md), unless 8 times the closure's nodes is more.
pub const MAX_CLOSURE_CHECK: usize = 1_000_000;

/// Deepest nesting of imports (docs/security.md): resolution reads them
/// depth first.
pub const MAX_IMPORT_DEPTH: usize = 200;

/// The packages layer `i` imports, transitively, and `i`, in closure order.
fn closure_of(closure: &Closure, i: usize) -> Vec<usize> {
    let mut seen = vec![false; closure.layers.len()];
    let mut todo = vec![i];
    seen[i] = true;
    while let Some(j) = todo.pop() {
        for &k in &closure.layers[j].imports {
            if !seen[k] {
                seen[k] = true;
                todo.push(k);
            }
        }
    }
    (0..closure.layers.len()).filter(|&j| seen[j]).collect()
}

/// The union of `members`' nodes as one package named after layer `top`,
/// with the member each node comes from.
fn union(closure: &Closure, top: usize, members: &[usize]) -> (Package, Vec<u32>) {
    let t = &closure.layers[top].package;
    let mut nodes = Vec::new();
    let mut layer_of = Vec::new();
    for &m in members {
        for node in &closure.layers[m].package.nodes {
            nodes.push(node.clone());
            layer_of.push(m as u32);
        }
    }
    let pkg = Package {
        name: t.name.clone(),
        namespace: t.namespace.clone(),
        version: t.version.clone(),
        semantic_hash: t.semantic_hash.clone(),
        imports: Vec::new(),
        features: t.features.clone(),
        nodes,
    };
    (pkg, layer_of)
}

/// A diagnostic at a node is that node's package's; any other belongs to
/// the package being checked (`checking`).
fn tag_by_origin(
    d: Diagnostics,
    closure: &Closure,
    owner: &HashMap<&str, usize>,
    checking: usize,
) -> Diagnostics {
    let root = closure.layers.len() - 1;
    let mut out = Diagnostics::new();
    for mut diag in d {
        let layer = diag
            .location
            .node
            .as_deref()
            .and_then(|id| owner.get(id).copied())
            .unwrap_or(checking);
        if layer != root && diag.location.package.is_none() {
            diag.location.package = Some(closure.layers[layer].describe());
        }
        out.push(diag);
    }
    out
}

/// Records in the root's model which package every node comes from.
fn fill_origins(model: &mut Model, closure: &Closure, members: &[usize]) {
    let root = closure.layers.len() - 1;
    // The root first, then its imports in closure order.
    let mut order: Vec<usize> = vec![root];
    order.extend(members.iter().copied().filter(|&m| m != root));
    let index: HashMap<usize, usize> = order.iter().enumerate().map(|(k, &m)| (m, k)).collect();
    model.packages = order
        .iter()
        .map(|&m| {
            let l = &closure.layers[m];
            PackageInfo {
                name: l.package.name.clone(),
                namespace: l.package.namespace.clone(),
                version: l.package.version.clone(),
                semantic_hash: l.package.semantic_hash.clone(),
                file: l.file.display().to_string(),
                imports: l.imports.iter().map(|i| index[i]).collect(),
            }
        })
        .collect();
    model.origin.clear();
    for &m in members {
        if m == root {
            continue;
        }
        for node in &closure.layers[m].package.nodes {
            model.origin.insert(node.id.clone(), index[&m] as u32);
        }
    }
}

// ---------------------------------------------------------------- lock files

/// The first line of every lock file's `schemaVersion`.
pub const LOCK_SCHEMA: &str = "lawgen.lock/1";

/// The lock file of the package file `root` (docs/reference.md#lock-files):
/// beside it, its name with `.lock` appended (`club.json` → `club.json.lock`).
pub fn lock_path(root: &Path) -> PathBuf {
    let mut name = root.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Hex SHA-256 of a package's canonical bytes: its package JSON (a `.law`
/// file converted) serialized as content hashes are, compact with sorted
/// keys, so that reformatting a file does not change it and any other edit does.
pub fn canonical_digest(layer: &Layer) -> String {
    let json = match Format::of(&layer.file) {
        Some(Format::Law) => law_to_json(&layer.bytes).ok(),
        _ => None,
    };
    let bytes = json.as_deref().unwrap_or(&layer.bytes);
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(v) => sha256_hex(canonical_json(&v).as_bytes()),
        // Not reached for a package that was read; its bytes as they are.
        Err(_) => sha256_hex(bytes),
    }
}

/// Checks a closure against the lock file at `lock`, when there is one:
/// every imported package recorded, with the same version and digest, and
/// nothing else recorded.
fn verify_lock(closure: &Closure, lock: &Path, limits: &ReadLimits) -> Diagnostics {
    let mut d = Diagnostics::new();
    let Some(root) = closure.root() else {
        return d;
    };
    let shown = lock.display().to_string();
    let relock = "run `lawgen lock PACKAGE` to write the lock file again for the imports as they are now (after reviewing what changed), or delete it to stop pinning them";
    let stale = |d: &mut Diagnostics, message: String| {
        d.error(Code::LockStale, Location::default(), message, relock);
    };
    let bytes = match std::fs::metadata(lock) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return d,
        Ok(m) if m.is_file() && m.len() <= limits.max_bytes as u64 => {
            crate::syntax::files::read_limited(lock, limits.max_bytes).map_err(|e| e.to_string())
        }
        Ok(m) if m.is_file() => {
            stale(
                &mut d,
                format!(
                    "the lock file {shown} is {} bytes, more than the limit of {} bytes",
                    m.len(),
                    limits.max_bytes
                ),
            );
            return d;
        }
        Ok(_) => {
            stale(
                &mut d,
                format!("the lock file {shown} is not a regular file"),
            );
            return d;
        }
        Err(e) => Err(e.to_string()),
    };
    let bytes = match bytes {
        Ok(b) => b,
        Err(e) => {
            stale(&mut d, format!("the lock file {shown} cannot be read: {e}"));
            return d;
        }
    };
    let Some(recorded) = parse_lock(&bytes) else {
        stale(
            &mut d,
            format!("the lock file {shown} is not a lawgen lock file (`schemaVersion` `{LOCK_SCHEMA}`, `package`, `imports`)"),
        );
        return d;
    };
    let (name, version) = (&root.package.name, &root.package.version);
    if (&recorded.name, &recorded.version) != (name, version) {
        stale(
            &mut d,
            format!(
                "the lock file {shown} was written for {}, this package is {}",
                describe(&recorded.name, &recorded.version, Path::new("")),
                describe(name, version, Path::new(""))
            ),
        );
        return d;
    }
    let imported = &closure.layers[..closure.layers.len() - 1];
    for l in imported {
        let this = describe(&l.package.name, &l.package.version, Path::new(""));
        match recorded.imports.iter().find(|e| e.0 == l.package.name) {
            None => stale(
                &mut d,
                format!("{this} is imported, and the lock file {shown} does not record it"),
            ),
            Some((_, v, _)) if *v != l.package.version => stale(
                &mut d,
                format!(
                    "the lock file {shown} records `{}` {v}, the closure imports {this}",
                    l.package.name
                ),
            ),
            Some((_, _, digest)) => {
                let actual = canonical_digest(l);
                if actual != *digest {
                    d.error(
                        Code::LockMismatch,
                        Location::default().in_package(l.describe()),
                        format!(
                            "{this} has SHA-256 {actual}, the lock file {shown} records {digest}"
                        ),
                        "the imported package changed since the lock file was written: restore it, or review the change and run `lawgen lock PACKAGE` to pin the new one",
                    );
                }
            }
        }
    }
    for (n, v, _) in &recorded.imports {
        if !imported.iter().any(|l| l.package.name == *n) {
            stale(
                &mut d,
                format!(
                    "the lock file {shown} records {}, which the closure does not import",
                    describe(n, v, Path::new(""))
                ),
            );
        }
    }
    d
}

/// A lock file as read: the root's name and version, and each import's
/// name, version and digest.
struct Lock {
    name: String,
    version: String,
    imports: Vec<(String, String, String)>,
}

fn parse_lock(bytes: &[u8]) -> Option<Lock> {
    use serde_json::Value;
    let v: Value = serde_json::from_slice(bytes).ok()?;
    if v.get("schemaVersion")?.as_str()? != LOCK_SCHEMA {
        return None;
    }
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    let package = v.get("package")?;
    let mut imports = Vec::new();
    for e in v.get("imports")?.as_array()? {
        imports.push((s(e, "name")?, s(e, "version")?, s(e, "sha256")?));
    }
    Some(Lock {
        name: s(package, "name")?,
        version: s(package, "version")?,
        imports,
    })
}

/// The search path, without the lock file it would verify: what a lock
/// file being (re)written resolves against, since it may be stale.
pub struct Unlocked(pub SearchPath);

impl Files for Unlocked {
    fn search_path(&self, importer: &Path) -> Vec<String> {
        self.0.search_path(importer)
    }

    fn find(&mut self, importer: &Path, name: &str, version: &str, limits: &ReadLimits) -> Found {
        self.0.find(importer, name, version, limits)
    }
}

/// The lock file of a resolved closure: the root's name and version, and
/// the name, version and [`canonical_digest`] of every package it imports,
/// transitively, in closure order.
pub fn write_lock(closure: &Closure) -> String {
    let Some(root) = closure.root() else {
        return String::new();
    };
    let imports: Vec<serde_json::Value> = closure.layers[..closure.layers.len() - 1]
        .iter()
        .map(|l| {
            serde_json::json!({
                "name": l.package.name,
                "version": l.package.version,
                "sha256": canonical_digest(l),
            })
        })
        .collect();
    let lock = serde_json::json!({
        "schemaVersion": LOCK_SCHEMA,
        "package": {"name": root.package.name, "version": root.package.version},
        "imports": imports,
    });
    let mut text = serde_json::to_string_pretty(&lock).unwrap_or_default();
    text.push('\n');
    text
}
