package framework

import (
	"net/http"
	"testing"
)

// nulArgs has a string argument of each flavour: plain, secret, lenient,
// with a trim mod, and one that lets a NUL through to the action.
type nulArgs struct {
	Plain   string  `arg:"plain"`
	Secret  string  `arg:"secret,secret"`
	Lenient string  `arg:"lenient,lenient"`
	Trimmed *string `arg:"trimmed" mod:"trim"`
	Raw     string  `arg:"raw,allownul,lenient,secret"`
	Count   int     `arg:"count"`
}

func TestNULInAStringArgumentIsRefusedByName(t *testing.T) {
	f := New(Config{})
	Register(f, echoAction[nulArgs]{})
	const form = "application/x-www-form-urlencoded"
	for _, tc := range []struct {
		name, target, ctype, body, field string
	}{
		{"query", "/v1/echo?plain=a%00b", "", "", "plain"},
		{"json escape", "/v1/echo", "application/json", `{"plain":"\u0000"}`, "plain"},
		{"form body", "/v1/echo", form, "plain=%00", "plain"},
		{"secret argument", "/v1/echo", "application/json", `{"secret":"pass\u0000word"}`, "secret"},
		{"lenient argument", "/v1/echo", "application/json", `{"lenient":"x\u0000"}`, "lenient"},
		{"before a trim mod", "/v1/echo?trimmed=%20%00%20", "", "", "trimmed"},
		{"number argument given a NUL", "/v1/echo?count=1%00", "", "", "count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := do(t, f, http.MethodPost, tc.target, tc.ctype, tc.body)
			if res.Code != http.StatusBadRequest || res.Body["error"] != "BAD_REQUEST_INVALID_ARGUMENTS" {
				t.Fatalf("got %d %s, want 400 BAD_REQUEST_INVALID_ARGUMENTS", res.Code, res.Raw)
			}
			if res.field(t, tc.field) == "" {
				t.Errorf("fields does not name %s: %s", tc.field, res.Raw)
			}
		})
	}
	res := do(t, f, http.MethodPost, "/v1/echo", "application/json", `{"plain":"a\u0000","secret":"\u0000"}`)
	if res.field(t, "plain") != "must not contain a NUL character" || res.field(t, "secret") == "" {
		t.Errorf("every argument with a NUL is named, with its reason: %s", res.Raw)
	}
}

func TestNULPassesWhereAnArgumentAllowsIt(t *testing.T) {
	f := New(Config{})
	Register(f, echoAction[nulArgs]{})
	res := do(t, f, http.MethodPost, "/v1/echo", "application/json", `{"raw":"ab\u0000cd","plain":"ok"}`)
	if res.Code != http.StatusOK || res.Body["Raw"] != "ab\x00cd" || res.Body["Plain"] != "ok" {
		t.Errorf("allownul: got %d %s, want 200 with the value as sent", res.Code, res.Raw)
	}
	res = do(t, f, http.MethodPost, "/v1/echo?other=%00", "", "")
	if res.Code != http.StatusOK {
		t.Errorf("an undeclared argument with a NUL is ignored like any other: got %d %s", res.Code, res.Raw)
	}
}

func TestAllowNULAppliesToStringsOnly(t *testing.T) {
	type bad struct {
		N int `arg:"n,allownul"`
	}
	defer func() {
		if recover() == nil {
			t.Error("allownul on an integer argument registered without a panic")
		}
	}()
	Register(New(Config{}), echoAction[bad]{})
}
