package data

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
)

// CIFAR-10 binary record layout: 1 label byte, then a 3×32×32 image stored
// channel-major (1024 red, 1024 green, 1024 blue bytes, each row by row).
const (
	cifarSide    = 32
	cifarPixels  = 3 * cifarSide * cifarSide
	cifarRecord  = 1 + cifarPixels
	cifarClasses = 10
)

// ReadCIFAR10 decodes one CIFAR-10 binary batch (data_batch_k.bin or
// test_batch.bin) from r and appends its images and labels to dst (nil starts
// a new Dataset). Each record is a label byte in 0…9 followed by 3072 pixel
// bytes; a truncated last record, an empty file or a label ≥ 10 is an error
// naming the byte offset.
func ReadCIFAR10(dst *Dataset, r io.Reader, name string) (*Dataset, error) {
	if dst == nil {
		dst = &Dataset{Name: "cifar10", D: cifarPixels, NumClasses: cifarClasses, Channels: 3, Height: cifarSide, Width: cifarSide}
	}
	br := bufio.NewReaderSize(r, 1<<16)
	rec := make([]byte, cifarRecord)
	var off int64
	records := 0
	for {
		n, err := io.ReadFull(br, rec)
		if errors.Is(err, io.EOF) {
			break
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%s: byte %d: truncated CIFAR-10 record %d: %d of %d bytes", name, off+int64(n), records, n, cifarRecord)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: byte %d: %w", name, off+int64(n), err)
		}
		if rec[0] >= cifarClasses {
			return nil, fmt.Errorf("%s: byte %d: record %d has label %d, want 0…9", name, off, records, rec[0])
		}
		dst.Y = append(dst.Y, int(rec[0]))
		for _, v := range rec[1:] {
			dst.X = append(dst.X, pixelScale[v])
		}
		dst.N++
		records++
		off += cifarRecord
	}
	if records == 0 {
		return nil, fmt.Errorf("%s: byte 0: empty CIFAR-10 batch, want records of %d bytes", name, cifarRecord)
	}
	return dst, nil
}

// ReadCIFAR10Files reads and concatenates the CIFAR-10 batches at paths.
func ReadCIFAR10Files(paths ...string) (*Dataset, error) {
	// Pre-size X from the file sizes (one allocation instead of doublings).
	var size int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			size += st.Size()
		}
	}
	n := int(size / cifarRecord)
	d := &Dataset{Name: "cifar10", D: cifarPixels, NumClasses: cifarClasses, Channels: 3, Height: cifarSide, Width: cifarSide,
		X: make([]float32, 0, n*cifarPixels), Y: make([]int, 0, n)}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		d, err = ReadCIFAR10(d, f, p)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("cifar10: no batch files given")
	}
	return d, nil
}
