// Package pgtest gives each test its own PostgreSQL database with the
// actionkit schema already applied.
//
// Every database is cloned (CREATE DATABASE ... TEMPLATE) from a template
// that holds the migrated schema. The template is named after a hash of the
// embedded migrations, so editing a migration produces a new template, and it
// is built once, under an advisory lock, even when many test binaries start at
// the same time.
//
// Cloning writes the whole template (about 9 MB) and takes about half a
// second, so a database is reused rather than dropped when its test ends:
// with connections to it closed and every other session ended, its tables
// are emptied and its sequences restarted, and if its schema (relations,
// columns, constraints, indexes, triggers, functions, settings, migration
// rows) then hashes as a fresh clone's, it is renamed actionkit_free_<hash>_...
// and waits, across test processes and runs, for the next test, which claims
// it by renaming it (only one claimant's rename succeeds). A test that
// changed the schema gets its database dropped, as does one released when
// 16 are already waiting. Databases for the migrations' own tests
// (NewEmptyDSN) are always created and dropped. Each process's first use
// drops the emptied databases of other templates and any test database a
// dead process left closed to connections in the middle of its release.
//
// The server comes from PGTEST_URL (default
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable); its user must
// be allowed to create databases. When the server is unreachable the test is
// skipped, or fails if CI=true.
package pgtest
