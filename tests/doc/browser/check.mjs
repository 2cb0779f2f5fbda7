// The review pages `lawgen doc --format html` writes, loaded in a real
// headless Chromium (Debian's, driven by playwright-core) with the network
// off. For every committed page packages/*/NAME.review.LANG.html:
//
// - the page makes no request but its own file, and none fails;
// - no console error and no page error;
// - every link is internal and lands on an element of the page, and a
//   sample of them, followed by navigation, becomes the :target;
// - every node of the package and of its imports has its element
//   (data-node), every article text paragraph and every rule name is in the
//   rendered text;
// - printing hides the navigation;
// - axe-core finds no serious or critical accessibility violation.
//
// A screenshot of the Russian package's page goes to target/doc-browser/
// (and, with LAWGEN_BLESS=1, to docs/doc-review.png).
//
// Usage: node check.mjs [REPO_ROOT]   (default: three levels up)
// Exit 1 on any failure; the last line is "N passed, M failed".

import { chromium } from "playwright-core";
import { readFileSync, readdirSync, mkdirSync, copyFileSync, existsSync } from "node:fs";
import { join, resolve, dirname } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequire } from "node:module";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(process.argv[2] ?? join(here, "..", "..", ".."));
const require = createRequire(import.meta.url);
const axeSource = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const executablePath = process.env.LAWGEN_CHROMIUM ?? "/usr/bin/chromium";

// The flags this machine needs: no sandbox as root, and no background
// connections (the network is closed; they would only fail).
const args = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Every committed page with the package files it documents. */
function pages() {
  const out = [];
  const dirs = readdirSync(join(root, "packages"), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
  const packageFiles = {};
  for (const d of dirs) {
    for (const f of readdirSync(join(root, "packages", d)).sort()) {
      if (f.endsWith(".ir.json")) {
        const json = JSON.parse(readFileSync(join(root, "packages", d, f), "utf8"));
        packageFiles[`${json.package.name}@${json.package.version}`] = json;
      }
    }
  }
  for (const d of dirs) {
    for (const f of readdirSync(join(root, "packages", d)).sort()) {
      const m = f.match(/^(.*)\.review\.(ru|en)\.html$/);
      if (!m) continue;
      const pkg = JSON.parse(readFileSync(join(root, "packages", d, `${m[1]}.ir.json`), "utf8"));
      // The closure: the package and, transitively, what it imports.
      const closure = [];
      const todo = [pkg];
      const seen = new Set();
      while (todo.length) {
        const p = todo.shift();
        const key = `${p.package.name}@${p.package.version}`;
        if (seen.has(key)) continue;
        seen.add(key);
        closure.push(p);
        for (const imp of p.imports ?? []) {
          const dep = packageFiles[`${imp.name}@${imp.version}`];
          if (!dep) throw new Error(`${f}: the imported package ${imp.name} ${imp.version} is not under packages/`);
          todo.push(dep);
        }
      }
      out.push({ file: join(root, "packages", d, f), name: `${d}/${f}`, lang: m[2], closure });
    }
  }
  return out;
}

const norm = (s) => s.replace(/\s+/g, " ").trim();

/** What the document writes for a package string: control characters as Rust escapes (`\n`,
 * `\u{1b}`), format characters and line/paragraph separators as `<U+202E>`. */
function clean(s) {
  const named = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };
  return [...s]
    .map((c) => {
      if (/\p{Cc}/u.test(c)) return named[c] ?? `\\u{${c.codePointAt(0).toString(16)}}`;
      if (/[\p{Cf}\p{Zl}\p{Zp}]/u.test(c))
        return `<U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, "0")}>`;
      return c;
    })
    .join("");
}

async function checkPage(browser, p, failures) {
  const fail = (what) => failures.push(`${p.name}: ${what}`);
  const context = await browser.newContext({ offline: true, viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  const url = pathToFileURL(p.file).href;
  const errors = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console error: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  page.on("request", (r) => {
    if (r.url().split("#")[0] !== url) errors.push(`request for ${r.url()}`);
  });
  page.on("requestfailed", (r) => errors.push(`failed request ${r.url()}: ${r.failure()?.errorText}`));
  await page.goto(url, { waitUntil: "load" });

  // Links: every href is internal and has its target.
  const links = await page.evaluate(() =>
    [...document.querySelectorAll("a[href]")].map((a) => {
      const href = a.getAttribute("href");
      const id = href.startsWith("#") ? decodeURIComponent(href.slice(1)) : null;
      return { href, ok: id !== null && document.getElementById(id) !== null, text: a.textContent };
    }),
  );
  if (links.length < 100) fail(`only ${links.length} links`);
  for (const l of links) if (!l.ok) fail(`link ${l.href} (${l.text}) lands nowhere`);
  // Follow a spread of them: each becomes the :target.
  const step = Math.max(1, Math.floor(links.length / 25));
  for (let i = 0; i < links.length; i += step) {
    const href = links[i].href;
    await page.goto(url + href);
    const target = await page.evaluate(() => document.querySelector(":target")?.id ?? null);
    if (target !== decodeURIComponent(href.slice(1))) fail(`following ${href} targets ${target}`);
  }
  await page.goto(url);

  // Totality and content.
  const { nodes, text } = await page.evaluate(() => ({
    nodes: [...document.querySelectorAll("[data-node]")].map((e) => e.getAttribute("data-node")),
    text: document.body.innerText,
  }));
  const body = norm(text);
  const counts = new Map();
  for (const n of nodes) counts.set(n, (counts.get(n) ?? 0) + 1);
  let rules = 0;
  let paragraphs = 0;
  for (const pkg of p.closure) {
    for (const n of pkg.nodes) {
      const c = counts.get(clean(n.id)) ?? 0;
      if (c !== 1) fail(`node ${n.id} has ${c} elements`);
      counts.delete(clean(n.id));
      if (n.kind === "rule") {
        rules++;
        const local = n.id.slice(n.id.indexOf("#") + 1);
        if (!body.includes(norm(clean(local)))) fail(`rule name ${local} is not on the page`);
      }
      if (n.kind === "fragment") {
        for (const t of n.texts ?? []) {
          for (const para of t.text.split("\n\n")) {
            if (!para.trim()) continue;
            paragraphs++;
            if (!body.includes(norm(clean(para)))) fail(`article text of ${n.id} is not on the page: ${para.slice(0, 80)}…`);
          }
        }
      }
    }
  }
  for (const [id, c] of counts) fail(`${c} element(s) for ${id}, which is no node`);
  if (rules === 0 || paragraphs === 0) fail(`no rules (${rules}) or article paragraphs (${paragraphs}) checked`);

  // Printing: the navigation is not printed.
  await page.emulateMedia({ media: "print" });
  const navShown = await page.evaluate(() => getComputedStyle(document.querySelector("nav")).display !== "none");
  if (navShown) fail("the navigation is printed");
  await page.emulateMedia({ media: "screen" });

  // Accessibility.
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length, target: v.nodes[0]?.target }));
  });
  for (const v of result) {
    if (v.impact === "serious" || v.impact === "critical") {
      fail(`accessibility (${v.impact}) ${v.id}: ${v.help} — ${v.nodes} element(s), e.g. ${JSON.stringify(v.target)}`);
    }
  }
  const minor = result.filter((v) => v.impact !== "serious" && v.impact !== "critical");
  for (const e of errors) fail(e);
  await context.close();
  return { links: links.length, nodes: nodes.length, rules, paragraphs, minor };
}

async function screenshot(browser) {
  const page_ = join(root, "packages", "ru.chess.competition");
  const file = readdirSync(page_).find((f) => f.endsWith(".review.ru.html"));
  if (!file) return;
  const context = await browser.newContext({ offline: true, viewport: { width: 1400, height: 1000 } });
  const page = await context.newPage();
  await page.goto(pathToFileURL(join(page_, file)).href);
  // An article of the Russian rules beside the rules anchored to it.
  const fragment = await page.evaluate(() => {
    const e = [...document.querySelectorAll("article.fragments")].find((a) => a.querySelectorAll(".anchored li").length >= 3);
    e?.scrollIntoView();
    return e?.id ?? null;
  });
  const outDir = join(root, "target", "doc-browser");
  mkdirSync(outDir, { recursive: true });
  const out = join(outDir, "doc-review.png");
  await page.screenshot({ path: out });
  await context.close();
  if (process.env.LAWGEN_BLESS === "1") copyFileSync(out, join(root, "docs", "doc-review.png"));
  console.log(`screenshot of #${fragment}: ${out}`);
}

const list = pages();
if (!existsSync(executablePath)) {
  console.error(`no Chromium at ${executablePath}: apt-get install -y chromium (or set LAWGEN_CHROMIUM)`);
  console.log(`0 passed, ${list.length} failed`);
  process.exit(1);
}
const browser = await chromium.launch({ executablePath, args, headless: true });
let passed = 0;
let failed = 0;
for (const p of list) {
  const failures = [];
  const t0 = Date.now();
  let stats;
  try {
    stats = await checkPage(browser, p, failures);
  } catch (e) {
    failures.push(`${p.name}: ${e.stack ?? e}`);
  }
  if (failures.length) {
    failed++;
    console.log(`FAIL ${p.name}`);
    for (const f of failures.slice(0, 40)) console.log(`  ${f}`);
    if (failures.length > 40) console.log(`  … and ${failures.length - 40} more`);
  } else {
    passed++;
    const minor = stats.minor.map((v) => `${v.id} (${v.impact})`).join(", ") || "none";
    console.log(
      `ok   ${p.name}: ${stats.nodes} nodes, ${stats.links} links, ${stats.rules} rules, ${stats.paragraphs} article paragraphs; minor accessibility findings: ${minor} (${Date.now() - t0} ms)`,
    );
  }
}
try {
  await screenshot(browser);
} catch (e) {
  failed++;
  console.log(`FAIL screenshot: ${e.stack ?? e}`);
}
await browser.close();
if (list.length < 4) {
  failed++;
  console.log(`FAIL only ${list.length} pages found under packages/`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
