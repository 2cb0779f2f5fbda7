#!/usr/bin/env bash
# The review pages (`lawgen doc --format html`, committed as
# packages/*/NAME.review.{ru,en}.html) in a real headless Chromium, network
# off: no request, no console error, every link lands, every node, article
# text and rule name on the page, printing hides the navigation, no serious
# or critical axe-core violation; and a screenshot (target/doc-browser/).
#
# Needs Debian's chromium (.ci/run installs it) and Node.js; the Node
# packages (playwright-core, axe-core, pinned by package-lock.json) are
# installed into tests/doc/browser/node_modules. Nothing is skipped: a
# missing browser is a failure. LAWGEN_BLESS=1 also copies the screenshot
# to docs/doc-review.png.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=tests/doc/browser
if ! command -v node >/dev/null 2>&1; then
  echo "error: node is not installed (apt-get install -y nodejs npm)" >&2
  exit 1
fi
if [ ! -x "${LAWGEN_CHROMIUM:-/usr/bin/chromium}" ]; then
  echo "error: no Chromium at ${LAWGEN_CHROMIUM:-/usr/bin/chromium}: apt-get install -y chromium" >&2
  exit 1
fi
# The pages must be the ones lawgen generates now (the same check as the
# cargo test, so this script can run alone).
cargo test -q -p lawgen --test doc the_committed_review_documents_are_current
if [ ! -d "$dir/node_modules/playwright-core" ] || [ ! -d "$dir/node_modules/axe-core" ] \
   || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
fi
node "$dir/check.mjs" "$PWD"
