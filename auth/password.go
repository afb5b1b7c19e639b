package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters of new hashes: the OWASP baseline.
const (
	// DefaultMemoryKiB is the memory cost, 19 MiB.
	DefaultMemoryKiB = 19 * 1024
	// DefaultTime is the number of passes.
	DefaultTime = 2
	// DefaultThreads is the degree of parallelism.
	DefaultThreads = 1
	// DefaultQueue is how many calls may wait for a hashing slot.
	DefaultQueue = 64
	// SaltBytes is the salt length of new hashes.
	SaltBytes = 16
	// KeyBytes is the derived key length of new hashes.
	KeyBytes = 32
)

// ErrBusy is returned by Hash, Verify and VerifyDummy when every hashing
// slot is taken and the queue of waiting calls is full, or when the
// context ended while the call waited. The caller should answer "try again
// later", not "wrong password".
var ErrBusy = errors.New("auth: password hashing is saturated")

// HasherConfig configures a Hasher. Zero fields take the defaults.
type HasherConfig struct {
	// MemoryKiB is the Argon2id memory cost in KiB; default DefaultMemoryKiB.
	MemoryKiB uint32
	// Time is the number of Argon2id passes; default DefaultTime.
	Time uint32
	// Threads is the Argon2id parallelism; default DefaultThreads.
	Threads uint8
	// Concurrency is how many hashes may run at once, bounding memory to
	// Concurrency × MemoryKiB; default runtime.NumCPU().
	Concurrency int
	// Queue is how many calls may wait for a slot when all are taken; a
	// call beyond them fails at once with ErrBusy, while a call admitted to
	// the queue waits as long as it takes (or until its context ends).
	// Zero means DefaultQueue; a negative value lets no call wait.
	Queue int
}

// Hasher hashes and verifies passwords with Argon2id, running at most
// Concurrency derivations at a time and letting at most Queue more calls
// wait for their turn. It is safe for concurrent use. Passwords are hashed
// exactly as given: never trimmed, folded or cut.
type Hasher struct {
	params params
	slots  chan struct{}
	queue  int64
	// waiting counts the calls in the queue; derived and refused count
	// derivations run and calls refused for a full queue.
	waiting, derived, refused atomic.Int64
	// kdf derives a key; Argon2id, replaced by tests of the admission.
	kdf func(password, salt []byte, p params) []byte
	// dummySalt and dummyKey stand in for a stored hash in VerifyDummy.
	dummySalt, dummyKey []byte
}

// HasherStats is a snapshot of a Hasher's admission, for metrics.
type HasherStats struct {
	// Running and Waiting are the derivations running and the calls
	// waiting for a slot now.
	Running, Waiting int
	// Derived counts the derivations run (hashes and verifications), and
	// Refused the calls refused because the queue was full.
	Derived, Refused int64
}

// NewHasher returns a Hasher for cfg. It panics when the parameters are
// outside the range Verify accepts (for instance MemoryKiB above 1 GiB or
// below 8 × Threads), a programming error.
func NewHasher(cfg HasherConfig) *Hasher {
	p := params{
		memory:  orDefault(cfg.MemoryKiB, DefaultMemoryKiB),
		time:    orDefault(cfg.Time, DefaultTime),
		threads: orDefault(cfg.Threads, DefaultThreads),
		saltLen: SaltBytes,
		keyLen:  KeyBytes,
	}
	if err := p.check(); err != nil {
		panic(fmt.Sprintf("auth: NewHasher: %v", err))
	}
	n := cfg.Concurrency
	if n <= 0 {
		n = runtime.NumCPU()
	}
	queue := cfg.Queue
	switch {
	case queue == 0:
		queue = DefaultQueue
	case queue < 0:
		queue = 0
	}
	h := &Hasher{params: p, slots: make(chan struct{}, n), queue: int64(queue), kdf: argon2id}
	h.dummySalt = make([]byte, SaltBytes)
	h.dummyKey = make([]byte, KeyBytes)
	rand.Read(h.dummySalt)
	rand.Read(h.dummyKey)
	return h
}

func argon2id(password, salt []byte, p params) []byte {
	return argon2.IDKey(password, salt, p.time, p.memory, p.threads, p.keyLen)
}

// Stats returns the current admission figures.
func (h *Hasher) Stats() HasherStats {
	return HasherStats{Running: len(h.slots), Waiting: int(h.waiting.Load()),
		Derived: h.derived.Load(), Refused: h.refused.Load()}
}

func orDefault[T uint8 | uint32](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// Hash derives a hash of password with a fresh random salt. It returns the
// PHC string, $argon2id$v=19$m=19456,t=2,p=1$<salt>$<key>, and the salt
// alone; salt and key are in unpadded standard base64.
func (h *Hasher) Hash(ctx context.Context, password string) (encoded, salt string, err error) {
	s := make([]byte, h.params.saltLen)
	if _, err := rand.Read(s); err != nil {
		return "", "", fmt.Errorf("auth: salt: %w", err)
	}
	key, err := h.derive(ctx, h.params, password, s)
	if err != nil {
		return "", "", err
	}
	return h.params.encode(s, key), b64.EncodeToString(s), nil
}

// Verify reports whether password matches the PHC string encoded, and,
// when it does, whether the hash should be recomputed because its
// parameters differ from the Hasher's. The parameters are read from
// encoded, so hashes made with older parameters still verify. An encoded
// string that cannot be read gives an error wrapping ErrMalformedHash.
func (h *Hasher) Verify(ctx context.Context, encoded, password string) (ok, needsRehash bool, err error) {
	p, salt, want, err := decode(encoded)
	if err != nil {
		return false, false, err
	}
	got, err := h.derive(ctx, p, password, salt)
	if err != nil {
		return false, false, err
	}
	if subtle.ConstantTimeCompare(got, want) != 1 {
		return false, false, nil
	}
	return true, p != h.params, nil
}

// VerifyDummy does the work of a Verify at the current parameters and
// discards the result. Call it when the account is unknown, so that its
// answer takes as long as a wrong password's. It fails only with ErrBusy.
func (h *Hasher) VerifyDummy(ctx context.Context, password string) error {
	got, err := h.derive(ctx, h.params, password, h.dummySalt)
	if err != nil {
		return err
	}
	subtle.ConstantTimeCompare(got, h.dummyKey)
	return nil
}

// derive runs the key derivation with parameters p in a hashing slot.
func (h *Hasher) derive(ctx context.Context, p params, password string, salt []byte) ([]byte, error) {
	if err := h.acquire(ctx); err != nil {
		return nil, err
	}
	defer h.release()
	h.derived.Add(1)
	return h.kdf([]byte(password), salt, p), nil
}

// acquire takes a hashing slot. When every slot is taken the call joins the
// queue, if it is not full, and waits for a slot until ctx ends; a full
// queue refuses it at once. Waiting calls get the slots in the order they
// started waiting.
func (h *Hasher) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrBusy, err)
	}
	select {
	case h.slots <- struct{}{}:
		return nil
	default:
	}
	if h.waiting.Add(1) > h.queue {
		h.waiting.Add(-1)
		h.refused.Add(1)
		return fmt.Errorf("%w: %d calls already waiting", ErrBusy, h.queue)
	}
	defer h.waiting.Add(-1)
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrBusy, ctx.Err())
	}
}

// release frees a slot taken by acquire.
func (h *Hasher) release() { <-h.slots }
