package v1_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/framework"
)

// TestSessions runs V1Sessions and V1RevokeSession on the real engine:
// the caller's live sessions, its own marked current, each with its
// client, platform, address and agent; revoking another drops it from
// the list, revoking its own clears the refresh cookie; another owner's,
// an unknown or an ended session is USER_SESSION_NOT_FOUND, a session id
// that is no id is named.
func TestSessions(t *testing.T) {
	env, api := newEnv(t)
	users := env.Users
	revoke := &v1.RevokeSession{Activity: users.Activity, Cookies: testCookies()}
	framework.Register(api.Framework, &v1.Sessions{Activity: users.Activity})
	framework.Register(api.Framework, revoke)
	acc, iss := users.LoggedIn(t, action.Web)
	other := users.NewSession(t, acc, action.App)
	_, foreign := users.LoggedIn(t, action.Web)
	caller := api.As(users.Caller(iss))

	list := func() []any {
		res := caller.Call(http.MethodGet, "/v1/users/sessions", nil).WantOK(t)
		l, _ := res.Body["sessions"].([]any)
		return l
	}
	sessions := list()
	current := map[string]bool{}
	for _, s := range sessions {
		m := s.(map[string]any)
		current[m["id"].(string)] = m["current"].(bool)
		if m["id"] == other.Session.ID.String() && (m["client"] != "app" || m["platform"] != "ios" ||
			m["ipAddress"] != accountstest.Origin(action.App).IP || m["userAgent"] != accountstest.Origin(action.App).UserAgent) {
			t.Errorf("the app's session answered %v", m)
		}
	}
	if len(sessions) != 2 || !current[iss.Session.ID.String()] || current[other.Session.ID.String()] {
		t.Errorf("sessions %v, want the caller's current and the other not", sessions)
	}

	res := caller.Call(http.MethodPost, "/v1/users/revokesession", actiontest.Args{"sessionId": other.Session.ID.String()}).WantOK(t)
	if res.Cookie("jwt-user-refresh") != nil || len(list()) != 1 {
		t.Errorf("revoking another session: cookies %v, %d sessions listed", res.Cookies, len(list()))
	}
	for _, id := range []uuid.UUID{other.Session.ID, foreign.Session.ID, uuid.New()} {
		wantError(t, caller.Call(http.MethodPost, "/v1/users/revokesession", actiontest.Args{"sessionId": id.String()}),
			revoke.Spec(), http.StatusNotFound, "USER_SESSION_NOT_FOUND")
	}
	wantInvalid(t, caller.Call(http.MethodPost, "/v1/users/revokesession", actiontest.Args{"sessionId": "nope"}), "sessionId")
	wantInvalid(t, caller.Call(http.MethodPost, "/v1/users/revokesession", nil), "sessionId")
	res = caller.Call(http.MethodPost, "/v1/users/revokesession", actiontest.Args{"sessionId": iss.Session.ID.String()}).WantOK(t)
	if !cleared(res, "jwt-user-refresh") || len(users.Live(t, acc.ID)) != 0 {
		t.Errorf("revoking the caller's own session: cookies %v", res.Cookies)
	}
	api.Call(http.MethodGet, "/v1/users/sessions", nil).WantError(t, http.StatusUnauthorized, "UNAUTHORIZED")
}

// TestSecurityEvents runs V1SecurityEvents on the real engine: the
// caller's events newest first, in pages whose nextCursor leads to the
// next and is null on the last; a limit outside 1-100 and a cursor no
// listing gave out are named.
func TestSecurityEvents(t *testing.T) {
	env, api := newEnv(t)
	users := env.Users
	framework.Register(api.Framework, &v1.SecurityEvents{Activity: users.Activity})
	acc, iss := users.LoggedIn(t, action.Web)
	users.NewSession(t, acc, action.App)
	users.NewSession(t, acc, action.Web)
	caller := api.As(users.Caller(iss))
	first := caller.Call(http.MethodGet, "/v1/users/securityevents", actiontest.Args{"limit": "2"}).WantOK(t)
	events, _ := first.Body["events"].([]any)
	next, _ := first.Body["nextCursor"].(string)
	if len(events) != 2 || next == "" {
		t.Fatalf("the first page answered %s", first.Raw)
	}
	ev := events[0].(map[string]any)
	if ev["type"] != "login" || ev["sessionId"] == nil || ev["ipAddress"] != accountstest.Origin(action.Web).IP || ev["data"] == nil {
		t.Errorf("an event answered %v", ev)
	}
	last := caller.Call(http.MethodPost, "/v1/users/securityevents", actiontest.Args{"limit": 2, "cursor": next}).WantOK(t)
	if events, _ := last.Body["events"].([]any); len(events) != 1 || last.Body["nextCursor"] != nil {
		t.Errorf("the last page answered %s", last.Raw)
	}
	for _, args := range []actiontest.Args{{"limit": 0}, {"limit": 101}} {
		wantInvalid(t, caller.Call(http.MethodPost, "/v1/users/securityevents", args), "limit")
	}
	wantInvalid(t, caller.Call(http.MethodPost, "/v1/users/securityevents", actiontest.Args{"cursor": "AAAA"}), "cursor")
	api.Call(http.MethodGet, "/v1/users/securityevents", nil).WantError(t, http.StatusUnauthorized, "UNAUTHORIZED")
}
