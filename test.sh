#!/bin/sh
# All of licorice's tests, Go and JavaScript: the README's test command,
# which .ci/run runs too. It installs the npm packages it needs from their
# lockfiles: the Node.js recorder's (recorders/node) and the real-bug
# harnesses' (eval/nodebugs).
set -eu
cd "$(dirname "$0")"
npm ci --prefix recorders/node --no-audit --no-fund
npm ci --prefix eval/nodebugs --no-audit --no-fund
LICORICE_REQUIRE_NODE=1 go test ./...
npm test --prefix recorders/node
