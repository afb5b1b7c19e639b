// Package fuzz holds the framework's fuzz target. It lives apart from the
// framework's own tests so that the instrumented build `go test -fuzz`
// makes covers the framework and its small dependencies only, not the
// OpenAPI validators those tests import.
package fuzz
