package auth

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/actionkit/actionkit/internal/poll"
)

// cheap keeps the number of expensive hashes in tests down: where a test is
// not about the parameters, it hashes with 1 MiB and one pass.
var cheap = HasherConfig{MemoryKiB: 1024, Time: 1, Threads: 1, Concurrency: 2}

func mustHash(tb testing.TB, h *Hasher, password string) string {
	tb.Helper()
	encoded, _, err := h.Hash(context.Background(), password)
	if err != nil {
		tb.Fatalf("Hash: %v", err)
	}
	return encoded
}

func TestHashFormat(t *testing.T) {
	h := NewHasher(cheap)
	encoded, salt, err := h.Hash(context.Background(), "Correct horse 9!")
	if err != nil {
		t.Fatalf("Hash: %v", err)
	}
	if want := "$argon2id$v=19$m=1024,t=1,p=1$"; !strings.HasPrefix(encoded, want) {
		t.Errorf("encoded: got %q, want prefix %q", encoded, want)
	}
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 {
		t.Fatalf("encoded: got %d $-fields, want 6", len(parts))
	}
	if parts[4] != salt {
		t.Errorf("salt: got %q, want the encoded salt %q", salt, parts[4])
	}
	if n := len(salt); n != 22 { // 16 bytes, unpadded base64
		t.Errorf("salt: got %d characters, want 22", n)
	}
	if n := len(parts[5]); n != 43 { // 32 bytes, unpadded base64
		t.Errorf("key: got %d characters, want 43", n)
	}
	again, salt2, err := h.Hash(context.Background(), "Correct horse 9!")
	if err != nil {
		t.Fatalf("Hash: %v", err)
	}
	if again == encoded || salt2 == salt {
		t.Errorf("two hashes of one password: got equal salts or hashes (%q), want fresh salts", again)
	}
}

func TestHashRealParameters(t *testing.T) {
	if testing.Short() {
		t.Skip("one full-cost Argon2id hash")
	}
	h := NewHasher(HasherConfig{})
	encoded := mustHash(t, h, "Correct horse 9!")
	if want := "$argon2id$v=19$m=19456,t=2,p=1$"; !strings.HasPrefix(encoded, want) {
		t.Errorf("encoded: got %q, want prefix %q", encoded, want)
	}
}

func TestVerify(t *testing.T) {
	h := NewHasher(cheap)
	long := strings.Repeat("Ab1!", 32) // 128 characters
	unicode := "Pässwörd-密码-🔑-Ünïcode1"
	hashes := map[string]string{}
	for _, pw := range []string{"Correct horse 9!", long, unicode} {
		hashes[pw] = mustHash(t, h, pw)
	}
	for _, tc := range []struct {
		name, hashed, given string
		want                bool
	}{
		{"same password", "Correct horse 9!", "Correct horse 9!", true},
		{"case changed", "Correct horse 9!", "correct horse 9!", false},
		{"trailing space", "Correct horse 9!", "Correct horse 9! ", false},
		{"leading space", "Correct horse 9!", " Correct horse 9!", false},
		{"prefix", "Correct horse 9!", "Correct horse 9", false},
		{"empty", "Correct horse 9!", "", false},
		{"128 characters", long, long, true},
		{"128 characters, last differs", long, long[:127] + "?", false},
		{"127 characters", long, long[:127], false},
		{"unicode", unicode, unicode, true},
		{"unicode decomposed (no normalisation)", unicode, strings.Replace(unicode, "ä", "a\u0308", 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, rehash, err := h.Verify(context.Background(), hashes[tc.hashed], tc.given)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if ok != tc.want || rehash {
				t.Errorf("Verify: got (%v, %v), want (%v, false)", ok, rehash, tc.want)
			}
		})
	}
}

func TestVerifyNeedsRehash(t *testing.T) {
	old := mustHash(t, NewHasher(cheap), "Correct horse 9!")
	for _, tc := range []struct {
		name   string
		cfg    HasherConfig
		rehash bool
	}{
		{"same parameters", cheap, false},
		{"more memory", HasherConfig{MemoryKiB: 2048, Time: 1, Threads: 1}, true},
		{"more passes", HasherConfig{MemoryKiB: 1024, Time: 2, Threads: 1}, true},
		{"more threads", HasherConfig{MemoryKiB: 1024, Time: 1, Threads: 2}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, rehash, err := NewHasher(tc.cfg).Verify(context.Background(), old, "Correct horse 9!")
			if err != nil || !ok || rehash != tc.rehash {
				t.Errorf("Verify: got (%v, %v, %v), want (true, %v, nil)", ok, rehash, err, tc.rehash)
			}
		})
	}
	ok, rehash, err := NewHasher(HasherConfig{MemoryKiB: 2048, Time: 1}).Verify(context.Background(), old, "wrong")
	if err != nil || ok || rehash {
		t.Errorf("Verify of a wrong password: got (%v, %v, %v), want (false, false, nil)", ok, rehash, err)
	}
}

func TestVerifyMalformed(t *testing.T) {
	const salt, key = "c2FsdHNhbHRzYWx0c2FsdA", "a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U"
	valid := "$argon2id$v=19$m=1024,t=1,p=1$" + salt + "$" + key
	if _, _, _, err := decode(valid); err != nil {
		t.Fatalf("decode of the valid base line: %v", err)
	}
	h := NewHasher(cheap)
	for _, tc := range []struct{ name, encoded string }{
		{"empty", ""},
		{"plain text", "hunter2"},
		{"bcrypt", "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"},
		{"argon2i", strings.Replace(valid, "argon2id", "argon2i", 1)},
		{"argon2d", strings.Replace(valid, "argon2id", "argon2d", 1)},
		{"version 16", strings.Replace(valid, "v=19", "v=16", 1)},
		{"version missing", "$argon2id$m=1024,t=1,p=1$" + salt + "$" + key},
		{"no leading $", valid[1:]},
		{"trailing $", valid + "$"},
		{"extra field", valid + "$x"},
		{"key missing", "$argon2id$v=19$m=1024,t=1,p=1$" + salt},
		{"parameters reordered", strings.Replace(valid, "m=1024,t=1,p=1", "t=1,m=1024,p=1", 1)},
		{"parameter missing", strings.Replace(valid, "m=1024,t=1,p=1", "m=1024,t=1", 1)},
		{"extra parameter", strings.Replace(valid, "m=1024,t=1,p=1", "m=1024,t=1,p=1,keyid=x", 1)},
		{"memory not a number", strings.Replace(valid, "m=1024", "m=abc", 1)},
		{"memory negative", strings.Replace(valid, "m=1024", "m=-1", 1)},
		{"memory with sign", strings.Replace(valid, "m=1024", "m=+1024", 1)},
		{"memory leading zero", strings.Replace(valid, "m=1024", "m=01024", 1)},
		{"memory empty", strings.Replace(valid, "m=1024", "m=", 1)},
		{"memory zero", strings.Replace(valid, "m=1024", "m=0", 1)},
		{"memory below 8 per lane", strings.Replace(valid, "m=1024", "m=7", 1)},
		{"memory above 1 GiB", strings.Replace(valid, "m=1024", "m=1048577", 1)},
		{"memory beyond uint32", strings.Replace(valid, "m=1024", "m=4294967296", 1)},
		{"time zero", strings.Replace(valid, "t=1", "t=0", 1)},
		{"time above limit", strings.Replace(valid, "t=1", "t=65", 1)},
		{"threads zero", strings.Replace(valid, "p=1", "p=0", 1)},
		{"threads above 255", strings.Replace(valid, "p=1", "p=256", 1)},
		{"salt not base64", strings.Replace(valid, salt, "!!!!!!!!!!!!!!!!!!!!!!", 1)},
		{"salt padded", strings.Replace(valid, salt, salt+"==", 1)},
		{"salt URL alphabet", strings.Replace(valid, salt, "c2FsdHNhbHRzYWx0c2Fsd_", 1)},
		{"salt too short", strings.Replace(valid, salt, "c2FsdA", 1)},
		{"salt empty", strings.Replace(valid, salt, "", 1)},
		{"key empty", strings.TrimSuffix(valid, key)},
		{"key too short", strings.Replace(valid, key, "a2V5", 1)},
		{"key non-canonical padding bits", strings.Replace(valid, key, key[:42]+"f", 1)},
		{"too long", valid + strings.Repeat("A", 300)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ok, rehash, err := h.Verify(context.Background(), tc.encoded, "Correct horse 9!")
			if !errors.Is(err, ErrMalformedHash) || ok || rehash {
				t.Errorf("Verify: got (%v, %v, %v), want (false, false, malformed hash)", ok, rehash, err)
			}
		})
	}
}

func TestVerifyDummy(t *testing.T) {
	if err := NewHasher(cheap).VerifyDummy(context.Background(), "anything"); err != nil {
		t.Errorf("VerifyDummy: got %v, want nil", err)
	}
}

// blockingHasher is a hasher with slots slots and room for queue waiting
// calls whose derivations block until release is closed. started receives
// once per derivation as it begins.
func blockingHasher(slots, queue int) (h *Hasher, started chan struct{}, release chan struct{}) {
	h = NewHasher(HasherConfig{MemoryKiB: 1024, Time: 1, Concurrency: slots, Queue: queue})
	started, release = make(chan struct{}, 100), make(chan struct{})
	h.kdf = func(password, salt []byte, p params) []byte {
		started <- struct{}{}
		<-release
		return make([]byte, p.keyLen)
	}
	return h, started, release
}

// waitStats polls h until cond holds of its stats, or fails after 10 s.
func waitStats(t *testing.T, h *Hasher, what string, cond func(HasherStats) bool) {
	t.Helper()
	poll.UntilWhy(t, 10*time.Second, what, func() (bool, string) {
		s := h.Stats()
		return cond(s), fmt.Sprintf("stats %+v", s)
	})
}

// TestQueueAdmission fills the slots and the queue with calls whose
// derivations block: one more call is refused at once with ErrBusy, and
// the queued ones run, each in its turn, however long they wait.
func TestQueueAdmission(t *testing.T) {
	h, started, release := blockingHasher(2, 3)
	ctx := context.Background()
	done := make(chan error, 5)
	for range 5 {
		go func() { _, _, err := h.Hash(ctx, "Correct horse 9!"); done <- err }()
	}
	waitStats(t, h, "2 running and 3 waiting", func(s HasherStats) bool { return s.Running == 2 && s.Waiting == 3 })
	for name, call := range map[string]func() error{
		"Hash": func() error { _, _, err := h.Hash(ctx, "x"); return err },
		"Verify": func() error {
			_, _, err := h.Verify(ctx, "$argon2id$v=19$m=1024,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdA$a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2V5a2U", "x")
			return err
		},
		"VerifyDummy": func() error { return h.VerifyDummy(ctx, "x") },
	} {
		if err := call(); !errors.Is(err, ErrBusy) {
			t.Errorf("%s past a full queue: got %v, want ErrBusy", name, err)
		}
	}
	if s := h.Stats(); s.Refused != 3 || s.Derived != 2 {
		t.Errorf("stats %+v, want 3 refused and 2 derived", s)
	}
	// Every queued call runs in its turn.
	close(release)
	for range 5 {
		if err := <-done; err != nil {
			t.Errorf("queued call: %v", err)
		}
	}
	if n := len(started); n != 5 {
		t.Errorf("%d derivations started, want 5", n)
	}
	if s := h.Stats(); s.Running != 0 || s.Waiting != 0 || s.Derived != 5 {
		t.Errorf("stats after %+v", s)
	}
}

// TestQueueNone: with no queue, a call that finds every slot taken is
// refused at once, and a slot released is taken by the next call.
func TestQueueNone(t *testing.T) {
	h, started, release := blockingHasher(1, -1)
	ctx := context.Background()
	done := make(chan error, 1)
	go func() { _, _, err := h.Hash(ctx, "Correct horse 9!"); done <- err }()
	<-started
	if _, _, err := h.Hash(ctx, "Correct horse 9!"); !errors.Is(err, ErrBusy) {
		t.Fatalf("got %v, want ErrBusy", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.Hash(ctx, "Correct horse 9!"); err != nil {
		t.Fatalf("after release: %v", err)
	}
}

// TestQueueHonoursCancellation: a waiting call whose context ends leaves
// the queue with ErrBusy wrapping the context's error, and frees its place.
func TestQueueHonoursCancellation(t *testing.T) {
	h, started, release := blockingHasher(1, 1)
	defer close(release)
	go func() { _, _, _ = h.Hash(context.Background(), "Correct horse 9!") }()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, _, err := h.Hash(ctx, "Correct horse 9!"); done <- err }()
	waitStats(t, h, "one waiting", func(s HasherStats) bool { return s.Waiting == 1 })
	cancel()
	if err := <-done; !errors.Is(err, ErrBusy) || !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want ErrBusy wrapping context.Canceled", err)
	}
	if s := h.Stats(); s.Waiting != 0 {
		t.Errorf("%d still waiting after the cancellation", s.Waiting)
	}
	if _, _, err := h.Hash(ctx, "x"); !errors.Is(err, ErrBusy) || !errors.Is(err, context.Canceled) {
		t.Errorf("an ended context: got %v, want ErrBusy wrapping context.Canceled", err)
	}
}

func TestNewHasherDefaults(t *testing.T) {
	h := NewHasher(HasherConfig{})
	want := params{memory: 19456, time: 2, threads: 1, saltLen: 16, keyLen: 32}
	if h.params != want {
		t.Errorf("params: got %+v, want %+v", h.params, want)
	}
	if got := cap(h.slots); got != runtime.NumCPU() {
		t.Errorf("concurrency: got %d, want %d", got, runtime.NumCPU())
	}
	if h.queue != DefaultQueue {
		t.Errorf("queue: got %d, want %d", h.queue, DefaultQueue)
	}
}

func TestNewHasherPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  HasherConfig
	}{
		{"memory below 8 per lane", HasherConfig{MemoryKiB: 15, Threads: 2}},
		{"memory above 1 GiB", HasherConfig{MemoryKiB: 1<<20 + 1}},
		{"time above limit", HasherConfig{Time: 65}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("NewHasher(%+v): got no panic, want one", tc.cfg)
				}
			}()
			NewHasher(tc.cfg)
		})
	}
}

// BenchmarkHash measures one hash at the production parameters.
func BenchmarkHash(b *testing.B) {
	h := NewHasher(HasherConfig{})
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := h.Hash(context.Background(), "Correct horse 9!"); err != nil {
			b.Fatal(err)
		}
	}
}
