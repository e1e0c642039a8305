package learn

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The fixture's shape, which ShapeOf states without reading the fixture, is
// the fixture's.
func TestFixtureShape(t *testing.T) {
	train, test, err := loadNamed("fixture", "")
	require.NoError(t, err)
	assert.Equal(t, DataShape{Train: train.N, Test: test.N, Classes: train.NumClasses, Channels: train.Channels,
		Height: train.Height, Width: train.Width}, fixtureShape)
}
