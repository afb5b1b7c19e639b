package main

import (
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
)

// eventPages reads every page of events at path (the user's own, or an
// admin's view of a user with id in args) with limit per page, and returns
// the events in order and the number of pages.
func eventPages(t testing.TB, c *client, path string, args map[string]any, limit int, auth []string) ([]map[string]any, int) {
	t.Helper()
	var all []map[string]any
	cursor, pages := "", 0
	for {
		q := url.Values{"limit": {strconv.Itoa(limit)}}
		for k, v := range args {
			q.Set(k, v.(string))
		}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		r := c.call(http.MethodGet, path+"?"+q.Encode(), nil, auth...).want(t, 200, "")
		pages++
		events, _ := r.Body["events"].([]any)
		if len(events) > limit {
			t.Fatalf("page of %d events, limit %d", len(events), limit)
		}
		for _, e := range events {
			all = append(all, e.(map[string]any))
		}
		next, isString := r.Body["nextCursor"].(string)
		if !isString {
			if r.Body["nextCursor"] != nil {
				t.Fatalf("nextCursor: %v", r.Body["nextCursor"])
			}
			return all, pages
		}
		if pages > 50 {
			t.Fatal("no end to the pages")
		}
		cursor = next
	}
}

func typesOf(events []map[string]any) []string {
	var out []string
	for _, e := range events {
		out = append(out, e["type"].(string))
	}
	return out
}

func TestSecurityEvents(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t)) // every role: the reset request's event is written by its job
	db := s.db()
	u := register(t, s.client(), "web")
	stranger := register(t, s.client(), "web")
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": "Wrong-Horse-42-battery"},
		"User-Agent", "guesser/1").want(t, 400, "USER_BAD_REQUEST_INVALID_LOGIN_CREDENTIALS")
	phone := loginAgain(t, s, u, "app")
	phone.c.call(http.MethodPost, "/v1/users/logout", nil, phone.auth()...).want(t, 200, "")
	s.client().call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": u.email}).want(t, 200, "")
	poll.Until(t, 20*time.Second, "the reset request's event", func() bool { return eventsOf(t, db, u.id, "password_reset_requested") == 1 })

	for _, limit := range []int{1, 2, 50} {
		events, pages := eventPages(t, u.c, "/v1/users/securityevents", nil, limit, u.auth())
		want := []string{"password_reset_requested", "logout", "login", "login_failed", "register"}
		if got := typesOf(events); !slices.Equal(got, want) {
			t.Fatalf("limit %d: events %v, want %v (newest first)", limit, got, want)
		}
		if wantPages := (len(want) + limit - 1) / limit; pages != wantPages && pages != wantPages+1 {
			t.Errorf("limit %d: %d pages for %d events", limit, pages, len(want))
		}
		if limit == 50 {
			checkEventObjects(t, events, u, phone)
		}
	}
	if others, _ := eventPages(t, stranger.c, "/v1/users/securityevents", nil, 50, stranger.auth()); !slices.Equal(typesOf(others), []string{"register"}) {
		t.Errorf("another user's events: %v", typesOf(others))
	}
	for _, bad := range []string{"limit=0", "limit=101", "limit=x", "cursor=not-a-cursor", "cursor=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "cursor=" + strings.Repeat("A", 65)} {
		r := u.c.call(http.MethodGet, "/v1/users/securityevents?"+bad, nil, u.auth()...).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
		if len(r.obj("fields")) == 0 {
			t.Errorf("%s: no fields in %s", bad, r.Raw)
		}
	}
	s.client().call(http.MethodGet, "/v1/users/securityevents", nil).want(t, 401, "UNAUTHORIZED")
}

// checkEventObjects checks the wire form of u's events, newest first:
// reset request, logout, login (of phone), failed login, register.
func checkEventObjects(t testing.TB, events []map[string]any, u, phone *registered) {
	t.Helper()
	want := []string{"createdAt", "data", "id", "ipAddress", "sessionId", "type", "userAgent"}
	for _, e := range events {
		var keys []string
		for k := range e {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if !slices.Equal(keys, want) {
			t.Errorf("event keys %v, want %v", keys, want)
		}
	}
	if events[1]["sessionId"] != phone.sid(t) || events[2]["sessionId"] != phone.sid(t) || events[4]["sessionId"] != u.sid(t) {
		t.Errorf("session ids: logout %v, login %v, register %v; want %v, %v, %v",
			events[1]["sessionId"], events[2]["sessionId"], events[4]["sessionId"], phone.sid(t), phone.sid(t), u.sid(t))
	}
	failed := events[3]
	if failed["sessionId"] != nil || failed["userAgent"] != "guesser/1" || failed["ipAddress"] == nil ||
		failed["data"].(map[string]any)["reason"] != "invalid_credentials" {
		t.Errorf("failed login event: %v", failed)
	}
	if events[0]["data"].(map[string]any)["mailed"] != true {
		t.Errorf("reset request event: %v", events[0])
	}
}
