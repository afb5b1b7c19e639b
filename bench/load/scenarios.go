package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// scenarioNames are the HTTP scenarios; "sockets" is run apart (sockets.go).
// mfalogin, the two-step login, is reported in the login's table.
var scenarioNames = []string{"read", "refresh", "login", "mfalogin", "publish", "mixed"}

// postBody is the body of every bench post: a paragraph, as a short post has.
var postBody = strings.Repeat("A benchmark post about nothing in particular. ", 6)

// scenario is one kind of load.
type scenario struct {
	name string
	// prepare gives every worker the user (and state) it needs.
	prepare func(ctx context.Context, t *target, workers []*worker) error
	op      opFunc
	// verify, when set, checks the server's state after the run.
	verify func(ctx context.Context, t *target, workers []*worker) []Check
}

// shareUsers gives each worker a user of the target's pool, registering
// the users still missing: the scenarios at every level share them.
func shareUsers(ctx context.Context, t *target, workers []*worker) error {
	users, err := t.pool.ensure(ctx, len(workers))
	if err != nil {
		return err
	}
	assignUsers(workers, users)
	return nil
}

// lookupScenario returns the scenario called name.
func lookupScenario(name string, t *target) (*scenario, error) {
	shared := shareUsers
	switch name {
	case "read":
		return &scenario{name: name, prepare: shared, op: opRead}, nil
	case "login":
		return &scenario{name: name, prepare: shared, op: opLogin}, nil
	case "mfalogin":
		return &scenario{name: name, prepare: t.totp.prepare, op: t.totp.op, verify: t.totp.verify}, nil
	case "publish":
		return &scenario{name: name, prepare: shared, op: opPublish}, nil
	case "refresh":
		return &scenario{name: name, prepare: freshUsers, op: opRefresh, verify: verifyChains(true)}, nil
	case "mixed":
		return &scenario{name: name, prepare: shared, op: t.mix.op, verify: verifyChains(false)}, nil
	}
	return nil, fmt.Errorf("unknown scenario %q; want one of %s or sockets", name, strings.Join(scenarioNames, ", "))
}

// freshUsers registers one user per worker for this run alone, so that
// each user owns exactly one refresh chain: its registration's session.
func freshUsers(ctx context.Context, t *target, workers []*worker) error {
	users, err := freshChains(ctx, t, len(workers))
	if err != nil {
		return err
	}
	assignUsers(workers, users)
	return nil
}

// freshChains registers n users on t that no scenario has used, sorted by
// id: the order the server created them in (its ids are UUIDv7).
func freshChains(ctx context.Context, t *target, n int) ([]*user, error) {
	t.fresh++
	pool := newUserPool(fmt.Sprintf("%s-chain%d", t.prefix, t.fresh), t.base)
	users, err := pool.ensure(ctx, n)
	if err != nil {
		return nil, err
	}
	users = slices.Clone(users)
	slices.SortFunc(users, func(a, b *user) int { return strings.Compare(a.ID, b.ID) })
	return users, nil
}

// interleave deals users out to two sides alternately and returns side's
// share (side 0 or 1). Dealt so from users in creation order, neither
// side's chains are the newer rows: registered one side after the other,
// the second side's were the newest in the tables and their time-ordered
// indexes (UUIDv7 keys), a difference of data between the sides of a
// comparison that should differ only in the program.
func interleave(users []*user, side int) []*user {
	var out []*user
	for i := side; i < len(users); i += 2 {
		out = append(out, users[i])
	}
	return out
}

// authHeader is the Authorization header of u.
func authHeader(u *user) []string { return []string{"Authorization", u.authorization()} }

// opRead reads the user's profile.
func opRead(ctx context.Context, w *worker) error {
	_, err := w.call(ctx, "read", http.MethodGet, "/v1/users/read", nil, authHeader(w.user)...)
	return err
}

// opLogin logs the user in again, as an app, with its correct password.
func opLogin(ctx context.Context, w *worker) error {
	body := map[string]string{"email": w.user.Email, "password": benchPassword}
	_, err := w.call(ctx, "login", http.MethodPost, "/v1/users/login", body, "X-Client", "app", "X-Platform", "bench")
	return err
}

// opPublish creates a draft and publishes it directly.
func opPublish(ctx context.Context, w *worker) error {
	body := map[string]string{"title": fmt.Sprintf("Bench post %d-%d", w.id, w.rng.Uint32()), "body": postBody}
	a, err := w.call(ctx, "create", http.MethodPost, "/v1/posts/create", body, authHeader(w.user)...)
	if err != nil {
		return err
	}
	var created struct {
		Post struct {
			ID string `json:"id"`
		} `json:"post"`
	}
	if err := w.decode("create", a, &created); err != nil {
		return err
	}
	_, err = w.call(ctx, "publish", http.MethodPost, "/v1/posts/publish", map[string]string{"postId": created.Post.ID}, authHeader(w.user)...)
	return err
}

// opRefresh rotates the user's refresh token on the server.
var opRefresh = refreshAt("/v1/users/refresh")

// refreshAt returns the operation that rotates the user's refresh token,
// sent in the body of a POST to path, and keeps the successor. Any failure
// leaves the chain's state unknown, so the chain is marked broken and the
// virtual user retires (errStop).
func refreshAt(path string) opFunc {
	return func(ctx context.Context, w *worker) error {
		u := w.user
		if u.Broken {
			return fmt.Errorf("%w: refresh chain broken earlier", errStop)
		}
		a, err := w.call(ctx, "refresh", http.MethodPost, path, map[string]string{"refreshToken": u.Refresh})
		var s session
		if err == nil {
			err = w.decode("refresh", a, &s)
		}
		if err == nil && s.RefreshToken == "" {
			err = errors.New("refresh answer without refreshToken")
		}
		if err != nil {
			u.Broken = true
			return fmt.Errorf("%w: %v", errStop, err)
		}
		u.Refresh, u.Access = s.RefreshToken, s.Token
		return nil
	}
}

// op runs one operation of the blend, picked at random. A refresh chain
// that broke is not fatal here: the failure is counted and the worker goes
// on with other operations.
func (m mix) op(ctx context.Context, w *worker) error {
	var err error
	switch m.pick(w.rng.Float64()) {
	case "read":
		err = opRead(ctx, w)
	case "publish":
		err = opPublish(ctx, w)
	case "refresh":
		if err = opRefresh(ctx, w); errors.Is(err, errStop) {
			err = errors.New(strings.TrimPrefix(err.Error(), errStop.Error()+": "))
		}
	case "login":
		err = opLogin(ctx, w)
	}
	return err
}
