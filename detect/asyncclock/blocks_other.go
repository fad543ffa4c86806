//go:build !amd64 || purego

package asyncclock

// vecBlocks is false where there is no assembly for blocks: they are
// compared and raised in Go.
const vecBlocks = false

func compareVec(u, t *chunk) (above, below bool) {
	panic("asyncclock: compareVec without vecBlocks")
}

func maxBlocksVec(d, x, y *chunk) { panic("asyncclock: maxBlocksVec without vecBlocks") }

func lanesAboveBoth(u, v, t *[chunkSize]Clock) uint32 {
	panic("asyncclock: lanesAboveBoth without vecBlocks")
}

func lanesDifferVec(u, t *[chunkSize]Clock) uint32 {
	panic("asyncclock: lanesDifferVec without vecBlocks")
}
