// Package droidracer imports the execution logs that DroidRacer (Maiya,
// Kanade and Majumdar, PLDI 2014) records of real Android apps on its
// instrumented Dalvik VM, so that licorice can analyse executions of programs
// nobody here wrote.
//
// A log (abc_log.txt) is the trace of one run — numbered operations such as
// "17 CALL tid:1 msg:2" and field accesses such as
// "rwId:70 WRITE tid:1 obj:0x410b59a0 class:Lorg/tomdroid/NoteProvider; field:36"
// — followed, after a line " HB Graph", by DroidRacer's own race report.
//
// [Read] parses a whole log: the trace part into records, the report into a
// [Report] of race witnesses and their categories. [Log.Import] then maps the
// trace, operation by operation, to licorice's model and writes it with a
// [traces.Writer]; every op it writes is checked with a [traces.Validator]
// first, so an imported trace always validates. [Log.ImportWith] takes
// [Options]: with Lifecycle, the import adds the orders of Android's
// activity lifecycle, as DroidRacer's activity state machine has them. The
// mapping, and every choice it makes where a log breaks the trace contract,
// is written down in docs/droidracer.md; [Summary] counts each of those
// choices for one log. Package detect/compare compares licorice's races on
// an imported log with DroidRacer's report.
//
// Every imported op keeps the id of the log line it comes from in its src:
// "droidracer:17" for operation 17, "droidracer:rw70" for access rwId 70.
package droidracer
