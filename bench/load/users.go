package main

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/valyala/fasthttp"
)

// benchPassword is every bench user's password; it passes the server's
// policy (12+ characters, four classes).
const benchPassword = "Bench-Horse-42-battery"

// registerConcurrency is how many registrations run at once: each costs an
// Argon2id hash, and more than the server's hashing slots only queue.
const registerConcurrency = 4

// user is one registered account, logged in as an app: it holds an access
// token and the current refresh token of the session registration opened.
type user struct {
	ID      string
	Email   string
	Access  string
	Refresh string
	// Broken marks a refresh chain whose state is unknown (a refresh that
	// got no answer); it is never presented again.
	Broken bool
	// auth is "jwt-user " + authFor, the Authorization of the access
	// token authFor, built once per token rather than once per request.
	auth, authFor string
}

// authorization returns the value of u's Authorization header.
func (u *user) authorization() string {
	if u.authFor != u.Access {
		u.auth, u.authFor = "jwt-user "+u.Access, u.Access
	}
	return u.auth
}

// session is the answer of register, login and refresh.
type session struct {
	Token        string `json:"token"`
	RefreshToken string `json:"refreshToken"`
	User         struct {
		ID string `json:"id"`
	} `json:"user"`
}

// userPool registers users on demand and hands the same ones out again, so
// that scenarios at several concurrency levels share their accounts.
type userPool struct {
	prefix string // e-mail prefix, unique per pool
	base   string
	client *fasthttp.HostClient

	mu    sync.Mutex
	users []*user
}

// newUserPool returns an empty pool registering at base.
func newUserPool(prefix, base string) *userPool {
	return &userPool{prefix: prefix, base: base, client: newClient(base, registerConcurrency)}
}

// ensure returns the first n users of the pool, registering the missing
// ones.
func (p *userPool) ensure(ctx context.Context, n int) ([]*user, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	have := len(p.users)
	if have >= n {
		return p.users[:n], nil
	}
	fresh := make([]*user, n-have)
	errs := make([]error, n-have)
	sem := make(chan struct{}, registerConcurrency)
	var wg sync.WaitGroup
	for i := range fresh {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			email := fmt.Sprintf("%s-%d@bench.example.com", p.prefix, have+i)
			w := newWorker(-1, p.base, p.client)
			fresh[i], errs[i] = register(ctx, w, email)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	p.users = append(p.users, fresh...)
	return p.users[:n], nil
}

// register creates an account as an app client, waiting and trying again
// while the server answers 503 (its hashing slots are all busy).
func register(ctx context.Context, w *worker, email string) (*user, error) {
	body := map[string]string{"email": email, "password": benchPassword}
	for attempt := 0; ; attempt++ {
		a, err := w.call(ctx, "register", http.MethodPost, "/v1/users/register", body, "X-Client", "app", "X-Platform", "bench")
		if err == nil {
			var s session
			if err := w.decode("register", a, &s); err != nil {
				return nil, err
			}
			return &user{ID: s.User.ID, Email: email, Access: s.Token, Refresh: s.RefreshToken}, nil
		}
		if a.status != http.StatusServiceUnavailable || attempt >= 10 {
			return nil, fmt.Errorf("register %s: %w", email, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// assignUsers gives worker i the user i.
func assignUsers(workers []*worker, users []*user) {
	for i, w := range workers {
		w.user = users[i%len(users)]
	}
}
