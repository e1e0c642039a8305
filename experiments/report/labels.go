package report

import (
	"fmt"

	"github.com/llpfc/llpfc/experiments"
)

// bagSizeText is a report's name of a bag size: the number, or "varying"
// for the cells of given bags and of the feature and kmeans protocols.
func bagSizeText(b int) string {
	if b == 0 {
		return "varying"
	}
	return fmt.Sprint(b)
}

// bagSizeX is where a bag size sits on a plot's logarithmic axis: 1 for
// "varying".
func bagSizeX(b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(b)
}

// pointsText describes a cell's training points for a report: the number,
// or for bags of varying sizes over the whole split what they are.
func pointsText(c experiments.Config) string {
	switch {
	case c.NumPoints > 0:
		return fmt.Sprintf("%d training points", c.NumPoints)
	case c.Protocol == experiments.GivenProtocol:
		return "the data set's own bags"
	case experiments.VariableBags(c.Protocol):
		return "the whole training split in " + c.Protocol + " bags"
	}
	return "0 training points"
}
