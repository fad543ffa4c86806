package compare

import (
	"bytes"
	"context"
	"testing"

	"github.com/licorice-dev/licorice/traces/droidracer"
)

// FuzzDroidRacer compares on arbitrary logs that Read accepts, with and
// without the lifecycle orders: it may refuse one (no report), never panic,
// and whatever it compares, each witness is on a location or unplaced.
func FuzzDroidRacer(f *testing.F) {
	f.Add([]byte(looper + posts + lines(
		"11 CALL tid:1\t msg:1", "rwId:1 WRITE tid:1 obj:0x10 class:LA; field:8", "12 ACCESS tid:1\t accessId:1", "13 RET tid:1\t msg:1",
		"14 CALL tid:1\t msg:2", "rwId:2 READ tid:1 obj:0x10 class:LA; field:8", "15 ACCESS tid:1\t accessId:2", "16 RET tid:1\t msg:2",
	) + report([][2]wa{{{1, true, "0x10", "LA;", 8, "", 1, 1}, {2, false, "0x10", "LA;", 8, "", 1, 2}}}, "cross-post: class: LA;  field:8")))
	f.Add([]byte(lines("1 THREADINIT tid:5", "2 THREADINIT tid:6",
		"rwId:1 WRITE tid:5 obj:0x30 class:LC; field:8", "3 ACCESS tid:5\t accessId:1",
		"4 LOCK tid:5\t lock-obj:0x91", "5 UNLOCK tid:5\t lock-obj:0x91", "6 LOCK tid:6\t lock-obj:0x91", "7 UNLOCK tid:6\t lock-obj:0x91",
		"rwId:2 READ tid:6 obj:0x30 class:LC; field:8", "8 ACCESS tid:6\t accessId:2") + report([][2]wa{{{9, true, "0x30", "LC;", 8, "", 5, 1}, {2, false, "0x30", "LC;", 8, "", 6, 2}}})))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := droidracer.Read(context.Background(), bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		c, err := DroidRacer(context.Background(), l, Config{Import: droidracer.Options{Lifecycle: len(data)%2 == 1}})
		if err != nil {
			return
		}
		n := len(c.Unplaced)
		for _, loc := range c.Locations {
			n += len(loc.Witnesses)
		}
		if n != c.Witnesses {
			t.Errorf("%d witnesses on locations or unplaced, %d in the report", n, c.Witnesses)
		}
		var b bytes.Buffer
		if err := c.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if err := c.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
	})
}
