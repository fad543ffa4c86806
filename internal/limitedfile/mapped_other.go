//go:build !unix

package limitedfile

import (
	"errors"
	"os"
)

// mapFile does not map files on this system: View reads them.
func mapFile(*os.File, int64) ([]byte, func(), error) {
	return nil, nil, errors.ErrUnsupported
}
