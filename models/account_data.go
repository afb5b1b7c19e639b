package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/lib/pq"
)

// Consent is what a user consented to for an OAuth client, with the
// client's name: a row of oauth_consents.
type Consent struct {
	ClientID   string         `db:"client_id"`
	ClientName string         `db:"client_name"`
	Scopes     pq.StringArray `db:"scopes"`
	Resources  pq.StringArray `db:"resources"`
	CreatedAt  time.Time      `db:"created_at"`
	UpdatedAt  time.Time      `db:"updated_at"`
}

func (c *Consent) normalize() {
	utc(&c.CreatedAt)
	utc(&c.UpdatedAt)
}

// Consents returns the user's OAuth consents, oldest first.
func Consents(ctx context.Context, db DB, user uuid.UUID) ([]Consent, error) {
	return selectRows[Consent](ctx, querier{}, db, "consents", `SELECT c.client_id, k.name AS client_name,
		c.scopes, c.resources, c.created_at, c.updated_at
		FROM oauth_consents c JOIN oauth_clients k ON k.client_id = c.client_id
		WHERE c.user_id = $1 ORDER BY c.created_at, c.client_id`, user)
}

// DeleteConsents removes every OAuth consent of the user, and returns how
// many: a deleted account consents to nothing.
func DeleteConsents(ctx context.Context, db DB, user uuid.UUID) (int64, error) {
	return execCount(ctx, querier{}, db, "delete consents", `DELETE FROM oauth_consents WHERE user_id = $1`, user)
}

// PostsOf returns every post of the user, oldest first.
func PostsOf(ctx context.Context, db DB, user uuid.UUID) ([]Post, error) {
	return selectRows[Post](ctx, querier{}, db, "posts of user", postSelect+` WHERE user_id = $1 ORDER BY created_at, id`, user)
}
