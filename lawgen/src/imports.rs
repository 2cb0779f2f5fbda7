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
use crate::syntax::files::{read_header, read_package_file, Format, Header};
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

/// Where imported packages are found.
pub trait Files {
    /// The directories (or other places) searched for an import of a
    /// package read from `importer`, in order, as the not-found error lists them.
    fn search_path(&self, importer: &Path) -> Vec<String>;

    /// The first package file on the search path whose header names
    /// `name` and `version`, with its header and bytes.
    fn find(
        &mut self,
        importer: &Path,
        name: &str,
        version: &str,
        limits: &ReadLimits,
    ) -> Option<(PathBuf, Header, Vec<u8>)>;
}

/// The file system: the importing file's own directory, then each
/// `--import-path` / `Builder::import_path` directory, in order.
#[derive(Clone, Debug, Default)]
pub struct SearchPath {
    pub dirs: Vec<PathBuf>,
    /// Headers already read, by file.
    headers: HashMap<PathBuf, Option<Header>>,
}

impl SearchPath {
    pub fn new(dirs: &[PathBuf]) -> Self {
        SearchPath {
            dirs: dirs.to_vec(),
            headers: HashMap::new(),
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
}

impl Files for SearchPath {
    fn search_path(&self, importer: &Path) -> Vec<String> {
        self.dirs_for(importer)
            .iter()
            .map(|d| d.display().to_string())
            .collect()
    }

    fn find(
        &mut self,
        importer: &Path,
        name: &str,
        version: &str,
        limits: &ReadLimits,
    ) -> Option<(PathBuf, Header, Vec<u8>)> {
        for dir in self.dirs_for(importer) {
            // Sorted, so that "the first one wins" does not depend on the file system.
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            let mut files: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| Format::of(p).is_some() && p.is_file())
                .collect();
            files.sort();
            for path in files {
                // A directory given as `.` names its files without `./`.
                let path = path.strip_prefix(".").map(Path::to_owned).unwrap_or(path);
                let cached = self.headers.get(&path).cloned();
                let (header, bytes) = match cached {
                    Some(None) => continue,
                    Some(Some(h)) if h.name != name || h.version != version => continue,
                    _ => {
                        let bytes =
                            crate::syntax::files::read_limited(&path, limits.max_bytes).ok();
                        let header = bytes.as_deref().and_then(|b| read_header(&path, b, limits));
                        self.headers.insert(path.clone(), header.clone());
                        match (header, bytes) {
                            (Some(h), Some(b)) => (h, b),
                            _ => continue,
                        }
                    }
                };
                if header.name == name && header.version == version {
                    return Some((path, header, bytes));
                }
            }
        }
        None
    }
}

/// Package files held in memory (a closure bundle), searched in order.
#[derive(Clone, Debug)]
pub struct InMemory {
    pub files: Vec<(PathBuf, Vec<u8>)>,
}

impl Files for InMemory {
    fn search_path(&self, _: &Path) -> Vec<String> {
        vec!["the packages embedded with the generated module".to_owned()]
    }

    fn find(
        &mut self,
        _: &Path,
        name: &str,
        version: &str,
        limits: &ReadLimits,
    ) -> Option<(PathBuf, Header, Vec<u8>)> {
        self.files.iter().find_map(|(path, bytes)| {
            let h = read_header(path, bytes, limits)?;
            (h.name == name && h.version == version).then(|| (path.clone(), h, bytes.clone()))
        })
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
        diags: Diagnostics::new(),
    };
    let root = r.visit(path.to_owned(), bytes, None);
    let mut diags = r.diags;
    diags.sort();
    match root {
        Some(_) if diags.is_empty() => Ok(Closure { layers: r.layers }),
        _ => Err(diags),
    }
}

struct Resolver<'a> {
    files: &'a mut dyn Files,
    limits: &'a ReadLimits,
    layers: Vec<Layer>,
    /// Loaded packages by name.
    by_name: HashMap<String, usize>,
    /// The packages being visited, outermost first: name, version, file.
    stack: Vec<(String, String, PathBuf)>,
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
        self.stack.pop();
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
        if let Some(pos) = self.stack.iter().position(|(n, _, _)| *n == entry.name) {
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
                self.clash(entry, &version, &file, other.map(|(p, _, _)| p), at);
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
                self.clash(entry, &version, &file, other.map(|(p, _, _)| p), at);
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
        let Some((file, header, bytes)) =
            self.files
                .find(importer, &entry.name, &entry.version, self.limits)
        else {
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
        other: Option<PathBuf>,
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
    // inside an imported package is reported as that package's.
    let reach = reachable(closure);
    let check = |i: usize| {
        let members: Vec<usize> = (0..n).filter(|&j| reach[i][j]).collect();
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

/// `reach[i][j]`: package `i` imports `j`, transitively (or `i == j`).
fn reachable(closure: &Closure) -> Vec<Vec<bool>> {
    let n = closure.layers.len();
    let mut reach = vec![vec![false; n]; n];
    // Layers come after their imports, so one pass in order suffices.
    for i in 0..n {
        reach[i][i] = true;
        for &j in &closure.layers[i].imports {
            let below = reach[j].clone();
            for (k, r) in below.into_iter().enumerate() {
                reach[i][k] |= r;
            }
        }
    }
    reach
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
