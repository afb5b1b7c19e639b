package accounts

import (
	"context"
	"fmt"
	"time"
)

// PurgeExpired deletes the sessions that expired more than one refresh
// lifetime ago, and returns how many.
func (s *Service) PurgeExpired(ctx context.Context) (int64, error) {
	n, err := s.Sessions.PurgeExpired(ctx, s.DB, s.Now().Add(-s.RefreshTTL), 1000)
	if err != nil {
		return n, fmt.Errorf("purge %s: %w", s.Kind.Tables.Sessions, err)
	}
	return n, nil
}

// challengeRetention is how long a login challenge is kept after it
// expired (its failures are in the security events).
const challengeRetention = time.Hour

// PurgeChallenges deletes the login challenges and WebAuthn challenges of
// every owner type that expired more than an hour ago, and returns how
// many.
func (sf *SecondFactors) PurgeChallenges(ctx context.Context) (int64, error) {
	before := sf.Engine.Now().Add(-challengeRetention)
	n, err := sf.Engine.Challenges.Purge(ctx, sf.Engine.DB, before, 1000)
	if err != nil {
		return n, fmt.Errorf("purge login challenges: %w", err)
	}
	m, err := sf.Passkeys.Ceremonies.Purge(ctx, sf.Engine.DB, before, 1000)
	if err != nil {
		return n + m, fmt.Errorf("purge webauthn challenges: %w", err)
	}
	return n + m, nil
}

// PurgeEvents deletes the security events of every owner type older than
// retention, and returns how many.
func (s *Service) PurgeEvents(ctx context.Context, retention time.Duration) (int64, error) {
	n, err := s.Events.Purge(ctx, s.DB, s.Now().Add(-retention), 1000)
	if err != nil {
		return n, fmt.Errorf("purge security events: %w", err)
	}
	return n, nil
}
