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
	end, err := jsonscan.Object(data, 0, func(key string, start, end int) error {
		raw := data[start:end]
		switch key {
		case "licorice_spec":
			return decodeStrict(raw, &sp.Version)
		case "params":
			return decodeStrict(raw, &sp.Params)
		case "traces":
			return decodeStrict(raw, &sp.Traces)
		case "apps":
			return decodeStrict(raw, &sp.Apps)
		case "inputs":
			return decodeStrict(raw, &sp.Inputs)
		case "templates":
			return decodeStrict(raw, &sp.Templates)
		case "handlers":
			sp.Handlers = []handlerJSONOf[*stateNames]{}
			_, err := jsonscan.Array(data, start, func(start, _ int) error {
				h, err := skimHandler(data, start)
				if err != nil {
					return err
				}
				sp.Handlers = append(sp.Handlers, h)
				return nil
			})
			return err
		}
		return fmt.Errorf("unknown field %q", key)
	})
	if err != nil {
		return err
	}
	if jsonscan.SkipSpace(data, end) != len(data) {
		return errors.New("text after the spec")
	}
	return nil
}

// skimHandler decodes the handler at data[start:] without its state.
func skimHandler(data []byte, start int) (handlerJSONOf[*stateNames], error) {
	var h handlerJSONOf[*stateNames]
	_, err := jsonscan.Object(data, start, func(key string, start, end int) error {
		raw := data[start:end]
		switch key {
		case "handler":
			return decodeStrict(raw, &h.Handler)
		case "samples":
			return decodeStrict(raw, &h.Samples)
		case "traces":
			return decodeStrict(raw, &h.Traces)
		case "conditions":
			return decodeStrict(raw, &h.Conditions)
		case "state":
			if string(raw) == "null" {
				h.State = nil
				return nil
			}
			if h.State == nil {
				h.State = &stateNames{}
			}
			return skimState(data, start, h.State)
		}
		return fmt.Errorf("unknown field %q", key)
	})
	return h, err
}

// skimState reads the names of a state's data into st; the rest is only
// checked. Like encoding/json, it adds to what st holds (a key repeated).
func skimState(data []byte, start int, st *stateNames) error {
	_, err := jsonscan.Object(data, start, func(key string, start, end int) error {
		switch key {
		case "samples":
			return decodeStrict(data[start:end], &st.Samples)
		case "vars":
			if st.Vars == nil {
				st.Vars = map[string]skipJSON{}
			}
			_, err := jsonscan.Object(data, start, func(name string, _, _ int) error {
				st.Vars[name] = skipJSON{}
				return nil
			})
			return err
		case "pairs", "guards":
			return nil // checked by the scan
		}
		return fmt.Errorf("unknown field %q", key)
	})
	return err
}

// decodeStrict decodes one small value, refusing unknown keys.
func decodeStrict(raw []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
