package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// sampleInterval is how often the sampler reads the server's /metrics.
const sampleInterval = 250 * time.Millisecond

// Peak is what the sampler saw of the server during a run.
type Peak struct {
	// RSS is the highest process_resident_memory_bytes scraped, in bytes.
	RSS int64 `json:"rssBytes"`
	// HWM is the kernel's peak resident set (VmHWM) over the run, in bytes,
	// when the server's pid is known; the peak is reset at the run's start
	// where the kernel allows it (HWMReset).
	HWM      int64 `json:"hwmBytes,omitempty"`
	HWMReset bool  `json:"hwmReset,omitempty"`
	// StartRSS is the first RSS scraped: memory the run found in use, which
	// the Go runtime returns to the system only slowly after earlier work.
	StartRSS int64 `json:"startRSSBytes"`
	// HeapInuse is the highest go_memstats_heap_inuse_bytes scraped: the
	// heap the run itself kept busy.
	HeapInuse int64 `json:"heapInuseBytes"`
	// Goroutines is the highest go_goroutines scraped.
	Goroutines int64 `json:"goroutines"`
	// Sockets is the highest actionkit_sockets_connected scraped.
	Sockets int64 `json:"sockets,omitempty"`
	// Samples counts the scrapes that answered; Failures the others.
	Samples  int `json:"samples"`
	Failures int `json:"failures,omitempty"`
}

// sampler scrapes /metrics (and /proc/<pid>/status) in the background.
type sampler struct {
	url    string
	pid    int
	client *http.Client
	cancel context.CancelFunc
	done   chan struct{}
	cpu0   cpuSnapshot
	before float64

	mu   sync.Mutex
	peak Peak
}

// startSampler starts scraping metricsURL (unless empty) every
// sampleInterval until stop. It first measures, for a second, how busy the
// machine is without the run. With a pid, it resets the process's VmHWM and
// reads it at every sample.
func startSampler(ctx context.Context, metricsURL string, pid int) *sampler {
	ctx, cancel := context.WithCancel(ctx)
	s := &sampler{url: metricsURL, pid: pid, client: &http.Client{Timeout: 2 * time.Second}, cancel: cancel, done: make(chan struct{})}
	if pid > 0 {
		// "5" resets the peak resident set size (proc(5), clear_refs).
		s.peak.HWMReset = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) == nil
	}
	s.before = machineBusy(time.Second)
	s.cpu0 = takeCPU(pid)
	go func() {
		defer close(s.done)
		t := time.NewTicker(sampleInterval)
		defer t.Stop()
		for {
			s.sample(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// stop ends the sampling after one last sample and returns the peaks and
// the use of the cores since the start.
func (s *sampler) stop() (Peak, CPUUse) {
	s.cancel()
	<-s.done
	s.sample(context.Background())
	use := cpuBetween(s.cpu0, takeCPU(s.pid), runtime.NumCPU())
	use.Before = s.before
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.peak, use
}

// sample reads /metrics and /proc once and keeps the peaks.
func (s *sampler) sample(ctx context.Context) {
	values, err := map[string]float64{}, error(nil)
	if s.url != "" {
		values, err = scrape(ctx, s.client, s.url)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.url == "" {
		// Only the kernel's figures are read.
	} else if err != nil {
		if ctx.Err() == nil {
			s.peak.Failures++
		}
	} else {
		if s.peak.Samples == 0 {
			s.peak.StartRSS = int64(values["process_resident_memory_bytes"])
		}
		s.peak.Samples++
		s.peak.RSS = max(s.peak.RSS, int64(values["process_resident_memory_bytes"]))
		s.peak.HeapInuse = max(s.peak.HeapInuse, int64(values["go_memstats_heap_inuse_bytes"]))
		s.peak.Goroutines = max(s.peak.Goroutines, int64(values["go_goroutines"]))
		s.peak.Sockets = max(s.peak.Sockets, int64(values["actionkit_sockets_connected"]))
	}
	if s.pid > 0 {
		if st, err := procStatus(s.pid); err == nil {
			s.peak.HWM = max(s.peak.HWM, st["VmHWM"])
		}
	}
}

// scrape reads the unlabelled samples of a Prometheus text exposition.
func scrape(ctx context.Context, client *http.Client, url string) (map[string]float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: status %d", url, res.StatusCode)
	}
	return parseMetrics(res.Body)
}

// parseMetrics returns the value of every sample without labels, by name.
func parseMetrics(r io.Reader) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' || strings.ContainsRune(line, '{') {
			continue
		}
		name, value, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		value, _, _ = strings.Cut(value, " ") // a timestamp may follow
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			out[name] = v
		}
	}
	return out, sc.Err()
}

// procStatus reads the kB-valued fields of /proc/<pid>/status, in bytes.
func procStatus(pid int) (map[string]int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, line := range strings.Split(string(raw), "\n") {
		name, rest, ok := strings.Cut(line, ":")
		fields := strings.Fields(rest)
		if !ok || len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		if n, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			out[name] = n << 10
		}
	}
	return out, nil
}
