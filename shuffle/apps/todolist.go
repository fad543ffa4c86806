package apps

import (
	"fmt"
	"time"

	"github.com/licorice-dev/licorice/shuffle"
)

var toDoList = &App{
	Name:  "todolist",
	Title: "ToDoList: an edit lost without a crash (thesis §3.4.2)",
	Description: `CAFA's example of a use-after-free that does not crash (thesis §3.4.2): ` +
		`ToDoList catches the NullPointerException around db.updateNote(...) and does nothing, ` +
		`so "the latest user input would not be written to the database and the data would be ` +
		`lost". Here typing starts a spell check on a worker thread, which posts ` +
		`onSpellChecked; it applies the correction and saves the note through db, skipping the ` +
		`save when db is null (the caught exception). onPause saves the note and closes the ` +
		`database (db = null). If the spell check's result is processed after onPause, the ` +
		`correction is never saved: a wrong result, not a crash, which the port records as an ` +
		`error where the edit is lost. Harmless races by construction: the word count the ` +
		`status bar redraws (a delayed UI update).`,
	Harmful: []Race{
		{A: "NoteEditActivity.onSpellChecked", B: "NoteEditActivity.onPause", Data: "db",
			Why:     "after onPause closed db, the corrected note is not saved and the edit is lost",
			Symptom: "note lost"},
	},
	Harmless: []Race{
		{A: "NoteEditActivity.onTextChanged", B: "NoteEditActivity.updateStatus", Data: "words",
			Why: "the status bar shows the word count as it is; the next redraw corrects it"},
	},
	Main: runToDoList,
}

type toDoListApp struct {
	rt      *shuffle.Runtime
	current *noteEditActivity
}

func runToDoList(rt *shuffle.Runtime) {
	app := &toDoListApp{rt: rt}
	act := rt.StartActivity(app.newNoteEditActivity)
	rt.AddActions(shuffle.Action{Name: "type", Weight: 5, Enabled: act.Resumed, Do: func(w *shuffle.World) {
		w.Post(rt.Main(), app.current.onTextChanged)
	}})
}

// noteEditActivity edits one note.
type noteEditActivity struct {
	shuffle.Object
	app    *toDoListApp
	status *shuffle.Message

	db       shuffle.Ptr[notesDB]
	revision shuffle.Int // the revision of the note on screen
	saved    shuffle.Int // the revision in the database
	words    shuffle.Int
}

// notesDB is the notes database.
type notesDB struct {
	shuffle.Object
	notes *shuffle.Map[int64]
}

func (app *toDoListApp) newNoteEditActivity() any {
	a := shuffle.New(app.rt, &noteEditActivity{app: app})
	app.current = a
	return a
}

func (a *noteEditActivity) OnResume() {
	db := shuffle.New(a, &notesDB{})
	db.notes = shuffle.Table[int64](a, "Notes")
	a.db.Set(db)
	a.status = a.Runtime().Main().PostDelayed(a.updateStatus, time.Second)
}

func (a *noteEditActivity) OnPause() {
	a.status.Remove()
	a.save()
	a.db.Set(nil) // closes the database
}

func (a *noteEditActivity) onTextChanged() {
	a.revision.Add(1)
	a.words.Add(1)
	a.Runtime().Go("SpellChecker", a.checkSpelling)
}

// checkSpelling runs on a worker thread and hands the correction to the UI.
func (a *noteEditActivity) checkSpelling() {
	rt := a.Runtime()
	rt.Sleep(5*time.Millisecond + time.Duration(rt.Rand().ExpFloat64()*float64(10*time.Millisecond)))
	rt.Main().Post(a.onSpellChecked)
}

// onSpellChecked applies the correction and saves the note.
func (a *noteEditActivity) onSpellChecked() {
	a.revision.Add(1)
	a.save()
}

// save writes the note. With the database closed, ToDoList catches the
// NullPointerException and goes on: nothing crashes, but the edit is lost.
// The port records the lost edit as an error (a wrong result), at the
// point of loss, since the user would only notice it later, if ever.
func (a *noteEditActivity) save() {
	db := a.db.Get()
	if db == nil { // catch (NullPointerException npe) { /* do nothing */ }
		a.Runtime().Crash(fmt.Sprintf("note lost: revision %d never reaches the database (saved: %d)",
			a.revision.Get(), a.saved.Get()))
		return
	}
	db.notes.Put("note", a.revision.Get())
	a.saved.Set(a.revision.Get())
}

func (a *noteEditActivity) updateStatus() {
	a.words.Get()
	a.status = a.Runtime().Main().PostDelayed(a.updateStatus, time.Second)
}
