package main

import (
	"context"
	"net/http"

	"github.com/actionkit/actionkit/action"
)

// passwordAttempt admits one request of the password class from client
// and counts it: the class's budget (AUTH_RATE_LIMIT_MAX) is spent by
// failed attempts only, once the answer is known, so that many people
// logging in from one office address are never refused for succeeding;
// every attempt, successes included, spends a budget ten times larger.
// Both are checked before the action runs, so a flood is refused before
// any password is hashed.
func (l *rateLimits) passwordAttempt(w http.ResponseWriter, r *http.Request, next http.Handler, client string) {
	ctx := r.Context()
	failures := "auth:" + string(action.RatePassword) + ":" + client
	if d := l.auth.Peek(ctx, failures, l.authMax, l.authWindow); !d.Allowed {
		l.refuse(w, r, d)
		return
	}
	attempts := "auth:" + string(action.RatePassword) + "-attempts:" + client
	if d := l.auth.Allow(ctx, attempts, passwordAttemptsFactor*l.authMax, l.authWindow); !d.Allowed {
		l.refuse(w, r, d)
		return
	}
	rec := &statusRecorder{ResponseWriter: w}
	next.ServeHTTP(rec, r)
	if failedAttempt(rec.status) {
		l.auth.Allow(context.WithoutCancel(ctx), failures, l.authMax, l.authWindow)
	}
}

// failedAttempt reports whether an answer of a password-class action
// with status is a failed attempt: every 4xx but 403 (MFA_REQUIRED after
// a right password, or a refused cross-site request) and 429 (not
// evaluated). A success and a server error count as none.
func failedAttempt(status int) bool {
	return status >= 400 && status < 500 && status != http.StatusForbidden && status != http.StatusTooManyRequests
}

// statusRecorder remembers the status a handler answered with.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the writer beneath.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
