package main

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/sockettest"
)

// sessionEndLimit is how soon the sockets of an ended session must be
// disconnected, on every instance, whatever ended it.
const sessionEndLimit = 2 * time.Second

// loginAgain opens another session of u from a client of its own.
func loginAgain(t testing.TB, s *testServer, u *registered, client string) *registered {
	t.Helper()
	c := s.client()
	r := c.call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword},
		"X-Client", client, "User-Agent", "tests/"+client).want(t, 201, "")
	return &registered{c: c, email: u.email, id: u.id, token: r.str("token"), refresh: r.str("refreshToken"), res: r}
}

// sid is the session id of u's access token.
func (u *registered) sid(t testing.TB) string {
	t.Helper()
	sid, _ := jwtPayload(u.token)["sid"].(string)
	if sid == "" {
		t.Fatalf("access token without sid: %v", jwtPayload(u.token))
	}
	return sid
}

// listSessions returns u's session list.
func listSessions(t testing.TB, u *registered) []map[string]any {
	t.Helper()
	r := u.c.call(http.MethodPost, "/v1/users/sessions", nil, u.auth()...).want(t, 200, "")
	var out []map[string]any
	for _, v := range r.Body["sessions"].([]any) {
		out = append(out, v.(map[string]any))
	}
	return out
}

// disconnectedWithin waits for c's disconnect and fails unless it came
// within limit of since.
func disconnectedWithin(t testing.TB, c *sockettest.Client, since time.Time, limit time.Duration, what string) {
	t.Helper()
	if _, err := c.WaitFor(waitCtx(t), "disconnect", nil); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if took := time.Since(since); took > limit {
		t.Errorf("%s: disconnected after %v, want within %v", what, took, limit)
	}
}

func TestSessionList(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	u := register(t, s.client(), "web")
	phone := loginAgain(t, s, u, "app")
	stranger := register(t, s.client(), "web")

	list := listSessions(t, phone)
	if len(list) != 2 {
		t.Fatalf("sessions: got %d, want 2: %v", len(list), list)
	}
	wantKeys := []string{"aal", "authMethods", "authenticatedAt", "client", "createdAt", "current", "expiresAt", "id", "ipAddress",
		"lastUsedAt", "oauthClientId", "oauthClientName", "platform", "provider", "userAgent"}
	for _, sess := range list {
		var keys []string
		for k := range sess {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if !slices.Equal(keys, wantKeys) {
			t.Errorf("session keys: got %v, want %v", keys, wantKeys)
		}
	}
	// Newest login first; the caller's own is current.
	if list[0]["id"] != phone.sid(t) || list[0]["current"] != true || list[1]["id"] != u.sid(t) || list[1]["current"] != false {
		t.Errorf("order or current: %v", list)
	}
	if list[0]["client"] != "app" || list[0]["userAgent"] != "tests/app" || list[0]["createdAt"] != list[0]["lastUsedAt"] {
		t.Errorf("phone session: %v", list[0])
	}
	// The session id stays the same across refreshes; lastUsedAt moves.
	r := phone.c.call(http.MethodPost, "/v1/users/refresh", map[string]any{"refreshToken": phone.refresh}, "X-Client", "app").want(t, 200, "")
	before := phone.sid(t)
	phone.token, phone.refresh = r.str("token"), r.str("refreshToken")
	if phone.sid(t) != before {
		t.Errorf("sid changed on refresh: %s, was %s", phone.sid(t), before)
	}
	after := listSessions(t, phone)
	if len(after) != 2 || after[0]["id"] != before || after[0]["createdAt"] != list[0]["createdAt"] || after[0]["lastUsedAt"] == list[0]["lastUsedAt"] {
		t.Errorf("after a refresh: %v, before %v", after, list)
	}
	// V2 login answers the session id the token carries.
	v2 := s.client().call(http.MethodPost, "/v2/users/login", map[string]any{"email": u.email, "password": strongPassword}).want(t, 201, "")
	if got := v2.obj("session")["id"]; got != jwtPayload(v2.str("token"))["sid"] {
		t.Errorf("V2Login session.id %v, token sid %v", got, jwtPayload(v2.str("token"))["sid"])
	}
	// Another user's session and unknown or malformed ids.
	stranger.c.call(http.MethodPost, "/v1/users/revokesession", map[string]any{"sessionId": u.sid(t)}, stranger.auth()...).want(t, 404, "USER_SESSION_NOT_FOUND")
	u.read(t).want(t, 200, "")
	u.c.call(http.MethodPost, "/v1/users/revokesession", map[string]any{"sessionId": "0199a7a0-0000-7000-8000-000000000001"}, u.auth()...).want(t, 404, "USER_SESSION_NOT_FOUND")
	u.c.call(http.MethodPost, "/v1/users/revokesession", map[string]any{"sessionId": "nope"}, u.auth()...).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	u.c.call(http.MethodPost, "/v1/users/revokesession", nil, u.auth()...).want(t, 400, "BAD_REQUEST_INVALID_ARGUMENTS")
	s.client().call(http.MethodPost, "/v1/users/sessions", nil).want(t, 401, "UNAUTHORIZED")
}

// TestRevokeSessionEndsOnlyIt ends one session from another: its access
// token at once, its refresh token, its socket on a second API instance
// within 2 s; the caller's session and socket stay. Revoking the caller's
// own session is a logout.
func TestRevokeSessionEndsOnlyIt(t *testing.T) {
	t.Parallel()
	env := testEnv(t, "LOG_LEVEL=info")
	a := startServer(t, env, "api")
	b := startServer(t, env, "api")
	u := register(t, a.client(), "web")
	phone := loginAgain(t, a, u, "app")
	mine := sockettest.Start(t, b.URL, u.token, sockettest.Options{})
	theirs := sockettest.Start(t, b.URL, phone.token, sockettest.Options{Transports: []string{"polling"}})
	for _, c := range []*sockettest.Client{mine, theirs} {
		if _, err := c.WaitFor(waitCtx(t), "connect", nil); err != nil {
			t.Fatal(err)
		}
	}

	start := time.Now()
	u.c.call(http.MethodPost, "/v1/users/revokesession", map[string]any{"sessionId": phone.sid(t)}, u.auth()...).want(t, 200, "")
	phone.read(t).want(t, 401, "UNAUTHORIZED")
	disconnectedWithin(t, theirs, start, sessionEndLimit, "the revoked session's socket on the other instance")
	phone.c.call(http.MethodPost, "/v1/users/refresh", map[string]any{"refreshToken": phone.refresh}, "X-Client", "app").want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
	u.read(t).want(t, 200, "")
	mine.StaysConnected(t, 500*time.Millisecond)
	if list := listSessions(t, u); len(list) != 1 || list[0]["id"] != u.sid(t) {
		t.Errorf("sessions after the revocation: %v", list)
	}
	u.c.call(http.MethodPost, "/v1/users/revokesession", map[string]any{"sessionId": phone.sid(t)}, u.auth()...).want(t, 404, "USER_SESSION_NOT_FOUND")

	// The caller's own session: a logout, cookie cleared.
	start = time.Now()
	r := u.c.call(http.MethodPost, "/v1/users/revokesession", map[string]any{"sessionId": u.sid(t)}, u.auth()...).want(t, 200, "")
	if cleared := setCookieLine(r, "jwt-user-refresh"); !strings.HasPrefix(cleared, "jwt-user-refresh=;") {
		t.Errorf("own session: cookie not cleared: %q", cleared)
	}
	u.read(t).want(t, 401, "UNAUTHORIZED")
	disconnectedWithin(t, mine, start, sessionEndLimit, "the caller's own socket")
	db := a.db()
	if n := eventsOf(t, db, u.id, "session_revoked"); n != 1 {
		t.Errorf("%d session_revoked events, want 1", n)
	}
	if n := eventsOf(t, db, u.id, "logout"); n != 1 {
		t.Errorf("%d logout events, want 1", n)
	}
}

// TestSessionEndsDisconnectExactlyItsSockets ends sessions in each way a
// user can, with sockets of several sessions on a second instance: each
// end disconnects the sockets of exactly the sessions it ended, within 2 s.
func TestSessionEndsDisconnectExactlyItsSockets(t *testing.T) {
	t.Parallel()
	env := testEnv(t, "LOG_LEVEL=info")
	a := startServer(t, env, "api")
	b := startServer(t, env, "api")
	u := register(t, a.client(), "web")
	connect := func(v *registered) *sockettest.Client { return connectSocket(t, b.URL, v.token) }
	web, phone := loginAgain(t, a, u, "web"), loginAgain(t, a, u, "app")
	webSock, phoneSock, firstSock := connect(web), connect(phone), connect(u)

	start := time.Now()
	web.c.call(http.MethodPost, "/v1/users/logout", nil, web.auth()...).want(t, 200, "")
	disconnectedWithin(t, webSock, start, sessionEndLimit, "logout: its session's socket")
	phoneSock.StaysConnected(t, 300*time.Millisecond)

	// A password change ends every other session and keeps the caller's.
	start = time.Now()
	r := phone.c.call(http.MethodPost, "/v1/users/changepassword", map[string]any{"currentPassword": strongPassword, "newPassword": "Another-Horse-43-battery"}, phone.auth()...).want(t, 200, "")
	disconnectedWithin(t, firstSock, start, sessionEndLimit, "password change: another session's socket")
	phoneSock.StaysConnected(t, 300*time.Millisecond)
	if got := jwtPayload(r.str("token"))["sid"]; got != phone.sid(t) {
		t.Errorf("password change: the caller's session id changed to %v, want %v", got, phone.sid(t))
	}
	phone.token = r.str("token")
	phone.read(t).want(t, 200, "")

	// Logout-all ends the rest.
	start = time.Now()
	phone.c.call(http.MethodPost, "/v1/users/logoutall", nil, phone.auth()...).want(t, 200, "")
	disconnectedWithin(t, phoneSock, start, sessionEndLimit, "logout-all")
}

// TestSessionExpiryDisconnectsSocket lets a session expire with its socket
// connected: the socket is disconnected within 2 s of the expiry. The
// session lives long enough for a node client to start on a loaded machine.
func TestSessionExpiryDisconnectsSocket(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "REFRESH_TOKEN_EXPIRES_IN=8s"), "api")
	u := register(t, s.client(), "web")
	c := connectSocket(t, s.URL, u.token)
	var expiry time.Time
	if err := s.db().GetContext(t.Context(), &expiry, `SELECT expires_at FROM user_sessions WHERE user_id = $1`, u.id); err != nil {
		t.Fatal(err)
	}
	if time.Until(expiry) <= 0 {
		t.Fatal("the client took longer than the session's 8 s to connect")
	}
	u.read(t).want(t, 200, "")
	disconnectedWithin(t, c, expiry, sessionEndLimit, "an expired session's socket")
	u.read(t).want(t, 401, "UNAUTHORIZED")
}

// TestStolenTokenReplayedTwice: the HTTP side of a rotated refresh token
// replayed twice (the engine's TestStolenTokenReplayedTwice checks what
// each replay changes): both replays are 401, and the second ends nothing,
// so the socket of the owner's new login stays connected and its token
// still reads and refreshes.
func TestStolenTokenReplayedTwice(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t), "api")
	u := register(t, s.client(), "app")
	stolen := u.refresh
	s.client().call(http.MethodPost, "/v1/users/refresh", map[string]any{"refreshToken": stolen}, "X-Client", "app").want(t, 200, "")
	s.client().call(http.MethodPost, "/v1/users/refresh", map[string]any{"refreshToken": stolen}).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
	again := loginAgain(t, s, u, "app")
	c := connectSocket(t, s.URL, again.token)
	s.client().call(http.MethodPost, "/v1/users/refresh", map[string]any{"refreshToken": stolen}).want(t, 401, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
	again.read(t).want(t, 200, "")
	c.StaysConnected(t, 500*time.Millisecond)
	s.client().call(http.MethodPost, "/v1/users/refresh", map[string]any{"refreshToken": again.refresh}, "X-Client", "app").want(t, 200, "")
}
