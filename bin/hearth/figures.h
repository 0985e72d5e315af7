// Numbers in the verbs' summaries: plain digits people read (the figures of a list, median_of
// and max_of, are common/stats.h's).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/stats.h"

namespace hearth::cli {

// V in plain digits: thousands separated, about three significant digits below 100
// (1180 -> "1,180", 0.1 -> "0.1", 0.0123 -> "0.0123"), never an exponent.
std::string plain_number(double v);

// N with thousands separated: 1234567 -> "1,234,567".
std::string thousands(uint64_t n);

}  // namespace hearth::cli
