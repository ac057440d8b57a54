// GCC 12.2 warns that its own AVX-512 intrinsics use their deliberately
// undefined merge operand (_mm512_undefined_*) uninitialized, GCC bug 105593,
// fixed in 12.3. The warning points into the intrinsics headers, so a kernel
// source includes this header before anything else; it stays off for the rest
// of that source.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ == 12
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
