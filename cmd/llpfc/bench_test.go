package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/internal/opencl/ocltest"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBenchJSON runs `llpfc bench` briefly for each model `make bench` compares and
// checks the JSON contract: positive images per second consistent with the
// steps, batch and seconds reported, and a finite loss.
func TestBenchJSON(t *testing.T) {
	for _, model := range []string{"mlp", "cnn"} {
		var o, e bytes.Buffer
		args := []string{"bench", "--model", model, "--batch-size", "16", "--steps", "2", "--warmup", "1", "--height", "8", "--width", "8", "--json"}
		require.Equal(t, exitOK, dispatch(args, &o, &e), "%s: %s", model, e.String())
		lines := strings.Split(strings.TrimSpace(o.String()), "\n")
		var got struct {
			ImagesPerSecond float64 `json:"images_per_second"`
			Model           string  `json:"model"`
			BatchSize       int     `json:"batch_size"`
			Steps           int     `json:"steps"`
			Seconds         float64 `json:"seconds"`
			FinalLoss       float64 `json:"final_loss"`
			ParamCount      int     `json:"param_count"`
			GEMM            string  `json:"gemm"`
		}
		require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &got), "%s: last line %q", model, lines[len(lines)-1])
		assert.True(t, got.Model == model && got.BatchSize == 16 && got.Steps == 2 && got.ParamCount > 0,
			"%s: got %+v, want model %s, batch 16, 2 steps, parameters > 0", model, got, model)
		want := 32 / got.Seconds
		assert.True(t, got.ImagesPerSecond > 0 && got.ImagesPerSecond >= want*0.999 && got.ImagesPerSecond <= want*1.001,
			"%s: images_per_second %v, want 2·16/seconds = %v", model, got.ImagesPerSecond, want)
		assert.True(t, got.FinalLoss > 0 && got.FinalLoss <= 100, "%s: final loss %v, want a positive finite FC loss", model, got.FinalLoss)
		assert.Equal(t, nn.GEMMKernels(), got.GEMM, "%s: gemm names the product's kernel and panels, so that a measurement says which ran", model)
	}
}

// TestBenchBadFlags checks that bad flags give exit status 2 and a message
// naming the flag.
func TestBenchBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "nope"}, "--model"},
		{[]string{"--steps", "0"}, "--steps"},
		{[]string{"--batch-size", "-1"}, "--batch-size"},
		{[]string{"--classes", "1"}, "--classes"},
		{[]string{"--method", "nope"}, "--method"},
	} {
		var o, e bytes.Buffer
		assert.Equal(t, exitBadUsage, dispatch(append([]string{"bench"}, c.args...), &o, &e), "%v", c.args)
		assert.Contains(t, e.String(), c.want, "%v: stderr does not name %s", c.args, c.want)
	}
}

// TestBenchRefusesAModelLargerThanTheDevice: a real case, without a lowered
// limit — VGG16 at a batch whose activations alone exceed the test
// device's global memory is refused before the first step with exit status
// 2 and a message naming the device, the sizes and the remedy.
func TestBenchRefusesAModelLargerThanTheDevice(t *testing.T) {
	ocltest.Require(t)
	ps, err := opencl.Platforms()
	require.NoError(t, err)
	sel, err := opencl.ParseDevice(ocltest.Device())
	require.NoError(t, err)
	dev, err := sel.Resolve(ps)
	require.NoError(t, err)
	// about 5 MB of activations per 3×32×32 image (40.4 GiB at batch 8000, measured)
	batch := max(8000, int(2*dev.GlobalMemBytes/5e6))
	var out, errb bytes.Buffer
	code := dispatch([]string{"bench", "--model", "vgg16", "--device", ocltest.Device(), "--batch-size", fmt.Sprint(batch),
		"--channels", "3", "--height", "32", "--width", "32", "--steps", "1", "--warmup", "0"}, &out, &errb)
	assert.Equal(t, exitBadUsage, code, errb.String())
	for _, s := range []string{"needs at least", "activations of the largest program", "parameters", "CL_DEVICE_GLOBAL_MEM_SIZE", "--batch-size"} {
		assert.Contains(t, errb.String(), s)
	}
}

// TestBenchJSONStepCosts: `bench --json` reports step_costs on every back
// end — zeros with a note saying why on the CPU; on the OpenCL device the
// step's launches, no device allocation after the warm-up, no parameter or
// gradient transfer, and one blocking wait over the timed steps (the last
// loss).
func TestBenchJSONStepCosts(t *testing.T) {
	type costs struct {
		Launches  float64                                 `json:"launches"`
		Waits     float64                                 `json:"blocking_waits"`
		Allocated float64                                 `json:"device_bytes_allocated"`
		Transfers map[string]struct{ HtoD, DtoH float64 } `json:"transfers"`
		Note      string                                  `json:"note"`
	}
	run := func(device string) costs {
		var o, e bytes.Buffer
		args := []string{"bench", "--model", "mlp", "--batch-size", "16", "--steps", "4", "--warmup", "1", "--height", "8", "--width", "8", "--json", "--device", device}
		require.Equal(t, exitOK, dispatch(args, &o, &e), e.String())
		var res struct {
			StepCosts *costs `json:"step_costs"`
		}
		require.NoError(t, json.Unmarshal(o.Bytes(), &res))
		require.NotNil(t, res.StepCosts, o.String())
		return *res.StepCosts
	}
	c := run("cpu")
	assert.Zero(t, c.Launches)
	assert.Zero(t, c.Waits)
	assert.Contains(t, c.Note, "no device")
	ocltest.Require(t)
	c = run(ocltest.Device())
	assert.Positive(t, c.Launches)
	assert.Equal(t, 0.25, c.Waits, "one wait in 4 timed steps")
	assert.Zero(t, c.Allocated)
	for _, role := range []string{"parameter", "gradient", "optimizer state"} {
		assert.NotContains(t, c.Transfers, role)
	}
	assert.Contains(t, c.Transfers, "input")
}

// TestBenchScaling: `bench --scaling` profiles the CPU step at each thread
// count and prints the report as JSON with its Markdown; its flags are
// checked with the rest, each error naming its flag.
func TestBenchScaling(t *testing.T) {
	var o, e bytes.Buffer
	args := []string{"bench", "--model", "cnn", "--batch-size", "4", "--steps", "1", "--warmup", "1", "--height", "8", "--width", "8",
		"--scaling", "1,2", "--stream-mib", "1", "--json"}
	require.Equal(t, exitOK, dispatch(args, &o, &e), e.String())
	var got struct {
		Model    string `json:"model"`
		Markdown string `json:"markdown"`
		Rows     []struct {
			Threads    int     `json:"threads"`
			Structural float64 `json:"structural_s"`
		} `json:"rows"`
		Runs []struct {
			Ops []struct {
				Name string `json:"name"`
			} `json:"ops"`
		} `json:"runs"`
	}
	require.NoError(t, json.Unmarshal(o.Bytes(), &got), o.String())
	assert.Equal(t, "cnn", got.Model)
	require.Len(t, got.Rows, 2)
	assert.Equal(t, 2, got.Rows[1].Threads)
	assert.Greater(t, got.Rows[1].Structural, 0.0)
	require.Len(t, got.Runs, 2)
	assert.NotEmpty(t, got.Runs[0].Ops)
	assert.Contains(t, got.Markdown, "### cnn, batch 4, 1×8×8")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--scaling", "2,1"}, "--scaling"},
		{[]string{"--scaling", "1,x"}, "--scaling"},
		{[]string{"--scaling", "1,2", "--threads", "2"}, "--threads"},
		{[]string{"--scaling", "1,2", "--device", "opencl"}, "--device"},
		{[]string{"--scaling", "1", "--stream-mib", "-1"}, "--stream-mib"},
	} {
		var o, e bytes.Buffer
		assert.Equal(t, exitBadUsage, dispatch(append([]string{"bench"}, c.args...), &o, &e), "%v", c.args)
		assert.Contains(t, e.String(), c.want, "%v: stderr does not name %s", c.args, c.want)
	}
}
