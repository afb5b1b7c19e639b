package framework

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/dependency"
)

// outageAuth fails like a loader whose database is unreachable.
type outageAuth struct{}

func (outageAuth) Authenticate(context.Context, *http.Request, action.Needs) (*action.Caller, error) {
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

// TestClientGoneIsNotAnInternalError: when the client closes its
// connection while the request runs, the canceled work is recorded as 499
// and logged at info level, not answered 500 and logged as an error.
func TestClientGoneIsNotAnInternalError(t *testing.T) {
	var mu sync.Mutex
	var seen []Observation
	var logs strings.Builder
	f := newTestFramework(t, Config{
		Logger:  slog.New(slog.NewTextHandler(&syncWriter{w: &logs, mu: &mu}, nil)),
		Observe: func(o Observation) { mu.Lock(); seen = append(seen, o); mu.Unlock() },
	})
	ctx, cancel := context.WithCancel(context.Background())
	Register(f, actionFunc[noArgs, noArgs]{spec: specFor("V1Slow", "/v1/slow"), run: func(req *action.Request) (*noArgs, error) {
		cancel() // the client hangs up while the action waits on the database
		return nil, fmt.Errorf("load: %w", ctx.Err())
	}})
	Register(f, actionFunc[noArgs, noArgs]{spec: specFor("V1Broken", "/v1/broken"), run: func(req *action.Request) (*noArgs, error) {
		return nil, fmt.Errorf("load: %w", context.Canceled) // canceled, but the client is still there
	}})
	w := httptest.NewRecorder()
	f.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/v1/slow", nil).WithContext(ctx))
	if w.Code != StatusClientClosedRequest || w.Body.Len() != 0 {
		t.Errorf("client gone: %d %q, want 499 and no body", w.Code, w.Body)
	}
	if res := do(t, f, http.MethodGet, "/v1/broken", "", ""); res.Code != 500 {
		t.Errorf("a cancellation of our own making: %d, want 500", res.Code)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || seen[0].Status != 499 || seen[1].Status != 500 {
		t.Errorf("observations: %+v", seen)
	}
	if n := strings.Count(logs.String(), "level=ERROR"); n != 1 || !strings.Contains(logs.String(), "request canceled by its client") {
		t.Errorf("want one error (the 500) and an info line for the 499:\n%s", logs.String())
	}
}

type syncWriter struct {
	w  *strings.Builder
	mu *sync.Mutex
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
