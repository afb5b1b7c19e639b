// Package models holds the domain types of actionkit and their PostgreSQL
// stores, together with the schema migrations and the small data-layer base
// the stores share (Open, Transact, the DB interface).
//
// Stores take a DB, which both *sqlx.DB and *sqlx.Tx satisfy, so the same
// store method runs inside or outside a transaction. They report storage
// outcomes with the sentinels ErrNotFound, ErrDuplicate and ErrConflict and
// never with API error codes: the calling action decides what "not found"
// means to a client.
//
// AccountStore and SessionStore serve every owner type (users, admins)
// through an OwnerTables value; PostStore serves posts. Their SQL text is
// built once, when the store is constructed. Callers pass the current time
// (UTC, truncated to microseconds) and stores return timestamps in UTC.
//
// The schema lives in the embedded migrations directory and is applied with
// Migrate, which holds a PostgreSQL advisory lock so that several processes
// starting at once apply it exactly once.
package models
