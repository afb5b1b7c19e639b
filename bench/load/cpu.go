package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every
// Linux architecture Go runs on.
const clockTicks = 100

// CPUUse is how the machine's cores were used during a run, in cores (2.0
// is both cores of a 2-core machine all the time).
type CPUUse struct {
	// Server is the watched process's CPU (utime + stime); -1 when unknown.
	Server float64 `json:"serverCores"`
	// Tool is this load tool's own CPU (node clients not included).
	Tool float64 `json:"toolCores"`
	// Busy is the whole machine's non-idle time, steal excluded.
	Busy float64 `json:"machineBusyCores"`
	// Steal is time the hypervisor gave to other guests.
	Steal float64 `json:"stealCores"`
	// Database is the CPU of the processes named postgres (PostgreSQL's
	// backends and its own workers) on this machine; 0 when none was
	// seen. It is part of Busy; a backend that ends during the run takes
	// its last ticks with it.
	Database float64 `json:"databaseCores,omitempty"`
	// Before is the machine's busy cores in the second before the run,
	// with the server idle: work of others sharing the machine.
	Before float64 `json:"machineBusyBeforeCores"`
}

// machineBusy returns the machine's busy cores over d (steal excluded).
func machineBusy(d time.Duration) float64 {
	a := takeCPU(0)
	time.Sleep(d)
	return cpuBetween(a, takeCPU(0), runtime.NumCPU()).Busy
}

// cpuSnapshot is the CPU counters at one moment.
type cpuSnapshot struct {
	at      time.Time
	machine [8]uint64 // user nice system idle iowait irq softirq steal, in ticks
	proc    float64   // seconds of the watched process; -1 when unknown
	self    float64   // seconds of this process
	db      float64   // seconds of the processes named postgres
}

// takeCPU reads the counters of the machine, of pid (if positive) and of
// this process.
func takeCPU(pid int) cpuSnapshot {
	s := cpuSnapshot{at: time.Now(), proc: -1}
	if raw, err := os.ReadFile("/proc/stat"); err == nil {
		first, _, _ := strings.Cut(string(raw), "\n")
		s.machine, _ = parseStatCPU(first)
	}
	if pid > 0 {
		if raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
			if secs, err := parsePidStat(string(raw)); err == nil {
				s.proc = secs
			}
		}
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		s.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
	}
	s.db = commandSeconds("postgres")
	return s
}

// commandSeconds sums the CPU seconds (utime + stime) of the processes
// whose command name is name.
func commandSeconds(name string) float64 {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	var sum float64
	for _, d := range dirs {
		if c := d.Name()[0]; c < '0' || c > '9' {
			continue
		}
		comm, err := os.ReadFile("/proc/" + d.Name() + "/comm")
		if err != nil || strings.TrimSpace(string(comm)) != name {
			continue
		}
		if raw, err := os.ReadFile("/proc/" + d.Name() + "/stat"); err == nil {
			if secs, err := parsePidStat(string(raw)); err == nil {
				sum += secs
			}
		}
	}
	return sum
}

// parseStatCPU reads the aggregate "cpu ..." line of /proc/stat.
func parseStatCPU(line string) ([8]uint64, error) {
	var out [8]uint64
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return out, fmt.Errorf("not an aggregate cpu line: %q", line)
	}
	for i := range out {
		n, err := strconv.ParseUint(f[i+1], 10, 64)
		if err != nil {
			return out, err
		}
		out[i] = n
	}
	return out, nil
}

// parsePidStat returns utime + stime of a /proc/<pid>/stat text, in seconds.
// The command name, in parentheses, may hold spaces, so fields are counted
// after its closing parenthesis.
func parsePidStat(text string) (float64, error) {
	i := strings.LastIndexByte(text, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed stat: %q", text)
	}
	f := strings.Fields(text[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("malformed stat: %q", text)
	}
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	utime, err1 := strconv.ParseUint(f[11], 10, 64)
	stime, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("malformed stat: %q", text)
	}
	return float64(utime+stime) / clockTicks, nil
}

// cpuBetween is the use of the cores from a to b on a machine of cpus
// cores.
func cpuBetween(a, b cpuSnapshot, cpus int) CPUUse {
	wall := b.at.Sub(a.at).Seconds()
	u := CPUUse{Server: -1}
	if wall <= 0 {
		return u
	}
	if a.proc >= 0 && b.proc >= 0 {
		u.Server = (b.proc - a.proc) / wall
	}
	u.Database = max(0, b.db-a.db) / wall
	u.Tool = (b.self - a.self) / wall
	var total, idle, steal float64
	for i := range a.machine {
		d := float64(b.machine[i] - a.machine[i])
		total += d
		switch i {
		case 3, 4: // idle, iowait
			idle += d
		case 7:
			steal += d
		}
	}
	if total > 0 {
		u.Busy = float64(cpus) * (total - idle - steal) / total
		u.Steal = float64(cpus) * steal / total
	}
	return u
}
