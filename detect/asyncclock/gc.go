package asyncclock

// collect is the periodic garbage collection (to be completed).
func (e *Engine) collect() {
	e.begins = 0
	e.stats.Collections++
}
