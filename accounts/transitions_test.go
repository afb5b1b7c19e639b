package accounts

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/action"
	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

// TestTransitionTableIsComplete: every state of a token, its owner and its
// chain matches exactly one row (transitionFor panics otherwise), and one
// row only is the fast path.
func TestTransitionTableIsComplete(t *testing.T) {
	states := []tokenState{tokenMalformed, tokenUnknown, tokenActive, tokenExpired, tokenRevoked, tokenRotated}
	for _, from := range states {
		for _, usable := range []bool{true, false} {
			for _, marked := range []bool{true, false} {
				for _, spent := range []bool{true, false} {
					func() {
						defer func() {
							if r := recover(); r != nil {
								t.Error(r)
							}
						}()
						transitionFor(from, usable, marked, spent)
					}()
				}
			}
		}
	}
	fast := 0
	for _, row := range refreshTransitions {
		if row.fast {
			fast++
			if row.effect != effectRotate {
				t.Errorf("fast row %+v does not rotate", row)
			}
		}
	}
	if fast != 1 {
		t.Errorf("%d fast rows; RotateLive is one statement for one row", fast)
	}
}

// refreshCase is one way into a row of the table: the row, and the owner
// and chain it is tried with (a row that does not care is tried with each).
type refreshCase struct {
	row     transition
	owner   string // active, inactive or deleted
	marked  bool
	between string // how the refresh is run: Refresh, refreshLocked or RotateLive
}

func (c refreshCase) String() string {
	return fmt.Sprintf("%s/owner=%s/marked=%v/spent=%v/%s", c.row.from, c.owner, c.marked, c.row.budget == budgetSpent, c.between)
}

// refreshCases expands every row of refreshTransitions into its cases.
func refreshCases() []refreshCase {
	var out []refreshCase
	for _, row := range refreshTransitions {
		owners := map[ownerCond][]string{
			ownerAny: {"active", "inactive"}, ownerUsable: {"active"}, ownerUnusable: {"inactive", "deleted"},
		}[row.owner]
		marks := map[chainCond][]bool{chainAny: {false}, chainUnmarked: {false}, chainMarked: {true}}[row.chain]
		for _, owner := range owners {
			for _, marked := range marks {
				paths := []string{"Refresh", "refreshLocked", "RotateLive"}
				if row.from == tokenMalformed {
					paths = paths[:1] // Refresh answers it before any SQL
				}
				for _, path := range paths {
					out = append(out, refreshCase{row: row, owner: owner, marked: marked, between: path})
				}
			}
		}
	}
	return out
}

// refreshFixture is one owner with a token in the state of a case.
type refreshFixture struct {
	svc      *Service
	owner    *models.Account
	raw      string          // the refresh token presented
	session  *models.Session // the session raw names; nil if none
	outcomes []string
	ended    [][]uuid.UUID
}

// state is what a refresh may change of the owner: its sessions, its token
// version and its security events.
type state struct {
	sessions []models.Session
	version  int64
	events   []models.SecurityEvent
}

func (f *refreshFixture) state(t *testing.T) state {
	t.Helper()
	ctx := context.Background()
	sessions, err := f.svc.Sessions.ListByOwner(ctx, f.svc.DB, f.owner.ID)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := f.svc.Accounts.ByID(ctx, f.svc.DB, f.owner.ID)
	if err != nil {
		t.Fatal(err)
	}
	events, err := f.svc.Events.List(ctx, f.svc.DB, string(f.svc.Kind.Type), f.owner.ID, nil, 100)
	if err != nil {
		t.Fatal(err)
	}
	return state{sessions: sessions, version: acc.TokenVersion, events: events}
}

// TestRefreshTransitions runs every row of the state machine, with every
// owner and chain it covers, through the public Refresh, through the
// locked transaction alone (the Go rules, the fast row included) and
// through RotateLive alone (the SQL rules), on PostgreSQL, and checks the
// outcome and the effect the row names, and that nothing else changed.
func TestRefreshTransitions(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	clock := time.Now().UTC().Truncate(time.Microsecond)
	tokens, err := auth.NewTokens([]byte("0123456789abcdef0123456789abcdef"), "actionkit-test", 15*time.Minute,
		func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range refreshCases() {
		t.Run(c.String(), func(t *testing.T) {
			t.Parallel()
			f := newRefreshFixture(t, db, tokens, c)
			before := f.state(t)
			ctx := context.Background()
			origin := Origin{Client: action.Web, IP: "192.0.2.7", UserAgent: "transitions"}
			var iss *Issued
			var err error
			want := c.row
			switch c.between {
			case "Refresh":
				iss, err = f.svc.Refresh(ctx, f.raw, origin)
			case "refreshLocked":
				iss, err = f.svc.refreshLocked(ctx, auth.HashOpaqueToken(f.raw), origin)
			case "RotateLive":
				iss, err = f.svc.rotateLive(ctx, auth.HashOpaqueToken(f.raw), origin)
				if !c.row.fast {
					// Not its row: the statement must change nothing and
					// leave it to the transaction.
					if !errors.Is(err, models.ErrNotFound) {
						t.Fatalf("RotateLive = %v, %v; want ErrNotFound for a row it does not take", iss, err)
					}
					want = transition{effect: effectNone, outcome: ""}
				}
			}
			if want.outcome != "" {
				if len(f.outcomes) != 1 || f.outcomes[0] != want.outcome {
					t.Errorf("outcomes = %q, want [%s]", f.outcomes, want.outcome)
				}
				checkRefreshError(t, want, iss, err)
			}
			after := f.state(t)
			checkEffect(t, f, want.effect, before, after, iss)
		})
	}
}

// checkRefreshError checks the answer of a refresh that took row want.
func checkRefreshError(t *testing.T, want transition, iss *Issued, err error) {
	t.Helper()
	var limited *LimitedError
	switch {
	case want.effect == effectRotate:
		if err != nil || iss == nil || iss.RefreshToken == "" || iss.AccessToken == "" {
			t.Fatalf("rotation: %+v, %v", iss, err)
		}
	case want.budget == budgetSpent:
		// The window opened a minute ago (newRefreshFixture).
		if !errors.As(err, &limited) || errors.Is(err, ErrInvalidRefresh) || iss != nil ||
			limited.RetryAfter <= 58*time.Minute || limited.RetryAfter > 59*time.Minute {
			t.Errorf("%s: got %+v, %v; want a LimitedError of 59 minutes", want.outcome, iss, err)
		}
	case want.from == tokenMalformed || want.from == tokenUnknown:
		if !errors.Is(err, ErrUnknownRefresh) || iss != nil {
			t.Errorf("%s: got %+v, %v; want ErrUnknownRefresh", want.outcome, iss, err)
		}
	default:
		if !errors.Is(err, ErrInvalidRefresh) || errors.Is(err, ErrUnknownRefresh) || iss != nil {
			t.Errorf("%s: got %+v, %v; want ErrInvalidRefresh", want.outcome, iss, err)
		}
	}
}

// checkEffect compares the owner's state before and after a refresh with
// what effect says must have changed.
func checkEffect(t *testing.T, f *refreshFixture, e effect, before, after state, iss *Issued) {
	t.Helper()
	changedRows := map[uuid.UUID]models.Session{}
	prior := map[uuid.UUID]models.Session{}
	for _, s := range before.sessions {
		prior[s.ID] = s
	}
	var added []models.Session
	for _, s := range after.sessions {
		p, ok := prior[s.ID]
		switch {
		case !ok:
			added = append(added, s)
		case !sameSession(p, s):
			changedRows[s.ID] = s
		}
	}
	newEvents := len(after.events) - len(before.events)
	bumped := after.version - before.version
	switch e {
	case effectNone:
		if len(added) != 0 || len(changedRows) != 0 || bumped != 0 || newEvents != 0 || len(f.ended) != 0 {
			t.Errorf("no effect wanted: %d added, %d changed, version +%d, %d events, ended %v",
				len(added), len(changedRows), bumped, newEvents, f.ended)
		}
	case effectRevoke:
		got, ok := changedRows[f.session.ID]
		if len(added) != 0 || len(changedRows) != 1 || !ok || got.RevokedAt == nil || got.ReplacedBySessionID != nil {
			t.Errorf("revoke wanted: %d added, changed %+v", len(added), changedRows)
		}
		if bumped != 0 || newEvents != 0 {
			t.Errorf("revoke: version +%d, %d events", bumped, newEvents)
		}
	case effectRotate:
		old, ok := changedRows[f.session.ID]
		if len(added) != 1 || len(changedRows) != 1 || !ok {
			t.Fatalf("rotate wanted: %d added, %d changed", len(added), len(changedRows))
		}
		next := added[0]
		if old.RevokedAt == nil || old.ReplacedBySessionID == nil || *old.ReplacedBySessionID != next.ID {
			t.Errorf("old session not rotated into the new one: %+v", old)
		}
		if next.SessionID != f.session.SessionID || !next.LoginAt.Equal(f.session.LoginAt) ||
			next.Client != f.session.Client || next.Platform != f.session.Platform || next.RevokedAt != nil {
			t.Errorf("successor %+v does not continue %+v", next, f.session)
		}
		if next.RefreshCount != 1 || next.RefreshWindowAt == nil {
			t.Errorf("successor's budget: %d refreshes in the window of %v, want the first", next.RefreshCount, next.RefreshWindowAt)
		}
		if !reflect.DeepEqual(next.Assurance, f.session.Assurance) || !reflect.DeepEqual(iss.Session.Assurance, f.session.Assurance) {
			t.Errorf("successor's assurance %+v (issued %+v), want the old row's %+v", next.Assurance, iss.Session.Assurance, f.session.Assurance)
		}
		if iss.Session.ID != next.ID || auth.HashOpaqueToken(iss.RefreshToken) != next.RefreshTokenHash {
			t.Errorf("issued session %v is not the stored successor %v", iss.Session.ID, next.ID)
		}
		if bumped != 0 || newEvents != 0 {
			t.Errorf("rotate: version +%d, %d events", bumped, newEvents)
		}
	case effectTheft:
		for _, s := range after.sessions {
			if s.RevokedAt == nil {
				t.Errorf("session %v still live after a theft", s.ID)
			}
			if s.SessionID == f.session.SessionID && s.TheftDetectedAt == nil {
				t.Errorf("session %v of the chain not marked", s.ID)
			}
		}
		if len(added) != 0 || bumped != 1 || newEvents != 1 || after.events[0].Type != models.EventRefreshTheft {
			t.Errorf("theft: %d added, version +%d, %d events", len(added), bumped, newEvents)
		}
		if len(f.ended) != 1 || f.ended[0] != nil {
			t.Errorf("ended = %v, want one call for every session", f.ended)
		}
	}
}

func sameSession(a, b models.Session) bool {
	eq := func(x, y *time.Time) bool { return (x == nil) == (y == nil) && (x == nil || x.Equal(*y)) }
	ids := func(x, y *uuid.UUID) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return eq(a.RevokedAt, b.RevokedAt) && ids(a.ReplacedBySessionID, b.ReplacedBySessionID) &&
		eq(a.TheftDetectedAt, b.TheftDetectedAt) && a.ExpiresAt.Equal(b.ExpiresAt)
}

// newRefreshFixture makes an owner (and a second live session of it, so
// that a theft has more than one to revoke) and a token in the state of c.
func newRefreshFixture(t *testing.T, db *sqlx.DB, tokens *auth.Tokens, c refreshCase) *refreshFixture {
	t.Helper()
	ctx := context.Background()
	svc := NewService(Users, db, tokens, nil, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	svc.RefreshBudget = models.RefreshBudget{Max: 2, Window: time.Hour}
	f := &refreshFixture{svc: svc}
	now := svc.Now()
	id := uuid.Must(uuid.NewV7())
	f.owner = &models.Account{ID: id, Email: id.String() + "@transitions.test", Password: "x", Salt: "x",
		Timezone: "UTC", Locale: "en", IsActive: true}
	must(t, svc.Accounts.Create(ctx, db, f.owner))
	provider := "acme"
	store := func(expires time.Time) (*models.Session, string) {
		sess, raw, err := svc.newSession(f.owner.ID, Origin{}, action.App, "ios", now)
		must(t, err)
		sess.ExpiresAt = expires
		// An assurance unlike a fresh login's, which every rotation must
		// copy as it is.
		sess.Assurance = models.Assurance{Methods: []string{models.MethodFederated, models.MethodTOTP}, Level: 2,
			AuthenticatedAt: now.Add(-7 * time.Minute), Provider: &provider}
		must(t, svc.Sessions.Create(ctx, db, sess))
		return sess, raw
	}
	store(now.Add(time.Hour)) // another device
	switch c.row.from {
	case tokenMalformed:
		f.raw = "not a refresh token"
	case tokenUnknown:
		raw, _, err := auth.NewOpaqueToken()
		must(t, err)
		f.raw = raw
	case tokenActive:
		f.session, f.raw = store(now.Add(time.Hour))
		if c.row.budget == budgetSpent {
			sqlExec(t, db, `UPDATE user_sessions SET refresh_window_at = $2, refresh_count = 2 WHERE id = $1`,
				f.session.ID, now.Add(-time.Minute))
		}
	case tokenExpired:
		f.session, f.raw = store(now.Add(-time.Second))
	case tokenRevoked:
		f.session, f.raw = store(now.Add(time.Hour))
		_, err := svc.Sessions.Revoke(ctx, db, f.session.ID, now)
		must(t, err)
	case tokenRotated:
		f.session, f.raw = store(now.Add(time.Hour))
		_, err := svc.Refresh(ctx, f.raw, Origin{})
		must(t, err)
		if c.marked {
			if _, err := svc.Refresh(ctx, f.raw, Origin{}); !errors.Is(err, ErrInvalidRefresh) {
				t.Fatalf("marking the chain: %v", err)
			}
		}
	}
	switch c.owner {
	case "inactive":
		must(t, svc.Accounts.SetActive(ctx, db, f.owner.ID, false, now))
	case "deleted":
		must(t, svc.Accounts.SoftDelete(ctx, db, f.owner.ID, now))
	}
	if f.session != nil {
		s, err := svc.Sessions.ByHash(ctx, db, auth.HashOpaqueToken(f.raw))
		must(t, err)
		f.session = s
	}
	// Only the refresh under test is observed.
	svc.RefreshOutcome = func(o string) { f.outcomes = append(f.outcomes, o) }
	svc.Ended = func(_ action.OwnerType, _ uuid.UUID, sessions []uuid.UUID) { f.ended = append(f.ended, sessions) }
	return f
}

func sqlExec(t *testing.T, db *sqlx.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), query, args...); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
