#!/bin/sh
# All of licorice's tests, Go and JavaScript: the README's test command,
# which .ci/run runs too. It installs the npm packages it needs from their
# lockfiles: the Node.js recorder's (recorders/node), the real-bug
# harnesses' (eval/nodebugs) and the browser test's of the HTML reports
# (detect/htmlreport/browser, which needs Chromium: see the README).
set -eu
cd "$(dirname "$0")"
npm ci --prefix recorders/node --no-audit --no-fund
npm ci --prefix eval/nodebugs --no-audit --no-fund
npm ci --prefix detect/htmlreport/browser --no-audit --no-fund
LICORICE_REQUIRE_NODE=1 go test -skip '^TestRunNode$' ./...
# The real-bug evaluation records Node.js programs whose schedules depend
# on timing (as real programs' do): it runs alone, not beside the other
# packages' tests, which would load both cores.
LICORICE_REQUIRE_NODE=1 go test -run '^TestRunNode$' ./eval
npm test --prefix recorders/node
# The HTML reports in a real browser: Debian's chromium (/usr/bin/chromium,
# or LICORICE_CHROMIUM), driven by playwright-core.
npm test --prefix detect/htmlreport/browser
