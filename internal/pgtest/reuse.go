package pgtest

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lib/pq"
)

const (
	// freePrefix starts the name of every emptied database waiting to be
	// handed out again; the template's migrations hash and a random suffix
	// follow.
	freePrefix = "actionkit_free_"
	// maxFree caps the emptied databases kept on the server; a database
	// released beyond it is dropped.
	maxFree = 16
	// terminateWaitMillis bounds the wait for a released database's
	// remaining sessions to end.
	terminateWaitMillis = 5000
)

// pool holds what this process learnt about reusing the template's clones.
type pool struct {
	// mu guards pristine and noReuse, learnt from the first database
	// this process hands out.
	mu       sync.Mutex
	pristine *pristine
	// noReuse is set when the template's clones cannot be emptied and
	// reused: every database is then created and dropped.
	noReuse bool
	// max caps the emptied databases kept on the server; 0 means maxFree.
	max int
	// prefix starts the names of this pool's emptied databases.
	prefix string
}

// pristine is what a database fresh from the template looks like, and how to
// bring a used one back to it.
type pristine struct {
	// fingerprint hashes the schema: relations, columns, constraints,
	// indexes, triggers, functions, types, settings and the migrations
	// table's rows.
	fingerprint string
	// reset empties every table but the migrations table, children
	// before the tables they reference, and restarts every sequence.
	reset string
	// empty answers true when every table reset empties has no row.
	empty string
}

// fingerprintSQL hashes everything about a database's schema that a test
// could change and a later test could notice. A database goes back to the
// pool only when its hash after the reset equals a fresh clone's.
const fingerprintSQL = `
WITH ns AS (
	SELECT oid, nspname FROM pg_namespace
	WHERE nspname <> 'information_schema' AND nspname NOT LIKE 'pg\_%'
), parts(x) AS (
	SELECT 'schema ' || nspname FROM ns
	UNION ALL
	SELECT format('relation %s %s %s %s %s %s', c.oid::regclass, c.relkind, c.relpersistence,
		c.relrowsecurity, c.relacl, c.relowner::regrole)
	FROM pg_class c JOIN ns ON ns.oid = c.relnamespace
	UNION ALL
	SELECT format('column %s %s %s %s %s', a.attrelid::regclass, a.attname,
		format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid))
	FROM pg_attribute a
	JOIN pg_class c ON c.oid = a.attrelid JOIN ns ON ns.oid = c.relnamespace
	LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
	WHERE a.attnum > 0 AND NOT a.attisdropped
	UNION ALL
	SELECT format('constraint %s %s %s', co.conrelid::regclass, co.conname, pg_get_constraintdef(co.oid))
	FROM pg_constraint co JOIN ns ON ns.oid = co.connamespace
	UNION ALL
	SELECT 'index ' || pg_get_indexdef(i.indexrelid)
	FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN ns ON ns.oid = c.relnamespace
	UNION ALL
	SELECT format('view %s %s', c.oid::regclass, pg_get_viewdef(c.oid))
	FROM pg_class c JOIN ns ON ns.oid = c.relnamespace WHERE c.relkind IN ('v', 'm')
	UNION ALL
	SELECT format('trigger %s %s', pg_get_triggerdef(tg.oid), tg.tgenabled)
	FROM pg_trigger tg WHERE NOT tg.tgisinternal
	UNION ALL
	SELECT format('rule %s %s', r.ev_class::regclass, r.rulename)
	FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class JOIN ns ON ns.oid = c.relnamespace
	WHERE r.rulename <> '_RETURN'
	UNION ALL
	SELECT format('policy %s %s', pol.polrelid::regclass, pol.polname) FROM pg_policy pol
	UNION ALL
	SELECT format('function %s %s', p.oid::regprocedure, md5(p.prosrc))
	FROM pg_proc p JOIN ns ON ns.oid = p.pronamespace
	UNION ALL
	SELECT format('type %s %s', t.oid::regtype, t.typtype)
	FROM pg_type t JOIN ns ON ns.oid = t.typnamespace
	UNION ALL
	SELECT format('enum %s %s %s', e.enumtypid::regtype, e.enumlabel, e.enumsortorder) FROM pg_enum e
	UNION ALL
	SELECT format('extension %s %s', extname, extversion) FROM pg_extension
	UNION ALL
	SELECT 'publication ' || pubname FROM pg_publication
	UNION ALL
	SELECT 'event trigger ' || evtname FROM pg_event_trigger
	UNION ALL
	SELECT 'large objects ' || count(*) FROM pg_largeobject_metadata
	UNION ALL
	SELECT format('setting %s', s.setconfig)
	FROM pg_db_role_setting s JOIN pg_database db ON db.oid = s.setdatabase
	WHERE db.datname = current_database()
	UNION ALL
	SELECT format('migration %s %s', version, dirty) FROM schema_migrations
)
SELECT md5(string_agg(x, E'\n' ORDER BY x)) FROM parts`

// tablesSQL lists the tables of the user's schemas, quoted as SQL wants them.
const tablesSQL = `
SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
ORDER BY 1`

// foreignKeysSQL lists each foreign key as the referencing and the
// referenced table.
const foreignKeysSQL = `
SELECT co.conrelid::regclass::text, co.confrelid::regclass::text
FROM pg_constraint co JOIN pg_namespace n ON n.oid = co.connamespace
WHERE co.contype = 'f' AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'`

// sequencesSQL lists the sequences of the user's schemas.
const sequencesSQL = `
SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'S' AND n.nspname <> 'information_schema' AND n.nspname NOT LIKE 'pg\_%'
ORDER BY 1`

// freePrefixOf returns the name prefix of the emptied databases cloned from
// template.
func freePrefixOf(template string) string {
	return freePrefix + strings.TrimPrefix(template, templatePrefix) + "_"
}

// learn records, from database name fresh from the template, what a reset
// database must look like. It runs once per process; a schema whose fresh
// clone already holds rows outside the migrations table is never reused.
func (s *server) learn(ctx context.Context, name string) error {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	if s.pool.pristine != nil || s.pool.noReuse {
		return nil
	}
	db, err := sql.Open("postgres", s.dsn(name))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	p, err := readPristine(ctx, db)
	switch {
	case errors.Is(err, errNotPristine):
		s.pool.noReuse = true
		return nil
	case err != nil:
		return fmt.Errorf("read the fresh schema of %s: %w", name, err)
	}
	s.pool.pristine = p
	return nil
}

// errNotPristine reports a fresh clone that already has rows to keep.
var errNotPristine = errors.New("the fresh clone holds rows")

// readPristine builds the reset of the database db is open on, and checks
// that db is as a fresh clone must be: every table but the migrations table
// empty.
func readPristine(ctx context.Context, db *sql.DB) (*pristine, error) {
	var p pristine
	if err := db.QueryRowContext(ctx, fingerprintSQL).Scan(&p.fingerprint); err != nil {
		return nil, fmt.Errorf("fingerprint: %w", err)
	}
	tables, err := texts(ctx, db, tablesSQL)
	if err != nil {
		return nil, err
	}
	tables = slices.DeleteFunc(tables, func(t string) bool { return t == "schema_migrations" })
	keys, err := db.QueryContext(ctx, foreignKeysSQL)
	if err != nil {
		return nil, err
	}
	var edges [][2]string
	for keys.Next() {
		var from, to string
		if err := keys.Scan(&from, &to); err != nil {
			keys.Close()
			return nil, err
		}
		edges = append(edges, [2]string{from, to})
	}
	if err := errors.Join(keys.Err(), keys.Close()); err != nil {
		return nil, err
	}
	order, ok := childrenFirst(tables, edges)
	if !ok {
		return nil, errNotPristine
	}
	sequences, err := texts(ctx, db, sequencesSQL)
	if err != nil {
		return nil, err
	}
	var reset, empty strings.Builder
	for _, t := range order {
		fmt.Fprintf(&reset, "DELETE FROM %s;\n", t)
	}
	for _, q := range sequences {
		fmt.Fprintf(&reset, "ALTER SEQUENCE %s RESTART;\n", q)
	}
	empty.WriteString("SELECT true")
	for _, t := range tables {
		fmt.Fprintf(&empty, " AND NOT EXISTS (SELECT FROM %s)", t)
	}
	p.reset, p.empty = reset.String(), empty.String()
	var isEmpty bool
	if err := db.QueryRowContext(ctx, p.empty).Scan(&isEmpty); err != nil {
		return nil, err
	}
	if !isEmpty {
		return nil, errNotPristine
	}
	return &p, nil
}

// texts returns the single text column of the rows query answers with
// args.
func texts(ctx context.Context, db *sql.DB, query string, args ...any) ([]string, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// childrenFirst orders tables so that each comes before every table it
// references, which is the order in which DELETE empties them without
// breaking a foreign key. It reports false when the references form a cycle
// through more than one table.
func childrenFirst(tables []string, edges [][2]string) ([]string, bool) {
	// referencedBy counts, for each table, the other tables that still
	// reference it and are not yet placed.
	referencedBy := make(map[string]int, len(tables))
	refs := make(map[string][]string, len(tables))
	for _, e := range edges {
		from, to := e[0], e[1]
		if from == to {
			continue // one DELETE empties a table that references itself
		}
		referencedBy[to]++
		refs[from] = append(refs[from], to)
	}
	var order, ready []string
	for _, t := range tables {
		if referencedBy[t] == 0 {
			ready = append(ready, t)
		}
	}
	for len(ready) > 0 {
		t := ready[0]
		ready = ready[1:]
		order = append(order, t)
		for _, to := range refs[t] {
			if referencedBy[to]--; referencedBy[to] == 0 {
				ready = append(ready, to)
			}
		}
	}
	return order, len(order) == len(tables)
}

// claim renames one emptied database of the pool to name and reports
// whether it found one. Two processes may race for the same database: the
// rename lets exactly one have it.
func (s *server) claim(ctx context.Context, name string) bool {
	if !s.reusable() {
		return false
	}
	free, err := texts(ctx, s.admin, `SELECT datname FROM pg_database
		WHERE starts_with(datname, $1) AND datallowconn
		ORDER BY random() LIMIT 8`, s.pool.prefix)
	if err != nil {
		return false
	}
	for _, f := range free {
		q := "ALTER DATABASE " + pq.QuoteIdentifier(f) + " RENAME TO " + pq.QuoteIdentifier(name)
		if _, err := s.admin.ExecContext(ctx, q); err == nil {
			return true
		}
	}
	return false
}

// reusable reports whether databases cloned from the template go back to
// the pool.
func (s *server) reusable() bool {
	s.pool.mu.Lock()
	defer s.pool.mu.Unlock()
	return !s.pool.noReuse
}

// release empties database name and puts it back in the pool under the
// name it returns. It returns "", with the reason when there is one, when
// the caller must drop the database instead: its schema changed, a session
// would not end, or the pool is full.
func (s *server) release(ctx context.Context, name string) (string, error) {
	s.pool.mu.Lock()
	p := s.pool.pristine
	s.pool.mu.Unlock()
	if p == nil {
		return "", nil
	}
	prefix := s.pool.prefix
	var free int
	if err := s.admin.QueryRowContext(ctx,
		`SELECT count(*) FROM pg_database WHERE starts_with(datname, $1)`, prefix).Scan(&free); err != nil {
		return "", err
	}
	if limit := cmp.Or(s.pool.max, maxFree); free >= limit {
		return "", nil
	}
	db, err := sql.Open("postgres", s.dsn(name))
	if err != nil {
		return "", err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	var pid int
	if err := conn.QueryRowContext(ctx, `SELECT pg_backend_pid()`).Scan(&pid); err != nil {
		return "", err
	}
	// From here on only this connection can change the database: no new
	// session may start, and every other one has ended.
	quoted := pq.QuoteIdentifier(name)
	if _, err := s.admin.ExecContext(ctx, "ALTER DATABASE "+quoted+" WITH ALLOW_CONNECTIONS false"); err != nil {
		return "", err
	}
	// pg_terminate_backend waits for each session to end; one that ended
	// on its own meanwhile makes it answer false, so what counts is
	// whether any remains afterwards.
	if _, err := s.admin.ExecContext(ctx, `SELECT pg_terminate_backend(pid, $3)
		FROM pg_stat_activity WHERE datname = $1 AND pid <> $2`, name, pid, terminateWaitMillis); err != nil {
		return "", err
	}
	var remaining int
	if err := s.admin.QueryRowContext(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = $1 AND pid <> $2`, name, pid).Scan(&remaining); err != nil {
		return "", err
	}
	if remaining > 0 {
		return "", errors.New("a session of the test would not end")
	}
	if _, err := conn.ExecContext(ctx, p.reset); err != nil {
		return "", fmt.Errorf("reset: %w", err)
	}
	var fingerprint string
	var empty bool
	if err := conn.QueryRowContext(ctx, fingerprintSQL).Scan(&fingerprint); err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	if err := conn.QueryRowContext(ctx, p.empty).Scan(&empty); err != nil {
		return "", fmt.Errorf("check emptied: %w", err)
	}
	if fingerprint != p.fingerprint || !empty {
		return "", nil // the test changed the schema: drop it
	}
	if err := errors.Join(conn.Close(), db.Close()); err != nil {
		return "", err
	}
	// The rename below refuses while a session is in the database and
	// checks again only every 100 ms; the closed connection's session
	// ends within milliseconds, so wait for that first.
	if err := s.waitGone(ctx, pid); err != nil {
		return "", err
	}
	freeName := prefix + randomHexString(8)
	// The rename waits for the closed connection's session to end and
	// fails if any other session is there.
	if _, err := s.admin.ExecContext(ctx, "ALTER DATABASE "+quoted+" RENAME TO "+pq.QuoteIdentifier(freeName)); err != nil {
		return "", err
	}
	if _, err := s.admin.ExecContext(ctx, "ALTER DATABASE "+pq.QuoteIdentifier(freeName)+" WITH ALLOW_CONNECTIONS true"); err != nil {
		// Renamed but closed to connections, so never claimed: drop it.
		return "", errors.Join(err, s.drop(ctx, freeName))
	}
	return freeName, nil
}

// waitGone waits, up to terminateWaitMillis, until no session has process
// id pid.
func (s *server) waitGone(ctx context.Context, pid int) error {
	deadline := time.Now().Add(terminateWaitMillis * time.Millisecond)
	for {
		var there bool
		if err := s.admin.QueryRowContext(ctx, `SELECT EXISTS (SELECT FROM pg_stat_activity WHERE pid = $1)`, pid).Scan(&there); err != nil {
			return err
		}
		if !there {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("the emptying session would not end")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// sweepFree drops the emptied databases cloned from other templates (their
// migrations are gone from this tree) and the test databases a process left
// closed to connections when it died while releasing them. Dropping one
// that another process is releasing at that moment only makes its release
// fail, and a failed release drops the database anyway.
func (s *server) sweepFree(ctx context.Context) error {
	names, err := texts(ctx, s.admin, `SELECT datname FROM pg_database
		WHERE (starts_with(datname, $1) AND NOT starts_with(datname, $2))
		OR (starts_with(datname, $3) AND NOT datallowconn)`, freePrefix, s.pool.prefix, testPrefix)
	if err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		errs = append(errs, s.drop(ctx, n))
	}
	return errors.Join(errs...)
}
