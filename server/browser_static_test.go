package main

import (
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/browsertest"
)

// TestBrowserScriptFailure: when a script of /demo or /admin cannot be
// fetched (the entry module, or one it imports), the page shows its
// failure message with a retry button instead of "Restoring your
// session…" for ever, and the retry loads the working page. Without its
// loader script the page shows the message from its stylesheet after 20
// seconds, and the retry works without a script.
func TestBrowserScriptFailure(t *testing.T) {
	s := startServer(t, testEnv(t), "api")
	res := runBrowser(t, s, "scriptfailure", browsertest.Options{Timeout: 2 * time.Minute})["scriptfailure"]
	for name, script := range map[string]string{"demo": "/demo/reauth.js", "adminImport": "/demo/view.js", "adminEntry": "/admin/admin.js"} {
		r := obj(res.Data, name)
		if r["state"] != "failed" || r["visible"] != true || r["retry"] != "Retry" || r["who"] != "The page could not load" {
			t.Errorf("%s: with %s refused the page showed %v", name, script, r)
		}
		if n, _ := r["denied"].(float64); n < 1 {
			t.Errorf("%s: %s was never requested", name, script)
		}
		if r["after"] != "out" || r["hiddenAfter"] != true {
			t.Errorf("%s: after the retry the page is %v (message hidden %v), want the login form", name, r["after"], r["hiddenAfter"])
		}
	}
	w := obj(res.Data, "withoutLoader")
	if ms, _ := w["afterMs"].(float64); w["visible"] != true || w["state"] != "loading" || ms < 15_000 || w["after"] != "out" {
		t.Errorf("without the loader: %v", w)
	}
}
