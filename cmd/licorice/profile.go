package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts the profiles that the environment asks for, for
// whoever measures licorice (docs/performance.md): LICORICE_CPUPROFILE
// names a file for a CPU profile of the whole command,
// LICORICE_MEMPROFILE one for a heap profile taken at its end. The
// returned function stops and writes them.
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
	return func() {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			cpuFile.Close()
		}
		if mem == "" {
			return
		}
		f, err := os.Create(mem)
		if err != nil {
			fmt.Fprintln(os.Stderr, "licorice: LICORICE_MEMPROFILE:", err)
			return
		}
		defer f.Close()
		runtime.GC()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			fmt.Fprintln(os.Stderr, "licorice: LICORICE_MEMPROFILE:", err)
		}
	}, nil
}
