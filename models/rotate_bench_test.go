package models_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/actionkit/actionkit/models"
)

// rotateFunc is the signature shared by SessionStore.Rotate and the
// two-statement variant kept for comparison.
type rotateFunc func(context.Context, models.DB, uuid.UUID, *models.Session, time.Time) error

// refresher performs one refresh the way the refresh action does: lock the
// owner by hash, read the session, rotate it, commit.
type refresher struct {
	db       *sqlx.DB
	accounts *models.AccountStore
	sessions *models.SessionStore
	rotate   rotateFunc
}

// refresh rotates the session with hash and returns the successor's hash.
// It does not call b.Fatal, so RunParallel goroutines may use it.
func (r *refresher) refresh(b *testing.B, hash string) (string, error) {
	ctx, now := b.Context(), testNow()
	var next *models.Session
	err := models.Transact(ctx, r.db, func(tx *sqlx.Tx) error {
		owner, old, err := r.sessions.LockOwnerAndRead(ctx, tx, hash)
		if err != nil {
			return err
		}
		next, err = successor(old, owner.ID, now)
		if err != nil {
			return err
		}
		return r.rotate(ctx, tx, old.ID, next, now)
	})
	if err != nil {
		return "", fmt.Errorf("refresh: %w", err)
	}
	return next.RefreshTokenHash, nil
}

// successor returns the session that replaces old. Unlike newSession it
// cannot call b.Fatal, so RunParallel goroutines may use it.
func successor(old *models.Session, owner uuid.UUID, now time.Time) (*models.Session, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return nil, err
	}
	raw := make([]byte, 32)
	_, _ = rand.Read(raw) // never fails since Go 1.24
	sum := sha256.Sum256(raw)
	return &models.Session{
		ID: id, OwnerID: owner, RefreshTokenHash: hex.EncodeToString(sum[:]),
		ExpiresAt: now.Add(60 * 24 * time.Hour), Client: old.Client, Platform: old.Platform,
	}, nil
}

// BenchmarkRotate measures one refresh transaction at a time, over lib/pq's
// defaults and over binary_parameters=yes.
func BenchmarkRotate(b *testing.B) {
	for _, bench := range rotateCases() {
		b.Run(bench.name, func(b *testing.B) {
			db := openPool(b, 1, bench.params...)
			r := &refresher{db, models.NewAccountStore(models.UserTables), models.NewSessionStore(models.UserTables), bench.rotate}
			owner := createAccount(b, db, models.UserTables, "bench@x.io")
			hash := createSession(b, db, r.sessions, newSession(b, owner.ID, testNow())).RefreshTokenHash
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if hash, err = r.refresh(b, hash); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// rotateCase is one configuration of the rotation benchmarks.
type rotateCase struct {
	name   string
	rotate rotateFunc
	params []string
}

// rotateCases crosses SessionStore.Rotate and the two-statement variant
// with lib/pq's two parameter modes.
func rotateCases() []rotateCase {
	one := models.NewSessionStore(models.UserTables).Rotate
	two := models.NewTwoStatementRotator(models.UserTables).Rotate
	binary := []string{"binary_parameters=yes"}
	return []rotateCase{
		{"one-statement", one, nil},
		{"two-statements", two, nil},
		{"one-statement/binary_parameters", one, binary},
		{"two-statements/binary_parameters", two, binary},
	}
}

// BenchmarkRotateParallel measures refresh throughput with about 8 clients
// (a multiple of GOMAXPROCS), each rotating its own owner's chain, over a
// pool of 8 connections; with lib/pq's defaults, and with
// binary_parameters=yes, which sends each statement in one round trip.
func BenchmarkRotateParallel(b *testing.B) {
	const clients = 8
	for _, bench := range rotateCases() {
		b.Run(bench.name, func(b *testing.B) {
			db := openPool(b, clients, bench.params...)
			r := &refresher{db, models.NewAccountStore(models.UserTables), models.NewSessionStore(models.UserTables), bench.rotate}
			// One chain per goroutine, set up first: createAccount may call
			// b.Fatal, which RunParallel goroutines must not.
			parallelism := max(1, clients/runtime.GOMAXPROCS(0))
			goroutines := parallelism * runtime.GOMAXPROCS(0)
			hashes := make(chan string, goroutines)
			for i := range goroutines {
				owner := createAccount(b, db, models.UserTables, fmt.Sprintf("c%d@x.io", i))
				hashes <- createSession(b, db, r.sessions, newSession(b, owner.ID, testNow())).RefreshTokenHash
			}
			var failed atomic.Bool
			b.SetParallelism(parallelism)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				hash := <-hashes
				for pb.Next() {
					var err error
					if hash, err = r.refresh(b, hash); err != nil {
						if !failed.Swap(true) {
							b.Error(err)
						}
						return
					}
				}
			})
		})
	}
}
