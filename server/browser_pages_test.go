package main

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/internal/browsertest"
)

// TestBrowserAccountPages walks the demo page as a person would (issue 33):
// errors show once, next to their field and in words, with the request id
// behind a toggle; what no longer applies goes (the "You logged out."
// banner, a bad link's card); a slow registration shows a busy button; a
// deactivated account gets one message; sessions read "Chrome on Linux"
// with relative times; password fields have a show toggle, the rule, the
// right autocomplete and a hidden username; the tabs answer arrow keys and
// a skip link leads to the content; the account has its own sections,
// apart from the posts and tokens demo.
func TestBrowserAccountPages(t *testing.T) {
	env := testEnv(t)
	s := startServer(t, env, "api")
	createAdmin(t, env, "pages@example.com")
	res := runBrowser(t, s, "pages", browsertest.Options{Checkpoint: func(m browsertest.Message) any {
		if m.Name == "deactivate" {
			a, _ := adminLogin(t, s, "pages@example.com", "web")
			adminCall(a, "deactivate", m.Str("userId")).want(t, 200, "")
		}
		return map[string]any{}
	}})["pages"]
	get := func(key string) map[string]any { return obj(res.Data, key) }
	dump := func(v any) string { b, _ := json.Marshal(v); return string(b) }

	// 10. Skip link and tabs.
	if sk := get("skip"); sk["focused"] != "skip" || sk["href"] != "#main" || sk["landed"] != "main" {
		t.Errorf("the skip link: %v", sk)
	}
	if tb := get("tabs"); tb["focused"] != "mode-register" || tb["selected"] != "true" || dump(tb["tabindex"]) != "[-1,0]" ||
		tb["panel"] != "tabpanel" || tb["labelledBy"] != "mode-register" || tb["mode"] != "register" || tb["back"] != "login" ||
		!strings.Contains(tb["rule"].(string), "12 to 128 characters") {
		t.Errorf("the tabs: %v", tb)
	}

	// 1. Errors once, next to their field, in words.
	for _, c := range []struct{ key, input, words string }{{"weak", "password", "Password must be"}, {"change", "new-password", "New password must be"}} {
		e := get(c.key)
		field := obj(e, "field")
		msgs, _ := e["messages"].([]any)
		all := dump(msgs)
		if field["invalid"] != "true" || !strings.Contains(field["describedBy"].(string), c.input+"-field-error") ||
			!strings.HasPrefix(field["error"].(string), c.words) || len(msgs) != 1 ||
			strings.Count(all, "must be") != 1 || strings.Contains(all, "password:") || strings.Contains(all, "newPassword") ||
			strings.Contains(all, "request") {
			t.Errorf("%s: the field %v, the messages shown %s", c.key, field, all)
		}
	}
	requestID := regexp.MustCompile(`request \S+`)
	if w := get("wrong"); requestID.MatchString(w["text"].(string)) || w["open"] != false ||
		!strings.Contains(w["details"].(string), "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS") || !requestID.MatchString(w["details"].(string)) ||
		!requestID.MatchString(w["opened"].(string)) || !strings.Contains(w["text"].(string), "wrong") {
		t.Errorf("a wrong password's message: %v", w)
	}

	// 8. The show-password toggle, autocomplete, hidden usernames.
	if tg := get("toggle"); tg["type"] != "text" || tg["pressed"] != "true" {
		t.Errorf("the show-password toggle: %v", tg)
	}
	if ac := get("autocomplete"); ac["current-password"] != "current-password" || ac["new-password"] != "new-password" || ac["reset-password"] != "new-password" {
		t.Errorf("autocomplete: %v", ac)
	}
	for id, u := range get("usernames") {
		if u := u.(map[string]any); u["value"] != res.Str("email") || u["autocomplete"] != "username" {
			t.Errorf("the hidden username %s: %v", id, u)
		}
	}

	// 4. Busy while the registration is on its way, the old error gone.
	if b := get("busy"); b["label"] != "Creating your account…" || b["ariaBusy"] != "true" || b["disabled"] != true || b["oldError"] != false || b["after"] != nil {
		t.Errorf("the busy button: %v", b)
	}

	// 11. The account's sections, the demo beside them.
	l := get("layout")
	// No provider, no OAuth app: the connected section says so rather than stay empty.
	if len(strs(l["inAccount"])) != 10 || len(strs(l["inDemo"])) != 3 || l["beside"] != true || l["nav"] != float64(6) || l["connectedNone"] != true ||
		dump(l["sections"]) != `["Profile","Security","Sessions","Connected accounts and apps","Activity","Your data"]` {
		t.Errorf("the layout: %v", l)
	}

	if d := get("deleteAsk"); d["form"] != true || d["focused"] != "delete-cancel" || d["closed"] != true || d["sent"] != float64(0) || d["state"] != "in" {
		t.Errorf("Delete my account…: %v", d)
	}

	// 7. Sessions in words.
	ss := get("session")
	if ss["name"] != "Chrome on Linux" || ss["time"] != "just now" || ss["title"] == "" || ss["datetime"] == "" ||
		!strings.Contains(ss["text"].(string), "this computer (127.0.0.1)") || strings.Contains(ss["text"].(string), "Mozilla") ||
		strings.Contains(ss["text"].(string), "Browser · web") {
		t.Errorf("the session: %v", ss)
	}
	activity, _ := res.Data["activity"].([]any)
	if !slices.ContainsFunc(activity, func(a any) bool {
		m := a.(map[string]any)
		return m["type"] == "register" && m["text"] == "Account created"
	}) {
		t.Errorf("the activity: %v", activity)
	}

	// 2. Stale messages cleared; the link card on a row of its own.
	if b := get("banner"); b["before"] != "You logged out." {
		t.Errorf("the banner after logging out: %v", b)
	}
	if lc := get("linkCard"); lc["above"] != true || lc["width"].(float64) < lc["inner"].(float64)-1 || lc["text"] == "" {
		t.Errorf("the link card: %v", lc)
	}
	if a := get("afterLogin"); a["banner"] != false || a["link"] != false || a["authError"] != false {
		t.Errorf("after the log-in, still shown: %v", a)
	}

	// 5. One message for the deactivated account.
	d, _ := res.Data["deactivated"].([]any)
	if len(d) != 1 || !strings.Contains(d[0].(map[string]any)["text"].(string), "deactivated") {
		t.Errorf("the deactivated account's messages: %s", dump(d))
	}
}
