package v1_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/action"
	v1 "github.com/actionkit/actionkit/actions/v1"
	"github.com/actionkit/actionkit/actiontest"
	"github.com/actionkit/actionkit/dependency"
	"github.com/actionkit/actionkit/framework"
	"github.com/actionkit/actionkit/models"
)

// fakeRefresher answers every refresh with the outcome of one row of the
// state machine, as accounts.Service does for it.
type fakeRefresher struct {
	row   accounts.RefreshTransition
	err   error // overrides the row: an outage, say
	calls []string
}

func (f *fakeRefresher) OwnerKind() accounts.Kind { return accounts.Users }

func (f *fakeRefresher) Refresh(_ context.Context, raw string, o accounts.Origin) (*accounts.Issued, error) {
	f.calls = append(f.calls, raw)
	if f.err != nil {
		return nil, f.err
	}
	switch {
	case f.row.Limited:
		return nil, &accounts.LimitedError{RetryAfter: 90 * time.Second}
	case f.row.From == "malformed" || f.row.From == "unknown":
		return nil, accounts.ErrUnknownRefresh
	case !f.row.Rotates:
		return nil, accounts.ErrInvalidRefresh
	}
	acc := &models.Account{ID: uuid.New(), Email: "ada@example.com", IsActive: true, Locale: "en", Timezone: "UTC"}
	sess := &models.Session{ID: uuid.New(), OwnerID: acc.ID, Client: string(o.Client), Platform: o.Platform}
	return &accounts.Issued{Account: acc, Session: sess, AccessToken: "access-" + raw,
		AccessExpiresAt: time.Now().Add(time.Minute), RefreshToken: "next-" + raw}, nil
}

func refreshAPI(t *testing.T, f *fakeRefresher) *actiontest.API {
	api := actiontest.New(t, framework.Config{})
	framework.Register(api.Framework, &v1.Refresh{Accounts: f, Cookies: v1.Cookies{MaxAge: time.Hour}})
	return api
}

// TestRefreshClientBudget: only a token that names no session spends the
// client's budget, and a spent one answers 429 with Retry-After (clearing
// the dead cookie still).
func TestRefreshClientBudget(t *testing.T) {
	for _, row := range accounts.RefreshTransitions() {
		t.Run(row.From+"/"+row.Outcome, func(t *testing.T) {
			f := &fakeRefresher{row: row}
			spent := 0
			api := actiontest.New(t, framework.Config{})
			framework.Register(api.Framework, &v1.Refresh{Accounts: f, Cookies: v1.Cookies{MaxAge: time.Hour},
				ClientBudget: func(context.Context, *action.Request) time.Duration { spent++; return 30 * time.Second }})
			res := api.With("Cookie", "jwt-user-refresh=t").Call(http.MethodPost, "/v1/users/refresh", nil)
			unknown := row.From == "malformed" || row.From == "unknown"
			if got := spent == 1; got != unknown || spent > 1 {
				t.Fatalf("the client's budget spent %d times", spent)
			}
			switch {
			case unknown:
				res.WantError(t, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
				if res.Header.Get("Retry-After") != "30" {
					t.Errorf("Retry-After %q, want 30", res.Header.Get("Retry-After"))
				}
				if c := res.Cookie("jwt-user-refresh"); c == nil || c.Value != "" {
					t.Errorf("the dead cookie is not cleared: %+v", c)
				}
			case row.Rotates:
				res.WantOK(t)
			}
		})
	}
}

// TestRefreshAnswersEveryTransition answers each row of the refresh state
// machine as docs/security.md states it, for a browser (cookie) and an app
// (argument): a rotation returns the new access token and sets the new
// refresh cookie (the app also gets the refresh token in the body); a spent
// budget is 429 with Retry-After and keeps the cookie; every other row is
// 401 USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN, and clears the cookie that
// carried the dead token.
func TestRefreshAnswersEveryTransition(t *testing.T) {
	rows := accounts.RefreshTransitions()
	if len(rows) < 9 {
		t.Fatalf("%d rows; the state machine has more", len(rows))
	}
	const cookie = "jwt-user-refresh"
	for _, row := range rows {
		t.Run(row.From+"/"+row.Outcome, func(t *testing.T) {
			f := &fakeRefresher{row: row}
			api := refreshAPI(t, f)

			web := api.With("Cookie", cookie+"=from-cookie").Call(http.MethodPost, "/v1/users/refresh", nil)
			app := api.With("X-Client", "app").Call(http.MethodPost, "/v1/users/refresh",
				actiontest.Args{"refreshToken": "from-arg"})
			if len(f.calls) != 2 || f.calls[0] != "from-cookie" || f.calls[1] != "from-arg" {
				t.Fatalf("tokens handed to the engine: %q", f.calls)
			}
			if row.Rotates {
				web.WantOK(t)
				if web.String("token") != "access-from-cookie" || web.String("refreshToken") != "" {
					t.Errorf("web answer: %s", web.Raw)
				}
				if c := web.Cookie(cookie); c == nil || c.Value != "next-from-cookie" || !c.HttpOnly || c.MaxAge != 3600 {
					t.Errorf("web cookie: %+v", c)
				}
				app.WantOK(t)
				if app.String("token") != "access-from-arg" || app.String("refreshToken") != "next-from-arg" {
					t.Errorf("app answer: %s", app.Raw)
				}
				return
			}
			if row.Limited {
				// The token is good once the budget's window closes: the
				// cookie is kept.
				web.WantError(t, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
				if web.Header.Get("Retry-After") != "90" || web.Cookie(cookie) != nil {
					t.Errorf("Retry-After %q, cookies %v", web.Header.Get("Retry-After"), web.Cookies)
				}
				app.WantError(t, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
				return
			}
			web.WantError(t, http.StatusUnauthorized, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
			if c := web.Cookie(cookie); c == nil || c.Value != "" || !c.Expires.Before(time.Now()) {
				t.Errorf("the dead cookie is not cleared: %+v", c)
			}
			app.WantError(t, http.StatusUnauthorized, "USER_UNAUTHORIZED_INVALID_REFRESH_TOKEN")
			if c := app.Cookie(cookie); c != nil {
				t.Errorf("a cookie set for an app that sent none: %+v", c)
			}
		})
	}
}

// TestRefreshOutage: an unreachable database is 503 with Retry-After, and
// the cookie is kept: its token may still be good.
func TestRefreshOutage(t *testing.T) {
	f := &fakeRefresher{err: dependency.Unavailable("database", errors.New("connection refused"))}
	res := refreshAPI(t, f).With("Cookie", "jwt-user-refresh=t").Call(http.MethodPost, "/v1/users/refresh", nil)
	res.WantError(t, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
	if res.Header.Get("Retry-After") == "" || res.Cookie("jwt-user-refresh") != nil {
		t.Errorf("Retry-After %q, cookies %v", res.Header.Get("Retry-After"), res.Cookies)
	}
}

// TestRefreshIsPublicAndSameSite: a caller's access token does not matter
// to a refresh, and a cross-site request is refused before the engine
// sees it.
func TestRefreshIsPublicAndSameSite(t *testing.T) {
	f := &fakeRefresher{}
	for _, row := range accounts.RefreshTransitions() {
		if row.Rotates {
			f.row = row
		}
	}
	api := refreshAPI(t, f)
	api.As(&action.Caller{Type: "user", ID: uuid.New(), Client: action.Web}).
		Call(http.MethodPost, "/v1/users/refresh", actiontest.Args{"refreshToken": "t"}).WantOK(t)
	api.With("Sec-Fetch-Site", "cross-site").With("Cookie", "jwt-user-refresh=t").
		Call(http.MethodPost, "/v1/users/refresh", nil).WantError(t, http.StatusForbidden, "FORBIDDEN")
	if len(f.calls) != 1 {
		t.Errorf("engine calls = %d, want 1", len(f.calls))
	}
}
