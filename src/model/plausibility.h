#pragma once
// Plausibility: data no real profiler writes, named instead of analysed in silence. Validation
// (validate.h) checks each event on its own; these checks compare events with each other, on
// the linked trace's physics:
//  - an event recorded twice (same row, every column equal): the copy is dropped;
//  - kernels on one stream that overlap (a stream runs its work in order);
//  - a clock that goes backwards: calls on one thread whose order contradicts their correlation
//    ids (a thread's calls run one after another), kernels on one stream launched from one thread
//    that run in another order than their launches;
//  - durations that cannot be times in the unit read: every kernel 0 ns, kernels of a few
//    nanoseconds, launch calls of milliseconds (the file's unit is not the one its format says);
//  - profiler steps that nest or overlap (the outer one is left out of the iterations).
// Each is counted under an "impossible.*" problem kind with its first example; `info` lists them,
// the stderr summary names them, and the trace-health notes say which analyses they invalidate.

#include <cstdint>

#include "model/trace.h"

namespace gpuscope::model {

// Tolerances of the checks, in one place. Each is the measurement noise the check forgives, not a
// tuning: clocks of real tracers round to 1 us at worst.
struct PlausibilityOptions {
  int64_t overlap_tolerance_ns = 1000;        // kernels on a stream may overlap by rounding
  int64_t backwards_tolerance_ns = 1000;      // an order inversion within rounding is noise
  size_t min_kernels_for_units = 10;          // too few kernels say nothing about units
  int64_t min_typical_kernel_ns = 100;        // no GPU runs a typical kernel in under 100 ns
  int64_t max_typical_launch_ns = 1'000'000;  // nor a millisecond per launch and kernel
};

// Drops rows that repeat another row of the same table exactly. Needs time-sorted tables and runs
// before links are made (row ids change). Returns how many rows were dropped.
uint64_t DropDuplicateEvents(Trace& t);

// The checks on a linked trace (launch links made); counts problems into t.problems. Steps are
// checked where iterations are found (linker.cc), with the same problem family.
void CheckPlausibility(Trace& t, const PlausibilityOptions& options = {});

// The impossible-data kinds (declared in problem_kinds.h), by the names the checks use.
inline constexpr ProblemKind kDuplicateEvents = ProblemKind::kImpossibleDuplicateEvents;
inline constexpr ProblemKind kStreamOverlap = ProblemKind::kImpossibleStreamOverlap;
inline constexpr ProblemKind kClockBackwards = ProblemKind::kImpossibleClockBackwards;
inline constexpr ProblemKind kLaunchOrder = ProblemKind::kImpossibleLaunchOrder;
inline constexpr ProblemKind kZeroDurations = ProblemKind::kImpossibleZeroDurations;
inline constexpr ProblemKind kTimeUnit = ProblemKind::kImpossibleTimeUnit;
inline constexpr ProblemKind kNestedSteps = ProblemKind::kImpossibleNestedSteps;

}  // namespace gpuscope::model
