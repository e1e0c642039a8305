package device

import (
	"fmt"
	"reflect"
	"unsafe"

	"gorgonia.org/gorgonia"
)

// Children returns n's inputs in order (gorgonia's graph lists a node's
// children as its edges, in order, repeats included): what a back end's
// own executor reads for the node's operation.
func Children(n *gorgonia.Node) []*gorgonia.Node {
	var out []*gorgonia.Node
	it := n.Graph().From(n.ID())
	for it.Next() {
		out = append(out, it.Node().(*gorgonia.Node))
	}
	return out
}

// ReadInto returns the *gorgonia.Value a readOp (gorgonia.Read) fills: the
// op's unexported field into, read by reflection (gorgonia v0.9.18, the
// version go.mod pins); a field that is not there is an error naming it.
func ReadInto(op gorgonia.Op) (*gorgonia.Value, error) {
	v := reflect.ValueOf(op)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil, fmt.Errorf("nil %T", op)
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return nil, fmt.Errorf("%T is not a struct", op)
	}
	f := v.FieldByName("into")
	if !f.IsValid() {
		return nil, fmt.Errorf("gorgonia's %T has no field \"into\" (the back ends read gorgonia v0.9.18's op fields; go.mod pins that version)", op)
	}
	if f.Type() != reflect.TypeOf((*gorgonia.Value)(nil)) {
		return nil, fmt.Errorf("gorgonia's %T field \"into\" is a %v, want *gorgonia.Value", op, f.Type())
	}
	p := (*gorgonia.Value)(unsafe.Pointer(f.Pointer()))
	if p == nil {
		return nil, fmt.Errorf("gorgonia.Read without a destination")
	}
	return p, nil
}

// IsReadOp reports whether op is gorgonia.Read's statement.
func IsReadOp(op gorgonia.Op) bool { return OpKind(op) == "gorgonia.readOp(print)" }
