// Package golden compares test output with golden files under a test's
// testdata/ and rewrites them when the tests run with -update, the one
// flag every package's golden tests share.
package golden
