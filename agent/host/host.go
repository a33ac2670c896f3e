// Package host reads what the agent reports of its machine beyond the
// GPUs (issue 26): the CPU's model and logical CPUs, the RAM, and the size
// and free space of the filesystem holding the agent's data directory.
// They are the provider's claim: the platform lists them as such.
//
// Every source is injectable (the /proc root, the CPU count, statfs), so
// tests read a fake /proc and a fake filesystem; a fact that cannot be
// read is left out, never guessed.
package host

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/gpunex/gpunex/agent/protocol"
)

// maxCPUModel bounds the CPU model sent (the server takes 128 characters).
const maxCPUModel = 128

// Reader reads a host's facts. Its zero value with DataDir set reads the
// running machine.
type Reader struct {
	// Proc is the proc filesystem (cpuinfo, meminfo); os.DirFS("/proc")
	// when nil.
	Proc fs.FS
	// DataDir is the agent's data directory: its filesystem's size and
	// free space are reported. Without it the disk is not.
	DataDir string
	// NumCPU counts the logical CPUs; runtime.NumCPU when nil (it counts
	// those the process may use, which is what a container is given).
	NumCPU func() int
	// Statfs returns the size of the filesystem holding path and the bytes
	// free to an unprivileged user; the operating system's statfs when nil.
	Statfs func(path string) (total, free uint64, err error)
}

// Facts reads the host. Facts it cannot read are nil; it never fails.
func (r Reader) Facts() *protocol.HostFacts {
	proc := r.Proc
	if proc == nil {
		proc = os.DirFS("/proc")
	}
	numCPU := r.NumCPU
	if numCPU == nil {
		numCPU = runtime.NumCPU
	}
	statfs := r.Statfs
	if statfs == nil {
		statfs = osStatfs
	}
	var h protocol.HostFacts
	if b, err := fs.ReadFile(proc, "cpuinfo"); err == nil {
		h.CPUModel = cpuModel(b)
	}
	if n := numCPU(); n > 0 {
		h.CPUCores = &n
	}
	if b, err := fs.ReadFile(proc, "meminfo"); err == nil {
		h.RAMBytes = memTotal(b)
	}
	if r.DataDir != "" {
		if total, free, err := statfs(r.DataDir); err == nil && total > 0 {
			t, f := float64(total), float64(min(free, total))
			h.DiskBytes, h.DiskFreeBytes = &t, &f
		}
	}
	return &h
}

// cpuModel is cpuinfo's first "model name" (x86) or, on ARM servers
// without one, "Model name"/"Hardware", trimmed and bounded.
func cpuModel(cpuinfo []byte) *string {
	s := bufio.NewScanner(bytes.NewReader(cpuinfo))
	for s.Scan() {
		key, value, ok := strings.Cut(s.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(key) {
		case "model name", "Model name", "Hardware":
			v := strings.Join(strings.Fields(value), " ")
			if v == "" {
				continue
			}
			if r := []rune(v); len(r) > maxCPUModel {
				v = string(r[:maxCPUModel])
			}
			return &v
		}
	}
	return nil
}

// memTotal is meminfo's MemTotal in bytes (the file counts kB, meaning
// KiB).
func memTotal(meminfo []byte) *float64 {
	s := bufio.NewScanner(bytes.NewReader(meminfo))
	for s.Scan() {
		key, value, ok := strings.Cut(s.Text(), ":")
		if !ok || key != "MemTotal" {
			continue
		}
		f := strings.Fields(value)
		if len(f) == 0 {
			return nil
		}
		kib, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil || kib == 0 {
			return nil
		}
		b := float64(kib) * 1024
		return &b
	}
	return nil
}
