package grid

import (
	"errors"
	"fmt"

	"github.com/llpfc/llpfc/experiments/learn"
)

// CheckData checks the spec's cells against their data sets, which
// Validate does not read: the number of points against the training split,
// enough bags for LLPFC's groups of C bags, a model that takes the data's
// inputs, and the sizes of the model and of the data against the memory
// (CheckSize). A data set that is not found is returned in missing (a
// *MissingDataError each), apart from err: a grid can be listed without its
// data but not run.
func (s *Spec) CheckData(dataDir string) (missing []error, err error) {
	cells, err := s.Cells()
	if err != nil {
		return nil, err
	}
	shapes := map[string]learn.DataShape{}
	bad := map[string]bool{}
	for _, c := range cells {
		cfg := c.Config
		if bad[cfg.Dataset] {
			continue
		}
		shape, ok := shapes[cfg.Dataset]
		if !ok {
			sh, err := learn.ShapeOf(cfg.Dataset, dataDir)
			var miss *learn.MissingDataError
			switch {
			case errors.As(err, &miss):
				missing = append(missing, err)
				bad[cfg.Dataset] = true
				continue
			case err != nil:
				return missing, fmt.Errorf("datasets: %s: %w", cfg.Dataset, err)
			}
			shape, shapes[cfg.Dataset] = sh, sh
		}
		if err := learn.CheckCellData(cfg, shape); err != nil {
			return missing, fmt.Errorf("cell (dataset %s, method %s, bag size %d, seed %d): %w",
				cfg.Dataset, cfg.Method, cfg.BagSize, cfg.Seed, err)
		}
	}
	return missing, nil
}
