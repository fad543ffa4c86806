package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/licorice-dev/licorice/internal/heapprof"
)

// startProfiles starts the profiles that the environment asks for, for
// whoever measures licorice (docs/performance.md): LICORICE_CPUPROFILE
// names a file for a CPU profile of the whole command,
// LICORICE_MEMPROFILE one for a heap profile taken at its largest live
// heap (heapprof). The returned function stops and writes them.
func startProfiles() (stop func(), err error) {
	cpu, mem := os.Getenv("LICORICE_CPUPROFILE"), os.Getenv("LICORICE_MEMPROFILE")
	var cpuFile *os.File
	if cpu != "" {
		if cpuFile, err = os.Create(cpu); err != nil {
			return nil, fmt.Errorf("LICORICE_CPUPROFILE: %w", err)
		}
		if err := pprof.StartCPUProfile(cpuFile); err != nil {
			cpuFile.Close()
			return nil, fmt.Errorf("LICORICE_CPUPROFILE: %w", err)
		}
	}
	var peak *heapprof.Peak
	if mem != "" {
		peak = heapprof.Watch()
	}
	return func() {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			cpuFile.Close()
		}
		if peak == nil {
			return
		}
		prof, _ := peak.Stop()
		if err := os.WriteFile(mem, prof, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "licorice: LICORICE_MEMPROFILE:", err)
		}
	}, nil
}
