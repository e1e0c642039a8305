package experiments

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/training/methods"
)

// ownMethod is a method registered for one test, as a new method is, with
// the settings given (none, or a declaration of its own).
func ownMethod(t *testing.T, settings ...*methods.Setting) {
	t.Helper()
	methods.Register(methods.Descriptor{Name: "test-own", Label: "Test-Own", Order: 77, Family: methods.FamilyBag, Batch: methods.Bags,
		DefaultBatch: 2, Help: "a test's", Search: methods.DefaultSearch, Settings: settings,
		New: func(*methods.Env) (methods.Method, error) { return nil, nil }})
	t.Cleanup(func() { methods.Unregister("test-own") })
}

// ownCell is a cell of the test's method with hyper.settings js (a spec's
// JSON, "" for none), as a spec's expansion writes it (StateSettings).
func ownCell(t *testing.T, js string) Config {
	t.Helper()
	c := Config{Learner: "gorgonia", Dataset: "gmm:classes=3,dim=4,train=200,test=50,sep=3", Model: "mlp", Method: "test-own",
		Protocol: "shuffle", BagSize: 8, NumPoints: 160, Normalize: "standardize",
		Hyper: Hyper{Epochs: 1, Optimizer: "adam", LR: 1e-3, BatchSize: 2, Schedule: Schedule{Kind: "constant"}}}
	if js != "" {
		require.NoError(t, json.Unmarshal([]byte(js), &c.Hyper.Settings))
	}
	c.StateSettings()
	return c
}

// A method's own setting, declared in its descriptor alone, is a field of
// the cell (hyper.settings.NAME) and a part of its key — but its default is
// not: a cell that leaves the setting out, or states its default, has the
// key the same cell had before the method declared the setting. A value
// outside the declaration, the setting stated for a method that does not
// read it, and a name no method declares are refused, naming the field.
func TestOwnSettingReachesTheKey(t *testing.T) {
	ownMethod(t)
	before := ownCell(t, "").Key()
	methods.Unregister("test-own")
	iters := &methods.Setting{Name: "test_iters", Kind: methods.KindInt, Default: "5", Min: 1, Max: 50,
		Help: "a test's iterations"}
	ownMethod(t, iters)

	assert.Equal(t, before, ownCell(t, "").Key(), "a setting left out: the key of before it was declared")
	stated := ownCell(t, `{"test_iters": 5}`)
	assert.Equal(t, before, stated.Key(), "a setting at its default: the key of before")
	assert.Nil(t, stated.Hyper.Settings, "the default is not stated")
	seven := ownCell(t, `{"test_iters": 7}`)
	assert.NotEqual(t, before, seven.Key())
	assert.Contains(t, string(seven.CanonicalJSON()), `"settings":{"test_iters":7}`)
	assert.Equal(t, "7", seven.Flat()["hyper.settings.test_iters"])
	require.NoError(t, seven.Validate())
	assert.Equal(t, methods.NumValue(7), seven.Hyper.SettingValue(iters))
	assert.Equal(t, methods.NumValue(5), ownCell(t, "").Hyper.SettingValue(iters))

	for js, want := range map[string]string{
		`{"test_iters": 0}`:   "hyper.settings.test_iters: is 0, want a whole number in [1, 50]",
		`{"test_iters": 2.5}`: "hyper.settings.test_iters: is 2.5",
		`{"test_iters": "x"}`: `hyper.settings.test_iters: is "x"`,
		`{"test_other": 1}`:   "hyper.settings.test_other: no method declares it",
		`{"flood": 0.3}`:      "hyper.settings.flood: write it hyper.flood",
	} {
		c := ownCell(t, js)
		assert.ErrorContains(t, c.Validate(), want, js)
	}
	kl := seven
	kl.Method, kl.Hyper.KLScale = "kl", 1
	assert.ErrorContains(t, kl.Validate(), "hyper.settings.test_iters: is 7, but method kl does not read it (test-own do)")
}

// The settings of before declarations (methods.Fielded) keep their fields
// and keys: every one a registered method declares has a field of Hyper of
// its JSON name, read and written through the declaration (StatedSetting,
// SetSetting) as a spec's JSON spells it; a choice's names are its typed
// field's (each parses, and the type has no other); and LLP-PVC's FFT, the
// value its cells trained before the setting existed, is left out of a
// cell's key while its default, exact, is stated.
func TestFieldedSettingsKeepTheirFields(t *testing.T) {
	n := 0
	for _, s := range methods.AllSettings() {
		if !methods.Fielded(s.Name) {
			continue
		}
		n++
		i, ok := hyperFields[s.Name]
		require.True(t, ok, "setting %s has no Hyper field named %s", s.Name, s.Name)
		var v methods.Value
		switch s.Kind {
		case methods.KindChoice:
			v = methods.NameValue(s.Choices[len(s.Choices)-1])
			f := reflect.New(reflect.TypeFor[Hyper]().Field(i).Type)
			m := f.Interface().(interface{ MarshalText() ([]byte, error) })
			var names []string
			for k := 1; ; k++ {
				f.Elem().SetUint(uint64(k))
				b, err := m.MarshalText()
				if err != nil {
					break
				}
				names = append(names, string(b))
			}
			assert.Equal(t, s.Choices, names, "setting %s: its choices are its type's names", s.Name)
		default:
			v = methods.NumValue(3)
		}
		var h Hyper
		require.NoError(t, h.SetSetting(s, v), s.Name)
		got, set := h.StatedSetting(s)
		assert.True(t, set, s.Name)
		assert.Equal(t, v, got, s.Name)
		b, err := json.Marshal(h)
		require.NoError(t, err)
		want, _ := json.Marshal(v)
		assert.Contains(t, string(b), `"`+s.Name+`":`+string(want), s.Name)
		h.ClearSetting(s)
		_, set = h.StatedSetting(s)
		assert.False(t, set, s.Name)
		assert.Error(t, h.SetSetting(s, methods.NumValue(math.NaN())), s.Name)
	}
	assert.Equal(t, 12, n, "the settings of before declarations")

	pvc := Config{Method: methods.LLPPVC}
	pvc.StateSettings()
	assert.Equal(t, "exact", pvc.Hyper.PVCLikelihood.String(), "the default, stated")
	require.NoError(t, pvc.Hyper.SetSetting(&methods.PVCLikelihoodSetting, methods.NameValue("fft")))
	pvc.StateSettings()
	assert.Zero(t, pvc.Hyper.PVCLikelihood, "the FFT, left out: the key of the cells before the setting")
	kl := Config{Method: methods.KL}
	kl.StateSettings()
	assert.Equal(t, "authors", kl.Hyper.KLScale.String(), "the KL scale stated at its default (Always)")
	require.NoError(t, kl.Hyper.SetSetting(&methods.BNStatsSetting, methods.NameValue("minibatch")))
	kl.StateSettings()
	assert.Zero(t, kl.Hyper.BNStats, "the batch-norm statistics' default, left out")
	assert.True(t, strings.HasPrefix(SettingPath(&methods.FloodSetting), "hyper.flood"))
}
