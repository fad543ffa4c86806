package droidracer

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/licorice-dev/licorice/traces"
)

// importText imports a log given as text and returns the canonical JSONL of
// its ops (without the header) and the summary.
func importText(t testing.TB, text string) (string, *Summary, error) {
	t.Helper()
	return importTextWith(t, text, Options{})
}

// importTextWith is importText with import options.
func importTextWith(t testing.TB, text string, opts Options) (string, *Summary, error) {
	t.Helper()
	l, err := Read(context.Background(), strings.NewReader(text), "log")
	if err != nil {
		return "", nil, err
	}
	var buf bytes.Buffer
	syms := traces.NewSymbols()
	w, err := traces.NewWriter(&buf, traces.JSONL, Header(""), syms)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := l.ImportWith(context.Background(), w, syms, opts)
	if err != nil {
		return "", nil, err
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, ops, _ := strings.Cut(buf.String(), "\n")
	return ops, sum, nil
}

// lines joins log lines; "\t" in them stands for DroidRacer's tabs.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// adjusted lists the adjustment kinds a summary reports.
func adjusted(s *Summary) []adjKind {
	var ks []adjKind
	for _, a := range s.Adjustments {
		k := adjKind(slices.Index(adjWhat[:], a.What))
		ks = append(ks, k)
	}
	return ks
}

// A looper with its queue, used by most cases.
const looper = "1 START\n2 THREADINIT tid:1\n3 ATTACH-Q tid:1\t queue:100\n4 LOOP tid:1\t queue:100\n"

const looperOps = `{"op":"thread_begin","t":"t1","kind":"looper","src":"droidracer:2"}
{"op":"attach","t":"t1","q":"q100","src":"droidracer:3"}
`

// importCase is a log excerpt, the ops it imports to and the adjustments
// its summary reports.
type importCase struct {
	name string
	opts Options
	log  string
	want string // canonical JSONL of the ops
	adj  []adjKind
}

func runImportCases(t *testing.T, tests []importCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sum, err := importTextWith(t, tt.log, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("ops:\n%s\nwant:\n%s", got, tt.want)
			}
			if adj := adjusted(sum); !slices.Equal(adj, tt.adj) {
				t.Errorf("adjustments %v, want %v", adj, tt.adj)
			}
		})
	}
}

func TestImportMapping(t *testing.T) {
	runImportCases(t, []importCase{
		{
			name: "POST from a native bracket, CALL, RET",
			log: looper + lines(
				"5 NATIVE-ENTRY tid:2thread-name:Binder Thread #1",
				"6 POST src:2 msg:1 dest:-1 delay:0",
				"7 NATIVE-EXIT tid:2thread-name:Binder Thread #1",
				"8 CALL tid:1\t msg:1",
				"9 RET tid:1\t msg:1"),
			want: looperOps + `{"op":"thread_begin","t":"t2#5","name":"Binder Thread #1","src":"droidracer:5"}
{"op":"send","t":"t2#5","q":"q100","e":"m1","src":"droidracer:6"}
{"op":"thread_end","t":"t2#5","src":"droidracer:7"}
{"op":"begin","t":"m1","thread":"t1","src":"droidracer:8"}
{"op":"end","t":"m1","src":"droidracer:9"}
`,
		},
		{
			name: "successive brackets of one binder thread are separate tasks",
			log: looper + lines(
				"5 NATIVE-ENTRY tid:2thread-name:Binder Thread #1",
				"6 POST src:2 msg:1 dest:-1 delay:0",
				"7 NATIVE-EXIT tid:2thread-name:Binder Thread #1",
				"8 NATIVE-ENTRY tid:2thread-name:Binder Thread #1",
				"9 POST src:2 msg:2 dest:-1 delay:0",
				"10 NATIVE-EXIT tid:2thread-name:Binder Thread #1",
				"11 CALL tid:1\t msg:1", "12 RET tid:1\t msg:1",
				"13 CALL tid:1\t msg:2", "14 RET tid:1\t msg:2"),
			want: looperOps + `{"op":"thread_begin","t":"t2#5","name":"Binder Thread #1","src":"droidracer:5"}
{"op":"send","t":"t2#5","q":"q100","e":"m1","src":"droidracer:6"}
{"op":"thread_end","t":"t2#5","src":"droidracer:7"}
{"op":"thread_begin","t":"t2#8","name":"Binder Thread #1","src":"droidracer:8"}
{"op":"send","t":"t2#8","q":"q100","e":"m2","src":"droidracer:9"}
{"op":"thread_end","t":"t2#8","src":"droidracer:10"}
{"op":"begin","t":"m1","thread":"t1","src":"droidracer:11"}
{"op":"end","t":"m1","src":"droidracer:12"}
{"op":"begin","t":"m2","thread":"t1","src":"droidracer:13"}
{"op":"end","t":"m2","src":"droidracer:14"}
`,
		},
		{
			name: "delays kept, front of queue and at-time posts, posts never called dropped",
			log: looper + lines(
				"5 CALL tid:1\t msg:1",
				"6 POST src:1 msg:2 dest:-1 delay:1200",
				"7 POST src:1 msg:3 dest:-1 delay:-1",
				"8 POST src:1 msg:4 dest:-1 delay:500 foq:0 neg:0 atTime:1",
				"9 POST src:1 msg:5 dest:-1 delay:300000",
				"10 RET tid:1\t msg:1",
				"11 CALL tid:1\t msg:3", "12 RET tid:1\t msg:3",
				"13 CALL tid:1\t msg:2", "14 RET tid:1\t msg:2",
				"15 CALL tid:1\t msg:4", "16 RET tid:1\t msg:4"),
			want: looperOps + `{"op":"thread_begin","t":"sender#5","src":"droidracer:5"}
{"op":"send","t":"sender#5","q":"q100","e":"m1","src":"droidracer:5"}
{"op":"thread_end","t":"sender#5","src":"droidracer:5"}
{"op":"begin","t":"m1","thread":"t1","src":"droidracer:5"}
{"op":"send","t":"m1","q":"q100","e":"m2","delay":1200,"src":"droidracer:6"}
{"op":"send","t":"m1","q":"q100","e":"m3","kind":"at_front","src":"droidracer:7"}
{"op":"send","t":"m1","q":"q100","e":"m4","kind":"at_time","at":500,"src":"droidracer:8"}
{"op":"end","t":"m1","src":"droidracer:10"}
{"op":"begin","t":"m3","thread":"t1","src":"droidracer:11"}
{"op":"end","t":"m3","src":"droidracer:12"}
{"op":"begin","t":"m2","thread":"t1","src":"droidracer:13"}
{"op":"end","t":"m2","src":"droidracer:14"}
{"op":"begin","t":"m4","thread":"t1","src":"droidracer:15"}
{"op":"end","t":"m4","src":"droidracer:16"}
`,
			adj: []adjKind{adjPostNeverCalled, adjCallWithoutPost},
		},
		{
			name: "FORK, THREADINIT, THREADEXIT and NOTIFY->WAIT as a join",
			log: looper + lines(
				"5 CALL tid:1\t msg:1",
				"6 FORK par-tid:1\t child-tid:5",
				"7 THREADINIT tid:5",
				"8 NOTIFY tid:5 notifiedTid:1",
				"9 THREADEXIT tid:5",
				"10 WAIT tid:1",
				"11 WAIT tid:1",
				"12 RET tid:1\t msg:1"),
			want: looperOps + `{"op":"thread_begin","t":"sender#5","src":"droidracer:5"}
{"op":"send","t":"sender#5","q":"q100","e":"m1","src":"droidracer:5"}
{"op":"thread_end","t":"sender#5","src":"droidracer:5"}
{"op":"begin","t":"m1","thread":"t1","src":"droidracer:5"}
{"op":"fork","t":"m1","child":"t5","src":"droidracer:6"}
{"op":"thread_begin","t":"t5","src":"droidracer:7"}
{"op":"signal","t":"t5","m":"notify@8","src":"droidracer:8"}
{"op":"thread_end","t":"t5","src":"droidracer:9"}
{"op":"wait","t":"m1","m":"notify@8","src":"droidracer:10"}
{"op":"wait","t":"m1","m":"unmatched@11","src":"droidracer:11"}
{"op":"end","t":"m1","src":"droidracer:12"}
`,
			adj: []adjKind{adjCallWithoutPost, adjWaitWithoutNotify},
		},
		{
			name: "JOIN",
			log: lines("1 THREADINIT tid:1", "2 FORK par-tid:1\t child-tid:5", "3 THREADINIT tid:5",
				"4 THREADEXIT tid:5", "5 JOIN par-tid:1\t child-tid:5", "6 JOIN par-tid:1\t child-tid:6"),
			want: `{"op":"thread_begin","t":"t1","src":"droidracer:1"}
{"op":"fork","t":"t1","child":"t5","src":"droidracer:2"}
{"op":"thread_begin","t":"t5","src":"droidracer:3"}
{"op":"thread_end","t":"t5","src":"droidracer:4"}
{"op":"join","t":"t1","child":"t5","src":"droidracer:5"}
`,
			adj: []adjKind{adjJoinNotEnded},
		},
		{
			name: "LOCK and UNLOCK",
			log:  lines("1 THREADINIT tid:1", "2 LOCK tid:1\t lock-obj:0x41060aa8", "3 UNLOCK tid:1\t lock-obj:0x41060aa8"),
			want: `{"op":"thread_begin","t":"t1","src":"droidracer:1"}
{"op":"lock","t":"t1","l":"0x41060aa8","src":"droidracer:2"}
{"op":"unlock","t":"t1","l":"0x41060aa8","src":"droidracer:3"}
`,
		},
		{
			name: "ACCESS blocks of interleaved threads, each placed at its ACCESS line",
			log: lines("1 THREADINIT tid:1", "2 THREADINIT tid:5",
				"rwId:1 READ tid:1 obj:0x4109c470 class:Lcom/x/A; field:8",
				"rwId:2 WRITE tid:5 obj:0x4109c470 class:Lcom/x/A; field:8",
				"rwId:3 WRITE tid:1 obj:0x41061250 class:Ljava/lang/StringBuilder; field:16",
				"3 ACCESS tid:5\t accessId:1",
				"4 ACCESS tid:1\t accessId:2"),
			want: `{"op":"thread_begin","t":"t1","src":"droidracer:1"}
{"op":"thread_begin","t":"t5","src":"droidracer:2"}
{"op":"write","t":"t5","obj":"0x4109c470","field":"8","src":"droidracer:rw2"}
{"op":"read","t":"t1","obj":"0x4109c470","field":"8","src":"droidracer:rw1"}
{"op":"write","t":"t1","obj":"0x41061250","field":"16","src":"droidracer:rw3"}
`,
		},
		{
			name: "statics and databases",
			log: lines("1 THREADINIT tid:1",
				"rwId:1 WRITE-STATIC tid:1 class:Lcom/x/RemindMe; field:4326",
				"rwId:2 READ-STATIC tid:1 class:Lcom/x/Util; field:4341",
				"rwId:3 WRITE tid:1 database:/data/data/com.x/databases/x.db",
				"rwId:4 READ tid:1 database:/data/data/com.x/databases/x.db",
				"2 ACCESS tid:1\t accessId:1"),
			want: `{"op":"thread_begin","t":"t1","src":"droidracer:1"}
{"op":"write","t":"t1","class":"Lcom/x/RemindMe;","field":"4326","src":"droidracer:rw1"}
{"op":"read","t":"t1","class":"Lcom/x/Util;","field":"4341","src":"droidracer:rw2"}
{"op":"write","t":"t1","obj":"db:/data/data/com.x/databases/x.db","field":"*","src":"droidracer:rw3"}
{"op":"read","t":"t1","obj":"db:/data/data/com.x/databases/x.db","field":"*","src":"droidracer:rw4"}
`,
		},
		{
			name: "a looper's own ops between events form a run, a short-lived thread of its own; its posts are input",
			log: looper + lines(
				"5 POST src:1 msg:1 dest:-1 delay:0",
				"6 POST src:1 msg:2 dest:-1 delay:0",
				"7 CALL tid:1\t msg:1",
				"8 POST src:1 msg:3 dest:-1 delay:0",
				"9 RET tid:1\t msg:1",
				"10 POST src:1 msg:4 dest:-1 delay:0",
				"11 CALL tid:1\t msg:2", "12 RET tid:1\t msg:2",
				"13 CALL tid:1\t msg:3", "14 RET tid:1\t msg:3",
				"15 CALL tid:1\t msg:4", "16 RET tid:1\t msg:4"),
			want: looperOps + `{"op":"thread_begin","t":"t1@5","src":"droidracer:5"}
{"op":"send","t":"t1@5","q":"q100","e":"m1","external":true,"src":"droidracer:5"}
{"op":"send","t":"t1@5","q":"q100","e":"m2","external":true,"src":"droidracer:6"}
{"op":"thread_end","t":"t1@5","src":"droidracer:7"}
{"op":"begin","t":"m1","thread":"t1","src":"droidracer:7"}
{"op":"send","t":"m1","q":"q100","e":"m3","src":"droidracer:8"}
{"op":"end","t":"m1","src":"droidracer:9"}
{"op":"thread_begin","t":"t1@10","src":"droidracer:10"}
{"op":"send","t":"t1@10","q":"q100","e":"m4","external":true,"src":"droidracer:10"}
{"op":"thread_end","t":"t1@10","src":"droidracer:11"}
{"op":"begin","t":"m2","thread":"t1","src":"droidracer:11"}
{"op":"end","t":"m2","src":"droidracer:12"}
{"op":"begin","t":"m3","thread":"t1","src":"droidracer:13"}
{"op":"end","t":"m3","src":"droidracer:14"}
{"op":"begin","t":"m4","thread":"t1","src":"droidracer:15"}
{"op":"end","t":"m4","src":"droidracer:16"}
`,
		},
		{
			name: "ENABLE-EVENT -> TRIGGER-EVENT: waits before the post and at the trigger",
			log: looper + lines(
				"5 NATIVE-ENTRY tid:2thread-name:Binder Thread #1",
				"6 POST src:2 msg:1 dest:-1 delay:0",
				"7 NATIVE-EXIT tid:2thread-name:Binder Thread #1",
				"8 CALL tid:1\t msg:1",
				"9 ENABLE-EVENT tid:1 view:1091355744 event:0",
				"10 RET tid:1\t msg:1",
				"11 POST src:1 msg:2 dest:-1 delay:0",
				"12 CALL tid:1\t msg:2",
				"13 TRIGGER-EVENT tid:1 view:1091355744 event:0",
				"14 RET tid:1\t msg:2"),
			want: looperOps + `{"op":"thread_begin","t":"t2#5","name":"Binder Thread #1","src":"droidracer:5"}
{"op":"send","t":"t2#5","q":"q100","e":"m1","src":"droidracer:6"}
{"op":"thread_end","t":"t2#5","src":"droidracer:7"}
{"op":"begin","t":"m1","thread":"t1","src":"droidracer:8"}
{"op":"signal","t":"m1","m":"event@9","src":"droidracer:9"}
{"op":"end","t":"m1","src":"droidracer:10"}
{"op":"thread_begin","t":"t1@11","src":"droidracer:11"}
{"op":"wait","t":"t1@11","m":"event@9","src":"droidracer:13"}
{"op":"send","t":"t1@11","q":"q100","e":"m2","external":true,"src":"droidracer:11"}
{"op":"thread_end","t":"t1@11","src":"droidracer:12"}
{"op":"begin","t":"m2","thread":"t1","src":"droidracer:12"}
{"op":"wait","t":"m2","m":"event@9","src":"droidracer:13"}
{"op":"end","t":"m2","src":"droidracer:14"}
`,
		},
		{
			name: "an enable after the trigger's post is waited for at the trigger only",
			log: looper + lines(
				"5 POST src:1 msg:2 dest:-1 delay:0",
				"6 ENABLE-WINDOW-FOCUS tid:1 windowHash:1090940624",
				"7 CALL tid:1\t msg:2",
				"8 TRIGGER-WINDOW-FOCUS tid:1 windowHash:1090940624",
				"9 TRIGGER-WINDOW-FOCUS tid:1 windowHash:1090940625",
				"10 RET tid:1\t msg:2"),
			want: looperOps + `{"op":"thread_begin","t":"t1@5","src":"droidracer:5"}
{"op":"send","t":"t1@5","q":"q100","e":"m2","external":true,"src":"droidracer:5"}
{"op":"signal","t":"t1@5","m":"focus@6","src":"droidracer:6"}
{"op":"thread_end","t":"t1@5","src":"droidracer:7"}
{"op":"begin","t":"m2","thread":"t1","src":"droidracer:7"}
{"op":"wait","t":"m2","m":"focus@6","src":"droidracer:8"}
{"op":"wait","t":"m2","m":"unmatched@9","src":"droidracer:9"}
{"op":"end","t":"m2","src":"droidracer:10"}
`,
			adj: []adjKind{adjTriggerWithoutEnable},
		},
		{
			name: "lifecycle: intent ids become instances, untriggered enables all match, blank resume",
			log: lines("1 THREADINIT tid:1",
				"5 ENABLE-LIFECYCLE tid:1 component: id:1 state:LAUNCH-ACT",
				"6 ENABLE-LIFECYCLE tid:1 component: id:1 state:RESUME-ACT",
				"7 INSTANCE-INTENT tid:1 instance:1091240216 intentId:1",
				"8 TRIGGER-LIFECYCLE tid:1 component:Main id:1091240216 state:LAUNCH-ACT",
				"9 TRIGGER-LIFECYCLE tid:1 component:Main id:1091240216 state:RESUME-ACT",
				"10 ENABLE-LIFECYCLE tid:1 component:Main id:1091240216 state:PAUSE-ACT",
				"11 ENABLE-LIFECYCLE tid:1 component:Main id:1091240216 state:PAUSE-ACT",
				"12 TRIGGER-LIFECYCLE tid:1 component:Main id:1091240216 state:PAUSE-ACT",
				"13 TRIGGER-LIFECYCLE tid:1 component:Main id:1091240216 state:PAUSE-ACT",
				"14 ENABLE-LIFECYCLE tid:1 component: id:0 state:RESUME-ACT",
				"15 TRIGGER-LIFECYCLE tid:1 component:Main id:1091240216 state:RESUME-ACT"),
			want: `{"op":"thread_begin","t":"t1","src":"droidracer:1"}
{"op":"signal","t":"t1","m":"lifecycle@5","src":"droidracer:5"}
{"op":"signal","t":"t1","m":"lifecycle@6","src":"droidracer:6"}
{"op":"wait","t":"t1","m":"lifecycle@5","src":"droidracer:8"}
{"op":"wait","t":"t1","m":"lifecycle@6","src":"droidracer:9"}
{"op":"signal","t":"t1","m":"lifecycle@10","src":"droidracer:10"}
{"op":"signal","t":"t1","m":"lifecycle@11","src":"droidracer:11"}
{"op":"wait","t":"t1","m":"lifecycle@11","src":"droidracer:12"}
{"op":"wait","t":"t1","m":"lifecycle@10","src":"droidracer:12"}
{"op":"wait","t":"t1","m":"unmatched@13","src":"droidracer:13"}
{"op":"signal","t":"t1","m":"lifecycle@14","src":"droidracer:14"}
{"op":"wait","t":"t1","m":"lifecycle@14","src":"droidracer:15"}
`,
			adj: []adjKind{adjTriggerWithoutEnable},
		},
		{
			name: "idle handler: ADD (no tid) on the queue's looper, QUEUE_IDLE in an idle message on a queue of its own",
			log: looper + lines(
				"5 CALL tid:1\t msg:1",
				"6 ADD_IDLE_HANDLER idler:7 queue:100",
				"7 RET tid:1\t msg:1",
				"8 POST src:1 msg:2 dest:-1 delay:0",
				"9 CALL tid:1\t msg:2",
				"10 QUEUE_IDLE tid:1 idler:7 queue:100",
				"11 RET tid:1\t msg:2",
				"12 REMOVE_IDLE_HANDLER idler:7 queue:100",
				"13 ADD_IDLE_HANDLER idler:8 queue:999"),
			want: `{"op":"thread_begin","t":"t1","kind":"looper","src":"droidracer:2"}
{"op":"attach","t":"t1","q":"q100/idle","src":"droidracer:2"}
{"op":"attach","t":"t1","q":"q100","src":"droidracer:3"}
{"op":"thread_begin","t":"sender#5","src":"droidracer:5"}
{"op":"send","t":"sender#5","q":"q100","e":"m1","src":"droidracer:5"}
{"op":"thread_end","t":"sender#5","src":"droidracer:5"}
{"op":"begin","t":"m1","thread":"t1","src":"droidracer:5"}
{"op":"signal","t":"m1","m":"idle@6","src":"droidracer:6"}
{"op":"end","t":"m1","src":"droidracer:7"}
{"op":"thread_begin","t":"t1@8","src":"droidracer:8"}
{"op":"wait","t":"t1@8","m":"idle@6","src":"droidracer:10"}
{"op":"send","t":"t1@8","q":"q100/idle","e":"m2","src":"droidracer:8"}
{"op":"thread_end","t":"t1@8","src":"droidracer:9"}
{"op":"begin","t":"m2","thread":"t1","src":"droidracer:9"}
{"op":"wait","t":"m2","m":"idle@6","src":"droidracer:10"}
{"op":"end","t":"m2","src":"droidracer:11"}
`,
			adj: []adjKind{adjCallWithoutPost, adjIdleUnknownQueue},
		},
		{
			name: "broadcasts: registration and send enable, onReceive triggers",
			log: lines("1 THREADINIT tid:1",
				"2 TRIGGER-BROADCAST tid:1 action:a.B component:77 intent:0 onRecLater:-1 state:ABC_REGISTER_RECEIVER",
				"3 TRIGGER-BROADCAST tid:1 action:a.B component:0 intent:9 onRecLater:-1 state:ABC_SEND_BROADCAST",
				"4 TRIGGER-BROADCAST tid:1 action:a.B component:77 intent:9 onRecLater:-1 state:ABC_TRIGGER_ONRECIEVE_LATER",
				"5 TRIGGER-BROADCAST tid:1 action:a.B component:77 intent:9 onRecLater:4 state:ABC_ONRECEIVE",
				"6 TRIGGER-BROADCAST tid:1 action:a.B component:77 intent:0 onRecLater:-1 state:ABC_UNREGISTER_RECEIVER",
				"7 TRIGGER-BROADCAST tid:1 action:a.B component:77 intent:0 onRecLater:-1 state:ABC_ONRECEIVE",
				"8 REGISTER-RECEIVER tid:1 component:x action:a.C",
				"9 TRIGGER-RECEIVER tid:1 component:x action:a.C"),
			want: `{"op":"thread_begin","t":"t1","src":"droidracer:1"}
{"op":"signal","t":"t1","m":"broadcast@2","src":"droidracer:2"}
{"op":"signal","t":"t1","m":"broadcast@3","src":"droidracer:3"}
{"op":"wait","t":"t1","m":"broadcast@3","src":"droidracer:5"}
{"op":"wait","t":"t1","m":"broadcast@2","src":"droidracer:5"}
{"op":"wait","t":"t1","m":"unmatched@7","src":"droidracer:7"}
{"op":"signal","t":"t1","m":"receiver@8","src":"droidracer:8"}
{"op":"wait","t":"t1","m":"receiver@8","src":"droidracer:9"}
`,
			adj: []adjKind{adjTriggerWithoutEnable},
		},
		{
			name: "services: requests enable, lifecycle callbacks trigger",
			log: lines("1 THREADINIT tid:1",
				"2 TRIGGER-SERVICE tid:1 component:S id:5 state:REQUEST_START_SERVICE",
				"3 TRIGGER-SERVICE tid:1 component:S id:5 state:CREATE-SERVICE",
				"4 TRIGGER-SERVICE tid:1 component:S id:5 state:SERVICE-ARGS"),
			want: `{"op":"thread_begin","t":"t1","src":"droidracer:1"}
{"op":"signal","t":"t1","m":"service@2","src":"droidracer:2"}
{"op":"wait","t":"t1","m":"service@2","src":"droidracer:3"}
{"op":"wait","t":"t1","m":"service@2","src":"droidracer:4"}
`,
		},
		{
			name: "unknown keywords are reported, not imported",
			log:  lines("1 THREADINIT tid:1", "2 FROBNICATE tid:1 x:1", "3 TRIGGER-BROADCAST tid:1 action:a component:1 intent:0 onRecLater:-1 state:ABC_NEW"),
			want: `{"op":"thread_begin","t":"t1","src":"droidracer:1"}
`,
		},
	})
}

// With Options.Lifecycle, the callbacks of one activity instance are
// ordered as DroidRacer's activity state machine orders them.
func TestImportLifecycle(t *testing.T) {
	// An activity launched and resumed in one message, paused in a second,
	// stopped and destroyed in a third; the binder thread posts all three.
	// No trigger has an enable.
	activity := looper + lines(
		"5 NATIVE-ENTRY tid:2thread-name:Binder Thread #1", "6 POST src:2 msg:1 dest:-1 delay:0", "7 NATIVE-EXIT tid:2thread-name:Binder Thread #1",
		"8 NATIVE-ENTRY tid:2thread-name:Binder Thread #1", "9 POST src:2 msg:2 dest:-1 delay:0", "10 NATIVE-EXIT tid:2thread-name:Binder Thread #1",
		"11 CALL tid:1\t msg:1",
		"12 TRIGGER-LIFECYCLE tid:1 component: id:1 state:LAUNCH-ACT",
		"13 INSTANCE-INTENT tid:1 instance:77 intentId:1",
		"14 TRIGGER-LIFECYCLE tid:1 component:Main id:77 state:RESUME-ACT",
		"15 RET tid:1\t msg:1",
		"16 NATIVE-ENTRY tid:2thread-name:Binder Thread #1", "17 POST src:2 msg:3 dest:-1 delay:0", "18 NATIVE-EXIT tid:2thread-name:Binder Thread #1",
		"19 CALL tid:1\t msg:2",
		"20 TRIGGER-LIFECYCLE tid:1 component:Main id:77 state:PAUSE-ACT",
		"21 RET tid:1\t msg:2",
		"22 CALL tid:1\t msg:3",
		"23 TRIGGER-LIFECYCLE tid:1 component:Main id:77 state:STOP-ACT",
		"24 TRIGGER-LIFECYCLE tid:1 component:Main id:77 state:DESTROY-ACT",
		"25 RET tid:1\t msg:3")
	const sends = `{"op":"thread_begin","t":"t2#5","name":"Binder Thread #1","src":"droidracer:5"}
{"op":"send","t":"t2#5","q":"q100","e":"m1","src":"droidracer:6"}
`
	runImportCases(t, []importCase{
		{
			name: "without the option, triggers without enables wait for nothing",
			log:  activity,
			want: looperOps + sends + `{"op":"thread_end","t":"t2#5","src":"droidracer:7"}
{"op":"thread_begin","t":"t2#8","name":"Binder Thread #1","src":"droidracer:8"}
{"op":"send","t":"t2#8","q":"q100","e":"m2","src":"droidracer:9"}
{"op":"thread_end","t":"t2#8","src":"droidracer:10"}
{"op":"begin","t":"m1","thread":"t1","src":"droidracer:11"}
{"op":"wait","t":"m1","m":"unmatched@12","src":"droidracer:12"}
{"op":"wait","t":"m1","m":"unmatched@14","src":"droidracer:14"}
{"op":"end","t":"m1","src":"droidracer:15"}
{"op":"thread_begin","t":"t2#16","name":"Binder Thread #1","src":"droidracer:16"}
{"op":"send","t":"t2#16","q":"q100","e":"m3","src":"droidracer:17"}
{"op":"thread_end","t":"t2#16","src":"droidracer:18"}
{"op":"begin","t":"m2","thread":"t1","src":"droidracer:19"}
{"op":"wait","t":"m2","m":"unmatched@20","src":"droidracer:20"}
{"op":"end","t":"m2","src":"droidracer:21"}
{"op":"begin","t":"m3","thread":"t1","src":"droidracer:22"}
{"op":"wait","t":"m3","m":"unmatched@23","src":"droidracer:23"}
{"op":"wait","t":"m3","m":"unmatched@24","src":"droidracer:24"}
{"op":"end","t":"m3","src":"droidracer:25"}
`,
			adj: []adjKind{adjTriggerWithoutEnable},
		},
		{
			name: "resume -> pause -> stop: the end of each callback's event before the next callback, each post before the next",
			opts: Options{Lifecycle: true},
			log:  activity,
			want: looperOps + sends + `{"op":"signal","t":"t2#5","m":"activity-post@14","src":"droidracer:6"}
{"op":"thread_end","t":"t2#5","src":"droidracer:7"}
{"op":"thread_begin","t":"t2#8","name":"Binder Thread #1","src":"droidracer:8"}
{"op":"wait","t":"t2#8","m":"activity-post@14","src":"droidracer:20"}
{"op":"send","t":"t2#8","q":"q100","e":"m2","src":"droidracer:9"}
{"op":"signal","t":"t2#8","m":"activity-post@20","src":"droidracer:9"}
{"op":"thread_end","t":"t2#8","src":"droidracer:10"}
{"op":"begin","t":"m1","thread":"t1","src":"droidracer:11"}
{"op":"wait","t":"m1","m":"unmatched@12","src":"droidracer:12"}
{"op":"wait","t":"m1","m":"unmatched@14","src":"droidracer:14"}
{"op":"signal","t":"m1","m":"activity@14","src":"droidracer:15"}
{"op":"end","t":"m1","src":"droidracer:15"}
{"op":"thread_begin","t":"t2#16","name":"Binder Thread #1","src":"droidracer:16"}
{"op":"wait","t":"t2#16","m":"activity-post@20","src":"droidracer:23"}
{"op":"send","t":"t2#16","q":"q100","e":"m3","src":"droidracer:17"}
{"op":"thread_end","t":"t2#16","src":"droidracer:18"}
{"op":"begin","t":"m2","thread":"t1","src":"droidracer:19"}
{"op":"wait","t":"m2","m":"activity@14","src":"droidracer:20"}
{"op":"signal","t":"m2","m":"activity@20","src":"droidracer:21"}
{"op":"end","t":"m2","src":"droidracer:21"}
{"op":"begin","t":"m3","thread":"t1","src":"droidracer:22"}
{"op":"wait","t":"m3","m":"activity@20","src":"droidracer:23"}
{"op":"wait","t":"m3","m":"unmatched@24","src":"droidracer:24"}
{"op":"end","t":"m3","src":"droidracer:25"}
`,
			adj: []adjKind{adjTriggerWithoutEnable},
		},
		{
			name: "outside events the trigger signals; a transition the machine lacks orders nothing; enables are still waited for",
			opts: Options{Lifecycle: true},
			log: lines("1 THREADINIT tid:1",
				"2 TRIGGER-LIFECYCLE tid:1 component: id:5 state:LAUNCH-ACT",
				"3 TRIGGER-LIFECYCLE tid:1 component: id:5 state:STOP-ACT",
				"4 ENABLE-LIFECYCLE tid:1 component: id:5 state:PAUSE-ACT",
				"5 TRIGGER-LIFECYCLE tid:1 component: id:5 state:PAUSE-ACT",
				"6 TRIGGER-LIFECYCLE tid:1 component: id:6 state:LAUNCH-ACT",
				"7 TRIGGER-LIFECYCLE tid:1 component: id:6 state:RESUME-ACT",
				"8 TRIGGER-LIFECYCLE tid:1 component: id:9 state:RESUME-ACT"),
			want: `{"op":"thread_begin","t":"t1","src":"droidracer:1"}
{"op":"wait","t":"t1","m":"unmatched@2","src":"droidracer:2"}
{"op":"wait","t":"t1","m":"unmatched@3","src":"droidracer:3"}
{"op":"signal","t":"t1","m":"lifecycle@4","src":"droidracer:4"}
{"op":"wait","t":"t1","m":"lifecycle@4","src":"droidracer:5"}
{"op":"signal","t":"t1","m":"activity@6","src":"droidracer:6"}
{"op":"wait","t":"t1","m":"unmatched@6","src":"droidracer:6"}
{"op":"wait","t":"t1","m":"activity@6","src":"droidracer:7"}
{"op":"wait","t":"t1","m":"unmatched@8","src":"droidracer:8"}
`,
			adj: []adjKind{adjTriggerWithoutEnable},
		},
	})
}

// Logs that break the trace contract import to valid traces; each break is
// resolved as docs/droidracer.md says and counted in the summary.
func TestImportContractBreaks(t *testing.T) {
	runImportCases(t, []importCase{
		{
			name: "ops after THREADEXIT: thread_end after the thread's last op",
			log: lines("1 THREADINIT tid:1", "2 FORK par-tid:1\t child-tid:5", "3 THREADINIT tid:5",
				"4 THREADEXIT tid:5", "5 LOCK tid:5\t lock-obj:0x1", "6 UNLOCK tid:5\t lock-obj:0x1",
				"7 LOCK tid:1\t lock-obj:0x1", "8 UNLOCK tid:1\t lock-obj:0x1"),
			want: `{"op":"thread_begin","t":"t1","src":"droidracer:1"}
{"op":"fork","t":"t1","child":"t5","src":"droidracer:2"}
{"op":"thread_begin","t":"t5","src":"droidracer:3"}
{"op":"lock","t":"t5","l":"0x1","src":"droidracer:5"}
{"op":"unlock","t":"t5","l":"0x1","src":"droidracer:6"}
{"op":"thread_end","t":"t5","src":"droidracer:4"}
{"op":"lock","t":"t1","l":"0x1","src":"droidracer:7"}
{"op":"unlock","t":"t1","l":"0x1","src":"droidracer:8"}
`,
			adj: []adjKind{adjExitDeferred},
		},
		{
			name: "nested CALL: flattened into the running event",
			log: looper + lines(
				"5 NATIVE-ENTRY tid:2thread-name:B",
				"6 POST src:2 msg:1 dest:-1 delay:0",
				"7 POST src:2 msg:2 dest:-1 delay:0",
				"8 NATIVE-EXIT tid:2thread-name:B",
				"9 CALL tid:1\t msg:1",
				"10 CALL tid:1\t msg:2",
				"rwId:1 WRITE tid:1 obj:0x5 class:LA; field:8",
				"11 ACCESS tid:1\t accessId:1",
				"12 RET tid:1\t msg:2",
				"13 RET tid:1\t msg:1"),
			want: looperOps + `{"op":"thread_begin","t":"t2#5","name":"B","src":"droidracer:5"}
{"op":"send","t":"t2#5","q":"q100","e":"m1","src":"droidracer:6"}
{"op":"signal","t":"t2#5","m":"nested@10","src":"droidracer:7"}
{"op":"thread_end","t":"t2#5","src":"droidracer:8"}
{"op":"begin","t":"m1","thread":"t1","src":"droidracer:9"}
{"op":"wait","t":"m1","m":"nested@10","src":"droidracer:10"}
{"op":"write","t":"m1","obj":"0x5","field":"8","src":"droidracer:rw1"}
{"op":"end","t":"m1","src":"droidracer:13"}
`,
			adj: []adjKind{adjNestedCall},
		},
		{
			name: "a lock another task holds gets an alias; an unlock not held is dropped",
			log: lines("1 THREADINIT tid:1", "2 THREADINIT tid:5",
				"3 LOCK tid:1\t lock-obj:0x1", "4 LOCK tid:5\t lock-obj:0x1", "5 UNLOCK tid:5\t lock-obj:0x1",
				"6 UNLOCK tid:5\t lock-obj:0x1", "7 UNLOCK tid:1\t lock-obj:0x1"),
			want: `{"op":"thread_begin","t":"t1","src":"droidracer:1"}
{"op":"thread_begin","t":"t5","src":"droidracer:2"}
{"op":"lock","t":"t1","l":"0x1","src":"droidracer:3"}
{"op":"lock","t":"t5","l":"0x1/2","src":"droidracer:4"}
{"op":"unlock","t":"t5","l":"0x1/2","src":"droidracer:5"}
{"op":"unlock","t":"t1","l":"0x1","src":"droidracer:7"}
`,
			adj: []adjKind{adjLockHeldByOther, adjUnlockNotHeld},
		},
		{
			name: "locks still held at RET and THREADEXIT are released there",
			log: looper + lines("5 CALL tid:1\t msg:1", "6 LOCK tid:1\t lock-obj:0x1", "7 RET tid:1\t msg:1",
				"8 THREADINIT tid:5", "9 LOCK tid:5\t lock-obj:0x2", "10 THREADEXIT tid:5"),
			want: looperOps + `{"op":"thread_begin","t":"sender#5","src":"droidracer:5"}
{"op":"send","t":"sender#5","q":"q100","e":"m1","src":"droidracer:5"}
{"op":"thread_end","t":"sender#5","src":"droidracer:5"}
{"op":"begin","t":"m1","thread":"t1","src":"droidracer:5"}
{"op":"lock","t":"m1","l":"0x1","src":"droidracer:6"}
{"op":"unlock","t":"m1","l":"0x1","src":"droidracer:7"}
{"op":"end","t":"m1","src":"droidracer:7"}
{"op":"thread_begin","t":"t5","src":"droidracer:8"}
{"op":"lock","t":"t5","l":"0x2","src":"droidracer:9"}
{"op":"unlock","t":"t5","l":"0x2","src":"droidracer:10"}
{"op":"thread_end","t":"t5","src":"droidracer:10"}
`,
			adj: []adjKind{adjCallWithoutPost, adjLockReleasedAtEnd},
		},
		{
			name: "an object address reused by an object of another class is a new object",
			log: lines("1 THREADINIT tid:1",
				"rwId:1 WRITE tid:1 obj:0x7 class:Ljava/lang/StringBuilder; field:8",
				"2 ACCESS tid:1\t accessId:1",
				"3 LOCK tid:1\t lock-obj:0x7",
				"rwId:2 READ tid:1 obj:0x7 class:Ljava/io/ByteArrayOutputStream; field:12",
				"4 ACCESS tid:1\t accessId:2",
				"5 UNLOCK tid:1\t lock-obj:0x7"),
			want: `{"op":"thread_begin","t":"t1","src":"droidracer:1"}
{"op":"write","t":"t1","obj":"0x7","field":"8","src":"droidracer:rw1"}
{"op":"lock","t":"t1","l":"0x7#2","src":"droidracer:3"}
{"op":"read","t":"t1","obj":"0x7#2","field":"12","src":"droidracer:rw2"}
{"op":"unlock","t":"t1","l":"0x7#2","src":"droidracer:5"}
`,
			adj: []adjKind{adjAddressReused},
		},
		{
			name: "access lines without ACCESS: placed at their thread's end or the log's",
			log: lines("1 THREADINIT tid:1", "2 THREADINIT tid:5",
				"rwId:1 READ tid:5 obj:0x7 class:LA; field:8",
				"3 THREADEXIT tid:5",
				"rwId:2 READ tid:1 obj:0x7 class:LA; field:8"),
			want: `{"op":"thread_begin","t":"t1","src":"droidracer:1"}
{"op":"thread_begin","t":"t5","src":"droidracer:2"}
{"op":"read","t":"t5","obj":"0x7","field":"8","src":"droidracer:rw1"}
{"op":"thread_end","t":"t5","src":"droidracer:3"}
{"op":"read","t":"t1","obj":"0x7","field":"8","src":"droidracer:rw2"}
`,
			adj: []adjKind{adjAccessWithoutACCESS},
		},
		{
			name: "thread ids used again, forks of running threads, THREADINIT twice",
			log: lines("1 THREADINIT tid:1", "2 THREADINIT tid:5", "3 FORK par-tid:1\t child-tid:5",
				"4 THREADINIT tid:5", "5 THREADEXIT tid:5", "6 FORK par-tid:1\t child-tid:5",
				"7 THREADINIT tid:5", "8 THREADEXIT tid:5"),
			want: `{"op":"thread_begin","t":"t1","src":"droidracer:1"}
{"op":"thread_begin","t":"t5","src":"droidracer:2"}
{"op":"thread_end","t":"t5","src":"droidracer:5"}
{"op":"fork","t":"t1","child":"t5~2","src":"droidracer:6"}
{"op":"thread_begin","t":"t5~2","src":"droidracer:7"}
{"op":"thread_end","t":"t5~2","src":"droidracer:8"}
`,
			adj: []adjKind{adjForkAfterBegin, adjInitRunning, adjTidReused},
		},
		{
			name: "threads without THREADINIT, unbalanced native brackets",
			log: lines("1 LOCK tid:3\t lock-obj:0x1", "2 UNLOCK tid:3\t lock-obj:0x1",
				"3 NATIVE-ENTRY tid:2thread-name:B", "4 NATIVE-ENTRY tid:2thread-name:B",
				"5 NATIVE-EXIT tid:2thread-name:B", "6 NATIVE-EXIT tid:2thread-name:B"),
			want: `{"op":"thread_begin","t":"t3","src":"droidracer:1"}
{"op":"lock","t":"t3","l":"0x1","src":"droidracer:1"}
{"op":"unlock","t":"t3","l":"0x1","src":"droidracer:2"}
{"op":"thread_begin","t":"t2#3","name":"B","src":"droidracer:3"}
{"op":"thread_end","t":"t2#3","src":"droidracer:4"}
{"op":"thread_begin","t":"t2#4","name":"B","src":"droidracer:4"}
{"op":"thread_end","t":"t2#4","src":"droidracer:5"}
`,
			adj: []adjKind{adjNoThreadInit, adjEntryWithoutExit, adjExitWithoutEntry},
		},
		{
			name: "repeated POST, negative delay, RET of another message, queue never attached, event ended at exit",
			log: lines("1 THREADINIT tid:1", "2 NATIVE-ENTRY tid:2thread-name:B",
				"3 POST src:2 msg:1 dest:-1 delay:-5", "4 POST src:2 msg:1 dest:-1 delay:0",
				"5 NATIVE-EXIT tid:2thread-name:B", "6 CALL tid:1\t msg:1", "7 RET tid:1\t msg:9",
				"8 THREADEXIT tid:1"),
			want: `{"op":"thread_begin","t":"t1","kind":"looper","src":"droidracer:1"}
{"op":"attach","t":"t1","q":"q-t1","src":"droidracer:1"}
{"op":"thread_begin","t":"t2#2","name":"B","src":"droidracer:2"}
{"op":"send","t":"t2#2","q":"q-t1","e":"m1","src":"droidracer:3"}
{"op":"thread_end","t":"t2#2","src":"droidracer:5"}
{"op":"begin","t":"m1","thread":"t1","src":"droidracer:6"}
{"op":"end","t":"m1","src":"droidracer:8"}
{"op":"thread_end","t":"t1","src":"droidracer:8"}
`,
			adj: []adjKind{adjPostRepeated, adjRetNotRunning, adjNegativeDelay, adjQueueAttachedEarly, adjEventEndedAtExit},
		},
		{
			name: "event running at the end, method trace and stray lines",
			log: lines("Android bug-checker log messages ", "", "1 THREADINIT tid:1", "2 ATTACH-Q tid:1\t queue:100",
				"METHOD ENTRY tid:1\t meth:onCreate\t class:LA;", "something else", "3 CALL tid:1\t msg:1"),
			want: `{"op":"thread_begin","t":"t1","kind":"looper","src":"droidracer:1"}
{"op":"attach","t":"t1","q":"q100","src":"droidracer:2"}
{"op":"thread_begin","t":"sender#3","src":"droidracer:3"}
{"op":"send","t":"sender#3","q":"q100","e":"m1","src":"droidracer:3"}
{"op":"thread_end","t":"sender#3","src":"droidracer:3"}
{"op":"begin","t":"m1","thread":"t1","src":"droidracer:3"}
`,
			adj: []adjKind{adjCallWithoutPost, adjEventRunningAtEnd, adjMethodLines, adjStrayLines},
		},
	})
}

func TestImportUnknownKeywords(t *testing.T) {
	_, sum, err := importText(t, lines("1 THREADINIT tid:1", "2 FROBNICATE tid:1 x:1", "3 FROBNICATE",
		"4 TRIGGER-BROADCAST tid:1 action:a component:1 intent:0 onRecLater:-1 state:ABC_NEW",
		"rwId:1 READ-DB tid:1 table:x"))
	if err != nil {
		t.Fatal(err)
	}
	want := []KeywordCount{
		{Keyword: "FROBNICATE", Lines: 2, Example: Line{2, "2 FROBNICATE tid:1 x:1"}},
		{Keyword: "READ-DB", Lines: 1, Example: Line{5, "rwId:1 READ-DB tid:1 table:x"}},
		{Keyword: "TRIGGER-BROADCAST state:ABC_NEW", Lines: 1,
			Example: Line{4, "4 TRIGGER-BROADCAST tid:1 action:a component:1 intent:0 onRecLater:-1 state:ABC_NEW"}},
	}
	if !slices.Equal(sum.Unknown, want) {
		t.Errorf("unknown keywords:\n%+v\nwant\n%+v", sum.Unknown, want)
	}
}
