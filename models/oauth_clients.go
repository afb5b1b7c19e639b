package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// The sources of OAuth clients (oauth_clients.source).
const (
	// OAuthClientAdmin is registered by an admin: verified, it may be
	// confidential and may use client_credentials.
	OAuthClientAdmin = "admin"
	// OAuthClientDynamic is registered by anyone through RFC 7591.
	OAuthClientDynamic = "dynamic"
	// OAuthClientMetadata is named by a client ID metadata document: its
	// client_id is the document's URL.
	OAuthClientMetadata = "metadata"
)

// OAuthClient is a row of oauth_clients: an application that signs users
// in through actionkit (CONTRACT §19).
type OAuthClient struct {
	ID       uuid.UUID `db:"id"`
	ClientID string    `db:"client_id"`
	// SecretHash is the lowercase hex SHA-256 of the secret's base64url
	// form; nil for a public client (token_endpoint_auth_method none).
	SecretHash              *string        `db:"secret_hash"`
	Name                    string         `db:"name"`
	RedirectURIs            pq.StringArray `db:"redirect_uris"`
	PostLogoutRedirectURIs  pq.StringArray `db:"post_logout_redirect_uris"`
	GrantTypes              pq.StringArray `db:"grant_types"`
	TokenEndpointAuthMethod string         `db:"token_endpoint_auth_method"`
	// Scope is the space-separated scopes the client may ask for; nil
	// means any scope the server supports (dynamic and metadata clients
	// that named none).
	Scope      *string `db:"scope"`
	MinAAL     int16   `db:"min_aal"`
	IDTokenAlg string  `db:"id_token_alg"`
	LogoURI    *string `db:"logo_uri"`
	ClientURI  *string `db:"client_uri"`
	Source     string  `db:"source"`
	// MetadataExpiresAt is when a metadata client's cached document must
	// be fetched again; nil for other sources.
	MetadataExpiresAt *time.Time `db:"metadata_expires_at"`
	CreatedAt         time.Time  `db:"created_at"`
	UpdatedAt         time.Time  `db:"updated_at"`
	LastUsedAt        *time.Time `db:"last_used_at"`
	DisabledAt        *time.Time `db:"disabled_at"`
}

// Public reports whether c has no secret (token_endpoint_auth_method
// none).
func (c *OAuthClient) Public() bool { return c.TokenEndpointAuthMethod == "none" }

// Verified reports whether an admin registered c: only those redirect on
// errors, skip the logout page and may introspect other clients' tokens.
func (c *OAuthClient) Verified() bool { return c.Source == OAuthClientAdmin }

func (c *OAuthClient) normalize() {
	utc(&c.CreatedAt)
	utc(&c.UpdatedAt)
	utcPtr(&c.MetadataExpiresAt)
	utcPtr(&c.LastUsedAt)
	utcPtr(&c.DisabledAt)
	for _, a := range []*pq.StringArray{&c.RedirectURIs, &c.PostLogoutRedirectURIs, &c.GrantTypes} {
		if *a == nil {
			*a = pq.StringArray{}
		}
	}
}

const oauthClientColumns = `id, client_id, secret_hash, name, redirect_uris, post_logout_redirect_uris,
	grant_types, token_endpoint_auth_method, scope, min_aal, id_token_alg, logo_uri, client_uri, source,
	metadata_expires_at, created_at, updated_at, last_used_at, disabled_at`

// oauthClientQueries is the query table of OAuthClientStore.
var oauthClientQueries = struct{ insert, byClientID, touch string }{
	insert: `INSERT INTO oauth_clients (id, client_id, secret_hash, name, redirect_uris, post_logout_redirect_uris,
		grant_types, token_endpoint_auth_method, scope, min_aal, id_token_alg, logo_uri, client_uri, source,
		metadata_expires_at, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)
		RETURNING ` + oauthClientColumns,
	byClientID: `SELECT ` + oauthClientColumns + ` FROM oauth_clients WHERE client_id = $1`,
	// A client is marked used at most once a minute, so that a busy
	// client does not write its row on every token.
	touch: `UPDATE oauth_clients SET last_used_at = $2
		WHERE client_id = $1 AND (last_used_at IS NULL OR last_used_at < $2::timestamptz - interval '1 minute')`,
}

// OAuthClientStore reads and writes OAuth clients. Its zero value sends
// plain queries; it is safe for concurrent use.
type OAuthClientStore struct {
	q querier
}

// Prepared returns a copy of the store whose queries are prepared on pool.
func (s OAuthClientStore) Prepared(pool *sqlx.DB) OAuthClientStore {
	return OAuthClientStore{q: preparedOn(pool, queriesOf(&oauthClientQueries)...)}
}

// Insert stores c, created at now, and returns it as stored. A client_id
// already taken is ErrDuplicate.
func (s OAuthClientStore) Insert(ctx context.Context, db DB, c *OAuthClient, now time.Time) (*OAuthClient, error) {
	return getRow[OAuthClient](ctx, s.q, db, "insert oauth client", oauthClientQueries.insert,
		c.ID, c.ClientID, c.SecretHash, c.Name, pq.StringArray(nonNil(c.RedirectURIs)),
		pq.StringArray(nonNil(c.PostLogoutRedirectURIs)), pq.StringArray(nonNil(c.GrantTypes)),
		c.TokenEndpointAuthMethod, c.Scope, c.MinAAL, c.IDTokenAlg, c.LogoURI, c.ClientURI, c.Source,
		c.MetadataExpiresAt, now)
}

// ByClientID returns the client whose client_id is clientID, disabled or
// not, or ErrNotFound.
func (s OAuthClientStore) ByClientID(ctx context.Context, db DB, clientID string) (*OAuthClient, error) {
	return getRow[OAuthClient](ctx, s.q, db, "read oauth client", oauthClientQueries.byClientID, clientID)
}

// Touch records that the client was used at now (an authorization
// completed, a token issued), at most once a minute.
func (s OAuthClientStore) Touch(ctx context.Context, db DB, clientID string, now time.Time) error {
	_, err := execCount(ctx, s.q, db, "touch oauth client", oauthClientQueries.touch, clientID, now)
	return err
}

// nonNil returns a, or an empty slice for nil, for NOT NULL array columns.
func nonNil(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}
