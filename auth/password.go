package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"runtime"
	"time"

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
	// DefaultMaxWait is how long a hash waits for a free slot.
	DefaultMaxWait = 2 * time.Second
	// SaltBytes is the salt length of new hashes.
	SaltBytes = 16
	// KeyBytes is the derived key length of new hashes.
	KeyBytes = 32
)

// ErrBusy is returned by Hash, Verify and VerifyDummy when no hashing slot
// came free within MaxWait or before the context ended. The caller should
// answer "try again later", not "wrong password".
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
	// MaxWait is how long a call waits for a slot before ErrBusy; zero or
	// negative means DefaultMaxWait.
	MaxWait time.Duration
}

// Hasher hashes and verifies passwords with Argon2id, running at most
// Concurrency derivations at a time. It is safe for concurrent use.
// Passwords are hashed exactly as given: never trimmed, folded or cut.
type Hasher struct {
	params  params
	slots   chan struct{}
	maxWait time.Duration
	// dummySalt and dummyKey stand in for a stored hash in VerifyDummy.
	dummySalt, dummyKey []byte
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
	wait := cfg.MaxWait
	if wait <= 0 {
		wait = DefaultMaxWait
	}
	h := &Hasher{params: p, slots: make(chan struct{}, n), maxWait: wait}
	h.dummySalt = make([]byte, SaltBytes)
	h.dummyKey = make([]byte, KeyBytes)
	rand.Read(h.dummySalt)
	rand.Read(h.dummyKey)
	return h
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

// derive runs Argon2id with parameters p in a hashing slot.
func (h *Hasher) derive(ctx context.Context, p params, password string, salt []byte) ([]byte, error) {
	if err := h.acquire(ctx); err != nil {
		return nil, err
	}
	defer h.release()
	return argon2.IDKey([]byte(password), salt, p.time, p.memory, p.threads, p.keyLen), nil
}

// acquire takes a hashing slot, waiting at most maxWait or until ctx ends.
func (h *Hasher) acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrBusy, err)
	}
	select {
	case h.slots <- struct{}{}:
		return nil
	default:
	}
	timer := time.NewTimer(h.maxWait)
	defer timer.Stop()
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-timer.C:
		return fmt.Errorf("%w: no slot within %v", ErrBusy, h.maxWait)
	case <-ctx.Done():
		return fmt.Errorf("%w: %w", ErrBusy, ctx.Err())
	}
}

// release frees a slot taken by acquire.
func (h *Hasher) release() { <-h.slots }
