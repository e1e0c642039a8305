package cpu

import (
	"reflect"
	"unsafe"

	"gorgonia.org/gorgonia"
)

// tape wraps a gorgonia tape machine so that it can run its program again
// while keeping its register values: a step then reuses the previous step's
// buffers instead of allocating every intermediate tensor afresh
// (tapeMachine.Reset drops all registers, which costs megabytes of garbage
// per step). Ops that support UsePreallocDo write into the kept buffers;
// the others allocate as before.
//
// Registers that hold the value of an input node (a parameter or a bound
// input tensor) are cleared before the next run, so that no op can ever
// write into a parameter through a kept register. Rewinding sets the
// program counter through reflection on gorgonia v0.9.18's unexported
// tapeMachine fields pc and cpumem (the version is pinned in go.mod); if they
// are not found, Rewind falls back to Reset. TestTapeRewindMatchesReset
// checks that rewound runs give the values of reset runs and leave the
// parameters untouched.
type tape struct {
	gorgonia.VM
	pc     *int
	mem    *[]gorgonia.Value
	inputs map[gorgonia.Value]bool
	// shared lists the CPU registers written by more than one node (the
	// compiler reuses registers of dead values); they are cleared before
	// each run, since their last value may have another node's shape.
	shared []int
	// computed are the program's nodes that are neither inputs nor
	// constants: after a run gorgonia binds each to its value (Release
	// drops those bindings).
	computed gorgonia.Nodes
}

func newTape(g *gorgonia.ExprGraph) *tape {
	t := &tape{VM: gorgonia.NewTapeMachine(g), inputs: map[gorgonia.Value]bool{}}
	v := reflect.ValueOf(t.VM)
	if v.Kind() == reflect.Pointer && !v.IsNil() {
		pc, mem := v.Elem().FieldByName("pc"), v.Elem().FieldByName("cpumem")
		if pc.IsValid() && pc.Kind() == reflect.Int && mem.IsValid() && mem.Type() == reflect.TypeOf([]gorgonia.Value(nil)) {
			t.pc = (*int)(unsafe.Pointer(pc.UnsafeAddr()))
			t.mem = (*[]gorgonia.Value)(unsafe.Pointer(mem.UnsafeAddr()))
		}
	}
	for _, n := range g.AllNodes() {
		if !isInputOrConstant(n) {
			t.computed = append(t.computed, n)
		}
		if isInputOrConstant(n) && n.Value() != nil {
			t.inputs[n.Value()] = true
		}
	}
	if t.pc != nil {
		lm := v.MethodByName("LocMap")
		if !lm.IsValid() || lm.Type().NumIn() != 0 || lm.Type().NumOut() != 1 || lm.Type().Out(0).Kind() != reflect.Map {
			t.pc, t.mem = nil, nil // unknown machine: always Reset
			return t
		}
		uses := map[int]int{}
		it := lm.Call(nil)[0].MapRange()
		for it.Next() {
			f := it.Value()
			id, dev := f.FieldByName("id"), f.FieldByName("device")
			if !id.IsValid() || !dev.IsValid() {
				t.pc, t.mem = nil, nil
				return t
			}
			if dev.Int() == int64(gorgonia.CPU) {
				uses[int(id.Int())]++
			}
		}
		for id, k := range uses {
			if k > 1 {
				t.shared = append(t.shared, id)
			}
		}
	}
	return t
}

// Rewind prepares the next run (instead of Reset).
func (t *tape) Rewind() {
	if t.pc == nil {
		t.VM.Reset()
		return
	}
	mem := *t.mem
	for i, v := range mem {
		if v != nil && t.inputs[v] {
			mem[i] = nil
		}
	}
	for _, id := range t.shared {
		if id >= 0 && id < len(mem) {
			mem[id] = nil
		}
	}
	*t.pc = 0
}

// Release drops every value the machine holds — its registers and the
// bindings of its computed nodes to their last values — so that the garbage
// collector can reclaim a phase's activations and gradients when the phase
// ends (the training step's and the evaluator's machines were once
// both resident during an evaluation). The next run allocates afresh; the
// nodes' values are unavailable until then. Node bindings are cleared
// through reflection on gorgonia v0.9.18's unexported Node.boundTo; if the
// field is not found only the registers are dropped
// (TestTapeReleaseFreesValues).
func (t *tape) Release() {
	t.VM.Reset() // drops the registers
	for _, n := range t.computed {
		if !unbind(n) {
			return
		}
	}
}

// unbind drops n's binding to its value (gorgonia v0.9.18's unexported
// Node.boundTo, reached by reflection); false if the field is not found.
func unbind(n *gorgonia.Node) bool {
	f := reflect.ValueOf(n).Elem().FieldByName("boundTo")
	if !f.IsValid() || f.Kind() != reflect.Interface {
		return false
	}
	reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem().Set(reflect.Zero(f.Type()))
	return true
}

// isInputOrConstant reports whether n has no op (parameters, bound inputs)
// or a constant op: nodes whose values the machine only loads.
func isInputOrConstant(n *gorgonia.Node) bool {
	if n.Op() == nil {
		return true
	}
	_, isConst := n.Op().(interface{ Value() gorgonia.Value }) // gorgonia's constant ops
	return isConst
}
