package hookproof

import "sort"

// sequenceMatcher is Python's difflib.SequenceMatcher(None, a, b, autojunk=False) on lists
// of lines: the same longest-match search and the same recursion, so it pairs repeated and
// moved lines exactly as Python does (provenance must be byte-identical to Python's).
type sequenceMatcher struct {
	a, b []string
	b2j  map[string][]int
}

// matchingBlock is (i, j, size): a[i:i+size] == b[j:j+size].
type matchingBlock struct{ i, j, size int }

// opcode is (tag, i1, i2, j1, j2), tag one of replace, delete, insert, equal.
type opcode struct {
	tag            string
	i1, i2, j1, j2 int
}

func newSequenceMatcher(a, b []string) *sequenceMatcher {
	b2j := map[string][]int{}
	for index, line := range b {
		b2j[line] = append(b2j[line], index) // ascending, as the search relies on
	}
	return &sequenceMatcher{a: a, b: b, b2j: b2j}
}

// findLongestMatch is the longest a[i:i+k] == b[j:j+k] within the bounds, the earliest in a
// and then in b among the longest (Python's find_longest_match without junk).
func (m *sequenceMatcher) findLongestMatch(alo, ahi, blo, bhi int) matchingBlock {
	besti, bestj, bestsize := alo, blo, 0
	j2len := map[int]int{}
	for i := alo; i < ahi; i++ {
		newj2len := map[int]int{}
		for _, j := range m.b2j[m.a[i]] {
			if j < blo {
				continue
			}
			if j >= bhi {
				break
			}
			k := j2len[j-1] + 1
			newj2len[j] = k
			if k > bestsize {
				besti, bestj, bestsize = i-k+1, j-k+1, k
			}
		}
		j2len = newj2len
	}
	for besti > alo && bestj > blo && m.a[besti-1] == m.b[bestj-1] {
		besti, bestj, bestsize = besti-1, bestj-1, bestsize+1
	}
	for besti+bestsize < ahi && bestj+bestsize < bhi && m.a[besti+bestsize] == m.b[bestj+bestsize] {
		bestsize++
	}
	return matchingBlock{besti, bestj, bestsize}
}

// matchingBlocks are Python's get_matching_blocks: sorted, adjacent blocks joined, ending
// with (len(a), len(b), 0).
func (m *sequenceMatcher) matchingBlocks() []matchingBlock {
	queue := [][4]int{{0, len(m.a), 0, len(m.b)}}
	var found []matchingBlock
	for len(queue) > 0 {
		bounds := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		alo, ahi, blo, bhi := bounds[0], bounds[1], bounds[2], bounds[3]
		block := m.findLongestMatch(alo, ahi, blo, bhi)
		i, j, k := block.i, block.j, block.size
		if k == 0 {
			continue
		}
		found = append(found, block)
		if alo < i && blo < j {
			queue = append(queue, [4]int{alo, i, blo, j})
		}
		if i+k < ahi && j+k < bhi {
			queue = append(queue, [4]int{i + k, ahi, j + k, bhi})
		}
	}
	sort.Slice(found, func(x, y int) bool {
		if found[x].i != found[y].i {
			return found[x].i < found[y].i
		}
		if found[x].j != found[y].j {
			return found[x].j < found[y].j
		}
		return found[x].size < found[y].size
	})
	var joined []matchingBlock
	current := matchingBlock{}
	for _, block := range found {
		if current.i+current.size == block.i && current.j+current.size == block.j {
			current.size += block.size
			continue
		}
		if current.size > 0 {
			joined = append(joined, current)
		}
		current = block
	}
	if current.size > 0 {
		joined = append(joined, current)
	}
	return append(joined, matchingBlock{len(m.a), len(m.b), 0})
}

// opcodes are Python's get_opcodes: how to turn a into b.
func (m *sequenceMatcher) opcodes() []opcode {
	var codes []opcode
	i, j := 0, 0
	for _, block := range m.matchingBlocks() {
		tag := ""
		switch {
		case i < block.i && j < block.j:
			tag = "replace"
		case i < block.i:
			tag = "delete"
		case j < block.j:
			tag = "insert"
		}
		if tag != "" {
			codes = append(codes, opcode{tag, i, block.i, j, block.j})
		}
		i, j = block.i+block.size, block.j+block.size
		if block.size > 0 {
			codes = append(codes, opcode{"equal", block.i, i, block.j, j})
		}
	}
	return codes
}
