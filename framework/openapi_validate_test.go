package framework_test

import (
	"runtime"
	"testing"

	"github.com/actionkit/actionkit/internal/openapitest"
)

func validateOpenAPI(t testing.TB, raw []byte) { t.Helper(); openapitest.Validate(t, raw) }

// failRecorder is a testing.TB that records failures instead of failing.
type failRecorder struct {
	testing.TB
	failed bool
}

func (r *failRecorder) Helper()               {}
func (r *failRecorder) Errorf(string, ...any) { r.failed = true }
func (r *failRecorder) Fatal(...any)          { r.FailNow() }
func (r *failRecorder) Fatalf(string, ...any) { r.FailNow() }
func (r *failRecorder) FailNow()              { r.failed = true; runtime.Goexit() }

// The validation is real: it refuses what OpenAPI 3.1 and JSON Schema
// 2020-12 refuse.
func TestOpenAPIValidatorCatchesErrors(t *testing.T) {
	const head = `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{},`
	// On the test itself first: without node, skip (or fail with CI=true)
	// here rather than in a recorder.
	validateOpenAPI(t, []byte(head+`"components":{"schemas":{"A":{"type":"string"}}}}`))
	for _, tc := range []struct {
		name, doc string
		valid     bool
	}{
		{"valid", head + `"components":{"schemas":{"A":{"type":["string","null"]}}}}`, true},
		{"no info", `{"openapi":"3.1.0","paths":{},"components":{"schemas":{"A":{"type":"string"}}}}`, false},
		{"bad operation", `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{}}}}},"components":{"schemas":{"A":{"type":"string"}}}}`, false},
		{"bad type", head + `"components":{"schemas":{"A":{"type":"strin"}}}}`, false},
		{"bad required", head + `"components":{"schemas":{"A":{"type":"object","required":"a"}}}}`, false},
		{"dangling ref", head + `"components":{"schemas":{"A":{"$ref":"#/components/schemas/B"}}}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &failRecorder{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				validateOpenAPI(r, []byte(tc.doc))
			}()
			<-done
			if r.failed == tc.valid {
				t.Errorf("validation failed: %v, want %v", r.failed, !tc.valid)
			}
		})
	}
}
