package main

import (
	"crypto/ecdsa"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/descope/virtualwebauthn"
	"github.com/jmoiron/sqlx"
)

// The relying party of the passkey tests: the software authenticators
// sign for it, as a browser on testOrigin would.
const (
	testRPID   = "example.test"
	testOrigin = "https://app.example.test"
)

// passkeyEnv is testEnv with the tests' relying party.
func passkeyEnv(t testing.TB, overrides ...string) map[string]string {
	t.Helper()
	return testEnv(t, append([]string{"WEBAUTHN_RP_ID=" + testRPID, "WEBAUTHN_ORIGINS=" + testOrigin}, overrides...)...)
}

// passkeyServer starts an API server with the tests' relying party and
// registers a web user there; it returns the server, its database, the
// user, and the user as the owner of passkeys.
func passkeyServer(t *testing.T) (*testServer, *sqlx.DB, *registered, *owner) {
	t.Helper()
	s := startServer(t, passkeyEnv(t), "api")
	u := register(t, s.client(), "web")
	return s, s.db(), u, userOwner(u)
}

// device is a software authenticator holding one credential, used from
// rp's origin: it answers the server's options as
// navigator.credentials.create() and get() followed by toJSON() would.
// Its counter stays where the test sets it (synced passkeys keep 0).
type device struct {
	rp   virtualwebauthn.RelyingParty
	auth virtualwebauthn.Authenticator
	cred virtualwebauthn.Credential
}

// newDevice makes an authenticator with opts (user verified and present
// unless they say otherwise).
func newDevice(opts virtualwebauthn.AuthenticatorOptions) *device {
	return &device{
		rp:   virtualwebauthn.RelyingParty{ID: testRPID, Name: "actionkit", Origin: testOrigin},
		auth: virtualwebauthn.NewAuthenticatorWithOptions(opts),
		cred: newCredential(),
	}
}

// newCredential returns a P-256 credential of the software authenticator
// whose public key it encodes as COSE requires. virtualwebauthn writes the
// key's coordinates with big.Int.Bytes, which drops leading zero bytes, so
// about one key in 128 (a coordinate below 2^248) would come out shorter
// than 32 bytes, and the WebAuthn library rightly refuses it ("EC2 key x
// or y coordinate has invalid length"): a registration failing at random.
// Such keys are passed over; real authenticators write both coordinates
// in full.
func newCredential() virtualwebauthn.Credential {
	for {
		c := virtualwebauthn.NewCredential(virtualwebauthn.KeyTypeEC2)
		if fullWidthKey(c) {
			return c
		}
	}
}

// fullWidthKey reports whether both coordinates of c's P-256 public key
// take 32 bytes without leading zeros.
func fullWidthKey(c virtualwebauthn.Credential) bool {
	k, err := x509.ParsePKCS8PrivateKey(c.Key.Data)
	if err != nil {
		panic(fmt.Sprintf("virtualwebauthn key: %v", err))
	}
	pub := k.(*ecdsa.PrivateKey).PublicKey
	return len(pub.X.Bytes()) == 32 && len(pub.Y.Bytes()) == 32
}

// create answers creation options (the bare object) with the JSON of a
// new credential, keeping the user handle the options carry.
func (d *device) create(t testing.TB, options map[string]any) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(options)
	opts, err := virtualwebauthn.ParseAttestationOptions(string(raw))
	if err != nil {
		t.Fatalf("creation options %s: %v", raw, err)
	}
	d.auth.Options.UserHandle = []byte(opts.UserID)
	return jsonObject(t, virtualwebauthn.CreateAttestationResponse(d.rp, d.auth, d.cred, *opts))
}

// get answers request options with the JSON of an assertion.
func (d *device) get(t testing.TB, options map[string]any) map[string]any {
	t.Helper()
	raw, _ := json.Marshal(options)
	opts, err := virtualwebauthn.ParseAssertionOptions(string(raw))
	if err != nil {
		t.Fatalf("request options %s: %v", raw, err)
	}
	return jsonObject(t, virtualwebauthn.CreateAssertionResponse(d.rp, d.auth, d.cred, *opts))
}

func jsonObject(t testing.TB, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// owner is a caller with a token: a user or an admin.
type owner struct {
	c     *client
	kind  string // "user" or "admin"
	id    string
	token string
}

func (o *owner) auth() []string { return []string{"Authorization", "jwt-" + o.kind + " " + o.token} }

// path is the owner type's path of an action: "passkeys/register" is
// /v1/users/passkeys/register.
func (o *owner) path(action string) string { return "/v1/" + o.kind + "s/" + action }

func (o *owner) call(action string, args map[string]any) *apiResponse {
	o.c.t.Helper()
	if args == nil {
		return o.c.call(http.MethodPost, o.path(action), nil, o.auth()...)
	}
	return o.c.call(http.MethodPost, o.path(action), args, o.auth()...)
}

func userOwner(u *registered) *owner { return &owner{c: u.c, kind: "user", id: u.id, token: u.token} }

// addPasskey registers d's credential for o through the API and returns
// the passkey object.
func addPasskey(t testing.TB, o *owner, d *device, name string) map[string]any {
	t.Helper()
	opts := o.call("passkeys/registeroptions", nil).want(t, 200, "")
	args := map[string]any{"challengeId": opts.str("challengeId"), "credential": d.create(t, opts.obj("options"))}
	if name != "" {
		args["name"] = name
	}
	return o.call("passkeys/register", args).want(t, 201, "").obj("passkey")
}

// passkeyLogin signs in with d at the owner type's passkey login, with a
// client of its own, and returns the answer.
func passkeyLogin(t testing.TB, s *testServer, kind string, d *device, headers ...string) *apiResponse {
	t.Helper()
	c := s.client()
	opts := c.call(http.MethodPost, "/v1/"+kind+"s/passkeys/loginoptions", nil).want(t, 200, "")
	return c.call(http.MethodPost, "/v1/"+kind+"s/passkeys/login",
		map[string]any{"challengeId": opts.str("challengeId"), "credential": d.get(t, opts.obj("options"))}, headers...)
}

// passkeyRow is what the tests read of a passkey.
type passkeyRow struct {
	SignCount   int64 `db:"sign_count"`
	BackupState bool  `db:"backup_state"`
	Used        bool  `db:"used"`
}

func passkeyOf(t testing.TB, db *sqlx.DB, id string) passkeyRow {
	t.Helper()
	var r passkeyRow
	if err := db.GetContext(t.Context(), &r, `SELECT sign_count, backup_state, last_used_at IS NOT NULL AS used
		FROM webauthn_credentials WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	return r
}

// liveSessions counts the live sessions of the user.
func liveSessions(t testing.TB, db *sqlx.DB, userID string) int {
	t.Helper()
	var n int
	if err := db.GetContext(t.Context(), &n, `SELECT count(*) FROM user_sessions WHERE user_id = $1 AND revoked_at IS NULL`, userID); err != nil {
		t.Fatal(err)
	}
	return n
}

// reauthWithPasskey re-authenticates o's session with d.
func reauthWithPasskey(t testing.TB, o *owner, d *device) *apiResponse {
	t.Helper()
	opts := o.call("reauthenticateoptions", nil).want(t, 200, "")
	return o.call("reauthenticate", map[string]any{"method": "webauthn", "challengeId": opts.str("challengeId"),
		"credential": d.get(t, opts.obj("options"))})
}
