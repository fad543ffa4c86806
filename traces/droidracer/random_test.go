package droidracer

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomLog writes n lines of a DroidRacer log drawn at random from a small
// vocabulary of threads, messages, queues, locks and objects, with no regard
// for the order a real run would have: every break of the trace contract the
// importer resolves is likely to appear.
func randomLog(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b strings.Builder
	tid := func() int { return 1 + rng.IntN(5) }
	msg := func() int { return 1 + rng.IntN(12) }
	obj := func() string { return fmt.Sprintf("0x%x", 0x41000000+rng.IntN(4)*8) }
	class := func() string { return []string{"LA;", "LB;"}[rng.IntN(2)] }
	id := 0
	for range n {
		id++
		var line string
		switch rng.IntN(30) {
		case 0:
			line = fmt.Sprintf("THREADINIT tid:%d", tid())
		case 1:
			line = fmt.Sprintf("THREADEXIT tid:%d", tid())
		case 2:
			line = fmt.Sprintf("FORK par-tid:%d\t child-tid:%d", tid(), tid())
		case 3:
			line = fmt.Sprintf("ATTACH-Q tid:%d\t queue:%d", tid(), 100+rng.IntN(3))
		case 4:
			line = fmt.Sprintf("LOOP tid:%d\t queue:%d", tid(), 100+rng.IntN(3))
		case 5, 6:
			line = fmt.Sprintf("POST src:%d msg:%d dest:-1 delay:%d", tid(), msg(), []int{0, 0, 10, -1, -3}[rng.IntN(5)])
		case 7, 8:
			line = fmt.Sprintf("CALL tid:%d\t msg:%d", tid(), msg())
		case 9, 10:
			line = fmt.Sprintf("RET tid:%d\t msg:%d", tid(), msg())
		case 11:
			line = fmt.Sprintf("LOCK tid:%d\t lock-obj:%s", tid(), obj())
		case 12:
			line = fmt.Sprintf("UNLOCK tid:%d\t lock-obj:%s", tid(), obj())
		case 13:
			line = fmt.Sprintf("NOTIFY tid:%d notifiedTid:%d", tid(), tid())
		case 14:
			line = fmt.Sprintf("WAIT tid:%d", tid())
		case 15:
			line = fmt.Sprintf("NATIVE-ENTRY tid:%dthread-name:Binder Thread #%d", tid(), rng.IntN(3))
		case 16:
			line = fmt.Sprintf("NATIVE-EXIT tid:%dthread-name:Binder", tid())
		case 17:
			line = fmt.Sprintf("ACCESS tid:%d\t accessId:%d", tid(), id)
		case 18, 19, 20:
			kind := []string{"READ", "WRITE"}[rng.IntN(2)]
			fmt.Fprintf(&b, "rwId:%d %s tid:%d obj:%s class:%s field:%d\n", id, kind, tid(), obj(), class(), 8*rng.IntN(3))
			continue
		case 21:
			fmt.Fprintf(&b, "rwId:%d WRITE-STATIC tid:%d class:%s field:7\n", id, tid(), class())
			continue
		case 22:
			line = fmt.Sprintf("ENABLE-EVENT tid:%d view:%d event:0", tid(), rng.IntN(2))
		case 23:
			line = fmt.Sprintf("TRIGGER-EVENT tid:%d view:%d event:0", tid(), rng.IntN(2))
		case 24:
			line = fmt.Sprintf("ENABLE-LIFECYCLE tid:%d component: id:%d state:RESUME-ACT", tid(), rng.IntN(2))
		case 25:
			state := []string{"LAUNCH-ACT", "RESUME-ACT", "PAUSE-ACT", "STOP-ACT", "DESTROY-ACT"}[rng.IntN(5)]
			line = fmt.Sprintf("TRIGGER-LIFECYCLE tid:%d component:A id:%d state:%s", tid(), []int{0, 1, 7}[rng.IntN(3)], state)
		case 26:
			line = fmt.Sprintf("ADD_IDLE_HANDLER idler:1 queue:%d", 100+rng.IntN(3))
		case 27:
			line = fmt.Sprintf("QUEUE_IDLE tid:%d idler:1 queue:%d", tid(), 100+rng.IntN(3))
		case 28:
			line = fmt.Sprintf("JOIN par-tid:%d\t child-tid:%d", tid(), tid())
		case 29:
			line = fmt.Sprintf("INSTANCE-INTENT tid:%d instance:7 intentId:%d", tid(), rng.IntN(2))
		}
		fmt.Fprintf(&b, "%d %s\n", id, line)
	}
	return b.String()
}

// Any log Read accepts imports to a valid trace, however its lines are
// ordered, with or without the lifecycle orders: Import checks every op it
// writes, so an import that succeeds wrote a valid trace.
func TestImportRandomLogs(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 200
	}
	for seed := range uint64(n) {
		log := randomLog(seed, 10+int(seed%150))
		opts := Options{Lifecycle: seed%2 == 1}
		if _, _, err := importTextWith(t, log, opts); err != nil {
			t.Fatalf("seed %d, %+v: %v\nlog:\n%s", seed, opts, err, log)
		}
	}
}
