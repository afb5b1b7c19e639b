package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lib/pq"
)

// isolatedPool returns a server that shares the process's connection to
// PostgreSQL and clones the shared template, but keeps its emptied
// databases under a prefix of its own, outside actionkit_free_, so that no
// other test or process claims or sweeps them. Every database left under
// that prefix is dropped when t ends.
func isolatedPool(t *testing.T) *server {
	t.Helper()
	NewDSN(t) // connects shared and builds the template
	s := &server{base: shared.base, admin: shared.admin, template: "actionkit_tmpl_r" + randomHex(t, 6),
		pool: &pool{prefix: "actionkit_isolated_" + randomHex(t, 6) + "_"}}
	t.Cleanup(func() {
		ctx := context.Background()
		names, err := texts(ctx, s.admin, `SELECT datname FROM pg_database WHERE starts_with(datname, $1)`, s.pool.prefix)
		if err != nil {
			t.Error(err)
		}
		for _, n := range names {
			if err := s.drop(ctx, n); err != nil {
				t.Error(err)
			}
		}
	})
	return s
}

// cloneShared gives s database name, fresh from the shared template (from
// the shared pool when it has one), learns from it what a fresh clone is,
// and drops it when t ends if it is still there.
func (s *server) cloneShared(t *testing.T, name string) {
	t.Helper()
	ctx := t.Context()
	if !shared.claim(ctx, name) {
		if _, err := s.admin.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(name)+" TEMPLATE "+pq.QuoteIdentifier(shared.template)); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if err := s.drop(context.Background(), name); err != nil {
			t.Error(err)
		}
	})
	if err := s.learn(ctx, name); err != nil {
		t.Fatal(err)
	}
	if s.pool.pristine == nil {
		t.Fatal("learn: no pristine state read from a fresh clone")
	}
}

// open returns a connection pool to database name, closed when t ends.
func (s *server) open(t *testing.T, name string) *sql.DB {
	t.Helper()
	db, err := sql.Open("postgres", s.dsn(name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func exec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(t.Context(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// TestReleaseEmptiesTheDatabase fills a database's tables, children of
// foreign keys included, releases it while a connection of the test is still
// open, and finds it back in the pool: empty, with the template's schema and
// migrations, that connection ended, and claimable under a new name.
func TestReleaseEmptiesTheDatabase(t *testing.T) {
	s := isolatedPool(t)
	name := testPrefix + randomHex(t, 8)
	s.cloneShared(t, name)
	db := s.open(t, name)
	exec(t, db, `INSERT INTO users (id, email, password, salt) VALUES (gen_random_uuid(), 'a@x.io', 'h', 's')`)
	exec(t, db, `INSERT INTO user_sessions (id, user_id, refresh_token_hash, expires_at, chain_id, login_at)
		SELECT gen_random_uuid(), id, repeat('ab', 32), now(), gen_random_uuid(), now() FROM users`)
	exec(t, db, `INSERT INTO posts (id, user_id, title) SELECT gen_random_uuid(), id, 't' FROM users`)
	held, err := db.Conn(t.Context()) // a session the test forgot to close
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()

	free, err := s.release(t.Context(), name)
	if err != nil || free == "" {
		t.Fatalf("release: got %q, %v, want a free name", free, err)
	}
	if err := held.PingContext(t.Context()); err == nil {
		t.Error("the test's open session survived the release")
	}
	var left int
	if err := s.admin.QueryRowContext(t.Context(), `SELECT count(*) FROM pg_database WHERE datname = $1`, name).Scan(&left); err != nil || left != 0 {
		t.Errorf("databases named %s after the release: got %d (%v), want 0", name, left, err)
	}

	again := testPrefix + randomHex(t, 8)
	if !s.claim(t.Context(), again) {
		t.Fatal("claim: found no free database after a release")
	}
	t.Cleanup(func() {
		if err := s.drop(context.Background(), again); err != nil {
			t.Error(err)
		}
	})
	reused := s.open(t, again)
	for _, table := range []string{"users", "user_sessions", "posts"} {
		var n int
		if err := reused.QueryRowContext(t.Context(), `SELECT count(*) FROM `+table).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s in the reused database: got %d rows (%v), want 0", table, n, err)
		}
	}
	var migrations int
	if err := reused.QueryRowContext(t.Context(), `SELECT count(*) FROM schema_migrations WHERE NOT dirty`).Scan(&migrations); err != nil || migrations != 1 {
		t.Errorf("schema_migrations in the reused database: got %d clean rows (%v), want 1", migrations, err)
	}
	var fingerprint string
	if err := reused.QueryRowContext(t.Context(), fingerprintSQL).Scan(&fingerprint); err != nil || fingerprint != s.pool.pristine.fingerprint {
		t.Errorf("schema of the reused database: got %s (%v), want the fresh clone's %s", fingerprint, err, s.pool.pristine.fingerprint)
	}
}

// TestReleaseDropsChangedSchemas changes a database's schema in the ways a
// test can (a table, a column, a trigger, a database setting, a migration
// row) and checks that release refuses each, leaving the database to be
// dropped.
func TestReleaseDropsChangedSchemas(t *testing.T) {
	changes := map[string]string{
		"table":     `CREATE TABLE kept (v int)`,
		"column":    `ALTER TABLE posts ADD COLUMN extra int`,
		"index":     `CREATE INDEX posts_title_idx ON posts (title)`,
		"trigger":   `CREATE FUNCTION hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$; CREATE TRIGGER hold BEFORE INSERT ON posts FOR EACH ROW EXECUTE FUNCTION hold()`,
		"setting":   `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET work_mem = %L', current_database(), '8MB'); END $$`,
		"migration": `UPDATE schema_migrations SET dirty = true`,
		"default":   `ALTER TABLE posts ALTER COLUMN title SET DEFAULT 'x'`,
	}
	s := isolatedPool(t)
	for what, change := range changes {
		t.Run(what, func(t *testing.T) {
			t.Parallel()
			name := testPrefix + randomHex(t, 8)
			s.cloneShared(t, name)
			exec(t, s.open(t, name), change)
			free, err := s.release(t.Context(), name)
			if free != "" {
				t.Errorf("release after a changed %s: got %s, %v, want the database left to drop", what, free, err)
			}
		})
	}
}

// TestClaimHandsOutOnce has many callers claim at once from a pool of one
// database: exactly one gets it.
func TestClaimHandsOutOnce(t *testing.T) {
	s := isolatedPool(t)
	name := testPrefix + randomHex(t, 8)
	s.cloneShared(t, name)
	if free, err := s.release(t.Context(), name); free == "" {
		t.Fatalf("release: %v", err)
	}
	const callers = 8
	names := make([]string, callers)
	got := make([]bool, callers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range callers {
		names[i] = testPrefix + randomHex(t, 8)
		wg.Go(func() {
			<-start
			got[i] = s.claim(t.Context(), names[i])
		})
	}
	close(start)
	wg.Wait()
	for i, ok := range got {
		if ok {
			t.Cleanup(func() {
				if err := s.drop(context.Background(), names[i]); err != nil {
					t.Error(err)
				}
			})
		}
	}
	if n := len(slices.DeleteFunc(slices.Clone(got), func(ok bool) bool { return !ok })); n != 1 {
		t.Errorf("claims that got the one free database: got %d, want 1", n)
	}
}

// TestReleaseKeepsThePoolBounded releases a database into a pool already
// holding as many as it may: the pool does not grow.
func TestReleaseKeepsThePoolBounded(t *testing.T) {
	s := isolatedPool(t)
	s.pool.max = 3
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	name := testPrefix + randomHex(t, 8)
	s.cloneShared(t, name)
	// Stand-ins for a full pool: empty databases under the pool's prefix,
	// closed to connections so that nothing claims them.
	for range s.pool.max {
		filler := s.pool.prefix + randomHex(t, 8)
		if _, err := s.admin.ExecContext(ctx, "CREATE DATABASE "+pq.QuoteIdentifier(filler)+" TEMPLATE template0 ALLOW_CONNECTIONS false"); err != nil {
			t.Fatal(err)
		}
	}
	if free, err := s.release(ctx, name); free != "" || err != nil {
		t.Errorf("release into a full pool: got %q, %v, want the database left to drop", free, err)
	}
}

func TestChildrenFirst(t *testing.T) {
	tables := []string{"users", "sessions", "posts", "comments", "tree"}
	edges := [][2]string{
		{"sessions", "users"}, {"posts", "users"}, {"comments", "posts"}, {"comments", "users"},
		{"tree", "tree"}, // a table referencing itself
	}
	order, ok := childrenFirst(tables, edges)
	if !ok || len(order) != len(tables) {
		t.Fatalf("childrenFirst: got %v, %v, want every table", order, ok)
	}
	for _, e := range edges {
		if e[0] != e[1] && slices.Index(order, e[0]) > slices.Index(order, e[1]) {
			t.Errorf("order %v deletes %s before %s, which references it", order, e[1], e[0])
		}
	}
	if _, ok := childrenFirst([]string{"a", "b"}, [][2]string{{"a", "b"}, {"b", "a"}}); ok {
		t.Error("childrenFirst of a two-table cycle: got ok, want false")
	}
}

// TestSweepDropsLeftovers leaves what dead processes leave behind, an
// emptied database of another template and a test database closed to
// connections mid-release, beside a live test database and a free one of
// this pool: the sweep drops exactly the first two.
func TestSweepDropsLeftovers(t *testing.T) {
	s := isolatedPool(t)
	ctx := t.Context()
	names := map[string]string{
		"other template": freePrefix + "0123456789ab_" + randomHex(t, 8),
		"closed test":    testPrefix + randomHex(t, 8),
		"live test":      testPrefix + randomHex(t, 8),
		"this pool's":    s.pool.prefix + randomHex(t, 8),
	}
	for what, n := range names {
		allow := what != "closed test"
		q := fmt.Sprintf("CREATE DATABASE %s TEMPLATE template0 ALLOW_CONNECTIONS %v", pq.QuoteIdentifier(n), allow)
		if _, err := s.admin.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := s.drop(context.Background(), n); err != nil {
				t.Error(err)
			}
		})
	}
	if err := s.sweepFree(ctx); err != nil {
		t.Fatal(err)
	}
	for what, n := range names {
		var there int
		if err := s.admin.QueryRowContext(ctx, `SELECT count(*) FROM pg_database WHERE datname = $1`, n).Scan(&there); err != nil {
			t.Fatal(err)
		}
		want := 1
		if what == "other template" || what == "closed test" {
			want = 0
		}
		if there != want {
			t.Errorf("%s database after the sweep: got %d, want %d", what, there, want)
		}
	}
}
