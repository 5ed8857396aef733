"""The C++ a standalone program adds around Warp's unit, verbatim: the headers it includes first, the host runtime
every program shares (reading ``inputs.bin``, arrays, printing), the half-precision conversions a CPU unit that uses
halves needs (they live in ``warp.so``, not in Warp's headers), and the printer of one output type. ``host`` fills
and assembles them.
"""

# before Warp's unit: the unit defines function-like macros (int(x), float(x)) that would rewrite these headers
INCLUDES = "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <vector>\n\n"
COMMON = r"""
// ---------------------------------------------------------------------------------------------------------
// Host program (not emitted by Warp). Warp's unit above defines int(x) and float(x) as macros: no
// function-style casts below.
namespace standalone {

static std::vector<unsigned char> read_inputs(const char* path, size_t expected)
{
    FILE* f = std::fopen(path, "rb");
    if (!f) {
        std::fprintf(stderr, "cannot open %s (the row's inputs column)\n", path);
        std::exit(2);
    }
    std::vector<unsigned char> blob(expected + 1);
    size_t n = std::fread(blob.data(), 1, blob.size(), f);
    std::fclose(f);
    if (n != expected) {
        std::fprintf(stderr, "%s holds %s%zu bytes, this kernel reads %zu\n", path, n > expected ? "more than " : "",
                     n > expected ? expected : n, expected);
        std::exit(2);
    }
    blob.resize(expected);
    return blob;
}

// a copy of one argument's bytes in memory of its own (malloc's alignment suits every Warp type)
static void* host_copy(const std::vector<unsigned char>& blob, size_t offset, size_t nbytes)
{
    void* p = std::calloc(1, nbytes ? nbytes : 1);
    std::memcpy(p, blob.data() + offset, nbytes);
    return p;
}
"""

# Warp's CPU half <-> float conversions live in warp.so (native/warp.cpp), not in its headers: a program whose
# unit converts halves defines them, with the same arithmetic (F. Giesen's conversions, as warp.cpp has them)
HALF = r"""
extern "C" uint16_t wp_float_to_half_bits(float x)
{
    uint32_t f, sign, u32;
    std::memcpy(&f, &x, 4);
    sign = f & 0x80000000u;
    f ^= sign;
    uint16_t u;
    if (f >= (255u << 23)) {
        u = (f > (255u << 23)) ? 0x7e00 : 0x7c00;
    } else {
        const uint32_t round_mask = ~0xfffu, magic_bits = 15u << 23, f16infty = 31u << 23;
        float magic, v;
        std::memcpy(&magic, &magic_bits, 4);
        f &= round_mask;
        std::memcpy(&v, &f, 4);
        v *= magic;
        std::memcpy(&u32, &v, 4);
        u32 -= round_mask;
        if (u32 > f16infty)
            u32 = f16infty;
        u = (uint16_t)(u32 >> 13);
    }
    return (uint16_t)(u | (sign >> 16));
}

extern "C" float wp_half_bits_to_float(uint16_t h)
{
    const uint32_t shifted_exp = 0x7c00u << 13, magic_bits = 113u << 23;
    uint32_t o = ((uint32_t)h & 0x7fffu) << 13;
    const uint32_t exp = shifted_exp & o;
    o += (127u - 15u) << 23;
    float f, magic;
    if (exp == shifted_exp) {
        o += (128u - 16u) << 23;
    } else if (exp == 0) {
        o += 1u << 23;
        std::memcpy(&f, &o, 4);
        std::memcpy(&magic, &magic_bits, 4);
        f -= magic;
        std::memcpy(&o, &f, 4);
    }
    o |= ((uint32_t)h & 0x8000u) << 16;
    std::memcpy(&f, &o, 4);
    return f;
}
"""


PRINT_FN = """
static void print(const char* name, const {ctype}* v, size_t n)
{{
    std::printf("%s:", name);
    for (size_t i = 0; i < n; ++i)
        std::printf(" {fmt}", {value});
    std::printf("\\n");
}}
"""
