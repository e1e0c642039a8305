package data

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Digest follows the contents of a data set's files and nothing else
// (generated cases, as the grid runner meets them): a copy in another
// folder keeps it; one byte changed anywhere, or a file that a bag-only
// folder reads added to it, changes it; a file such a folder does not read
// leaves it. The embedded and generated sets have none.
func TestPropertyDigest(t *testing.T) {
	params := gopter.DefaultTestParametersWithSeed(41)
	params.MinSuccessfulTests = 100
	if n, err := strconv.Atoi(os.Getenv("LLPFC_GRID_CASES")); err == nil && n > 0 {
		params.MinSuccessfulTests = n
	}
	props := gopter.NewProperties(params)
	props.Property("a digest is the files' contents", prop.ForAll(func(seed int64) string {
		if err := checkDigestCase(t, rand.New(rand.NewSource(seed))); err != nil {
			return err.Error()
		}
		return ""
	}, gen.Int64()))
	var log bytes.Buffer
	if !props.Run(gopter.NewFormatedReporter(false, 200, &log)) {
		t.Error(log.String())
	}
	for _, name := range []string{"fixture", "gmm:classes=3,dim=4,train=100,test=50,sep=3"} {
		d, err := Digest(name, "")
		require.NoError(t, err)
		assert.Empty(t, d, name)
	}
}

// checkDigestCase draws one data set — a labelled CSV pair or a bag-only
// folder of tables — with random bytes, and checks Digest against it.
func checkDigestCase(t *testing.T, r *rand.Rand) error {
	folder := r.Intn(2) == 0
	files := []string{"train.csv", "test.csv"}
	if folder {
		files = []string{"train.csv", "proportions.csv", "test.csv"}[:2+r.Intn(2)]
	}
	contents := map[string][]byte{}
	for _, f := range files {
		b := make([]byte, r.Intn(300))
		r.Read(b)
		contents[f] = b
	}
	write := func(dir string) string {
		for f, b := range contents {
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if folder {
			return "bags:" + dir
		}
		return "csv:" + filepath.Join(dir, "train.csv") + "," + filepath.Join(dir, "test.csv")
	}
	a, b := t.TempDir(), t.TempDir()
	na, nb := write(a), write(b)
	da, err := Digest(na, "")
	if err != nil {
		return err
	}
	db, err := Digest(nb, "")
	if err != nil {
		return err
	}
	switch {
	case da == "":
		return fmt.Errorf("%s: no digest", na)
	case da != db:
		return fmt.Errorf("the same files in two folders: digests %s and %s", da, db)
	}
	// A file the set does not read leaves the digest as it was.
	if err := os.WriteFile(filepath.Join(b, "notes.txt"), []byte("x"), 0o644); err != nil {
		return err
	}
	if d, _ := Digest(nb, ""); d != da {
		return fmt.Errorf("notes.txt beside the set changed its digest")
	}
	// One byte changed, or appended, anywhere changes it.
	f := files[r.Intn(len(files))]
	changed := append([]byte(nil), contents[f]...)
	if len(changed) > 0 && r.Intn(3) > 0 {
		i := r.Intn(len(changed))
		changed[i] ^= byte(1 + r.Intn(255))
	} else {
		changed = append(changed, byte(r.Intn(256)))
	}
	if err := os.WriteFile(filepath.Join(b, f), changed, 0o644); err != nil {
		return err
	}
	if d, _ := Digest(nb, ""); d == da {
		return fmt.Errorf("%s changed (%d → %d bytes), digest did not", f, len(contents[f]), len(changed))
	}
	if folder {
		// An array the folder would read, added to it, changes it too.
		if err := os.WriteFile(filepath.Join(a, "extra.npy"), []byte{1}, 0o644); err != nil {
			return err
		}
		if d, _ := Digest(na, ""); d == da {
			return fmt.Errorf("extra.npy added to the folder, digest did not change")
		}
	}
	return nil
}
