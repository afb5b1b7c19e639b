package pgtest

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lib/pq"

	"github.com/actionkit/actionkit/models"

	"github.com/actionkit/actionkit/internal/testenv"
)

// currentDatabase returns the name of the database db is connected to.
func currentDatabase(t *testing.T, db interface {
	GetContext(context.Context, any, string, ...any) error
}) string {
	t.Helper()
	var name string
	if err := db.GetContext(t.Context(), &name, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	return name
}

// databaseOf returns the database name of a DSN.
func databaseOf(t *testing.T, dsn string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// TestNewIsolatedAndDropped runs parallel subtests that each get databases,
// then checks, once the subtests and their cleanups are done, that every
// database was distinct and no longer has the name it was handed out under
// (dropped, or emptied and renamed into the pool).
func TestNewIsolatedAndDropped(t *testing.T) {
	var mu sync.Mutex
	var names []string
	record := func(name string) {
		mu.Lock()
		defer mu.Unlock()
		names = append(names, name)
	}
	t.Run("group", func(t *testing.T) {
		for _, sub := range []string{"a", "b", "c"} {
			t.Run(sub, func(t *testing.T) {
				t.Parallel()
				db := New(t)
				record(currentDatabase(t, db))
				// Each database has the schema and only its own rows.
				if _, err := db.ExecContext(t.Context(), `INSERT INTO users (id, email, password, salt)
					VALUES (gen_random_uuid(), $1, 'h', 's')`, sub+"@x.io"); err != nil {
					t.Fatalf("insert: %v", err)
				}
				var emails []string
				if err := db.SelectContext(t.Context(), &emails, `SELECT email FROM users`); err != nil {
					t.Fatal(err)
				}
				if len(emails) != 1 || emails[0] != sub+"@x.io" {
					t.Errorf("users: got %v, want only %s@x.io", emails, sub)
				}
				record(databaseOf(t, NewEmptyDSN(t)))
			})
		}
	})
	if t.Failed() {
		return
	}
	if len(names) == 0 {
		t.Skip("every subtest was skipped")
	}
	if len(names) != 6 {
		t.Fatalf("databases recorded: got %d, want 6", len(names))
	}
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			t.Errorf("database %s handed out twice", name)
		}
		seen[name] = true
		if !strings.HasPrefix(name, testPrefix) {
			t.Errorf("database name: got %q, want prefix %q", name, testPrefix)
		}
	}
	var left int
	err := shared.admin.QueryRowContext(t.Context(),
		`SELECT count(*) FROM pg_database WHERE datname = ANY($1)`, pq.Array(names)).Scan(&left)
	if err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Errorf("databases left after cleanup: got %d, want 0", left)
	}
}

func TestTemplate(t *testing.T) {
	NewDSN(t) // makes sure the template exists
	want := templatePrefix + models.MigrationsHash()[:12]
	if shared.template != want {
		t.Errorf("template name: got %q, want %q", shared.template, want)
	}
	var isTemplate, allowConn bool
	err := shared.admin.QueryRowContext(t.Context(),
		`SELECT datistemplate, datallowconn FROM pg_database WHERE datname = $1`, want).Scan(&isTemplate, &allowConn)
	if err != nil {
		t.Fatalf("look up template: %v", err)
	}
	if !isTemplate || allowConn {
		t.Errorf("template flags: got is_template=%v allow_connections=%v, want true, false", isTemplate, allowConn)
	}
	var sessions int
	if err := shared.admin.QueryRowContext(t.Context(),
		`SELECT count(*) FROM pg_stat_activity WHERE datname = $1`, want).Scan(&sessions); err != nil {
		t.Fatal(err)
	}
	if sessions != 0 {
		t.Errorf("sessions on the template: got %d, want 0", sessions)
	}
}

// TestEnsureTemplate runs ensureTemplate on a template of its own: it builds
// it, finds it on a second call (another process), and rebuilds one left
// half-built by a process that died.
func TestEnsureTemplate(t *testing.T) {
	NewDSN(t) // connects shared
	s := &server{base: shared.base, admin: shared.admin}
	s.template = "actionkit_tmpl_t" + randomHex(t, 6)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	t.Cleanup(func() {
		ctx := context.Background()
		q := "ALTER DATABASE " + pq.QuoteIdentifier(s.template) + " IS_TEMPLATE false"
		if _, err := s.admin.ExecContext(ctx, q); err != nil {
			t.Errorf("unmark template: %v", err)
		}
		if err := s.drop(ctx, s.template); err != nil {
			t.Error(err)
		}
	})
	isTemplate := func() bool {
		var got bool
		err := s.admin.QueryRowContext(ctx, `SELECT datistemplate FROM pg_database WHERE datname = $1`, s.template).Scan(&got)
		if err != nil {
			t.Fatalf("look up %s: %v", s.template, err)
		}
		return got
	}

	// Half-built: the database exists, is not a template and has no schema.
	if _, err := s.admin.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(s.template)); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := s.ensureTemplate(ctx); err != nil {
			t.Fatalf("ensureTemplate call %d: got %v, want nil", i+1, err)
		}
		if !isTemplate() {
			t.Fatalf("after call %d: got not a template, want a template", i+1)
		}
	}
	// The rebuilt template carries the schema into its clones.
	db, err := models.Open(ctx, s.create(t, s.template), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version int
	if err := db.GetContext(ctx, &version, `SELECT version FROM schema_migrations WHERE NOT dirty`); err != nil || version < 1 {
		t.Errorf("clone of the rebuilt template: got version %d (%v), want a clean migrated schema", version, err)
	}
}

func BenchmarkNewDSN(b *testing.B) {
	NewDSN(b) // template creation is not measured
	b.ResetTimer()
	for b.Loop() {
		NewDSN(b)
	}
}

func TestRequire(t *testing.T) {
	down := errors.New("connection refused")
	tests := []struct {
		name      string
		s         server
		ci        string
		wantSkip  bool
		wantFatal bool
	}{
		{"ready", server{}, "", false, false},
		{"unreachable", server{unreachable: true, err: down}, "", true, false},
		{"unreachable in CI", server{unreachable: true, err: down}, "true", false, true},
		{"broken migration", server{err: errors.New("syntax error")}, "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("CI", tt.ci)
			skipped, fatal := testenv.Record(t, func(tb testing.TB) { tt.s.require(tb) })
			if got := skipped != ""; got != tt.wantSkip {
				t.Errorf("skipped: got %v (%q), want %v", got, skipped, tt.wantSkip)
			}
			if got := fatal != ""; got != tt.wantFatal {
				t.Errorf("fatal: got %v (%q), want %v", got, fatal, tt.wantFatal)
			}
		})
	}
}
