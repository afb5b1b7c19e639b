package framework

import (
	"encoding/json"
	"net/http"
	"testing"
)

type objectArgs struct {
	Credential json.RawMessage `arg:"credential,secret" validate:"required"`
}

// TestObjectArguments: a json.RawMessage argument takes a JSON object of
// the body, re-encoded with the numbers as written; anything else (a
// string holding JSON included, as a query or form must send it) is
// refused, and an absent one is "required".
func TestObjectArguments(t *testing.T) {
	f := New(Config{})
	Register(f, echoAction[objectArgs]{})
	res := do(t, f, http.MethodPost, "/v1/echo", "application/json", `{"credential":{"id":"AQ","n":12345678901234567890,"r":{"a":[1,"x"]}}}`)
	if res.Code != 200 {
		t.Fatalf("object: got %d %s", res.Code, res.Raw)
	}
	var got struct{ Credential json.RawMessage }
	if err := json.Unmarshal([]byte(res.Raw), &got); err != nil {
		t.Fatal(err)
	}
	if want := `{"id":"AQ","n":12345678901234567890,"r":{"a":[1,"x"]}}`; string(got.Credential) != want {
		t.Errorf("credential: got %s, want %s", got.Credential, want)
	}
	for _, tc := range []struct{ name, target, ctype, body, want string }{
		{"string holding json", "/v1/echo", "application/json", `{"credential":"{\"id\":\"AQ\"}"}`, "must be a JSON object"},
		{"array", "/v1/echo", "application/json", `{"credential":[1]}`, "must be a JSON object"},
		{"number", "/v1/echo", "application/json", `{"credential":1}`, "must be a JSON object"},
		{"query", "/v1/echo?credential=%7B%7D", "", "", "must be a JSON object"},
		{"form", "/v1/echo", "application/x-www-form-urlencoded", `credential={}`, "must be a JSON object"},
		{"absent", "/v1/echo", "application/json", `{}`, "is required"},
		{"null", "/v1/echo", "application/json", `{"credential":null}`, "is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := do(t, f, http.MethodPost, tc.target, tc.ctype, tc.body)
			if res.Code != 400 || res.field(t, "credential") != tc.want {
				t.Errorf("got %d %s, want 400 with credential %q", res.Code, res.Raw, tc.want)
			}
		})
	}
	if d := f.Actions()[0].Args[0]; d.Type != "object" || !d.Secret {
		t.Errorf("described as %+v, want a secret object", d)
	}
}
