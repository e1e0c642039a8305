package data

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"
)

// channelValues gathers every value of channel c of an image data set, or
// of feature c of a tabular one.
func channelValues(d *Dataset, c int) []float64 {
	var v []float64
	for i := 0; i < d.N; i++ {
		row := d.X[i*d.D : (i+1)*d.D]
		if d.Channels > 0 {
			hw := d.Height * d.Width
			for _, x := range row[c*hw : (c+1)*hw] {
				v = append(v, float64(x))
			}
		} else {
			v = append(v, float64(row[c]))
		}
	}
	return v
}

func randomImages(r *rand.Rand, n, c, h, w int) *Dataset {
	d := &Dataset{Name: "rand", N: n, D: c * h * w, NumClasses: 2, Channels: c, Height: h, Width: w,
		X: make([]float32, n*c*h*w), Y: make([]int, n)}
	for i := range d.X {
		ch := i / (h * w) % c
		d.X[i] = float32(min(1, r.Float64()*float64(ch+1)/3)) // each channel its own scale
	}
	return d
}

// Fit's constants are each channel's (feature's) population mean and standard
// deviation (gonum's PopMeanStdDev over the channel's values); the applied
// copy has mean 0 and std 1 per channel, the original is untouched, and the
// test split is mapped with the training split's constants.
func TestStandardizeImagesAndTabular(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	tab := &Dataset{Name: "tab", N: 50, D: 3, NumClasses: 2, X: make([]float32, 150), Y: make([]int, 50)}
	for i := range tab.X {
		tab.X[i] = float32(r.NormFloat64()*float64(i%3+1) + float64(10*(i%3)))
	}
	for _, d := range []*Dataset{randomImages(r, 20, 3, 4, 5), tab} {
		orig := append([]float32(nil), d.X...)
		s, err := Fit(Standardize, d)
		require.NoError(t, err)
		groups := d.D
		if d.Channels > 0 {
			groups = d.Channels
		}
		require.Len(t, s.Mean, groups)
		out, err := s.Apply(d)
		require.NoError(t, err)
		assert.Equal(t, orig, d.X, "%s: the original is not modified", d.Name)
		for c := 0; c < groups; c++ {
			m, sd := stat.PopMeanStdDev(channelValues(d, c), nil)
			assert.InDelta(t, m, s.Mean[c], 1e-12, "%s mean[%d]", d.Name, c)
			assert.InDelta(t, sd, s.Std[c], 1e-12, "%s std[%d]", d.Name, c)
			m, sd = stat.PopMeanStdDev(channelValues(out, c), nil)
			assert.InDelta(t, 0, m, 1e-6, "%s standardized mean[%d]", d.Name, c)
			assert.InDelta(t, 1, sd, 1e-6, "%s standardized std[%d]", d.Name, c)
		}
		require.NoError(t, out.Validate(), "a normalized copy is valid although its pixels leave [0,1]")
	}
}

// A constant feature is centred only; mode none returns the data as they are;
// wrong constants and unknown modes are errors; PadValues are the
// normalized value of a raw 0.
func TestStandardizeEdges(t *testing.T) {
	d := &Dataset{Name: "const", N: 3, D: 2, NumClasses: 1, X: []float32{5, 1, 5, 2, 5, 3}, Y: make([]int, 3)}
	s, err := Fit(Standardize, d)
	require.NoError(t, err)
	assert.Equal(t, []float64{1, 1}[0], s.Std[0], "constant feature: std 1")
	out, err := s.Apply(d)
	require.NoError(t, err)
	assert.Equal(t, float32(0), out.X[0])
	none, err := Fit(NoNormalization, d)
	require.NoError(t, err)
	same, err := none.Apply(d)
	require.NoError(t, err)
	assert.Same(t, d, same)
	assert.Nil(t, none.PadValues())
	_, err = Fit("minmax", d)
	assert.ErrorContains(t, err, "minmax")
	_, err = Standardization{Mode: Standardize, Mean: []float64{0}, Std: []float64{1}}.Apply(d)
	assert.ErrorContains(t, err, "2 channels or features")
	_, err = Fit(Standardize, &Dataset{Name: "empty", D: 2})
	assert.ErrorContains(t, err, "empty training split")
	pv := Standardization{Mode: Standardize, Mean: []float64{0.5, 0.25}, Std: []float64{0.25, 0.5}}.PadValues()
	assert.Equal(t, []float64{-2, -0.5}, pv)
}

// Golden constants: the fixture's training split is Fashion-MNIST's whole
// training split, whose pixel mean and standard deviation are the widely
// published 0.2860 and 0.3530; the Debian copy of Fashion-MNIST gives the
// same constants when it is installed.
func TestStandardizeGoldenFashionMNIST(t *testing.T) {
	check := func(name, dir string) {
		d, err := Load(name, dir, Train)
		require.NoError(t, err)
		s, err := Fit(Standardize, d)
		require.NoError(t, err)
		require.Len(t, s.Mean, 1)
		assert.InDelta(t, 0.2860, s.Mean[0], 5e-5, "%s mean", name)
		assert.InDelta(t, 0.3530, s.Std[0], 5e-5, "%s std", name)
		// The exact values from the raw bytes b (mean Σb/(n·255), population
		// std likewise, in exact rational arithmetic with numpy and Fraction on
		// the Debian files); storing pixels as float32(b/255)
		// moves them by about 5e-9.
		assert.InDelta(t, 0.2860405969887955, s.Mean[0], 1e-8, "%s mean (golden)", name)
		assert.InDelta(t, 0.3530242445149226, s.Std[0], 1e-8, "%s std (golden)", name)
	}
	check("fixture", "")
	if _, err := os.Stat("/usr/share/datasets/fashion-mnist"); err != nil {
		t.Log("Debian's dataset-fashion-mnist is not installed; checked the fixture only")
		return
	}
	check("fashion-mnist", "/usr/share/datasets/fashion-mnist")
}
