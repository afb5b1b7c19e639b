package main

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/lib/pq"
)

// Check is one verification of the server's state after a run.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
}

// verifyChains returns a check that no refresh chain was lost or forked:
// the last token of each chain still refreshes once more and, with
// countSessions and a known database, each user has exactly one live
// session (which holds only when the user's one chain is all it has).
func verifyChains(countSessions bool) func(ctx context.Context, t *target, workers []*worker) []Check {
	return func(ctx context.Context, t *target, workers []*worker) []Check {
		users := chainUsers(workers)
		checks := []Check{refreshOnceMore(ctx, t, users, opRefresh)}
		if countSessions && t.databaseURL != "" {
			checks = append(checks, liveSessions(ctx, t.databaseURL, users))
		}
		return checks
	}
}

// chainUsers returns the distinct users of workers.
func chainUsers(workers []*worker) []*user {
	var users []*user
	for _, w := range workers {
		if !slices.Contains(users, w.user) {
			users = append(users, w.user)
		}
	}
	return users
}

// refreshOnceMore refreshes the chain of every user once more on t, with
// op (opRefresh, or the rotate baseline's).
func refreshOnceMore(ctx context.Context, t *target, users []*user, op opFunc) Check {
	w := newWorker(-1, t.base, newClient(t.base, 1))
	failed := 0
	var first string
	for _, u := range users {
		w.user = u
		if err := op(ctx, w); err != nil {
			failed++
			if first == "" {
				first = err.Error()
			}
		}
	}
	return Check{
		Name:   "every chain refreshes once more",
		OK:     failed == 0,
		Detail: fmt.Sprintf("%d of %d chains refreshed%s", len(users)-failed, len(users), suffix(first)),
	}
}

// liveSessions checks that each user has exactly one session that was
// neither replaced nor revoked.
func liveSessions(ctx context.Context, dsn string, users []*user) Check {
	c := Check{Name: "one live session per user"}
	ids := make([]string, len(users))
	for i, u := range users {
		ids[i] = u.ID
	}
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT user_id::text, count(*) FROM user_sessions
		WHERE user_id = ANY($1::uuid[]) AND replaced_by_session_id IS NULL AND revoked_at IS NULL
		GROUP BY user_id`, pq.Array(ids))
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	defer rows.Close()
	live := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			c.Detail = err.Error()
			return c
		}
		live[id] = n
	}
	if err := rows.Err(); err != nil {
		c.Detail = err.Error()
		return c
	}
	var bad []string
	for _, id := range ids {
		if live[id] != 1 {
			bad = append(bad, fmt.Sprintf("%s has %d", id, live[id]))
		}
	}
	c.OK = len(bad) == 0
	c.Detail = fmt.Sprintf("%d of %d users have exactly one", len(ids)-len(bad), len(ids))
	if len(bad) > 0 {
		c.Detail += "; " + strings.Join(bad[:min(len(bad), 3)], ", ")
	}
	return c
}

// suffix writes a first failure after a detail, if there was one.
func suffix(s string) string {
	if s == "" {
		return ""
	}
	return "; first failure: " + s
}
