package traces

import (
	"math"
	"unsafe"
)

// The fast path of the .lct decoder. decodeOp decodes an op field by field
// and explains every problem; fastOp decodes the ops of a valid file with
// as little work as it can: each kind's fields straight into the op, the
// varints without a check against the block's end (the block has room for
// the longest op), the Syms from the block's table (interned when it was
// read), no error bookkeeping. It gives up on anything it does not expect,
// having changed nothing but op, and decodeOp then decodes the op again
// and says what is wrong; so the two agree on every input
// (FuzzLCTFastPath checks it).

// lctFastWindow is the fewest bytes a block must have left for fastOp to
// decode its next op there: more than the most fastOp reads for one op
// (head and aux 2, then at most 7 varints of at most 2 bytes: 16 bytes),
// so that it never reads past the payload, whatever the bytes.
const lctFastWindow = 32

// fastOp decodes the next op into op, counts it, and reports whether it
// could: an op of the current block that is not its last (next checks what
// follows the last), in its first len(raw)-lctFastWindow bytes, the block's
// strings interned in the current table (symMap holds their Syms). If it
// returns false, it has changed nothing but op. Reader.Next calls it
// directly, before the decoder interface and next.
func (d *lctDecoder) fastOp(op *Op) bool {
	if d.left <= 1 || d.pos >= d.fastEnd || d.gen != d.syms.gen {
		return false
	}
	b, p := unsafe.Pointer(unsafe.SliceData(d.raw)), d.pos
	head := byteAt(b, p)
	kind := Kind(head & headKind)
	if !kind.Valid() {
		return false
	}
	p++
	// An index x of an id is good if x-1 < nsym-1: not 0 (an id may not
	// be empty) and in the table; a text field may be empty: x < nsym.
	syms := d.symMap
	nsym := uint64(len(syms))
	var x, y uint64
	var ok bool
	task := d.prevTask
	if head&headSameTask == 0 {
		if task, p, ok = fastUvarint(b, p); !ok {
			return false
		}
	}
	if task >= nsym {
		return false
	}
	*op = Op{Kind: kind, Task: syms[task]}
	switch kind {
	case Read, Write:
		aux := byteAt(b, p)
		p++
		if !accessAux[uint(kind-Read)&1<<8|uint(aux)] {
			return false
		}
		vk := ValueKind(aux & 7)
		if x, p, ok = fastUvarint(b, p); !ok || x-1 >= nsym-1 {
			return false
		}
		if y, p, ok = fastUvarint(b, p); !ok || y-1 >= nsym-1 {
			return false
		}
		op.Loc = Location{Obj: syms[x], Field: syms[y], Static: aux&16 != 0}
		op.Deref = aux&32 != 0 && kind == Read
		op.Init = aux&32 != 0 && kind == Write
		op.Update = aux&64 != 0
		switch vk {
		case NullValue:
			op.Val = Null()
		case RefValue:
			if x, p, ok = fastUvarint(b, p); !ok || x-1 >= nsym-1 {
				return false
			}
			op.Val = Ref(syms[x])
		case IntValue:
			if x, p, ok = fastUvarint(b, p); !ok {
				return false
			}
			op.Val = Int(unzigzag(x))
		case FloatValue: // a decimal: its scale tag and mantissa (raw bits are left to decodeOp)
			if x, p, ok = fastUvarint(b, p); !ok || x&1 != 0 || x>>1 > maxScale {
				return false
			}
			if y, p, ok = fastUvarint(b, p); !ok {
				return false
			}
			op.Val = Float(float64(unzigzag(y)) / pow10[x>>1])
		case BoolValue:
			op.Val = Bool(aux&8 != 0)
		case StringValue:
			if x, p, ok = fastUvarint(b, p); !ok || x >= nsym {
				return false
			}
			op.Val = String(syms[x])
		}
	case ThreadBegin:
		aux := byteAt(b, p)
		p++
		if x, p, ok = fastUvarint(b, p); !ok || aux > byte(Binder) || x >= nsym {
			return false
		}
		op.ThreadKind, op.Name = ThreadKind(aux), syms[x]
	case ThreadEnd, End:
	case Fork, Join, Begin, Attach, Remove, Signal, Wait, Lock, Unlock, Call, Ret:
		if x, p, ok = fastUvarint(b, p); !ok || x-1 >= nsym-1 {
			return false
		}
		switch y := syms[x]; kind {
		case Fork, Join, Begin:
			op.Thread = y
		case Attach:
			op.Queue = y
		case Remove:
			op.Event = y
		default:
			op.Name = y
		}
	case Error:
		if x, p, ok = fastUvarint(b, p); !ok || x >= nsym {
			return false
		}
		op.Name = syms[x]
	case Send:
		aux := byteAt(b, p)
		p++
		if aux&^0xf != 0 || aux&3 > byte(AtFront) {
			return false
		}
		if x, p, ok = fastUvarint(b, p); !ok || x-1 >= nsym-1 {
			return false
		}
		if y, p, ok = fastUvarint(b, p); !ok || y-1 >= nsym-1 {
			return false
		}
		op.Queue, op.Event = syms[x], syms[y]
		op.SendKind, op.Async, op.External = SendKind(aux&3), aux&4 != 0, aux&8 != 0
		if op.SendKind != AtFront {
			if x, p, ok = fastUvarint(b, p); !ok || x > math.MaxInt64 {
				return false
			}
			op.Time = int64(x)
		}
	case Alloc:
		if x, p, ok = fastUvarint(b, p); !ok || x-1 >= nsym-1 {
			return false
		}
		op.Loc.Obj = syms[x]
		if x, p, ok = fastUvarint(b, p); !ok || x >= nsym {
			return false
		}
		if y, p, ok = fastUvarint(b, p); !ok || y >= nsym {
			return false
		}
		op.Site, op.Type = syms[x], syms[y]
	case Relate:
		aux := byteAt(b, p)
		p++
		op.Via = RelateVia(aux >> 2)
		if aux&^0xf != 0 || (op.Via != ViaCmp && op.Via != ViaArith) {
			return false
		}
		if x, p, ok = fastUvarint(b, p); !ok || x-1 >= nsym-1 {
			return false
		}
		if y, p, ok = fastUvarint(b, p); !ok || y-1 >= nsym-1 {
			return false
		}
		op.Loc = Location{Obj: syms[x], Field: syms[y], Static: aux&1 != 0}
		if x, p, ok = fastUvarint(b, p); !ok || x-1 >= nsym-1 {
			return false
		}
		if y, p, ok = fastUvarint(b, p); !ok || y-1 >= nsym-1 {
			return false
		}
		op.Loc2 = Location{Obj: syms[x], Field: syms[y], Static: aux&2 != 0}
	case Branch:
		aux := byteAt(b, p)
		p++
		op.Cond, op.Taken = branchCondOf(aux), aux&8 != 0
		if !branchAux(aux) || op.Cond == 0 {
			return false
		}
		if x, p, ok = fastUvarint(b, p); !ok || x-1 >= nsym-1 {
			return false
		}
		if y, p, ok = fastUvarint(b, p); !ok || y-1 >= nsym-1 {
			return false
		}
		op.Loc = Location{Obj: syms[x], Field: syms[y], Static: aux&1 != 0}
		if x, p, ok = fastUvarint(b, p); !ok {
			return false
		}
		if y, p, ok = fastUvarint(b, p); !ok {
			return false
		}
		op.PC, op.Target = unzigzag(x), unzigzag(y)
	}
	if task == 0 && !op.External {
		return false
	}
	tsN, tsF := d.tsN, d.tsF
	if head&headTS != 0 {
		// A delta at the block's scale; a new scale, raw bits or an
		// error are left to decodeOp.
		if x, p, ok = fastUvarint(b, p); !ok || x&3 != tsDelta || d.tsDiv == 0 {
			return false
		}
		if x != tsDelta {
			tsN += unzigzag(x >> 2)
			tsF = float64(tsN) / d.tsDiv // exact: the division by 10^0 too
		}
		op.TS, op.HasTS = tsF, true
	}
	if head&headSrc != 0 {
		if x, p, ok = fastUvarint(b, p); !ok || x-1 >= nsym-1 {
			return false
		}
		op.Src = syms[x]
	}
	d.pos, d.prevTask = p, task
	d.tsN, d.tsF = tsN, tsF
	d.n++
	d.left--
	return true
}

// byteAt is b[p] for a b whose length the caller has checked.
func byteAt(b unsafe.Pointer, p int) byte { return *(*byte)(unsafe.Add(b, p)) }

// fastUvarint decodes the uvarint at b+p, which has at least 2 readable
// bytes, and returns it with the position after it. It decodes only the
// common uvarints of one or two bytes, without a branch, and reports false
// for longer ones (the ops that have one are left to decodeOp).
func fastUvarint(b unsafe.Pointer, p int) (uint64, int, bool) {
	w := uint64(byteAt(b, p)) | uint64(byteAt(b, p+1))<<8
	more := uint64(int64(int8(w)) >> 7) // all ones if the first byte has a second
	return w&0x7f | w>>1&0x3f80&more, p + 1 - int(more), w&0x8080 != 0x8080
}

// accessAux[k<<8 | aux] reports whether aux is a good aux byte for a read
// (k 0) or a write (k 1): decodeOp's checks, in one load.
var accessAux = func() (ok [512]bool) {
	for i := range ok {
		aux, vk, write := byte(i), ValueKind(i&7), i>>8 == 1
		ok[i] = aux&^0x7f == 0 && vk <= StringValue && (aux&8 == 0 || vk == BoolValue) && (aux&64 == 0 || write)
	}
	return ok
}()

// A branch's aux byte: bit 0 static, bits 1-2 the condition null, nonnull
// or eq, bit 3 taken, bit 4 the condition true (bits 1-2 zero).
func branchCondBits(c BranchCond) byte {
	if c == CondTrue {
		return 16
	}
	return byte(c) << 1
}

func branchCondOf(aux byte) BranchCond {
	if aux&16 != 0 {
		return CondTrue
	}
	return BranchCond(aux >> 1 & 3)
}

// branchAux reports whether aux is a good aux byte for a branch.
func branchAux(aux byte) bool {
	return aux&^0x1f == 0 && (aux&16 == 0 || aux&6 == 0)
}
