package methods

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Setting is one of a method's own hyperparameters, declared once, in its
// descriptor (Descriptor.Settings): its name, type, default, range and help
// are all anything else knows of it. From the declaration a setting becomes
// a field of a spec's and a cell's hyper (its name as the key), a part of the
// cell's key (a value other than the default is stated; the default is not,
// so that declaring a setting keeps every key its method had), an llpfc
// train flag (--NAME, with dashes), a value checked where it enters (Parse,
// Check: a spec, a result, a flag), a value the run reads (Config.Setting)
// and records, and a line of `llpfc methods`. A setting several methods
// read is one variable their descriptors share.
type Setting struct {
	// Name is its key in a cell's hyper ("flood"): lower case, digits and
	// underscores; its flag is --Name with dashes for underscores.
	Name string
	// Kind is the type of its values.
	Kind Kind
	// Choices are a KindChoice setting's names.
	Choices []string
	// Default is the value a cell that leaves the setting out trains with,
	// as a spec writes it ("0.3", "exact").
	Default string
	// Min and Max bound a number (KindFloat, KindInt), both included unless
	// MinExcluded; Max is math.Inf(1) for no bound (Register refuses a
	// range without room, Min ≥ Max, which a forgotten Max would give).
	Min, Max    float64
	MinExcluded bool
	// Help is its line in `llpfc methods` and in its flag's help: what it
	// does, and what it is by the paper or code it comes from.
	Help string
	// Shared marks a setting read by several methods as a table's shared
	// default (the LLPFC algorithms' regrouping, weights and compat mode;
	// the bag losses' chunk size): a cell of any method may state it, since
	// a table's cells share their hyper, and llpfc train defines its flag
	// itself. A setting that is not shared is its methods' own: a cell of
	// another method that states it is refused, and its flag is made from
	// this declaration.
	Shared bool
	// Always states the setting in the key of every cell of a method that
	// reads it, its default too: the KL scale and the VAT schedule, which
	// every such cell has stated since they were added.
	Always bool
	// Unstated is the value of a cell whose key leaves the setting out,
	// when that is not Default: what the method trained before the setting
	// was declared (LLP-PVC's FFT), which is then left out of the key, the
	// default stated, so that those cells keep their keys. Empty: Default.
	Unstated string
}

// Kind is the type of a setting's values.
type Kind uint8

// The kinds.
const (
	// KindFloat is a finite number.
	KindFloat Kind = iota + 1
	// KindInt is a whole number.
	KindInt
	// KindChoice is one of the setting's Choices.
	KindChoice
)

func (k Kind) String() string {
	switch k {
	case KindFloat:
		return "float"
	case KindInt:
		return "int"
	case KindChoice:
		return "choice"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// MarshalText writes the kind's name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Value is a setting's value: a number (KindFloat, KindInt) or a name
// (KindChoice), never both; a choice's name is never empty.
type Value struct {
	Num  float64
	Name string
}

// NumValue and NameValue make values.
func NumValue(x float64) Value    { return Value{Num: x} }
func NameValue(name string) Value { return Value{Name: name} }

// String is the value as a spec writes it: the name, or the number in Go's
// shortest form.
func (v Value) String() string {
	if v.Name != "" {
		return v.Name
	}
	return strconv.FormatFloat(v.Num, 'g', -1, 64)
}

// MarshalJSON writes a name as a JSON string and a number as a JSON number
// (encoding/json's form, the one a cell's canonical encoding uses).
func (v Value) MarshalJSON() ([]byte, error) {
	if v.Name != "" {
		return json.Marshal(v.Name)
	}
	return json.Marshal(v.Num)
}

// UnmarshalJSON reads a JSON string as a name and a JSON number as a
// number; anything else (an empty string, null, an object) is an error.
func (v *Value) UnmarshalJSON(b []byte) error {
	var name string
	if err := json.Unmarshal(b, &name); err == nil {
		if name == "" {
			return fmt.Errorf("an empty name")
		}
		*v = Value{Name: name}
		return nil
	}
	var x float64
	if err := json.Unmarshal(b, &x); err != nil || string(b) == "null" {
		return fmt.Errorf("%s is neither a number nor a name", b)
	}
	*v = Value{Num: x}
	return nil
}

// Values are a cell's or a run's values of settings, by name.
type Values map[string]Value

// Clone returns a copy of vs (nil for nil or empty).
func (vs Values) Clone() Values {
	if len(vs) == 0 {
		return nil
	}
	return maps.Clone(vs)
}

// FlagName is the setting's llpfc train flag, without the dashes before it.
func (s *Setting) FlagName() string { return strings.ReplaceAll(s.Name, "_", "-") }

// Want says in words what a valid value is: "a number ≥ 0", "a whole number
// in [1, 50]", "exact or fft".
func (s *Setting) Want() string {
	switch s.Kind {
	case KindChoice:
		if len(s.Choices) == 1 {
			return s.Choices[0]
		}
		return strings.Join(s.Choices[:len(s.Choices)-1], ", ") + " or " + s.Choices[len(s.Choices)-1]
	case KindInt:
		return "a whole number " + s.rangeText()
	}
	return "a number " + s.rangeText()
}

func (s *Setting) rangeText() string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	lo := "≥ "
	if s.MinExcluded {
		lo = "> "
	}
	if math.IsInf(s.Max, 1) {
		return lo + g(s.Min)
	}
	open := "["
	if s.MinExcluded {
		open = "("
	}
	return fmt.Sprintf("in %s%s, %s]", open, g(s.Min), g(s.Max))
}

// Parse reads text, as a flag or a spec spells the setting's value, and
// checks it (Check); the error says what was wanted.
func (s *Setting) Parse(text string) (Value, error) {
	if s.Kind == KindChoice {
		v := Value{Name: text}
		return v, s.Check(v)
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil {
		return Value{}, fmt.Errorf("is %q, want %s", text, s.Want())
	}
	v := Value{Num: x}
	return v, s.Check(v)
}

// Check reports whether v is a value of the setting: one of its choices, or
// a finite number (a whole one for KindInt) in its range.
func (s *Setting) Check(v Value) error {
	bad := func() error {
		shown := v.String()
		if v.Name != "" || (s.Kind == KindChoice && v.Num == 0) {
			shown = strconv.Quote(v.Name)
		}
		return fmt.Errorf("is %s, want %s", shown, s.Want())
	}
	if s.Kind == KindChoice {
		if v.Name == "" || !slices.Contains(s.Choices, v.Name) {
			return bad()
		}
		return nil
	}
	x := v.Num
	switch {
	case v.Name != "", math.IsNaN(x), math.IsInf(x, 0),
		s.Kind == KindInt && x != math.Trunc(x),
		x < s.Min, s.MinExcluded && x == s.Min, x > s.Max:
		return bad()
	}
	return nil
}

// DefaultValue is Default, parsed (Register checked it parses).
func (s *Setting) DefaultValue() Value {
	v, err := s.Parse(s.Default)
	if err != nil {
		panic(fmt.Sprintf("methods: setting %s: default %s", s.Name, err))
	}
	return v
}

// UnstatedValue is the value of a cell whose key leaves the setting out:
// Unstated, or Default.
func (s *Setting) UnstatedValue() Value {
	if s.Unstated == "" {
		return s.DefaultValue()
	}
	v, err := s.Parse(s.Unstated)
	if err != nil {
		panic(fmt.Sprintf("methods: setting %s: unstated value %s", s.Name, err))
	}
	return v
}

var settingName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// check says what a declaration lacks.
func (s *Setting) check() error {
	switch {
	case !settingName.MatchString(s.Name):
		return fmt.Errorf("setting %q: a name of lower-case letters, digits and underscores is required", s.Name)
	case s.Help == "":
		return fmt.Errorf("setting %s: no help line", s.Name)
	case s.Kind == 0 || s.Kind > KindChoice:
		return fmt.Errorf("setting %s: no kind", s.Name)
	case s.Kind == KindChoice && len(s.Choices) < 2:
		return fmt.Errorf("setting %s: a choice of %d names, want at least 2", s.Name, len(s.Choices))
	case s.Kind != KindChoice && !(s.Min < s.Max):
		return fmt.Errorf("setting %s: the range [%v, %v] holds no number but its ends (set Max, math.Inf(1) for none)", s.Name, s.Min, s.Max)
	case s.Always && s.Unstated != "":
		return fmt.Errorf("setting %s: Always and Unstated: a setting always stated has no unstated value", s.Name)
	}
	if _, err := s.Parse(s.Default); err != nil {
		return fmt.Errorf("setting %s: default %w", s.Name, err)
	}
	if s.Unstated != "" {
		if _, err := s.Parse(s.Unstated); err != nil {
			return fmt.Errorf("setting %s: unstated value %w", s.Name, err)
		}
	}
	return nil
}

// Setting returns the method's declaration of the setting named name.
func (d *Descriptor) Setting(name string) (*Setting, bool) {
	for _, s := range d.Settings {
		if s.Name == name {
			return s, true
		}
	}
	return nil, false
}

// Reads reports whether the method reads the setting named name.
func (d *Descriptor) Reads(name string) bool {
	_, ok := d.Setting(name)
	return ok
}

// AllSettings returns every setting a registered method declares, once
// each (a setting several methods share is one declaration), in the order
// of the methods (report order) and of their declarations.
func AllSettings() []*Setting {
	var out []*Setting
	seen := map[string]bool{}
	for _, d := range All() {
		for _, s := range d.Settings {
			if !seen[s.Name] {
				seen[s.Name] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// LookupSetting returns the declaration of the setting named name (some
// registered method declares it).
func LookupSetting(name string) (*Setting, bool) {
	for _, s := range AllSettings() {
		if s.Name == name {
			return s, true
		}
	}
	return nil, false
}

// Readers returns the names of the methods that read the setting named
// name, in report order.
func Readers(name string) []string { return Select(func(d *Descriptor) bool { return d.Reads(name) }) }

// Setting returns the run's value of the setting named name, one its
// method declares without a field of its own in Config (every setting
// declared since settings were; the older ones — Config.Flood, KLScale, … —
// are read from their fields): the value Settings states, or the setting's
// Default. A method reads its own settings through it; a name its method
// does not declare is a bug in the method, and panics.
func (c *Config) Setting(name string) Value {
	d, ok := Lookup(c.Method)
	if !ok {
		panic(fmt.Sprintf("methods: Config.Setting(%q) of unknown method %q", name, c.Method))
	}
	s, ok := d.Setting(name)
	if !ok || fielded[name] {
		panic(fmt.Sprintf("methods: method %s reads setting %q, which it does not declare or which has a field of Config", c.Method, name))
	}
	if v, ok := c.Settings[name]; ok {
		return v
	}
	return s.DefaultValue()
}

// fielded are the settings declared with a field of their own in Config
// and in a cell's hyper (experiments.Hyper), their keys those of the cells
// stored before settings were declared; every other setting is a value of
// Config.Settings and of the cell's hyper.settings.
var fielded = map[string]bool{}

func init() {
	for _, n := range []string{SettingRegroupEvery, SettingWeights, SettingCompat, SettingKLScale, SettingBNStats,
		SettingChunkSize, SettingVATEps, SettingVATXi, SettingVATPowerIters, SettingVATRampup, SettingFlood, SettingPVCLikelihood} {
		fielded[n] = true
	}
}

// Fielded reports whether the setting named name has a field of its own in
// Config and in a cell's hyper (the settings of before declarations), rather
// than a value in their Settings.
func Fielded(name string) bool { return fielded[name] }

// checkSettings checks a run's Settings against its method's declarations:
// each one declared by the method, without a field of its own, and a value
// of it.
func checkSettings(d *Descriptor, vs Values) error {
	for _, name := range slices.Sorted(maps.Keys(vs)) {
		s, ok := d.Setting(name)
		switch {
		case !ok:
			return fmt.Errorf("setting %s: method %s does not declare it", name, d.Name)
		case fielded[name]:
			return fmt.Errorf("setting %s: it has a field of its own", name)
		}
		if err := s.Check(vs[name]); err != nil {
			return fmt.Errorf("setting %s: %w", name, err)
		}
	}
	return nil
}

// CheckSettings is checkSettings for the method named method.
func CheckSettings(method string, vs Values) error {
	d, ok := Lookup(method)
	if !ok {
		return UnknownError(method)
	}
	return checkSettings(d, vs)
}
