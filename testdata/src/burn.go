// burn: spends CPU in a few functions, weighted by its second argument,
// and writes a CPU profile of it to its first argument.
package main

import (
	"os"
	"runtime/pprof"
	"strconv"
	"time"
)

var sink uint64

func spin(d time.Duration) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		for i := 0; i < 1000; i++ {
			sink = sink*6364136223846793005 + 1442695040888963407
		}
	}
}

func parse(d time.Duration)    { spin(d) }
func compress(d time.Duration) { spin(d) }
func hashing(d time.Duration)  { spin(d) }

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	w, _ := strconv.Atoi(os.Args[2])
	ms := time.Millisecond
	pprof.StartCPUProfile(f)
	parse(time.Duration(300) * ms)
	compress(time.Duration(100*w) * ms)
	hashing(time.Duration(400-100*w) * ms)
	pprof.StopCPUProfile()
	f.Close()
}
