package webhooks

import (
	"regexp"
	"slices"
	"testing"

	"github.com/actionkit/actionkit/internal/pgtest"
)

// TestEveryStoredEventTypeCanBeSubscribedTo: each type the security_events
// table accepts (its CHECK constraint, read from a migrated database) is
// in EventTypes, so a type added by a migration cannot be forgotten here.
func TestEveryStoredEventTypeCanBeSubscribedTo(t *testing.T) {
	db := pgtest.New(t)
	var def string
	if err := db.GetContext(t.Context(), &def, `SELECT pg_get_constraintdef(oid) FROM pg_constraint
		WHERE conrelid = 'security_events'::regclass AND conname = 'security_events_type_check'`); err != nil {
		t.Fatal(err)
	}
	types := regexp.MustCompile(`'([a-z_]+)'`).FindAllStringSubmatch(def, -1)
	if len(types) < 20 {
		t.Fatalf("read %d types from %s", len(types), def)
	}
	for _, m := range types {
		if !slices.Contains(EventTypes, m[1]) {
			t.Errorf("security_events accepts %q, which a webhook cannot subscribe to (EventTypes)", m[1])
		}
	}
}

// TestCheckEvents: a list of known types (repeats dropped) or ["*"] alone.
func TestCheckEvents(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want []string
		ok   bool
	}{
		{"types", []string{"login", "register", "login"}, []string{"login", "register"}, true},
		{"every type", []string{"*"}, []string{"*"}, true},
		{"empty", []string{}, nil, false},
		{"unknown", []string{"login", "nope"}, nil, false},
		{"star among types", []string{"*", "login"}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := checkEvents(tc.in)
			if ok != tc.ok || !slices.Equal(got, tc.want) {
				t.Errorf("got %v %v, want %v %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}
