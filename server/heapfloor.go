package main

import (
	"log/slog"
	"sync"

	"github.com/actionkit/actionkit/internal/gcfloor"
)

// heapFloor is the least heap goal of the server's garbage collector
// unless GOGC is set (docs/operations.md, "Memory and the garbage
// collector").
const heapFloor = 64 << 20

// heapFloorOnce starts the floor once per process: it is the runtime's,
// shared by every app a process runs.
var heapFloorOnce sync.Once

// startHeapFloor keeps the collector's heap goal at heapFloor or more for
// the rest of the process.
func startHeapFloor(log *slog.Logger) {
	heapFloorOnce.Do(func() {
		gcfloor.Start(heapFloor)
		log.Info("garbage collector: heap floor", "floorMiB", heapFloor>>20, "why", "GOGC is not set")
	})
}
