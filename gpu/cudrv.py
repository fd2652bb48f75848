"""The CUDA driver API through ctypes (libcuda.so.1): load PTX, set attributes, launch with a
packed parameter array, encode TMA tensor maps. Plain C ABI, so nothing depends on a Python
binding's calling conventions; cuda-bindings, where installed, is used to cross-check enum
values (see enum_check)."""
import ctypes

_cuda = ctypes.CDLL("libcuda.so.1")

CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0
CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3
CU_FUNC_ATTRIBUTE_NUM_REGS = 4
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_JIT_INFO_LOG_BUFFER = 3
CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4
CU_JIT_ERROR_LOG_BUFFER = 5
CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
TMAP_DTYPE = {"f16": 6, "f32": 7, "bf16": 9}
TMAP_INTERLEAVE_NONE = 0
TMAP_SWIZZLE_128B = 3
TMAP_L2_PROMOTION_256B = 3
TMAP_OOB_FILL_NONE = 0


class CudaError(RuntimeError):
    def __init__(self, code, where):
        self.code = code
        self.name = error_name(code)
        super().__init__(f"{where}: {self.name} ({code})")


def error_name(code):
    s = ctypes.c_char_p()
    if _cuda.cuGetErrorName(ctypes.c_int(code), ctypes.byref(s)) != 0 or not s.value:
        return f"CUDA_ERROR_{code}"
    return s.value.decode()


def check(code, where):
    if code != 0:
        raise CudaError(code, where)


def ensure_context():
    """Make the primary context current (torch has usually done it already)."""
    check(_cuda.cuInit(0), "cuInit")
    ctx = ctypes.c_void_p()
    check(_cuda.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
    if ctx.value:
        return
    dev = ctypes.c_int()
    check(_cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
    check(_cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(_cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")


def synchronize():
    """Waits for the device; returns None or the error name (a trap shows up here)."""
    code = _cuda.cuCtxSynchronize()
    return None if code == 0 else error_name(code)


class Kernel:
    def __init__(self, ptx_text, name):
        image = ctypes.create_string_buffer(ptx_text.encode())
        self.module = ctypes.c_void_p()
        log = ctypes.create_string_buffer(1 << 14)
        opts = (ctypes.c_int * 2)(CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
        vals = (ctypes.c_void_p * 2)(ctypes.cast(log, ctypes.c_void_p), ctypes.c_void_p(len(log)))
        code = _cuda.cuModuleLoadDataEx(ctypes.byref(self.module), image, 2, opts, vals)
        if code != 0:
            raise RuntimeError(f"cuModuleLoadDataEx: {error_name(code)}: {log.value.decode(errors='replace')}")
        self.fn = ctypes.c_void_p()
        check(_cuda.cuModuleGetFunction(ctypes.byref(self.fn), self.module, name.encode()), "cuModuleGetFunction")

    def attribute(self, attr):
        v = ctypes.c_int()
        check(_cuda.cuFuncGetAttribute(ctypes.byref(v), ctypes.c_int(attr), self.fn), "cuFuncGetAttribute")
        return v.value

    def set_dynamic_smem(self, nbytes):
        check(_cuda.cuFuncSetAttribute(self.fn, ctypes.c_int(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES), ctypes.c_int(nbytes)), "cuFuncSetAttribute")

    def occupancy(self, threads, smem):
        n = ctypes.c_int()
        check(_cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(n), self.fn, ctypes.c_int(threads), ctypes.c_size_t(smem)), "cuOccupancy")
        return n.value

    def launch(self, grid, threads, smem, stream, args):
        """args: ctypes objects in kernel parameter order; each is copied at the call."""
        ptrs = (ctypes.c_void_p * len(args))(*[ctypes.cast(ctypes.pointer(a), ctypes.c_void_p) for a in args])
        check(
            _cuda.cuLaunchKernel(self.fn, ctypes.c_uint(grid), ctypes.c_uint(1), ctypes.c_uint(1), ctypes.c_uint(threads), ctypes.c_uint(1), ctypes.c_uint(1),
                                 ctypes.c_uint(smem), ctypes.c_void_p(stream), ptrs, None),
            "cuLaunchKernel")

    def unload(self):
        _cuda.cuModuleUnload(self.module)


class TensorMap(ctypes.Structure):
    _fields_ = [("opaque", ctypes.c_uint64 * 16)]


def _aligned_tensor_map():
    """A CUtensorMap at a 64-byte aligned host address (cuda.h declares it alignas(64))."""
    raw = ctypes.create_string_buffer(128 + 64)
    addr = (ctypes.addressof(raw) + 63) & ~63
    tm = TensorMap.from_address(addr)
    tm._keep = raw  # keep the storage alive with the view
    return tm


def tensor_map_2d(ptr, rows, cols, box_rows, box_cols, dtype):
    """Row-major rows x cols matrix of 2-byte elements; boxes of box_rows x box_cols, 128B swizzle."""
    tm = _aligned_tensor_map()
    u64 = ctypes.c_uint64
    u32 = ctypes.c_uint32
    dims = (u64 * 2)(cols, rows)
    strides = (u64 * 1)(cols * 2)
    box = (u32 * 2)(box_cols, box_rows)
    elem = (u32 * 2)(1, 1)
    check(_cuda.cuTensorMapEncodeTiled(ctypes.byref(tm), ctypes.c_int(TMAP_DTYPE[dtype]), u32(2), ctypes.c_void_p(ptr), dims, strides, box, elem,
                                       ctypes.c_int(TMAP_INTERLEAVE_NONE), ctypes.c_int(TMAP_SWIZZLE_128B), ctypes.c_int(TMAP_L2_PROMOTION_256B),
                                       ctypes.c_int(TMAP_OOB_FILL_NONE)), "cuTensorMapEncodeTiled")
    return tm


def enum_check():
    """The enum values above, compared with cuda-bindings' where it is installed."""
    try:
        from cuda.bindings import driver as cu
    except Exception as e:  # noqa: BLE001
        return f"cuda-bindings not importable ({e.__class__.__name__}); enum values not cross-checked"
    pairs = [
        (TMAP_DTYPE["bf16"], cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16),
        (TMAP_DTYPE["f16"], cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT16),
        (TMAP_SWIZZLE_128B, cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B),
        (TMAP_L2_PROMOTION_256B, cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B),
        (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
        (CU_FUNC_ATTRIBUTE_NUM_REGS, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NUM_REGS),
        (CU_JIT_ERROR_LOG_BUFFER, cu.CUjit_option.CU_JIT_ERROR_LOG_BUFFER),
    ]
    bad = [f"{int(b)} != {a} ({b})" for a, b in pairs if int(b) != a]
    if bad:
        raise RuntimeError("driver enum mismatch: " + "; ".join(bad))
    return "enum values agree with cuda-bindings"
