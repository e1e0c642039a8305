"""Writes the SVHN-layout MAT-files used by TestReadSVHNScipyFiles, with
SciPy's independent MAT-file writer (scipy.io.savemat, level 5), so that the
Go reader is checked against files it did not write itself.

    python3 gen_svhn_mat.py   # needs python3-scipy; run in this directory

X is uint8 of shape 32x32x3x3 with X[h, w, c, i] = (h + 3w + 50c + 17i) mod 256
(0-based), the svhnPixel formula of the Go tests; y holds the labels 10, 1, 7
(10 means digit 0) as a 3x1 array.
"""
import numpy as np
import scipy.io

h, w, c, i = np.meshgrid(np.arange(32), np.arange(32), np.arange(3), np.arange(3), indexing="ij")
X = ((h + 3 * w + 50 * c + 17 * i) % 256).astype(np.uint8)
y = np.array([[10.0], [1.0], [7.0]])
scipy.io.savemat("svhn_scipy_compressed.mat", {"X": X, "y": y}, do_compression=True)
scipy.io.savemat("svhn_scipy_plain.mat", {"X": X, "y": y.astype(np.uint8)}, do_compression=False)
