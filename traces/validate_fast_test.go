package traces

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestValidatorLastTask: the validator's record of the last running task
// (a shortcut past the map of tasks) changes no verdict. Traces with
// mistakes made at random (an op given another task, dropped, repeated,
// an op of a looper while it runs an event) are checked by a validator that uses it and one that forgets it before
// every op; the two must report the same errors at the same ops.
func TestValidatorLastTask(t *testing.T) {
	for seed := range uint64(20) {
		_, ops, syms := benchOps(3000)
		rng := rand.New(rand.NewPCG(seed, 7))
		var tasks []Sym
		for i := range ops {
			tasks = append(tasks, ops[i].Task)
		}
		var mutated []Op
		for _, op := range ops {
			switch r := rng.IntN(200); {
			case r < 2:
				op.Task = tasks[rng.IntN(len(tasks))]
			case r < 3:
				continue
			case r < 4:
				mutated = append(mutated, op)
			case r < 24 && op.Kind == Begin:
				// The looper reads before and while it runs the event: the
				// second is a mistake, though the looper's record is the
				// last task's.
				read := Op{Kind: Read, Task: op.Thread, Loc: Location{Obj: tasks[0], Field: tasks[0]}, Val: Null()}
				mutated = append(mutated, read, op, read)
				continue
			}
			mutated = append(mutated, op)
		}
		fast, slow := NewValidator(syms), NewValidator(syms)
		errs, hits := 0, 0
		for i := range mutated {
			if fast.last != nil && mutated[i].Task == fast.lastID {
				hits++
			}
			slow.last = nil
			got, want := fmt.Sprint(fast.Check(&mutated[i], i+1)), fmt.Sprint(slow.Check(&mutated[i], i+1))
			if got != want {
				t.Fatalf("seed %d, op %d: with the last task %s, without %s", seed, i+1, got, want)
			}
			if want != "<nil>" {
				errs++
			}
		}
		if errs == 0 || hits < len(mutated)/2 {
			t.Fatalf("seed %d: %d errors, %d ops of the last task in %d: the test tests nothing", seed, errs, hits, len(mutated))
		}
	}
}
