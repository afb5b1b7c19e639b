package models_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/actionkit/actionkit/internal/pgtest"
	"github.com/actionkit/actionkit/models"
)

func TestSecurityEventsStore(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.EventStore{}.Prepared(db), testNow()
	owner, other := newID(t), newID(t)
	ip, ua := "203.0.113.7", "curl/8"
	var ids []uuid.UUID
	for i := range 5 {
		ev := &models.SecurityEvent{OwnerType: "user", OwnerID: owner, Type: models.EventLogin,
			IPAddress: &ip, UserAgent: &ua, CreatedAt: now.Add(time.Duration(i) * time.Second)}
		if i == 0 {
			ev.Data = json.RawMessage(`{"reason":"x"}`)
		}
		if err := store.Insert(ctx, db, ev); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, ev.ID)
	}
	if err := store.Insert(ctx, db, &models.SecurityEvent{OwnerType: "user", OwnerID: other, Type: models.EventRegister}); err != nil {
		t.Fatal(err)
	}
	if err := store.Insert(ctx, db, &models.SecurityEvent{OwnerType: "user", OwnerID: owner, Type: "made_up"}); err == nil {
		t.Error("an unknown type was stored")
	}
	// Pages of two, newest first, by keyset.
	var got []uuid.UUID
	var after *models.Keyset
	for range 4 {
		page, err := store.List(ctx, db, "user", owner, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			got = append(got, e.ID)
		}
		if len(page) < 2 {
			break
		}
		last := page[len(page)-1]
		after = &models.Keyset{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	want := []uuid.UUID{ids[4], ids[3], ids[2], ids[1], ids[0]}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("pages: %v, want %v", got, want)
	}
	first, err := store.List(ctx, db, "user", owner, &models.Keyset{CreatedAt: now.Add(time.Second), ID: ids[1]}, 10)
	if err != nil || len(first) != 1 || string(first[0].Data) != `{"reason": "x"}` || *first[0].UserAgent != ua {
		t.Errorf("the oldest event: %+v, %v", first, err)
	}
	// Older than now + 2.5 s: three of the owner's and the other owner's.
	if n, err := store.Purge(ctx, db, now.Add(2500*time.Millisecond), 2); err != nil || n != 4 {
		t.Errorf("Purge: %d, %v, want 4", n, err)
	}
	if n := count(t, db, `SELECT count(*) FROM security_events`); n != 2 {
		t.Errorf("%d events left, want 2", n)
	}
}

func TestAccountList(t *testing.T) {
	t.Parallel()
	db := pgtest.New(t)
	ctx, store, now := testCtx(t), models.NewAccountStore(models.UserTables).Prepared(db), testNow()
	var emails []string
	for i, name := range []string{"ann", "bob_smith", "carl%", "dora", "eve"} {
		a := newAccount(t, name+"@x.io")
		a.CreatedAt = now.Add(time.Duration(i) * time.Second)
		switch name {
		case "dora":
			a.IsActive = false
		case "eve":
			a.DeletedAt = &now
		}
		if err := store.Create(ctx, db, a); err != nil {
			t.Fatal(err)
		}
		emails = append(emails, a.Email)
	}
	for _, tt := range []struct {
		query, status string
		want          []string
	}{
		{"", models.StatusAll, []string{emails[4], emails[3], emails[2], emails[1], emails[0]}},
		{"", "", []string{emails[4], emails[3], emails[2], emails[1], emails[0]}},
		{"", models.StatusActive, []string{emails[2], emails[1], emails[0]}},
		{"", models.StatusInactive, []string{emails[3]}},
		{"", models.StatusDeleted, []string{emails[4]}},
		{"BOB", models.StatusAll, []string{emails[1]}},
		{"_", models.StatusAll, []string{emails[1]}}, // literal underscore
		{"%", models.StatusAll, []string{emails[2]}}, // literal percent
		{`\`, models.StatusAll, nil},                 // literal backslash
		{"o_s", models.StatusAll, nil},               // _ is no wildcard
	} {
		got := listAll(t, db, store, models.AccountFilter{Query: tt.query, Status: tt.status})
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("query %q status %q: %v, want %v", tt.query, tt.status, got, tt.want)
		}
	}
}

// listAll pages through f two at a time.
func listAll(t *testing.T, db models.DB, store *models.AccountStore, f models.AccountFilter) []string {
	t.Helper()
	var out []string
	f.Limit = 2
	for range 10 {
		page, err := store.List(testCtx(t), db, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range page {
			out = append(out, a.Email)
		}
		if len(page) < f.Limit {
			return out
		}
		last := page[len(page)-1]
		f.After = &models.Keyset{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	t.Fatal("no end to the pages")
	return nil
}
