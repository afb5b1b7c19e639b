package models

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// ClientOAuth is the client of the session rows of an OAuth sign-in
// (user_sessions.client).
const ClientOAuth = "oauth"

// ErrSpent reports that a single-use row (an authorization code) was
// presented again after it was spent.
var ErrSpent = errors.New("models: already spent")

// OAuthRequest is a row of oauth_requests: a pending authorization request
// of /oauth2/authorize, waiting for the user's approval or denial.
type OAuthRequest struct {
	ID uuid.UUID `db:"id"`
	// RequestHash is the lowercase hex SHA-256 of the requestId.
	RequestHash string `db:"request_hash"`
	// BrowserHash is the lowercase hex SHA-256 of the secret of the
	// browser that made the request (its oauth-request cookie); nil for a
	// request stored before migration 0018, which no browser can use.
	BrowserHash   *string        `db:"browser_hash"`
	ClientID      string         `db:"client_id"`
	RedirectURI   string         `db:"redirect_uri"`
	Scopes        pq.StringArray `db:"scopes"`
	Resources     pq.StringArray `db:"resources"`
	State         *string        `db:"state"`
	Nonce         *string        `db:"nonce"`
	CodeChallenge string         `db:"code_challenge"`
	Prompt        pq.StringArray `db:"prompt"`
	MaxAge        *int32         `db:"max_age"`
	CreatedAt     time.Time      `db:"created_at"`
	ExpiresAt     time.Time      `db:"expires_at"`
	SpentAt       *time.Time     `db:"spent_at"`
}

func (r *OAuthRequest) normalize() {
	utc(&r.CreatedAt)
	utc(&r.ExpiresAt)
	utcPtr(&r.SpentAt)
	emptyIfNil(&r.Scopes, &r.Resources, &r.Prompt)
}

// Live reports whether r may still be approved or denied at now.
func (r *OAuthRequest) Live(now time.Time) bool { return r.SpentAt == nil && r.ExpiresAt.After(now) }

// OAuthCode is a row of oauth_codes: an authorization code, bound to what
// the approval granted.
type OAuthCode struct {
	ID       uuid.UUID `db:"id"`
	CodeHash string    `db:"code_hash"`
	ClientID string    `db:"client_id"`
	UserID   uuid.UUID `db:"user_id"`
	// ApprovingSessionID is the session (chain) that approved.
	ApprovingSessionID uuid.UUID      `db:"approving_session_id"`
	RedirectURI        string         `db:"redirect_uri"`
	CodeChallenge      string         `db:"code_challenge"`
	Scopes             pq.StringArray `db:"scopes"`
	Resources          pq.StringArray `db:"resources"`
	Nonce              *string        `db:"nonce"`
	AuthTime           time.Time      `db:"auth_time"`
	CreatedAt          time.Time      `db:"created_at"`
	ExpiresAt          time.Time      `db:"expires_at"`
	SpentAt            *time.Time     `db:"spent_at"`
	// SessionID is the OAuth session the exchange opened, nil before.
	SessionID *uuid.UUID `db:"session_id"`
}

func (c *OAuthCode) normalize() {
	utc(&c.AuthTime)
	utc(&c.CreatedAt)
	utc(&c.ExpiresAt)
	utcPtr(&c.SpentAt)
	emptyIfNil(&c.Scopes, &c.Resources)
}

// OAuthConsent is a row of oauth_consents: what a user consented to for a
// client, the union of every approval.
type OAuthConsent struct {
	ID        uuid.UUID      `db:"id"`
	UserID    uuid.UUID      `db:"user_id"`
	ClientID  string         `db:"client_id"`
	Scopes    pq.StringArray `db:"scopes"`
	Resources pq.StringArray `db:"resources"`
	CreatedAt time.Time      `db:"created_at"`
	UpdatedAt time.Time      `db:"updated_at"`
}

func (c *OAuthConsent) normalize() {
	utc(&c.CreatedAt)
	utc(&c.UpdatedAt)
	emptyIfNil(&c.Scopes, &c.Resources)
}

// OAuthGrant is a row of oauth_grants: what an OAuth session (a chain of
// user_sessions rows with client 'oauth') was granted.
type OAuthGrant struct {
	SessionID uuid.UUID      `db:"session_id"`
	UserID    uuid.UUID      `db:"user_id"`
	ClientID  string         `db:"client_id"`
	Scopes    pq.StringArray `db:"scopes"`
	Resources pq.StringArray `db:"resources"`
	// Audience is the aud of the session's current access tokens.
	Audience  string    `db:"audience"`
	AuthTime  time.Time `db:"auth_time"`
	CreatedAt time.Time `db:"created_at"`
}

func (g *OAuthGrant) normalize() {
	utc(&g.AuthTime)
	utc(&g.CreatedAt)
	emptyIfNil(&g.Scopes, &g.Resources)
}

// OAuthSessionClient names the client of an OAuth session, for the
// session list.
type OAuthSessionClient struct {
	SessionID uuid.UUID `db:"session_id"`
	ClientID  string    `db:"client_id"`
	Name      string    `db:"name"`
}

const (
	oauthRequestColumns = `id, request_hash, client_id, redirect_uri, scopes, resources, state, nonce,
		code_challenge, prompt, max_age, created_at, expires_at, spent_at, browser_hash`
	oauthCodeColumns = `id, code_hash, client_id, user_id, approving_session_id, redirect_uri, code_challenge,
		scopes, resources, nonce, auth_time, created_at, expires_at, spent_at, session_id`
	oauthConsentColumns = `id, user_id, client_id, scopes, resources, created_at, updated_at`
	oauthGrantColumns   = `session_id, user_id, client_id, scopes, resources, audience, auth_time, created_at`
)

// oauthFlowQueries is the query table of OAuthFlowStore.
var oauthFlowQueries = struct {
	insertRequest, requestByHash, spendRequest                  string
	insertCode, spendCode, codeByHash, setCodeSession           string
	consent, widenConsent                                       string
	insertGrant, grantBySession, setGrantAudience, sessionNames string
	purgeRequests, purgeCodes, purgeGrants                      string
}{
	insertRequest: `INSERT INTO oauth_requests (` + oauthRequestColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, NULL, $14)`,
	requestByHash: `SELECT ` + oauthRequestColumns + ` FROM oauth_requests WHERE request_hash = $1`,
	spendRequest: `UPDATE oauth_requests SET spent_at = $2
		WHERE request_hash = $1 AND spent_at IS NULL AND expires_at > $2 RETURNING ` + oauthRequestColumns,
	insertCode: `INSERT INTO oauth_codes (` + oauthCodeColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, NULL, NULL)`,
	spendCode: `UPDATE oauth_codes SET spent_at = $2
		WHERE code_hash = $1 AND spent_at IS NULL AND expires_at > $2 RETURNING ` + oauthCodeColumns,
	codeByHash:     `SELECT ` + oauthCodeColumns + ` FROM oauth_codes WHERE code_hash = $1`,
	setCodeSession: `UPDATE oauth_codes SET session_id = $2 WHERE id = $1`,
	consent:        `SELECT ` + oauthConsentColumns + ` FROM oauth_consents WHERE user_id = $1 AND client_id = $2`,
	// The union keeps the order of first consent, new values appended.
	widenConsent: `INSERT INTO oauth_consents AS c (` + oauthConsentColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $6)
		ON CONFLICT (user_id, client_id) DO UPDATE SET
			scopes = c.scopes || ARRAY(SELECT s FROM unnest(EXCLUDED.scopes) s WHERE s <> ALL (c.scopes)),
			resources = c.resources || ARRAY(SELECT r FROM unnest(EXCLUDED.resources) r WHERE r <> ALL (c.resources)),
			updated_at = EXCLUDED.updated_at
		RETURNING ` + oauthConsentColumns + `, (xmax = 0) AS inserted`,
	insertGrant: `INSERT INTO oauth_grants (` + oauthGrantColumns + `)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
	grantBySession:   `SELECT ` + oauthGrantColumns + ` FROM oauth_grants WHERE session_id = $1`,
	setGrantAudience: `UPDATE oauth_grants SET audience = $2 WHERE session_id = $1`,
	purgeRequests: `DELETE FROM oauth_requests WHERE id IN (SELECT id FROM oauth_requests
		WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
	purgeCodes: `DELETE FROM oauth_codes WHERE id IN (SELECT id FROM oauth_codes
		WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
	// A grant outlives its session's rows only until they are purged.
	purgeGrants: `DELETE FROM oauth_grants WHERE session_id IN (SELECT g.session_id FROM oauth_grants g
		WHERE g.created_at < $1 AND NOT EXISTS (SELECT 1 FROM user_sessions s WHERE s.chain_id = g.session_id)
		LIMIT $2 FOR UPDATE SKIP LOCKED)`,
	sessionNames: `SELECT g.session_id, g.client_id, c.name FROM oauth_grants g
		JOIN oauth_clients c ON c.client_id = g.client_id WHERE g.session_id = ANY($1::uuid[])`,
}

// OAuthFlowStore reads and writes the authorization requests, codes,
// consents and grants of the OAuth provider. Its zero value sends plain
// queries; it is safe for concurrent use.
type OAuthFlowStore struct {
	q querier
}

// Prepared returns a copy of the store whose queries are prepared on pool.
func (s OAuthFlowStore) Prepared(pool *sqlx.DB) OAuthFlowStore {
	return OAuthFlowStore{q: preparedOn(pool, queriesOf(&oauthFlowQueries)...)}
}

// InsertRequest stores r as given.
func (s OAuthFlowStore) InsertRequest(ctx context.Context, db DB, r *OAuthRequest) error {
	_, err := execCount(ctx, s.q, db, "insert oauth request", oauthFlowQueries.insertRequest,
		r.ID, r.RequestHash, r.ClientID, r.RedirectURI, pq.StringArray(nonNil(r.Scopes)),
		pq.StringArray(nonNil(r.Resources)), r.State, r.Nonce, r.CodeChallenge,
		pq.StringArray(nonNil(r.Prompt)), r.MaxAge, r.CreatedAt, r.ExpiresAt, r.BrowserHash)
	return err
}

// RequestByHash returns the request whose request_hash is hash, in any
// state, or ErrNotFound.
func (s OAuthFlowStore) RequestByHash(ctx context.Context, db DB, hash string) (*OAuthRequest, error) {
	return getRow[OAuthRequest](ctx, s.q, db, "read oauth request", oauthFlowQueries.requestByHash, hash)
}

// SpendRequest marks the live request whose request_hash is hash spent at
// now and returns it; a request unknown, spent or expired is ErrNotFound.
// Of two concurrent spends exactly one succeeds.
func (s OAuthFlowStore) SpendRequest(ctx context.Context, db DB, hash string, now time.Time) (*OAuthRequest, error) {
	return getRow[OAuthRequest](ctx, s.q, db, "spend oauth request", oauthFlowQueries.spendRequest, hash, now)
}

// InsertCode stores c as given (not spent, no session yet).
func (s OAuthFlowStore) InsertCode(ctx context.Context, db DB, c *OAuthCode) error {
	_, err := execCount(ctx, s.q, db, "insert oauth code", oauthFlowQueries.insertCode,
		c.ID, c.CodeHash, c.ClientID, c.UserID, c.ApprovingSessionID, c.RedirectURI, c.CodeChallenge,
		pq.StringArray(nonNil(c.Scopes)), pq.StringArray(nonNil(c.Resources)), c.Nonce, c.AuthTime,
		c.CreatedAt, c.ExpiresAt)
	return err
}

// SpendCode marks the live code whose code_hash is hash spent at now and
// returns it. A code spent before is ErrSpent, returned with the code (its
// SessionID names the session the first exchange opened, once that
// exchange committed); an unknown or expired code is ErrNotFound. A
// concurrent spend of the same code waits for the first one's transaction
// and then finds it spent.
func (s OAuthFlowStore) SpendCode(ctx context.Context, db DB, hash string, now time.Time) (*OAuthCode, error) {
	c, err := getRow[OAuthCode](ctx, s.q, db, "spend oauth code", oauthFlowQueries.spendCode, hash, now)
	if !errors.Is(err, ErrNotFound) {
		return c, err
	}
	c, err = getRow[OAuthCode](ctx, s.q, db, "read oauth code", oauthFlowQueries.codeByHash, hash)
	if err != nil {
		return nil, err
	}
	if c.SpentAt != nil {
		return c, ErrSpent
	}
	return nil, ErrNotFound
}

// CodeByHash returns the code whose code_hash is hash, in any state and
// without locking it, or ErrNotFound.
func (s OAuthFlowStore) CodeByHash(ctx context.Context, db DB, hash string) (*OAuthCode, error) {
	return getRow[OAuthCode](ctx, s.q, db, "read oauth code", oauthFlowQueries.codeByHash, hash)
}

// SetCodeSession records the session the exchange of code id opened.
func (s OAuthFlowStore) SetCodeSession(ctx context.Context, db DB, id, session uuid.UUID) error {
	return execOne(ctx, s.q, db, "set oauth code session", oauthFlowQueries.setCodeSession, id, session)
}

// Consent returns the consent of user for client, or ErrNotFound.
func (s OAuthFlowStore) Consent(ctx context.Context, db DB, user uuid.UUID, client string) (*OAuthConsent, error) {
	return getRow[OAuthConsent](ctx, s.q, db, "read oauth consent", oauthFlowQueries.consent, user, client)
}

// widenedConsent is what widenConsent returns.
type widenedConsent struct {
	OAuthConsent
	Inserted bool `db:"inserted"`
}

func (w *widenedConsent) normalize() { w.OAuthConsent.normalize() }

// WidenConsent records that user consented to scopes and resources for
// client at now: a new consent, or the union with the one recorded. It
// returns the consent and whether it is new (the first approval).
func (s OAuthFlowStore) WidenConsent(ctx context.Context, db DB, user uuid.UUID, client string, scopes, resources []string, now time.Time) (*OAuthConsent, bool, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return nil, false, err
	}
	w, err := getRow[widenedConsent](ctx, s.q, db, "widen oauth consent", oauthFlowQueries.widenConsent,
		id, user, client, pq.StringArray(nonNil(scopes)), pq.StringArray(nonNil(resources)), now)
	if err != nil {
		return nil, false, err
	}
	return &w.OAuthConsent, w.Inserted, nil
}

// InsertGrant stores g as given.
func (s OAuthFlowStore) InsertGrant(ctx context.Context, db DB, g *OAuthGrant) error {
	_, err := execCount(ctx, s.q, db, "insert oauth grant", oauthFlowQueries.insertGrant,
		g.SessionID, g.UserID, g.ClientID, pq.StringArray(nonNil(g.Scopes)), pq.StringArray(nonNil(g.Resources)),
		g.Audience, g.AuthTime, g.CreatedAt)
	return err
}

// GrantBySession returns the grant of the OAuth session session, or
// ErrNotFound.
func (s OAuthFlowStore) GrantBySession(ctx context.Context, db DB, session uuid.UUID) (*OAuthGrant, error) {
	return getRow[OAuthGrant](ctx, s.q, db, "read oauth grant", oauthFlowQueries.grantBySession, session)
}

// SetGrantAudience records the audience of the session's current access
// tokens; an unknown session is ErrNotFound.
func (s OAuthFlowStore) SetGrantAudience(ctx context.Context, db DB, session uuid.UUID, audience string) error {
	return execOne(ctx, s.q, db, "set oauth grant audience", oauthFlowQueries.setGrantAudience, session, audience)
}

// SessionClients returns the clients of those of sessions that are OAuth
// sessions, by session id.
func (s OAuthFlowStore) SessionClients(ctx context.Context, db DB, sessions []uuid.UUID) (map[uuid.UUID]OAuthSessionClient, error) {
	ids := make(pq.StringArray, len(sessions))
	for i, id := range sessions {
		ids[i] = id.String()
	}
	var rows []OAuthSessionClient
	if err := s.q.sel(ctx, db, &rows, oauthFlowQueries.sessionNames, ids); err != nil {
		return nil, storeErr("oauth session clients", err)
	}
	out := make(map[uuid.UUID]OAuthSessionClient, len(rows))
	for _, r := range rows {
		out[r.SessionID] = r
	}
	return out, nil
}

// Purge deletes the requests and codes that expired before the cutoff,
// and the grants created before it whose session's rows are all purged,
// batch rows per statement, and returns how many rows it deleted.
func (s OAuthFlowStore) Purge(ctx context.Context, db DB, before time.Time, batch int) (int64, error) {
	var total int64
	for _, q := range []struct{ op, query string }{
		{"purge oauth requests", oauthFlowQueries.purgeRequests},
		{"purge oauth codes", oauthFlowQueries.purgeCodes},
		{"purge oauth grants", oauthFlowQueries.purgeGrants},
	} {
		n, err := purgeInBatches(ctx, s.q, db, q.op, q.query, before, batch)
		total += n
		if err != nil {
			return total, err
		}
	}
	return total, nil
}
