package opencl

// CuDNNNumerics is how the numerics name the cudnn path (cudnnNumerics).
var CuDNNNumerics = cudnnNumerics
