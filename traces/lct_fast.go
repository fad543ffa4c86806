package traces

import (
	"encoding/binary"
	"math"
)

// The fast path of the .lct decoder. decodeOp decodes an op field by field
// and explains every problem; fastOp decodes the ops of a valid file with
// as little work as it can: the varints of an op without a check against
// the block's end, the Syms from the block's table (interned when it was
// read), no error bookkeeping, and no call, so that its variables stay in
// registers (the rare floats and ts changes of scale are calls, out of the
// way). It gives up on anything it does not expect, having changed
// nothing but op, and decodeOp then decodes the op again and says what is
// wrong; so the two agree on every input (FuzzLCTFastPath checks it).

// lctFastWindow is the fewest bytes a block must have left for fastOp to
// decode its next op there: more than the most fastOp reads for one op
// (head and aux 2, then at most 8 varints of at most 9 bytes: 74 bytes),
// so that it never reads past the payload, whatever the bytes.
const lctFastWindow = 128

// fastOp decodes the next op into op and reports whether it could. The
// block has at least lctFastWindow bytes left, and symMap holds the Sym
// of each of its strings. If it returns false, it has changed nothing but
// op.
func (d *lctDecoder) fastOp(op *Op) bool {
	b, p := d.raw, d.pos
	head := b[p]
	kind := Kind(head & headKind)
	if !kind.Valid() {
		return false
	}
	p++
	// The op's uvarints, in this order: f[0] the task, then its fields,
	// its value (two for a decimal float: scale and mantissa), the ts tag
	// and the src, each if it has one. A float stored as raw bits and a
	// ts that is not a delta at the block's scale are rare, and left to
	// decodeOp.
	var f [8]uint64
	first := 0
	if head&headSameTask != 0 {
		f[0], first = d.prevTask, 1
	}
	if head&headSameTask == 0 && b[p] >= 0x80 && b[p+1] >= 0x80 {
		return false // the task's index has 3 bytes or more: the aux byte is not at p+1 or p+2
	}
	var aux byte
	vi := 1 + int(kindFields[kind]) // where the value goes
	if kindAux[kind] {
		if first == 0 { // the aux byte follows the task
			aux = b[p+1+int(b[p]>>7)]
		} else {
			aux = b[p]
		}
		switch kind {
		case Send:
			if SendKind(aux&3) != AtFront {
				vi++ // the delay or at
			}
		case Read, Write:
			switch ValueKind(aux & 7) {
			case RefValue, IntValue, StringValue:
				vi++
			case FloatValue:
				vi += 2 // a decimal: its scale tag and mantissa (a raw one is left to decodeOp)
			}
		}
	}
	ti := vi // where the ts tag goes
	if head&headTS != 0 {
		ti++
	}
	n := ti // one more than where src goes
	if head&headSrc != 0 {
		n++
	}
	if first == 1 && kindAux[kind] {
		p++ // no task: the aux byte comes first, before the fields
	}
	bad := false
	for i := first; i < n; i++ {
		// One or two bytes without a branch; longer ones in a loop.
		w := uint64(binary.LittleEndian.Uint16(b[p:]))
		more := w >> 7 & 1
		x := w&0x7f | w>>1&0x3f80&-more
		p += 1 + int(more)
		if w&(more<<15) != 0 {
			for s := uint(14); ; s += 7 {
				c := uint64(b[p])
				p++
				x |= (c & 0x7f) << s
				if c < 0x80 {
					break
				}
				if s == 56 { // a varint of 10 bytes or more
					bad = true
					break
				}
			}
		}
		f[i] = x
		if i == 0 && kindAux[kind] {
			p++ // the aux byte, read above
		}
	}

	// An index x of an id is good if x-1 < nsym-1: not 0 (an id may not
	// be empty) and in the table.
	syms := d.symMap
	nsym := uint64(len(syms))
	task := f[0]
	if bad || task >= nsym {
		return false
	}
	*op = Op{Kind: kind, Task: syms[task]}
	switch kind {
	case Read, Write:
		vk := ValueKind(aux & 7)
		if aux&^0x3f != 0 || vk > StringValue || (aux&8 != 0 && vk != BoolValue) || (aux&32 != 0 && kind != Read) ||
			f[1]-1 >= nsym-1 || f[2]-1 >= nsym-1 {
			return false
		}
		op.Loc = Location{Obj: syms[f[1]], Field: syms[f[2]], Static: aux&16 != 0}
		op.Deref = aux&32 != 0
		switch vk {
		case NullValue:
			op.Val = Null()
		case RefValue:
			if f[3]-1 >= nsym-1 {
				return false
			}
			op.Val = Ref(syms[f[3]])
		case IntValue:
			op.Val = Int(unzigzag(f[3]))
		case FloatValue:
			if tag := f[3]; tag&1 == 0 && tag>>1 <= maxScale {
				op.Val = Float(float64(unzigzag(f[4])) / pow10[tag>>1])
			} else {
				return false // raw bits, or an error
			}
		case BoolValue:
			op.Val = Bool(aux&8 != 0)
		case StringValue:
			if f[3] >= nsym {
				return false
			}
			op.Val = String(syms[f[3]])
		}
	case ThreadBegin:
		if aux > byte(Binder) || f[1] >= nsym {
			return false
		}
		op.ThreadKind, op.Name = ThreadKind(aux), syms[f[1]]
	case ThreadEnd, End:
	case Fork, Join, Begin, Attach, Remove, Signal, Wait, Lock, Unlock, Call, Ret:
		if f[1]-1 >= nsym-1 {
			return false
		}
		switch y := syms[f[1]]; kind {
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
		if f[1] >= nsym {
			return false
		}
		op.Name = syms[f[1]]
	case Send:
		if aux&^0xf != 0 || aux&3 > byte(AtFront) || f[1]-1 >= nsym-1 || f[2]-1 >= nsym-1 {
			return false
		}
		op.Queue, op.Event = syms[f[1]], syms[f[2]]
		op.SendKind, op.Async, op.External = SendKind(aux&3), aux&4 != 0, aux&8 != 0
		if op.SendKind != AtFront {
			if f[3] > math.MaxInt64 {
				return false
			}
			op.Time = int64(f[3])
		}
	case Alloc:
		if f[1]-1 >= nsym-1 || f[2] >= nsym || f[3] >= nsym {
			return false
		}
		op.Loc.Obj, op.Site, op.Type = syms[f[1]], syms[f[2]], syms[f[3]]
	case Relate:
		op.Via = RelateVia(aux >> 2)
		if aux&^0xf != 0 || (op.Via != ViaCmp && op.Via != ViaArith) ||
			f[1]-1 >= nsym-1 || f[2]-1 >= nsym-1 || f[3]-1 >= nsym-1 || f[4]-1 >= nsym-1 {
			return false
		}
		op.Loc = Location{Obj: syms[f[1]], Field: syms[f[2]], Static: aux&1 != 0}
		op.Loc2 = Location{Obj: syms[f[3]], Field: syms[f[4]], Static: aux&2 != 0}
	case Branch:
		op.Cond, op.Taken = BranchCond(aux>>1&3), aux&8 != 0
		if aux&^0xf != 0 || op.Cond == 0 || f[1]-1 >= nsym-1 || f[2]-1 >= nsym-1 {
			return false
		}
		op.Loc = Location{Obj: syms[f[1]], Field: syms[f[2]], Static: aux&1 != 0}
		op.PC, op.Target = unzigzag(f[3]), unzigzag(f[4])
	}
	if task == 0 && !op.External {
		return false
	}
	tsN, tsF := d.tsN, d.tsF
	if head&headTS != 0 {
		tag := f[vi]
		if tag&3 != tsDelta || d.tsK < 0 {
			return false // a new scale, raw bits, or an error
		}
		if tag != tsDelta {
			tsN += unzigzag(tag >> 2)
			tsF = scaled(tsN, d.tsK)
		}
		op.TS, op.HasTS = tsF, true
	}
	if head&headSrc != 0 {
		if x := f[ti]; x-1 < nsym-1 {
			op.Src = syms[x]
		} else {
			return false
		}
	}
	d.pos, d.prevTask = p, task
	d.tsN, d.tsF = tsN, tsF
	return true
}

// scaled is n / 10^k, exactly rounded; k is at most maxScale. It is
// always finite.
func scaled(n int64, k int) float64 {
	if k == 0 {
		return float64(n)
	}
	return float64(n) / pow10[k]
}
