package main

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/internal/sockettest"
)

// seedOAuthConsent gives the user a consent to a new OAuth client (as the
// OAuth provider would) and returns the client's name.
func seedOAuthConsent(t testing.TB, db *sqlx.DB, userID string) string {
	t.Helper()
	clientID := "client-" + uuid.NewString()
	sqlExec(t, db, `INSERT INTO oauth_clients (id, client_id, name, token_endpoint_auth_method, source, created_at, updated_at)
		VALUES ($1, $2, $3, 'none', 'admin', now(), now())`, uuid.New(), clientID, "App "+clientID)
	sqlExec(t, db, `INSERT INTO oauth_consents (id, user_id, client_id, scopes, created_at, updated_at)
		VALUES ($1, $2, $3, '{openid,email}', now(), now())`, uuid.New(), userID, clientID)
	return "App " + clientID
}

func countRows(t testing.TB, db *sqlx.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.GetContext(t.Context(), &n, query, args...); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestUserDeletesAccount deletes an account by its owner: every session
// (an OAuth one included) and token ends at once, the refresh cookie is
// cleared, the OAuth consents go, account_deleted records data.self, a
// notice is mailed, the login says the account is deleted, and an admin
// can restore it.
func TestUserDeletesAccount(t *testing.T) {
	t.Parallel()
	s, smtp := mailServer(t)
	db := s.db()
	u := register(t, s.client(), "web")
	other := loginAs(t, s, u.email, strongPassword)
	// The app session stands for an OAuth client's session of the user.
	sqlExec(t, db, `UPDATE user_sessions SET client = 'oauth' WHERE refresh_token_hash = $1`, sha256Hex(other.refresh))
	seedOAuthConsent(t, db, u.id)

	r := u.c.call(http.MethodPost, "/v1/users/delete", map[string]any{}, u.auth()...).want(t, 200, "")
	if line := setCookieLine(r, "jwt-user-refresh"); line == "" || !strings.HasPrefix(line, "jwt-user-refresh=;") || !strings.Contains(line, "1970") {
		t.Fatalf("the refresh cookie is not cleared: %q", line)
	}
	u.read(t).want(t, 401, "")
	other.read(t).want(t, 401, "")
	refreshWith(s.client(), http.MethodPost, other.refresh).want(t, 401, "")
	for _, row := range sessionsOf(t, db, u.id) {
		if !row.Revoked {
			t.Fatalf("a session outlived the deletion: %+v", row)
		}
	}
	if n := countRows(t, db, `SELECT count(*) FROM oauth_consents WHERE user_id = $1`, u.id); n != 0 {
		t.Fatalf("%d consents left", n)
	}
	var data []byte
	if err := db.GetContext(t.Context(), &data, `SELECT data FROM security_events WHERE owner_id = $1 AND type = 'account_deleted'`, u.id); err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if _ = json.Unmarshal(data, &d); d["self"] != true || d["adminId"] != nil {
		t.Fatalf("account_deleted data %s", data)
	}
	waitMails(t, smtp, u.email, subjectAccountDelete, 1)
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": u.email, "password": strongPassword}).
		want(t, 400, "USER_BAD_REQUEST_ACCOUNT_DELETED")
	s.client().call(http.MethodPost, "/v1/users/register", map[string]any{"email": u.email, "password": strongPassword}).
		want(t, 400, "USER_BAD_REQUEST_USER_ALREADY_EXISTS")

	createAdmin(t, s.env, "restorer@example.com")
	a, _ := adminLogin(t, s, "restorer@example.com", "web")
	adminCall(a, "restore", u.id).want(t, 200, "")
	loginAs(t, s, u.email, strongPassword)
}

// TestUserExportHoldsNoSecret exports an account that has everything (a
// second factor, a passkey, an identity, an OAuth consent, a post, an
// unused one-time token) and checks every part against the user's own
// actions, and that no secret the service holds appears in it: no password
// hash or salt, no refresh token or its hash, no access token, no TOTP
// secret (clear or encrypted), no recovery code or its hash, no one-time
// token hash. A passkey's public key is not a secret, but the user's own
// passkey list does not show it, so the export does not either.
func TestUserExportHoldsNoSecret(t *testing.T) {
	t.Parallel()
	s, _, m := mfaServer(t)
	db := s.db()
	u := m.registered
	u.c.call(http.MethodPost, "/v1/posts/create", map[string]any{"title": "Hello", "body": "world"}, u.auth()...).want(t, 201, "")
	appName := seedOAuthConsent(t, db, u.id)
	sqlExec(t, db, `INSERT INTO user_identities (id, user_id, provider, subject, email) VALUES ($1, $2, 'google', 'sub-123', 'ada@gmail.example')`, uuid.New(), u.id)
	publicKey := []byte("a passkey public key, 32+ bytes long, seeded")
	sqlExec(t, db, `INSERT INTO webauthn_credentials (id, owner_type, owner_id, credential_id, public_key, user_verified, backup_eligible, backup_state, name)
		VALUES ($1, 'user', $2, $3, $4, true, true, true, 'Laptop')`, uuid.New(), u.id, []byte("credential-id-1"), publicKey)
	tokenHash := sha256Hex("an unused one-time token")
	sqlExec(t, db, `INSERT INTO account_tokens (id, owner_type, owner_id, purpose, token_hash, expires_at) VALUES ($1, 'user', $2, 'password_reset', $3, now() + interval '1 hour')`,
		uuid.New(), u.id, tokenHash)

	r := u.c.call(http.MethodPost, "/v1/users/export", map[string]any{}, u.auth()...).want(t, 200, "")
	ex := r.obj("export")
	for _, k := range []string{"user", "sessions", "securityEvents", "identities", "passkeys", "mfa", "oauthApps", "posts", "exportedAt"} {
		if _, ok := ex[k]; !ok {
			t.Errorf("export lacks %s", k)
		}
	}
	// Each part as the user's own action shows it.
	for part, path := range map[string]string{"user": "/v1/users/read", "identities": "/v1/users/identities", "passkeys": "/v1/users/passkeys",
		"mfa": "/v1/users/mfa/status", "sessions": "/v1/users/sessions"} {
		own := u.c.call(http.MethodPost, path, map[string]any{"id": u.id}, u.auth()...).want(t, 200, "")
		want, _ := json.Marshal(own.Body[part])
		got, _ := json.Marshal(ex[part])
		if part == "sessions" {
			// lastUsedAt moves with refreshes only; the lists match.
			if len(own.Body[part].([]any)) != len(ex[part].([]any)) {
				t.Errorf("export %s: %s, own action: %s", part, got, want)
			}
			continue
		}
		if string(got) != string(want) {
			t.Errorf("export %s: %s, own action: %s", part, got, want)
		}
	}
	events, _ := json.Marshal(ex["securityEvents"])
	for _, typ := range []string{`"register"`, `"mfa_enabled"`} {
		if !strings.Contains(string(events), typ) {
			t.Errorf("securityEvents lack %s: %s", typ, events)
		}
	}
	apps, _ := json.Marshal(ex["oauthApps"])
	posts, _ := json.Marshal(ex["posts"])
	if !strings.Contains(string(apps), appName) || !strings.Contains(string(apps), `"openid"`) || !strings.Contains(string(posts), `"Hello"`) {
		t.Errorf("oauthApps %s, posts %s", apps, posts)
	}

	// Every secret-ish value the service holds about the user.
	base, _ := url.Parse(s.URL)
	var refresh string
	for _, c := range u.c.http.Jar.Cookies(base) {
		if c.Name == "jwt-user-refresh" {
			refresh = c.Value
		}
	}
	secrets := map[string]string{"access token": u.token, "refresh token": refresh, "TOTP secret": m.secret,
		"one-time token hash": tokenHash, "passkey public key (hex)": hex.EncodeToString(publicKey),
		"passkey public key (base64url)": base64.RawURLEncoding.EncodeToString(publicKey),
		"passkey public key (base64)":    base64.StdEncoding.EncodeToString(publicKey)}
	for i, c := range m.codes {
		secrets["recovery code "+string(rune('0'+i))] = c
	}
	var password, salt string
	if err := db.QueryRowxContext(t.Context(), `SELECT password, salt FROM users WHERE id = $1`, u.id).Scan(&password, &salt); err != nil {
		t.Fatal(err)
	}
	secrets["password hash"], secrets["salt"] = password, salt
	var ct, nonce []byte
	if err := db.QueryRowxContext(t.Context(), `SELECT secret_ciphertext, secret_nonce FROM mfa_totp WHERE owner_id = $1`, u.id).Scan(&ct, &nonce); err != nil {
		t.Fatal(err)
	}
	secrets["TOTP ciphertext"], secrets["TOTP nonce"] = base64.StdEncoding.EncodeToString(ct), base64.StdEncoding.EncodeToString(nonce)
	var hashes []string
	if err := db.SelectContext(t.Context(), &hashes, `SELECT refresh_token_hash FROM user_sessions WHERE user_id = $1
		UNION ALL SELECT code_hash FROM mfa_recovery_codes WHERE owner_id = $1`, u.id); err != nil {
		t.Fatal(err)
	}
	for i, h := range hashes {
		secrets["stored hash "+string(rune('a'+i))] = h
	}
	for name, v := range secrets {
		if v == "" {
			t.Fatalf("%s is empty: the scan would prove nothing", name)
		}
		if strings.Contains(strings.ToLower(r.Raw), strings.ToLower(v)) {
			t.Errorf("the export holds the %s", name)
		}
	}
}

// TestDeletedUsersPurgedAfterGrace deletes one user itself and one by an
// admin, moves the clock past ACCOUNT_DELETION_GRACE and waits for the
// clock's purge: every row that refers to them goes (webhook deliveries of
// their events included), their security events stay without IP address,
// user agent and personal data, and their addresses register again. A user
// deleted within the grace stays, and an admin restores it.
func TestDeletedUsersPurgedAfterGrace(t *testing.T) {
	t.Parallel()
	clock := newTestClock()
	env := testEnv(t, "PURGE_SESSIONS_SCHEDULE=* * * * * *", "ACCOUNT_DELETION_GRACE=720h", "LOG_LEVEL=info")
	s := startServerClock(t, env, clock.Now)
	db := s.db()
	// A webhook subscribed to every event gets a delivery of each.
	sqlExec(t, db, `INSERT INTO webhooks (id, url, events, enabled, secret_ciphertext, secret_nonce)
		VALUES ($1, 'https://hooks.invalid/h', '{*}', true, '\x00', '\x00')`, uuid.New())
	createAdmin(t, env, "purger@example.com")

	self := register(t, s.client(), "app")
	self.c.call(http.MethodPost, "/v1/users/update", map[string]any{"firstName": "Gone"}, self.auth()...).want(t, 200, "")
	self.c.call(http.MethodPost, "/v1/posts/create", map[string]any{"title": "mine"}, self.auth()...).want(t, 201, "")
	s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": self.email, "password": "wrong-Password-1"}).want(t, 400, "")
	seedOAuthConsent(t, db, self.id)
	sqlExec(t, db, `INSERT INTO user_identities (id, user_id, provider, subject) VALUES ($1, $2, 'google', $3)`, uuid.New(), self.id, "sub-"+self.id)
	self.c.call(http.MethodPost, "/v1/users/requestemailverification", map[string]any{}, self.auth()...).want(t, 200, "")
	enroll(t, self, clock, "user")                 // a TOTP secret and recovery codes
	firstStep(t, s, "/v1/users/login", self.email) // a pending login challenge
	self.c.call(http.MethodPost, "/v1/users/delete", map[string]any{}, self.auth()...).want(t, 200, "")
	// A passkey, added after (the deletion would need it), stands for
	// those the user had.
	sqlExec(t, db, `INSERT INTO webauthn_credentials (id, owner_type, owner_id, credential_id, public_key, user_verified, backup_eligible, backup_state, name)
		VALUES ($1, 'user', $2, $3, '\x01', true, false, false, 'Key')`, uuid.New(), self.id, []byte("cred-"+self.id))

	byAdmin := register(t, s.client(), "app")
	a, _ := adminLogin(t, s, "purger@example.com", "web")
	adminCall(a, "delete", byAdmin.id).want(t, 200, "")
	gone := []string{self.id, byAdmin.id}
	for what, query := range map[string]string{
		"webhook delivery": `SELECT count(*) FROM webhook_deliveries d JOIN security_events e ON e.id = d.event_id WHERE e.owner_id = $1`,
		"TOTP secret":      `SELECT count(*) FROM mfa_totp WHERE owner_id = $1`,
		"recovery code":    `SELECT count(*) FROM mfa_recovery_codes WHERE owner_id = $1`,
		"login challenge":  `SELECT count(*) FROM login_challenges WHERE owner_id = $1`,
		"one-time token":   `SELECT count(*) FROM account_tokens WHERE owner_id = $1`,
		"passkey":          `SELECT count(*) FROM webauthn_credentials WHERE owner_id = $1`,
	} {
		if countRows(t, db, query, self.id) == 0 {
			t.Fatalf("no %s of the user to purge", what)
		}
	}

	clock.Advance(10 * 24 * time.Hour)
	kept := register(t, s.client(), "app")
	kept.c.call(http.MethodPost, "/v1/users/delete", map[string]any{}, kept.auth()...).want(t, 200, "")
	clock.Advance(20*24*time.Hour + time.Hour) // the first two are 30 days and an hour gone

	poll := time.Now().Add(30 * time.Second)
	for countRows(t, db, `SELECT count(*) FROM users WHERE id = ANY ($1::uuid[])`, "{"+strings.Join(gone, ",")+"}") != 0 {
		if time.Now().After(poll) {
			t.Fatalf("the deleted users were not purged:\n%s", s.logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, id := range gone {
		for table, query := range map[string]string{
			"sessions":          `SELECT count(*) FROM user_sessions WHERE user_id = $1`,
			"posts":             `SELECT count(*) FROM posts WHERE user_id = $1`,
			"identities":        `SELECT count(*) FROM user_identities WHERE user_id = $1`,
			"consents":          `SELECT count(*) FROM oauth_consents WHERE user_id = $1`,
			"passkeys":          `SELECT count(*) FROM webauthn_credentials WHERE owner_id = $1`,
			"recovery codes":    `SELECT count(*) FROM mfa_recovery_codes WHERE owner_id = $1`,
			"TOTP secrets":      `SELECT count(*) FROM mfa_totp WHERE owner_id = $1`,
			"login challenges":  `SELECT count(*) FROM login_challenges WHERE owner_id = $1`,
			"one-time tokens":   `SELECT count(*) FROM account_tokens WHERE owner_id = $1`,
			"webhook delivered": `SELECT count(*) FROM webhook_deliveries d JOIN security_events e ON e.id = d.event_id WHERE e.owner_id = $1`,
			"events with traces": `SELECT count(*) FROM security_events WHERE owner_id = $1 AND (ip_address IS NOT NULL OR user_agent IS NOT NULL
				OR EXISTS (SELECT 1 FROM jsonb_object_keys(data) k WHERE k NOT IN ('adminId', 'clientId', 'fields')))`,
		} {
			if n := countRows(t, db, query, id); n != 0 {
				t.Errorf("user %s: %d rows of %s left", id, n, table)
			}
		}
		if n := countRows(t, db, `SELECT count(*) FROM security_events WHERE owner_id = $1`, id); n < 2 {
			t.Errorf("user %s: %d security events kept", id, n)
		}
	}
	if n := countRows(t, db, `SELECT count(*) FROM security_events WHERE owner_id = $1 AND type = 'user_updated' AND data->'fields' = '["firstName"]'`, self.id); n != 1 {
		t.Errorf("the user_updated event lost its fields")
	}
	if n := countRows(t, db, `SELECT count(*) FROM security_events WHERE owner_id = $1 AND type = 'account_deleted' AND data ? 'adminId'`, byAdmin.id); n != 1 {
		t.Errorf("the admin's account_deleted event lost its adminId")
	}
	// The addresses are free again; the user deleted within the grace is
	// not, and an admin restores it.
	for _, email := range []string{self.email, byAdmin.email} {
		s.client().call(http.MethodPost, "/v1/users/register", map[string]any{"email": email, "password": strongPassword}).want(t, 201, "")
	}
	s.client().call(http.MethodPost, "/v1/users/register", map[string]any{"email": kept.email, "password": strongPassword}).
		want(t, 400, "USER_BAD_REQUEST_USER_ALREADY_EXISTS")
	a, _ = adminLogin(t, s, "purger@example.com", "web")
	adminCall(a, "restore", kept.id).want(t, 200, "")
	loginAs(t, s, kept.email, strongPassword)
}

// TestAccountChangesEndSockets opens a socket of the user on a second
// instance before each change that ends every session (an e-mail change,
// its revert, a deletion): the socket is disconnected within the limit.
func TestAccountChangesEndSockets(t *testing.T) {
	t.Parallel()
	s, smtp := mailServer(t)
	b := startServer(t, s.env, "api")
	u := register(t, s.client(), "app")
	watch := func(v *registered) (*sockettest.Client, time.Time) {
		return connectSocket(t, b.URL, v.token), time.Now()
	}

	newEmail := "socket-" + uniqueEmail()
	change := changeToken(t, smtp, u, newEmail, 1)
	sock, start := watch(u)
	confirmChange(s, change).want(t, 200, "")
	disconnectedWithin(t, sock, start, sessionEndLimit, "confirmemailchange")

	revert := tokenOf(t, waitMails(t, smtp, u.email, subjectChanged, 1)[0], revertLinkRe)
	v := loginAs(t, s, newEmail, strongPassword)
	sock, start = watch(v)
	revertChange(s, revert).want(t, 200, "")
	disconnectedWithin(t, sock, start, sessionEndLimit, "revertemailchange")

	// The revert made the password unusable: a new one from its mail.
	reset := tokenOf(t, waitMails(t, smtp, u.email, subjectReverted, 1)[0], resetLinkRe)
	s.client().call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": reset, "password": newPassword}).want(t, 200, "")
	v = loginAs(t, s, u.email, newPassword)
	sock, start = watch(v)
	v.c.call(http.MethodPost, "/v1/users/delete", map[string]any{}, v.auth()...).want(t, 200, "")
	disconnectedWithin(t, sock, start, sessionEndLimit, "delete")
}
