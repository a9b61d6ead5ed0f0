// SPDX-License-Identifier: MIT
//
// gowork: burns CPU in named functions, allocates, contends on a mutex and
// blocks on channels, then writes what Go's runtime/pprof writes: cpu.pb.gz,
// heap.pb.gz, allocs.pb.gz, goroutine.pb.gz, mutex.pb.gz, block.pb.gz in DIR.
// Standard library only: go build gowork.go && ./gowork DIR
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"
)

var sink []byte
var kept [][]byte
var total uint64

//go:noinline
func hotLoop(n int) uint64 {
	x := uint64(1)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	return x
}

//go:noinline
func warmLoop(n int) uint64 { return hotLoop(n) + hotLoop(n/2) }

//go:noinline
func coldLoop(n int) uint64 { return hotLoop(n / 4) }

//go:noinline
func burn(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
		total += warmLoop(200000) + coldLoop(200000)
	}
}

//go:noinline
func allocSmall(n int) {
	for i := 0; i < n; i++ {
		sink = make([]byte, 64)
	}
}

//go:noinline
func allocLarge(n int) {
	for i := 0; i < n; i++ {
		kept = append(kept, make([]byte, 256<<10))
	}
}

//go:noinline
func contend(mu *sync.Mutex, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < 200; i++ {
		mu.Lock()
		total += hotLoop(20000)
		mu.Unlock()
	}
}

//go:noinline
func waitOn(ch chan int) int { return <-ch }

//go:noinline
func parked(ch chan int) { <-ch }

func write(dir, name string, debug int) {
	f, err := os.Create(filepath.Join(dir, name+".pb.gz"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := pprof.Lookup(name).WriteTo(f, debug); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	f.Close()
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gowork DIR")
		os.Exit(2)
	}
	dir := os.Args[1]
	runtime.MemProfileRate = 4096
	runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(1)

	cpu, err := os.Create(filepath.Join(dir, "cpu.pb.gz"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	pprof.StartCPUProfile(cpu)
	burn(1500 * time.Millisecond)
	allocSmall(20000)
	allocLarge(40)

	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go contend(&mu, &wg)
	}
	wg.Wait()

	ch := make(chan int)
	for i := 0; i < 3; i++ {
		go func() { time.Sleep(20 * time.Millisecond); ch <- 1 }()
		waitOn(ch)
	}
	stay := make(chan int)
	for i := 0; i < 3; i++ {
		go parked(stay)
	}
	pprof.StopCPUProfile()
	cpu.Close()

	runtime.GC()
	write(dir, "heap", 0)
	write(dir, "allocs", 0)
	write(dir, "goroutine", 0)
	write(dir, "mutex", 0)
	write(dir, "block", 0)
	runtime.KeepAlive(kept)
}
