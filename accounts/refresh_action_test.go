package accounts_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/actionkit/actionkit/accounts"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/internal/pgtest"
)

// TestRefreshActionOnEveryRow runs V1Refresh, through the framework's
// whole pipeline (actiontest), on the real engine and PostgreSQL, with a
// token in the state of each row of the refresh state machine: a rotation
// answers new tokens, every other row 401 USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN,
// and the engine reports the row's outcome once.
func TestRefreshActionOnEveryRow(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	tokens, err := auth.NewTokens([]byte("0123456789abcdef0123456789abcdef"), "actionkit-test", 15*time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range accounts.RefreshFixtures(t, db, tokens) {
		t.Run(fx.Row.From+"/"+fx.Row.Outcome, func(t *testing.T) {
			api := actiontest.New(t, framework.Config{})
			framework.Register(api.Framework, &v1.Refresh{Accounts: fx.Service, Cookies: v1.Cookies{MaxAge: time.Hour}})
			res := api.With("X-Client", "app").Call(http.MethodPost, "/v1/users/refresh", actiontest.Args{"refreshToken": fx.Token})
			switch {
			case fx.Row.Rotates:
				res.WantOK(t)
				if res.String("token") == "" || res.String("refreshToken") == "" || res.String("refreshToken") == fx.Token {
					t.Errorf("a rotation answered %s", res.Raw)
				}
			case fx.Row.Limited:
				res.WantError(t, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
				if res.Header.Get("Retry-After") == "" {
					t.Errorf("no Retry-After: %v", res.Header)
				}
			default:
				res.WantError(t, http.StatusUnauthorized, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
			}
			if got := *fx.Outcomes; len(got) != 1 || got[0] != fx.Row.Outcome {
				t.Errorf("outcomes %q, want [%s]", got, fx.Row.Outcome)
			}
		})
	}
}
