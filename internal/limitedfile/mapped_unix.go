//go:build unix

package limitedfile

import (
	"os"
	"syscall"
)

// mapFile maps the size bytes of f read-only.
func mapFile(f *os.File, size int64) (data []byte, unmap func(), err error) {
	if int64(int(size)) != size {
		return nil, nil, syscall.EFBIG
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { syscall.Munmap(data) }, nil
}
