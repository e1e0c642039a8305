package methods

import (
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/stretchr/testify/assert"
)

// complete is a descriptor Register takes.
func complete() Descriptor {
	return Descriptor{Name: "test-complete", Label: "Test", Order: 5, Family: FamilyBag, Batch: Bags, DefaultBatch: 2,
		Help: "a test", Search: DefaultSearch, New: func(*Env) (Method, error) { return nil, nil }}
}

// TestRegisterRefusesAnIncompleteDescriptor: a descriptor without
// its default minibatch (a method missing from a hand-kept table trained
// with 128 bags a step, and nothing noticed), its unit, its family, its
// search space, its factory, or an LLPFC mode that matches its family is
// refused when it registers, naming what it lacks; a name or label taken is
// refused too.
func TestRegisterRefusesAnIncompleteDescriptor(t *testing.T) {
	assert.NoError(t, func() *Descriptor { d := complete(); return &d }().check())
	for name, edit := range map[string]func(*Descriptor){
		"no default minibatch":  func(d *Descriptor) { d.DefaultBatch = 0 },
		"what its minibatch":    func(d *Descriptor) { d.Batch = 0 },
		"no family":             func(d *Descriptor) { d.Family = 0 },
		"an empty search space": func(d *Descriptor) { d.Search = Search{} },
		"no factory":            func(d *Descriptor) { d.New = nil },
		"a help line":           func(d *Descriptor) { d.Help = "" },
		"Order 0":               func(d *Descriptor) { d.Order = 0 },
		"and they alone":        func(d *Descriptor) { d.Mode = estimators.ModeUniform },
		"and they alone, llpfc": func(d *Descriptor) { d.Family = FamilyLLPFC },
	} {
		d := complete()
		edit(&d)
		err := d.check()
		if assert.Error(t, err, name) {
			want := name
			if name == "and they alone, llpfc" {
				want = "and they alone"
			}
			assert.Contains(t, err.Error(), want)
		}
	}
	taken := complete()
	taken.Name = KL
	assert.PanicsWithValue(t, `methods: kl registered twice (name "kl", label "KL")`, func() { Register(taken) })
	label := complete()
	label.Label = "KL"
	assert.Panics(t, func() { Register(label) }, "a label taken")
	_, registered := Lookup("test-complete")
	assert.False(t, registered, "nothing registered by the refused calls")
}
