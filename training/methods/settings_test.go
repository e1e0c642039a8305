package methods

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A declaration Register takes: a number in (0, 10], default 1.
func scaleSetting() Setting {
	return Setting{Name: "test_scale", Kind: KindFloat, Default: "1", Min: 0, MinExcluded: true, Max: 10, Help: "a test's scale"}
}

// TestRegisterRefusesABadSetting: a setting declared without what its flag,
// its spec field and its validation need — a name of the spec's form, a
// help line, a kind, two choices, a range with room in it (a forgotten Max
// is [Min, 0]), a default inside its range — is refused when its method
// registers, naming what is wrong; so is a setting declared twice, an
// authors' preset of an undeclared setting or of a value outside it, and a
// setting another method declares otherwise (one declaration, shared).
func TestRegisterRefusesABadSetting(t *testing.T) {
	for want, edit := range map[string]func(*Setting){
		"lower-case letters":   func(s *Setting) { s.Name = "Test-Scale" },
		"no help line":         func(s *Setting) { s.Help = "" },
		"no kind":              func(s *Setting) { s.Kind = 0 },
		"at least 2":           func(s *Setting) { s.Kind, s.Choices, s.Default = KindChoice, []string{"a"}, "a" },
		"holds no number":      func(s *Setting) { s.Max = 0 },
		"default is 20":        func(s *Setting) { s.Default = "20" },
		"default is 0,":        func(s *Setting) { s.Default = "0" },
		"default is \"x\"":     func(s *Setting) { s.Default = "x" },
		"Always and Unstated":  func(s *Setting) { s.Always, s.Unstated = true, "2" },
		"unstated value is 11": func(s *Setting) { s.Unstated = "11" },
	} {
		s := scaleSetting()
		edit(&s)
		d := complete()
		d.Settings = []*Setting{&s}
		err := d.check()
		if assert.Error(t, err, want) {
			assert.Contains(t, err.Error(), want)
		}
	}
	s := scaleSetting()
	d := complete()
	d.Settings = []*Setting{&s, &s}
	assert.ErrorContains(t, d.check(), "declared twice")
	d = complete()
	d.Settings = []*Setting{&s}
	assert.NoError(t, d.check())
	d.Authors = &Preset{Optimizer: "adam", LR: 1, BatchSize: 1, Settings: map[string]string{"test_other": "1"}}
	assert.ErrorContains(t, d.check(), "does not declare")
	d.Authors.Settings = map[string]string{"test_scale": "11"}
	assert.ErrorContains(t, d.check(), "its authors' test_scale is 11")

	// Another declaration of a setting a registered method declares.
	other := FloodSetting
	other.Default = "0.3"
	d = complete()
	d.Settings = []*Setting{&other}
	assert.PanicsWithValue(t, "methods: test-complete declares setting flood otherwise than easyllp does: declare it once and share it", func() { Register(d) })
	_, registered := Lookup("test-complete")
	assert.False(t, registered)
}

// TestSettingParse: a setting's values as a flag or a spec spells them, on
// cases worked by hand — the range's ends in or out as declared, a whole
// number for an int, a finite number (NaN, ±Inf and 1e309 refused), a name
// among the choices, matched exactly — each refusal saying what was wanted.
func TestSettingParse(t *testing.T) {
	scale := scaleSetting()
	iters := Setting{Name: "test_iters", Kind: KindInt, Default: "5", Min: 1, Max: math.Inf(1), Help: "h"}
	lik := PVCLikelihoodSetting
	for _, tc := range []struct {
		s    *Setting
		text string
		want Value
		err  string
	}{
		{&scale, "1", NumValue(1), ""},
		{&scale, "10", NumValue(10), ""},
		{&scale, "1e-300", NumValue(1e-300), ""},
		{&scale, "0", Value{}, "is 0, want a number in (0, 10]"},
		{&scale, "10.000001", Value{}, "want a number in (0, 10]"},
		{&scale, "NaN", Value{}, "is NaN"},
		{&scale, "-Inf", Value{}, "is -Inf"},
		{&scale, "1e309", Value{}, `is "1e309"`},
		{&scale, "x", Value{}, `is "x", want a number in (0, 10]`},
		{&iters, "7", NumValue(7), ""},
		{&iters, "2.5", Value{}, "is 2.5, want a whole number ≥ 1"},
		{&iters, "0", Value{}, "want a whole number ≥ 1"},
		{&lik, "fft", NameValue("fft"), ""},
		{&lik, "FFT", Value{}, `is "FFT", want exact or fft`},
		{&lik, "", Value{}, `is "", want exact or fft`},
	} {
		v, err := tc.s.Parse(tc.text)
		if tc.err != "" {
			assert.ErrorContains(t, err, tc.err, "%s %q", tc.s.Name, tc.text)
			continue
		}
		if assert.NoError(t, err, "%s %q", tc.s.Name, tc.text) {
			assert.Equal(t, tc.want, v)
		}
	}
	assert.Error(t, scale.Check(NameValue("1")), "a name for a number")
	assert.Error(t, lik.Check(NumValue(1)), "a number for a choice")
}

// TestValueJSONRoundTrips: a setting's value is written as the JSON a
// spec writes (a number as encoding/json writes a float64, a name as a
// string) and read back to itself, over generated numbers and names; what
// is neither (null, an object, an empty name) is refused.
func TestValueJSONRoundTrips(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 500
	props := gopter.NewProperties(params)
	props.Property("numbers", prop.ForAll(func(x float64) bool {
		b, err := json.Marshal(NumValue(x))
		want, _ := json.Marshal(x)
		var v Value
		return err == nil && string(b) == string(want) && json.Unmarshal(b, &v) == nil && v == NumValue(x)
	}, gen.Float64().SuchThat(func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) })))
	props.Property("names", prop.ForAll(func(s string) bool {
		b, err := json.Marshal(NameValue(s))
		want, _ := json.Marshal(s)
		var v Value
		return err == nil && string(b) == string(want) && json.Unmarshal(b, &v) == nil && v == NameValue(s)
	}, gen.AnyString().SuchThat(func(s string) bool { return s != "" })))
	props.TestingRun(t)
	for _, bad := range []string{`null`, `{}`, `[1]`, `""`, `true`} {
		var v Value
		assert.Error(t, json.Unmarshal([]byte(bad), &v), bad)
	}
	vs := Values{"b": NumValue(0.1), "a": NameValue("x")}
	b, err := json.Marshal(vs)
	require.NoError(t, err)
	assert.Equal(t, `{"a":"x","b":0.1}`, string(b), "names in order: one encoding, one key")
}

// TestConfigSettingReadsItsDefault: a run reads a setting its method
// declares without a field (Config.Setting) as the value Settings states,
// or the declaration's default; a setting its method does not declare, or
// one with a field of its own, panics (a bug in the method); a stated value
// outside the setting, or a setting the method does not declare, fails the
// run's checks (CheckSettings), naming it.
func TestConfigSettingReadsItsDefault(t *testing.T) {
	s := scaleSetting()
	d := complete()
	d.Settings = []*Setting{&s, &FloodSetting}
	Register(d)
	t.Cleanup(func() { Unregister(d.Name) })
	c := Config{Method: d.Name}
	assert.Equal(t, NumValue(1), c.Setting("test_scale"))
	c.Settings = Values{"test_scale": NumValue(2.5)}
	assert.Equal(t, NumValue(2.5), c.Setting("test_scale"))
	assert.Panics(t, func() { c.Setting("test_other") })
	assert.Panics(t, func() { c.Setting(SettingFlood) }, "read from Config.Flood")
	assert.NoError(t, CheckSettings(d.Name, c.Settings))
	assert.ErrorContains(t, CheckSettings(d.Name, Values{"test_scale": NumValue(20)}), "setting test_scale: is 20")
	assert.ErrorContains(t, CheckSettings(d.Name, Values{"test_other": NumValue(1)}), "does not declare it")
	assert.ErrorContains(t, CheckSettings(d.Name, Values{SettingFlood: NumValue(1)}), "a field of its own")
}
