package wino

//go:generate python3 gen_asm43.py

// The F(4×4, 3×3) kernels (f43.go's Go twins, eight tiles a YMM lane set;
// the four-tile ones one XMM lane a tile). f4input8 is f4inputTile for the
// eight tiles whose patches start at d, 4 values apart; f4outGrad8 is
// f4outGradTile for the eight tiles whose ∂Y rows are at dy (w apart);
// f4output8 is f4outputTile for eight tiles, writing four rows of 32 values
// at y (w apart); f4inputGradRow8 is f4inputGradCol for the tile columns
// x … x+7 (s at S_0(x)), writing 32 values; f4gradS{α}x8 is f4gradS for
// α and eight tiles.

//go:noescape
func f4input8(d *float32, pw int, v *float32, stride int)

//go:noescape
func f4outGrad8(dy *float32, w int, dh *float32, stride int)

//go:noescape
func f4output8(m *float32, stride int, bias float32, y *float32, w int)

//go:noescape
func f4inputGradRow8(s *float32, sw int, row *float32)

//go:noescape
func f4gradS0x8(zc, zp *float32, stride int, dst *float32, sw int)

//go:noescape
func f4gradS1x8(zc, zp *float32, stride int, dst *float32, sw int)

//go:noescape
func f4gradS2x8(zc, zp *float32, stride int, dst *float32, sw int)

//go:noescape
func f4gradS3x8(zc, zp *float32, stride int, dst *float32, sw int)

//go:noescape
func f4input4(d *float32, pw int, v *float32, stride int)

//go:noescape
func f4outGrad4(dy *float32, w int, dh *float32, stride int)

//go:noescape
func f4output4(m *float32, stride int, bias float32, y *float32, w int)

//go:noescape
func f4inputGradRow4(s *float32, sw int, row *float32)

//go:noescape
func f4gradS0x4(zc, zp *float32, stride int, dst *float32, sw int)

//go:noescape
func f4gradS1x4(zc, zp *float32, stride int, dst *float32, sw int)

//go:noescape
func f4gradS2x4(zc, zp *float32, stride int, dst *float32, sw int)

//go:noescape
func f4gradS3x4(zc, zp *float32, stride int, dst *float32, sw int)

var (
	f4gradS8 = [4]func(zc, zp *float32, stride int, dst *float32, sw int){f4gradS0x8, f4gradS1x8, f4gradS2x8, f4gradS3x8}
	f4gradS4 = [4]func(zc, zp *float32, stride int, dst *float32, sw int){f4gradS0x4, f4gradS1x4, f4gradS2x4, f4gradS3x4}
)
