package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// OAuthApp is an application a user connected to: a consent of the user
// with what the consent page showed of its client, and when the user's
// sessions of it were last used.
type OAuthApp struct {
	ClientID  string         `db:"client_id"`
	Name      string         `db:"name"`
	ClientURI *string        `db:"client_uri"`
	LogoURI   *string        `db:"logo_uri"`
	Source    string         `db:"source"`
	Scopes    pq.StringArray `db:"scopes"`
	CreatedAt time.Time      `db:"created_at"`
	// LastUsedAt is the newest use of the user's sessions of the client
	// (a code exchange or a refresh), nil when there was none.
	LastUsedAt *time.Time `db:"last_used_at"`
}

func (a *OAuthApp) normalize() {
	utc(&a.CreatedAt)
	utcPtr(&a.LastUsedAt)
	if a.Scopes == nil {
		a.Scopes = pq.StringArray{}
	}
}

// oauthAppQueries is the query table of OAuthAppStore.
var oauthAppQueries = struct {
	apps, deleteConsent, liveSessions, voidCodes string
}{
	// The clients disabled by an admin are no longer apps of anyone.
	apps: `SELECT c.client_id, cl.name, cl.client_uri, cl.logo_uri, cl.source, c.scopes, c.created_at,
			(SELECT max(coalesce(s.last_used_at, s.created_at)) FROM oauth_grants g
				JOIN user_sessions s ON s.chain_id = g.session_id
				WHERE g.user_id = c.user_id AND g.client_id = c.client_id) AS last_used_at
		FROM oauth_consents c JOIN oauth_clients cl ON cl.client_id = c.client_id
		WHERE c.user_id = $1 AND cl.disabled_at IS NULL
		ORDER BY c.created_at DESC, c.id DESC`,
	deleteConsent: `DELETE FROM oauth_consents WHERE user_id = $1 AND client_id = $2`,
	voidCodes: `UPDATE oauth_codes SET spent_at = $3
		WHERE user_id = $1 AND client_id = $2 AND spent_at IS NULL AND expires_at > $3`,
	liveSessions: `SELECT DISTINCT g.session_id FROM oauth_grants g
		JOIN user_sessions s ON s.chain_id = g.session_id
		WHERE g.user_id = $1 AND g.client_id = $2 AND s.revoked_at IS NULL`,
}

// OAuthAppStore reads and ends the applications users connected to (the
// "Connected apps" of the account). Its zero value sends plain queries; it
// is safe for concurrent use.
type OAuthAppStore struct {
	q querier
}

// Prepared returns a copy of the store whose queries are prepared on pool.
func (s OAuthAppStore) Prepared(pool *sqlx.DB) OAuthAppStore {
	return OAuthAppStore{q: preparedOn(pool, queriesOf(&oauthAppQueries)...)}
}

// Apps returns the applications user consented to, newest first.
func (s OAuthAppStore) Apps(ctx context.Context, db DB, user uuid.UUID) ([]OAuthApp, error) {
	return selectRows[OAuthApp](ctx, s.q, db, "list oauth apps", oauthAppQueries.apps, user)
}

// DeleteConsent deletes the consent of user for client and reports
// whether there was one.
func (s OAuthAppStore) DeleteConsent(ctx context.Context, db DB, user uuid.UUID, client string) (bool, error) {
	n, err := execCount(ctx, s.q, db, "delete oauth consent", oauthAppQueries.deleteConsent, user, client)
	return n > 0, err
}

// VoidCodes spends at now the live authorization codes of user for client
// that were not exchanged yet, so that none opens a session later, and
// returns how many there were.
func (s OAuthAppStore) VoidCodes(ctx context.Context, db DB, user uuid.UUID, client string, now time.Time) (int64, error) {
	return execCount(ctx, s.q, db, "void oauth codes", oauthAppQueries.voidCodes, user, client, now)
}

// LiveSessions returns the OAuth sessions (chain ids) of user with client
// that have a row not revoked yet.
func (s OAuthAppStore) LiveSessions(ctx context.Context, db DB, user uuid.UUID, client string) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	if err := s.q.sel(ctx, db, &ids, oauthAppQueries.liveSessions, user, client); err != nil {
		return nil, storeErr("oauth app sessions", err)
	}
	return ids, nil
}
