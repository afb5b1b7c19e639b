package kiosk_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/examples/bearer/kiosk"
)

func call(t *testing.T, h http.Handler, path, body string, headers ...string) (int, map[string]any) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var out map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
		t.Fatalf("%s: %v: %s", path, err, w.Body)
	}
	return w.Code, out
}

// TestBearerService: the framework follows the conventions the kiosk's
// authenticator declares: its Bearer scheme, its client types (kiosk by
// default, cli, nothing else) and its security scheme in OpenAPI.
func TestBearerService(t *testing.T) {
	tokens := kiosk.NewTokens()
	op := uuid.New()
	tokens.Grant("desk-token", op, kiosk.Kiosk)
	tokens.Grant("cli-token", op, kiosk.CLI)
	h := kiosk.New(tokens)

	code, body := call(t, h, "/v1/whoami", "", "Authorization", "Bearer desk-token")
	if code != 200 || body["operator"] != op.String() || body["client"] != "kiosk" {
		t.Errorf("whoami with a kiosk token: %d %v", code, body)
	}
	code, body = call(t, h, "/v1/drawers/open", `{"drawer":"2"}`, "Authorization", "bearer desk-token", "X-Client", "KIOSK")
	if code != 200 || body["opened"] != float64(2) {
		t.Errorf("open with a kiosk token: %d %v", code, body)
	}
	for name, c := range map[string]struct {
		headers []string
		path    string
		status  int
		code    string
	}{
		"no token":           {nil, "/v1/whoami", 401, "UNAUTHORIZED"},
		"unknown token":      {[]string{"Authorization", "Bearer nope"}, "/v1/whoami", 401, "UNAUTHORIZED"},
		"actionkit's scheme": {[]string{"Authorization", "jwt-user desk-token"}, "/v1/whoami", 401, "UNAUTHORIZED"},
		"a cli token at the drawer": {[]string{"Authorization", "Bearer cli-token", "X-Client", "cli"},
			"/v1/drawers/open", 401, "UNAUTHORIZED"},
		"a client type of actionkit's": {[]string{"Authorization", "Bearer desk-token", "X-Client", "web"},
			"/v1/whoami", 400, "BAD_REQUEST_INVALID_ARGUMENTS"},
	} {
		code, body := call(t, h, c.path, `{"drawer":1}`, c.headers...)
		if code != c.status || body["error"] != c.code {
			t.Errorf("%s: %d %v; want %d %s", name, code, body, c.status, c.code)
		}
		if c.status == 400 {
			if fields, _ := body["fields"].(map[string]any); fields["X-Client"] != "must be one of: kiosk, cli" {
				t.Errorf("%s: fields %v", name, body["fields"])
			}
		}
	}

	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/openapi.json", nil))
	var doc struct {
		Components struct {
			SecuritySchemes map[string]map[string]any `json:"securitySchemes"`
			Parameters      map[string]struct {
				Schema map[string]any `json:"schema"`
			} `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if s := doc.Components.SecuritySchemes; len(s) != 1 || s["bearer"]["type"] != "http" || s["bearer"]["scheme"] != "bearer" {
		t.Errorf("security schemes: %v", s)
	}
	if enum := doc.Components.Parameters["X-Client"].Schema; enum["default"] != "kiosk" || len(enum["enum"].([]any)) != 2 {
		t.Errorf("X-Client: %v", enum)
	}
}
