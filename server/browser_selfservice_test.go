package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/internal/browsertest"
)

// TestBrowserAccountSelfService: the demo page changes the user's own
// account through the CONTRACT §23 actions, against the real server, its
// database and the SMTP sink: name and time zone (a bad zone refused under
// its field), a new address confirmed by the link mailed to it and undone
// by the link mailed to the old one, the data downloaded as JSON without
// secrets, and the account deleted after the page's confirmation.
func TestBrowserAccountSelfService(t *testing.T) {
	s, smtp, base := browserMailServer(t)
	changeRe := regexp.MustCompile(regexp.QuoteMeta(base) + `/demo#email-change=[0-9a-f]{64}`)
	revertRe := regexp.MustCompile(regexp.QuoteMeta(base) + `/demo#email-revert=[0-9a-f]{64}`)
	resetRe := regexp.MustCompile(regexp.QuoteMeta(base) + `/demo#reset=[0-9a-f]{64}`)
	res := runBrowser(t, s, "selfservice", browsertest.Options{Checkpoint: func(m browsertest.Message) any {
		switch m.Name {
		case "change":
			mails := waitMails(t, smtp, m.Str("newEmail"), "Confirm your new e-mail address", 1)
			return map[string]any{"link": linkIn(t, mails[0], changeRe)}
		case "revert":
			mails := waitMails(t, smtp, m.Str("email"), "The e-mail address of your account was changed", 1)
			return map[string]any{"revert": linkIn(t, mails[0], revertRe)}
		case "reset":
			mails := waitMails(t, smtp, m.Str("email"), subjectReverted, 1)
			return map[string]any{"reset": linkIn(t, mails[0], resetRe)}
		}
		return map[string]any{}
	}})["selfservice"]

	if z := obj(res.Data, "badZone"); z["invalid"] != "true" || !strings.HasPrefix(z["error"].(string), "Time zone ") {
		t.Errorf("a bad time zone: %v", z)
	}
	if p := obj(res.Data, "profile"); p["name"] != "Ada Lovelace" || p["zoneError"] != false {
		t.Errorf("the saved profile: %v", p)
	}
	var last, zone string
	if err := s.db().QueryRowxContext(t.Context(), `SELECT coalesce(last_name, ''), timezone FROM users WHERE id = $1`, res.Str("userId")).Scan(&last, &zone); err != nil ||
		last != "Lovelace" || zone != "Europe/Paris" {
		t.Errorf("the database holds %q, %q (%v), want Lovelace, Europe/Paris", last, zone, err)
	}
	if c := obj(res.Data, "changed"); c["state"] != "email-changed" || c["hash"] != "" || c["cardAfterLogin"] != false {
		t.Errorf("the confirmed change: %v", c)
	}
	if r := obj(res.Data, "reverted"); r["state"] != "email-reverted" || !strings.Contains(r["text"].(string), "check your mail to choose a new password") {
		t.Errorf("the revert: %v", r)
	}
	activity := strs(res.Data["activity"])
	for _, typ := range []string{"user_updated", "email_changed", "email_change_reverted"} {
		if !slices.Contains(activity, typ) {
			t.Errorf("the activity lacks %s: %v", typ, activity)
		}
	}
	ex := obj(res.Data, "export")
	text := ex["text"].(string)
	if !strings.HasPrefix(ex["name"].(string), "actionkit-data-") || ex["email"] != res.Str("email") ||
		strings.Contains(text, "passwordHash") || strings.Contains(text, "refreshToken") || strings.Contains(text, "secret") {
		t.Errorf("the export: %s %v", ex["name"], ex["keys"])
	}
	d := obj(res.Data, "deleted")
	if !strings.Contains(d["banner"].(string), "deleted") || !strings.Contains(d["login"].(string), "deleted") {
		t.Errorf("the deletion: %v", d)
	}
	if n := eventsOf(t, s.db(), res.Str("userId"), "account_deleted"); n != 1 {
		t.Errorf("%d account_deleted events, want 1", n)
	}
}
