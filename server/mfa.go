package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/errorcodes"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/models"
)

// mfaConfig reads the settings of the second factor and of
// re-authentication.
func (p *envParser) mfaConfig(c *config) {
	def := accounts.DefaultMFASettings()
	c.MFA = accounts.MFASettings{
		Key:          c.DataKey,
		Issuer:       p.str("MFA_ISSUER", def.Issuer),
		Skew:         p.integer("MFA_TOTP_SKEW", def.Skew, 0, 10),
		ChallengeTTL: p.duration("MFA_CHALLENGE_EXPIRES_IN", def.ChallengeTTL),
		MaxAttempts:  p.integer("MFA_CHALLENGE_MAX_ATTEMPTS", def.MaxAttempts, 1, 100),
	}
	if c.MFA.Issuer == "" || len(c.MFA.Issuer) > 64 || strings.Contains(c.MFA.Issuer, ":") {
		// The otpauth label is "issuer:account": a colon would move the split.
		p.fail("MFA_ISSUER", "must be 1 to 64 characters without a colon")
	}
	c.ReauthMaxAge = p.duration("REAUTH_MAX_AGE", defaultReauthMaxAge)
}

// defaultReauthMaxAge is REAUTH_MAX_AGE's default.
const defaultReauthMaxAge = 10 * time.Minute

// reauthentication is how the framework checks the sensitive actions: the
// authenticator puts each session's assurance in the caller, and a
// refusal lists how the caller may re-authenticate (without the password
// when only a second factor meets the requirement).
func (a *app) reauthentication() *framework.Reauthentication {
	return &framework.Reauthentication{
		MaxAge: a.cfg.ReauthMaxAge,
		Code:   func(t action.OwnerType) errorcodes.Code { return a.service(t).Kind.Codes.SecondFactor.ReauthRequired },
		Details: func(ctx context.Context, c *action.Caller, r action.Reauth) (any, error) {
			methods, err := a.rooms(c.Type).factors.ReauthMethods(ctx, c.ID, r == action.ReauthFactor && c.Assurance.SecondFactor)
			return v1.ReauthDetails{Methods: methods}, err
		},
	}
}

// service returns the account engine of owner type t.
func (a *app) service(t action.OwnerType) *accounts.Service {
	if t == accounts.Admins.Type {
		return a.admins
	}
	return a.users
}

// rooms returns the types built on the account engine of owner type t.
func (a *app) rooms(t action.OwnerType) *rooms {
	if t == accounts.Admins.Type {
		return a.adminRooms
	}
	return a.userRooms
}

// errorDetails documents, for the API document, the members the second
// factor's codes add to their error bodies.
func errorDetails() map[errorcodes.Code]any {
	out := map[errorcodes.Code]any{}
	for _, k := range []accounts.Kind{accounts.Users, accounts.Admins} {
		out[k.Codes.SecondFactor.MFARequired] = v1.MFARequiredDetails{}
		out[k.Codes.SecondFactor.ReauthRequired] = v1.ReauthDetails{}
	}
	return out
}

// checkDataKey refuses to start when DATA_ENCRYPTION_KEY cannot open the
// stored TOTP secrets: the second factor of every enrolled owner would
// fail. It tries a few rows, so that one damaged row is not taken for a
// wrong key (that row's owner gets a logged 500 at its second step). With
// a key made at random for this process (development without secrets) it
// only logs: that database's secrets were lost with the last process's
// key anyway.
func (a *app) checkDataKey(ctx context.Context) error {
	rows, err := models.FactorStore{}.SomeTOTP(ctx, a.db, 16)
	if err != nil {
		return fmt.Errorf("checking the stored TOTP secrets: %w", err)
	}
	if len(rows) == 0 {
		return nil
	}
	for i := range rows {
		if accounts.OpensTOTP(a.cfg.DataKey, &rows[i]) {
			return nil
		}
	}
	if a.cfg.generatedDataKey {
		a.log.Error("DATA_ENCRYPTION_KEY is random for this process and cannot open the stored TOTP secrets: their owners cannot pass their second factor until an admin resets it")
		return nil
	}
	return errors.New("DATA_ENCRYPTION_KEY cannot open the stored TOTP secrets: it is not the key they were encrypted with (start with that key)")
}
