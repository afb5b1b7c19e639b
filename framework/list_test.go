package framework

import (
	"net/http"
	"strings"
	"testing"
)

// listArgs has a required list of strings.
type listArgs struct {
	Items []string `arg:"items" validate:"required"`
}

// TestAListArgumentTakesAJSONArrayOfStrings: a []string argument is a JSON
// array of strings; anything else is refused by name, and a missing one is
// required.
func TestAListArgumentTakesAJSONArrayOfStrings(t *testing.T) {
	f := New(Config{})
	Register(f, echoAction[listArgs]{})
	res := do(t, f, http.MethodPost, "/v1/echo", "application/json", `{"items":["a","b"]}`)
	if res.Code != http.StatusOK || res.Raw == "" || !strings.Contains(res.Raw, `"Items":["a","b"]`) {
		t.Fatalf("got %d %s, want 200 with the items", res.Code, res.Raw)
	}
	many := `["` + strings.Repeat(`x","`, maxListItems) + `x"]`
	for _, body := range []string{`{"items":"a"}`, `{"items":[1]}`, `{"items":["a\u0000"]}`, `{"items":{"a":1}}`, `{"items":` + many + `}`, `{}`} {
		res := do(t, f, http.MethodPost, "/v1/echo", "application/json", body)
		if res.Code != http.StatusBadRequest || res.field(t, "items") == "" {
			t.Errorf("%s: got %d %s, want 400 naming items", body, res.Code, res.Raw)
		}
	}
	if res := do(t, f, http.MethodPost, "/v1/echo?items=a", "", ""); res.Code != http.StatusBadRequest {
		t.Errorf("a query string cannot carry a list: got %d %s", res.Code, res.Raw)
	}
}
