package hookproof

import (
	"os"
	"sort"
)

// GateOptions are the gate's settings: the classes that fail it (nil: BREAKING and
// SECURITY) and whether a baseline without snapshots is accepted (a new suite's first run).
type GateOptions struct {
	FailOn             map[string]bool
	AllowEmptyBaseline bool
}

// Gate pairs the snapshot files of two directories, written by the same suite before and
// after an upgrade, and classifies every change, as Python's `hookproof gate` does: same
// classes, findings and texts. It fails closed: a *.txt it cannot read as a snapshot (any
// under either directory, all listed), a side without snapshots or a missing directory is a
// *GateError, and nothing is compared.
func Gate(baseline, candidate string, options GateOptions) (*GateReport, error) {
	baseline, candidate = pyPath(baseline), pyPath(candidate)
	for _, side := range [][2]string{{baseline, "baseline"}, {candidate, "candidate"}} {
		if info, err := os.Stat(side[0]); err != nil || !info.IsDir() {
			return nil, gateError("hookproof: the %s directory %s does not exist or is not a directory. Pass the snapshot directories written before and after the upgrade.", side[1], pyRepr(side[0]))
		}
	}
	var problems []unreadable
	old, new := loadDirectory(baseline, &problems), loadDirectory(candidate, &problems)
	if len(problems) > 0 {
		return nil, unreadableError(problems)
	}
	if err := requireSnapshots(baseline, candidate, len(old), len(new), options.AllowEmptyBaseline); err != nil {
		return nil, err
	}
	failOn := options.FailOn
	if failOn == nil {
		failOn = map[string]bool{Breaking: true, Security: true}
	}
	return newGateReport(baseline, candidate, compareAll(old, new), failOn), nil
}

func compareAll(old, new map[string]*snapshotView) []fileReport {
	names := map[string]bool{}
	for name := range old {
		names[name] = true
	}
	for name := range new {
		names[name] = true
	}
	var files []fileReport
	for _, name := range sortedKeys(names, func(string) bool { return true }) {
		files = append(files, compareSnapshots(name, old[name], new[name]))
	}
	sort.SliceStable(files, func(i, j int) bool { return files[i].path < files[j].path })
	return files
}

func compareSnapshots(name string, old, new *snapshotView) fileReport {
	status := "changed"
	var changes []change
	switch {
	case old == nil:
		status, changes = "added", []change{{kind: Review, subject: "snapshot", what: "new snapshot (not in the baseline)"}}
	case new == nil:
		status, changes = "removed", []change{{kind: Breaking, subject: "snapshot", what: "missing from the candidate"}}
	default:
		changes = diffViews(old, new)
		if len(changes) == 0 {
			status = "unchanged"
		}
	}
	return fileReport{name, status, changes, sectionsFor(changes, old, new)}
}

func requireSnapshots(old, new string, oldCount, newCount int, allowEmptyBaseline bool) error {
	switch {
	case oldCount == 0 && newCount == 0:
		return gateError("hookproof: neither %s nor %s holds a hookproof snapshot. Run the suite with --snapshot-update into each directory first.", pyRepr(old), pyRepr(new))
	case newCount == 0:
		return gateError("hookproof: the candidate directory %s holds no hookproof snapshot (no *.txt file), but the baseline %s holds %d. "+
			"Every one of them would be reported missing: the candidate run most likely wrote its snapshots elsewhere, or did not run. "+
			"Point the gate at the directory it wrote (-o hookproof_snapshot_dir=...). A suite that records nothing has nothing to gate.", pyRepr(new), pyRepr(old), oldCount)
	case oldCount == 0 && !allowEmptyBaseline:
		return gateError("hookproof: the baseline directory %s holds no hookproof snapshot (no *.txt file), but the candidate %s holds %d. "+
			"Every one of them would be merely new and the gate would pass without comparing anything: the baseline run most likely wrote its snapshots elsewhere. "+
			"Point the gate at the directory it wrote (-o hookproof_snapshot_dir=...); for the first run of a new suite, pass --allow-empty-baseline (allow_empty_baseline=True).", pyRepr(old), pyRepr(new), newCount)
	}
	return nil
}
