package models

import (
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

// TestVGG16ShapesAndParams. Parameter count of torchvision's vgg16_bn as
// the authors' models/vgg.py builds it (conv 3×3 with bias, BN with γ, β),
// layer by layer for c input channels and C classes:
//
//	c→64: 576c + 64, bn 128        64→64: 36928, bn 128
//	64→128: 73856, bn 256          128→128: 147584, bn 256
//	128→256: 295168, bn 512        256→256: 590080 (×2), bn 512 (×2)
//	256→512: 1180160, bn 1024      512→512: 2359808 (×5), bn 1024 (×5)
//	convolutions and BN without the first conv's weights: 14723136 − 1728
//	classifier: 25088·4096 + 4096 = 102764544; 4096·4096 + 4096 = 16781312;
//	            4096·C + C
//
// Total for c=3, C=10: 14723136 + 102764544 + 16781312 + 40970 = 134309962;
// with C = 1000 this is 138365992, the count PyTorch reports for
// torchvision.models.vgg16_bn().
func TestVGG16ShapesAndParams(t *testing.T) {
	checkModelShapes(t, modelShapeCase{name: "vgg16", c: 3, h: 32, w: 32, classes: 10, wantParams: 134309962})
}

// TestVGG16RejectsSmallImages: 28×28 inputs cannot pass five 2×2 pools.
func TestVGG16RejectsSmallImages(t *testing.T) {
	_, err := NewModel(gorgonia.NewGraph(), nn.ModelSpec{Name: "vgg16", Channels: 1, Height: 28, Width: 28, NumClasses: 26}, rng.New(1, "init"))
	if err == nil || !strings.Contains(err.Error(), "32×32") {
		t.Fatalf("28×28 input: error %v, want one asking for 32×32", err)
	}
}
