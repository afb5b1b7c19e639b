package main

import (
	"net/http"
	"strings"
	"sync"
	"testing"
)

// concurrentLogins registers a user, then sends n logins of it at once, each
// from its own client, and counts the answers by status.
func concurrentLogins(t *testing.T, s *testServer, n int) map[int]int {
	t.Helper()
	u := register(t, s.client(), "web")
	creds := map[string]any{"email": u.email, "password": strongPassword}
	return parallel(n, func(int) int {
		return s.client().call(http.MethodPost, "/v1/users/login", creds).Status
	})
}

// TestConcurrentLoginsQueueForHashing: logins that find every hashing slot
// taken wait their turn in the queue instead of being refused after a fixed
// time, however long the queue takes to drain.
func TestConcurrentLoginsQueueForHashing(t *testing.T) {
	t.Parallel()
	t.Run("production cost", func(t *testing.T) {
		t.Parallel()
		env := testEnv(t)
		delete(env, "PASSWORD_HASH_MEMORY_KIB")
		delete(env, "PASSWORD_HASH_ITERATIONS")
		s := startServer(t, env, "api")
		if codes := concurrentLogins(t, s, 10); codes[201] != 10 {
			t.Fatalf("statuses = %v, want 10 × 201", codes)
		}
	})
	t.Run("one slot, a queue longer than seconds", func(t *testing.T) {
		t.Parallel()
		// Each hash takes a few hundred milliseconds on one slot: the last
		// of ten waits for seconds.
		s := startServer(t, testEnv(t, "PASSWORD_HASH_CONCURRENCY=1",
			"PASSWORD_HASH_MEMORY_KIB=65536", "PASSWORD_HASH_ITERATIONS=6"), "api")
		if codes := concurrentLogins(t, s, 10); codes[201] != 10 {
			t.Fatalf("statuses = %v, want 10 × 201", codes)
		}
	})
}

// TestHashingBusy saturates the password hasher: requests that find every
// slot taken and the queue full get 503 SERVICE_BUSY with Retry-After, never
// a crash, and the server keeps serving.
func TestHashingBusy(t *testing.T) {
	t.Parallel()
	s := startServer(t, testEnv(t, "PASSWORD_HASH_CONCURRENCY=1", "PASSWORD_HASH_QUEUE=0",
		"PASSWORD_HASH_MEMORY_KIB=65536", "PASSWORD_HASH_ITERATIONS=3"), "api")
	var busy *apiResponse
	var mu sync.Mutex
	codes := parallel(8, func(int) int {
		r := s.client().call(http.MethodPost, "/v1/users/login", map[string]any{"email": uniqueEmail(), "password": strongPassword})
		if r.Status == 503 {
			mu.Lock()
			busy = r
			mu.Unlock()
		}
		return r.Status
	})
	if codes[503] == 0 || codes[400]+codes[503] != 8 {
		t.Fatalf("statuses = %v, want some 503 beside 400s", codes)
	}
	if busy.str("error") != "SERVICE_BUSY" || busy.Header.Get("Retry-After") != "1" {
		t.Errorf("busy answer = %s (Retry-After %q)", busy.Raw, busy.Header.Get("Retry-After"))
	}
	s.client().call(http.MethodGet, "/health", nil).want(t, 200, "")
}

// TestResetChecksTokenBeforeHashing: a reset whose token is unknown, used
// or expired is refused before any password hashing (an Argon2id run per
// random token would let anyone keep the hasher busy), and of two
// concurrent resets with one token exactly one succeeds.
func TestResetChecksTokenBeforeHashing(t *testing.T) {
	t.Parallel()
	s, smtp := mailServer(t)
	c := s.client()
	u := register(t, c, "web")
	c.call(http.MethodPost, "/v1/users/requestpasswordreset", map[string]any{"email": u.email}).want(t, 200, "")
	token := tokenOf(t, waitMails(t, smtp, u.email, "Reset your password", 1)[0], resetLinkRe)
	hashes := func() float64 { return metricValue(t, c, "actionkit_password_hashes_total") }
	before := hashes()
	if before < 1 {
		t.Fatalf("actionkit_password_hashes_total = %v after a registration", before)
	}
	reset := func(token string) *apiResponse {
		return s.client().call(http.MethodPost, "/v1/users/resetpassword", map[string]any{"token": token, "password": newPassword})
	}
	reset(strings.Repeat("0", 64)).want(t, 400, "USER_BAD_REQUEST_INVALID_RESET_TOKEN")
	if got := hashes(); got != before {
		t.Fatalf("an unknown token cost %v password hashes", got-before)
	}
	codes := parallel(2, func(int) int { return reset(token).Status })
	if codes[200] != 1 || codes[400] != 1 {
		t.Fatalf("two concurrent resets with one token: %v, want one 200 and one 400", codes)
	}
	before = hashes()
	reset(token).want(t, 400, "USER_BAD_REQUEST_INVALID_RESET_TOKEN")
	if got := hashes(); got != before {
		t.Fatalf("a used token cost %v password hashes", got-before)
	}
}
