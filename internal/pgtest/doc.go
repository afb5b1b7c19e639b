// Package pgtest gives each test its own PostgreSQL database with the
// actionkit schema already applied.
//
// Every database is cloned (CREATE DATABASE ... TEMPLATE) from a template
// that holds the migrated schema. The template is named after a hash of the
// embedded migrations, so editing a migration produces a new template, and it
// is built once, under an advisory lock, even when many test binaries start at
// the same time. Cloning a template takes milliseconds, so tests can each have
// a database and run in parallel.
//
// The server comes from PGTEST_URL (default
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable); its user must
// be allowed to create databases. When the server is unreachable the test is
// skipped, or fails if CI=true.
package pgtest
