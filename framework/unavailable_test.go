package framework

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/dependency"
)

// outageAuth fails like a loader whose database is unreachable.
type outageAuth struct{}

func (outageAuth) Authenticate(context.Context, *http.Request) (*action.Caller, error) {
	return nil, fmt.Errorf("auth: load user: %w", dependency.Unavailable("postgresql", errors.New("dial tcp: connection refused")))
}

// TestDependencyOutageAnswers503: an error marked by dependency.Unavailable,
// from an action or from the authenticator, is a translated 503
// SERVICE_UNAVAILABLE with Retry-After, without the action's cookies,
// reported in the Observation; an unmarked error stays a 500.
func TestDependencyOutageAnswers503(t *testing.T) {
	var mu sync.Mutex
	var seen []Observation
	cfg := Config{Observe: func(o Observation) { mu.Lock(); seen = append(seen, o); mu.Unlock() }}
	f := newTestFramework(t, cfg)
	Register(f, actionFunc[noArgs, noArgs]{spec: specFor("V1Enqueue", "/v1/enqueue"), run: func(req *action.Request) (*noArgs, error) {
		req.SetCookie(&http.Cookie{Name: "c", Value: "v"})
		return nil, fmt.Errorf("enqueue: %w", dependency.Unavailable("redis", errors.New("connection refused")))
	}})
	guarded := newTestFramework(t, Config{Authenticator: outageAuth{}, UnavailableRetryAfter: 1500 * time.Millisecond})
	Register(guarded, whoami{auth: action.Owner("user")})
	for _, tc := range []struct {
		name, dep, retry string
		h                http.Handler
		target           string
	}{
		{"action", "redis", "5", f, "/v1/enqueue?lang=es"},
		{"authenticator", "postgresql", "2", guarded, "/v1/whoami?lang=es"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := do(t, tc.h, http.MethodPost, tc.target, "", "", "Authorization", "jwt-user any")
			if res.Code != 503 || res.Body["error"] != "SERVICE_UNAVAILABLE" || res.Body["status"] != float64(503) {
				t.Fatalf("got %d %s, want 503 SERVICE_UNAVAILABLE", res.Code, res.Raw)
			}
			if got := res.Header.Get("Retry-After"); got != tc.retry {
				t.Errorf("Retry-After = %q, want %s", got, tc.retry)
			}
			if msg, _ := res.Body["message"].(string); !strings.HasPrefix(msg, "El servicio no está disponible") {
				t.Errorf("message = %q, want the Spanish one", msg)
			}
			if strings.Contains(res.Raw, "refused") || res.Header.Get("Set-Cookie") != "" {
				t.Errorf("the answer leaks the cause or sets a cookie: %s %v", res.Raw, res.Header)
			}
		})
	}
	mu.Lock()
	if len(seen) != 1 || seen[0].Unavailable != "redis" || seen[0].Status != 503 {
		t.Errorf("observations = %+v, want one 503 naming redis", seen)
	}
	mu.Unlock()
	if res := do(t, f, http.MethodPost, "/v1/probe?must=fail", "", ""); res.Code != 500 {
		t.Errorf("an unmarked error: got %d, want 500", res.Code)
	}
}
