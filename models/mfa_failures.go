package models

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"
)

// MFAFailureStore keeps the second-factor budget of the owners of one
// type: the count of their consecutive failed second-factor attempts
// (mfa_failures, migration 0013) and when they were last told of them.
// Its SQL is built once by NewMFAFailureStore; it is safe for concurrent
// use.
type MFAFailureStore struct {
	mfaFailureQueries
	q querier
}

// mfaFailureQueries is the query table of MFAFailureStore.
type mfaFailureQueries struct {
	count, lock, set, clear string
}

// NewMFAFailureStore returns a store for the owners in t.Owners. It panics
// if a name in t is not a plain lowercase identifier.
func NewMFAFailureStore(t OwnerTables) *MFAFailureStore {
	t.mustValidate()
	return &MFAFailureStore{mfaFailureQueries: mfaFailureQueries{
		count: `SELECT mfa_failures FROM ` + t.Owners + ` WHERE id = $1`,
		lock:  `SELECT mfa_failures, mfa_failures_noticed_at FROM ` + t.Owners + ` WHERE id = $1 FOR NO KEY UPDATE`,
		set:   `UPDATE ` + t.Owners + ` SET mfa_failures = $2, mfa_failures_noticed_at = $3 WHERE id = $1`,
		clear: `UPDATE ` + t.Owners + ` SET mfa_failures = 0 WHERE id = $1 AND mfa_failures <> 0`,
	}}
}

// Prepared returns a copy of the store whose queries are prepared on pool
// (and in pool's transactions): see querier.
func (s *MFAFailureStore) Prepared(pool *sqlx.DB) *MFAFailureStore {
	c := *s
	c.q = preparedOn(pool, queriesOf(&s.mfaFailureQueries)...)
	return &c
}

// Count returns the owner's consecutive failed second-factor attempts, or
// ErrNotFound.
func (s *MFAFailureStore) Count(ctx context.Context, db DB, id uuid.UUID) (int, error) {
	var n int
	if err := s.q.get(ctx, db, &n, s.count, id); err != nil {
		return 0, storeErr("mfa failures", err)
	}
	return n, nil
}

// MFAFailure is the outcome of MFAFailureStore.Failed.
type MFAFailure struct {
	// Count is the owner's consecutive failed attempts, this one included.
	Count int
	// Notice reports that the owner is to be told now: Count reached the
	// notice threshold and the last notice is older than the notice
	// interval (or there was none); the notice time is now.
	Notice bool
}

// Failed counts a failed second-factor attempt of the owner at now, in
// db's transaction: it locks the owner's row, so that concurrent failures
// count one by one and at most one of them is the notice of an interval.
// noticeAt is the count from which the owner is told, at most once every
// noticeEvery. ErrNotFound means no such owner.
func (s *MFAFailureStore) Failed(ctx context.Context, db DB, id uuid.UUID, now time.Time, noticeAt int, noticeEvery time.Duration) (MFAFailure, error) {
	var row struct {
		Count   int        `db:"mfa_failures"`
		Noticed *time.Time `db:"mfa_failures_noticed_at"`
	}
	if err := s.q.get(ctx, db, &row, s.lock, id); err != nil {
		return MFAFailure{}, storeErr("lock mfa failures", err)
	}
	out := MFAFailure{Count: row.Count + 1}
	noticed := row.Noticed
	if out.Count >= noticeAt && (noticed == nil || !noticed.Add(noticeEvery).After(now)) {
		out.Notice, noticed = true, &now
	}
	if err := execOne(ctx, s.q, db, "count mfa failure", s.set, id, out.Count, noticed); err != nil {
		return MFAFailure{}, err
	}
	return out, nil
}

// Clear sets the owner's count of consecutive failed second-factor
// attempts back to 0 (a successful second factor, a completed password
// reset, an admin's reset of the second factor); the notice time stays,
// so the owner is still told at most once per interval.
func (s *MFAFailureStore) Clear(ctx context.Context, db DB, id uuid.UUID) error {
	_, err := s.q.exec(ctx, db, s.clear, id)
	return storeErr("clear mfa failures", err)
}
