package bagproto

import "testing"

// BenchmarkMakePaperFixture measures the main job's bag draw: 20 bags of
// 2,048 from 60,000 labels of 10 classes by the paper's protocol.
func BenchmarkMakePaperFixture(b *testing.B) {
	per := make([]int, 10)
	for c := range per {
		per[c] = 6000
	}
	y := labels(per...)
	b.ReportAllocs()
	seed := int64(0)
	for b.Loop() {
		seed++
		if _, err := Make(y, 10, Config{Protocol: Protocol{Kind: Paper, Alpha: 1}, BagSize: 2048, NumBags: 20, Seed: seed}); err != nil {
			b.Fatal(err)
		}
	}
}
