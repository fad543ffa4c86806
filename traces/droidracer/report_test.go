package droidracer

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

const reportLog = `1 START
2 THREADINIT tid:1
3 THREADINIT tid:5
rwId:7 WRITE tid:1 obj:0x4105e5f8 class:Landroid/support/v4/widget/DrawerLayout; field:244
4 ACCESS tid:1	 accessId:1
rwId:8 READ tid:5 obj:0x4105e5f8 class:Landroid/support/v4/widget/DrawerLayout; field:244
rwId:9 WRITE-STATIC tid:5 class:Lcom/x/Util; field:4341
5 ACCESS tid:5	 accessId:2
 
 HB Graph 
 
 HB Graph size : 5

Races detected

RACE rwId1:7 type - WRITE  obj - 0x4105e5f8  class - Landroid/support/v4/widget/DrawerLayout; field -   fieldIdx - 244  dbPath -   tid - 1  accessId - 1
     rwId2:8 type - READ  obj - 0x4105e5f8  class - Landroid/support/v4/widget/DrawerLayout; field -   fieldIdx - 244  dbPath -   tid - 5  accessId - 2

RACE rwId1:99 type - READ  obj - 0  class -  field - mDb  fieldIdx - 0  dbPath - /data/x.db  tid - 1  accessId - 7
     rwId2:9 type - WRITE  obj - 0  class - Lcom/x/Util; field -   fieldIdx - 4341  dbPath -   tid - 5  accessId - 2

RACE rwId1:1 type - GARBLED

Categorization of detected races

Multithreaded races
class: Landroid/support/v4/widget/DrawerLayout;  field:244
database path: /data/x.db

Async races (on single thread)

Races due to a delayed post in ancestor asyncblocks

Races due to cross thread post in ancestor asyncblocks

Races due to co-enabled events
object: 0x410a4510  field:244 co-enabled trigger opIds:563, 712

 Uncategorized races
class: Lcom/x/Util;  field:4341 co-enabled trigger opIds:1, 2


Memory used for race detection

AbcTrace         : 1041 * 36
`

func TestReadReport(t *testing.T) {
	l, err := Read(context.Background(), strings.NewReader(reportLog), "log")
	if err != nil {
		t.Fatal(err)
	}
	drawer := Location{Obj: "0x4105e5f8", Field: "244"}
	want := &Report{
		GraphSize: 5,
		Races: []Race{
			{Line: 16,
				First: Access{RW: 7, Write: true, Obj: "0x4105e5f8", Class: "Landroid/support/v4/widget/DrawerLayout;",
					FieldIdx: 244, Tid: 1, AccessID: 1, Loc: drawer, RWLine: 4, Op: 4, OpLine: 5},
				Second: Access{RW: 8, Obj: "0x4105e5f8", Class: "Landroid/support/v4/widget/DrawerLayout;",
					FieldIdx: 244, Tid: 5, AccessID: 2, Loc: drawer, RWLine: 6, Op: 5, OpLine: 8}},
			{Line: 19,
				// rwId 99 is not in the trace part: its location comes from the witness.
				First: Access{RW: 99, Obj: "0", Field: "mDb", DBPath: "/data/x.db", Tid: 1, AccessID: 7,
					Loc: Location{Obj: "db:/data/x.db", Field: "*"}},
				Second: Access{RW: 9, Write: true, Obj: "0", Class: "Lcom/x/Util;", FieldIdx: 4341, Tid: 5, AccessID: 2,
					Loc: Location{Obj: "Lcom/x/Util;", Field: "4341", Static: true}, RWLine: 7, Op: 5, OpLine: 8}},
		},
		Categories: []Category{
			{Kind: MultiThreaded, Entries: []CategoryEntry{
				{Line: 27, Class: "Landroid/support/v4/widget/DrawerLayout;", Field: 244},
				{Line: 28, DBPath: "/data/x.db"}}},
			{Kind: DelayedPost},
			{Kind: CrossPost},
			{Kind: CoEnabled, Entries: []CategoryEntry{
				{Line: 37, Object: "0x410a4510", Field: 244, Triggers: []int64{563, 712}}}},
			{Kind: Uncategorized, Entries: []CategoryEntry{
				{Line: 40, Class: "Lcom/x/Util;", Field: 4341, Triggers: []int64{1, 2}}}},
		},
		Unrecognized: []Line{{22, "RACE rwId1:1 type - GARBLED"}},
	}
	if !reflect.DeepEqual(l.Report, want) {
		t.Errorf("report\n%+v\nwant\n%+v", l.Report, want)
	}
	if got := l.Report.Races[0].First.Src(); got != "droidracer:rw7" {
		t.Errorf("src %q", got)
	}
}
