package experiments

import (
	"encoding"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/llpfc/llpfc/training/methods"
)

// A method's own settings in a cell (methods.Setting, declared once in the
// method's descriptor): the settings declared before declarations existed
// (methods.Fielded: the KL scale, flooding, LLP-VAT's constants, …) are
// fields of Hyper, found here by their JSON names, their keys the cells'
// of before; every other is a value of Hyper.Settings. The helpers below
// read and write both alike, so that a spec, a flag, a cell's key, its
// validation and its training see one setting whatever its storage.

// hyperFields maps a fielded setting's name to its Hyper field's index.
var hyperFields = func() map[string]int {
	out := map[string]int{}
	t := reflect.TypeFor[Hyper]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if methods.Fielded(name) {
			out[name] = i
		}
	}
	return out
}()

// SettingPath is where a cell's hyper holds setting s: "hyper.NAME" for a
// fielded setting, "hyper.settings.NAME" for the others (as errors and
// Config.Flat name them).
func SettingPath(s *methods.Setting) string {
	if methods.Fielded(s.Name) {
		return "hyper." + s.Name
	}
	return "hyper.settings." + s.Name
}

// StatedSetting returns the value h states for setting s, and whether it
// states one (a fielded setting at its field's zero value states none).
func (h Hyper) StatedSetting(s *methods.Setting) (methods.Value, bool) {
	i, ok := hyperFields[s.Name]
	if !ok {
		v, ok := h.Settings[s.Name]
		return v, ok
	}
	f := reflect.ValueOf(h).Field(i)
	if f.IsZero() {
		return methods.Value{}, false
	}
	if m, ok := f.Interface().(encoding.TextMarshaler); ok {
		b, err := m.MarshalText()
		if err != nil {
			return methods.NameValue(fmt.Sprint(f.Interface())), true // an out-of-range value: Check refuses it
		}
		return methods.NameValue(string(b)), true
	}
	switch f.Kind() {
	case reflect.Float64:
		return methods.NumValue(f.Float()), true
	case reflect.Int:
		return methods.NumValue(float64(f.Int())), true
	}
	panic(fmt.Sprintf("experiments: setting %s: Hyper field of type %s", s.Name, f.Type()))
}

// SetSetting states v for setting s in h; a fielded number 0 states none
// (its field's zero). v is a value of s (s.Check) or an error names it.
func (h *Hyper) SetSetting(s *methods.Setting, v methods.Value) error {
	if err := s.Check(v); err != nil {
		return fmt.Errorf("%s: %w", SettingPath(s), err)
	}
	i, ok := hyperFields[s.Name]
	if !ok {
		if h.Settings == nil {
			h.Settings = methods.Values{}
		}
		h.Settings[s.Name] = v
		return nil
	}
	f := reflect.ValueOf(h).Elem().Field(i)
	if u, ok := f.Addr().Interface().(encoding.TextUnmarshaler); ok {
		if err := u.UnmarshalText([]byte(v.Name)); err != nil {
			return fmt.Errorf("%s: %w", SettingPath(s), err)
		}
		return nil
	}
	switch f.Kind() {
	case reflect.Float64:
		f.SetFloat(v.Num)
	case reflect.Int:
		f.SetInt(int64(v.Num))
	default:
		panic(fmt.Sprintf("experiments: setting %s: Hyper field of type %s", s.Name, f.Type()))
	}
	return nil
}

// ClearSetting leaves setting s out of h.
func (h *Hyper) ClearSetting(s *methods.Setting) {
	i, ok := hyperFields[s.Name]
	if !ok {
		delete(h.Settings, s.Name)
		if len(h.Settings) == 0 {
			h.Settings = nil
		}
		return
	}
	f := reflect.ValueOf(h).Elem().Field(i)
	f.Set(reflect.Zero(f.Type()))
}

// SettingValue is the value of setting s a cell of hyper h trains with:
// the one it states, or the setting's value when unstated
// (methods.Setting.UnstatedValue).
func (h Hyper) SettingValue(s *methods.Setting) methods.Value {
	if v, ok := h.StatedSetting(s); ok {
		return v
	}
	return s.UnstatedValue()
}

// StateSettings writes c's settings of its method's own (those not Shared)
// as the cell's key states them, whatever spelled them (a spec, an
// override, a flag): a value at the default is left out (so that declaring
// a setting keeps every key), the default stated where the setting says so
// (Always: the KL scale, the VAT schedule), and a setting whose unstated
// value is not its default (LLP-PVC's FFT) left out at that value and
// stated at the default. The grid's expansion and llpfc train call it, so
// that one run has one key.
func (c *Config) StateSettings() {
	d, ok := Method(c.Method)
	if !ok {
		return // Validate names the method
	}
	for _, s := range d.Settings {
		if s.Shared {
			continue
		}
		v, set := c.Hyper.StatedSetting(s)
		switch {
		case !set && (s.Always || s.UnstatedValue() != s.DefaultValue()):
			_ = c.Hyper.SetSetting(s, s.DefaultValue()) // the default is a value of s (Register checked it)
		case set && !s.Always && v == s.UnstatedValue():
			c.Hyper.ClearSetting(s)
		}
	}
}

// checkMethodSettings checks a cell's settings of the methods against their
// declarations (methods.Setting; the values of the typed ones were parsed
// where they entered, their UnmarshalText): every value one of its
// setting's (choice, range), a setting that is not Shared only for a
// method that reads it, an Always setting stated for every method that
// reads it, and every name under hyper.settings one some method declares
// without a field of its own.
func checkMethodSettings(method string, h Hyper) error {
	d, _ := Method(method) // Validate checked the name
	for _, name := range slices.Sorted(maps.Keys(h.Settings)) {
		s, ok := methods.LookupSetting(name)
		switch {
		case !ok:
			return fmt.Errorf("hyper.settings.%s: no method declares it (llpfc methods lists each method's settings)", name)
		case methods.Fielded(name):
			return fmt.Errorf("hyper.settings.%s: write it hyper.%s", name, name)
		}
		if err := s.Check(h.Settings[name]); err != nil {
			return fmt.Errorf("hyper.settings.%s: %w", name, err)
		}
	}
	for _, s := range methods.AllSettings() {
		v, set := h.StatedSetting(s)
		switch {
		case !set && s.Always && d.Reads(s.Name):
			return fmt.Errorf("%s: is empty, want %s for method %s", SettingPath(s), s.Want(), method)
		case !set:
			continue
		}
		if err := s.Check(v); err != nil {
			return fmt.Errorf("%s: %w", SettingPath(s), err)
		}
		if !s.Shared && !d.Reads(s.Name) {
			return fmt.Errorf("%s: is %s, but method %s does not read it (%s do)", SettingPath(s), v, method, strings.Join(methods.Readers(s.Name), ", "))
		}
	}
	return nil
}
