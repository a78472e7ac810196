// Counts heap allocations made through the global operator new in the benchmark binary (which
// replaces it, see alloc_counter.cpp), so a benchmark can report allocations per row and fail
// when a hot path allocates per value. Counting is process-wide and costs one relaxed atomic add
// per allocation; benchmarks run single-threaded, so a difference of two readings taken around a
// timed loop is that loop's allocations.
#pragma once

#include <cstdint>

namespace rowbridge::bench {

// Allocations (calls of any operator new / new[]) since the program started.
uint64_t HeapAllocations();

}  // namespace rowbridge::bench
