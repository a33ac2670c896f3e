package cuda

import (
	_ "embed" // the PTX modules
	"fmt"
	"math"
)

// The PTX modules, JIT-compiled by the driver when a context first needs
// them. core.ptx targets sm_60; tensor.ptx needs sm_80 and is loaded only
// on such GPUs.
var (
	//go:embed core.ptx
	corePTX string
	//go:embed tensor.ptx
	tensorPTX string
)

// module is one embedded PTX module.
type module struct {
	file string
	ptx  string
}

var (
	coreModule   = module{file: "core.ptx", ptx: corePTX}
	tensorModule = module{file: "tensor.ptx", ptx: tensorPTX}
)

// kernel is one .entry of a module and the PTX types of the parameters
// the launcher passes, in order (.u64 for device pointers and counts,
// .u32 and .b32 for 32-bit integers and packed halves, .f32 for floats).
type kernel struct {
	name   string
	module module
	params []string
}

// The kernels. ptx_test.go checks each against its module's .entry.
var (
	kernelFMAF32   = kernel{"fma_f32", coreModule, []string{".u64", ".f32", ".f32", ".f32", ".f32", ".u32", ".u32"}}
	kernelFMAF16x2 = kernel{"fma_f16x2", coreModule, []string{".u64", ".b32", ".b32", ".b32", ".b32", ".u32", ".u32"}}
	kernelMMAF16   = kernel{"mma_f16", tensorModule, []string{".u64", ".b32", ".b32", ".f32", ".f32", ".f32", ".u32", ".u32"}}
	kernelMMABF16  = kernel{"mma_bf16", tensorModule, []string{".u64", ".b32", ".b32", ".f32", ".f32", ".f32", ".u32", ".u32"}}
	kernelMemRead  = kernel{"mem_read", coreModule, []string{".u64", ".u64", ".u64", ".u32"}}
	kernelMemWrite = kernel{"mem_write", coreModule, []string{".u64", ".u64", ".u32", ".u32"}}
	kernelMemCopy  = kernel{"mem_copy", coreModule, []string{".u64", ".u64", ".u64", ".u32"}}

	kernels = []kernel{kernelFMAF32, kernelFMAF16x2, kernelMMAF16, kernelMMABF16, kernelMemRead, kernelMemWrite, kernelMemCopy}
)

// The shape of the arithmetic kernels, as their PTX is written: chains per
// thread (accumulators per warp for mma) and operations per chain per inner
// iteration.
const (
	fmaChains = 8
	fmaUnroll = 8
	mmaChains = 8
	mmaUnroll = 4
	// mmaFlops is one m16n8k16 per warp: 2·16·8·16.
	mmaFlops = 2 * 16 * 8 * 16
	// blockSize is the threads per block of every kernel.
	blockSize = 256
	// warpSize is the threads of a warp.
	warpSize = 32
)

// paramBlob lays out a launch's parameter values as cuLaunchKernel reads
// them: each at an offset aligned to its size.
type paramBlob struct {
	data    []byte
	offsets []int
}

// encode checks args against k's parameter types and lays them out.
func (k kernel) encode(args ...any) (paramBlob, error) {
	if len(args) != len(k.params) {
		return paramBlob{}, fmt.Errorf("cuda: %s takes %d parameters, the launcher passed %d", k.name, len(k.params), len(args))
	}
	var b paramBlob
	for i, a := range args {
		var bits uint64
		size := 4
		switch v := a.(type) {
		case uint64:
			if k.params[i] != ".u64" {
				return paramBlob{}, fmt.Errorf("cuda: %s parameter %d is %s, the launcher passed a uint64", k.name, i, k.params[i])
			}
			bits, size = v, 8
		case uint32:
			if k.params[i] != ".u32" && k.params[i] != ".b32" {
				return paramBlob{}, fmt.Errorf("cuda: %s parameter %d is %s, the launcher passed a uint32", k.name, i, k.params[i])
			}
			bits = uint64(v)
		case float32:
			if k.params[i] != ".f32" {
				return paramBlob{}, fmt.Errorf("cuda: %s parameter %d is %s, the launcher passed a float32", k.name, i, k.params[i])
			}
			bits = uint64(math.Float32bits(v))
		default:
			return paramBlob{}, fmt.Errorf("cuda: %s parameter %d has Go type %T", k.name, i, a)
		}
		for len(b.data)%size != 0 {
			b.data = append(b.data, 0)
		}
		b.offsets = append(b.offsets, len(b.data))
		for j := 0; j < size; j++ {
			b.data = append(b.data, byte(bits>>(8*j)))
		}
	}
	return b, nil
}

// half is the IEEE binary16 encoding of v, which must be exactly
// representable and normal (the kernels' operands are small integers and
// powers of two).
func half(v float32) uint16 {
	bits := math.Float32bits(v)
	sign := uint16(bits>>16) & 0x8000
	exp := int((bits>>23)&0xff) - 127
	mant := bits & 0x7fffff
	if v == 0 {
		return sign
	}
	if exp < -14 || exp > 15 || mant&0x1fff != 0 {
		panic(fmt.Sprintf("cuda: %g is not exactly a normal half", v))
	}
	return sign | uint16(exp+15)<<10 | uint16(mant>>13)
}

// bfloat16 is the bfloat16 encoding of v, which must be exact.
func bfloat16(v float32) uint16 {
	bits := math.Float32bits(v)
	if bits&0xffff != 0 {
		panic(fmt.Sprintf("cuda: %g is not exactly a bfloat16", v))
	}
	return uint16(bits >> 16)
}

// pair packs the same 16-bit value in both halves of a .b32.
func pair(h uint16) uint32 { return halves(h, h) }

// halves packs lo in the low half of a .b32 and hi in the high one.
func halves(lo, hi uint16) uint32 { return uint32(hi)<<16 | uint32(lo) }
