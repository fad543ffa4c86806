// Package msgqueue models Android's MessageQueue: the order in which a
// looper picks its pending messages. It is shared by the runtime that
// records traces (shuffle) and by the random trace generator (tracetest), so
// that both obey the same rules, and these rules agree with the causality
// model of docs/causality.md (thesis Table 3.1):
//
//   - a message has a time "when" (uptime ms): now+delay for a delayed
//     message, the given time for an at-time one; it is kept sorted by when,
//     and a new message goes after every message with when <= its own (FIFO
//     among equals);
//   - a message sent at front becomes the head of the queue (LIFO among
//     front messages) and may run at once;
//   - a sync barrier is a marker placed by when like a message; while it is
//     the head of the queue, only asynchronous messages behind it may run,
//     the first one first;
//   - the head message (or, behind a barrier at the head, the first async
//     message) runs once its when has come.
//
// Time never goes backwards and is the caller's: nothing here sleeps.
package msgqueue

// ID identifies a message (or a barrier) to the caller.
type ID int64

type entry struct {
	id      ID
	when    int64
	async   bool
	barrier bool
}

// Queue is one message queue. The zero Queue is empty and ready to use.
type Queue struct {
	entries []entry // in queue order
}

// Len returns the number of messages and barriers in the queue.
func (q *Queue) Len() int { return len(q.entries) }

// Messages returns the number of messages (barriers excluded).
func (q *Queue) Messages() int {
	n := 0
	for _, e := range q.entries {
		if !e.barrier {
			n++
		}
	}
	return n
}

// insertByWhen puts e after every entry with when <= e.when.
func (q *Queue) insertByWhen(e entry) {
	i := len(q.entries)
	for j, x := range q.entries {
		if e.when < x.when {
			i = j
			break
		}
	}
	q.entries = append(q.entries, entry{})
	copy(q.entries[i+1:], q.entries[i:])
	q.entries[i] = e
}

// Post enqueues message id to run at or after uptime when (now+delay for a
// delayed message, the absolute time for an at-time one).
func (q *Queue) Post(id ID, when int64, async bool) {
	q.insertByWhen(entry{id: id, when: when, async: async})
}

// PostAtFront puts message id at the head of the queue.
func (q *Queue) PostAtFront(id ID, async bool) {
	q.entries = append(q.entries, entry{})
	copy(q.entries[1:], q.entries)
	q.entries[0] = entry{id: id, when: minWhen, async: async}
}

// minWhen is the when of front messages: before any time.
const minWhen = -1 << 63

// PostBarrier places a sync barrier, with token id, as of uptime when.
func (q *Queue) PostBarrier(id ID, when int64) {
	q.insertByWhen(entry{id: id, when: when, barrier: true})
}

// RemoveBarrier removes the barrier with token id; it reports whether it
// was there.
func (q *Queue) RemoveBarrier(id ID) bool { return q.remove(id, true) }

// Remove removes pending message id; it reports whether it was there.
func (q *Queue) Remove(id ID) bool { return q.remove(id, false) }

func (q *Queue) remove(id ID, barrier bool) bool {
	for i, e := range q.entries {
		if e.id == id && e.barrier == barrier {
			q.entries = append(q.entries[:i], q.entries[i+1:]...)
			return true
		}
	}
	return false
}

// candidate returns the index of the message the looper would pick next
// regardless of time, or -1.
func (q *Queue) candidate() int {
	if len(q.entries) == 0 {
		return -1
	}
	if !q.entries[0].barrier {
		return 0
	}
	for i, e := range q.entries[1:] {
		if e.async && !e.barrier {
			return i + 1
		}
	}
	return -1
}

// Next removes and returns the message to run at uptime now. If none may
// run now, ok is false and wake is the uptime at which one may (or -1 if
// none will until something is posted or a barrier is removed).
func (q *Queue) Next(now int64) (id ID, ok bool, wake int64) {
	i := q.candidate()
	if i < 0 {
		return 0, false, -1
	}
	e := q.entries[i]
	if e.when > now {
		return 0, false, e.when
	}
	q.entries = append(q.entries[:i], q.entries[i+1:]...)
	return e.id, true, 0
}

// Peek returns the message Next would return at uptime now, without
// removing it.
func (q *Queue) Peek(now int64) (id ID, ok bool) {
	i := q.candidate()
	if i < 0 || q.entries[i].when > now {
		return 0, false
	}
	return q.entries[i].id, true
}

// Idle reports whether no message may run now or later without a change:
// the queue is empty, or holds only barriers and sync messages behind a
// barrier at its head.
func (q *Queue) Idle() bool { return q.candidate() < 0 }

// Empty reports whether the queue holds no message (barriers do not count).
func (q *Queue) Empty() bool { return q.Messages() == 0 }
