package opencl

import "fmt"

// Error is a failed OpenCL, CLBlast, CUDA, NVRTC or cuBLAS call: the
// call, what it was doing, and the status code with its name.
type Error struct {
	Call   string // the C function, e.g. clEnqueueNDRangeKernel or cuLaunchKernel
	What   string // the kernel, buffer or routine concerned; may be empty
	Code   int32  // the status code returned
	Detail string // extra text (a build log); may be empty
	// Name is the code's name where the library gives it (CUDA's
	// cuGetErrorName, NVRTC's, cuBLAS's); empty for OpenCL and CLBlast,
	// whose names ErrorName knows.
	Name string
}

func (e *Error) Error() string {
	s := e.Call
	if e.What != "" {
		s += "(" + e.What + ")"
	}
	if e.Name != "" {
		s += fmt.Sprintf(": %s (%d)", e.Name, e.Code)
	} else {
		s += ": " + ErrorName(e.Code)
	}
	if e.Detail != "" {
		s += "\n" + e.Detail
	}
	return s
}

// check wraps a non-zero status code in an Error.
func check(code int32, call, what string) error {
	if code == 0 {
		return nil
	}
	return &Error{Call: call, What: what, Code: code}
}

// ErrorName returns the symbolic name of an OpenCL or CLBlast status code
// with its number, e.g. "CL_OUT_OF_RESOURCES (-5)".
func ErrorName(code int32) string {
	if n, ok := clErrorNames[code]; ok {
		return fmt.Sprintf("%s (%d)", n, code)
	}
	if n, ok := clblastErrorNames[code]; ok {
		return fmt.Sprintf("%s (%d)", n, code)
	}
	return fmt.Sprintf("unknown OpenCL status %d", code)
}

// clErrorNames are the status codes of the OpenCL 3.0 headers (cl.h) and
// the ICD loader's extension.
var clErrorNames = map[int32]string{
	0:     "CL_SUCCESS",
	-1:    "CL_DEVICE_NOT_FOUND",
	-2:    "CL_DEVICE_NOT_AVAILABLE",
	-3:    "CL_COMPILER_NOT_AVAILABLE",
	-4:    "CL_MEM_OBJECT_ALLOCATION_FAILURE",
	-5:    "CL_OUT_OF_RESOURCES",
	-6:    "CL_OUT_OF_HOST_MEMORY",
	-7:    "CL_PROFILING_INFO_NOT_AVAILABLE",
	-8:    "CL_MEM_COPY_OVERLAP",
	-9:    "CL_IMAGE_FORMAT_MISMATCH",
	-10:   "CL_IMAGE_FORMAT_NOT_SUPPORTED",
	-11:   "CL_BUILD_PROGRAM_FAILURE",
	-12:   "CL_MAP_FAILURE",
	-13:   "CL_MISALIGNED_SUB_BUFFER_OFFSET",
	-14:   "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST",
	-15:   "CL_COMPILE_PROGRAM_FAILURE",
	-16:   "CL_LINKER_NOT_AVAILABLE",
	-17:   "CL_LINK_PROGRAM_FAILURE",
	-18:   "CL_DEVICE_PARTITION_FAILED",
	-19:   "CL_KERNEL_ARG_INFO_NOT_AVAILABLE",
	-30:   "CL_INVALID_VALUE",
	-31:   "CL_INVALID_DEVICE_TYPE",
	-32:   "CL_INVALID_PLATFORM",
	-33:   "CL_INVALID_DEVICE",
	-34:   "CL_INVALID_CONTEXT",
	-35:   "CL_INVALID_QUEUE_PROPERTIES",
	-36:   "CL_INVALID_COMMAND_QUEUE",
	-37:   "CL_INVALID_HOST_PTR",
	-38:   "CL_INVALID_MEM_OBJECT",
	-39:   "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR",
	-40:   "CL_INVALID_IMAGE_SIZE",
	-41:   "CL_INVALID_SAMPLER",
	-42:   "CL_INVALID_BINARY",
	-43:   "CL_INVALID_BUILD_OPTIONS",
	-44:   "CL_INVALID_PROGRAM",
	-45:   "CL_INVALID_PROGRAM_EXECUTABLE",
	-46:   "CL_INVALID_KERNEL_NAME",
	-47:   "CL_INVALID_KERNEL_DEFINITION",
	-48:   "CL_INVALID_KERNEL",
	-49:   "CL_INVALID_ARG_INDEX",
	-50:   "CL_INVALID_ARG_VALUE",
	-51:   "CL_INVALID_ARG_SIZE",
	-52:   "CL_INVALID_KERNEL_ARGS",
	-53:   "CL_INVALID_WORK_DIMENSION",
	-54:   "CL_INVALID_WORK_GROUP_SIZE",
	-55:   "CL_INVALID_WORK_ITEM_SIZE",
	-56:   "CL_INVALID_GLOBAL_OFFSET",
	-57:   "CL_INVALID_EVENT_WAIT_LIST",
	-58:   "CL_INVALID_EVENT",
	-59:   "CL_INVALID_OPERATION",
	-60:   "CL_INVALID_GL_OBJECT",
	-61:   "CL_INVALID_BUFFER_SIZE",
	-62:   "CL_INVALID_MIP_LEVEL",
	-63:   "CL_INVALID_GLOBAL_WORK_SIZE",
	-64:   "CL_INVALID_PROPERTY",
	-65:   "CL_INVALID_IMAGE_DESCRIPTOR",
	-66:   "CL_INVALID_COMPILER_OPTIONS",
	-67:   "CL_INVALID_LINKER_OPTIONS",
	-68:   "CL_INVALID_DEVICE_PARTITION_COUNT",
	-69:   "CL_INVALID_PIPE_SIZE",
	-70:   "CL_INVALID_DEVICE_QUEUE",
	-71:   "CL_INVALID_SPEC_ID",
	-72:   "CL_MAX_SIZE_RESTRICTION_EXCEEDED",
	-1001: "CL_PLATFORM_NOT_FOUND_KHR",
}

// clblastErrorNames are CLBlast's own status codes (clblast_c.h); the
// others are OpenCL's.
var clblastErrorNames = map[int32]string{
	-1024: "CLBlastNotImplemented",
	-1022: "CLBlastInvalidMatrixA",
	-1021: "CLBlastInvalidMatrixB",
	-1020: "CLBlastInvalidMatrixC",
	-1019: "CLBlastInvalidVectorX",
	-1018: "CLBlastInvalidVectorY",
	-1017: "CLBlastInvalidDimension",
	-1016: "CLBlastInvalidLeadDimA",
	-1015: "CLBlastInvalidLeadDimB",
	-1014: "CLBlastInvalidLeadDimC",
	-1013: "CLBlastInvalidIncrementX",
	-1012: "CLBlastInvalidIncrementY",
	-1011: "CLBlastInsufficientMemoryA",
	-1010: "CLBlastInsufficientMemoryB",
	-1009: "CLBlastInsufficientMemoryC",
	-1008: "CLBlastInsufficientMemoryX",
	-1007: "CLBlastInsufficientMemoryY",
	-2050: "CLBlastInsufficientMemoryTemp",
	-2049: "CLBlastInvalidBatchCount",
	-2048: "CLBlastInvalidOverrideKernel",
	-2047: "CLBlastMissingOverrideParameter",
	-2046: "CLBlastInvalidLocalMemUsage",
	-2045: "CLBlastNoHalfPrecision",
	-2044: "CLBlastNoDoublePrecision",
	-2043: "CLBlastInvalidVectorScalar",
	-2042: "CLBlastInsufficientMemoryScalar",
	-2041: "CLBlastDatabaseError",
	-2040: "CLBlastUnknownError",
	-2039: "CLBlastUnexpectedError",
}
