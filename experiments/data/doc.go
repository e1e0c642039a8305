// Package data reads the labelled data sets of the experiments (Appendix
// `suppsec: exp`, "Datasets": EMNIST letters, SVHN, CIFAR10; plus MNIST,
// Fashion-MNIST, CSV, Parquet and LIBSVM files) and bag-only LLP data sets
// (NumPy or tables: instances, bag ids, proportions; ReadBagOnly) into one
// in-memory form, Dataset.
//
// Every reader checks magic numbers, shapes and label ranges and fails with an
// error naming the file and the byte offset (binary formats) or line (text
// formats) where the input broke a rule; none of them panics on any input
// (each has a go test -fuzz target).
//
// # Layout
//
// Dataset.X is row-major N×D float32. For images, D = Channels·Height·Width
// and each row is one image in channel-major order (C×H×W: all of channel 0
// row by row, then channel 1, …), the layout of CIFAR-10's binary batches
// and of PyTorch tensors; pixel values are scaled from 0…255 to [0,1] by
// dividing by 255. Tabular data (CSV, LIBSVM) keep their raw feature values
// and have Channels = Height = Width = 0.
//
// # Named data sets
//
// Load reads a named data set from a directory found by Resolve:
//
//	fashion-mnist   train-images-idx3-ubyte[.gz], train-labels-idx1-ubyte[.gz],
//	                t10k-images-idx3-ubyte[.gz], t10k-labels-idx1-ubyte[.gz]
//	mnist           the same four file names
//	emnist-letters  emnist-letters-{train,test}-{images-idx3,labels-idx1}-ubyte[.gz]
//	                (labels 1…26 become 0…25; images kept as stored in
//	                the files, which are transposed relative to MNIST,
//	                as torchvision also keeps them)
//	cifar10         data_batch_1.bin … data_batch_5.bin, test_batch.bin
//	                (directly in the directory or in cifar-10-batches-bin/)
//	svhn            train_32x32.mat, test_32x32.mat (label 10 means digit 0)
//	csv:TRAIN[,TEST][@L] a CSV file with a label column, chosen by name or index L (see ReadCSV)
//	parquet:TRAIN[,TEST][@L] a Parquet file, the same (see ReadParquet)
//	                (both take @categorical=COL[+COL…]: columns one-hot whatever their values)
//	libsvm:TRAIN[,TEST]  a LIBSVM text file (see ReadLIBSVM)
//	                (paths are used as given; the test file is read with the
//	                training file's classes and columns)
//	bags:PATH[@normalize][@bag=COL][@label=COL][@categorical=…]
//	                a bag-only set: an .npz file, a directory of .npy files or
//	                of tables, or TRAIN,PROPORTIONS[,TEST] CSV or Parquet tables
//	                (see ReadBagOnly and bagonly.go; its training split has no
//	                labels and carries its bags, Dataset.Bags)
//	fixture         the embedded Fashion-MNIST subset of package fixtures
//	                (also "fashion-mnist-fixture"; needs no directory)
package data
