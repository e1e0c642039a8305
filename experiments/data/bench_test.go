package data

import "testing"

// BenchmarkLoadFixtureTrain measures decoding the embedded 60,000-image
// training split (gunzip, IDX checks, scaling to float32).
func BenchmarkLoadFixtureTrain(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load("fixture", "", Train); err != nil {
			b.Fatal(err)
		}
	}
}
