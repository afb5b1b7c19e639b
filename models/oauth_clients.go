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
	emptyIfNil(&c.RedirectURIs, &c.PostLogoutRedirectURIs, &c.GrantTypes)
}

const oauthClientColumns = `id, client_id, secret_hash, name, redirect_uris, post_logout_redirect_uris,
	grant_types, token_endpoint_auth_method, scope, min_aal, id_token_alg, logo_uri, client_uri, source,
	metadata_expires_at, created_at, updated_at, last_used_at, disabled_at`

// oauthClientQueries is the query table of OAuthClientStore.
var oauthClientQueries = struct {
	insert, byClientID, touch, list, lockByClientID, shareEnabled, update, rotateSecret string
	disable, lockGrantUsers, revokeClientSessions, deleteConsents                       string
	deletePendingCodes, deletePendingRequests                                           string
	purgeUnusedDynamic, upsertMetadata                                                  string
}{
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
	list: `SELECT ` + oauthClientColumns + ` FROM oauth_clients WHERE disabled_at IS NULL
		ORDER BY created_at DESC, id DESC`,
	lockByClientID: `SELECT ` + oauthClientColumns + ` FROM oauth_clients
		WHERE client_id = $1 AND disabled_at IS NULL FOR NO KEY UPDATE`,
	// FOR SHARE waits for a Disable under way (its UPDATE) and then finds
	// the row disabled.
	shareEnabled: `SELECT ` + oauthClientColumns + ` FROM oauth_clients
		WHERE client_id = $1 AND disabled_at IS NULL FOR SHARE`,
	update: `UPDATE oauth_clients SET secret_hash = $2, name = $3, redirect_uris = $4,
		post_logout_redirect_uris = $5, grant_types = $6, token_endpoint_auth_method = $7, scope = $8,
		min_aal = $9, id_token_alg = $10, logo_uri = $11, client_uri = $12, updated_at = $13
		WHERE client_id = $1 AND disabled_at IS NULL RETURNING ` + oauthClientColumns,
	rotateSecret: `UPDATE oauth_clients SET secret_hash = $2, updated_at = $3
		WHERE client_id = $1 AND disabled_at IS NULL AND secret_hash IS NOT NULL RETURNING ` + oauthClientColumns,
	disable: `UPDATE oauth_clients SET disabled_at = $2, updated_at = $2
		WHERE client_id = $1 AND disabled_at IS NULL RETURNING ` + oauthClientColumns,
	// The users are locked in id order, as a rotation locks its owner
	// first: a rotation under way commits before the sessions are read, so
	// its successor row is revoked too.
	lockGrantUsers: `SELECT id FROM users WHERE id IN (SELECT user_id FROM oauth_grants WHERE client_id = $1)
		ORDER BY id FOR NO KEY UPDATE`,
	revokeClientSessions: `UPDATE user_sessions s SET revoked_at = $2, updated_at = $2
		FROM oauth_grants g
		WHERE g.client_id = $1 AND s.chain_id = g.session_id AND s.user_id = g.user_id AND s.revoked_at IS NULL
		RETURNING s.user_id, s.chain_id`,
	deleteConsents: `DELETE FROM oauth_consents WHERE client_id = $1`,
	// A code or request not yet spent would open a session after the
	// client ended: they go too.
	deletePendingCodes:    `DELETE FROM oauth_codes WHERE client_id = $1 AND spent_at IS NULL`,
	deletePendingRequests: `DELETE FROM oauth_requests WHERE client_id = $1 AND spent_at IS NULL`,
	// SKIP LOCKED: a purge never waits for a client being used, and two
	// purgers share the work.
	purgeUnusedDynamic: `DELETE FROM oauth_clients WHERE id IN (SELECT id FROM oauth_clients
		WHERE source = 'dynamic' AND last_used_at IS NULL AND created_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
	// A row of another source is never overwritten (the conflict updates
	// nothing and returns no row), and disabled_at is left as it is: an
	// admin-disabled metadata client stays disabled.
	upsertMetadata: `INSERT INTO oauth_clients (id, client_id, secret_hash, name, redirect_uris, post_logout_redirect_uris,
		grant_types, token_endpoint_auth_method, scope, min_aal, id_token_alg, logo_uri, client_uri, source,
		metadata_expires_at, created_at, updated_at)
		VALUES ($1, $2, NULL, $3, $4, $5, $6, 'none', $7, 1, 'RS256', $8, $9, 'metadata', $10, $11, $11)
		ON CONFLICT (client_id) DO UPDATE SET name = EXCLUDED.name, redirect_uris = EXCLUDED.redirect_uris,
			post_logout_redirect_uris = EXCLUDED.post_logout_redirect_uris, grant_types = EXCLUDED.grant_types,
			scope = EXCLUDED.scope, logo_uri = EXCLUDED.logo_uri, client_uri = EXCLUDED.client_uri,
			metadata_expires_at = EXCLUDED.metadata_expires_at, updated_at = EXCLUDED.updated_at
		WHERE oauth_clients.source = 'metadata'
		RETURNING ` + oauthClientColumns,
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

// List returns the enabled clients, newest first.
func (s OAuthClientStore) List(ctx context.Context, db DB) ([]OAuthClient, error) {
	return selectRows[OAuthClient](ctx, s.q, db, "list oauth clients", oauthClientQueries.list)
}

// LockByClientID returns the enabled client named clientID and locks its
// row until db's transaction ends; a disabled or unknown one is
// ErrNotFound.
func (s OAuthClientStore) LockByClientID(ctx context.Context, db DB, clientID string) (*OAuthClient, error) {
	return getRow[OAuthClient](ctx, s.q, db, "lock oauth client", oauthClientQueries.lockByClientID, clientID)
}

// ShareEnabled returns the enabled client named clientID and holds a
// share lock on its row until db's transaction ends, so that it cannot be
// disabled meanwhile; a disabled or unknown one is ErrNotFound.
func (s OAuthClientStore) ShareEnabled(ctx context.Context, db DB, clientID string) (*OAuthClient, error) {
	return getRow[OAuthClient](ctx, s.q, db, "share oauth client", oauthClientQueries.shareEnabled, clientID)
}

// Update writes every changeable field of c (its secret hash, name, URIs,
// grant types, method, scope, min_aal, id_token_alg, logo and client URI)
// at now and returns the client as stored; a disabled or unknown client is
// ErrNotFound.
func (s OAuthClientStore) Update(ctx context.Context, db DB, c *OAuthClient, now time.Time) (*OAuthClient, error) {
	return getRow[OAuthClient](ctx, s.q, db, "update oauth client", oauthClientQueries.update,
		c.ClientID, c.SecretHash, c.Name, pq.StringArray(nonNil(c.RedirectURIs)),
		pq.StringArray(nonNil(c.PostLogoutRedirectURIs)), pq.StringArray(nonNil(c.GrantTypes)),
		c.TokenEndpointAuthMethod, c.Scope, c.MinAAL, c.IDTokenAlg, c.LogoURI, c.ClientURI, now)
}

// RotateSecret replaces the secret hash of the enabled confidential
// client clientID: the old secret stops working with the statement. A
// disabled, unknown or public client is ErrNotFound.
func (s OAuthClientStore) RotateSecret(ctx context.Context, db DB, clientID, secretHash string, now time.Time) (*OAuthClient, error) {
	return getRow[OAuthClient](ctx, s.q, db, "rotate oauth client secret", oauthClientQueries.rotateSecret,
		clientID, secretHash, now)
}

// EndedOAuthSessions are the OAuth sessions (chain ids) a change ended,
// by user.
type EndedOAuthSessions map[uuid.UUID][]uuid.UUID

// Disable disables the enabled client clientID at now and, in the same
// transaction, revokes every live session row of its OAuth sessions and
// deletes its consents. It returns the sessions it ended, for the caller
// to notify after commit; an unknown or disabled client is ErrNotFound.
func (s OAuthClientStore) Disable(ctx context.Context, db *sqlx.DB, clientID string, now time.Time) (EndedOAuthSessions, error) {
	ended := EndedOAuthSessions{}
	err := Transact(ctx, db, func(tx *sqlx.Tx) error {
		clear(ended)
		if _, err := getRow[OAuthClient](ctx, s.q, tx, "disable oauth client", oauthClientQueries.disable, clientID, now); err != nil {
			return err
		}
		var users []uuid.UUID
		if err := s.q.sel(ctx, tx, &users, oauthClientQueries.lockGrantUsers, clientID); err != nil {
			return storeErr("lock oauth client users", err)
		}
		var rows []struct {
			UserID  uuid.UUID `db:"user_id"`
			ChainID uuid.UUID `db:"chain_id"`
		}
		if err := s.q.sel(ctx, tx, &rows, oauthClientQueries.revokeClientSessions, clientID, now); err != nil {
			return storeErr("revoke oauth client sessions", err)
		}
		for _, r := range rows {
			ended[r.UserID] = append(ended[r.UserID], r.ChainID)
		}
		for _, q := range []string{oauthClientQueries.deleteConsents, oauthClientQueries.deletePendingCodes,
			oauthClientQueries.deletePendingRequests} {
			if _, err := execCount(ctx, s.q, tx, "end oauth client", q, clientID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ended, nil
}

// PurgeUnusedDynamic deletes, batch rows per statement, the dynamic
// clients created before before that never completed an authorization
// (last_used_at NULL), with their requests, codes and consents, and
// returns how many it deleted.
func (s OAuthClientStore) PurgeUnusedDynamic(ctx context.Context, db DB, before time.Time, batch int) (int64, error) {
	return purgeInBatches(ctx, s.q, db, "purge unused dynamic oauth clients", oauthClientQueries.purgeUnusedDynamic, before, batch)
}

// UpsertMetadata stores c, a client read from its client ID metadata
// document at now, valid until c.MetadataExpiresAt: a new row (with c.ID),
// or the cached row of that client_id brought up to date. disabled_at is
// kept, so an admin-disabled metadata client stays disabled. A row of
// another source under that client_id is ErrNotFound.
func (s OAuthClientStore) UpsertMetadata(ctx context.Context, db DB, c *OAuthClient, now time.Time) (*OAuthClient, error) {
	return getRow[OAuthClient](ctx, s.q, db, "upsert metadata oauth client", oauthClientQueries.upsertMetadata,
		c.ID, c.ClientID, c.Name, pq.StringArray(nonNil(c.RedirectURIs)), pq.StringArray(nonNil(c.PostLogoutRedirectURIs)),
		pq.StringArray(nonNil(c.GrantTypes)), c.Scope, c.LogoURI, c.ClientURI, c.MetadataExpiresAt, now)
}

// emptyIfNil sets each nil array of arrays to an empty one, so that a row
// reads back the same whether its arrays were written empty or not at all.
func emptyIfNil(arrays ...*pq.StringArray) {
	for _, a := range arrays {
		if *a == nil {
			*a = pq.StringArray{}
		}
	}
}

// nonNil returns a, or an empty slice for nil, for NOT NULL array columns.
func nonNil(a []string) []string {
	if a == nil {
		return []string{}
	}
	return a
}
