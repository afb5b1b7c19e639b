package main

import (
	"context"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/ratelimit"
)

// optionsFactor is how many WebAuthn option calls a client's budget holds
// per credential attempt of the class's budget: a ceremony that is started
// and then abandoned (a page load offering passkeys in its autofill, a
// cancelled prompt) costs far less than a credential tried, but each
// writes a challenge row. With the default AUTH_RATE_LIMIT_MAX that is
// 1,000 calls per 15 minutes per address: an office behind one address
// loading its sign-in page all day is not refused, and one address still
// leaves at most a few thousand short-lived rows behind.
const optionsFactor = 100

// optionsBudget returns the function that spends one unit of a client's
// budget of WebAuthn options of class (passkey: passwordless login
// options; mfa: a second step's options), AUTH_RATE_LIMIT_MAX times
// optionsFactor per AUTH_RATE_LIMIT_WINDOW, and reports how long the
// client must wait when it was spent. It bounds the challenge rows one
// client can leave behind; nil (no limits, or AUTH_RATE_LIMIT_MAX=0)
// bounds nothing.
func (l *rateLimits) optionsBudget(class action.RateClass) func(context.Context, *action.Request) time.Duration {
	if l == nil || l.authMax <= 0 {
		return nil
	}
	return func(ctx context.Context, req *action.Request) time.Duration {
		key := "auth:" + string(class) + "-options:" + ratelimit.ClientKey(req.IP, l.ipv6Prefix)
		if d := l.auth.Allow(ctx, key, l.authMax*optionsFactor, l.authWindow); !d.Allowed {
			return refusalWait(d)
		}
		return 0
	}
}
