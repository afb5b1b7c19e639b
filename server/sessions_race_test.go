package main

import (
	"net/http"
	"sync"
	"testing"
)

// endRaceRounds is how many times each race below is run. One round is a
// narrow window (a rotation committing while the ending statement runs),
// so it takes many to catch a wrong lock order reliably.
const endRaceRounds = 200

// raceRefreshAgainstEnd starts a refresh of a fresh app session and an end
// of that session (end, given the user and the session id) at the same
// instant, endRaceRounds times. A refresh never ends a session, so the end
// must find it and answer 200, whichever runs first; and afterwards no row
// of the session's chain may be live and a token the refresh got must not
// work: 200 means ended.
func raceRefreshAgainstEnd(t *testing.T, end func(c *client, u *registered, sid string) *apiResponse) {
	s := startServer(t, testEnv(t), "api")
	db := s.db()
	bad := 0
	for i := 0; i < endRaceRounds; i++ {
		u := register(t, s.client(), "app")
		sid, _ := jwtPayload(u.token)["sid"].(string)
		var refreshed, endRes *apiResponse
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() { defer wg.Done(); <-start; refreshed = refreshWith(s.client(), http.MethodPost, u.refresh) }()
		go func() { defer wg.Done(); <-start; endRes = end(s.client(), u, sid) }()
		close(start)
		wg.Wait()
		var live int
		if err := db.GetContext(t.Context(), &live, `SELECT count(*) FROM user_sessions
			WHERE user_id = $1 AND chain_id = $2 AND revoked_at IS NULL`, u.id, sid); err != nil {
			t.Fatal(err)
		}
		next := refreshed.str("refreshToken")
		reused := 0
		if refreshed.Status == 200 && next != "" {
			reused = refreshWith(s.client(), http.MethodPost, next).Status
		}
		if endRes.Status != 200 || live != 0 || reused == 200 {
			bad++
			t.Errorf("round %d: the end answered %d, the refresh %d, then %d live rows in the chain and its new token answered %d",
				i, endRes.Status, refreshed.Status, live, reused)
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d rounds: the session was not ended, or outlived an end that answered 200", bad, endRaceRounds)
	}
}

// TestLogoutRacingRefresh: a logout and a refresh of the same session at
// once; a logout that answers 200 leaves nothing of the session alive.
func TestLogoutRacingRefresh(t *testing.T) {
	t.Parallel()
	raceRefreshAgainstEnd(t, func(c *client, u *registered, _ string) *apiResponse {
		return c.call(http.MethodPost, "/v1/users/logout", nil, u.auth()...)
	})
}

// TestRevokeSessionRacingRefresh: the same race with revokesession, from
// the session itself (a logout by another name).
func TestRevokeSessionRacingRefresh(t *testing.T) {
	t.Parallel()
	raceRefreshAgainstEnd(t, func(c *client, u *registered, sid string) *apiResponse {
		return c.call(http.MethodPost, "/v1/users/revokesession", map[string]any{"sessionId": sid}, u.auth()...)
	})
}

// TestConcurrentReplaysRunTheTheftResponseOnce replays one rotated refresh
// token from ten clients at once, many times: each replay answers 401, and
// the theft response (token version bumped, refresh_theft recorded) runs
// exactly once per round however the replays interleave.
func TestConcurrentReplaysRunTheTheftResponseOnce(t *testing.T) {
	t.Parallel()
	const rounds, replays = 40, 10
	s := startServer(t, testEnv(t), "api")
	db := s.db()
	bad := 0
	for i := 0; i < rounds; i++ {
		u := register(t, s.client(), "app")
		refreshWith(s.client(), http.MethodPost, u.refresh).want(t, 200, "")
		before := tokenVersionOf(t, db, u.id)
		codes := parallel(replays, func(int) int { return refreshWith(s.client(), http.MethodPost, u.refresh).Status })
		bumps := tokenVersionOf(t, db, u.id) - before
		events := eventsOf(t, db, u.id, "refresh_theft")
		if codes[401] != replays || bumps != 1 || events != 1 {
			bad++
			t.Errorf("round %d: statuses %v, token version bumped %d times, %d refresh_theft events; want %d 401s, 1 and 1",
				i, codes, bumps, events, replays)
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d rounds ran the theft response other than once", bad, rounds)
	}
}
