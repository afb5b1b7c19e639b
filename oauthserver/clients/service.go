package clients

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// ErrNotFound reports an unknown or disabled client.
var ErrNotFound = fmt.Errorf("clients: %w", models.ErrNotFound)

// UnusedDynamicTTL is how long a dynamic client may go without completing
// an authorization before the clock deletes it.
const UnusedDynamicTTL = 24 * time.Hour

// purgeBatch is how many clients one purge statement deletes.
const purgeBatch = 500

// Service registers, changes and disables clients: the admin actions and
// dynamic registration. It is safe for concurrent use.
type Service struct {
	DB     *sqlx.DB
	Store  models.OAuthClientStore
	Policy Policy
	Now    func() time.Time
	// Ended, when set, is told after commit of the sessions of a user that
	// disabling a client ended (chain ids), so that their sockets close.
	Ended func(user uuid.UUID, sessions []uuid.UUID)
}

// NewService returns a Service on db with prepared queries.
func NewService(db *sqlx.DB, policy Policy, now func() time.Time) *Service {
	return &Service{DB: db, Store: models.OAuthClientStore{}.Prepared(db), Policy: policy, Now: now}
}

// notFound maps models.ErrNotFound to ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, models.ErrNotFound) {
		return ErrNotFound
	}
	return err
}

// List returns the enabled clients, newest first.
func (s *Service) List(ctx context.Context) ([]models.OAuthClient, error) {
	return s.Store.List(ctx, s.DB)
}

// Create registers an admin client from in with the defaults of §19 and
// returns it with its secret (nil for a public client), shown this once.
func (s *Service) Create(ctx context.Context, in Input) (*models.OAuthClient, *string, error) {
	c := &models.OAuthClient{Source: models.OAuthClientAdmin, GrantTypes: slices.Clone(DefaultGrantTypes),
		TokenEndpointAuthMethod: AuthClientSecretBasic, MinAAL: 1, IDTokenAlg: AlgRS256}
	scope := DefaultScope
	c.Scope = &scope
	if in.Name == nil {
		return nil, nil, fieldErr("name", "client_name", "is required")
	}
	if fe := s.Policy.apply(c, &in); fe != nil {
		return nil, nil, fe
	}
	return s.insert(ctx, c)
}

// insert gives c an id, a client id and, when confidential, a secret, and
// stores it.
func (s *Service) insert(ctx context.Context, c *models.OAuthClient) (*models.OAuthClient, *string, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return nil, nil, err
	}
	c.ID = id
	if c.ClientID, err = NewClientID(); err != nil {
		return nil, nil, err
	}
	var secret *string
	if c.TokenEndpointAuthMethod != AuthNone {
		raw, err := NewSecret()
		if err != nil {
			return nil, nil, err
		}
		hash := auth.HashOpaqueToken(raw)
		secret, c.SecretHash = &raw, &hash
	}
	stored, err := s.Store.Insert(ctx, s.DB, c, s.Now())
	if err != nil {
		return nil, nil, err
	}
	return stored, secret, nil
}

// Update changes the enabled client clientID with what in gives. A
// metadata client is described by its document and cannot be changed.
// Becoming public drops the secret.
func (s *Service) Update(ctx context.Context, clientID string, in Input) (*models.OAuthClient, error) {
	var out *models.OAuthClient
	err := models.Transact(ctx, s.DB, func(tx *sqlx.Tx) error {
		c, err := s.Store.LockByClientID(ctx, tx, clientID)
		if err != nil {
			return notFound(err)
		}
		if c.Source == models.OAuthClientMetadata {
			return fieldErr("clientId", "client_id", "a metadata document client is described by its document")
		}
		if fe := s.Policy.apply(c, &in); fe != nil {
			return fe
		}
		if c.TokenEndpointAuthMethod == AuthNone {
			c.SecretHash = nil
		}
		out, err = s.Store.Update(ctx, tx, c, s.Now())
		return notFound(err)
	})
	return out, err
}

// RotateSecret gives the enabled confidential client clientID a new
// secret, returned this once; the old one stops working at once.
func (s *Service) RotateSecret(ctx context.Context, clientID string) (*models.OAuthClient, string, error) {
	raw, err := NewSecret()
	if err != nil {
		return nil, "", err
	}
	c, err := s.Store.RotateSecret(ctx, s.DB, clientID, auth.HashOpaqueToken(raw), s.Now())
	if errors.Is(err, models.ErrNotFound) {
		// Unknown, disabled, or public: tell the last apart.
		if got, rerr := s.Store.ByClientID(ctx, s.DB, clientID); rerr == nil && got.DisabledAt == nil && got.Public() {
			return nil, "", fieldErr("clientId", "client_id", "a public client (token endpoint authentication method none) has no secret")
		}
	}
	if err != nil {
		return nil, "", notFound(err)
	}
	return c, raw, nil
}

// Delete disables the enabled client clientID: every session of the client
// and every consent given to it end at once, and Ended is told of the
// sessions after commit.
func (s *Service) Delete(ctx context.Context, clientID string) error {
	ended, err := s.Store.Disable(ctx, s.DB, clientID, s.Now())
	if err != nil {
		return notFound(err)
	}
	if s.Ended != nil {
		for user, sessions := range ended {
			s.Ended(user, sessions)
		}
	}
	return nil
}

// PurgeUnusedDynamic deletes the dynamic clients that completed no
// authorization within UnusedDynamicTTL of their registration.
func (s *Service) PurgeUnusedDynamic(ctx context.Context) (int64, error) {
	return s.Store.PurgeUnusedDynamic(ctx, s.DB, s.Now().Add(-UnusedDynamicTTL), purgeBatch)
}
