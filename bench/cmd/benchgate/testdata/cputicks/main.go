// Command cputicks reaches the runtime's cputicks many times: block
// profiling times every blocking channel operation with it. The gate's
// valgrind test (TestCountedProgramsAvoidRDTSCP) runs it.
package main

import (
	"runtime"
	"time"
)

func main() {
	runtime.SetBlockProfileRate(1)
	c := make(chan int)
	go func() {
		for i := range 100 {
			if i%10 == 0 {
				time.Sleep(time.Millisecond) // the receiver parks
			}
			c <- i
		}
		close(c)
	}()
	for range c {
	}
}
