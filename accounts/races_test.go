package accounts_test

import (
	"errors"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/accounts"
	"github.com/actionkit/actionkit/accounts/accountstest"
	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/models"
)

// endRaceRounds returns how many times each race below runs. One round is
// a narrow window (a rotation committing while the end runs), so it takes
// many to catch a wrong lock order reliably: 200 in the full suite, 40 in
// make check's quick loop (-short).
func endRaceRounds() int {
	if testing.Short() {
		return 40
	}
	return 200
}

// raceRefreshAgainstEnd runs a refresh of a fresh app session and an end
// of that session (end, given its owner and session id) at the same
// instant, rounds times. A refresh never ends a session, so the end
// must find it and succeed whichever runs first; afterwards no row of the
// session may be live and a token the refresh got must not refresh.
func raceRefreshAgainstEnd(t *testing.T, rounds int, end func(svc *accountstest.Service, owner, session uuid.UUID) error) {
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.App)
	bad := 0
	for i := range rounds {
		acc, iss := users.LoggedIn(t, action.App)
		var (
			refreshed          *accounts.Issued
			refreshErr, endErr error
			wg                 sync.WaitGroup
		)
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			refreshed, refreshErr = users.Refresh(t.Context(), iss.RefreshToken, o)
		}()
		go func() { defer wg.Done(); <-start; endErr = end(users, acc.ID, iss.Session.SessionID) }()
		close(start)
		wg.Wait()
		live := 0
		for _, s := range users.Live(t, acc.ID) {
			if s.SessionID == iss.Session.SessionID {
				live++
			}
		}
		var reusedErr error = accounts.ErrInvalidRefresh
		if refreshErr == nil {
			_, reusedErr = users.Refresh(t.Context(), refreshed.RefreshToken, o)
		}
		if endErr != nil || live != 0 || reusedErr == nil {
			bad++
			t.Errorf("round %d: the end answered %v, the refresh %v, then %d live rows and its new token %v",
				i, endErr, refreshErr, live, reusedErr)
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d rounds: the session was not ended, or outlived an end that succeeded", bad, rounds)
	}
}

// TestLogoutRacingRefresh: a logout and a refresh of the same session at
// once; a logout that succeeds leaves nothing of the session alive.
func TestLogoutRacingRefresh(t *testing.T) {
	raceRefreshAgainstEnd(t, endRaceRounds(), func(svc *accountstest.Service, owner, session uuid.UUID) error {
		return svc.Logout(t.Context(), owner, session, "", accountstest.Origin(action.App))
	})
}

// TestRevokeSessionRacingRefresh: the same race with RevokeSession from
// the session itself (a logout by another name).
func TestRevokeSessionRacingRefresh(t *testing.T) {
	raceRefreshAgainstEnd(t, endRaceRounds(), func(svc *accountstest.Service, owner, session uuid.UUID) error {
		return svc.Activity.RevokeSession(t.Context(), owner, session, session, accountstest.Origin(action.App))
	})
}

// TestConcurrentReplaysRunTheTheftResponseOnce replays one rotated refresh
// token ten times at once, many times over: each replay is refused, and
// the theft response (token version bumped, refresh_theft recorded) runs
// exactly once per round however the replays interleave.
func TestConcurrentReplaysRunTheTheftResponseOnce(t *testing.T) {
	const rounds, replays = 40, 10
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.App)
	bad := 0
	for i := range rounds {
		acc, iss := users.LoggedIn(t, action.App)
		if _, err := users.Refresh(t.Context(), iss.RefreshToken, o); err != nil {
			t.Fatal(err)
		}
		before := users.Reload(t, acc.ID).TokenVersion
		errs := make([]error, replays)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for j := range replays {
			wg.Add(1)
			go func() { defer wg.Done(); <-start; _, errs[j] = users.Refresh(t.Context(), iss.RefreshToken, o) }()
		}
		close(start)
		wg.Wait()
		refused := 0
		for _, err := range errs {
			if errors.Is(err, accounts.ErrInvalidRefresh) {
				refused++
			}
		}
		bumps := users.Reload(t, acc.ID).TokenVersion - before
		thefts := 0
		for _, typ := range users.EventTypes(t, acc.ID) {
			if typ == models.EventRefreshTheft {
				thefts++
			}
		}
		if refused != replays || bumps != 1 || thefts != 1 {
			bad++
			t.Errorf("round %d: %d of %d replays refused (%v), token version bumped %d times, %d refresh_theft events; want all, 1 and 1",
				i, refused, replays, errs, bumps, thefts)
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d rounds ran the theft response other than once", bad, rounds)
	}
}

// TestLogoutAllRacingRefresh: the same race with a logout of every
// session: a rotation must not slip a live successor past it. 50 rounds,
// twice what the server's test ran: with the sessions ended before the
// owner is locked, many of them fail.
func TestLogoutAllRacingRefresh(t *testing.T) {
	raceRefreshAgainstEnd(t, 50, func(svc *accountstest.Service, owner, session uuid.UUID) error {
		return svc.LogoutAll(t.Context(), owner, session, accountstest.Origin(action.App), nil)
	})
}

// TestConcurrentRefreshesOfOneToken: twenty presentations of one refresh
// token at once, round after round, give exactly one rotation; the
// others are replays of a rotated token, so the owner's token version
// moves on, every row of the chain ends, and no second successor is made.
func TestConcurrentRefreshesOfOneToken(t *testing.T) {
	const rounds, presentations = 10, 20
	env := newEnv(t)
	users, o := env.Users, accountstest.Origin(action.App)
	for i := range rounds {
		acc, iss := users.LoggedIn(t, action.App)
		errs := make([]error, presentations)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for j := range presentations {
			wg.Go(func() { <-start; _, errs[j] = users.Refresh(t.Context(), iss.RefreshToken, o) })
		}
		close(start)
		wg.Wait()
		rotated, refused := 0, 0
		for _, err := range errs {
			switch {
			case err == nil:
				rotated++
			case errors.Is(err, accounts.ErrInvalidRefresh):
				refused++
			default:
				t.Errorf("round %d: a refresh failed with %v", i, err)
			}
		}
		if rotated != 1 || refused != presentations-1 {
			t.Errorf("round %d: %d rotations and %d refusals, want 1 and %d", i, rotated, refused, presentations-1)
		}
		rows := users.SessionsOf(t, acc.ID)
		if len(rows) != 2 {
			t.Errorf("round %d: %d session rows, want the original and one successor", i, len(rows))
		}
		for _, r := range rows {
			if r.RevokedAt == nil {
				t.Errorf("round %d: session %s is live after the replays", i, r.ID)
			}
		}
		if v := users.Reload(t, acc.ID).TokenVersion; v < 1 {
			t.Errorf("round %d: token version %d, want it moved on", i, v)
		}
	}
}

// TestConcurrentLogins: ten logins of one account at once, with the real
// password hashing cost (slow enough that they overlap), each open a
// session and count once.
func TestConcurrentLogins(t *testing.T) {
	env := newEnv(t)
	users := env.NewService(t, accounts.Users)
	users.Hasher = auth.NewHasher(auth.HasherConfig{MemoryKiB: 19456, Time: 2, Threads: 1, Concurrency: 4})
	acc := users.NewAccount(t)
	const logins = 10
	errs := make([]error, logins)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range logins {
		wg.Go(func() {
			<-start
			_, errs[i] = users.Login(t.Context(), acc.Email, accountstest.Password, accountstest.Origin(action.Web))
		})
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("login %d: %v", i, err)
		}
	}
	if n := users.Reload(t, acc.ID).LoginCount; n != logins {
		t.Errorf("login count %d, want %d", n, logins)
	}
	if n := len(users.Live(t, acc.ID)); n != logins {
		t.Errorf("%d live sessions, want %d", n, logins)
	}
	logged := 0
	for _, typ := range users.EventTypes(t, acc.ID) {
		if typ == models.EventLogin {
			logged++
		}
	}
	if logged != logins {
		t.Errorf("%d login events, want %d", logged, logins)
	}
}
