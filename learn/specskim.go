package learn

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/licorice-dev/licorice/internal/jsonscan"
)

// decodeSpecSkim decodes a spec file's JSON into sp without its handlers'
// learning state (ReadOptions.SkipState): the state is checked by
// jsonscan, several times as fast as encoding/json's decoder, which must
// scan every byte twice, and only the names of its data are kept. A large
// spec is almost all state, so this is most of the time of reading one.
//
// It accepts only the exact keys the writer writes; on any error the
// caller decodes the document with decodeSpec, which accepts the same
// and more (encoding/json matches keys without regard to case, and takes
// null for an object) and places its errors.
func decodeSpecSkim(data []byte, sp *specJSONOf[*stateNames]) error {
	end, err := jsonscan.Object(data, 0, func(key string, start, depth int) (int, error) {
		switch key {
		case "licorice_spec":
			return decodeAt(data, start, depth, &sp.Version)
		case "params":
			return decodeAt(data, start, depth, &sp.Params)
		case "traces":
			return decodeAt(data, start, depth, &sp.Traces)
		case "apps":
			return decodeAt(data, start, depth, &sp.Apps)
		case "inputs":
			return decodeAt(data, start, depth, &sp.Inputs)
		case "templates":
			return decodeAt(data, start, depth, &sp.Templates)
		case "handlers":
			sp.Handlers = []handlerJSONOf[*stateNames]{}
			return jsonscan.ArrayAt(data, start, depth, func(start, depth int) (int, error) {
				var h handlerJSONOf[*stateNames]
				end, err := skimHandler(data, start, depth, &h)
				sp.Handlers = append(sp.Handlers, h)
				return end, err
			})
		}
		return start, fmt.Errorf("unknown field %q", key)
	})
	if err != nil {
		return err
	}
	if jsonscan.SkipSpace(data, end) != len(data) {
		return errors.New("text after the spec")
	}
	return nil
}

// skimHandler decodes the handler at data[start:] into h, without its
// state.
func skimHandler(data []byte, start, depth int, h *handlerJSONOf[*stateNames]) (int, error) {
	return jsonscan.ObjectAt(data, start, depth, func(key string, start, depth int) (int, error) {
		switch key {
		case "handler":
			return decodeAt(data, start, depth, &h.Handler)
		case "samples":
			return decodeAt(data, start, depth, &h.Samples)
		case "traces":
			return decodeAt(data, start, depth, &h.Traces)
		case "conditions":
			return decodeAt(data, start, depth, &h.Conditions)
		case "state":
			if bytes.HasPrefix(data[start:], []byte("null")) {
				h.State = nil
				return jsonscan.ValueAt(data, start, depth)
			}
			// Like encoding/json, a key given twice adds to what the
			// first gave.
			if h.State == nil {
				h.State = &stateNames{}
			}
			return skimState(data, start, depth, h.State)
		}
		return start, fmt.Errorf("unknown field %q", key)
	})
}

// skimState reads the names of a state's data into st; the rest is only
// checked.
func skimState(data []byte, start, depth int, st *stateNames) (int, error) {
	return jsonscan.ObjectAt(data, start, depth, func(key string, start, depth int) (int, error) {
		switch key {
		case "samples":
			return decodeAt(data, start, depth, &st.Samples)
		case "vars":
			if st.Vars == nil {
				st.Vars = map[string]skipJSON{}
			}
			return jsonscan.ObjectAt(data, start, depth, func(name string, start, depth int) (int, error) {
				st.Vars[name] = skipJSON{}
				return jsonscan.ValueAt(data, start, depth)
			})
		case "pairs", "guards":
			return jsonscan.ValueAt(data, start, depth)
		}
		return start, fmt.Errorf("unknown field %q", key)
	})
}

// decodeAt decodes the (small) value at data[start:] into v, refusing
// unknown keys, and returns where it ends.
func decodeAt(data []byte, start, depth int, v any) (int, error) {
	end, err := jsonscan.ValueAt(data, start, depth)
	if err != nil {
		return end, err
	}
	dec := json.NewDecoder(bytes.NewReader(data[start:end]))
	dec.DisallowUnknownFields()
	return end, dec.Decode(v)
}
