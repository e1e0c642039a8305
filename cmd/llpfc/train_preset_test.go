package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/training"
)

// withDefaults spells out the zero values that mean a default (the paper's
// algorithms, uniform group weights, the authors' KL scale and VAT schedule),
// so two configurations that train alike compare equal.
func withDefaults(c training.Config) training.Config {
	if c.GroupWeights == "" {
		c.GroupWeights = estimators.WeightsUniform
	}
	if c.Compat == "" {
		c.Compat = estimators.CompatPaper
	}
	if c.KLScale == "" {
		c.KLScale = training.KLScaleAuthors
	}
	if c.VATRampup == "" {
		c.VATRampup = training.VATRampupAuthors
	}
	return c
}

// TestTrainPresetIsTheTableCell (issue 20, "one definition per table
// cell"): for every cell of every paper table, at one bag size,
// `llpfc train --preset T --data D --method M --bag-size B --seed S` builds
// exactly the training configuration the grid runs for that cell
// (experiments.TrainingConfig), and the same data settings: points,
// protocol, normalization, augmentation and LLP-VAT's constants.
func TestTrainPresetIsTheTableCell(t *testing.T) {
	for _, table := range []string{"wrn16-4", "resnet18", "vgg16", "llpgan", "fashion-mnist"} {
		spec, ok := experiments.BuiltinSpec(table)
		require.True(t, ok, table)
		for _, ds := range spec.Datasets {
			for _, m := range spec.Methods {
				bag := spec.BagSizes[len(spec.BagSizes)/2]
				name := fmt.Sprintf("%s/%s/%s", table, ds, m)
				cell, err := experiments.PresetCell(table, ds, m, bag, 3)
				require.NoError(t, err, name)
				want, err := experiments.TrainingConfig(cell)
				require.NoError(t, err, name)
				r, status := parseTrain([]string{"--preset", table, "--data", ds, "--method", m,
					"--bag-size", fmt.Sprint(bag), "--seed", "3"}, io.Discard)
				require.NotNil(t, r, "%s: status %d", name, status)
				got := r.cfg
				got.ChunkSize, got.EvalEvery = 0, 0
				assert.Equal(t, withDefaults(want), withDefaults(got), name)
				assert.Equal(t, cell.NumPoints, r.numPoints, name)
				assert.Equal(t, cell.Protocol, r.protocolName, name)
				assert.Equal(t, cell.Normalize, r.normalize, name)
				assert.Equal(t, cell.Hyper.Augment, r.augment == "crop-flip", name)
				if m == training.MethodLLPVAT {
					vc := training.PaperVATConfig(ds)
					if cell.Hyper.VATEps > 0 {
						vc.Eps = cell.Hyper.VATEps
					}
					assert.Equal(t, vc, r.vat, name)
				}
			}
		}
	}
	// A flag given explicitly wins over the cell.
	r, _ := parseTrain([]string{"--preset", "wrn16-4-cifar", "--data", "cifar10", "--method", "kl", "--bag-size", "32", "--lr", "0.1", "--epochs", "3"}, io.Discard)
	require.NotNil(t, r)
	assert.Equal(t, 0.1, r.cfg.Optimizer.LR)
	assert.Equal(t, 3, r.cfg.Epochs)
	assert.Equal(t, "nesterov", r.cfg.Optimizer.Name, "the rest is the cell's")
	var stderr strings.Builder
	r, status := parseTrain([]string{"--preset", "wrn16-4", "--data", "mnist", "--method", "kl"}, &stderr)
	assert.Nil(t, r)
	assert.Equal(t, exitBadUsage, status)
	assert.Contains(t, stderr.String(), "--preset: preset wrn16-4 has no data set mnist")
}

// TestTrainEqualsGridCell (issue 19): `llpfc train` and the grid's learner
// give the same result for the same settings — the same bags, groups,
// initialization, minibatches and so the same test accuracy and final loss,
// bit for bit — here for the quick table's LLPFC-uniform and KL cells cut
// to 640 points and one epoch.
func TestTrainEqualsGridCell(t *testing.T) {
	for _, method := range []string{"llpfc-uniform", "kl"} {
		cell, err := experiments.PresetCell("quick", "", method, 64, 0)
		require.NoError(t, err)
		cell.NumPoints, cell.Hyper.Epochs = 640, 1
		m, err := experiments.Gorgonia{}.Train(context.Background(), experiments.Cell{Config: cell}, nil)
		require.NoError(t, err, method)
		code, out, errOut := runTrainCmd("--data", "fixture", "--preset", "quick", "--method", method, "--bag-size", "64",
			"--num-points", "640", "--epochs", "1", "--seed", "0", "--json", "--quiet")
		require.Equal(t, exitOK, code, errOut)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var got struct {
			TestAccuracy float64 `json:"test_accuracy"`
			FinalLoss    float64 `json:"final_loss"`
		}
		require.NoError(t, json.Unmarshal([]byte(lines[len(lines)-1]), &got))
		assert.Equal(t, m.TestAccuracy, got.TestAccuracy, "%s: test accuracy, grid cell vs train", method)
		assert.Equal(t, m.FinalLoss, got.FinalLoss, "%s: final loss, grid cell vs train", method)
	}
}
