package data

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, b, 0o644))
}

// writeIDXSet writes a four-file IDX data set with n train and n test 2×2
// images whose labels are labels (train) and labels reversed (test).
func writeIDXSet(t *testing.T, dir, prefix string, labels []byte, gz bool) {
	n := len(labels)
	img := make([]byte, 4*n)
	for i := range img {
		img[i] = byte(i)
	}
	rev := make([]byte, n)
	for i := range labels {
		rev[i] = labels[n-1-i]
	}
	ext := ""
	if gz {
		ext = ".gz"
	}
	write(t, filepath.Join(dir, prefix+"train-images-idx3-ubyte"+ext), idxBytes(t, []int{n, 2, 2}, img, gz))
	write(t, filepath.Join(dir, prefix+"train-labels-idx1-ubyte"+ext), idxBytes(t, []int{n}, labels, gz))
	tp := "t10k-"
	if prefix != "" {
		tp = "test-"
	}
	write(t, filepath.Join(dir, prefix+tp+"images-idx3-ubyte"+ext), idxBytes(t, []int{n, 2, 2}, img, gz))
	write(t, filepath.Join(dir, prefix+tp+"labels-idx1-ubyte"+ext), idxBytes(t, []int{n}, rev, gz))
}

func TestResolveOrder(t *testing.T) {
	flagDir, envDir := t.TempDir(), t.TempDir()
	writeIDXSet(t, flagDir, "", []byte{1, 2, 3}, true)
	writeIDXSet(t, filepath.Join(envDir, "mnist"), "", []byte{1, 2, 3}, false)

	t.Setenv(EnvDataDir, envDir)
	got, err := Resolve("mnist", flagDir)
	assert.NoError(t, err, "flag")
	assert.Equal(t, flagDir, got, "flag")
	got, err = Resolve("mnist", "")
	assert.NoError(t, err, "env root with sub-directory")
	assert.Equal(t, filepath.Join(envDir, "mnist"), got, "env root with sub-directory")
	// A flag naming a directory without the files is an error, not a fallback.
	empty := t.TempDir()
	_, err = Resolve("mnist", empty)
	wantErr(t, err, "mnist", "--data-dir", empty, "train-images-idx3-ubyte[.gz]", "t10k-labels-idx1-ubyte[.gz]", "put these files")

	// $LLPFC_DATA without Fashion-MNIST falls back to the Debian location.
	got, err = Resolve("fashion-mnist", "")
	if _, statErr := os.Stat(filepath.Join(DebianFashionMNIST, "train-images-idx3-ubyte.gz")); statErr == nil {
		assert.NoError(t, err, "env without fashion-mnist")
		assert.Equal(t, DebianFashionMNIST, got, "env without fashion-mnist: want the Debian location")
	} else {
		wantErr(t, err, "$LLPFC_DATA "+envDir+" lacks", "the Debian location")
	}

	t.Setenv(EnvDataDir, "")
	_, err = Resolve("cifar10", "")
	wantErr(t, err, "cifar10", "--data-dir", "LLPFC_DATA", "data_batch_1.bin", "test_batch.bin", "cifar-10-binary.tar.gz")
	// fashion-mnist falls back to the Debian location.
	got, err = Resolve("fashion-mnist", "")
	if _, statErr := os.Stat(filepath.Join(DebianFashionMNIST, "train-images-idx3-ubyte.gz")); statErr == nil {
		assert.NoError(t, err, "Debian fallback")
		assert.Equal(t, DebianFashionMNIST, got, "Debian fallback")
	} else {
		wantErr(t, err, "the Debian location", DebianFashionMNIST)
	}
	for _, n := range []string{"fixture", "csv:x.csv", "libsvm:y"} {
		d, err := Resolve(n, "")
		assert.Emptyf(t, d, "Resolve(%q) = %q, %v; want no directory", n, d, err)
		assert.NoErrorf(t, err, "Resolve(%q) = %q, %v; want no directory", n, d, err)
	}
	_, err = Resolve("imagenet", "")
	wantErr(t, err, `unknown data set "imagenet"`, "fashion-mnist")
}

func TestLoadNamed(t *testing.T) {
	dir := t.TempDir()
	writeIDXSet(t, filepath.Join(dir, "emnist"), "emnist-letters-", []byte{1, 26, 5}, true)
	writeIDXSet(t, filepath.Join(dir, "fashion-mnist"), "", []byte{0, 9, 5}, false)
	write(t, filepath.Join(dir, "cifar-10-batches-bin", "test_batch.bin"), cifarBytes([]byte{4}))
	for k := 1; k <= 5; k++ {
		write(t, filepath.Join(dir, "cifar-10-batches-bin", "data_batch_"+string(rune('0'+k))+".bin"), cifarBytes([]byte{byte(k), 0}))
	}
	write(t, filepath.Join(dir, "svhn", "train_32x32.mat"), matFile(binary.LittleEndian, true, svhnVars(2, miDOUBLE, []float64{10, 4})...))
	write(t, filepath.Join(dir, "svhn", "test_32x32.mat"), matFile(binary.LittleEndian, false, svhnVars(1, miDOUBLE, []float64{2})...))
	write(t, filepath.Join(dir, "tr.csv"), []byte("x,label\n1,a\n2,c\n"))
	write(t, filepath.Join(dir, "te.csv"), []byte("x,label\n3,c\n"))
	write(t, filepath.Join(dir, "tr.svm"), []byte("3 1:1\n5 2:1\n"))
	write(t, filepath.Join(dir, "te.svm"), []byte("5 1:2\n"))

	cases := []struct {
		name  string
		split Split
		n, d  int
		k     int
		y     []int
	}{
		{"emnist-letters", Train, 3, 4, 26, []int{0, 25, 4}},
		{"emnist-letters", Test, 3, 4, 26, []int{4, 25, 0}},
		{"fashion-mnist", Train, 3, 4, 10, []int{0, 9, 5}},
		{"cifar10", Train, 10, 3072, 10, []int{1, 0, 2, 0, 3, 0, 4, 0, 5, 0}},
		{"cifar10", Test, 1, 3072, 10, []int{4}},
		{"svhn", Train, 2, 3072, 10, []int{0, 4}},
		{"svhn", Test, 1, 3072, 10, []int{2}},
		{"csv:" + filepath.Join(dir, "tr.csv") + "," + filepath.Join(dir, "te.csv"), Test, 1, 1, 2, []int{1}},
		{"libsvm:" + filepath.Join(dir, "tr.svm") + "," + filepath.Join(dir, "te.svm"), Test, 1, 2, 2, []int{1}},
		{"libsvm:" + filepath.Join(dir, "tr.svm"), Train, 2, 2, 2, []int{0, 1}},
	}
	for _, c := range cases {
		t.Run(c.name+"/"+c.split.String(), func(t *testing.T) {
			rdir := ""
			if !strings.Contains(c.name, ":") {
				var err error
				rdir, err = Resolve(c.name, dir)
				require.NoError(t, err)
			}
			d, err := Load(c.name, rdir, c.split)
			require.NoError(t, err)
			require.Equalf(t, c.n, d.N, "N=%d D=%d K=%d, want %d %d %d", d.N, d.D, d.NumClasses, c.n, c.d, c.k)
			require.Equalf(t, c.d, d.D, "N=%d D=%d K=%d, want %d %d %d", d.N, d.D, d.NumClasses, c.n, c.d, c.k)
			require.Equalf(t, c.k, d.NumClasses, "N=%d D=%d K=%d, want %d %d %d", d.N, d.D, d.NumClasses, c.n, c.d, c.k)
			for i := range c.y {
				require.Equalf(t, c.y[i], d.Y[i], "Y = %v, want %v", d.Y, c.y)
			}
		})
	}
	_, err := Load("csv:"+filepath.Join(dir, "tr.csv"), "", Test)
	wantErr(t, err, "no test file", "csv:TRAIN,TEST")
	_, err = Load("mnist", dir, Train)
	wantErr(t, err, "mnist", "train-images-idx3-ubyte")
}

// TestLoadFixture checks the embedded fixture's shape and per-class counts
// against the numbers documented in fixtures/README.md.
func TestLoadFixture(t *testing.T) {
	for _, c := range []struct {
		split    Split
		n        int
		perClass int
	}{{Train, 60000, 6000}, {Test, 4000, 400}} {
		d, err := Load("fixture", "", c.split)
		require.NoError(t, err)
		shape := fmt.Sprintf("%v: N=%d D=%d %d×%d×%d K=%d", c.split, d.N, d.D, d.Channels, d.Height, d.Width, d.NumClasses)
		require.Equal(t, c.n, d.N, shape)
		require.Equal(t, 784, d.D, shape)
		require.Equal(t, 1, d.Channels, shape)
		require.Equal(t, 28, d.Height, shape)
		require.Equal(t, 28, d.Width, shape)
		require.Equal(t, 10, d.NumClasses, shape)
		// The first labels of Fashion-MNIST's train and t10k files, as published
		// (9 = ankle boot, 0 = T-shirt/top, …); the fixture keeps the order.
		first := map[Split][]int{Train: {9, 0, 0, 3, 0, 2, 7, 2, 5, 5}, Test: {9, 2, 1, 1, 6}}[c.split]
		for i, want := range first {
			assert.Equalf(t, want, d.Y[i], "%v: label %d is %d, want %d", c.split, i, d.Y[i], want)
		}
		for k, n := range d.ClassCounts() {
			assert.Equalf(t, c.perClass, n, "%v: class %d has %d images, want %d", c.split, k, n, c.perClass)
		}
	}
}
