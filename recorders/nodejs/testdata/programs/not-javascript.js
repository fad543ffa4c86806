This is not JavaScript, but a note.
It has two lines.
