package data

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// maxLIBSVMDim bounds the feature index of a LIBSVM file, since the data are
// stored densely.
const maxLIBSVMDim = 1 << 24

// denseLimit bounds N·D of a densely stored LIBSVM file, in values, each
// held twice (float64 as read, Dataset.Raw, and float32: valueBytes):
// half of the memory available when the package loads (MemAvailable of
// /proc/meminfo; 4 GiB where it cannot be read), so that one far-off
// feature index in a small file fails with a clear error instead of
// exhausting the machine. The fuzz target lowers it so
// tiny inputs cannot ask for gigabytes.
var denseLimit = availableAtLoad / 2 / valueBytes

// valueBytes is the memory of one value of a tabular file: float64 as read
// and float32.
const valueBytes = 12

// AvailableMemory returns the memory available for new allocations when
// the package was loaded: MemAvailable of /proc/meminfo, or 4 GiB where it
// cannot be read. The checks of sizes before allocation compare with a
// fraction of it, so that a size beyond the memory is bad input, not a crash.
func AvailableMemory() int64 { return availableAtLoad }

var availableAtLoad = availableBytes()

// availableBytes returns the memory available for new allocations.
func availableBytes() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemAvailable:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil && kb > 0 {
					return kb * 1024
				}
			}
		}
	}
	return 4 << 30
}

// ReadLIBSVM decodes LIBSVM/SVMlight text: one instance per line,
// "label index:value index:value …" with 1-based, strictly increasing
// indices; absent features are 0; "#" starts a comment; blank lines are
// skipped. The feature count D is opt.Dim if set, else the largest index.
// Labels are mapped to classes 0…K−1 as TabularOptions.Classes says.
// Multi-label lines ("1,3 …") and qid fields are rejected. Errors name the
// line and field.
func ReadLIBSVM(r io.Reader, name string, opt TabularOptions) (*Dataset, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<28)
	type entry struct {
		i int
		v float64
	}
	var rows [][]entry
	var labels []string
	var lines []int
	maxIdx, maxLine := 0, 0
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			text = strings.TrimPrefix(text, "\ufeff")
		}
		if k := strings.IndexByte(text, '#'); k >= 0 {
			text = text[:k]
		}
		fields := strings.Fields(text)
		if len(fields) == 0 {
			continue
		}
		lab := fields[0]
		if strings.ContainsAny(lab, ",:") {
			return nil, fmt.Errorf("%s: line %d: label %q: multi-label or missing label, want one number", name, line, lab)
		}
		v, err := strconv.ParseFloat(lab, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: line %d: label %q is not a finite number", name, line, lab)
		}
		var row []entry
		prev := 0
		for fi, f := range fields[1:] {
			is, vs, ok := strings.Cut(f, ":")
			if !ok {
				return nil, fmt.Errorf("%s: line %d, field %d: %q, want index:value", name, line, fi+2, f)
			}
			idx, err := strconv.Atoi(is)
			if err != nil || idx < 1 || idx > maxLIBSVMDim {
				return nil, fmt.Errorf("%s: line %d, field %d: index %q, want an integer 1…%d", name, line, fi+2, is, maxLIBSVMDim)
			}
			if idx <= prev {
				return nil, fmt.Errorf("%s: line %d, field %d: index %d after %d, want strictly increasing indices", name, line, fi+2, idx, prev)
			}
			if opt.Dim > 0 && idx > opt.Dim {
				return nil, fmt.Errorf("%s: line %d, field %d: index %d exceeds the %d features of the training split", name, line, fi+2, idx, opt.Dim)
			}
			prev = idx
			x, err := strconv.ParseFloat(vs, 64)
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > math.MaxFloat32 {
				return nil, fmt.Errorf("%s: line %d, field %d: value %q is not a finite float32 number: write a finite value (|x| ≤ 3.4e38), or drop the line", name, line, fi+2, vs)
			}
			row = append(row, entry{idx, x})
		}
		if prev > maxIdx {
			maxIdx, maxLine = prev, line
		}
		rows = append(rows, row)
		labels = append(labels, strconv.FormatFloat(v, 'g', -1, 64))
		lines = append(lines, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", name, line+1, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no instances", name)
	}
	d := maxIdx
	if opt.Dim > 0 {
		d = opt.Dim
	}
	if d == 0 {
		return nil, fmt.Errorf("%s: no features on any line", name)
	}
	if int64(d)*int64(len(rows)) > denseLimit {
		at := ""
		if opt.Dim == 0 {
			at = fmt.Sprintf(" (the largest feature index, %d, is on line %d)", maxIdx, maxLine)
		}
		return nil, fmt.Errorf("%s: %d instances × %d features%s would need %.3g GiB held densely, more than the %.3g GiB allowed (half the memory available); check that line's indices",
			name, len(rows), d, at, float64(int64(d)*int64(len(rows))*valueBytes)/(1<<30), float64(denseLimit*valueBytes)/(1<<30))
	}
	y, classes, err := classIndex(name, labels, lines, opt.Classes)
	if err != nil {
		return nil, err
	}
	x := make([]float64, len(rows)*d)
	for i, row := range rows {
		for _, e := range row {
			x[i*d+e.i-1] = e.v
		}
	}
	return &Dataset{Name: name, X: narrow(x), Raw: x, Y: y, N: len(rows), D: d, NumClasses: len(classes), ClassNames: classes}, nil
}

// ReadLIBSVMFile reads the LIBSVM file at path.
func ReadLIBSVMFile(path string, opt TabularOptions) (*Dataset, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadLIBSVM(f, path, opt)
}
