package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/argon2"

	"github.com/actionkit/actionkit/auth"
)

// ArgonBound is the machine's Argon2id throughput with the server's
// production parameters: the ceiling of logins per second.
type ArgonBound struct {
	PerSec  float64 `json:"perSec"`
	HashMs  float64 `json:"hashMs"` // one hash's time, the workers running in parallel
	Workers int     `json:"workers"`
	Seconds float64 `json:"seconds"`
	// Measures are the rates of every measure folded in by add.
	Measures []float64 `json:"measures,omitempty"`
}

// add folds measure m in. The bound is the best rate measured: the
// machine is shared and its speed drifts, and a bound is what the machine
// can do.
func (b *ArgonBound) add(m ArgonBound) {
	measures := append(b.Measures, m.PerSec)
	if m.PerSec > b.PerSec {
		*b = m
	}
	b.Measures = measures
}

// measureArgon hashes with auth's default parameters (m=19 MiB, t=2, p=1,
// as APP_ENV=production enforces) on one goroutine per CPU for d.
func measureArgon(d time.Duration) ArgonBound {
	workers := runtime.NumCPU()
	var n atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	stop := start.Add(d)
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			salt := []byte{byte(i), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}
			for time.Now().Before(stop) {
				argon2.IDKey([]byte(benchPassword), salt, auth.DefaultTime, auth.DefaultMemoryKiB, auth.DefaultThreads, 32)
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start).Seconds()
	b := ArgonBound{Workers: workers, Seconds: elapsed}
	if hashes := n.Load(); hashes > 0 {
		b.PerSec = float64(hashes) / elapsed
		b.HashMs = 1000 * elapsed * float64(workers) / float64(hashes)
	}
	return b
}
