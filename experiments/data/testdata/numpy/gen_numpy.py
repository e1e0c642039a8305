"""Writes the NumPy files used by TestReadNPYNumpyFiles and the bag-only
tests, with NumPy's own writer, so that the Go readers are checked against
files they did not write themselves.

    /usr/bin/python3 gen_numpy.py   # needs python3-numpy; run in this directory

The arrays: v (a 3x4 array with v[i, j] = 10 i + j + 0.5) stored in several
dtypes, byte orders, memory orders and format versions; some unsupported
dtypes; and a small bag-only set in .npz form (stored and compressed) and as
a directory of .npy files.
"""
import os
import numpy as np

v = np.add.outer(10 * np.arange(3), np.arange(4)) + 0.5
np.save("c_f4.npy", v.astype(np.float32))
np.save("f_f4.npy", np.asfortranarray(v.astype(np.float32)))
np.save("c_f8_be.npy", v.astype(">f8"))
np.save("f_i2_3d.npy", np.asfortranarray(np.arange(24, dtype=np.int16).reshape(2, 3, 4)))
np.save("c_u8_be.npy", np.arange(5, dtype=">u8"))
np.save("c_u1.npy", np.arange(6, dtype=np.uint8).reshape(2, 3))
with open("v2_i4.npy", "wb") as f:
    np.lib.format.write_array(f, np.arange(4, dtype=np.int32), version=(2, 0))
np.save("f2.npy", v.astype(np.float16))
np.save("bool.npy", v > 5)
np.save("str.npy", np.array(["a", "bc"]))
np.save("obj.npy", np.array([{"a": 1}, None], dtype=object), allow_pickle=True)
np.save("rec.npy", np.zeros(2, dtype=[("a", "<i4"), ("b", "<f8")]))
np.save("c16.npy", v.astype(np.complex128))

# A bag-only set: 6 instances of 2 features, bags 7 and 3 (not contiguous),
# counts per bag in the rows of proportions, ids in bag_ids.
X = np.arange(12, dtype=np.float64).reshape(6, 2) / 4
bag = np.array([7, 3, 7, 7, 3, 7])
proportions = np.array([[1, 1], [3, 1]])  # counts: bag 3 has 2 instances, bag 7 has 4
bag_ids = np.array([3, 7])
test_X = np.array([[0.5, 1.0], [2.0, 0.25]])
test_y = np.array([1, 0])
np.savez("bagonly.npz", X=X, bag=bag, proportions=proportions, bag_ids=bag_ids, test_X=test_X, test_y=test_y)
np.savez_compressed("bagonly_compressed.npz", X=X, bag=bag, proportions=proportions, bag_ids=bag_ids, test_X=test_X, test_y=test_y)
os.makedirs("bagonly_dir", exist_ok=True)
for k, a in dict(X=X, bag=bag, proportions=proportions / proportions.sum(1, keepdims=True), bag_ids=bag_ids).items():
    np.save(os.path.join("bagonly_dir", k + ".npy"), a)
