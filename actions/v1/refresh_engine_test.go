package v1_test

import (
	"net/http"
	"testing"
	"time"

	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/framework"
)

// TestRefreshOnTheEngine runs V1Refresh, through the framework's whole
// pipeline (actiontest), on the real engine and PostgreSQL, with a token
// in the state of each row of the refresh state machine: a rotation
// answers new tokens, a spent budget 429 with Retry-After, every other row
// 401 USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN; the engine reports the
// row's outcome once, and a theft ends every session of the owner.
func TestRefreshOnTheEngine(t *testing.T) {
	env, _ := newEnv(t) // each row's engine has an API of its own
	for _, fx := range env.RefreshFixtures(t) {
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
			if got := fx.Service.Outcomes(); len(got) != 1 || got[0] != fx.Row.Outcome {
				t.Errorf("outcomes %q, want [%s]", got, fx.Row.Outcome)
			}
			ended := fx.Service.EndedCalls()
			if ends := len(ended) == 1 && ended[0].ID == fx.Owner.ID && ended[0].Sessions == nil; ends != fx.Row.EndsSessions || len(ended) > 1 {
				t.Errorf("ended %+v, want every session of the owner ended: %v", ended, fx.Row.EndsSessions)
			}
		})
	}
}
