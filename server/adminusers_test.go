package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/sockettest"
)

// adminPaths are the admin actions on users.
var adminPaths = []string{"list", "read", "deactivate", "activate", "delete", "restore", "sessions", "revokesessions", "securityevents"}

// listUsers reads every page of the admin's user list for query and
// status, limit per page, and returns the e-mail addresses in order.
func listUsers(t testing.TB, a *adminSession, query, status string, limit int) []string {
	t.Helper()
	var emails []string
	cursor := ""
	for page := 0; ; page++ {
		q := url.Values{"query": {query}, "status": {status}, "limit": {strconv.Itoa(limit)}, "cursor": {cursor}}
		r := a.c.call(http.MethodGet, "/v1/admins/users/list?"+q.Encode(), nil, a.auth()...).want(t, 200, "")
		users, _ := r.Body["users"].([]any)
		if len(users) > limit {
			t.Fatalf("page of %d users, limit %d", len(users), limit)
		}
		for _, u := range users {
			emails = append(emails, u.(map[string]any)["email"].(string))
		}
		next, ok := r.Body["nextCursor"].(string)
		if !ok || page > 20 {
			return emails
		}
		cursor = next
	}
}

// adminCall calls the admin action on users at path for the user id.
func adminCall(a *adminSession, path, id string) *apiResponse {
	return a.c.call(http.MethodPost, "/v1/admins/users/"+path, map[string]any{"id": id}, a.auth()...)
}

func TestAdminListsUsers(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	s := startServer(t, env, "api")
	createAdmin(t, env, "lister@example.com")
	a, _ := adminLogin(t, s, "lister@example.com", "web")
	var made []string // oldest first
	for i := range 5 {
		email := fmt.Sprintf("listed-%d-%s", i, uniqueEmail())
		s.client().call(http.MethodPost, "/v1/users/register", map[string]any{"email": email, "password": strongPassword}).want(t, 201, "")
		made = append(made, email)
	}
	byEmail := func(email string) string {
		r := a.c.call(http.MethodGet, "/v1/admins/users/list?query="+url.QueryEscape(email), nil, a.auth()...).want(t, 200, "")
		return r.Body["users"].([]any)[0].(map[string]any)["id"].(string)
	}
	adminCall(a, "deactivate", byEmail(made[1])).want(t, 200, "")
	adminCall(a, "delete", byEmail(made[3])).want(t, 200, "")

	newestFirst := []string{made[4], made[3], made[2], made[1], made[0]}
	for _, limit := range []int{1, 2, 100} {
		if got := listUsers(t, a, "LISTED-", "all", limit); fmt.Sprint(got) != fmt.Sprint(newestFirst) {
			t.Errorf("limit %d: %v, want %v", limit, got, newestFirst)
		}
	}
	for status, want := range map[string][]string{
		"active":   {made[4], made[2], made[0]},
		"inactive": {made[1]},
		"deleted":  {made[3]},
	} {
		if got := listUsers(t, a, "listed-", status, 2); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("status %s: %v, want %v", status, got, want)
		}
	}
	// LIKE's wildcards are matched literally.
	for _, q := range []string{"%", "_", `\`, "listed-_"} {
		if got := listUsers(t, a, q, "all", 100); len(got) != 0 {
			t.Errorf("query %q: %v, want none", q, got)
		}
	}
	for _, bad := range []string{"status=gone", "limit=0", "limit=101", "cursor=nope"} {
		a.c.call(http.MethodGet, "/v1/admins/users/list?"+bad, nil, a.auth()...).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	}
	if all := listUsers(t, a, "", "", 100); len(all) != 5 {
		t.Errorf("the unfiltered list: %v, want the 5 users", all)
	}
}

// TestAdminManagesUsers runs every admin action on a user with an open
// socket on a second instance: each change answers the user, records its
// event with the admin's id, and deactivation, deletion and revokesessions
// end the user's access tokens at once and its sockets within 2 s.
func TestAdminManagesUsers(t *testing.T) {
	t.Parallel()
	env := testEnv(t, "LOG_LEVEL=info")
	s := startServer(t, env, "api")
	b := startServer(t, env, "api")
	db := s.db()
	adminID := createAdmin(t, env, "boss@example.com")
	a, _ := adminLogin(t, s, "boss@example.com", "web")
	u := register(t, s.client(), "web")

	socketOf := func(v *registered) *sockettest.Client { return connectSocket(t, b.URL, v.token) }
	ending := func(path, event string, wantActive bool, deleted bool) {
		t.Helper()
		v := loginAgain(t, s, u, "app")
		sock := socketOf(v)
		start := time.Now()
		r := adminCall(a, path, u.id).want(t, 200, "")
		user := r.obj("user")
		if user["id"] != u.id || user["isActive"] != wantActive || (user["deletedAt"] != nil) != deleted {
			t.Errorf("%s: answered %v", path, user)
		}
		v.read(t).want(t, 401, "UNAUTHORIZED")
		disconnectedWithin(t, sock, start, sessionEndLimit, path+": the user's socket on another instance")
		checkAdminEvent(t, db, u.id, event, adminID)
	}
	sessions := adminCall(a, "sessions", u.id).want(t, 200, "").Body["sessions"].([]any)
	if len(sessions) != 1 || sessions[0].(map[string]any)["current"] != false || sessions[0].(map[string]any)["id"] != u.sid(t) {
		t.Errorf("admin's view of the sessions: %v", sessions)
	}

	ending("deactivate", "account_deactivated", false, false)
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}).want(t, 400, "USER_BAD_REQUEST_ACCOUNT_INACTIVE")
	if r := adminCall(a, "activate", u.id).want(t, 200, ""); r.obj("user")["isActive"] != true {
		t.Errorf("activate: %s", r.Raw)
	}
	checkAdminEvent(t, db, u.id, "account_activated", adminID)

	ending("delete", "account_deleted", true, true)
	if r := adminCall(a, "read", u.id).want(t, 200, ""); r.obj("user")["deletedAt"] == nil {
		t.Errorf("read of a deleted user: %s", r.Raw)
	}
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}).want(t, 400, "USER_BAD_REQUEST_ACCOUNT_DELETED")
	if r := adminCall(a, "restore", u.id).want(t, 200, ""); r.obj("user")["deletedAt"] != nil {
		t.Errorf("restore: %s", r.Raw)
	}
	checkAdminEvent(t, db, u.id, "account_restored", adminID)

	v := loginAgain(t, s, u, "web")
	sock := socketOf(v)
	version := tokenVersionOf(t, db, u.id)
	start := time.Now()
	if r := adminCall(a, "revokesessions", u.id).want(t, 200, ""); len(r.Body) != 2 {
		t.Errorf("revokesessions: %s", r.Raw)
	}
	v.read(t).want(t, 401, "UNAUTHORIZED")
	disconnectedWithin(t, sock, start, sessionEndLimit, "revokesessions: the user's socket on another instance")
	if got := tokenVersionOf(t, db, u.id); got != version+1 {
		t.Errorf("revokesessions: token version %d, want %d", got, version+1)
	}
	checkAdminEvent(t, db, u.id, "logoutall", adminID)

	events, _ := eventPages(t, a.c, "/v1/admins/users/securityevents", map[string]any{"id": u.id}, 3, a.auth())
	if got := typesOf(events); len(got) < 6 || got[0] != "logoutall" || got[len(got)-1] != "register" {
		t.Errorf("the admin's view of the events: %v", got)
	}
}

// checkAdminEvent requires one event of type typ on the user, carrying the
// admin's id.
func checkAdminEvent(t testing.TB, db *sqlx.DB, userID, typ, adminID string) {
	t.Helper()
	var n int
	err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM security_events
		WHERE owner_type = 'user' AND owner_id = $1 AND type = $2 AND data->>'adminId' = $3`, userID, typ, adminID)
	if err != nil || n != 1 {
		t.Errorf("%s events with adminId %s: %d (%v), want 1", typ, adminID, n, err)
	}
}

func TestAdminUserActionsRefuseOthers(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	s := startServer(t, env, "api")
	createAdmin(t, env, "gate@example.com")
	a, _ := adminLogin(t, s, "gate@example.com", "app")
	u := register(t, s.client(), "web")
	for _, path := range adminPaths {
		s.client().call(http.MethodPost, "/v1/admins/users/"+path, map[string]any{"id": u.id}, u.auth()...).want(t, 401, "UNAUTHORIZED")
		s.client().call(http.MethodPost, "/v1/admins/users/"+path, map[string]any{"id": u.id}).want(t, 401, "UNAUTHORIZED")
		if path != "list" {
			adminCall(a, path, "0199a7a0-0000-7000-8000-000000000009").want(t, 404, "USER_NOT_FOUND")
			adminCall(a, path, "not-a-uuid").want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
		}
	}
	// An admin token opens no user action.
	s.client().call(http.MethodPost, "/v1/users/sessions", nil, "Authorization", "jwt-user "+a.token).want(t, 401, "UNAUTHORIZED")
	s.client().call(http.MethodPost, "/v1/users/sessions", nil, a.auth()...).want(t, 401, "UNAUTHORIZED")
	u.read(t).want(t, 200, "")
}
