// Package jsonscan finds and checks JSON values in a document without
// decoding them: the end of a value, the members of an object, the
// elements of an array. It accepts exactly what encoding/json's Valid
// accepts (FuzzValue checks it), several times as fast, so that a reader
// can skip the parts of a large document it does not need (a spec's
// learning state) and decode only the rest.
package jsonscan
